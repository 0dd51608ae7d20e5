"""A MiniMax-M3 target SGLang cannot build (graphfit.inputs.sglang_minimax_target): the
per_layer QK norm at attention TP > 1 and an unknown qk_norm_type are refused with one `error:`
line (exit 2) on a pasted line, through SGLang's `--config`, graphfit's own `--config` file
and `from_sglang`; attention DP that leaves attention TP 1 plans. The other constructor
checks (heads vs attention TP, sparse layers, a dense MLP's activation) refuse on a pasted
line, the first failing layer deciding. (SGLang's own class decides
the same lines in tests/oracle/test_sglang_minimax_target_oracle.py.)"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from graphfit.integrations.sglang import from_sglang
from graphfit.planner.core.errors import ConfigError
from tests.helpers import run_cli

TEXT = {"model_type": "minimax_m2", "hidden_size": 1024, "num_attention_heads": 8,
        "num_key_value_heads": 4, "num_hidden_layers": 2, "vocab_size": 1024,
        "max_position_embeddings": 4096, "rms_norm_eps": 1e-5, "hidden_act": "silu",
        "intermediate_size": 1024, "use_gemma_norm": False, "torch_dtype": "bfloat16",
        # what a MoE layer reads without a class default (models/minimax_m3.py:423-447)
        "num_local_experts": 8, "num_experts_per_tok": 2, "swiglu_alpha": 1.702,
        "swiglu_limit": 7.0, "scoring_func": "sigmoid", "dense_intermediate_size": 1024,
        # no sparse layer, but a sparse config: the server's KV pool asks for one (s53m,
        # configs/model_config.py:446-456)
        "sparse_attention_config": {"sparse_attention_freq": [0, 0],
                                    "sparse_num_index_heads": 4, "sparse_index_dim": 64}}


# every key SGLang's CLIPVisionConfig requires (models/minimax_vl_common.py:40-64)
TOWER = {"model_type": "clip_vision_model", "hidden_size": 128, "intermediate_size": 128,
         "num_hidden_layers": 1, "num_attention_heads": 8, "num_channels": 3,
         "image_size": 28, "patch_size": 14, "hidden_act": "gelu", "layer_norm_eps": 1e-5,
         "position_embedding_type": "rope", "rope_mode": "3d", "rope_theta": 10000.0,
         "vision_segment_max_frames": None,
         "img_token_compression_config": {"temporal_patch_size": 2, "spatial_merge_size": 2}}


def _model(root: Path, nested: bool = False, vision: dict[str, object] | None = None,
           **fields: object) -> str:
    text = {k: v for k, v in {**TEXT, **fields}.items() if v is not None}  # None removes
    config = ({"architectures": ["MiniMaxM3SparseForConditionalGeneration"],
               "model_type": "minimax_m3_vl", "text_config": text,
               "vision_config": {**TOWER, **(vision or {})}}
              if nested else {"architectures": ["MiniMaxM3SparseForCausalLM"], **text})
    (root / "config.json").write_text(json.dumps(config))
    return str(root)


def _plan(*flags: str) -> tuple[int, str]:
    code, _, err = run_cli(["plan", "--gpu-memory-gb", "80", "--", "python", "-m",
                            "sglang.launch_server", *flags])
    errors = [ln for ln in err.splitlines() if ln.startswith("error:")]
    assert len(errors) <= 1 and all(len(e) <= 200 for e in errors), err
    return code, (errors[0] if errors else "")


@pytest.mark.parametrize("nested", [False, True])
@pytest.mark.parametrize(("flags", "refused"), [
    (("--tp-size", "2"), True), (("--tp-size", "4", "--attn-dp-size", "2"), True),
    (("--tp-size", "2", "--attn-dp-size", "2"), False), (("--tp-size", "1"), False),
    (("--tp-size", "4", "--dp-size", "4", "--enable-dp-attention"), False)])
def test_per_layer_norm_at_attention_tp(tmp_path: Path, nested: bool, flags: tuple[str, ...],
                                        refused: bool) -> None:
    code, said = _plan("--model-path", _model(tmp_path, nested), *flags)
    if refused:
        assert code == 2 and "minimax_m3.py:858-865" in said and "TypeError" in said, said
    else:
        assert code == 0, said


def test_other_norms_and_overrides(tmp_path: Path) -> None:
    for norm in ("per_head", "multi_head"):
        code, said = _plan("--model-path", _model(tmp_path, qk_norm_type=norm), "--tp-size", "2")
        assert code == 0, said
    code, said = _plan("--model-path", _model(tmp_path, qk_norm_type="rms"))
    assert code == 2 and "minimax_m3.py:909" in said and "ValueError" in said, said
    # --json-model-override-args reaches the target's config as SGLang's get_config applies it
    path = _model(tmp_path)
    code, said = _plan("--model-path", path, "--tp-size", "2", "--json-model-override-args",
                       '{"qk_norm_type": "per_head"}')
    assert code == 0, said
    code, said = _plan("--model-path", _model(tmp_path, qk_norm_type="per_head"), "--tp-size",
                       "2", "--json-model-override-args", '{"qk_norm_type": "per_layer"}')
    assert code == 2 and "858-865" in said, said


def test_encoder_only_vl_builds_no_text_model(tmp_path: Path) -> None:
    """minimax_m3_vl.py:129-135: `--encoder-only` builds no MiniMaxM3Model."""
    path = _model(tmp_path, nested=True)
    from graphfit.inputs.sglang_minimax_target import line

    line({"model_path": path, "tp_size": 2, "encoder_only": True})
    with pytest.raises(ConfigError, match="858-865"):
        line({"model_path": path, "tp_size": 2})


def test_config_files_and_from_sglang(tmp_path: Path) -> None:
    path = _model(tmp_path)
    sglang_yaml = tmp_path / "sglang.yaml"
    sglang_yaml.write_text(f"model-path: {path}\ntp-size: 2\n")
    code, said = _plan("--config", str(sglang_yaml))
    assert code == 2 and "858-865" in said, said
    code, _, err = run_cli(["plan", "--engine", "sglang", "--config", str(sglang_yaml)])
    assert code == 2 and "858-865" in err and err.count("error:") == 1, err
    ok = tmp_path / "ok.yaml"
    ok.write_text(f"model-path: {path}\ntp-size: 2\nattn-dp-size: 2\n")
    code, _, err = run_cli(["plan", "--engine", "sglang", "--config", str(ok)])
    assert code == 0, err
    with pytest.raises(ConfigError, match="858-865"):
        from_sglang(SimpleNamespace(model_path=path, tp_size=4, attn_dp_size=2))
    assert from_sglang(SimpleNamespace(model_path=path, tp_size=4, attn_dp_size=4),
                       max_num_seqs=16) is not None


_SPARSE = {"sparse_attention_freq": [0, 1], "sparse_num_index_heads": 4, "sparse_index_dim": 64}


@pytest.mark.parametrize("nested", [False, True])
@pytest.mark.parametrize(("fields", "tp", "site"), [
    ({"num_attention_heads": 6, "head_dim": 128}, "4", "AssertionError, models/minimax_m3.py:750"),
    ({"num_key_value_heads": 3}, "2", "AssertionError, models/minimax_m3.py:756-761"),
    ({"sparse_attention_config": _SPARSE, "qk_norm_type": "per_layer"}, "1", "779-783"),
    ({"sparse_attention_config": {**_SPARSE, "sparse_num_index_heads": 3}}, "2", "789-792"),
    ({"sparse_attention_config": {"sparse_num_index_heads": 4}}, "1", "KeyError"),
    ({"moe_layer_freq": [0, 0], "hidden_act": "gelu"}, "1", "ValueError, models/minimax_m3.py:351"),
    ({"moe_layer_freq": [0, 0], "hidden_act": "swigluoai", "swiglu_limit": None}, "1",
     "AttributeError, models/minimax_m3.py:338"),
    ({"sparse_attention_config": _SPARSE}, "8", None),
    ({"moe_layer_freq": [1, 1], "hidden_act": "gelu"}, "1", None),
    ({"moe_layer_freq": [0, 0], "hidden_act": "swigluoai", "swiglu_alpha": 1.7,
      "swiglu_limit": 7.0}, "1", None)])
def test_constructor_checks(tmp_path: Path, nested: bool, fields: dict[str, object], tp: str,
                            site: str | None) -> None:
    """Heads vs attention TP, a sparse layer's norm / keys / index heads, a dense MLP's
    activation: refused with SGLang's exception and site, or planned (per_head unless set)."""
    model = _model(tmp_path, nested, **{"qk_norm_type": "per_head", **fields})
    code, said = _plan("--model-path", model, "--tp-size", tp)
    if site is None:
        assert code == 0, said
    else:
        assert code == 2 and site in said and "SGLang cannot build" in said, said


