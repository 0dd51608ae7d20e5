"""A pasted line's `--dtype auto` over a config file's explicit `dtype` (`engine: sglang`):
SGLang's server given the key in its --config YAML and `--dtype auto` on the line (its flags
win: every ModelConfig keeps its config.json's dtype) against `graphfit plan --config` of the
same key and line (graphfit.inputs.sglang_line_auto_dtype, issue 23 s46f): the target's
`input_embeds` and the draft-extend runner's `hidden_states` dtypes
(tests/oracle/sglang_file_dtype.py). Before s46f graphfit kept the file's dtype for both;
the planted test shows that is caught."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_draft_shape as ds  # noqa: E402
from tests.oracle import sglang_file_dtype as fd  # noqa: E402

AUTO = ("--dtype", "auto")


def _lines() -> list[tuple[str, ...]]:
    return [ds.line("EAGLE", ds.draft("LlamaForCausalLMEagle", torch_dtype="float32"), *AUTO),
            ds.line("NEXTN", ds.draft("LlamaForCausalLMEagle", torch_dtype="float16"), *AUTO,
                    steps=1, drafts=2)]


CASES = [(line, dtype) for line in _lines() for dtype in ("half", "bfloat16", "float")]


@pytest.mark.parametrize(("argv", "dtype"), CASES)
def test_line_auto_over_file_dtype_is_sglangs(argv: tuple[str, ...], dtype: str) -> None:
    theirs = fd.sglang_dtypes(argv, dtype)
    assert isinstance(theirs, dict) and set(theirs) == {"target.input_embeds",
                                                        "draft_extend.hidden_states"}
    assert theirs != fd.sglang_dtypes(argv[:-2], dtype)  # the line's auto changes SGLang's
    assert fd.graphfit_dtypes(argv, dtype) == theirs


def test_line_auto_planted(monkeypatch: pytest.MonkeyPatch) -> None:
    """The line's auto read as nothing (main before s46f): the file's dtype wins, caught."""
    from graphfit.inputs import sglang_draft_shape, sglang_line_auto_dtype

    monkeypatch.setattr(sglang_line_auto_dtype, "line", lambda _values: [])
    monkeypatch.setattr(sglang_draft_shape, "is_auto", lambda _flag: False)
    argv, dtype = CASES[0]
    assert fd.graphfit_dtypes(argv, dtype) != fd.sglang_dtypes(argv, dtype)


def test_graphfits_own_dtype_flag_still_wins() -> None:
    """graphfit's `--dtype` over a pasted `--dtype auto`: graphfit's flag, as before s46f (the
    line's auto ranks below every other command-line setting), not a conflict."""
    import json

    from tests.helpers import run_cli
    from tests.oracle import sglang_oracle as so

    code, out, text = run_cli(["plan", "--json", "--gpu-memory-gb", "80", "--dtype", "float16",
                               "--", "python", "-m", "sglang.launch_server", "--model-path",
                               str(so.oracle().model_dir), *AUTO])
    assert code == 0, text
    assert json.loads(out)["config"]["dtype"] == "float16"
