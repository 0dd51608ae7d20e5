"""The attention backends SGLang 0.5.23's attention hook checks on a prefill-CP line (issue 23
s68p).

Why: a prefill-CP line meets the attention hook's refusals (`handle_attention_backend_
compatibility`, pipeline.py:242) before the DP refusal (:274) and the CP hook (:278)
(graphfit.inputs.sglang_prefill_cp_platform.attention_first). The set the hook checks is not
the line's flags alone. Before it, in SGLang's order:

1. the model override writes its pick (pipeline.py:225; arg_groups/model_overrides/*.py):
   for the architectures graphfit restates on their own (graphfit.planner.engines.
   sglang_arch_overrides.RESTATED) their own rules, e.g. Kimi-K3's trtllm_mla prefill /
   decode pair on SM100 (kimi_k3.py:146-149), which `_attention_backend_default` makes the
   base (overrides.py:1128-1131) and `_mla_kv_cache_dtype_checks` refuses with an fp8_e5m2
   KV cache (overrides.py:1214-1217);
2. `handle_nvfp4_prefill_kv_dequant_dtype` (pipeline.py:241; kv_cache_hook.py:34-99) writes
   an nvfp4 KV cache's prefill workspace backend and trtllm_mha decode, or refuses the set
   so far (`nvfp4_phases`);
3. the default fills an unset base (overrides.py:1126-1140; `default_base`).

`hook_set` returns that set; ConfigError where SGLang refuses the line on the way (the
override, the model hook's lists, the nvfp4 hook), which it does before the CP hook too.
Without a named GPU or a local config.json the line's own flags stand (graphfit cannot tell).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from graphfit.inputs import sglang_prefill_cp_hook_line as reading
from graphfit.inputs.sglang_prefill_cp_hook_line import PHASES, HookLine, renamed
from graphfit.planner.core.errors import ConfigError


@dataclass(frozen=True)
class HookSet:
    """The set `hook_set` found, and what `handle_kv4_compatibility` reads beside it
    (kv_cache_hook.py:112-318, pipeline.py:254: after the attention hook, before the DP
    refusal and the CP hook): whether the model is MLA, the line's algorithm (upper case),
    its NGRAM BFS breadth, its draft backend and pool flags. `known`: graphfit read the
    model's config.json (without it, whether the model is MLA is unknown and the KV4 checks
    are not made)."""

    base: str | None
    prefill: str | None
    decode: str | None
    known: bool = False
    mla: bool = False
    algorithm: str | None = None
    ngram_breadth: int = 1
    draft_backend: str | None = None
    pools: tuple[tuple[str, bool], ...] = ()

    def __post_init__(self) -> None:
        if isinstance(self.ngram_breadth, bool) or not isinstance(self.ngram_breadth, int) or (
                self.ngram_breadth < 1):
            raise ConfigError(f"HookSet.ngram_breadth: an int >= 1, got {self.ngram_breadth!r}")


def hook_set(hook: HookLine, gpu_given: object) -> HookSet:
    """The backend set the attention hook sees on the line `hook` reads (module docstring),
    and what the KV4 checks read beside it."""
    from graphfit.inputs.sglang_draft_default import (
        DEQUANT,
        default_inputs,
        gpu_kind,
        override_inputs,
        pool_flags,
    )
    from graphfit.planner.engines.sglang_arch_overrides import RESTATED, settled
    from graphfit.planner.engines.sglang_attn_default import (
        DefaultBackend,
        named_before_default,
    )
    from graphfit.planner.engines.sglang_backend_checks import NGRAM_BFS_BREADTH, nvfp4_phases

    gpu = gpu_kind(gpu_given)
    line: dict[str, Any] = dict(hook.reads)
    unknown = HookSet(reading.default_base(hook, gpu_given), hook.prefill, hook.decode)
    if gpu is None or not line:
        return unknown
    # the flags as SGLang's first pass leaves them (renamed, tokenspeed_mla's KV dtype)
    line.update({key: name for key, name in zip(PHASES, renamed(line), strict=True)})
    if hook.kv_cache_dtype is not None:
        line["kv_cache_dtype"] = hook.kv_cache_dtype
    found, inputs = default_inputs(line, gpu_given)
    if inputs is None:
        return unknown
    algorithm = str(line.get("speculative_algorithm") or "").upper() or None
    breadth = line.get("speculative_ngram_max_bfs_breadth")
    draft = line.get("speculative_draft_attention_backend")
    flags = pool_flags(line)
    flags.pop("skip_softmax")
    known = HookSet(None, None, None, known=True, mla=inputs.mla, algorithm=algorithm,
                    ngram_breadth=breadth if isinstance(breadth, int) and breadth >= 1
                    else NGRAM_BFS_BREADTH,
                    draft_backend=str(draft).strip().lower() if draft else None,
                    pools=tuple(sorted(flags.items())))
    if inputs.architecture in RESTATED:
        resolved = settled(override_inputs(line, gpu_given, inputs, found))
        if isinstance(resolved, DefaultBackend):  # not restated: the line's flags stand
            return replace(known, base=hook.base, prefill=hook.prefill, decode=hook.decode)
        return replace(known, base=resolved.base, prefill=resolved.prefill,
                       decode=resolved.decode)
    base, prefill, decode = renamed(line)
    explicit = prefill or base or named_before_default(inputs)
    dequant = line.get(DEQUANT)
    prefill, decode = nvfp4_phases(gpu, hook.kv_cache_dtype, explicit, prefill, decode,
                                   str(dequant).strip().lower() if dequant else None)
    # equal split flags make the base (overrides.py:1128-1131), else the default fills it
    equal = prefill is not None and prefill == decode
    base = prefill if equal else reading.default_base(hook, gpu_given)
    return replace(known, base=base, prefill=prefill, decode=decode)


def kv4_checks(gpu: str, found: HookSet, kv_cache_dtype: str | None) -> None:
    """`handle_kv4_compatibility` on the set `found` (graphfit.planner.engines.
    sglang_backend_checks.kv4: an FP4 KV cache's GPU, pool, speculation and backend-list
    refusals), as SGLang makes them after the attention hook and before the CP hook."""
    from graphfit.planner.engines.sglang_backend_checks import ResolvedAttention, kv4

    ngram = found.algorithm == "NGRAM"
    pools = dict(found.pools)
    resolved = ResolvedAttention(
        gpu, found.base, found.prefill, found.decode,
        topk=found.ngram_breadth if ngram else 1, kv_cache_dtype=kv_cache_dtype, ngram=ngram,
        mla=found.mla, algorithm=found.algorithm, draft_backend=found.draft_backend,
        unified_memory=pools.get("unified_memory", False),
        disaggregated=pools.get("disaggregated", False),
        host_pool=pools.get("host_pool", False))
    kv4(resolved, found.prefill or found.base, found.decode or found.base)


__all__ = ["HookSet", "hook_set", "kv4_checks"]
