"""A config file's `dtype` (`engine: sglang`) is SGLang 0.5.23's --dtype: SGLang's own server
given the key in its --config YAML against `graphfit plan --config` of the same key
(tests/oracle/sglang_file_dtype.py): the target's and the draft's dtypes, and argparse's
refusal of a spelling outside its choices. Before issue 23 / s45r graphfit read the key as
its own EngineConfig field: the target's dtype only (the draft kept its config's) and any
graphfit spelling; the planted test shows both are caught."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_draft_shape as ds  # noqa: E402
from tests.oracle import sglang_file_dtype as fd  # noqa: E402


def _lines() -> list[tuple[str, ...]]:
    f32 = ds.draft("LlamaForCausalLMEagle", torch_dtype="float32")
    return [ds.line("EAGLE", f32),
            ds.line("NEXTN", ds.draft("LlamaForCausalLMEagle", torch_dtype="float16"),
                    steps=1, drafts=2),
            ds.line("EAGLE", f32, "--dtype", "bfloat16")]  # the line's flag wins


CASES = [(line, dtype) for line in _lines()
         for dtype in ("auto", "half", "bfloat16", "float")] + [(_lines()[0], "float32")]


@pytest.mark.parametrize(("argv", "dtype"), CASES)
def test_file_dtype_is_sglangs(argv: tuple[str, ...], dtype: str) -> None:
    theirs = fd.sglang_dtypes(argv, dtype)
    assert isinstance(theirs, dict) and set(theirs) == {"target.input_embeds",
                                                        "draft_extend.hidden_states"}
    assert fd.graphfit_dtypes(argv, dtype) == theirs


@pytest.mark.parametrize("dtype", ["fp16", "Float16", "bf16"])
def test_file_dtype_outside_sglangs_choices_is_refused(dtype: str) -> None:
    argv = _lines()[0]
    theirs = fd.sglang_dtypes(argv, dtype)
    ours = fd.graphfit_dtypes(argv, dtype)
    assert isinstance(theirs, str) and isinstance(ours, str)
    assert ours.startswith("error:") and len(ours) <= 200 and theirs in ours


def test_file_dtype_planted(monkeypatch: pytest.MonkeyPatch) -> None:
    """The key read as graphfit's own field (main before s45r) is caught: the draft keeps
    its config's dtype, and a spelling SGLang refuses is planned."""
    from graphfit.inputs import config_file

    monkeypatch.delitem(config_file.SGLANG_FILE_KEYS, "dtype")
    argv = _lines()[0]
    assert fd.graphfit_dtypes(argv, "bfloat16") != fd.sglang_dtypes(argv, "bfloat16")
    assert isinstance(fd.graphfit_dtypes(argv, "fp16"), dict)
    assert isinstance(fd.sglang_dtypes(argv, "fp16"), str)
