"""A MiniMax-M3 TARGET model's constructor checks, against SGLang's own model class
(tests/oracle/sglang_minimax_target_oracle.py builds it on the meta device under the line's
published layout): graphfit refuses a pasted line with SGLang's reason exactly where SGLang's
constructor raises, and plans it where SGLang builds the model. The checks: attention heads
and KV heads against the attention TP size (minimax_m3.py:750-761), a sparse attention layer's
per_head norm, keys and index heads (:779-792, :1704), the per_layer QK norm at attention
TP > 1 (:858-865), an unknown qk_norm_type (:909), a dense MLP's activation (:334-354); the
MoE side (graphfit.inputs.sglang_minimax_moe: the loader's fusion assert, MiniMaxM3MoE,
FusedMoE's splits, shared experts, MLP widths) and the VL wrapper's vision tower
(graphfit.inputs.sglang_minimax_vision). Each refusal must name SGLang's exception and cite
the line SGLang raised at (the innermost SGLang frame, `cites`).

Generated: MiniMax-M3 configs (qk_norm_type, attention / KV heads, activation, sparse
attention config, gemma norm, top level or nested in the VL wrapper's text_config) x
(TP, attention DP) layouts whose attention TP is 1, 2, 4 or 8; MoE fields x --ep-size x
--disable-shared-experts-fusion; tower variations x --mm-enable-dp-encoder.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_compare as sc  # noqa: E402
from tests.oracle import sglang_minimax_target_oracle as mo  # noqa: E402

# (tp, attention DP): attention TP 1 (1/1, 2/2, 4/4), 2 (2/1, 4/2), 4 (4/1, 8/2), 8 (8/1)
LAYOUTS = ((1, 1), (2, 1), (4, 1), (2, 2), (4, 2), (4, 4), (8, 1), (8, 2))
# --ep-size (MoE-TP = tp // ep) and --disable-shared-experts-fusion, drawn with a layout
EPS = (1, 1, 2, 4, 8)
_SPARSE = {"sparse_attention_freq": [0, 1], "sparse_num_index_heads": 4,
           "sparse_index_dim": 64}
FIELDS: dict[str, tuple[Any, ...]] = {
    "qk_norm_type": (None, "per_layer", "per_head", "multi_head", "rms"),
    "num_attention_heads": (8, 6, 16),
    "num_key_value_heads": (4, 8, 2, 3),
    "use_gemma_norm": (False, True),
    "sparse_attention_config": (
        None, _SPARSE, {**_SPARSE, "sparse_attention_freq": [1, 1],
                        "sparse_num_index_heads": 2},
        {**_SPARSE, "sparse_attention_freq": [1, 0], "sparse_num_index_heads": 3},
        {"sparse_num_index_heads": 4, "sparse_index_dim": 64},
        {"sparse_attention_freq": [0, 1], "sparse_num_index_heads": 4},
        # s44n: index projections under block FP8 (narrow index dim; value-less layers)
        {**_SPARSE, "sparse_index_dim": 64},
        {**_SPARSE, "sparse_attention_freq": [1, 1], "sparse_index_dim": 64,
         "sparse_disable_index_value": [0, 1]},
        {**_SPARSE, "sparse_num_index_heads": 1, "sparse_disable_index_value": [1, 1]}),
}
# the MLP side: which layers are MoE (None: all), experts, widths, shared experts
MOE_FIELDS: dict[str, tuple[Any, ...]] = {
    "moe_layer_freq": ([0, 0], [1, 1], [0, 1], None),
    "num_local_experts": (8, 6, 2, None),
    "num_experts_per_tok": (2, None),
    "intermediate_size": (1024, 1000, 1002, None),
    "dense_intermediate_size": (1024, 1002, None),
    "n_shared_experts": (None, 1, 2, 0),
}
# the MoE layer's own keys (None removes a key)
MOE_KEYS: tuple[dict[str, Any], ...] = (
    {"swiglu_alpha": 1.702, "swiglu_limit": 7.0, "scoring_func": "sigmoid"},
    {"scoring_func": "sigmoid"}, {"swiglu_alpha": 1.702, "swiglu_limit": 7.0})
# the activation with its constants (None removes a key)
ACTS: tuple[dict[str, Any], ...] = (
    {}, {"hidden_act": "gelu"},
    {"hidden_act": "swigluoai", "swiglu_alpha": 1.702, "swiglu_limit": 7.0},
    {"hidden_act": "swigluoai"}, {"hidden_act": None})


# the VL wrapper's vision tower (oracle TOWER with these; None removes a key, "wrapper" sets
# the wrapper config's own keys)
VISIONS: tuple[dict[str, Any], ...] = (
    {}, {"hidden_act": "relu"}, {"rope_mode": None}, {"rope_mode": "2d"},
    {"num_attention_heads": 4}, {"hidden_size": 96, "num_attention_heads": 3},
    {"hidden_size": 100, "num_attention_heads": 8},
    {"intermediate_size": 130}, {"wrapper": {"projector_hidden_size": 1002}},
    {"vision_config": None}, {"vision_config": "null"},
    {"rope_theta": None, "rope_parameters": {"rope_theta": 1e4}}, {"rope_theta": None},
    {"position_embedding_type": "abs"}, {"img_token_compression_config": []},
    {"img_token_compression_config": None}, {"num_hidden_layers": 2, "hidden_act": "relu"})


# the MoE a2a backend and runner (s42n): MegaMoE spans EP over TP and replicates the shared
# experts; no fused func is registered for it under the TRT-LLM runners
A2AS: tuple[tuple[str, ...], ...] = (
    (), (), ("--moe-a2a-backend", "megamoe"),
    ("--moe-a2a-backend", "megamoe", "--moe-runner-backend", "flashinfer_trtllm_routed"),
    ("--moe-a2a-backend", "megamoe", "--moe-runner-backend", "flashinfer_trtllm"),
    ("--moe-runner-backend", "flashinfer_trtllm_routed"),
    # s44n: the DeepEP-class MoE (DeepEPMoE, layers/moe/ep_moe/layer.py:61-186)
    ("--moe-a2a-backend", "deepep"),
    ("--moe-a2a-backend", "deepep", "--deepep-mode", "low_latency"))
_BLOCK = {"quant_method": "fp8", "activation_scheme": "dynamic"}
# quantization (s42n): (the checkpoint's quantization_config or None, the line's flags)
QUANTS: tuple[tuple[dict[str, Any] | None, tuple[str, ...]], ...] = (
    (None, ()), (None, ()),
    ({**_BLOCK, "weight_block_size": [128, 128]}, ()),
    ({**_BLOCK, "weight_block_size": [128, 64]}, ("--quantization", "fp8")),
    ({**_BLOCK, "weight_block_size": [256, 128]}, ()),
    (None, ("--quantization", "fp8")), (None, ("--quantization", "w8a8_fp8")),
    # s44n: block_k wider than block_n (a row-parallel input check that binds alone)
    ({**_BLOCK, "weight_block_size": [64, 128]}, ()))
# attention CP sizes drawn with the VL tower (s42n); kept where tp splits into attention DP x CP
CPS = (1, 1, 2, 4)


def flags(ep: int, fusion_off: bool) -> tuple[str, ...]:
    """The line's MoE flags."""
    return (("--ep-size", str(ep)) if ep > 1 else ()) + (
        ("--disable-shared-experts-fusion",) if fusion_off else ())


