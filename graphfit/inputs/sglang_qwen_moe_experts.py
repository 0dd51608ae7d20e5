"""SGLang 0.5.23's ValueError when a Qwen MoE target has fewer experts than the ranks its MoE
block is split over (issue 23, s69n). Every layer of these classes is sparse (`stage_facts`,
models/qwen3_moe.py:872-885, models/qwen2_moe.py:1051-1065), so the first layer's MoE block
raises it at model build:

* Qwen3-MoE (`Qwen3MoeForCausalLM`): `Qwen3MoeSparseMoeBlock.__init__` compares the MoE-TP
  size, tp // ep // moe_dp (runtime_context.py:154), with `num_experts`
  (qwen3_moe.py:243-250);
* Qwen2-MoE (`Qwen2MoeForCausalLM`): `Qwen2MoeSparseMoeBlock.__init__` compares the full
  TP size (qwen2_moe.py:270-277).

Then the block's experts (`FusedMoE`, of `num_experts` + `--ep-num-redundant-experts`,
qwen3_moe.py:265-266, qwen2_moe.py:325-331 without shared-expert fusion, which Qwen2-MoE's
decoder layer never asks for, :1026-1033) assert the routed experts split over the EP ranks
(layers/moe/fused_moe_triton/layer.py:414; an elastic scale-up joiner's storage EP size,
:405-409, is not judged).

Why: graphfit planned such lines (or refused them later with another reason), where
SGLang's server does not start (s69g's Left). Only these two classes are judged: the other
classes reusing the blocks (Qwen3-Next, Qwen3-VL-MoE, Qwen3.5, Qwen4-Exp, Mellum) and the
other models raising the same sentence are not restated here.

s69q adds the DeepSeek-V2 family and GLM-4-MoE (`SPARSE`): their MoE blocks compare the full
TP size with `n_routed_experts` (models/deepseek_v2.py:714-718 in `DeepseekV2MoE`, built by
DeepseekV2/V3/V32ForCausalLM and GlmMoeDsaForCausalLM, glm4_moe.py:1284;
glm4_moe.py:422-426 in `Glm4MoeSparseMoeBlock`; glm4_moe_lite.py:193-197). Unlike Qwen,
their first layers may be dense, so the rule holds only where some layer is sparse (each
class's `_is_layer_sparse`: deepseek_v2.py:2784-2792, glm4_moe.py:828-834,
glm4_moe_lite.py:519-527 with `moe_layer_freq` forced to 1, :421, :696). Their experts'
EP split and missing-field layer defaults: `sglang_sparse_moe_split` (s70c).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphfit.inputs import sglang_moe_experts_config
from graphfit.inputs import sglang_sparse_moe_split as split
from graphfit.inputs.sglang_beam_build import count
from graphfit.inputs.sglang_more_moe_experts import BLOCKS as MORE
from graphfit.inputs.sglang_more_moe_experts import problem as more_problem
from graphfit.inputs.sglang_qwen_block_reusers import REUSERS
from graphfit.inputs.sglang_spec_dp import size_or_one
from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.engines.sglang_eplb_checks import resolved_ep_size

# architecture -> (whether its block reads the MoE-TP size, not the TP size; its site)
BLOCKS: dict[str, tuple[bool, str]] = {
    "Qwen3MoeForCausalLM": (True, "models/qwen3_moe.py:246-250"),
    "Qwen2MoeForCausalLM": (False, "models/qwen2_moe.py:273-277"),
}




@dataclass(frozen=True)
class Sparse:
    """A class whose MoE block compares the full TP size with `n_routed_experts`, built only
    on its sparse layers: those from `first_k_dense_replace` on, every `moe_layer_freq`-th
    where `freq` says the class reads it (False: every one, glm4_moe.py:833; Glm4MoeLite
    forces it to 1)."""

    site: str
    freq: bool

    def __post_init__(self) -> None:
        if not self.site.startswith("models/"):
            raise ValueError(f"not an SGLang model site: {self.site!r}")


_DEEPSEEK = Sparse("models/deepseek_v2.py:714-718", True)
# architecture -> its block's check (s69q)
SPARSE: dict[str, Sparse] = {
    "DeepseekV2ForCausalLM": _DEEPSEEK, "DeepseekV3ForCausalLM": _DEEPSEEK,
    "DeepseekV32ForCausalLM": _DEEPSEEK, "GlmMoeDsaForCausalLM": _DEEPSEEK,
    "Glm4MoeForCausalLM": Sparse("models/glm4_moe.py:422-426", False),
    "Glm4MoeLiteForCausalLM": Sparse("models/glm4_moe_lite.py:193-197", False),
}


def _whole(data: Mapping[str, Any], key: str, default: int) -> int | None:
    """An int field of config.json (its default where absent); None where it is not one."""
    value = data.get(key, default)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def has_sparse_layer(block: Sparse, data: Mapping[str, Any]) -> bool:
    """Whether some layer of the target builds the MoE block (unreadable fields: assume so,
    SGLang's own build then decides)."""
    first = _whole(data, "first_k_dense_replace", 0)
    freq = _whole(data, "moe_layer_freq", 1) if block.freq else 1
    layers = _whole(data, "num_hidden_layers", 0)
    if first is None or freq is None or freq < 1 or layers is None:
        return True
    return any(layer % freq == 0 for layer in range(max(first, 0), layers))


def sparse_problem(arch: str, values: Mapping[str, Any], data: Mapping[str, Any]
                   ) -> str | None:
    """The DeepSeek-V2 family's / GLM-4-MoE's ValueError, or None (s69q)."""
    block = SPARSE.get(arch)
    experts = data.get("n_routed_experts")
    if block is None or not isinstance(experts, int) or isinstance(experts, bool):
        return None
    data = split.with_class_defaults(data)  # s70c: the config class's first_k_dense_replace
    tp = size_or_one(values.get("tp_size") or values.get("tp"))
    if tp > experts and has_sparse_layer(block, data):
        return (f"SGLang cannot build {arch}: Tensor parallel size {tp} is greater than "
                f"the number of experts {excerpt(experts, 12)}. (ValueError, {block.site})")
    return split.split_problem(arch, values, data) if has_sparse_layer(block, data) else None


def problem(values: Mapping[str, Any], data: Mapping[str, Any]) -> str | None:
    """SGLang's ValueError for the line's TP / EP sizes on this config.json, or None."""
    names = data.get("architectures")
    arch = names[0] if isinstance(names, list) and names else None
    if isinstance(arch, str) and arch in SPARSE:
        return sparse_problem(arch, values, data)
    if isinstance(arch, str) and arch in MORE:  # s70b: more classes' blocks
        return more_problem(arch, values, data)
    found = (BLOCKS.get(arch) or REUSERS.get(arch)) if isinstance(arch, str) else None
    experts = data.get("num_experts")
    if found is None or not isinstance(experts, int) or isinstance(experts, bool):
        return None
    moe_tp, site = found
    tp = size_or_one(values.get("tp_size") or values.get("tp"))
    a2a = str(values.get("moe_a2a_backend") or "none").strip().lower()
    ep = resolved_ep_size(size_or_one(values.get("ep_size")), tp, a2a)
    size = max(1, tp // ep // size_or_one(values.get("moe_dp_size"))) if moe_tp else tp
    if size > experts:
        return (f"SGLang cannot build {arch}: Tensor parallel size {size} is greater than "
                f"the number of experts {excerpt(experts, 12)}. (ValueError, {site})")
    redundant = count(values.get("ep_num_redundant_experts")) or 0
    routed = experts + max(redundant, 0)
    if routed % ep and not values.get("elastic_ep_backend"):
        return (f"SGLang cannot build {arch}: {routed} routed experts do not split over "
                f"expert-parallel size {ep} (AssertionError, "
                "layers/moe/fused_moe_triton/layer.py:414)")
    return None


def line(values: Mapping[str, Any]) -> None:
    """The line's local target (`model_path`): ConfigError with SGLang's reason; nothing for
    a hub id or another model."""
    data = sglang_moe_experts_config.target(values)  # overrides, class names (s70k)
    said = None if data is None else problem(values, data)
    if said is not None:
        raise ConfigError(said)


__all__ = ["BLOCKS", "SPARSE", "Sparse", "has_sparse_layer", "line", "problem",
           "sparse_problem"]
