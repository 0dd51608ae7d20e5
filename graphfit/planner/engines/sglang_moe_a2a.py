"""SGLang 0.5.23's MoE all-to-all backends (`--moe-a2a-backend`) as the decode graphs see them.

An all-to-all backend changes no buffer of its own in the decode graph runner: what it changes
is whether the runner keeps *gathered* buffers and so how the captured batch sizes are aligned.
`require_attn_tp_gather()` (utils/common.py:4133-4156) is true for any backend but "none"
unless attention DP already splits the TP group into one-rank attention groups
(`num_dp_ranks < tp_size`, :4152-4153); `require_gathered_buffer()` (:4159-4160) then makes
`get_cuda_graph_batch_size_alignment` (:4168-4180) multiply by the attention-TP width, so the
ladder holds only multiples of attn_tp_size, and the eager path rounds the batch up the same
way (`get_eager_max_batch_size`, :4188-4195). `require_mlp_tp_gather()` (:4066-4130), which
sizes `global_num_tokens_gpu` by the DP ranks (runner/base_runner.py:167-176), stays what
attention DP alone makes it while `--moe-dense-tp-size` is unset (:4090-4092).

Which backend is live: `initialize_moe_config()` (layers/moe/utils.py:479-492) seeds it from the
resolved `moe_a2a_backend`, and the scheduler calls it only for a MoE model
(managers/scheduler.py:1001-1008: a config with `num_experts_per_tok` or a sibling); a dense
model keeps MoeA2ABackend.NONE (utils.py:517-521). `ascend_tp` is resolved to "none"
(arg_groups/moe_hook.py:463-470).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from graphfit.planner.core.errors import ConfigError

# SGLang's --moe-a2a-backend choices (arg_groups/fields/exec_.py:836-868)
BACKENDS = ("none", "deepep", "mooncake", "nixl", "mori", "ascend_fuseep", "flashinfer",
            "megamoe", "deepep_v2", "ascend_tp", "pplx", "flashinfer_megamoe")
# backends whose prefill graphs stay on by default; any other disables them unless a prefill
# backend is given (cuda_graph_hook.py:223-229, resolved before ascend_tp becomes none)
PREFILL_VALIDATED = ("none", "deepep", "megamoe", "flashinfer")
# graphfit's reason for each backend it refuses: SGLang's own checks on them read things
# graphfit does not know (the GPU, the model class, environment variables)
REFUSED = {
    "mori": "MoRI reads SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK against the dispatch "
            "tokens and mori's receive bound changes the gather rule "
            "(utils/common.py:4113-4124; arg_groups/moe_hook.py:543-570)",
    "pplx": "pplx bounds the decode batch by SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK and "
            "needs a pplx MoE runner (arg_groups/moe_hook.py:575-605)",
    "deepep_v2": "DeepEP v2 needs a registered model class and the deep_gemm runner "
                 "(arg_groups/moe_hook.py:400-447)",
    "flashinfer_megamoe": "FlashInfer MegaMoE needs an SM100 GPU and a validated model class "
                          "(arg_groups/moe_hook.py:315-340)",
    "megamoe": "MegaMoE needs an SM90 or SM100 GPU, no two-batch overlap and a per-model "
               "token budget (arg_groups/mega_moe_hook.py:27-48, 78-80)",
    "flashinfer": "FlashInfer A2A's topology check reads the model class and EP size "
                  "(arg_groups/moe_hook.py:471-485)",
}


class _Parallel(Protocol):
    @property
    def tp_size(self) -> int: ...
    @property
    def attn_dp_size(self) -> int: ...
    @property
    def moe_a2a_backend(self) -> str: ...


def check_backend(backend: str) -> str:
    """The backend name, lower-cased, if SGLang accepts it and graphfit models it."""
    name = backend.strip().lower()
    if name not in BACKENDS:
        raise ConfigError(f"moe_a2a_backend: {backend!r} is not one of {', '.join(BACKENDS)} "
                          f"(arg_groups/fields/exec_.py:836-868)")
    if name in REFUSED:
        raise ConfigError(f"moe_a2a_backend: {name} is not modelled ({REFUSED[name]})")
    return name


DEEPEP_MODES = ("auto", "normal", "low_latency")  # arg_groups/fields/exec_.py:898-901


def check_deepep_mode(mode: object) -> str:
    """`--deepep-mode`, lower-cased, if one of SGLang's choices."""
    if not isinstance(mode, str) or mode.strip().lower() not in DEEPEP_MODES:
        raise ConfigError(f"deepep_mode: {mode!r} is not one of {', '.join(DEEPEP_MODES)} "
                          f"(arg_groups/fields/exec_.py:898-901)")
    return mode.strip().lower()


