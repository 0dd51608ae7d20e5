"""SGLang 0.5.23's Inkling MTP draft heads' own conv caches: GPU memory outside the solve.

Under multi-layer EAGLE (`--enable-multi-layer-eagle`, graphfit.planner.engines.
sglang_spec_runners.multi_layer_eagle) the draft worker builds one model runner per draft step
(`_init_multi_layer_eagle_model_runners`, managers/tp_worker.py:498, 505-522: `draft_model_idx`
0 .. speculative_num_steps - 1). An Inkling draft (its architecture rewritten to
`InklingForConditionalGenerationMTP`, configs/model_config.py:1098-1103, which sets
`mtp_layer_id_is_depth`, models/inkling.py:1780, and is hybrid-SWA, model_config.py:1246-1254)
is a "hybrid SWA MTP draft" (`resolve_layer_indices`, model_runner_components/layer_setup.py:
161-166). Each such runner clones the target's hybrid request pool with a fresh mamba pool of
ONE layer (`clone_with_new_mamba`, mem_cache/memory_pool.py:1532-1565, called from
mem_cache/kv_cache_configurator.py:748-762) of `max_mamba_cache_size` slots -- the target's
resolved per-DP-shard figure (`get_schedule()`, set at :3302-3394) -- priced with the draft
config's own `mamba2_cache_params` (configs/inkling.py:217-256: six bfloat16 conv states of
(K - 1, width), the temporal state empty) on the same attention-TP width. Without draft tokens
(`speculative_num_draft_tokens=None`, :756-758) the pool holds no intermediate states, so a
head owns (memory_pool.py:721-747, allocator/mamba.py:84-88):

    conv states   (slots + 1) x (K - 1) x sum(widths) x 2 bytes
    free list     slots x 8 bytes (int64 slot ids)

The request-to-token mapping and the mamba index maps stay the target's (:1558-1563). These
pools are allocated when each draft runner's memory pool is initialised, after the target's
KV and state caches are sized from `mem_fraction_static`: they come out of the memory the
fraction leaves, and no figure graphfit plans (ladders, buffers, the fraction, the state
cache) changes. `draft_conv_line` says how much they take, or why graphfit does not know.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings

FREE_SLOT_BYTES = 8  # MambaSlotAllocator's free list, int64 (allocator/mamba.py:84-88)
WHERE = "memory_pool.py:1532-1565, kv_cache_configurator.py:748-762"


@dataclass(frozen=True)
class DraftConvCaches:
    """The draft heads' conv caches on one rank: `heads` pools of `slots` (+ 1 padding) slots,
    each slot `slot_bytes` of conv states."""

    heads: int
    slots: int
    slot_bytes: int

    def __post_init__(self) -> None:
        for name in ("heads", "slots", "slot_bytes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"draft conv caches: {name} must be a positive integer, "
                                  f"got {value!r}")

    def head_bytes(self) -> int:
        """One head's pool: its conv states (padding slot included) and its free list."""
        return (self.slots + 1) * self.slot_bytes + self.slots * FREE_SLOT_BYTES

    def total_bytes(self) -> int:
        """Every head's pool on this rank."""
        return self.heads * self.head_bytes()


def applies(config: EngineSettings) -> bool:
    """Whether SGLang clones the pool per draft head: an Inkling target (its request pool the
    hybrid one) under multi-layer EAGLE. The draft must be Inkling too; the reader says so
    by filling `inkling_draft_conv_state` (a local draft config only)."""
    from graphfit.planner.engines.sglang_mamba_inkling import INKLING_ARCHS
    from graphfit.planner.engines.sglang_spec_runners import multi_layer_eagle

    return (config.architecture in INKLING_ARCHS and config.inkling_conv_state is not None
            and multi_layer_eagle(config))


def state_slots(config: EngineSettings) -> int | None:
    """`get_schedule().max_mamba_cache_size` after the target's sizing (kv_cache_configurator.
    py:3302-3394): --max-mamba-cache-size per DP shard; with the radix cache off and a
    request count, max(1, requests per DP shard); else the size from memory graphfit solved
    (None when it is not restated)."""
    from graphfit.planner.engines.sglang_mamba_pool import radix_off

    dp = max(1, config.attn_dp_size)
    if config.max_mamba_cache_size is not None:
        return config.max_mamba_cache_size // dp or None
    if radix_off(config) and config.max_num_seqs is not None:
        return max(1, config.max_num_seqs // dp)
    return config.mamba_memory_slots


def draft_conv_caches(config: EngineSettings) -> DraftConvCaches | None:
    """The draft heads' conv caches (module docstring), or None where SGLang allocates none
    or graphfit does not know them (`draft_conv_line` says which)."""
    if not applies(config) or config.inkling_draft_conv_state is None:
        return None
    slots = state_slots(config)
    steps = config.num_speculative_tokens
    if slots is None or not steps:
        return None
    from graphfit.planner.engines.sglang_mamba_inkling import InklingConvState
    from graphfit.planner.engines.sglang_mamba_memory import state_tp

    state = InklingConvState.of(config.inkling_draft_conv_state)
    return DraftConvCaches(steps, slots, state.bytes_per_layer(
        state_tp(config), config.enable_scattered_sconv))


def draft_conv_line(config: EngineSettings) -> tuple[str, str] | None:
    """The plan's line on the draft heads' conv caches; None where SGLang allocates none."""
    if not applies(config):
        return None
    caches = draft_conv_caches(config)
    if caches is None:
        why = ("no local Inkling draft config was read (a hub id is not downloaded; a "
               "draft of another model clones none)" if config.inkling_draft_conv_state is None
               else "the target's state cache size is not known")
        return ("mtp_draft_conv_caches", f"each MTP draft head owns a one-layer conv cache "
                                         f"({WHERE}); not sized: {why}")
    mib = caches.total_bytes() / (1 << 20)
    return ("mtp_draft_conv_caches",
            f"{caches.heads} MTP draft heads x ({caches.slots} + 1) slots x "
            f"{caches.slot_bytes} B of conv states (+ {FREE_SLOT_BYTES} B a slot of free "
            f"list) = {mib:.1f} MiB a rank, allocated after the KV and state caches are "
            f"sized: outside mem_fraction_static ({WHERE})")


__all__ = ["DraftConvCaches", "draft_conv_caches", "draft_conv_line", "state_slots"]