def quantized(quant: tuple[dict[str, Any] | None, tuple[str, ...]], nested: bool,
              a2a: tuple[str, ...] = ()) -> tuple[dict[str, Any], dict[str, Any] | None,
                                                  tuple[str, ...]]:
    """A QUANTS entry as (text fields, vision / wrapper keys, flags): the checkpoint's
    quantization_config at the top of config.json, the VL wrapper's for a nested target.
    Under a TRT-LLM MoE runner w8a8_fp8 is left out: SGLang's resolution rejects it before
    any model is built (another rule, not this oracle's)."""
    config, extra = quant
    if "w8a8_fp8" in extra and any("flashinfer_trtllm" in flag for flag in a2a):
        extra = ()
    if config is None:
        return {}, None, extra
    if nested:
        return {}, {"wrapper": {"quantization_config": config}}, extra
    return {"quantization_config": config}, None, extra


def a2a_flags(a2a: tuple[str, ...], fields: dict[str, Any]) -> tuple[str, ...]:
    """The drawn a2a / runner flags where config.json names `num_experts_per_tok`; without
    it graphfit refuses them as not modelled (its graph-runner rule, scheduler.py:998-1008),
    another rule than these."""
    return a2a if fields.get("num_experts_per_tok") is not None else ()


def cp_flags(tp: int, attn_dp: int, cp: int) -> tuple[str, ...]:
    """--attn-cp-size where TP splits into attention DP x CP, else nothing."""
    return ("--attn-cp-size", str(cp)) if cp > 1 and tp % (attn_dp * cp) == 0 else ()


