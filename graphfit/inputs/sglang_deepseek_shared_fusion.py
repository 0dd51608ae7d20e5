"""Whether SGLang 0.5.23 builds a DeepSeek layer's shared experts apart from its routed
experts on a GPTQ Marlin checkpoint, from the pasted line's flags and the GPU (issue 23, s68q).

Why: the shared experts (`mlp.shared_experts.*`, models/deepseek_v2.py:860-895) are a
quantized DeepseekV2MLP that reads GPTQ's per-module `dynamic` map only when they are not
fused into the routed experts. The loader settles that before it builds the class
(model_loader/loader.py:291-310, `resolve_shared_experts_config`, layers/moe/utils.py:601-623):
the resolved `--disable-shared-experts-fusion` keeps them apart; otherwise the class's gate
(`shared_experts_fusion_disable_reason`, deepseek_v2.py:3325-3394) decides, in this order for
a GPTQ Marlin config (no `can_fuse_shared_expert`, so the quantization never blocks, :3334-3339):
`--enforce-shared-experts-fusion` fuses (:3340-3341); SBO / TBO keep apart (:3353-3354, set
from the flags, layers/moe/utils.py:505-506); a DeepEP-class a2a backend keeps apart
(:3355-3356); so does a config the gate does not take (the class's own architecture, 256
routed experts, one shared, :3357-3374; GLM-5's class names itself, glm4_moe.py:1284-1285);
a CUDA GPU below SM80 (:3375-3384) and an EP size above 1 on CUDA (:3385-3391) keep apart;
else they are fused. (The modelopt_fp4 and W4A* clauses, :3342-3352 and :3392-3393, never
apply to GPTQ Marlin.)

What is not restated, so the answer is None: an a2a backend or a MoE runner other than the
default, and `--enable-waterfill` (which forces the deepep backend, arg_groups/overrides.py:
1595-1607): the resolution then moves the disable flag (overrides.py:1528-1574) and, measured
with SGLang's own build on CPU, GPTQ Marlin's experts stop first ("Runner backend
MoeRunnerBackend.MARLIN requires a fused func for a2a backend deepep", an AssertionError under
flashinfer_trtllm), before any shared expert reads the map; hooks that reset the EP size or the
backend (DWDP, parallel_hook.py:480-495; DSA context parallelism, model_overrides/
deepseek_v2.py:106-121; elastic EP); and a config.json that leaves `n_shared_experts` to its
class's default.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs.sglang_spec_dp import size_or_one

APART = "apart"
FUSED = "fused"
# the gate's own architecture (deepseek_v2.py:3322); GLM-5's DSA class names its own
# (`fused_shared_experts_architecture`, glm4_moe.py:1284-1285)
FUSED_ARCHITECTURE = "DeepseekV3ForCausalLM"
OWN_ARCHITECTURES = ("GlmMoeDsaForCausalLM",)
FUSED_ROUTED = 256  # :3357-3374 (384 is Quark-only: never GPTQ Marlin)
# the GPU the gate's CUDA clause asks for (:3375-3384), as graphfit's capability number
LEAST_CAPABILITY = 80
# flags whose hooks move the EP size or the a2a backend (not restated here)
_RESETTING = ("enable_prefill_cp", "elastic_ep_backend", "max_ep_size")


def _text(line: Mapping[str, Any], key: str, default: str) -> str:
    value = line.get(key)
    return str(value).strip().lower() if value else default


def config_taken(data: Mapping[str, Any]) -> bool | None:
    """The gate's config test (deepseek_v2.py:3357-3374) on config.json, or None where it leaves
    `n_shared_experts` to the config class's default."""
    arch = data.get("architectures")
    first = arch[0] if isinstance(arch, list) and arch else None
    fused_name = first if first in OWN_ARCHITECTURES else FUSED_ARCHITECTURE
    if "n_shared_experts" not in data:
        return None
    return (first == fused_name and data.get("n_routed_experts") == FUSED_ROUTED
            and data["n_shared_experts"] == 1)


def fusion(data: Mapping[str, Any], line: Mapping[str, Any] | None,
           capability: int | None = None) -> str | None:
    """APART, FUSED, or None (not known) for a GPTQ Marlin DeepSeek checkpoint's config.json
    `data` on a line with flags `line` (None: not known) on a GPU of `capability` (None: not
    known); see the module text."""
    if line is None:
        return None
    if line.get("enable_waterfill") or _text(line, "moe_a2a_backend", "none") != "none" \
            or _text(line, "moe_runner_backend", "auto") != "auto":
        return None
    if line.get("disable_shared_experts_fusion"):
        return APART
    if line.get("enforce_shared_experts_fusion"):
        return FUSED
    if line.get("enable_two_batch_overlap") or line.get("enable_single_batch_overlap"):
        return APART
    taken = config_taken(data)
    if taken is None:
        return None
    if not taken:
        return APART
    if size_or_one(line.get("dwdp_size")) > 1 or any(line.get(key) for key in _RESETTING):
        return None
    if size_or_one(line.get("ep_size")) > 1:
        return APART
    if capability is None:
        return None
    return APART if capability < LEAST_CAPABILITY else FUSED


__all__ = ["APART", "FUSED", "config_taken", "fusion"]
