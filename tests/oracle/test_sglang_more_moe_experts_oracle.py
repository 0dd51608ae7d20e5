"""MiniMax-M2, Hunyuan, Mixtral-quant, Cohere2-MoE, LongCat-Flash and Step3.5 targets with fewer
experts than TP ranks (graphfit.inputs.sglang_more_moe_experts, issue 23 s70b; LFM2-MoE and
AFMoE, s70q), against
SGLang's own resolution and model layers built on the meta device under the published layout
(tests/oracle/test_sglang_deepep_class_oracle.py's `sglang`):

* MiniMax-M2, Hunyuan, Mixtral-quant, Cohere2-MoE, LFM2-MoE, AFMoE, EXAONE-MoE, Laguna: every
  decoder layer of the class, built in SGLang's own layer stack, so the class itself picks which
  layers build the MoE block (Hunyuan's `_is_moe`, Cohere2-MoE's dense prefix, LFM2-MoE's / AFMoE's
  `num_dense_layers`, left out of their config.json so the class defaults apply;
  EXAONE-MoE's `is_moe_layer` flags, Laguna's `mlp_layer_types`).
  Cohere2-MoE's decoder layer asks for a CUDA stream after its MLP
  (models/cohere2_moe.py:413): the oracle hands it none.
* LongCat-Flash: its decoder layer's rotary embedding needs CUDA before the MoE block is
  built, so the oracle builds `LongcatFlashMoE` on each layer, as the decoder layer does
  unconditionally (models/longcat_flash.py:421-425).
* Step3.5: `Step3p5MoEMLP` on each layer the decoder layer's own `_is_moe_layer` picks
  (models/step3p5.py:543-546, :475-480), the way the decoder layer builds it.

Both sides refuse (graphfit with SGLang's ValueError and its line) or both start the line.
Fixed lines each way (EP does not narrow the TP size these blocks read; Hunyuan's one-expert
dense form; Cohere2-MoE's all-dense prefix; LFM2-MoE's default prefix of 2 covering a
two-layer model; Laguna's default types on a one-layer model; a Step3.5 MoE layer list
naming no built layer);
drawn: class x experts x TP x EP (x dense prefix / MoE layer list). s70t's `FIELDS`:
Cohere2-MoE's dense prefix width and Step3.5's MoE layer list left out, null or of another
type, where SGLang's build fails before any MoE block (graphfit.inputs.sglang_moe_layer_fields).
"""

from __future__ import annotations

import contextlib
import importlib
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import test_sglang_deepep_class_oracle as dc  # noqa: E402
from tests.oracle.test_sglang_sparse_moe_experts_oracle import Built  # noqa: E402

_BASE: dict[str, Any] = {
    "hidden_size": 1024, "intermediate_size": 2048, "moe_intermediate_size": 256,
    "num_attention_heads": 16, "num_key_value_heads": 4, "head_dim": 64,
    "num_hidden_layers": 4, "max_position_embeddings": 40960, "num_experts_per_tok": 2,
    "rms_norm_eps": 1e-6, "torch_dtype": "bfloat16", "hidden_act": "silu",
    "tie_word_embeddings": False, "vocab_size": 32000, "rope_theta": 10000}
