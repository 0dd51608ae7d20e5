"""A hybrid GDN model's state shape from its config.json (graphfit.inputs.mamba_state): the
shape SGLang's Qwen3NextConfig.mamba2_cache_params builds (configs/qwen3_next.py:259-310);
the bytes it gives are compared with SGLang's own in tests/oracle/
test_sglang_mamba_memory_oracle.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit.inputs.mamba_state import (
    falcon_h1_shape,
    gdn_shape,
    kimi_linear_shape,
    mamba_state_settings,
)

QWEN3_NEXT = {"architectures": ["Qwen3NextForCausalLM"], "num_hidden_layers": 48,
              "full_attention_interval": 4, "linear_conv_kernel_dim": 4,
              "linear_key_head_dim": 128, "linear_value_head_dim": 128,
              "linear_num_key_heads": 16, "linear_num_value_heads": 32}


def settings(tmp_path: Path, data: dict[str, Any],
             fields: tuple[str, ...] = ("mamba_layer_map",)) -> dict[str, Any]:
    """The settings read, less `fields` (the layer map: test_layer_maps)."""
    (tmp_path / "config.json").write_text(json.dumps(data))
    return {s.field: s.value for s in mamba_state_settings(str(tmp_path))
            if s.field not in fields}


def test_qwen3_next(tmp_path: Path) -> None:
    assert settings(tmp_path, QWEN3_NEXT) == {
        "mamba_state_shape": (36, 4096, 16, 32, 128, 128, 4)}


def test_qwen3_5_text_config_and_dtype(tmp_path: Path) -> None:
    text = {k: v for k, v in QWEN3_NEXT.items() if k != "architectures"}
    data = {"architectures": ["Qwen3_5MoeForConditionalGeneration"],
            "text_config": {**text, "mamba_ssm_dtype": "bfloat16"},
            "mamba_ssm_dtype": "float16"}
    found = settings(tmp_path, data)
    assert found["mamba_state_shape"][0] == 36 and found["mamba_ssm_dtype"] == "bfloat16"


def test_unstated_key_or_other_model_gives_nothing(tmp_path: Path) -> None:
    assert settings(tmp_path, {k: v for k, v in QWEN3_NEXT.items()
                               if k != "full_attention_interval"}) == {}
    assert settings(tmp_path, {**QWEN3_NEXT, "architectures": ["LlamaForCausalLM"]}) == {}
    assert settings(tmp_path, {**QWEN3_NEXT, "mamba_ssm_dtype": "fp8"}) == {
        "mamba_state_shape": (36, 4096, 16, 32, 128, 128, 4)}  # SGLang ignores it too


@given(st.integers(1, 96), st.integers(1, 8))
def test_linear_layers_are_the_non_full_ones(layers: int, interval: int) -> None:
    shape = gdn_shape({**QWEN3_NEXT, "num_hidden_layers": layers,
                       "full_attention_interval": interval})
    linear = layers - layers // interval
    assert (shape is None) == (linear == 0)
    assert shape is None or shape[0] == linear


GRANITE = {"architectures": ["GraniteMoeHybridForCausalLM"], "hidden_size": 1024,
           "num_hidden_layers": 4, "layer_types": ["mamba", "mamba", "attention", "mamba"],
           "mamba_expand": 2, "mamba_n_heads": 32, "mamba_d_head": 64, "mamba_n_groups": 1,
           "mamba_d_state": 128, "mamba_d_conv": 4, "mamba_ssm_dtype": "bfloat16"}


def test_granite_mamba_layers(tmp_path: Path) -> None:
    """Its state dtype is not read from the config (SGLang's Granite params do not either)."""
    assert settings(tmp_path, GRANITE) == {"mamba_state_shape": (3, 2048, 1, 32, 64, 128, 4),
                                           "mamba_chunk_size": 256}  # the class default
    new = {**GRANITE, "layer_types": ["linear_attention", "full_attention"] * 2}
    assert settings(tmp_path, new)["mamba_state_shape"][0] == 2
    assert settings(tmp_path, {**GRANITE, "mamba_chunk_size": 128})["mamba_chunk_size"] == 128


def test_granite_without_mamba_is_not_hybrid(tmp_path: Path) -> None:
    assert settings(tmp_path, {**GRANITE, "layer_types": ["attention"] * 4}) == {}
    assert settings(tmp_path, {k: v for k, v in GRANITE.items() if k != "layer_types"}) == {}


NEMOTRON_H = {"architectures": ["NemotronHForCausalLM"], "hybrid_override_pattern": "M-M*-M-",
              "mamba_num_heads": 32, "mamba_head_dim": 64, "n_groups": 8,
              "ssm_state_size": 128, "conv_kernel": 4, "mamba_d_conv": 3}


def test_nemotron_h_pattern_and_block_types(tmp_path: Path) -> None:
    """The mamba layers from the legacy pattern or `layers_block_type` (which wins, configs/
    nemotron_h.py:195-209); the file's conv_kernel over mamba_d_conv; the chunk size from
    the legacy `chunk_size` key, else 256."""
    assert settings(tmp_path, NEMOTRON_H) == {
        "mamba_state_shape": (3, 2048, 8, 32, 64, 128, 4), "mamba_chunk_size": 256}
    types = {**NEMOTRON_H, "layers_block_type": ["mamba", "moe"] * 5, "chunk_size": 128}
    assert settings(tmp_path, types) == {
        "mamba_state_shape": (5, 2048, 8, 32, 64, 128, 4), "mamba_chunk_size": 128}
    no_kernel = {k: v for k, v in NEMOTRON_H.items() if k != "conv_kernel"}
    assert settings(tmp_path, no_kernel)["mamba_state_shape"][-1] == 3


@pytest.mark.parametrize("change", [{"n_groups": None}, {"hybrid_override_pattern": "*-*-"},
                                    {"hybrid_override_pattern": "MX"}])
def test_nemotron_h_without_a_shape(tmp_path: Path, change: dict[str, Any]) -> None:
    data = {k: v for k, v in {**NEMOTRON_H, **change}.items() if v is not None}
    assert settings(tmp_path, data) == {}


FALCON_H1 = {"architectures": ["FalconH1ForCausalLM"], "hidden_size": 1024,
             "num_hidden_layers": 4, "mamba_d_ssm": 1536, "mamba_n_heads": 24,
             "mamba_d_head": 64, "mamba_n_groups": 1, "mamba_d_state": 128, "mamba_d_conv": 4,
             "mamba_expand": 2, "mamba_ssm_dtype": "bfloat16"}


def test_falcon_h1_every_layer(tmp_path: Path) -> None:
    assert settings(tmp_path, FALCON_H1) == {
        "mamba_state_shape": (4, 1536, 1, 24, 64, 128, 4), "mamba_chunk_size": 256,
        "mamba_ssm_dtype": "bfloat16"}
    auto = {**FALCON_H1, "mamba_d_ssm": None, "mamba_d_head": "auto", "mamba_n_heads": 32}
    assert settings(tmp_path, auto)["mamba_state_shape"] == (4, 2048, 1, 32, 64, 128, 4)


@given(st.integers(1, 4096), st.integers(1, 64), st.sampled_from((None, "auto", 64)))
def test_falcon_h1_heads_tile_the_intermediate(d_ssm: int, heads: int,
                                               head: int | str | None) -> None:
    """A shape only where SGLang's constructor accepts it (falcon_h1.py:215-225): the heads
    times the head dim are the intermediate size."""
    data = {**FALCON_H1, "mamba_d_ssm": d_ssm, "mamba_n_heads": heads, "mamba_d_head": head}
    shape = falcon_h1_shape(data)
    if shape is not None:
        assert shape[1] == d_ssm and shape[3] * shape[4] == d_ssm
    else:
        assert head is None or d_ssm % heads or (head == 64 and heads * 64 != d_ssm)


@pytest.mark.parametrize(("prefix", "flag", "expected"), [
    ((), (), "bfloat16"),  # the config's
    (("SGLANG_MAMBA_SSM_DTYPE=float32",), (), "float32"),  # the variable over the config
    (("SGLANG_MAMBA_SSM_DTYPE=float16",), ("--mamba-ssm-dtype", "float32"), "float32"),
    (("SGLANG_MAMBA_SSM_DTYPE=fp8",), (), "bfloat16"),  # ignored, as SGLang warns and does
])
def test_state_dtype_from_the_line_environment(tmp_path: Path, prefix: tuple[str, ...],
                                               flag: tuple[str, ...], expected: str) -> None:
    """SGLANG_MAMBA_SSM_DTYPE in a pasted line's prefix: over the config's mamba_ssm_dtype,
    under --mamba-ssm-dtype (which writes the variable, serving_hook.py:439-440;
    mamba_utils.py:47-103)."""
    from graphfit.cli.options import resolve_values
    from graphfit.inputs import commandline

    (tmp_path / "config.json").write_text(json.dumps({**FALCON_H1, "max_position_embeddings":
                                                      4096}))
    line = [*prefix, "python", "-m", "sglang.launch_server", "--model-path", str(tmp_path),
            *flag]
    config = resolve_values({"gpu_memory_gb": 80.0}, environ={},
                            pasted=commandline.read(line)).config()
    assert config.mamba_ssm_dtype == expected


def test_layer_maps(tmp_path: Path) -> None:
    """Which layers hold a state, one entry a model layer; their count is the shape's."""
    maps = {}
    for name, data in (("qwen3_next", QWEN3_NEXT), ("granite", GRANITE),
                       ("nemotron_h", NEMOTRON_H), ("falcon_h1", FALCON_H1)):
        found = settings(tmp_path, data, fields=())
        maps[name] = found["mamba_layer_map"]
        assert sum(maps[name]) == found["mamba_state_shape"][0]
    assert maps["qwen3_next"] == (1, 1, 1, 0) * 12
    assert maps["granite"] == (1, 1, 0, 1)
    assert maps["nemotron_h"] == (1, 0, 1, 0, 0, 1, 0)
    assert maps["falcon_h1"] == (1, 1, 1, 1)


@pytest.mark.parametrize(("flag", "refused"), [((), False),
                                               (("--enable-linear-replayssm-spec",), True)])
def test_replayssm_speculative_verify_refused(tmp_path: Path, flag: tuple[str, ...],
                                              refused: bool) -> None:
    """ReplaySSM's verify sizes the state cache without the intermediate states and keeps a
    replay ring (kv_cache_configurator.py:3262-3296): not modelled, so the line is refused
    rather than planned as without it."""
    from graphfit.cli.options import resolve_values
    from graphfit.inputs import commandline
    from graphfit.planner.core.errors import ConfigError

    (tmp_path / "config.json").write_text(json.dumps({**FALCON_H1, "max_position_embeddings":
                                                      4096}))
    line = ["python", "-m", "sglang.launch_server", "--model-path", str(tmp_path), *flag]
    try:
        resolve_values({"gpu_memory_gb": 80.0}, environ={},
                       pasted=commandline.read(line)).config()
        raised = False
    except ConfigError as exc:
        raised = "ReplaySSM" in str(exc)
    assert raised == refused


KIMI_LINEAR = {"architectures": ["KimiLinearForCausalLM"], "num_hidden_layers": 4,
               "mamba_ssm_dtype": "bfloat16",
               "linear_attn_config": {"kda_layers": [1, 2, 4], "full_attn_layers": [3],
                                      "num_heads": 32, "head_dim": 128,
                                      "short_conv_kernel_size": 4}}
LFM2 = {"architectures": ["Lfm2ForCausalLM"], "hidden_size": 1024, "conv_L_cache": 3,
        "layer_types": ["conv", "conv", "full_attention", "short_conv", "full_attention"]}


def test_kimi_linear_kda_state(tmp_path: Path) -> None:
    """1-based KDA layer numbers; the Mamba-2 arithmetic of KimiLinearStateShape; no
    state dtype read from the config (KimiLinearCacheParams takes the environment's)."""
    found = settings(tmp_path, KIMI_LINEAR, fields=())
    assert found == {"mamba_state_shape": (3, 4096, 32, 32, 128, 128, 4),
                     "mamba_layer_map": (1, 1, 0, 1)}


@pytest.mark.parametrize("change", [{"kda_layers": []}, {"kda_layers": None},
                                    {"full_attn_layers": None}, {"num_heads": None},
                                    {"short_conv_kernel_size": 1}])
def test_kimi_linear_without_a_shape(tmp_path: Path, change: dict[str, Any]) -> None:
    attn = {**KIMI_LINEAR["linear_attn_config"], **change}  # type: ignore[dict-item]
    assert settings(tmp_path, {**KIMI_LINEAR, "linear_attn_config": attn}) == {}


@given(heads=st.integers(1, 64), dim=st.integers(1, 256), kernel=st.integers(2, 8),
       tp=st.sampled_from([1, 2, 4, 8]))
def test_kda_state_bytes_are_kimi_linears(heads: int, dim: int, kernel: int, tp: int) -> None:
    """The reader's tuple prices KimiLinearStateShape exactly (mamba_utils.py:323-367):
    conv (K - 1) x 3 H D / tp in bfloat16 + SSM (H / tp) D D, refused on the widths where
    SGLang's divide() asserts."""
    from graphfit.planner.core.errors import ConfigError
    from graphfit.planner.engines.sglang_mamba_memory import MambaStateShape

    attn = {"kda_layers": [1], "full_attn_layers": [], "num_heads": heads,
            "head_dim": dim, "short_conv_kernel_size": kernel}
    shape = kimi_linear_shape({"num_hidden_layers": 1, "linear_attn_config": attn})
    assert shape is not None
    state = MambaStateShape.of(shape)
    if heads * dim % tp or heads % tp:
        with pytest.raises(ConfigError):
            state.bytes_per_request(tp, "float32")
        return
    conv = (kernel - 1) * (heads * dim // tp + 2 * (heads * dim // tp))
    assert state.bytes_per_request(tp, "float32") == conv * 2 + heads // tp * dim * dim * 4


def test_lfm2_conv_only_state(tmp_path: Path) -> None:
    """conv / short_conv layers, a conv state only (state size 0), chunk size 1."""
    found = settings(tmp_path, LFM2, fields=())
    assert found == {"mamba_state_shape": (3, 1024, 1, 1, 1024, 0, 3),
                     "mamba_layer_map": (1, 1, 0, 1, 0), "mamba_chunk_size": 1}
    moe = settings(tmp_path, {**LFM2, "architectures": ["Lfm2MoeForCausalLM"]})
    assert moe["mamba_state_shape"] == found["mamba_state_shape"]
    for change in ({"layer_types": ["full_attention"]}, {"conv_L_cache": None},
                   {"layer_types": None}):
        assert settings(tmp_path, {**LFM2, **change}) == {}


@given(hidden=st.integers(1, 8192), kernel=st.integers(2, 8), layers=st.integers(1, 40),
       tp=st.sampled_from([1, 2, 4, 8]))
def test_lfm2_state_bytes(hidden: int, kernel: int, layers: int, tp: int) -> None:
    """(hidden / tp) x (L - 1) bfloat16 a conv layer whatever the SSM dtype; SGLang passes
    num_heads = tp, so only the hidden size must divide (lfm2.py:84-91)."""
    from graphfit.planner.core.errors import ConfigError
    from graphfit.planner.engines.sglang_mamba_memory import MambaStateShape

    state = MambaStateShape.of((layers, hidden, 1, 1, hidden, 0, kernel))
    if hidden % tp:
        with pytest.raises(ConfigError):
            state.bytes_per_request(tp, "float32")
        return
    for dtype in ("float32", "bfloat16"):
        assert state.bytes_per_request(tp, dtype) == hidden // tp * (kernel - 1) * 2 * layers


def test_kimi_k3_reads_its_text_config(tmp_path: Path) -> None:
    """Kimi-K3: Kimi-Linear's config under `text_config` (configs/kimi_k3.py:92-97); the
    same state, the same 1-based layers."""
    text = {k: v for k, v in KIMI_LINEAR.items() if k != "architectures"}
    k3 = {"architectures": ["KimiK3ForConditionalGeneration"], "text_config": text,
          "vision_config": {}}
    assert settings(tmp_path, k3, fields=()) == settings(tmp_path, KIMI_LINEAR, fields=())
    assert settings(tmp_path, {**k3, "text_config": None}) == {}


GLM5 = {"architectures": ["Glm5NextForConditionalGeneration"],
        "text_config": {"num_hidden_layers": 5, "linear_num_heads": 16,
                        "linear_head_dim": 64, "linear_conv_kernel_dim": 4,
                        "layer_types": ["linear_attention", "full_attention",
                                        "linear_attention", "linear_attention",
                                        "full_attention"]}}


def test_glm5_next_layer_types_form(tmp_path: Path) -> None:
    """The `layer_types` + `linear_num_heads` form (configs/glm5_next.py:198-225): KDA where
    the type is linear_attention, KimiLinearStateShape of linear_num_heads x
    linear_head_dim, kernel linear_conv_kernel_dim."""
    assert settings(tmp_path, GLM5, fields=()) == {
        "mamba_state_shape": (3, 1024, 16, 16, 64, 64, 4), "mamba_layer_map": (1, 0, 1, 1, 0)}


def test_glm5_next_linear_attn_config_is_zero_based(tmp_path: Path) -> None:
    """A stated `linear_attn_config` wins over layer_types and its kda_layers are 0-based
    layer indices (`layer_idx in kda_layers`, glm5_next.py:243-247), unlike Kimi-Linear's;
    a top-level key is copied into the text config unless the text config has its own
    (:305-316)."""
    attn = {"kda_layers": [0, 4], "full_attn_layers": [1, 2, 3], "num_heads": 8,
            "head_dim": 32, "short_conv_kernel_size": 3}
    found = settings(tmp_path, {**GLM5, "linear_attn_config": attn}, fields=())
    assert found == {"mamba_state_shape": (2, 256, 8, 8, 32, 32, 3),
                     "mamba_layer_map": (1, 0, 0, 0, 1)}
    text = {k: v for k, v in GLM5["text_config"].items() if k != "linear_num_heads"}
    top = {**GLM5, "text_config": text, "linear_num_heads": 4}  # type: ignore[dict-item]
    assert settings(tmp_path, top)["mamba_state_shape"] == (3, 256, 4, 4, 64, 64, 4)


@pytest.mark.parametrize("change", [{"layer_types": None}, {"linear_head_dim": None},
                                    {"layer_types": ["full_attention"] * 5},
                                    {"linear_conv_kernel_dim": 1}])
def test_glm5_next_without_a_shape(tmp_path: Path, change: dict[str, Any]) -> None:
    """A key left out (the class defaults, e.g. every fourth layer full, are not restated)
    or no KDA layer: no shape."""
    text = {k: v for k, v in {**GLM5["text_config"], **change}.items()  # type: ignore[dict-item]
            if v is not None}
    assert settings(tmp_path, {**GLM5, "text_config": text}) == {}


JET = {"architectures": ["JetNemotronForCausalLM"], "num_hidden_layers": 3,
       "layer_types": ["jet", "attn", "jet"], "mamba_ssm_dtype": "bfloat16",
       "efficient_attention_config": {"jet": {
           "mode": "chunk", "expand_v": 2.0, "num_heads": 4, "head_dim": 32,
           "norm_eps": 1e-5, "conv_size": 4, "dconv_generator_reduction": 8,
           "dconv_implementation": "triton"}}}


def test_jet_nemotron_jet_block_state(tmp_path: Path) -> None:
    """The "jet" layers; values expand_v x the key dim (configs/jet_nemotron.py:58-80); the
    config's state dtype read (mamba2_state_dtype(self))."""
    assert settings(tmp_path, JET, fields=()) == {
        "mamba_state_shape": (2, 256, 4, 4, 64, 32, 4), "mamba_layer_map": (1, 0, 1),
        "mamba_ssm_dtype": "bfloat16"}


@pytest.mark.parametrize("change", [{"num_hidden_layers": 4}, {"layer_types": ["attn"] * 3},
                                    {"jet": {"num_heads": 4}}, {"jet": None}])
def test_jet_nemotron_without_a_shape(tmp_path: Path, change: dict[str, Any]) -> None:
    """A JetBlockConfig field left out (no defaults, jet_nemotron.py:14-23), a layer count
    that is not layer_types', or no jet layer: no shape."""
    data = {**JET, **{k: v for k, v in change.items() if k != "jet"}}
    if "jet" in change:
        data["efficient_attention_config"] = {"jet": change["jet"]}
    assert settings(tmp_path, data) == {}