def graphfit_line(path: str, tp: int, attn_dp: int,
                  extra: tuple[str, ...] = (), env: tuple[str, ...] = ()) -> tuple[int, str]:
    """graphfit's reading of the pasted launch line (`env`: its VAR=value prefix): (exit
    code, last error line or "")."""
    from graphfit.cli.options import PASTED

    token = PASTED.set((*env, "python", "-m", "sglang.launch_server", "--model-path", path,
                        "--tp-size", str(tp), "--attn-dp-size", str(attn_dp), *extra))
    # MegaMoE needs the GPU named (mega_moe_hook.py:39-48): the oracle's SM 90 device
    gpu = "H100" if "megamoe" in extra else "80"
    try:  # `graphfit plan --gpu-memory-gb 80 -- python -m sglang.launch_server ...`
        code, _, output = sc.run_graphfit(["plan", "--gpu-memory-gb", gpu])
    finally:
        PASTED.reset(token)
    errors = [ln for ln in output.splitlines() if ln.startswith("error:")]
    return code, (errors[-1] if errors else "")


def cites(said: str, site: str) -> bool:
    """Whether graphfit's reason cites SGLang's raising line: one of its "path:a[-b]" names
    the same file with the line in range."""
    path, _, line = site.rpartition(":")
    for name, first, last in re.findall(r"([\w/]+\.py):(\d+)(?:-(\d+))?", said):
        if name == path and int(first) <= int(line) <= int(last or first):
            return True
    return False


def _compare(fields: dict[str, Any], nested: bool, tp: int, attn_dp: int,
             extra: tuple[str, ...] = (), vision: dict[str, Any] | None = None,
             jit_deepgemm: bool = True, own: bool = False) -> None:
    """`own`: SGLang resolves the line on this directory itself (s48q: the model's override
    hook reads its quantization_config), not on the base target."""
    fields = {"head_dim": 128, **fields}  # heads that do not divide hidden_size
    path = mo.target_dir(fields, nested, vision)
    theirs = mo.build(path, tp, attn_dp, extra, jit_deepgemm, own)
    env = () if jit_deepgemm else ("SGLANG_ENABLE_JIT_DEEPGEMM=0",)
    code, said = graphfit_line(path, tp, attn_dp, extra, env)
    case = (fields, nested, vision, tp, attn_dp, extra, theirs, code, said)
    if theirs is None:  # SGLang builds it: graphfit plans the line
        assert code == 0, case
        return
    assert code == 2 and "SGLang cannot build" in said, case
    # the same exception as SGLang's, citing the line SGLang raised at
    kind, site = theirs.split(":", 1)[0], theirs.rsplit(" @ ", 1)[1]
    assert f"({kind}, " in said and cites(said, site), case
    assert len(said) <= 200, case


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(LAYOUTS), st.booleans(),
       st.fixed_dictionaries({k: st.sampled_from(v) for k, v in FIELDS.items()}),
       st.sampled_from(ACTS), st.sampled_from(QUANTS))
