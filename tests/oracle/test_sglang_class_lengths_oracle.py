"""Every class default graphfit restates (graphfit.inputs.sglang_class_lengths.CLASS_LENGTHS)
against SGLang 0.5.23's own ModelConfig: a config.json with no length key under each
`model_type` (SGLang loads it through that class, utils/hf_transformers/config.py:228, and
get_context_length reads the class's default, common.py:677-700), with and without a linear
RoPE factor; graphfit's max_model_len on the same pasted line (tests/oracle/
sglang_context_length_oracle.py). Runs with SGLang's sources (tests/oracle/paths.require)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest

from graphfit.inputs.sglang_class_lengths import CLASS_LENGTHS
from tests.oracle import sglang_context_length_oracle as t
from tests.oracle.paths import require

require("sglang")

_ROOT = tempfile.mkdtemp(prefix="graphfit-class-lengths-test-")
# classes whose rope validator accepts only longrope (transformers refuses a linear dict at
# load, SGLang with it; graphfit does not restate rope validation: coverage page, s37c Left)
LONGROPE_ONLY = frozenset({"phi3", "phimoe"})
CASES = [(kind, rope) for kind in sorted(CLASS_LENGTHS)
         for rope in (None, {"rope_type": "linear", "factor": 2.0})
         if rope is None or kind not in LONGROPE_ONLY]


@pytest.mark.parametrize(("kind", "rope"), CASES)
def test_class_default_is_sglangs(kind: str, rope: dict[str, Any] | None) -> None:
    config = dict(t.BASE, model_type=kind)
    if rope is not None:
        config["rope_scaling"] = rope
    directory = Path(tempfile.mkdtemp(dir=_ROOT))
    (directory / "config.json").write_text(json.dumps(config))
    sg = t.sglang_length(str(directory), (), {})
    gf = t.graphfit_length(str(directory), (), {})
    assert isinstance(sg, int), sg  # SGLang loads every listed class
    assert sg == gf, (kind, rope, sg, gf)
