"""The live path's context length (issue 23 s47l): `from_sglang` on SGLang's own ServerArgs
of a line must give SGLang's ModelConfig.context_len (configs/model_config.py:1291-1329) as
max_model_len where the line gives no --context-length, and refuse where SGLang refuses a
longer one (:1295-1316) (tests/oracle/sglang_live_length_oracle.py). Larger counts:
`python -m tests.oracle.measure_sglang_live_length N SEED`."""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_context_length_oracle as t  # noqa: E402
from tests.oracle import sglang_live_length_oracle as ll  # noqa: E402

_ROOT = tempfile.mkdtemp(prefix="graphfit-live-length-test-")


def _model(**written: Any) -> str:
    config = {**t.BASE, **written}
    directory = Path(tempfile.mkdtemp(dir=_ROOT))
    (directory / "config.json").write_text(json.dumps(config))
    return str(directory)


@pytest.mark.parametrize("seed", range(8))
def test_generated_live_lengths_agree(seed: int) -> None:
    model, argv, env = t.case(random.Random(4700 + seed), _ROOT)
    assert ll.verdict(model, argv, env) in ("agree", "refused", "asked"), (argv, env)


# (config.json, flags, environment, SGLang's outcome: the premise)
EDGES: list[tuple[dict[str, Any], tuple[str, ...], dict[str, str], str]] = [
    ({"max_position_embeddings": 32768}, (), {}, "32768"),  # EngineConfig's 8192 before
    ({"max_position_embeddings": 4096, "rope_scaling": {"rope_type": "linear", "factor": 4.0}},
     (), {}, "16384"),
    ({"max_position_embeddings": 4096}, ("--context-length", "8192"), {}, "refused"),
    ({"max_position_embeddings": 4096}, ("--context-length", "8192"),
     {t.ALLOW: "1"}, "8192"),
    ({"max_position_embeddings": 4096}, ("--context-length", "2048"), {}, "2048"),
]


@pytest.mark.parametrize(("written", "argv", "env", "sglang"), EDGES)
def test_live_length_edges_match_sglang(written: dict[str, Any], argv: tuple[str, ...],
                                        env: dict[str, str], sglang: str) -> None:
    model = _model(**written)
    theirs = t.sglang_length(model, argv, env)
    assert (str(theirs) if isinstance(theirs, int) else "refused") == sglang, theirs
    assert ll.verdict(model, argv, env) in ("agree", "refused"), ll.live_length(model, argv, env)
    if sglang == "refused":
        assert "configs/model_config.py" in str(ll.live_length(model, argv, env))


@pytest.mark.parametrize("seed", range(4))
def test_generated_live_draft_lengths_agree(seed: int) -> None:
    """A STANDALONE line with a local draft: the draft worker's ModelConfig at the target's
    length (managers/tp_worker.py:481), refused where the draft is shorter."""
    model, draft, argv, env = t.draft_case(random.Random(4800 + seed), _ROOT)
    assert ll.draft_verdict(model, draft, argv, env) in ("agree", "refused", "asked"), argv


@pytest.mark.parametrize(("env", "sglang"), [({}, "refused"), ({t.ALLOW: "1"}, "agree")])
def test_live_short_draft_as_sglang(env: dict[str, str], sglang: str) -> None:
    model = _model(max_position_embeddings=32768)
    draft = _model(max_position_embeddings=4096, num_hidden_layers=2)
    argv = t.standalone(draft)
    theirs = t.sglang_draft_length(model, draft, argv, env)
    assert (isinstance(theirs, str)) == (sglang == "refused"), theirs  # the premise
    assert ll.draft_verdict(model, draft, argv, env) == sglang
