"""Inkling's text-config defaults and its read-only top-level keys (issue 23 s44m), SGLang
0.5.23's own loading vs graphfit's reading of the same config.json: `InklingMMConfig` builds
`InklingModelConfig(**text_config)` (configs/inkling.py:309-335), whose class defaults fill
what text_config leaves out (vocab_size 201024, hidden_size 1536, num_hidden_layers 16,
:24-28), and reads vocab_size / hidden_size / num_hidden_layers off it (:367-374); a file
writing one of those properties at the top level fails to load (:363-406: no setter).
SGLang's side is the ModelConfig its pipeline builds for the line (model_config_of)."""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.oracle.paths import require

require("sglang")

from graphfit import ConfigError  # noqa: E402
from graphfit.cli.options import resolve_values  # noqa: E402
from graphfit.inputs import commandline  # noqa: E402
from graphfit.inputs.model_config import read_model  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402

ARCHS = ("InklingForConditionalGeneration", "InklingForConditionalGenerationMTP")
TEXT = {"vocab_size": 32000, "hidden_size": 1024, "num_hidden_layers": 5}


def _dir(data: dict[str, Any]) -> str:
    directory = Path(tempfile.mkdtemp(prefix="graphfit-inkling-text-"))
    (directory / "config.json").write_text(json.dumps(data))
    return str(directory)


def _config(architecture: str, text: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    return {"architectures": [architecture], "model_type": "inkling_mm_model",
            "torch_dtype": "bfloat16", "text_config": {"local_layer_ids": [1], **text}, **top}


def _sglang(model: str) -> tuple[int, int, int] | str:
    r = so.resolve(("--max-running-requests", "8"), model=model)
    if not isinstance(r, so.Resolved):
        return r.text
    from sglang.srt.arg_groups.model_override_base import model_config_of

    c = model_config_of(r.record)
    return int(c.vocab_size), int(c.num_hidden_layers), int(c.hidden_size)


def _graphfit(model: str) -> tuple[int | None, int | None, int | None] | str:
    line = ["python", "-m", "sglang.launch_server", "--model-path", model,
            "--max-running-requests", "8"]
    try:
        resolve_values({"gpu_memory_gb": "H100"}, environ={},
                       pasted=commandline.read(line)).config()
    except ConfigError as exc:
        return str(exc)
    info = read_model(Path(model, "config.json"))
    return info.vocab_size, info.num_hidden_layers, info.hidden_size


def _draw(seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    text = {k: v for k, v in TEXT.items() if rng.random() < 0.5}
    top = {"vocab_size": 5000} if rng.random() < 0.2 else {}
    return _config(rng.choice(ARCHS), text, top)


CASES = [_config(ARCHS[0], {}, {}), _config(ARCHS[1], {"num_hidden_layers": 5}, {}),
         _config(ARCHS[0], {"vocab_size": 32000}, {}),
         _config(ARCHS[0], TEXT, {"num_hidden_layers": 3}),
         *(_draw(seed) for seed in range(6))]


@pytest.mark.parametrize("data", CASES, ids=lambda d: json.dumps(
    {**d["text_config"], **{k: v for k, v in d.items() if k in TEXT}})[:60])
def test_inkling_text_config_read_as_sglang_loads_it(data: dict[str, Any]) -> None:
    model = _dir(data)
    theirs, ours = _sglang(model), _graphfit(model)
    if isinstance(theirs, str):
        assert "no setter" in theirs, theirs  # the only failure these files reach
        assert isinstance(ours, str) and "no setter" in ours and len(ours) <= 200, ours
    else:
        assert ours == theirs, f"SGLang (vocab, layers, hidden) {theirs}, graphfit {ours}"


def test_the_grid_reaches_defaults_and_the_failure() -> None:
    outcomes = [_sglang(_dir(d)) for d in CASES[:4]]
    assert outcomes[0] == (201024, 16, 1536), outcomes[0]
    assert isinstance(outcomes[3], str), outcomes[3]
