"""DeepSeek-V4.1's config.json, with and without `--json-model-override-args`, vs SGLang 0.5.23.

SGLang's `DeepseekV41Config` flattens the written config (configs/deepseek_v41.py:23-40,
63-66) and `get_config` flattens the override object the same way before applying it
(utils/hf_transformers/config.py:405-407); graphfit's loaders do both
(graphfit.inputs.deepseek_v41 via graphfit.inputs.target_overrides.on_load). SGLang side: its
own `get_config` on a generated model directory (the hf_config every ModelConfig reader sees,
configs/model_config.py:612-626). graphfit side: `read_model` (the model facts) and
`load_config` (the flat `vision_*` keys) on the same file with the same override text.
"""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit.inputs import deepseek_v41, model_config, target_overrides
from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_stubs as ss

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")

FACTS = ("hidden_size", "vocab_size", "num_hidden_layers", "max_position_embeddings")
VISION = ("num_hidden_layers", "hidden_size", "patch_size", "num_attention_heads")
# DeepseekV41Config's class attributes among the flat vision keys (configs/deepseek_v41.py:47)
CLASS_DEFAULTS = {"vision_n_layers": 0}


def _draw(rng: random.Random) -> tuple[dict[str, Any], dict[str, Any]]:
    """(config.json object, override object): each fact written at the top level, in
    text_config, both (different values) or neither (DeepseekV3Config's default); a
    vision_config with some keys and some flat `vision_*` keys already written; overrides at
    the top level, nested or both."""
    model_type = rng.choice(("deepseek_v41", "deepseek_v41_text"))
    config: dict[str, Any] = {"model_type": model_type, "architectures": [rng.choice(
        ("DeepseekV41ForCausalLM", "DeepseekV4ForCausalLM", "DeepseekV3ForCausalLM"))]}
    text: dict[str, Any] = {"model_type": "deepseek_v41_text"}
    for key in FACTS:
        where = rng.choice(("top", "text", "both", "none"))
        if where in ("top", "both"):
            config[key] = rng.choice((512, 1024, 4096))
        if where in ("text", "both"):
            text[key] = rng.choice((256, 2048, 8192))
    config["text_config"] = text
    if rng.random() < 0.8:
        config["vision_config"] = {k: rng.choice((2, 14, 64)) for k in VISION
                                   if rng.random() < 0.7}
        if rng.random() < 0.4:
            config["vision_dim"] = 99  # written flat: kept over vision_config.hidden_size
    overrides: dict[str, Any] = {}
    for _ in range(rng.randint(0, 3)):
        kind = rng.choice(("top", "text", "vision", "arch"))
        key = rng.choice(FACTS)
        if kind == "top":
            overrides[key] = rng.choice((128, 3072))
        elif kind == "text":
            overrides.setdefault("text_config", {})[key] = rng.choice((64, 6144))
        elif kind == "vision":
            overrides.setdefault("vision_config", {})[rng.choice(VISION)] = rng.choice((3, 7))
        else:
            overrides["architectures"] = [rng.choice(("DeepseekV41ForCausalLM",
                                                      "DeepseekV4ForCausalLM"))]
    return config, overrides


def _sglang(directory: Path, overrides: dict[str, Any]) -> dict[str, Any]:
    so.oracle()
    with ss.fake_cuda():
        from sglang.srt.utils.hf_transformers.config import get_config

        hf = get_config(str(directory), trust_remote_code=False,
                        model_override_args=overrides)
    out = {"architecture": (hf.architectures or [None])[0], "model_type": hf.model_type}
    out.update({k: getattr(hf, k, None) for k in FACTS})
    out.update({v: getattr(hf, v, None) for v in deepseek_v41.VISION_FIELDS.values()})
    out["vision_config"] = getattr(hf, "vision_config", None) is not None
    return out


def _graphfit(directory: Path, overrides: dict[str, Any]) -> dict[str, Any]:
    path = directory / "config.json"
    with target_overrides.applied(path, json.dumps(overrides)):
        info = model_config.read_model(path)
        data = model_config.load_config(path)
    out = {"architecture": info.architecture, "model_type": data.get("model_type"),
           "hidden_size": info.hidden_size, "vocab_size": info.vocab_size,
           "num_hidden_layers": info.num_hidden_layers,
           "max_position_embeddings": info.max_position_embeddings}
    out.update({v: data.get(v, CLASS_DEFAULTS.get(v))
                for v in deepseek_v41.VISION_FIELDS.values()})
    out["vision_config"] = "vision_config" in data
    return out