# kind -> (config.json, the field holding the expert count)
KINDS: dict[str, tuple[dict[str, Any], str]] = {
    "minimax_m2": ({**_BASE, "architectures": ["MiniMaxM2ForCausalLM"],
                    "model_type": "minimax_m2", "intermediate_size": 256,
                    "scoring_func": "sigmoid", "use_routing_bias": True}, "num_local_experts"),
    "hunyuan": ({**_BASE, "architectures": ["HunYuanMoEV1ForCausalLM"],
                 "model_type": "hunyuan_v1_moe", "moe_topk": 2, "use_mixed_mlp_moe": False},
                "num_experts"),
    "mixtral_quant": ({**_BASE, "architectures": ["QuantMixtralForCausalLM"],
                       "model_type": "mixtral", "intermediate_size": 256},
                      "num_local_experts"),
    "cohere2_moe": ({**_BASE, "architectures": ["Cohere2MoeForCausalLM"],
                     "model_type": "cohere2_moe", "prefix_dense_intermediate_size": 2048},
                    "num_experts"),
    "longcat_flash": ({**_BASE, "architectures": ["LongcatFlashForCausalLM"],
                       "model_type": "longcat_flash", "num_layers": 2,
                       "ffn_hidden_size": 2048, "expert_ffn_hidden_size": 256,
                       "kv_lora_rank": 512, "q_lora_rank": 1536, "qk_nope_head_dim": 128,
                       "qk_rope_head_dim": 64, "v_head_dim": 128, "moe_topk": 2,
                       "zero_expert_num": 0,
                       "rope_scaling": {"rope_type": "default", "rope_theta": 10000}},
                      "n_routed_experts"),
    "step3p5": ({"architectures": ["Step3p5ForCausalLM"], "model_type": "step3p5",
                 "hidden_size": 1024, "intermediate_size": 2048, "num_attention_heads": 16,
                 "num_attention_groups": 4, "head_dim": 64, "num_hidden_layers": 4,
                 "vocab_size": 32000, "moe_intermediate_size": 256, "moe_top_k": 2,
                 "max_position_embeddings": 40960, "share_expert_dims": 256,
                 "torch_dtype": "bfloat16", "need_fp32_gate": True,
                 "moe_router_scaling_factor": 1.0, "use_moe_router_bias": True,
                 "moe_layers_enum": "1,2,3", "use_head_wise_attn_gate": False,
                 "swiglu_limits": [0.0] * 4, "swiglu_limits_shared": [0.0] * 4,
                 "layer_types": ["full_attention"] * 4, "rope_theta": 10000,
                 "tie_word_embeddings": False}, "moe_num_experts"),
    "lfm2_moe": ({**_BASE, "architectures": ["Lfm2MoeForCausalLM"], "model_type": "lfm2_moe",
                  "norm_eps": 1e-5, "conv_L_cache": 3,
                  "conv_bias": False, "use_expert_bias": True, "norm_topk_prob": True,
                  "routed_scaling_factor": 1.0,
                  "layer_types": ["conv", "full_attention", "conv", "full_attention"]},
                 "num_experts"),
    "afmoe": ({**_BASE, "architectures": ["AfmoeForCausalLM"], "model_type": "afmoe",
               "num_shared_experts": 1,
               "layer_types": ["full_attention"] * 4}, "num_experts"),
    "exaone_moe": ({**_BASE, "architectures": ["ExaoneMoEForCausalLM"],
                    "model_type": "exaone_moe", "num_shared_experts": 1,
                    "routed_scaling_factor": 1.0, "norm_topk_prob": True,
                    "is_moe_layer": [False, True, True, True],
                    "layer_types": ["full_attention"] * 4}, "num_experts"),
    "laguna": ({**_BASE, "architectures": ["LagunaForCausalLM"], "model_type": "laguna",
                "shared_expert_intermediate_size": 256, "sliding_window": 512,
                "layer_types": ["full_attention"] * 4}, "num_experts"),
}
# Step3.5's MoE layer lists for the drawn dense-prefix values
_ENUMS = {0: "0,1,2,3", 2: "2,3", 4: "4,5"}
# EXAONE-MoE's per-layer MoE flags / Laguna's MLP types for the same values (s70q)
_FLAGS = {0: [True] * 4, 2: [False, False, True, True], 4: [False] * 4}
_TYPES = {n: ["sparse" if flag else "dense" for flag in flags] for n, flags in _FLAGS.items()}
# kind -> (module, decoder layer class)
LAYERS = {"minimax_m2": ("minimax_m2", "MiniMaxM2DecoderLayer"),
          "hunyuan": ("hunyuan", "HunYuanDecoderLayer"),
          "mixtral_quant": ("mixtral_quant", "MixtralDecoderLayer"),
          "cohere2_moe": ("cohere2_moe", "Cohere2MoeDecoderLayer"),
          "lfm2_moe": ("lfm2_moe", "Lfm2MoeDecoderLayer"),
          "afmoe": ("afmoe", "AfmoeDecoderLayer"),
          "exaone_moe": ("exaone_moe", "ExaoneMoEDecoderLayer"),
          "laguna": ("laguna", "LagunaDecoderLayer")}
