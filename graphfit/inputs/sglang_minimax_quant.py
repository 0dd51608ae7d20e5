"""Block-FP8 weight checks a MiniMax-M3 TARGET's layers run at start-up in SGLang 0.5.23
(paths under sglang/srt/), restated for graphfit.inputs.sglang_minimax_moe and
graphfit.inputs.sglang_minimax_target.

A checkpoint whose `quantization_config` is `fp8` with a `weight_block_size` [block_n,
block_k] (the line's `--quantization` absent or fp8) builds `Fp8Config` with block
quantization (model_loader/loader.py:174-281). Every quantized linear layer then checks its
per-rank shapes when its weights are created (layers/quantization/fp8.py:574-609): a
row-parallel layer split over more than one rank needs its per-rank input divisible by
block_k (:593-599); a column-parallel layer split over more than one rank, or any merged
layer (gate/up, q/k/v), needs each per-rank output divisible by block_n (:601-609). The
routed experts check their per-rank intermediate size against block_n, and against block_k
when the MoE-TP size exceeds 1 (:1580-1599). Those weights are created inside each layer's
constructor, after its own shape asserts (the split asserts of layers/linear.py and
fused_moe_triton/layer.py:414-427) and before the MoE layer reads `hidden_act` (models/
minimax_m3.py:441) or the MLP checks its activation (:334-354).

A sparse attention layer's index projections (`index_qkv_proj`, `index_o_proj`) take the
same quant config and run the same checks over their own, narrower group (`index_problem`).

A checkpoint of MXFP8 projections with NVFP4 packed experts (`quant_method` mxfp8 with
`moe_quant_algo` NVFP4 and `moe_quant_format` nvfp4-pack-quantized) is served as
`minimax_m3_nvfp4` (arg_groups/model_overrides/minimax_m3.py:18-34, 46-54; no argparse
choice names it). The loader builds `MiniMaxM3Nvfp4Config.from_config` on it
(layers/quantization/minimax_m3_nvfp4.py:82-103), whose own refusals come before any layer
(`nvfp4_config_problem`); the config is an `Fp8Config` of blocks [1, 32] (:56-64), so every
projection takes the same block checks with block_n 1 and block_k 32 (`blocks`), while the
routed experts take `CompressedTensorsFusedMoEMethod` with the NVFP4 scheme (:105-113), whose
`create_weights` checks no shape (compressed_tensors_w4a4_nvfp4_moe.py:58-130): no expert
check (`experts_checked`). The projections' [1, 32] weights are converted to block-FP8
[128, 128] only at load off Blackwell (fp8.py:743-782), after these checks.

A ModelOpt NVFP4 checkpoint (`modelopt_fp4`, or a plain `modelopt` whose quant_algo is an
NVFP4 one, graphfit.planner.engines.sglang_class_picks.modelopt_flag) builds every quantized
linear layer with ModelOpt's FP4 method, whose `create_weights` refuses a per-rank input
that is not a multiple of 16 (modelopt_quant.py:1822-1825; the W4A16 method's check is the
same, :2223-2226), whatever the layer's split (`fp4_attention_problem`, `fp4_mlp_problem`).
Its MoE method adds no shape check at build on SM 90 (Marlin, :2369-2388).

MiniMax-M3's router gate and its VL vision tower are built without quantization
(minimax_m3.py:473-480, minimax_m3_vl.py:113-119), so they are not checked.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

Blocks = tuple[int, int]
_FP8 = "layers/quantization/fp8.py"
NVFP4 = "minimax_m3_nvfp4"
_NV = "layers/quantization/minimax_m3_nvfp4.py"
MX_BLOCKS: Blocks = (1, 32)  # minimax_m3_nvfp4.py:60


def blocks(quant: str | None, data: Mapping[str, Any]) -> Blocks | None:
    """[block_n, block_k] of a block-FP8 checkpoint served as fp8, or [1, 32] for one served
    as minimax_m3_nvfp4 (minimax_m3_nvfp4.py:56-64), else None."""
    if quant == NVFP4:
        return MX_BLOCKS
    if quant != "fp8":
        return None
    config = data.get("quantization_config")
    if not isinstance(config, dict):
        text = data.get("text_config")
        config = text.get("quantization_config") if isinstance(text, dict) else None
    if not isinstance(config, dict) or config.get("quant_method") != "fp8":
        return None
    size = config.get("weight_block_size")
    if (isinstance(size, list) and len(size) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in size)):
        return size[0], size[1]
    return None


MINIMAX_M3 = ("MiniMaxM3SparseForCausalLM", "MiniMaxM3SparseForConditionalGeneration")


def served_as_nvfp4(data: Mapping[str, Any]) -> bool:
    """Whether SGLang's MiniMax-M3 override hook, with no `--quantization`, serves this
    config.json as minimax_m3_nvfp4 (arg_groups/model_overrides/minimax_m3.py:18-34, 46-54,
    registered for both MiniMax-M3 classes at :37-40): top-level quant_method mxfp8 with
    `moe_quant_algo` NVFP4 and `moe_quant_format` nvfp4-pack-quantized (`getattr(hf_config,
    "quantization_config")`, utils/common.py:3849-3854)."""
    names = data.get("architectures")
    config = data.get("quantization_config")
    return (isinstance(names, list) and bool(names) and names[0] in MINIMAX_M3
            and isinstance(config, dict) and config.get("quant_method") == "mxfp8"
            and str(config.get("moe_quant_algo", "")).upper() == "NVFP4"
            and config.get("moe_quant_format") == "nvfp4-pack-quantized")


def experts_checked(quant: str | None) -> bool:
    """Whether the routed experts take Fp8MoEMethod's block checks: not under
    minimax_m3_nvfp4, whose experts take the NVFP4 scheme (minimax_m3_nvfp4.py:105-113)."""
    return quant != NVFP4


def _quant_config(data: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The checkpoint's quantization_config: config.json's top level, else its text_config's
    (the key `get_quantization_config` reads)."""
    config = data.get("quantization_config")
    if not isinstance(config, dict):
        text = data.get("text_config")
        config = text.get("quantization_config") if isinstance(text, dict) else None
    return config if isinstance(config, dict) else None


