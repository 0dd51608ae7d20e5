"""A draft's context-length check on graphfit's own `--config` file (issue 23 s62c): the draft
worker's ModelConfig at the target's length, refused where the draft is shorter
(configs/model_config.py:1295-1316), against SGLang's own (tests/oracle/
sglang_file_draft_length). The target: the file's `model_path`, or graphfit's `--model-path`
flag beside a file naming none. Larger counts, with main's figures:
`python -m tests.oracle.measure_sglang_file_draft_length N SEED /work/main`."""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_context_length_oracle as t  # noqa: E402
from tests.oracle import sglang_file_draft_length as f  # noqa: E402

_ROOT = tempfile.mkdtemp(prefix="graphfit-file-draft-length-test-")


def _model(**written: object) -> str:
    directory = Path(tempfile.mkdtemp(dir=_ROOT))
    (directory / "config.json").write_text(json.dumps({**t.BASE, **written}))
    return str(directory)


@pytest.mark.parametrize("flag", [False, True], ids=["model_path", "flag"])
@pytest.mark.parametrize("seed", range(3))
def test_generated_file_draft_lengths_agree(seed: int, flag: bool) -> None:
    model, draft, argv, env = t.draft_case(random.Random(6200 + seed), _ROOT)
    assert f.verdict(model, draft, argv, env, flag, _ROOT) in ("agree", "refused", "asked"), argv


@pytest.mark.parametrize("flag", [False, True], ids=["model_path", "flag"])
@pytest.mark.parametrize(("env", "sglang"), [({}, "refused"), ({t.ALLOW: "1"}, "agree")])
def test_file_short_draft_as_sglang(env: dict[str, str], sglang: str, flag: bool) -> None:
    """A 4096-token draft under a 32768-token target: SGLang refuses unless allowed; the
    file planned it before s62c."""
    model = _model(max_position_embeddings=32768)
    draft = _model(max_position_embeddings=4096, num_hidden_layers=2)
    argv = t.standalone(draft)
    theirs = t.sglang_draft_length(model, draft, argv, env)
    assert isinstance(theirs, str) == (sglang == "refused"), theirs  # the premise
    assert f.verdict(model, draft, argv, env, flag, _ROOT) == sglang
    if sglang == "refused":
        said, _ = f.graphfit_file(model, argv, env, flag, _ROOT)
        assert "configs/model_config.py" in str(said), said