def test_minimax_target_matches_sglang(layout: tuple[int, int], nested: bool,
                                       fields: dict[str, Any], act: dict[str, Any],
                                       quant: tuple[dict[str, Any] | None, tuple[str, ...]],
                                       ) -> None:
    """graphfit refuses exactly the generated lines SGLang's own model class cannot build,
    with SGLang's exception and site; it plans the others. (s44n: under (block-)FP8 too,
    which reaches the sparse layers' index projections.)"""
    more, vision, qflags = quantized(quant, nested)
    _compare({**fields, **act, **more}, nested, *layout, qflags, vision)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(LAYOUTS), st.sampled_from(EPS), st.booleans(), st.booleans(),
       st.fixed_dictionaries({k: st.sampled_from(v) for k, v in MOE_FIELDS.items()}),
       st.sampled_from(MOE_KEYS), st.sampled_from(ACTS), st.sampled_from(A2AS),
       st.sampled_from(QUANTS))
def test_minimax_target_moe_matches_sglang(layout: tuple[int, int], ep: int, fusion_off: bool,
                                           nested: bool, fields: dict[str, Any],
                                           keys: dict[str, Any], act: dict[str, Any],
                                           a2a: tuple[str, ...],
                                           quant: tuple[dict[str, Any] | None, tuple[str, ...]],
                                           ) -> None:
    """The MLP side (MoE layers, their experts and shared experts, dense layers) with a
    per_head norm, under MegaMoE / TRT-LLM runners and (block-)FP8: graphfit refuses exactly
    where SGLang's class raises, citing its line."""
    tp, attn_dp = layout
    if tp % ep:
        ep = tp
    a2a = a2a_flags(a2a, fields)
    more, vision, qflags = quantized(quant, nested, a2a)
    _compare({"qk_norm_type": "per_head", **fields, **keys, **act, **more}, nested, tp,
             attn_dp, flags(ep, fusion_off) + a2a + qflags, vision)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(LAYOUTS), st.booleans(), st.sampled_from(VISIONS),
       st.sampled_from(("per_head", "per_layer")), st.sampled_from(ACTS[:2]),
       st.sampled_from(CPS))
def test_minimax_vl_tower_matches_sglang(layout: tuple[int, int], dp_encoder: bool,
                                         vision: dict[str, Any], norm: str,
                                         act: dict[str, Any], cp: int) -> None:
    """The VL wrapper's vision tower, built before its text model (the text config's own
    failures drawn too): graphfit refuses exactly where SGLang's wrapper raises, citing its
    line; --mm-enable-dp-encoder keeps the tower whole; attention CP narrowing attention TP
    without attention DP is refused (layers/dp_attention.py:536-572)."""
    _compare({"qk_norm_type": norm, **act}, True, *layout,
             (("--mm-enable-dp-encoder",) if dp_encoder else ()) + cp_flags(*layout, cp),
             vision)


def test_per_layer_default_under_attention_dp() -> None:
    """The default per_layer norm (no qk_norm_type key) starts at TP 2 with attention DP 2
    (attention TP 1) and fails at TP 4 with attention DP 2 (attention TP 2), in SGLang and in
    graphfit alike; a per_head model starts at TP 4."""
    for tp, attn_dp in ((2, 2), (4, 2), (2, 1)):
        _compare({}, False, tp, attn_dp)
        _compare({}, True, tp, attn_dp)
    _compare({"qk_norm_type": "per_head"}, False, 4, 1)
    assert mo.build(mo.target_dir({}, False), 2, 2) is None
    assert "num_heads" in str(mo.build(mo.target_dir({}, False), 4, 2))