def checkpoint_quant(data: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The checkpoint's quantization_config as `_quant_config` reads it (for the KV price's
    `kv_cache_quant_algo`, graphfit.inputs.sglang_minimax_kv.kv_quant)."""
    return _quant_config(data)


# MiniMaxM3Nvfp4Config.__init__'s checks after from_config's (:84-85), in its order:
# (key, default, the value it must have (compared upper-cased for the algos), line, message)
_NV_CHECKS: tuple[tuple[str, Any, Any, str, str], ...] = (
    ("activation_scheme", "dynamic", "dynamic", "37-38",
     "M3.1 NVFP4 requires dynamic activation quantization"),
    ("group_size", 16, 16, "39-40", "M3.1 NVFP4 requires group_size=16"),
    ("kv_cache_quant_algo", "FP8", "FP8", "41-45",
     "M3.1 NVFP4 requires kv_cache_quant_algo='FP8'"),
    ("attention_quant_algo", "FP8", "FP8", "46-50",
     "M3.1 NVFP4 requires attention_quant_algo='FP8'"),
    ("index_k_quant_type", "nvfp4", "NVFP4", "51-55",
     "M3.1 NVFP4 requires index_k_quant_type='nvfp4'"),
)


def nvfp4_config_problem(quant: str | None, data: Mapping[str, Any]) -> str | None:
    """`MiniMaxM3Nvfp4Config.from_config`'s refusals (minimax_m3_nvfp4.py:82-103, then
    `__init__`, :37-55) on the checkpoint's quantization_config, for a line served as
    minimax_m3_nvfp4: one "message (ValueError, site)" line, or None."""
    config = _quant_config(data) if quant == NVFP4 else None
    if config is None:
        return None
    if config.get("weight_block_size", [1, 32]) != [1, 32]:
        return ("M3.1 MXFP8 projections require weight_block_size=[1, 32] "
                f"(ValueError, {_NV}:84-85)")
    for key, default, wanted, lines, message in _NV_CHECKS:
        value = config.get(key, default)
        if key == "activation_scheme" or key == "group_size":
            bad = value != wanted
        else:  # a string compared case-insensitively (.upper() / .lower())
            bad = not isinstance(value, str) or value.upper() != wanted
        if bad:
            return f"{message} (ValueError, {_NV}:{lines})"
    return None


FP4_ALGOS = ("NVFP4", "NVFP4_AWQ", "W4A16_NVFP4")  # modelopt_quant.py:1672-1680
_MO = "layers/quantization/modelopt_quant.py"


def fp4_linear(quant: str | None, data: Mapping[str, Any]) -> bool:
    """Whether the linear layers take ModelOpt's FP4 method: `modelopt_fp4`, or `modelopt`
    on a checkpoint whose quant_algo is NVFP4 / NVFP4_AWQ / W4A16_NVFP4 (ModelConfig names
    the method from it, configs/model_config.py:1838-1897)."""
    if quant == "modelopt_fp4":
        return True
    config = _quant_config(data)
    return (quant == "modelopt" and config is not None
            and str(config.get("quant_algo", "")).upper() in FP4_ALGOS)


def fp4_problem(name: str, per_rank_input: int) -> str | None:
    """ModelOpt's FP4 linear `create_weights` (modelopt_quant.py:1822-1825, 2223-2226)."""
    if per_rank_input % 16:
        return (f"{name}'s per-rank input {per_rank_input} is not a multiple of 16 "
                f"(ValueError, {_MO}:1822-1825, 2223-2226)")
    return None


