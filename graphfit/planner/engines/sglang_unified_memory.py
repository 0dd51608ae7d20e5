"""SGLang 0.5.23's `--enable-unified-memory` start-up checks on the speculative algorithm
(`handle_unified_memory_pool`, arg_groups/kv_cache_hook.py:528-718), run after the speculative
hook (arg_groups/pipeline.py:304-306, 338), so on the final algorithm (NEXTN is EAGLE there,
spec_info.py:102-109) and the resolved --speculative-eagle-topk. Restated where graphfit
knows the inputs: the algorithm (:588-598), the linear draft chain (:599-605), an EAGLE /
EAGLE3 draft's unified target, hybrid-SWA or a mamba hybrid (:606-612: with a config.json
read, `hybrid_swa` known), and two-batch overlap (:655-659). The attention-backend checks
(:613-641, 500-525) are not restated: a line leaving the backend to SGLang's default is
resolved by rules graphfit does not all restate."""

from __future__ import annotations

from collections.abc import Mapping

from graphfit.planner.core.enums import SpecMethod
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings

# the algorithms the unified pool is audited for (kv_cache_hook.py:588-594)
UNIFIED_ALGORITHMS = frozenset({"DSPARK", "EAGLE", "EAGLE3", "DFLASH"})


def check(algorithm: str | None, topk: int | None, hybrid_swa: bool | None,
          hybrid_mamba: bool, two_batch_overlap: bool) -> None:
    """ConfigError with SGLang's reason where `handle_unified_memory_pool` refuses the line
    (module docstring). `algorithm`: SGLang's final name (None: no speculation);
    `hybrid_swa`: None when no config.json was read (then not checked)."""
    if algorithm is not None and algorithm not in UNIFIED_ALGORITHMS:
        raise ConfigError(f"--enable-unified-memory: SGLang supports only --speculative-"
                          f"algorithm DSPARK, DFLASH, EAGLE and EAGLE3, got {algorithm} "
                          f"(kv_cache_hook.py:588-598)")
    if topk not in (None, 1):
        raise ConfigError(f"--enable-unified-memory: SGLang supports a linear draft chain "
                          f"only (--speculative-eagle-topk 1), got {topk} "
                          f"(kv_cache_hook.py:599-605)")
    if algorithm in ("EAGLE", "EAGLE3") and hybrid_swa is False and not hybrid_mamba:
        raise ConfigError("--enable-unified-memory + EAGLE/EAGLE3: SGLang requires a "
                          "hybrid-SWA or mamba-hybrid target, the draft's KV fused in its "
                          "sub-pools (kv_cache_hook.py:606-612)")
    if two_batch_overlap:
        raise ConfigError("--enable-unified-memory: SGLang does not support "
                          "--enable-two-batch-overlap (kv_cache_hook.py:655-659)")


def final_algorithm(config: EngineSettings) -> str | None:
    """The algorithm as SGLang's ServerArgs hold it after the speculative hook: NEXTN and
    EAGLE are EAGLE, or FROZEN_KV_MTP for a Gemma4 assistant draft (speculative_hook.py:
    109-116); graphfit's draft model is STANDALONE; None without speculation."""
    from graphfit.planner.engines.sglang_spec_runners import frozen_kv_mtp

    method = config.spec_method
    if method is SpecMethod.NONE:
        return None
    if frozen_kv_mtp(config):
        return "FROZEN_KV_MTP"
    if method in (SpecMethod.EAGLE, SpecMethod.MTP):
        return "EAGLE"
    if method is SpecMethod.DRAFT_MODEL:
        return "STANDALONE"
    return str(method.value).upper()


def check_config(config: EngineSettings, changes: Mapping[str, object]) -> None:
    """`check` over a config under --enable-unified-memory, with the resolution so far
    (`changes`: the speculative topk SGLang's hook resolves)."""
    if not config.enable_unified_memory:
        return
    from graphfit.planner.engines.sglang_mamba_pool import is_hybrid_mamba

    algorithm = final_algorithm(config)
    topk = changes.get("speculative_eagle_topk", config.speculative_eagle_topk)
    check(algorithm, topk if isinstance(topk, int) and algorithm is not None else None,
          config.hybrid_swa, is_hybrid_mamba(config.architecture, config.mamba_state_shape),
          config.two_batch_overlap)


__all__ = ["UNIFIED_ALGORITHMS", "check", "check_config", "final_algorithm"]