_DRAWN = tempfile.TemporaryDirectory(prefix="graphfit-more-moe-experts-")
_T4, _T4E2 = ("--tp-size", "4"), ("--tp-size", "4", "--ep-size", "2")
# (kind, experts, config fields, argv)
FIXED: tuple[tuple[str, int, dict[str, Any], tuple[str, ...]], ...] = (
    ("minimax_m2", 2, {}, _T4), ("minimax_m2", 4, {}, _T4), ("minimax_m2", 2, {}, _T4E2),
    ("hunyuan", 2, {}, _T4), ("hunyuan", 4, {}, _T4E2), ("hunyuan", 1, {}, _T4),
    ("mixtral_quant", 2, {}, _T4), ("mixtral_quant", 8, {}, _T4E2),
    ("cohere2_moe", 2, {}, _T4), ("cohere2_moe", 4, {}, _T4),
    ("cohere2_moe", 2, {"first_k_dense_replace": 4}, _T4),
    ("cohere2_moe", 2, {"first_k_dense_replace": 3}, _T4),
    ("longcat_flash", 2, {}, _T4), ("longcat_flash", 2, {}, _T4E2),
    ("longcat_flash", 4, {}, _T4),
    ("step3p5", 2, {}, _T4), ("step3p5", 4, {}, _T4), ("step3p5", 2, {}, _T4E2),
    ("step3p5", 2, {"moe_layers_enum": "5,6"}, _T4),
    ("lfm2_moe", 2, {}, _T4), ("lfm2_moe", 4, {}, _T4), ("lfm2_moe", 2, {}, _T4E2),
    ("lfm2_moe", 2, {"num_dense_layers": 4}, _T4), ("lfm2_moe", 2, {"num_dense_layers": 1}, _T4),
    ("lfm2_moe", 2, {"num_hidden_layers": 2, "layer_types": ["conv", "full_attention"]}, _T4),
    ("afmoe", 2, {}, _T4), ("afmoe", 4, {}, _T4), ("afmoe", 2, {}, _T4E2),
    ("afmoe", 2, {"num_dense_layers": 4}, _T4),
    ("exaone_moe", 2, {}, _T4), ("exaone_moe", 4, {}, _T4), ("exaone_moe", 2, {}, _T4E2),
    ("exaone_moe", 2, {"is_moe_layer": [False] * 4}, _T4),
    ("laguna", 2, {}, _T4), ("laguna", 4, {}, _T4), ("laguna", 2, {}, _T4E2),
    ("laguna", 2, {"mlp_layer_types": ["dense"] * 4}, _T4),
    ("laguna", 2, {"num_hidden_layers": 1, "layer_types": ["full_attention"]}, _T4),
)
# a field left out of config.json (model_dir drops it)
ABSENT = "<absent>"
# s70t: layer fields whose absence fails the build before any MoE block (Cohere2-MoE's dense
# prefix width, Step3.5's MoE layer list), each way
FIELDS: tuple[tuple[str, int, dict[str, Any], tuple[str, ...]], ...] = (
    ("cohere2_moe", 8, {"first_k_dense_replace": 2, "prefix_dense_intermediate_size": ABSENT},
     _T4),
    ("cohere2_moe", 8, {"first_k_dense_replace": 1, "prefix_dense_intermediate_size": None},
     ("--tp-size", "1")),
    ("cohere2_moe", 2, {"first_k_dense_replace": 4, "prefix_dense_intermediate_size": ABSENT},
     _T4),
    ("cohere2_moe", 8, {"first_k_dense_replace": 0, "prefix_dense_intermediate_size": ABSENT},
     _T4),
    ("cohere2_moe", 8, {"prefix_dense_intermediate_size": ABSENT}, _T4),
    ("step3p5", 8, {"moe_layers_enum": ABSENT}, _T4),
    ("step3p5", 8, {"moe_layers_enum": [1, 2, 3]}, ("--tp-size", "1")),
    ("step3p5", 8, {"moe_layers_enum": None}, _T4),
    ("step3p5", 8, {"moe_layers_enum": "1,x"}, _T4),
    ("step3p5", 8, {"moe_layers_enum": " 1, 2"}, _T4),
)