def fp4_attention_problem(hidden: int, heads: int, head_dim: int, attn_tp: int,
                          index: tuple[int, int, bool] | None) -> str | None:
    """qkv_proj (input hidden), o_proj (per-rank heads' width), then a sparse layer's
    index_qkv_proj (hidden) and index_o_proj (the index group's width, absent without the
    value head): `index` is (index heads, index dim, value off)."""
    said = (fp4_problem("qkv_proj", hidden)
            or fp4_problem("o_proj", heads // attn_tp * head_dim))
    if said or index is None:
        return said
    idx, dim, value_off = index
    return (fp4_problem("index_qkv_proj", hidden)
            or (None if value_off else
                fp4_problem("index_o_proj", idx // min(attn_tp, idx) * dim)))


def fp4_mlp_problem(hidden: int, width: int, group: int) -> str | None:
    """gate_up_proj (input hidden) then down_proj (per-rank width)."""
    return fp4_problem("gate_up_proj", hidden) or fp4_problem("down_proj", width // group)


def linear_problem(name: str, outputs: Iterable[int], merged: bool, split: int,
                   row_input: int | None, block: Blocks) -> str | None:
    """`Fp8LinearMethod`'s block checks (fp8.py:574-609) for one layer: `outputs` are its
    per-rank output sizes, `merged` a layer of several outputs, `split` its group size,
    `row_input` its per-rank input where it is row-parallel."""
    block_n, block_k = block
    if row_input is not None and split > 1 and row_input % block_k:
        return (f"{name}'s per-rank input {row_input} is not divisible by block_k {block_k} "
                f"(ValueError, {_FP8}:593-599)")
    if merged or (row_input is None and split > 1):
        for size in outputs:
            if size % block_n:
                return (f"{name}'s per-rank output {size} is not divisible by block_n "
                        f"{block_n} (ValueError, {_FP8}:601-609)")
    return None


def experts_problem(per_rank: int, moe_tp: int, block: Blocks) -> str | None:
    """`Fp8MoEMethod.create_weights`' block checks on the routed experts' per-rank
    intermediate size (fp8.py:1580-1599)."""
    block_n, block_k = block
    if per_rank % block_n:
        return (f"experts' per-rank intermediate {per_rank} is not divisible by block_n "
                f"{block_n} (ValueError, {_FP8}:1586-1591)")
    if moe_tp > 1 and per_rank % block_k:
        return (f"experts' per-rank intermediate {per_rank} is not divisible by block_k "
                f"{block_k} (ValueError, {_FP8}:1592-1599)")
    return None


def mlp_problem(width: int, group: int, block: Blocks) -> str | None:
    """A `MiniMaxM3MLP`'s gate/up (merged, column) then down (row) projections on `group`
    ranks (models/minimax_m3.py:316-331)."""
    per_rank = width // group
    return (linear_problem("gate_up_proj", (per_rank, per_rank), True, group, None, block)
            or linear_problem("down_proj", (), False, group, per_rank, block))


def attention_problem(heads: int, kv: int, head_dim: int, attn_tp: int,
                      block: Blocks) -> str | None:
    """`MiniMaxM3Attention`'s qkv_proj (merged) then o_proj (row) over attention TP
    (minimax_m3.py:801-819); KV heads fewer than ranks are replicated, one per rank."""
    q = heads // attn_tp * head_dim
    k = max(kv // attn_tp, 1) * head_dim
    return (linear_problem("qkv_proj", (q, k, k), True, attn_tp, None, block)
            or linear_problem("o_proj", (), False, attn_tp, q, block))


def index_problem(index_heads: int, index_dim: int, attn_tp: int, value_off: bool,
                  block: Blocks) -> str | None:
    """A sparse attention layer's index projections (minimax_m3.py:829-853), built after
    qkv_proj / o_proj over the index group: `ReplicatedParallelGroup("attn_tp",
    attn_tp // min(attn_tp, index heads))` (:794-799), whose size is min(attn_tp, index
    heads) (layers/linear.py:91-103). `index_qkv_proj` is a merged QKV layer of the index
    heads, one KV head and a value head of index_dim, or none where the layer's
    `sparse_disable_index_value` entry is set (configs/model_config.py:467-471);
    `index_o_proj` (row-parallel, absent without the value) takes the index heads' width."""
    group = min(attn_tp, index_heads)
    q = index_heads // group * index_dim
    return (linear_problem("index_qkv_proj", (q, index_dim, 0 if value_off else index_dim),
                           True, group, None, block)
            or (None if value_off else
                linear_problem("index_o_proj", (), False, group, q, block)))


__all__ = ["FP4_ALGOS", "MINIMAX_M3", "MX_BLOCKS", "NVFP4", "Blocks", "attention_problem",
           "blocks", "checkpoint_quant", "experts_checked", "experts_problem",
           "fp4_attention_problem", "fp4_linear", "fp4_mlp_problem", "fp4_problem",
           "index_problem", "linear_problem", "mlp_problem",
           "nvfp4_config_problem", "served_as_nvfp4"]
