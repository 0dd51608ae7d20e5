"""SGLang 0.5.23's HiSparse validation at its `check_server_args` slot (issue 23, s67b):
`run_post_process_pass(server_args, _hisparse_validation)` (arg_groups/validation_hook.py:
296-300, overrides.py:1221-1229) runs `validate_hisparse` (hisparse_hook.py:87-165) once the
line is resolved, after the PD-multiplexing asserts and before two-batch overlap.

Its model-class assert first (:100-107; issue 23 s68b): DeepSeek-V4 and MiniMax-M3 sparse
targets pass it (`is_deepseek_v4`, `is_minimax_sparse`, configs/model_config.py:395-400,
426-431), and so does a DSA checkpoint (`is_deepseek_dsa`, :191-212: one of its architectures
with an `index_topk`, graphfit.inputs.sglang_hisparse_class); any other architecture is refused
(a DSA architecture whose config.json graphfit did not read is not judged). Then, for the
models that pass, in its order: the radix cache off (:109-111: `--disable-radix-cache`, or a
decode server, whose radix cache the PD hook turns off unless
`--disaggregation-decode-enable-radix-cache`, pd_disaggregation_hook.py:98-127), no mixed
chunk (:79-84), speculation linear only (:114-122) and not adaptive (:123-127). graphfit
planned such lines. Then the KV dtype and DSA backend checks (:154-165) and, first of all,
the resolution's hisparse arm (overrides.py:677-712), in graphfit.planner.engines.
sglang_hisparse_dsa (issue 23 s69b). Not restated: ROCm's unified-KV guard for DeepSeek-V4
(:131-148).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.planner.core.enums import SpecMethod
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines import sglang_hisparse_dsa
from graphfit.planner.engines.sglang_attn_default import DSA_ARCHITECTURES

HOOK = "arg_groups/hisparse_hook.py"
# `is_deepseek_v4` / `is_minimax_sparse` (configs/model_config.py:395-400, 426-431)
V4 = frozenset({"DeepseekV4ForCausalLM", "DeepseekV4ForCausalLMNextN",
                "DeepseekV4ForCausalLMDSpark"})
MINIMAX_M3 = frozenset({"MiniMaxM3SparseForCausalLM", "MiniMaxM3SparseForConditionalGeneration"})
HISPARSE_TARGETS = V4 | MINIMAX_M3


def radix_on(config: EngineSettings) -> bool:
    """The radix cache after the hooks (module docstring)."""
    if config.disable_radix_cache:
        return False
    return (config.disaggregation_mode != "decode"
            or config.disaggregation_decode_enable_radix_cache)


def served(config: EngineSettings) -> bool | None:
    """Whether the model passes `validate_hisparse`'s class assert (:100-107); None where
    graphfit cannot tell (no architecture, or a DSA architecture without its config.json)."""
    arch = config.architecture
    if arch is None:
        return None
    if arch in HISPARSE_TARGETS:
        return True
    if arch in DSA_ARCHITECTURES:
        return config.dsa_checkpoint
    return False


def problem(config: EngineSettings, changes: Mapping[str, Any]) -> str | None:
    """`validate_hisparse`'s first refusal on a line with `--enable-hisparse`, or None;
    `changes`: the engine model's resolved fields (adaptive speculation SGLang turned off)."""
    if not config.enable_hisparse:
        return None
    ok = served(config)
    if ok is False:
        return ("--enable-hisparse is only supported for DSA (DeepSeek Sparse Attention) models "
                f"(e.g., DeepSeek V3.2, GLM-5), DeepSeek V4, and MiniMax M3 now; not "
                f"{config.architecture} (AssertionError, {HOOK}:104-107)")
    if ok is None:
        return None
    spec = config.spec_method is not SpecMethod.NONE
    adaptive = changes.get("speculative_adaptive", config.speculative_adaptive)
    between: str | None = None
    for bad, said, lines, kind in (
            (radix_on(config), "Hierarchical sparse attention currently requires "
                               "--disable-radix-cache.", "109-111", "AssertionError"),
            (config.enable_mixed_chunk, "--enable-hisparse does not support "
                                        "--enable-mixed-chunk yet.", "79-84", "ValueError"),
            (spec and (config.speculative_eagle_topk or 1) != 1,
             "The minimal HiSparse spec integration supports linear speculation only; use "
             "--speculative-eagle-topk 1.", "118-122", "ValueError"),
            (spec and bool(adaptive), "HiSparse speculative decoding uses statically sized "
                                      "swap state; --speculative-adaptive is not supported.",
             "123-127", "ValueError")):
        if bad:
            between = f"{said} ({kind}, {HOOK}:{lines})"
            break
    if config.architecture in MINIMAX_M3 or (config.gpu_rocm and config.architecture in V4):
        return between  # :129-152 (ROCm's unified-KV guard is not restated)
    return sglang_hisparse_dsa.problem(config, between)  # :154-165, overrides.py:677-712


__all__ = ["HISPARSE_TARGETS", "problem", "radix_on", "served"]