def model_dir(kind: str, experts: int, fields: dict[str, Any], root: Path) -> Path:
    """A small config.json of the class with `experts` experts and `fields` over them."""
    tag = "-".join(f"{k}{v}" for k, v in sorted(fields.items()))
    folder = root / f"{kind}-{experts}-{tag}"
    folder.mkdir(parents=True, exist_ok=True)
    data, field = KINDS[kind]
    merged = {**data, field: experts, **fields}
    (folder / "config.json").write_text(json.dumps(
        {k: v for k, v in merged.items() if v != ABSENT}))
    return folder


@contextlib.contextmanager
def _no_stream(module: Any) -> Iterator[None]:
    """Cohere2-MoE's decoder layer's side stream (cohere2_moe.py:413) as None: the fake
    CUDA device has no streams."""
    saved = getattr(module, "get_stream", None)
    if saved is not None:
        module.get_stream = lambda name: None
    try:
        yield
    finally:
        if saved is not None:
            module.get_stream = saved


def _block(kind: str) -> Any:
    """Every layer of the class as the oracle builds it (the module's docstring)."""

    def build(config: Any, quant: Any) -> None:
        if kind == "longcat_flash":
            import sglang.srt.models.longcat_flash as lc

            for i in range(config.num_hidden_layers):
                lc.LongcatFlashMoE(layer_id=i, config=config, quant_config=quant,
                                   prefix=f"model.layers.{i}.mlp")
            return
        if kind == "step3p5":
            import sglang.srt.models.step3p5 as st3

            for i in range(config.num_hidden_layers):
                if st3.Step3p5DecoderLayer._is_moe_layer(config, i):
                    st3.Step3p5MoEMLP(config, layer_id=i, quant_config=quant,
                                      prefix=f"model.layers.{i}.mlp")
            return
        from sglang.srt.layers.layer_boundary.factories import layer_stack

        name, cls = LAYERS[kind]
        module = importlib.import_module(f"sglang.srt.models.{name}")
        with _no_stream(module), layer_stack():
            for i in range(config.num_hidden_layers):
                getattr(module, cls)(config=config, layer_id=i, quant_config=quant,
                                     prefix=f"model.layers.{i}")
    return build


_BUILT = Built(_block, model_dir)
theirs_on, compare = _BUILT.theirs_on, _BUILT.compare


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    so.oracle()
    return tmp_path_factory.mktemp("more-moe-experts")


@pytest.mark.parametrize(("kind", "experts", "fields", "argv"), FIXED)
def test_fixed_lines_agree(kind: str, experts: int, fields: dict[str, Any],
                           argv: tuple[str, ...], root: Path) -> None:
    compare(kind, experts, fields, argv, root)


@pytest.mark.parametrize(("kind", "experts", "fields", "argv"), FIELDS)
def test_missing_layer_fields_agree(kind: str, experts: int, fields: dict[str, Any],
                                    argv: tuple[str, ...], root: Path) -> None:
    """s70t: both sides refuse where the build fails on a missing / unreadable layer field,
    and both start the line where the field is not read (no dense prefix, a readable list)."""
    compare(kind, experts, fields, argv, root)


