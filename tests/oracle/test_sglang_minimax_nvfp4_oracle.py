"""A MiniMax-M3 target served as `minimax_m3_nvfp4` (a checkpoint of MXFP8 projections with
NVFP4 packed experts; SGLang's override hook picks the method from config.json,
arg_groups/model_overrides/minimax_m3.py:18-34, 46-54), against SGLang's own model class on the
oracle's SM 90 device (tests/oracle/sglang_minimax_target_oracle.py, resolving each line on
its own directory so the hook runs): `MiniMaxM3Nvfp4Config.from_config`'s refusals
(layers/quantization/minimax_m3_nvfp4.py:37-55, 84-85), the projections' Fp8Config block
checks with blocks [1, 32] (:56-64 -> layers/quantization/fp8.py:593-609) and no check on
the NVFP4 experts (:105-113). graphfit must refuse exactly where SGLang raises, with its
exception and raising line, and plan the others.

Generated: the quantization_config's fields x head_dim / MLP widths / sparse index dims x
(TP, attention DP) x top level or VL wrapper; larger counts:
`python -m tests.oracle.measure_sglang_minimax_nvfp4`.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import test_sglang_minimax_target_oracle as t  # noqa: E402

# what the override hook reads to serve mxfp8 as minimax_m3_nvfp4 (minimax_m3.py:25-28)
NV: dict[str, Any] = {"quant_method": "mxfp8", "moe_quant_algo": "NVFP4",
                      "moe_quant_format": "nvfp4-pack-quantized",
                      "activation_scheme": "dynamic"}
# the quantization_config's own fields (None removes a key), each check both ways
CONFIGS: tuple[dict[str, Any], ...] = (
    {}, {}, {"weight_block_size": [1, 32]}, {"weight_block_size": [128, 128]},
    {"activation_scheme": None}, {"activation_scheme": "static"}, {"group_size": 32},
    {"group_size": 16}, {"kv_cache_quant_algo": "fp8"}, {"kv_cache_quant_algo": "NVFP4"},
    {"kv_cache_quant_algo": None, "attention_quant_algo": "BF16"},
    {"index_k_quant_type": "NVFP4"}, {"index_k_quant_type": "fp8"})
_MOE = {"moe_layer_freq": [0, 1], "num_local_experts": 8, "num_experts_per_tok": 2,
        "scoring_func": "sigmoid", "swiglu_alpha": 1.702, "swiglu_limit": 7.0}
# shapes the [1, 32] blocks judge: o_proj's per-rank input (heads x head_dim), the MLPs'
# down_proj input, the index projections' (sparse layers), the experts' (never checked)
SHAPES: tuple[dict[str, Any], ...] = (
    {}, {"head_dim": 68}, {"head_dim": 36}, {"dense_intermediate_size": 1000},
    {"dense_intermediate_size": 1088},
    {**_MOE, "intermediate_size": 1000}, {**_MOE, "intermediate_size": 1000,
                                          "n_shared_experts": 1},
    {**_MOE, "intermediate_size": 1088, "n_shared_experts": 1},
    {"sparse_attention_config": {"sparse_attention_freq": [0, 1],
                                 "sparse_num_index_heads": 4, "sparse_index_dim": 72}},
    {"sparse_attention_config": {"sparse_attention_freq": [1, 1],
                                 "sparse_num_index_heads": 4, "sparse_index_dim": 72,
                                 "sparse_disable_index_value": [1, 1]}})
LAYOUTS = ((1, 1), (2, 1), (4, 1), (4, 2), (8, 1))


def compare(config: dict[str, Any], shape: dict[str, Any], nested: bool, tp: int,
            attn_dp: int, base: dict[str, Any] | None = None,
            extra: tuple[str, ...] = ()) -> None:
    """One line both ways (the target test's compare, resolved on its own directory):
    `base` (default NV) with `config` as the checkpoint's quantization_config."""
    quant = {k: v for k, v in {**(NV if base is None else base), **config}.items()
             if v is not None}
    more, vision, _ = t.quantized((quant, ()), nested)
    t._compare({"qk_norm_type": "per_head", **shape, **more}, nested, tp, attn_dp, extra,
               vision=vision, own=True)


def test_nvfp4_checks_each_way() -> None:
    """Each rule refuses one line and lets a neighbouring one through: the config class's
    checks, the [1, 32] blocks on o_proj / down_proj / index_o_proj, the unchecked experts."""
    for config, shape, nested, tp in (
            ({}, {}, False, 2), ({"weight_block_size": [128, 128]}, {}, False, 2),
            # no activation_scheme: MiniMaxM3Nvfp4Config defaults it (:96), Fp8Config
            # would refuse (fp8.py:346-350)
            ({"activation_scheme": None}, {}, True, 2),
            ({"group_size": 32}, {}, True, 1), ({"kv_cache_quant_algo": "fp8"}, {}, False, 1),
            ({"index_k_quant_type": "fp8"}, {}, False, 1),
            ({}, {"head_dim": 68}, False, 4), ({}, {"head_dim": 68}, False, 1),
            ({}, {"dense_intermediate_size": 1000}, True, 2),
            ({}, {**_MOE, "intermediate_size": 1000}, False, 4),
            ({}, SHAPES[8], False, 4)):
        compare(config, shape, nested, tp, 1)


# a ModelOpt checkpoint: NVFP4 (FP4 linear method) and FP8 (no such check), flat config.json
MODELOPT_FP4: dict[str, Any] = {"quant_method": "modelopt", "quant_algo": "NVFP4",
                                "group_size": 16}
MODELOPT_FP8: dict[str, Any] = {"quant_method": "modelopt", "quant_algo": "FP8"}


def test_modelopt_fp4_checks_each_way() -> None:
    """ModelOpt's FP4 linear method: a per-rank input not a multiple of 16 refuses
    (modelopt_quant.py:1822-1825) on o_proj, down_proj and index_o_proj, with the method
    named by config.json or by `--quantization modelopt_fp4`; FP8 ModelOpt and a multiple of
    16 build."""
    for base, shape, tp, extra in (
            (MODELOPT_FP4, {"head_dim": 68}, 4, ()), (MODELOPT_FP4, {"head_dim": 68}, 1, ()),
            (MODELOPT_FP4, {"dense_intermediate_size": 1000}, 2,
             ("--quantization", "modelopt_fp4")),
            (MODELOPT_FP4, SHAPES[8], 4, ()), (MODELOPT_FP8, {"head_dim": 68}, 4, ())):
        compare({}, shape, False, tp, 1, base, extra)


@settings(max_examples=6, deadline=None)
@given(st.sampled_from(CONFIGS), st.sampled_from(SHAPES), st.booleans(),
       st.sampled_from(LAYOUTS))
def test_generated_nvfp4_lines_agree(config: dict[str, Any], shape: dict[str, Any],
                                     nested: bool, layout: tuple[int, int]) -> None:
    """Generated minimax_m3_nvfp4 lines: graphfit refuses exactly where SGLang's class (or
    its quantization config) raises, citing the line; plans the others."""
    compare(config, shape, nested, *layout)
