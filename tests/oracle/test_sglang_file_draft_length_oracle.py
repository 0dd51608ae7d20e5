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


def _target_verdict(model: str, argv: tuple[str, ...], env: dict[str, str]) -> str:
    """The target's own length check on a file naming no `model_path`, graphfit's
    `--model-path` flag beside it, against SGLang's ModelConfig on the same line."""
    sg = t.sglang_length(model, argv, env)
    gf, notes = f.graphfit_file(model, argv, env, True, _ROOT)
    if isinstance(sg, str) and isinstance(gf, str):
        return "refused"
    if isinstance(sg, int) and isinstance(gf, int):
        return "agree" if sg == gf else ("asked" if any("class default" in n for n in notes)
                                         else f"differ: {sg} vs {gf}")
    if isinstance(sg, str) and any("class default" in n for n in notes):
        return "asked"
    return f"differ: SGLang {str(sg)[:100]}, graphfit {str(gf)[:100]}"


@pytest.mark.parametrize(("env", "sglang"), [({}, "refused"), ({t.ALLOW: "1"}, "agree")])
def test_flag_target_length_as_sglang(env: dict[str, str], sglang: str) -> None:
    """A 4096-token target given by graphfit's `--model-path` beside a file asking for 8192
    tokens: SGLang refuses unless allowed (configs/model_config.py:1295-1316); graphfit
    planned it before (the check read only a file's own `model_path`)."""
    model = _model(max_position_embeddings=4096)
    argv = ("--context-length", "8192")
    assert isinstance(t.sglang_length(model, argv, env), str) == (sglang == "refused")
    assert _target_verdict(model, argv, env) == sglang


@pytest.mark.parametrize("seed", range(4))
def test_generated_flag_target_lengths_agree(seed: int) -> None:
    model, argv, env = t.case(random.Random(6300 + seed), _ROOT)
    assert _target_verdict(model, argv, env) in ("agree", "refused", "asked"), argv


def _flags_verdict(model: str, argv: tuple[str, ...], env: dict[str, str]) -> str:
    """graphfit's own flags (`--engine sglang --model-path DIR [--context-length N]`, no file,
    no pasted line) against SGLang's ModelConfig on the same line."""
    from graphfit.cli.options import resolve_values
    from graphfit.planner.core.errors import GraphfitError

    keys = f.file_keys(model, argv, True)
    values: dict[str, object] = {"engine": "sglang", "model_path": model,
                                 "gpu_memory_gb": "H100"}
    if "context_length" in keys:
        values["context_length"] = keys["context_length"]  # the CLI's key for the flag
    sg = t.sglang_length(model, ("--context-length", str(keys["context_length"]))
                         if "context_length" in keys else (), env)
    try:
        resolved = resolve_values(values, environ=env)
        gf: int | str = resolved.config().max_model_len
        notes = list(resolved.notes)
    except GraphfitError as exc:
        gf, notes = str(exc), []
    if isinstance(sg, str) and isinstance(gf, str):
        return "refused"
    if isinstance(sg, int) and isinstance(gf, int):
        return "agree" if sg == gf or any("class default" in n for n in notes) else (
            f"differ: {sg} vs {gf}")
    if isinstance(sg, str) and any("class default" in n for n in notes):
        return "asked"
    return f"differ: SGLang {str(sg)[:100]}, graphfit {str(gf)[:100]}"


@pytest.mark.parametrize(("env", "sglang"), [({}, "refused"), ({t.ALLOW: "1"}, "agree")])
def test_flags_alone_target_length_as_sglang(env: dict[str, str], sglang: str) -> None:
    """`graphfit plan --engine sglang --model-path DIR --context-length 8192` on a 4096-token
    model: SGLang refuses unless allowed (configs/model_config.py:1295-1316); graphfit planned
    it before (its own flags ran no length check)."""
    model = _model(max_position_embeddings=4096)
    assert _flags_verdict(model, ("--context-length", "8192"), env) == sglang


@pytest.mark.parametrize("seed", range(4))
def test_generated_flags_alone_lengths_agree(seed: int) -> None:
    model, argv, env = t.case(random.Random(6400 + seed), _ROOT)
    kept = tuple(argv[i:i + 2] for i in range(0, len(argv), 2) if argv[i] == "--context-length")
    assert _flags_verdict(model, sum(kept, ()), env) in ("agree", "refused", "asked"), argv
