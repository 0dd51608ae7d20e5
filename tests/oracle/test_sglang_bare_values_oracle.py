"""graphfit == SGLang 0.5.23 on written sub-config dicts whose bare PretrainedConfig computes
with values of the wrong type in a RoPE dict, validates a RoPE dict nested per layer type and
its `layer_types`, or converts a dtype string (issue 23, s70e; graphfit.inputs.
sglang_bare_rope_values, sglang_bare_dtype). SGLang's side is its own ModelConfig for the line
(tests.oracle.sglang_text_values), on fixed configs and a small drawn grid
(tests.oracle.sglang_bare_values)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_bare_values as bv  # noqa: E402
from tests.oracle import sglang_text_values as tv  # noqa: E402

_SUB = dict(tv.SUB)  # 12 layers
_YARN = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 8192}
_LLAMA3 = {"rope_type": "llama3", "factor": 4.0, "original_max_position_embeddings": 8192,
           "low_freq_factor": 1.0, "high_freq_factor": 4.0, "rope_theta": 10000.0}
_LONG = {"rope_type": "longrope", "short_factor": [1.0] * 64, "long_factor": [1.0] * 64,
         "original_max_position_embeddings": 8192, "factor": 2.0}
_TYPES = ["full_attention", "sliding_attention"] * 6


def _llm(**sub: Any) -> dict[str, Any]:
    """A Llama config whose picked `llm_config` is tv.SUB with `sub` written."""
    return tv.config("llama", "llm_config", dict(_SUB, **sub))


def _beside(**text: Any) -> dict[str, Any]:
    """A Llama config picking `llm_config`, with a `text_config` beside it writing `text`."""
    return tv.config("llama", "llm_config", dict(_SUB), dict(tv.TEXT, **text), True)


# both refuse, graphfit for the bare sub-config (utils/hf_transformers/common.py:569)
REFUSED = {
    "yarn null original": _llm(rope_scaling=dict(_YARN, original_max_position_embeddings=None)),
    "yarn original 0": _llm(rope_scaling=dict(_YARN, original_max_position_embeddings=0)),
    "yarn string beta_fast": _llm(rope_scaling=dict(_YARN, beta_fast="32")),
    "llama3 null low_freq_factor": _llm(rope_parameters=dict(_LLAMA3, low_freq_factor=None)),
    "longrope null short_factor": _llm(rope_scaling=dict(_LONG, short_factor=None)),
    "string head_dim": _llm(head_dim="128", rope_scaling={"rope_type": "linear", "factor": 2}),
    "odd head_dim, null partial factor": _llm(head_dim=129, rope_scaling={
        "rope_type": "dynamic", "factor": 2.0, "partial_rotary_factor": None}),
    "odd head_dim, unknown type": _llm(head_dim=129, rope_scaling={"rope_type": "other"}),
    "nested linear without factor": _llm(layer_types=_TYPES, rope_parameters={
        "full_attention": {"rope_type": "linear"}, "sliding_attention": None}),
    "nested non-dict": _beside(layer_types=_TYPES[:8], rope_parameters={
        "full_attention": 3, "sliding_attention": {"rope_type": "default"}}),
    "legacy name nested (flat once remapped)": _llm(
        layer_types=["attention"] * 12, rope_parameters={"attention": {"rope_type": "linear"},
                                                         "rope_type": "yarn"}),
    "layer_types count": _llm(layer_types=_TYPES[:10]),
    "layer_types unknown entry": _beside(layer_types=["local"] * 8),
    "dtype fp16": _llm(dtype="fp16"),
    "torch_dtype torch.bfloat16 beside": _beside(torch_dtype="torch.bfloat16"),
    "torch_dtype bf16, dtype null": _llm(torch_dtype="bf16", dtype=None),
}
# both load, with the same values
LOADS = {
    "yarn string factor": _llm(rope_scaling=dict(_YARN, factor="4")),
    "llama3 string factors": _llm(rope_parameters=dict(
        _LLAMA3, factor="4", low_freq_factor="1", high_freq_factor="4")),
    "longrope string factor": _llm(rope_scaling=dict(_LONG, factor="2")),
    "nested linear, NoPE layer": _llm(layer_types=_TYPES, rope_parameters={
        "full_attention": {"rope_type": "linear", "factor": 2.0}, "sliding_attention": None}),
    "nested yarn beside": _beside(layer_types=_TYPES[:8], rope_scaling={
        "full_attention": dict(_YARN), "sliding_attention": {"rope_type": "default"}}),
    "legacy layer names": _llm(layer_types=["attention", "mamba"] * 6),
    "torch_dtype bf16 under dtype": _llm(torch_dtype="bf16", dtype="bfloat16"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_fixed_refusals_are_sglangs(name: str) -> None:
    """Each: SGLang fails to load it, and graphfit refuses it for the bare sub-config (a
    dtype on the picked dict: already refused as a dtype graphfit does not size,
    graphfit.inputs.model_config's `_dtype`)."""
    assert bv.verdict(REFUSED[name]) == "refused", name
    said = tv.graphfit(tv.folder(REFUSED[name]))
    assert isinstance(said, str), said
    assert "; SGLang fails to load it" in said or "dtype: expected one of" in said, said


@pytest.mark.parametrize("name", sorted(LOADS))
def test_fixed_loads_are_sglangs(name: str) -> None:
    """Each: SGLang loads it, and graphfit reads the same values."""
    assert bv.verdict(LOADS[name]) == "agree", name


@settings(max_examples=6)
@given(st.integers(min_value=0, max_value=2**32))
def test_drawn_values_are_sglangs(seed: int) -> None:
    """A drawn config (tests.oracle.sglang_bare_values.draw): the same values, or both
    refuse."""
    data = bv.draw(random.Random(seed))
    assert bv.verdict(data) in ("agree", "refused"), data