def test_first_failing_layer_decides() -> None:
    """Layers in SGLang's order, attention before MLP: a dense first layer's activation
    error comes before the second (sparse) layer's norm assertion, and a sparse first
    layer's assertion before its own MLP's activation."""
    from graphfit.inputs.sglang_minimax_target import problem

    base = {"architectures": ["MiniMaxM3SparseForCausalLM"], "num_hidden_layers": 2,
            "num_attention_heads": 8, "num_key_value_heads": 4, "hidden_act": "gelu",
            "moe_layer_freq": [0, 0], "dense_intermediate_size": 1024}
    first = problem({**base, "sparse_attention_config": _SPARSE}, 1)
    assert first is not None and "Unsupported activation" in first
    second = problem({**base, "sparse_attention_config": {**_SPARSE,
                                                          "sparse_attention_freq": [1, 0]}}, 1)
    assert second is not None and "779-783" in second


def _dir(root: Path, name: str) -> Path:
    (root / name).mkdir()
    return root / name


@pytest.mark.parametrize("nested", [False, True])
def test_moe_layer_checks(tmp_path: Path, nested: bool) -> None:
    """The MoE side (graphfit.inputs.sglang_minimax_moe) on each way in: the TP size against
    the experts, the routed experts over --ep-size, the loader's one-shared-expert fusion
    (off with --disable-shared-experts-fusion or EP), a key a nested text config lacks.
    (SGLang's own classes decide the same in tests/oracle/test_sglang_minimax_target_oracle.py.)"""
    per_head = {"qk_norm_type": "per_head", "moe_layer_freq": [1, 1]}
    few = _model(_dir(tmp_path, "few"), nested,
                 **per_head, num_local_experts=2)
    code, said = _plan("--model-path", few, "--tp-size", "4")
    assert code == 2 and "ValueError, models/minimax_m3.py:405-409" in said, said
    odd = _model(_dir(tmp_path, "odd"), nested,
                 **per_head, num_local_experts=6)
    code, said = _plan("--model-path", odd, "--tp-size", "4", "--ep-size", "4")
    assert code == 2 and "fused_moe_triton/layer.py:414" in said, said
    assert _plan("--model-path", odd, "--tp-size", "4", "--ep-size", "2")[0] == 0
    yaml = tmp_path / "ep.yaml"
    yaml.write_text(f"model-path: {odd}\ntp-size: 4\nep-size: 4\n")
    code, _, err = run_cli(["plan", "--engine", "sglang", "--config", str(yaml)])
    assert code == 2 and "layer.py:414" in err and err.count("error:") == 1, err
    with pytest.raises(ConfigError, match=r"layer\.py:414"):
        from_sglang(SimpleNamespace(model_path=odd, tp_size=4, ep_size=4))
    two = _model(_dir(tmp_path, "two"), nested,
                 **per_head, n_shared_experts=2)
    code, said = _plan("--model-path", two)
    site = "minimax_m3_vl.py:202-203" if nested else "minimax_m3.py:2051-2053"
    assert code == 2 and site in said and "Only 1 fused shared expert" in said, said
    for flags in (("--disable-shared-experts-fusion",), ("--tp-size", "2", "--ep-size", "2")):
        assert _plan("--model-path", two, *flags)[0] == 0
    bare = _model(_dir(tmp_path, "bare"),
                  nested, **per_head, scoring_func=None)
    code, said = _plan("--model-path", bare)
    assert code == 2 and "AttributeError, models/minimax_m3.py:447" in said, said


