"""A config file's `tokenizer_path` on an SGLang plan against SGLang 0.5.23 given the key in
its own --config YAML (graphfit.inputs.sglang_file_tokenizer, issue 23 s46f).

SGLang merges the file into its arguments, the line's flags after it; the test takes the
tokenizer path and --skip-tokenizer-init from SGLang's resolved record (so the merge and the
line's precedence are SGLang's), then SGLang's own `_resolve_tokenizer_name` on that path
(s45l's `_pull`, tests/oracle/test_sglang_tokenizer_path_oracle.py); graphfit's `plan
--config` with the same key (`engine: sglang`) and line must refuse exactly the lines whose
pull fails, with SGLang's exception and file:line, and plan the rest. Before s46f the key was
ignored (every such line planned); the planted test shows that is caught."""

from __future__ import annotations

import json

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_draft_shape as ds  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle.test_sglang_tokenizer_path_oracle import LOADED, _pull  # noqa: E402

MRR = ("--max-running-requests", "48")
INSTANCE = "instance://10.0.0.1:5000/t"


_file = ds.named_file  # a --config file named by its content


def sglang_fails(keys: dict[str, object], line: tuple[str, ...]) -> tuple[str, str] | None:
    """SGLang's tokenizer-load failure (exception type, frame) for its --config file holding
    `keys` (flag spellings) and `line`, None where it loads (or skips) the tokenizer."""
    yaml = _file(".yaml", "".join(f"{k}: {json.dumps(v)}\n" for k, v in keys.items()))
    got = so.resolve(("--config", yaml, *MRR, *line), gpu_mem_gb=80)
    assert isinstance(got, so.Resolved), got  # resolution never reads the path
    if got.record.skip_tokenizer_init:
        return None
    return _pull(str(got.record.tokenizer_path))


def graphfit_says(keys: dict[str, object], line: tuple[str, ...]) -> str:
    """graphfit's error line for the same keys (SGLang's spelling) in an `engine: sglang`
    file, or '' when it plans the line."""
    from tests.helpers import run_cli

    body = json.dumps({"engine": "sglang", **{k.replace("-", "_"): v for k, v in keys.items()}},
                      sort_keys=True)
    code, _out, text = run_cli(["plan", "--gpu-memory-gb", "80", "--config", _file(".json", body),
                                "--", "python", "-m", "sglang.launch_server", "--model-path",
                                str(so.oracle().model_dir), *MRR, *line])
    errors = [ln for ln in text.strip().splitlines() if ln.startswith("error:")]
    assert code in (0, 2) and bool(errors) == (code == 2), (code, text)
    return errors[-1] if errors else ""


def _agrees(keys: dict[str, object], line: tuple[str, ...] = ()) -> str:
    failed = sglang_fails(keys, line)
    ours = graphfit_says(keys, line)
    if failed is None:
        assert ours == "", (keys, line, ours)
    else:
        kind, frame = failed
        assert kind in ours and frame.split("/")[-1] in ours and len(ours) <= 200, (frame, ours)
    return ours


@pytest.mark.parametrize("path", [INSTANCE, "http://host/t", "hf://org/t", *LOADED])
def test_file_tokenizer_path(path: str) -> None:
    refusal = _agrees({"tokenizer-path": path})
    assert bool(refusal) == (path not in LOADED), refusal  # non-vacuous: both kinds seen


def test_file_skip_tokenizer_init() -> None:
    assert _agrees({"tokenizer-path": INSTANCE, "skip-tokenizer-init": True}) == ""


def test_line_skip_tokenizer_init_over_file() -> None:
    assert _agrees({"tokenizer-path": INSTANCE}, ("--skip-tokenizer-init",)) == ""


def test_line_tokenizer_path_over_file() -> None:
    """The line's --tokenizer-path wins over the file's, both ways."""
    assert _agrees({"tokenizer-path": INSTANCE},
                   ("--tokenizer-path", str(so.oracle().model_dir))) == ""
    assert _agrees({"tokenizer-path": str(so.oracle().model_dir)},
                   ("--tokenizer-path", "hf://org/t")) != ""


def test_planted(monkeypatch: pytest.MonkeyPatch) -> None:
    """The key ignored (main before s46f): SGLang fails the instance:// line, graphfit plans."""
    from graphfit.inputs import sglang_file_tokenizer

    monkeypatch.setattr(sglang_file_tokenizer, "check", lambda *_: None)
    assert sglang_fails({"tokenizer-path": INSTANCE}, ()) is not None
    assert graphfit_says({"tokenizer-path": INSTANCE}, ()) == ""
