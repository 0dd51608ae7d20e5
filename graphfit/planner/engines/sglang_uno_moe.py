"""SGLang 0.5.23's UNO on a MoE model: no MoE LoRA graph buffers, and the adapter rule that
makes it so.

SGLang allocates MoE LoRA graph scratch (`moe_cg_buffers`: sorted token ids, expert ids,
token masks... sized by tokens, top-k and experts, lora/backend/base_backend.py:285-352) only
through `init_lora_cuda_graph_moe_buffers` (lora_manager.py:1202-1244), which multi-LoRA
serving calls (model_runner.py:1450-1468) and UNO never does: `maybe_init_lora_manager`
returns after `init_uno_lora_manager` (model_runner.py:831-836). The decode runners' later
`resize_cuda_graph_moe_buffers` only shrinks buffers that exist (base_backend.py:354-357,
via lora_manager.py:161-169). They would be needed only if a LoRA layer wrapped the experts
(`FusedMoEWithLoRA` sets `is_moe_lora`, layers.py:1030), which happens when the adapter's
targets hold both gate_up_proj and down_proj (lora_manager.py:1159-1187) -- and exactly then
UNO's LoRA backend refuses every FusedMoE of a decoder layer at load
(`UnoCublasLoRABackend.validate_lora_targets`, lora/backend/uno_cublas_backend.py:100-120,
run by `LoRAManager.init_state`, lora_manager.py:723-726, before any module is wrapped).

So graphfit plans no MoE LoRA buffer for UNO, and refuses a line whose adapter would target
the experts of a MoE model, with SGLang's reason. The adapter's targets are read as SGLang
infers them when UNO passes none (uno_lora.py:49-51; `init_lora_shapes`,
lora_manager.py:800-877): a list of module names normalized by their last component
(`get_normalized_target_modules`, lora/utils.py:277-327: gate_proj and up_proj are
gate_up_proj), or the shorthand "all" / "all-linear", which scans the model and adds
gate_up_proj and down_proj for every FusedMoE (`auto_detect_lora_target_modules`,
lora/utils.py:455-458); any other string or form is refused (lora_manager.py:843-857).
"""

from __future__ import annotations

from collections.abc import Sequence

from graphfit.planner.core.errors import ConfigError

EXPERT_PAIR = frozenset({"gate_up_proj", "down_proj"})  # lora_manager.py:1159-1161
SHORTHANDS = ("all", "all-linear")  # lora_manager.py:824
# the names that normalize into the expert pair (lora/utils.py:298-311); others keep their
# last component
_INTO_PAIR = {"gate_proj": "gate_up_proj", "up_proj": "gate_up_proj"}
BACKEND = "lora/backend/uno_cublas_backend.py:100-120"


def adapter_targets(target_modules: object) -> frozenset[str] | None:
    """The adapter's normalized targets as far as the expert pair goes; None for a shorthand
    (resolved against the model). Forms SGLang refuses raise ConfigError."""
    if isinstance(target_modules, str):
        if target_modules in SHORTHANDS:
            return None
        raise ConfigError(f"--uno-lora-path: SGLang does not recognize the adapter's "
                          f"target_modules={target_modules[:40]!r} (lora_manager.py:843-849)")
    if not isinstance(target_modules, list) or not all(
            isinstance(name, str) for name in target_modules):
        raise ConfigError("--uno-lora-path: the adapter's target_modules must be a list of "
                          "module names (lora_manager.py:851-857, lora/utils.py:322-326)")
    names: Sequence[str] = target_modules
    last = (name.split(".")[-1] for name in names)
    return frozenset(_INTO_PAIR.get(name, name) for name in last)


def targets_experts(target_modules: object, moe: bool) -> bool:
    """Whether SGLang would wrap the model's FusedMoE experts with LoRA: a MoE model and an
    adapter whose targets (a shorthand: every detected module) hold both of the pair."""
    found = adapter_targets(target_modules)
    return moe and (found is None or found >= EXPERT_PAIR)


def check_adapter(target_modules: object, moe: bool) -> None:
    """SGLang's refusal of an UNO adapter on the experts of a MoE model (module docstring)."""
    if targets_experts(target_modules, moe):
        raise ConfigError(f"--uno-lora-path: the adapter targets gate_up_proj and down_proj, "
                          f"so the MoE experts; SGLang's UNO LoRA backend refuses FusedMoE "
                          f"targets at load ({BACKEND})")