def test_vision_tower_checks(tmp_path: Path) -> None:
    """The VL wrapper's CLIP tower (graphfit.inputs.sglang_minimax_vision), built before the
    text model and under --encoder-only too: a key CLIPVisionConfig lacks, heads over the
    attention TP (whole with --mm-enable-dp-encoder), a live check and a config file.
    (SGLang's own wrapper decides the same in tests/oracle/test_sglang_minimax_target_oracle.py.)"""
    bare = _model(_dir(tmp_path, "bare"), True, {"rope_mode": None}, qk_norm_type="per_head")
    import json as _json
    data = _json.loads((Path(bare) / "config.json").read_text())
    del data["vision_config"]["rope_mode"]
    (Path(bare) / "config.json").write_text(_json.dumps(data))
    code, said = _plan("--model-path", bare, "--encoder-only")
    assert code == 2 and "TypeError, models/minimax_vl_common.py:64" in said, said
    odd = _model(_dir(tmp_path, "odd"), True, {"num_attention_heads": 3, "hidden_size": 96},
                 qk_norm_type="per_head")
    code, said = _plan("--model-path", odd, "--tp-size", "2")
    assert code == 2 and "layers/attention/vision.py:1132-1134" in said, said
    assert _plan("--model-path", odd, "--tp-size", "2", "--mm-enable-dp-encoder")[0] == 0
    with pytest.raises(ConfigError, match=r"vision\.py:1132"):
        from_sglang(SimpleNamespace(model_path=odd, tp_size=2))
    yaml = tmp_path / "vl.yaml"
    yaml.write_text(f"model-path: {odd}\ntp-size: 2\n")
    code, _, err = run_cli(["plan", "--engine", "sglang", "--config", str(yaml)])
    assert code == 2 and "vision.py:1132-1134" in err and err.count("error:") == 1, err


@pytest.mark.parametrize("nested", [False, True])
def test_attention_tp_below_one_is_one_error_line(tmp_path: Path, nested: bool) -> None:
    """tp below attn_dp x attn_cp (SGLang asserts, runtime_context.py:73-76) on a local
    model: one `error:` line and exit 2, never a traceback from the tower's sizes."""
    model = _model(tmp_path, nested)
    code, error = _plan("--model-path", model, "--tp-size", "1", "--attn-cp-size", "2",
                        "--moe-dp-size", "4")
    assert code == 2 and error.startswith("error:"), error
