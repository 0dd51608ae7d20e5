"""Qwen4-Exp's text-only form with a top-level RoPE dict, against SGLang 0.5.23's own
ModelConfig (issue 23, s42c): graphfit.inputs.sglang_qwen4_text_only. A written
`rope_parameters` never reaches the text config get_context_length reads
(configs/qwen4_exp.py:134, :143-150), a llama3 / yarn / longrope one fails the parent's
standardization (:172; modeling_rope_utils.py:860), and an overriding llama3 / yarn /
longrope `rope_scaling` fails unless the file writes max_position_embeddings. Each line's
SGLang context length (or refusal) is graphfit's. Runs with SGLang's sources
(tests/oracle/paths.require)."""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.oracle import sglang_context_length_oracle as t
from tests.oracle.paths import require

require("sglang")

_ROOT = tempfile.mkdtemp(prefix="graphfit-qwen4-text-only-test-")
KINDS = ("linear", "yarn", "llama3", "longrope", "default")


def _rope(kind: str, rng: random.Random) -> dict[str, Any]:
    rope: dict[str, Any] = {rng.choice(("rope_type", "type")): kind, "factor": 2.0}
    if kind == "llama3":
        rope.update(low_freq_factor=1.0, high_freq_factor=4.0)
    if kind == "longrope":
        rope.update(short_factor=[1.0] * 64, long_factor=[2.0] * 64)
    if rng.random() < 0.6:
        rope["original_max_position_embeddings"] = 4096
    if rng.random() < 0.5:
        rope["rope_theta"] = 1000000.0
    return rope


@pytest.mark.parametrize("kind", KINDS)
def test_text_only_rope_dict_is_sglangs(kind: str) -> None:
    """A top-level rope_parameters in the file, or a rope_scaling / rope_parameters by the
    override args, with or without a length key: SGLang's context length is graphfit's,
    or both refuse."""
    rng = random.Random(f"qwen4-{kind}")
    refused = 0
    for _ in range(8):
        config = dict(t.BASE, model_type="qwen4_exp")
        key = rng.choice((None, "max_position_embeddings", "seq_length"))
        if key is not None:
            config[key] = 8192
        argv: tuple[str, ...] = ()
        if rng.random() < 0.6:
            config["rope_parameters"] = _rope(kind, rng)
        else:
            name = rng.choice(("rope_scaling", "rope_parameters"))
            rope = _rope(kind, rng)
            if name == "rope_scaling":  # the setter reads rope_type (a merged `type` keeps
                rope["rope_type"] = kind  # the text config's "default")
            argv = ("--json-model-override-args", json.dumps({name: rope}))
        directory = Path(tempfile.mkdtemp(dir=_ROOT))
        (directory / "config.json").write_text(json.dumps(config))
        verdict = t.verdict(str(directory), argv, {})
        assert verdict in ("agree", "refused"), (config, argv, verdict)
        refused += verdict == "refused"
    # not vacuous: the types that read max_position_embeddings fail on some lines
    assert refused > 0 if kind in ("yarn", "llama3", "longrope") else refused < 8