def _compare(config: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="graphfit-v41-") as root:
        directory = Path(root)
        (directory / "config.json").write_text(json.dumps(config))
        sg, gf = _sglang(directory, overrides), _graphfit(directory, overrides)
    return {k: (sg[k], gf[k]) for k in sg if sg[k] != gf[k]}


EDGES: tuple[tuple[dict[str, Any], dict[str, Any]], ...] = (
    # no fact written anywhere: DeepseekV3Config's defaults (hidden 7168, vocab 129280,
    # 61 layers, 4096 positions), an override setting one of them
    ({"model_type": "deepseek_v41", "architectures": ["DeepseekV41ForCausalLM"],
      "text_config": {"model_type": "deepseek_v41_text"}}, {}),
    ({"model_type": "deepseek_v41_text"}, {"text_config": {"hidden_size": 2048}}),
    # top-level length over the nested one; V4.1 architecture renamed; vision keys renamed
    ({"model_type": "deepseek_v41", "architectures": ["DeepseekV41ForCausalLM"],
      "max_position_embeddings": 4096,
      "text_config": {"hidden_size": 1024, "vocab_size": 5000, "num_hidden_layers": 4,
                      "max_position_embeddings": 8192},
      "vision_config": {"num_hidden_layers": 3, "hidden_size": 256}}, {}),
    # a nested override sets the flat key, a vision override the flat vision name
    ({"model_type": "deepseek_v41", "architectures": ["DeepseekV41ForCausalLM"],
      "text_config": {"hidden_size": 1024, "vocab_size": 5000, "num_hidden_layers": 4,
                      "max_position_embeddings": 8192}},
     {"text_config": {"hidden_size": 2048}, "vision_config": {"hidden_size": 77},
      "architectures": ["DeepseekV41ForCausalLM"]}),
    # the text model type, a top-level override beside a nested one (the top level wins)
    ({"model_type": "deepseek_v41_text", "hidden_size": 512, "vocab_size": 5000,
      "num_hidden_layers": 2, "max_position_embeddings": 2048},
     {"text_config": {"vocab_size": 64}, "vocab_size": 128}),
)


@pytest.mark.parametrize(("config", "overrides"), EDGES)
def test_v41_edges_read_as_sglang(config: dict[str, Any], overrides: dict[str, Any]) -> None:
    """Each edge differs when either flattening is skipped (planted below)."""
    assert _compare(config, overrides) == {}


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_generated_v41_configs_read_as_sglang(seed: int) -> None:
    """Generated V4.1 configs and override objects: architecture, model type, the four
    model facts and the ten flat vision keys equal SGLang's hf_config."""
    config, overrides = _draw(random.Random(seed))
    assert _compare(config, overrides) == {}, (config, overrides)


def test_skipping_either_flattening_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted errors: the written config read as written, then the override object applied
    as written: each makes an edge differ."""
    real = deepseek_v41.normalize
    monkeypatch.setattr(deepseek_v41, "normalize",
                        lambda values, origin: dict(values) if "(--json" not in origin
                        else real(values, origin))
    assert _compare(*EDGES[0])
    monkeypatch.setattr(deepseek_v41, "normalize",
                        lambda values, origin: dict(values) if "(--json" in origin
                        else real(values, origin))
    assert _compare(*EDGES[1])


def test_a_v41_text_config_that_is_not_an_object_is_one_error_line(tmp_path: Path) -> None:
    """A non-object text_config: SGLang's `dict(...)` of a string fails at load; graphfit
    refuses with one error line naming the key."""
    from tests.helpers import run_cli

    (tmp_path / "config.json").write_text(json.dumps(
        {"model_type": "deepseek_v41", "architectures": ["DeepseekV41ForCausalLM"],
         "text_config": "x"}))
    with pytest.raises(Exception):  # noqa: B017 - SGLang's own failure, any type
        _sglang(tmp_path, {})
    code, _, text = run_cli(["plan", "--json", "--", "python", "-m", "sglang.launch_server",
                             "--model-path", str(tmp_path)])
    errors = [ln for ln in text.splitlines() if ln.startswith("error:")]
    assert code == 2 and len(errors) == 1 and "text_config" in errors[0], text
    assert len(errors[0]) <= 200 and "Traceback" not in text
