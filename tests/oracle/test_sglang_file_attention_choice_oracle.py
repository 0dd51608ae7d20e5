"""A config file's `attention_backend` read as SGLang's (`engine: sglang`) against SGLang
0.5.23's own server given the key in its `--config` YAML: SGLang merges the file into its
arguments, so argparse refuses a name outside ATTENTION_BACKEND_CHOICES
(arg_groups/choices.py:69-99) before anything else; graphfit must refuse exactly those
names, with SGLang's message (graphfit.inputs.sglang_file_choice, issue 23 s46f), and let
every name in SGLang's choices past the parsing stage. Before s46f such a name (FLASH_ATTN,
vLLM's spelling) was planned; the planted test shows that is caught."""

from __future__ import annotations

import importlib

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_file_choices_oracle as fc  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402

PARSING = "argument --attention-backend"


def sglang_says(name: str) -> str | None:
    """SGLang's argparse refusal of the file's name, or None when its parser takes it (a
    later refusal, e.g. the backend on this GPU, is not this check's)."""
    # SGLang's file key is the flag's spelling (`--{key}`, server_args_config_parser.py:164-181)
    return fc.sglang_says("attention_backend", name)


def graphfit_says(name: str) -> str:
    """graphfit's last output line for the same key in an `engine: sglang` file."""
    return fc.graphfit_says("attention_backend", name)


def _sglang_choices() -> list[str]:
    so.oracle()  # puts the pinned sources on the path
    with so.sglang_stubs.imports():  # a server's import: the fake GPU (s55x)
        choices = importlib.import_module("sglang.srt.arg_groups.choices")
    return list(choices.ATTENTION_BACKEND_CHOICES)


# names outside SGLang's choices: other engines' spellings, case and whitespace variants
OUTSIDE = ["FLASH_ATTN", "flash_attn", "FA3", "Triton", "flashinfer ", "xformers", "-x"]


@pytest.mark.parametrize("name", OUTSIDE)
def test_outside_sglangs_choices_is_refused_as_sglang(name: str) -> None:
    theirs = sglang_says(name)
    assert theirs is not None and PARSING in theirs  # SGLang refuses it at parsing
    ours = graphfit_says(name)
    assert ours.startswith("error:") and len(ours) <= 200, ours
    said = theirs.split("error: ", 1)[-1]
    shown = ours.split("refuses it: ", 1)[-1].removesuffix("...")
    assert shown and said.startswith(shown), (said, ours)


def test_every_sglang_choice_passes_parsing() -> None:
    """Each of SGLang's own names passes its parser and graphfit's check (graphfit may still
    refuse one later for the model or GPU, as SGLang may: not this check's)."""
    for name in _sglang_choices():
        assert sglang_says(name) is None, name
        assert PARSING not in graphfit_says(name), name


def test_planted(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check off (main before s46f): FLASH_ATTN is planned, SGLang refuses it."""
    from graphfit.inputs import sglang_file_choice

    monkeypatch.setattr(sglang_file_choice, "check", lambda *_: None)
    assert sglang_says("FLASH_ATTN") is not None
    assert not graphfit_says("FLASH_ATTN").startswith("error:")