def test_missing_layer_fields_not_vacuous(root: Path) -> None:
    """SGLang fails the build on the first FIELDS lines of each class in the error graphfit
    names, and starts the last."""
    said = [theirs_on(k, model_dir(k, n, f, root), argv) for k, n, f, argv in FIELDS]
    errors = ("TypeError", "TypeError", "TypeError", None, None,
              "AttributeError", "AttributeError", "AttributeError", "ValueError", None)
    assert [a and a.split(": ", 2)[1] for a in said] == list(errors), said
    for i, words in ((0, "'NoneType' and 'int'"), (5, "'tuple' object has no attribute"),
                     (7, "'NoneType' object has no attribute")):
        k, n, f, argv = FIELDS[i]
        assert words in dc.graphfit(model_dir(k, n, f, root), argv, True)[1], FIELDS[i]


def test_fixed_lines_are_not_vacuous(root: Path) -> None:
    """Each class raises on some fixed line and starts on another."""
    answers = [(k, theirs_on(k, model_dir(k, n, f, root), argv)) for k, n, f, argv in FIXED]
    for kind in KINDS:
        said = [a for k, a in answers if k == kind]
        assert None in said and any(a and ("greater than the number of experts" in a or
                                           " > num_experts " in a) for a in said), answers


@settings(max_examples=8, deadline=None)
@given(st.sampled_from(tuple(KINDS)), st.sampled_from((2, 4, 8)), st.sampled_from((1, 2, 4, 8)),
       st.sampled_from((1, 2, 4)), st.sampled_from((0, 2, 4)))
def test_drawn_lines_agree(kind: str, experts: int, tp: int, ep: int, first: int) -> None:
    """Class x experts x TP x EP (kept where it divides TP) x Cohere2-MoE's dense prefix /
    Step3.5's MoE layer list / LFM2-MoE's and AFMoE's `num_dense_layers`."""
    argv: tuple[str, ...] = ("--tp-size", str(tp))
    if tp % ep == 0 and ep > 1:
        argv += ("--ep-size", str(ep))
    so.oracle()
    fields = ({"first_k_dense_replace": first} if kind == "cohere2_moe" else
              {"moe_layers_enum": _ENUMS[first]} if kind == "step3p5" else
              {"num_dense_layers": first} if kind in ("lfm2_moe", "afmoe") else
              {"is_moe_layer": _FLAGS[first]} if kind == "exaone_moe" else
              {"mlp_layer_types": _TYPES[first]} if kind == "laguna" else {})
    compare(kind, experts, fields, argv, Path(_DRAWN.name))


def test_refusal_in_sglangs_words(root: Path) -> None:
    """graphfit quotes the sentence SGLang raised, Laguna's shorter one included (s70q)."""
    for kind, experts, fields, argv in (FIXED[0], ("laguna", 2, {}, _T4)):
        model = model_dir(kind, experts, fields, root)
        theirs = theirs_on(kind, model, argv)
        assert theirs is not None and theirs.startswith("build: ValueError: "), theirs
        sentence = theirs.removeprefix("build: ValueError: ").rsplit(" @ ", 1)[0]
        assert sentence in dc.graphfit(model, argv, True)[1], (kind, theirs)


def test_live_server_args_agree(root: Path) -> None:
    """The live check (`from_sglang` on SGLang's own resolved ServerArgs) refuses where the
    MoE block raises and plans where it builds."""
    from graphfit.integrations.sglang import from_sglang
    from graphfit.planner.core.errors import ConfigError

    for kind, experts, fields, argv in (FIXED[0], FIXED[1], FIXED[10], FIXED[11]):
        model = model_dir(kind, experts, fields, root)
        theirs = theirs_on(kind, model, argv)
        r = so.resolve(argv, model=str(model))
        assert isinstance(r, so.Resolved), r
        try:
            from_sglang(r.record, environ={}, max_num_seqs=8, gpu_memory_gb=80.0)
            said = None
        except ConfigError as exc:
            said = str(exc)
        assert (theirs is None) == (said is None), (kind, experts, fields, argv, theirs, said)