def test_sparse_and_shape_checks() -> None:
    """Each new check on its own, both ways: a per_head sparse model starts at attention TP 2
    and 8; per_layer sparse fails at attention TP 1 (the sparse assertion, not the TP > 1
    TypeError); 3 index heads, 6 attention heads and 3 KV heads fail at attention TP 2 / 4 (fewer
    KV or index heads than ranks: when they do not divide it), 2 KV heads start at 8;
    gelu fails, swigluoai with its constants starts; a config without the sparse layer list
    fails; the first failing layer (attention, then MLP) decides."""
    per_head = {"qk_norm_type": "per_head"}
    for fields, tp in (({**per_head, "sparse_attention_config": _SPARSE}, 2),
                       ({**per_head, "sparse_attention_config": _SPARSE}, 8),
                       ({"sparse_attention_config": _SPARSE}, 1),
                       ({**per_head, "sparse_attention_config":
                         {**_SPARSE, "sparse_num_index_heads": 3}}, 2),
                       ({**per_head, "num_attention_heads": 6}, 4),
                       ({**per_head, "num_key_value_heads": 3}, 2),
                       ({**per_head, "num_key_value_heads": 3}, 4),  # fewer: replicated
                       ({**per_head, "num_key_value_heads": 2}, 8),
                       ({**per_head, "sparse_attention_config":
                         {**_SPARSE, "sparse_num_index_heads": 3}}, 4),
                       ({**per_head, **ACTS[1]}, 1), ({**per_head, **ACTS[2]}, 1),
                       ({**per_head, "sparse_attention_config": FIELDS[
                           "sparse_attention_config"][4]}, 1),
                       # order: layer 0's MLP before layer 1's attention, and the reverse
                       ({"sparse_attention_config": _SPARSE, **ACTS[1]}, 1),
                       ({"sparse_attention_config": FIELDS["sparse_attention_config"][3],
                         **ACTS[1]}, 1)):
        for nested in (False, True):
            _compare(fields, nested, tp, 1)


def test_moe_checks_each_way() -> None:
    """Each MLP-side check on its own, where the generated lines rarely isolate it: unfused
    shared experts (EP 2) whose width splits over MoE-TP 2 but not over TP 4
    (layers/linear.py:693), and the same with two shared experts (2004 splits); a dense
    width that does not split over TP; EP 2 keeps 2 shared experts unfused (no fusion
    assert), fusion left on asserts; redundant-free routed experts over EP 4."""
    moe = {"qk_norm_type": "per_head", "moe_layer_freq": [1, 1], **MOE_KEYS[0]}
    for fields, tp, extra in (
            ({**moe, "intermediate_size": 1002, "n_shared_experts": 1}, 4, ("--ep-size", "2")),
            ({**moe, "intermediate_size": 1002, "n_shared_experts": 2}, 4, ("--ep-size", "2")),
            ({**moe, "moe_layer_freq": [0, 1], "dense_intermediate_size": 1002}, 4, ()),
            ({**moe, "n_shared_experts": 2}, 2, ("--ep-size", "2")),
            ({**moe, "n_shared_experts": 2}, 2, ()),
            ({**moe, "num_local_experts": 6}, 4, ("--ep-size", "4"))):
        for nested in (False, True):
            _compare(fields, nested, tp, 1, extra)