def normal_mode_off(backend: str, deepep_mode: str) -> bool:
    """DeepEP's normal mode turns decode and prefill graphs off (`handle_a2a_moe`,
    arg_groups/moe_hook.py:383-398), whatever the graph flags. That hook runs after
    `handle_gpu_memory_settings` (arg_groups/pipeline.py:218, 295), so SGLang's default
    mem_fraction_static is computed with the graphs the flags asked for, DeepEP's 2 GiB (and
    1 GiB for breakable prefill graphs) included: graphfit's model turns the graphs off after
    it computes that default (SglangModel.resolve)."""
    return backend == "deepep" and deepep_mode == "normal"


def live_backend(backend: str) -> str:
    """The backend the graph runners see: `ascend_tp` resolves to none
    (arg_groups/moe_hook.py:463-470)."""
    return "none" if backend == "ascend_tp" else backend


def gathers_attention(backend: str, tp_size: int, attn_dp_size: int) -> bool:
    """`require_attn_tp_gather()` (utils/common.py:4133-4156) with --moe-dense-tp-size unset
    and --disable-attn-tp-gather off (both refused by graphfit's readers): a live backend
    gathers the attention input unless every attention group is one rank."""
    if live_backend(backend) == "none":
        return False
    if attn_dp_size > 1:  # attn_dp_enabled
        return attn_dp_size < tp_size
    return True


def attn_tp_gather(config: _Parallel) -> bool:
    """`gathers_attention` for a config."""
    return gathers_attention(config.moe_a2a_backend, config.tp_size, config.attn_dp_size)


DEEPEP_PREFILL_BUCKET = 8  # cuda_graph_hook.py:330
DEEPEP_DEFAULT_PREFILL_MAX = 2048  # cuda_graph_hook.py:326-327 ("documented prefill default")


def deepep_prefill_buckets(backend: str, prefill_backend: str, max_tokens: int | None,
                           tokens: tuple[int, ...] | None,
                           ladder: Callable[[int], list[int]]
                           ) -> tuple[tuple[int, ...], int] | None:
    """`apply_deepep_adjustments` (arg_groups/cuda_graph_hook.py:315-342): with DeepEP and
    breakable prefill graphs the prefill token buckets are rounded up to multiples of 8
    (non-multiples can hang DeepEP's capture). The list rounded is the given
    `--cuda-graph-bs-prefill`, else the default ladder of the given max, else of **2048**
    tokens: the hook runs inside `handle_cuda_graph_config`, before the memory hook derives
    the max from chunked_prefill_size (arg_groups/pipeline.py:191, 218). When the rounded
    list differs it is declared as the phase's `bs` with `max_bs` its largest entry
    (:336-342), so the memory hook, which fills only an unset max_bs / bs
    (memory_hook.py:233-268), keeps it: no chunked-prefill, max-total-tokens or llama-2 cap
    applies. Returns (bs, max_bs) so declared, or None (unchanged:
    another backend, another prefill backend, or a list already aligned, e.g. the empty
    ladder of a max below 4)."""
    if live_backend(backend) != "deepep" or prefill_backend != "breakable":
        return None
    bs = list(tokens) if tokens is not None else ladder(max_tokens or DEEPEP_DEFAULT_PREFILL_MAX)
    aligned = sorted({-(-b // DEEPEP_PREFILL_BUCKET) * DEEPEP_PREFILL_BUCKET for b in bs})
    if aligned == sorted(bs):
        return None
    return tuple(aligned), aligned[-1]


__all__ = ["BACKENDS", "DEEPEP_DEFAULT_PREFILL_MAX", "DEEPEP_PREFILL_BUCKET", "PREFILL_VALIDATED",
           "REFUSED", "attn_tp_gather", "check_backend", "check_deepep_mode", "DEEPEP_MODES",
           "deepep_prefill_buckets", "gathers_attention", "live_backend", "normal_mode_off"]
