"""graphfit == SGLang 0.5.23 on the text values of a plain class whose config.json writes a
sub-config SGLang's parser picks before `text_config` (issue 23, s68e): width, layers,
vocabulary and context length off the picked `thinker_config` / `llm_config` /
`language_config` dict (none off a `text_config` beside it or off the top level), the top
level under a null thinker_config / language_config
(graphfit.inputs.sglang_text_values). SGLang's side is its own ModelConfig for the line
(tests.oracle.sglang_text_values).

s69f: the dtype too, off the picked sub-config (graphfit.inputs.sglang_dtype), and the RoPE
dicts a written sub-config dict fails to load with as SGLang's bare PretrainedConfig
(graphfit.inputs.sglang_bare_rope), picked or not."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_text_values as tv  # noqa: E402

_YARN = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 8192}
_NO_LENGTH = {k: v for k, v in tv.SUB.items() if k != "max_position_embeddings"}
FIXED = {
    **{f"{key}{'+text' if text else ''}": tv.config("llama", key, dict(tv.SUB),
                                                    dict(tv.TEXT), text)
       for key in tv.PICKED for text in (False, True)},
    "thinker+yarn+text": tv.config("qwen2", "thinker_config", dict(tv.SUB, rope_scaling=_YARN),
                                   dict(tv.TEXT), True),
    "llm+rope_parameters": tv.config("llama", "llm_config",
                                     dict(tv.SUB, rope_parameters=_YARN)),
    # the top level writes a length the picked dict does not: not read (2048, common.py:700)
    "language+no length, top length": dict(
        tv.config("llama", "language_config", dict(_NO_LENGTH), dict(tv.TEXT), True),
        max_position_embeddings=65536),
    "thinker+no length anywhere": tv.config("qwen2", "thinker_config", dict(_NO_LENGTH)),
    # a null thinker_config / language_config: the top level, the text_config beside unread
    **{f"{key} null+text": dict(tv.config("llama", key, None, dict(tv.TEXT), True),
                                max_position_embeddings=65536)
       for key in tv.NULLABLE},
    # s68c's Left: a non-dict text_config beside the pick, no dtype written: SGLang loads it
    "llm+text_config string, no dtype": {
        k: v for k, v in tv.config("llama", "llm_config", dict(tv.SUB), "x", True).items()
        if k != "torch_dtype"},
}


_SUB = dict(tv.SUB)
_YARN_BARE = {"rope_type": "yarn", "factor": 4.0}
_LINEAR = {"rope_type": "linear", "factor": 2.0}
_LLAMA3 = {"rope_type": "llama3", "factor": 4.0, "original_max_position_embeddings": 8192,
           "low_freq_factor": 1.0, "high_freq_factor": 4.0, "rope_theta": 10000.0}
_NO_LENGTH_SUB = {k: v for k, v in _SUB.items() if k != "max_position_embeddings"}
_NO_DTYPE = {k: v for k, v in tv.config("llama", "llm_config", dict(_SUB)).items()
             if k != "torch_dtype"}
FIXED.update({  # s69f: the dtype off the picked sub-config
    "llm float16": tv.config("llama", "llm_config", dict(_SUB, torch_dtype="float16")),
    "thinker dtype float32": tv.config("qwen2", "thinker_config", dict(_SUB, dtype="float32")),
    "language float32 gemma": tv.config("llama", "language_config",
                                        dict(_SUB, torch_dtype="float32", model_type="gemma")),
    "llm, no dtype anywhere": _NO_DTYPE,
    "llm, text_config float16 beside": tv.config("llama", "llm_config", dict(_SUB),
                                                 dict(tv.TEXT, torch_dtype="float16"), True),
    "language null, text_config float16": tv.config(
        "llama", "language_config", None, dict(tv.TEXT, torch_dtype="float16"), True),
    # s69f: RoPE dicts the bare sub-config loads
    "llm linear rope_scaling + rope_theta": tv.config(
        "llama", "llm_config", dict(_SUB, rope_scaling=dict(_LINEAR), rope_theta=1e4)),
    "llm bad rope_parameters, then rope_scaling": tv.config(
        "llama", "llm_config", dict(_SUB, rope_parameters=dict(_YARN_BARE),
                                    rope_scaling=dict(_LINEAR))),
    "llm unknown rope type": tv.config("llama", "llm_config", dict(
        _SUB, rope_scaling={"rope_type": "unknown_kind", "factor": 2.0})),
    "language llama3 complete": tv.config("llama", "language_config",
                                          dict(_SUB, rope_parameters=dict(_LLAMA3))),
    # the bare config keeps the later of rope_scaling / rope_parameters: its length
    "language dynamic rope_scaling, then default rope_parameters": tv.config(
        "llama", "language_config", dict(_SUB, rope_scaling={"rope_type": "dynamic",
                                                              "factor": 4.0},
                                         rope_parameters={"rope_type": "default"})),
    "language default rope_parameters, then dynamic rope_scaling": tv.config(
        "llama", "language_config", dict(_SUB, rope_parameters={"rope_type": "default"},
                                         rope_scaling={"rope_type": "dynamic", "factor": 4.0})),
    "text_config dynamic rope_scaling, then default rope_parameters": tv.config(
        "llama", "text_config", None, dict(tv.TEXT, rope_scaling={"rope_type": "dynamic",
                                                                  "factor": 4.0},
                                           rope_parameters={"rope_type": "default"}), True),
    "llm odd head_dim, half rotated": tv.config("llama", "llm_config", dict(
        _SUB, head_dim=129, rope_scaling=dict(_LINEAR, partial_rotary_factor=0.5))),
})
# s69f: sub-config dicts whose RoPE dict SGLang's bare PretrainedConfig refuses
REFUSED = {
    "llm yarn without original": tv.config("llama", "llm_config",
                                           dict(_SUB, rope_scaling=dict(_YARN_BARE))),
    "text_config beside, yarn without original": tv.config(
        "llama", "llm_config", dict(_SUB), dict(tv.TEXT, rope_scaling=dict(_YARN_BARE)), True),
    "thinker yarn, no length": tv.config("qwen2", "thinker_config", dict(
        _NO_LENGTH_SUB, rope_scaling=dict(_YARN_BARE, original_max_position_embeddings=8192))),
    "language yarn + rope_theta": tv.config("llama", "language_config", dict(
        _SUB, rope_theta=1e4,
        rope_scaling=dict(_YARN_BARE, original_max_position_embeddings=8192))),
    "llm linear rope_parameters without factor": tv.config(
        "llama", "llm_config", dict(_SUB, rope_parameters={"rope_type": "linear"})),
    "llm rope_scaling, then bad rope_parameters": tv.config(
        "llama", "llm_config", dict(_SUB, rope_scaling=dict(_LINEAR),
                                    rope_parameters=dict(_YARN_BARE))),
    "llm llama3 without rope_theta": tv.config("llama", "llm_config", dict(
        _SUB, rope_parameters={k: v for k, v in _LLAMA3.items() if k != "rope_theta"})),
    "language llama3, no length": tv.config("llama", "language_config", dict(
        _NO_LENGTH_SUB, rope_parameters=dict(_LLAMA3))),
    "llm rope_scaling string": tv.config("llama", "llm_config",
                                         dict(_SUB, rope_scaling="yarn")),
    "llm odd head_dim": tv.config("llama", "llm_config",
                                  dict(_SUB, head_dim=129, rope_scaling=dict(_LINEAR))),
    "text_config longrope, no width": tv.config("llama", "llm_config", dict(_SUB), {
        **{k: v for k, v in tv.TEXT.items() if k != "hidden_size"}, "head_dim": 128,
        "rope_scaling": {"rope_type": "longrope", "short_factor": [1.0] * 64,
                         "long_factor": [1.0] * 64, "original_max_position_embeddings": 2048}},
                                                True),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_fixed_rope_refusals_are_sglangs(name: str) -> None:
    """Each: SGLang fails to load it, and graphfit refuses it for the bare sub-config's RoPE
    dict (utils/hf_transformers/common.py:569)."""
    assert tv.verdict(REFUSED[name]) == "refused", name
    said = tv.graphfit(tv.folder(REFUSED[name]))
    assert isinstance(said, str) and "; SGLang fails to load it" in said, said


_DLO_FULL = {"num_attention_heads": 16, "hidden_size": 1024, "num_hidden_layers": 2,
             "vocab_size": 1000, "max_position_embeddings": 4096}
# s69f: SGLang's own classes (tests.oracle.sglang_draft_load's cases: "TYPE/CLASS/KEY+", the
# values): their written sub-config dicts are converted too, but Kimi-VL / Bailing-V3-VL's
# text_config, which the class builds (it loads)
OWN_CLASS_ROPES = {
    "kimi_linear text_config": "kimi_linear//text_config+",
    "bailing_hybrid llm_config": "bailing_hybrid//llm_config+",
    "kimi_vl language_config": "kimi_vl/KimiVLForConditionalGeneration/language_config+",
    "kimi_vl text_config (built)": "kimi_vl/KimiVLForConditionalGeneration/text_config+",
    "bailing_moe_v3_vl llm_config": "bailing_moe_v3_vl/BailingMoeV3VLForConditionalGeneration/"
                                    "llm_config+",
    "bailing_moe_v3_vl text_config (built)": "bailing_moe_v3_vl/"
                                             "BailingMoeV3VLForConditionalGeneration/text_config+",
}


@pytest.mark.parametrize("name", sorted(OWN_CLASS_ROPES))
def test_own_classes_bare_rope_as_sglang(name: str) -> None:
    """A yarn dict without original_max_position_embeddings in a sub-config dict of SGLang's
    own classes: SGLang's ModelConfig loads it or fails at the conversion, and graphfit
    loads it or refuses it for that reason."""
    from tests.oracle import sglang_draft_load as dlo

    sub = dict(_DLO_FULL, **dlo.MLA_KEYS, rope_scaling=dict(_YARN_BARE))
    case = (OWN_CLASS_ROPES[name], [sub], None)
    theirs, ours = dlo.sglang(case), dlo.graphfit(case)
    assert (theirs == "loads") == (ours is None), (theirs, ours)
    assert ours is None or "; SGLang fails to load it" in ours, ours


@pytest.mark.parametrize("name", sorted(FIXED))
def test_fixed_values_are_sglangs(name: str) -> None:
    """Each fixed config: SGLang's values are graphfit's (none of these is refused)."""
    assert tv.verdict(FIXED[name]) == "agree", name


@settings(max_examples=12)
@given(st.integers(min_value=0, max_value=2**32))
def test_drawn_values_are_sglangs(seed: int) -> None:
    """A drawn config (tests.oracle.sglang_text_values.draw): the same values, or both
    refuse."""
    data = tv.draw(random.Random(seed))
    assert tv.verdict(data) in ("agree", "refused"), data


@pytest.mark.parametrize("key", tv.PICKED)
def test_vllm_reads_text_config(key: str) -> None:
    """vLLM's text config is transformers' `get_text_config` (vllm 0.34
    transformers_utils/config.py:1303-1317), which names `text_config` and not the
    sub-configs SGLang picks: graphfit's vLLM reading (`sglang` False) stays there."""
    from pathlib import Path

    from transformers import AutoConfig

    from graphfit.inputs.model_config import read_model

    model = tv.folder(tv.config("llama", key, dict(tv.SUB), dict(tv.TEXT), True))
    text = AutoConfig.from_pretrained(model).get_text_config()
    read = (text.get if isinstance(text, dict) else lambda name: getattr(text, name, None))
    info = read_model(Path(model) / "config.json")
    assert (info.hidden_size, info.num_hidden_layers, info.vocab_size) == (
        read("hidden_size"), read("num_hidden_layers"), read("vocab_size"))