def test_s42n_checks_each_way() -> None:
    """Each s42n check on its own, both ways: the tower's TP-reduce refusal under attention
    CP (CLIPEncoderLayer; the projector of a layerless tower), lifted by attention DP, by
    --mm-enable-dp-encoder and on a PD decode server; block-FP8 experts, dense MLP and qkv
    projections that do / do not split into blocks; MegaMoE under a TRT-LLM runner, and
    MegaMoE's replicated shared experts where TP would not split them; shared-expert fusion
    turned off by a TRT-LLM runner."""
    per_head = {"qk_norm_type": "per_head"}
    for tp, attn_dp, extra, vision in (
            (4, 1, ("--attn-cp-size", "2"), None), (8, 1, ("--attn-cp-size", "4"), None),
            (4, 1, ("--attn-cp-size", "2"), {"num_hidden_layers": 0}),
            (8, 2, ("--attn-cp-size", "2"), None),
            (4, 1, ("--attn-cp-size", "2", "--mm-enable-dp-encoder"), None),
            (4, 1, ("--attn-cp-size", "2", "--disaggregation-mode", "decode"), None)):
        _compare(per_head, True, tp, attn_dp, extra, vision)
    moe = {**per_head, "moe_layer_freq": [1, 1], "num_local_experts": 8,
           "num_experts_per_tok": 2, **MOE_KEYS[0]}
    block = {"quantization_config": {**_BLOCK, "weight_block_size": [128, 128]}}
    for fields, tp, extra in (
            ({**moe, **block}, 4, ()), ({**moe, **block, "intermediate_size": 1000}, 4, ()),
            ({**moe, **block, "intermediate_size": 1000, "n_shared_experts": 1}, 4,
             ("--ep-size", "2")),
            ({**moe, **block, "moe_layer_freq": [0, 0], "dense_intermediate_size": 1000}, 4,
             ()),
            ({**moe, **block, "head_dim": 64}, 4, ()), ({**moe, **block, "head_dim": 64}, 1, ()),
            ({**moe, "intermediate_size": 1002, "n_shared_experts": 1}, 4,
             ("--moe-a2a-backend", "megamoe")),
            ({**moe, "intermediate_size": 1024}, 2,
             ("--moe-a2a-backend", "megamoe", "--moe-runner-backend",
              "flashinfer_trtllm_routed")),
            # the TRT-LLM runner turns fusion off at resolution: no one-shared-expert assert
            ({**moe, "moe_layer_freq": [0, 0], "n_shared_experts": 2, "hidden_act": "gelu"}, 1,
             ("--moe-runner-backend", "flashinfer_trtllm_routed"))):
        for nested in (False, True):
            config = fields.get("quantization_config")
            text = {k: v for k, v in fields.items() if not (nested and k == "quantization_config")}
            _compare(text, nested, tp, 1, extra,
                     {"wrapper": {"quantization_config": config}} if nested and config else None)


