"""SGLang 0.5.23's ValueError "Tensor parallel size N is greater than the number of experts
M" in six more model files (issue 23, s70b), after s69n's Qwen and s69q's DeepSeek / GLM
classes (graphfit.inputs.sglang_qwen_moe_experts, whose `problem` dispatches here).

Each block below compares the FULL TP size (`get_parallel().tp_size`: EP and MoE DP do not
narrow it) with the config's routed-expert count in its `__init__`, and SGLang builds it on
every decoder layer from `first_k_dense_replace` on (Cohere2-MoE, default 0), on the layers
its `moe_layers_enum` names (Step3.5) or on every layer (the others), so the server does
not start where TP is above the count:

* MiniMax-M2 `MiniMaxM2MoE`, `num_local_experts` (models/minimax_m2.py:520-524; built on every
  layer, :849-854);
* LongCat-Flash `LongcatFlashMoE`, `n_routed_experts` (models/longcat_flash.py:272-276; every
  layer, :421-425, over `num_hidden_layers`, :584);
* Hunyuan `HunYuanSparseMoeBlock`, `num_experts` (models/hunyuan.py:127-131), built only where
  `_is_moe` holds, an int count above 1 (:61-68, :435-441), for both entry classes (:804);
* Mixtral-quant `MixtralMoE`, `num_local_experts` (models/mixtral_quant.py:113-117; every
  layer, :276-280);
* Cohere2-MoE `Cohere2MoeSparseMoeBlock`, `num_experts` (models/cohere2_moe.py:241-245),
  dense below `first_k_dense_replace` (:387-405);
* Step3.5 `Step3p5MoEMLP`, `moe_num_experts` (models/step3p5.py:133-137), built on the layers
  whose index the comma-separated `moe_layers_enum` lists (`_is_moe_layer`, :543-546;
  :475-480) among `num_hidden_layers` (:609-611);
* LFM2-MoE `Lfm2MoeSparseMoeBlock`, `num_experts` (models/lfm2_moe.py:118-122), dense below
  `num_dense_layers` (:466; absent: the HF class's 2, transformers 5.25.0
  configuration_lfm2_moe.py:83, which SGLang's configs/lfm2_moe.py:24 extends) (issue 23, s70q);
* AFMoE `AfmoeMoE`, `num_experts` (models/afmoe.py:167-171), dense below `num_dense_layers`
  (:446-447; absent: SGLang's own config class's 0, configs/afmoe.py:36, registered at
  utils/hf_transformers/common.py:120) (issue 23, s70q);
* EXAONE-MoE `ExaoneMoESparseMoEBlock`, `num_experts` (models/exaone_moe.py:143-147), built on
  the layers whose entry of config.json's `is_moe_layer` list is true (`stage_facts`,
  :497-502, :466-468), for both entry classes (:886); no class default: a list that is absent
  or shorter than `num_hidden_layers` fails otherwise and is not judged (issue 23, s70q);
* Laguna `LagunaMoE`, `num_experts` (models/laguna.py:147-150, in its own words "TP size N >
  num_experts M."), built on the layers whose `mlp_layer_types` entry is "sparse"
  (`stage_facts`, :456-457, :422-426); an absent or empty list is SGLang's config class's
  "dense" then "sparse" on every later layer (configs/laguna.py:169-173) (issue 23, s70q).

Why: graphfit planned these lines where SGLang's model build raises. A field absent from
config.json is not judged (SGLang would read the HF config class's default): this module
reads only what the file says. Their experts' EP split is not restated.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphfit.inputs.sglang_moe_layer_fields import problem as fields_problem
from graphfit.inputs.sglang_spec_dp import size_or_one
from graphfit.planner.core.errors import excerpt


@dataclass(frozen=True)
class Block:
    """One class's MoE block check: the config field holding its expert count; whether
    `first_k_dense_replace` makes the first layers dense; whether the block is built only
    for a count above 1 (Hunyuan's `_is_moe`); whether only the layers `moe_layers_enum`
    lists build it (Step3.5); the ValueError's site; the field naming the dense prefix and
    the value SGLang's config class gives it when config.json leaves it out (s70q: LFM2-MoE
    and AFMoE call it `num_dense_layers`, with different class defaults); whether a per-layer
    list of flags, `is_moe_layer`, names the MoE layers (EXAONE-MoE); whether a per-layer list
    of "dense" / "sparse", `mlp_layer_types`, does, and the error is Laguna's shorter one."""

    experts: str
    site: str
    dense_prefix: bool = False
    above_one: bool = False
    listed: bool = False
    prefix: str = "first_k_dense_replace"
    prefix_default: int = 0
    flags: bool = False
    types: bool = False

    def __post_init__(self) -> None:
        if not self.site.startswith("models/"):
            raise ValueError(f"not an SGLang model site: {self.site!r}")
        if not self.experts.isidentifier():
            raise ValueError(f"not a config field: {self.experts!r}")
        if not self.prefix.isidentifier() or self.prefix_default < 0:
            raise ValueError(f"not a dense prefix: {self.prefix!r}={self.prefix_default}")


