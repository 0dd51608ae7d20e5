"""SGLang's own multimodal classes whose text config is `llm_config` / `language_config`
(InternVL, Janus, DeepSeek-VL2, Bailing-MM), is built from the top level (Dots-VLM), or
is MiniMax-M3-VL's `text_config` dict as a plain PretrainedConfig,
against SGLang 0.5.23's own ModelConfig (issue 23, s41c): graphfit.inputs.sglang_sub_configs.
get_hf_text_config returns that sub-config (utils/hf_transformers/common.py:547-612) and
get_context_length reads its keys, its class defaults and its RoPE dict (:668-700). Runs with
SGLang's sources (tests/oracle/paths.require)."""

from __future__ import annotations

import itertools
import json
import random
import tempfile
from pathlib import Path
from typing import Any

import pytest

from graphfit.inputs.sglang_sub_configs import (
    INTERNVL_CLASSES,
    MINIMAX_M3_VL,
    SUB_CONFIGS,
    TOP_LEVEL,
)
from tests.oracle import sglang_context_length_oracle as t
from tests.oracle.paths import require

require("sglang")

_ROOT = tempfile.mkdtemp(prefix="graphfit-sub-configs-test-")
_TEXT = ("hidden_size", "intermediate_size", "num_attention_heads", "num_key_value_heads",
         "num_hidden_layers", "vocab_size", "rms_norm_eps", "rope_theta", "hidden_act")


def _rope(kind: str, rng: random.Random) -> dict[str, Any]:
    rope: dict[str, Any] = {"rope_type": kind, "factor": 2.0}
    if kind == "llama3":
        rope.update(low_freq_factor=1.0, high_freq_factor=4.0)
    if kind == "longrope":
        rope.update(short_factor=[1.0] * 64, long_factor=[2.0] * 64)
    if rng.random() < 0.5:
        rope["original_max_position_embeddings"] = 4096
    return rope


def _model(config: dict[str, Any]) -> str:
    directory = Path(tempfile.mkdtemp(dir=_ROOT))
    (directory / "config.json").write_text(json.dumps(config))
    return str(directory)


CLASSES = [*sorted(SUB_CONFIGS), *sorted(TOP_LEVEL), MINIMAX_M3_VL]


@pytest.mark.parametrize("model_type", CLASSES)
def test_sub_config_length_is_sglangs(model_type: str) -> None:
    """The text keys nested (or top-level), a RoPE dict of each type under either name in
    the sub-config or at the top, with or without a length key: SGLang's context length is
    graphfit's, both refuse, or graphfit asks where it does not restate the class."""
    rng = random.Random(model_type)
    name = (SUB_CONFIGS[model_type][0] if model_type in SUB_CONFIGS else
            "text_config" if model_type == MINIMAX_M3_VL else None)
    for kind, key, nested in itertools.product(
            ("linear", "yarn", "llama3", "longrope", "default"),
            ("rope_scaling", "rope_parameters"), (True, False)):
        config = dict(t.BASE, model_type=model_type)
        if rng.random() < 0.5:
            config["max_position_embeddings"] = 8192
        config[key] = _rope(kind, rng)
        if nested and name is not None:
            config[name] = {k: config.pop(k) for k in list(config)
                            if k in _TEXT or k in (key, "max_position_embeddings")}
            if model_type == "internvl_chat":
                config[name]["architectures"] = [rng.choice(sorted(INTERNVL_CLASSES))]
        verdict = t.verdict(_model(config), (), {})
        assert verdict in ("agree", "refused", "asked"), (config, verdict)


def test_no_sub_config_written_takes_the_class_default() -> None:
    """No sub-config and no length key: the sub-config class's default (SGLang's own), not
    graphfit's; InternVL's by llm_config's architecture, an unsupported one refused."""
    for model_type in CLASSES:
        model = _model(dict(t.BASE, model_type=model_type))
        sg = t.sglang_length(model, (), {})
        assert isinstance(sg, int) and sg == t.graphfit_length(model, (), {}), model_type
        assert t.graphfit_asks(model, (), {}) is None
    base = {k: v for k, v in t.BASE.items() if k not in _TEXT}
    for architecture in (*INTERNVL_CLASSES, "MistralForCausalLM", None):
        sub = {k: t.BASE[k] for k in _TEXT}
        if architecture is not None:
            sub["architectures"] = [architecture]
        model = _model(dict(base, model_type="internvl_chat", llm_config=sub))
        assert t.verdict(model, (), {}) in ("agree", "refused"), architecture


def test_internlm2_rope_parameters_is_sglangs() -> None:
    """InternVL's InternLM2 llm_config with a yarn / llama3 / longrope rope_parameters, with
    or without the keys transformers' checks need: kept as written and checked
    (internvl.py:80-131 names rope_scaling only), so SGLang's length or refusal is
    graphfit's."""
    rng = random.Random("internlm2")
    verdicts = []
    for kind in ("yarn", "llama3", "longrope") * 3:
        config = dict(t.BASE, model_type="internvl_chat")
        config["llm_config"] = {k: config.pop(k) for k in list(config) if k in _TEXT}
        config["llm_config"]["architectures"] = ["InternLM2ForCausalLM"]
        rope = _rope(kind, rng)
        if rng.random() < 0.5:
            rope["rope_theta"] = 1000000.0
        config["llm_config"]["rope_parameters"] = rope
        verdict = t.verdict(_model(config), (), {})
        assert verdict in ("agree", "refused"), (config, verdict)
        verdicts.append(verdict)
    assert "refused" in verdicts and "agree" in verdicts