def test_s44n_checks_each_way() -> None:
    """s44n's cases on their own, both ways. Block FP8 on a sparse layer's index projections
    (minimax_m3.py:829-853, over min(attention TP, index heads) ranks): an index dim narrower
    than block_n fails index_qkv_proj (fp8.py:601-609) and one as wide builds; a per-rank index
    input narrower than block_k fails index_o_proj (fp8.py:593-599) unless the layer's
    `sparse_disable_index_value` drops that projection (configs/model_config.py:467-471), or
    one index head leaves it unsplit. The DeepEP-class MoE (DeepEPMoE,
    layers/moe/ep_moe/layer.py:61-186) builds where FusedMoE's checks pass and fails with them
    where they do not (EP spans TP; shared experts replicated); with JIT DeepGEMM off a
    quantized one in auto / low_latency mode asserts deep_gemm (:168-178)."""
    per_head = {"qk_norm_type": "per_head"}
    narrow = {**_SPARSE, "sparse_index_dim": 64}
    for sparse, block, tp in (
            (narrow, [128, 128], 1), ({**_SPARSE, "sparse_index_dim": 128}, [128, 128], 2),
            (narrow, [64, 128], 4),
            ({**narrow, "sparse_disable_index_value": [1, 1]}, [64, 128], 4),
            ({**narrow, "sparse_attention_freq": [1, 1], "sparse_disable_index_value": [0, 1]},
             [64, 128], 4),
            ({**narrow, "sparse_num_index_heads": 1}, [64, 128], 4)):
        config = {**_BLOCK, "weight_block_size": block}
        for nested in (False, True):
            text = {**per_head, "sparse_attention_config": sparse}
            if nested:
                _compare(text, True, tp, 1, (), {"wrapper": {"quantization_config": config}})
            else:
                _compare({**text, "quantization_config": config}, False, tp, 1)
    moe = {**per_head, "moe_layer_freq": [1, 1], "num_local_experts": 8,
           "num_experts_per_tok": 2, **MOE_KEYS[0]}
    deepep = ("--moe-a2a-backend", "deepep")
    for fields, tp, extra in (
            (moe, 2, deepep), ({**moe, "num_local_experts": 6}, 4, deepep),
            ({**moe, "intermediate_size": 1002, "n_shared_experts": 1}, 4, deepep),
            ({**moe, "n_shared_experts": 2}, 2, (*deepep, "--deepep-mode", "low_latency"))):
        for nested in (False, True):
            _compare(fields, nested, tp, 1, extra)
    # SGLANG_ENABLE_JIT_DEEPGEMM=0: a quantized DeepEP MoE in auto / low_latency mode asserts
    # deep_gemm (ep_moe/layer.py:168-178); normal mode, or no quantization, builds
    block = {"quantization_config": {**_BLOCK, "weight_block_size": [128, 128]}}
    for fields, extra in (
            (moe, deepep), ({**moe, **block}, deepep), (moe, (*deepep, "--quantization", "fp8")),
            ({**moe, **block}, (*deepep, "--deepep-mode", "normal")),
            ({**moe, **block}, (*deepep, "--deepep-mode", "low_latency")),
            ({**moe, **block}, ())):
        config = fields.get("quantization_config")
        _compare(fields, False, 2, 1, extra, jit_deepgemm=False)
        _compare({k: v for k, v in fields.items() if k != "quantization_config"}, True, 2, 1,
                 extra, {"wrapper": {"quantization_config": config}} if config else None,
                 jit_deepgemm=False)


def test_dense_tp_one_replicates_dense_mlps() -> None:
    """--moe-dense-tp-size 1 builds a dense layer's MLP on one rank ("replicated",
    minimax_m3.py:1736 -> layers/layer_boundary/layout.py:83-84; issue 23 s69n): a dense
    width that does not split over TP 4 starts with it and fails without it or with 4; its
    activation is still checked; the shared experts keep the TP group (:454-468); block-FP8
    dense MLPs are checked on one rank."""
    per_head = {"qk_norm_type": "per_head"}
    dense = {**per_head, "dense_intermediate_size": 1002}
    moe = {**per_head, "moe_layer_freq": [1, 1], "num_local_experts": 8,
           "num_experts_per_tok": 2, **MOE_KEYS[0], "intermediate_size": 1002,
           "n_shared_experts": 1}
    block = {"quantization_config": {**_BLOCK, "weight_block_size": [128, 128]}}
    one = ("--moe-dense-tp-size", "1")
    for fields, tp, extra in (
            (dense, 4, one), (dense, 4, ()), (dense, 4, ("--moe-dense-tp-size", "4")),
            ({**dense, **ACTS[1]}, 4, one), ({**dense, "moe_layer_freq": [0, 1]}, 4, one),
            (moe, 4, (*one, "--ep-size", "2")),
            ({**per_head, **block, "dense_intermediate_size": 1000}, 4, one),
            ({**dense, "dense_intermediate_size": 1000}, 2, (*one, "--attn-dp-size", "2"))):
        _compare(fields, False, tp, 1, extra)
    _compare(dense, True, 4, 1, one)
    # graphfit's own config file reads the flag too (the MoE layout of its keys)
    from tests.oracle.sglang_quant_gptq_dynamic_compare import planned_file

    path = mo.target_dir({"head_dim": 128, **dense}, False)
    assert planned_file(path, ("--tp-size", "4", *one), "80") == (0, "")
    assert "does not split over TP size 4" in planned_file(path, ("--tp-size", "4"), "80")[1]