_HUNYUAN = Block("num_experts", "models/hunyuan.py:127-131", above_one=True)
_EXAONE = Block("num_experts", "models/exaone_moe.py:143-147", flags=True)
# architecture -> its MoE block's check
BLOCKS: dict[str, Block] = {
    "MiniMaxM2ForCausalLM": Block("num_local_experts", "models/minimax_m2.py:520-524"),
    "LongcatFlashForCausalLM": Block("n_routed_experts", "models/longcat_flash.py:272-276"),
    "HunYuanMoEV1ForCausalLM": _HUNYUAN, "HunYuanDenseV1ForCausalLM": _HUNYUAN,
    "QuantMixtralForCausalLM": Block("num_local_experts", "models/mixtral_quant.py:113-117"),
    "Cohere2MoeForCausalLM": Block("num_experts", "models/cohere2_moe.py:241-245",
                                   dense_prefix=True),
    "Step3p5ForCausalLM": Block("moe_num_experts", "models/step3p5.py:133-137", listed=True),
    "Lfm2MoeForCausalLM": Block("num_experts", "models/lfm2_moe.py:118-122", dense_prefix=True,
                                prefix="num_dense_layers", prefix_default=2),
    "AfmoeForCausalLM": Block("num_experts", "models/afmoe.py:167-171", dense_prefix=True,
                              prefix="num_dense_layers"),
    "ExaoneMoEForCausalLM": _EXAONE, "ExaoneMoeForCausalLM": _EXAONE,
    "LagunaForCausalLM": Block("num_experts", "models/laguna.py:147-150", types=True),
}


def _count(data: Mapping[str, Any], key: str) -> int | None:
    """An int field of config.json, None where absent or not an int."""
    value = data.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _listed(enum: Any, layers: int) -> bool:
    """Whether Step3.5's comma-separated MoE layer list names a built layer; a list SGLang
    cannot read (absent: the config class's tuple default has no `split`; a token that is
    no int) is not judged."""
    if not isinstance(enum, str):
        return False
    try:
        named = {int(token) for token in enum.split(",")}
    except ValueError:
        return False
    return any(0 <= index < layers for index in named)


def _flagged(flags: Any, layers: int) -> bool:
    """Whether EXAONE-MoE's per-layer `is_moe_layer` list flags a built layer; a list SGLang
    cannot index for every layer (absent, short) or whose flags are not booleans is not
    judged."""
    if not isinstance(flags, list) or len(flags) < layers:
        return False
    head = flags[:layers]
    return all(isinstance(flag, bool) for flag in head) and any(head)


def _typed(types: Any, layers: int) -> bool:
    """Whether Laguna's per-layer `mlp_layer_types` makes a built layer "sparse"; absent or
    empty, SGLang's config class makes every layer after the first sparse; a list SGLang
    cannot index for every layer (short, not a list) is not judged."""
    if types is None or types == []:
        return layers > 1
    if not isinstance(types, list) or len(types) < layers:
        return False
    return "sparse" in types[:layers]


def builds_block(block: Block, data: Mapping[str, Any]) -> bool:
    """Whether some decoder layer builds the block, as far as config.json says (absent
    layer count: not judged)."""
    layers = _count(data, "num_hidden_layers")
    experts = _count(data, block.experts)
    if layers is None or experts is None or (block.above_one and experts <= 1):
        return False
    if block.listed:
        return _listed(data.get("moe_layers_enum"), layers)
    if block.flags:
        return _flagged(data.get("is_moe_layer"), layers)
    if block.types:
        return _typed(data.get("mlp_layer_types"), layers)
    first = _count(data, block.prefix) if block.dense_prefix else 0
    if first is None:
        return block.prefix not in data and block.prefix_default < layers
    return max(first, 0) < layers


def problem(arch: str | None, values: Mapping[str, Any], data: Mapping[str, Any]
            ) -> str | None:
    """SGLang's ValueError for the line's TP size on this config.json, or None; first, a
    missing layer field the build fails on before any MoE block (s70t)."""
    if (failed := fields_problem(arch, data)) is not None:
        return failed
    block = BLOCKS.get(arch) if isinstance(arch, str) else None
    if block is None or not builds_block(block, data):
        return None
    experts = data[block.experts]
    tp = size_or_one(values.get("tp_size") or values.get("tp"))
    if tp > experts and block.types:
        return (f"SGLang cannot build {arch}: TP size {tp} > num_experts "
                f"{excerpt(experts, 12)}. (ValueError, {block.site})")
    if tp > experts:
        return (f"SGLang cannot build {arch}: Tensor parallel size {tp} is greater than "
                f"the number of experts {excerpt(experts, 12)}. (ValueError, {block.site})")
    return None


__all__ = ["BLOCKS", "Block", "builds_block", "problem"]