def test_nested_override_is_sglangs() -> None:
    """Override args naming the built sub-config (`{"llm_config": {...}}`) are set on it
    after the build (utils/hf_transformers/config.py:411-414, a setattr per key): its
    build-time checks saw the written dict, a rope_parameters is set as given and a
    rope_scaling standardized. SGLang's length or refusal is graphfit's."""
    rng = random.Random("nested-override")
    for model_type in ("internvl_chat", "bailingmm_moe_v2_lite", "deepseek_vl_v2",
                       "multi_modality"):
        name = SUB_CONFIGS[model_type][0]
        for _ in range(4):
            config = dict(t.BASE, model_type=model_type)
            config[name] = {k: config.pop(k) for k in list(config) if k in _TEXT}
            if model_type == "internvl_chat":
                config[name]["architectures"] = [rng.choice(sorted(INTERNVL_CLASSES))]
            config[name]["max_position_embeddings"] = 8192  # kept unless overridden
            kind = rng.choice(("linear", "yarn", "llama3", "default"))
            rope = _rope(kind, rng)
            if kind == "llama3":
                rope["rope_theta"] = 1000000.0
            if rng.random() < 0.5:
                rope["type"] = rope.pop("rope_type")
            over: dict[str, Any] = {rng.choice(("rope_scaling", "rope_parameters")): rope}
            if rng.random() < 0.4:
                over = {"max_position_embeddings": 16384, **over}
            argv = ("--json-model-override-args", json.dumps({name: over}))
            verdict = t.verdict(_model(config), argv, {})
            assert verdict in ("agree", "refused"), (config, argv, verdict)


def test_minimax_m3_vl_text_config_override_replaces_it() -> None:
    """MiniMax-M3-VL's loaded text_config is a plain dict, so a `{"text_config": {...}}`
    override replaces it whole (utils/hf_transformers/config.py:411-424): without
    num_attention_heads get_hf_text_config's assert fails (common.py:605), with it the
    length comes from the new dict alone. SGLang's length or refusal is graphfit's."""
    rng = random.Random("minimax-nested")
    verdicts = []
    for _ in range(6):
        config = dict(t.BASE, model_type=MINIMAX_M3_VL)
        config["text_config"] = {k: config.pop(k) for k in list(config) if k in _TEXT}
        config["text_config"]["max_position_embeddings"] = 8192
        over: dict[str, Any] = {rng.choice(("rope_scaling", "rope_parameters")):
                                _rope(rng.choice(("linear", "default")), rng)}
        if rng.random() < 0.6:  # a whole text config (one without hidden_size & co. fails
            over.update({k: v for k, v in t.BASE.items() if k in _TEXT})  # elsewhere too)
        if rng.random() < 0.5:
            over["max_position_embeddings"] = 16384
        argv = ("--json-model-override-args", json.dumps({"text_config": over}))
        verdict = t.verdict(_model(config), argv, {})
        assert verdict in ("agree", "refused"), (config, argv, verdict)
        verdicts.append(verdict)
    assert "agree" in verdicts


def test_minimax_m3_vl_text_config_missing_keys() -> None:
    """(s44n) A MiniMax-M3-VL text config with num_attention_heads but without a key
    ModelConfig reads without a default (hidden_size, num_hidden_layers, vocab_size,
    configs/model_config.py:1347 / 1566, 1581, 1605), written in config.json or given by a
    replacing `{"text_config": {...}}` override: SGLang's ModelConfig raises AttributeError on
    the first one; graphfit refuses naming that key, before any model-class check (the VL
    architecture without a vision tower would otherwise be refused for its tower); with
    every key both read the length."""
    cases = (((), "written", None), (("hidden_size",), "override", None),
             (("hidden_size",), "written", 128), (("num_hidden_layers",), "override", 128),
             (("vocab_size",), "written", None),
             (("vocab_size", "num_hidden_layers"), "override", None),
             (("hidden_size", "vocab_size"), "written", None), ((), "override", 128))
    for i, (absent, how, head_dim) in enumerate(cases):
        config = dict(t.BASE, model_type=MINIMAX_M3_VL)
        text = {k: config.pop(k) for k in list(config) if k in _TEXT}
        if i % 2:  # the VL wrapper's own architecture (no vision_config written)
            config["architectures"] = ["MiniMaxM3SparseForConditionalGeneration"]
        if head_dim:
            text["head_dim"] = head_dim
        kept = {k: v for k, v in text.items() if k not in absent}
        config["text_config"] = kept if how == "written" else text
        argv: tuple[str, ...] = () if how == "written" else (
            "--json-model-override-args", json.dumps({"text_config": kept}))
        model = _model(config)
        theirs, ours = t.sglang_length(model, argv, {}), t.graphfit_length(model, argv, {})
        case = (absent, how, head_dim, theirs, ours)
        if not absent:
            assert isinstance(theirs, int), case
            if i % 2 == 0:
                assert theirs == ours, case
            continue
        assert isinstance(theirs, str) and isinstance(ours, str), case
        key = theirs.rsplit("attribute ", 1)[1].strip("'\" ")
        assert "AttributeError" in theirs and f"no {key!r}" in ours, case
        assert "AttributeError, configs/model_config.py:" in ours, case
