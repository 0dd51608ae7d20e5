"""graphfit == SGLang 0.5.23 on Qwen3.5 decision checkpoints and Clef / Kev heads (issue 23,
s70a; graphfit.inputs.sglang_decision_heads): the hooks' -1 chunk (model_hook.py:206-221,
990-1021) where decision_config.json asks for noncausal full attention or a Clef / Kev head is
found, the given chunk elsewhere; Clef / Kev refused at TP or PP 2; decision_config.json's
ValueErrors (configs/model_config.py:276-291). Fixed lines on every target, a small drawn grid,
and plants."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")

from graphfit.inputs import sglang_decision_heads  # noqa: E402
from tests.oracle import sglang_chunk_off_hooks_oracle as hooks  # noqa: E402
from tests.oracle import sglang_decision_heads_oracle as dh  # noqa: E402
from tests.oracle import sglang_lora_runner_oracle as lro  # noqa: E402
from tests.oracle import sglang_server_args_oracle as sao  # noqa: E402

REFUSED_TP2 = ("clef", "clef_decision", "kev", "decision_v2", "decision_mode", "decision_pool",
               "kev_isolated", "kev_special")
# refused on every line (SGLang's ModelConfig raises before any flag is read)
REFUSED = ("decision_v2", "decision_mode", "decision_pool", "kev_isolated", "kev_special")


@pytest.fixture(scope="module")
def targets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return dh.targets(tmp_path_factory.mktemp("decision-heads"))


def test_fixed_lines_agree(targets: dict[str, Path]) -> None:
    """The chunk-off lines and TP 2 on every target; SGLang starts the chunk-off lines on the
    hooks' models only and refuses TP 2 on the heads and the unreadable decision files (not
    vacuous)."""
    wrong = []
    for name in dh.TARGETS:
        for argv in (hooks.PAGE, hooks.PDMUX, dh.TP2):
            theirs, at_check = lro.sglang(targets[name], argv, {})
            code, line = sao.graphfit(targets[name], argv, {})
            said = sao.verdict(theirs, at_check, code, line)
            expect = (name in REFUSED_TP2 if argv == dh.TP2
                      else name in REFUSED or name not in dh.OFF)
            if said != "agree" or (theirs is not None) != expect:
                wrong.append(f"{said}: {name} {' '.join(argv)}: SGLang {theirs}; {line}")
    assert not wrong, "\n".join(wrong)


@settings(max_examples=8, deadline=None)
@given(st.randoms(use_true_random=False))
def test_drawn_lines_agree(targets: dict[str, Path], rng: random.Random) -> None:
    name, argv = dh.draw(rng)
    said, line = sao.compare(targets[name], argv, {})
    assert said == "agree", f"{name} {line}"


def _no_heads(model: str) -> None:
    return None


def _causal(model: str) -> sglang_decision_heads.Heads | None:
    return sglang_decision_heads.Heads(False, None) if "decision_nc" in model else None


@pytest.mark.parametrize(("attr", "value", "name", "argv"), [
    ("heads", _no_heads, "clef", hooks.PDMUX),  # the side files unread: chunk judged
    ("heads", _causal, "decision_nc", hooks.PAGE),  # the noncausal mode ignored
    ("check", lambda values: None, "kev", dh.TP2),  # the heads' TP / PP refusal dropped
    ("MODES", ("causal", "noncausal_full_attention", "bidirectional"), "decision_mode",
     dh.TP2),  # an unknown attention mode read as causal
    ("SWITCHES", (), "kev_isolated", hooks.PAGE),  # head.pt's switches unread
])
def test_plants_are_caught(targets: dict[str, Path], monkeypatch: pytest.MonkeyPatch,
                           attr: str, value: object, name: str, argv: tuple[str, ...]) -> None:
    from graphfit.inputs import sglang_chunk_off_model, sglang_cli

    monkeypatch.setattr(sglang_decision_heads, attr, value)
    if attr == "heads":
        monkeypatch.setattr(sglang_chunk_off_model, "heads", value)
    if attr == "check":
        monkeypatch.setattr(sglang_cli.sglang_decision_heads, "check", value)
    assert sao.compare(targets[name], argv, {})[0] == "differ"


# graphfit's config file beside the pasted line `--tp-size 2` (tests.oracle.
# sglang_lora_runner_oracle's file sides; SGLang: a caller's ServerArgs(**data)): PD
# multiplexing with the multimodal switch false, true or absent on three hook classes
FILE_LINES = [{"enable_pdmux": True, "disable_overlap_schedule": True} | switch
              for switch in ({"enable_multimodal": False}, {"enable_multimodal": True}, {})]


@pytest.fixture(scope="module")
def hook_targets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return hooks.targets(tmp_path_factory.mktemp("file-hooks"))


def _compare_file(target: Path, data: dict[str, object]) -> tuple[str, str | None]:
    """(sao.verdict: the same check's words on both sides, SGLang's refusal or None)."""
    theirs, at_check = lro.sglang_file(target, data)
    code, said = lro.graphfit_file(target, data)
    return sao.verdict(theirs, at_check, code, said), theirs


def test_file_multimodal_switch_agrees(hook_targets: dict[str, Path]) -> None:
    """A file's `enable_multimodal: false` keeps the chunk (SGLang refuses PD multiplexing);
    true or absent turns it off (SGLang starts): not vacuous."""
    wrong = []
    for name in ("llava", "mllama", "clip"):
        for data in FILE_LINES:
            said, theirs = _compare_file(hook_targets[name], data)
            if said != "agree" or (theirs is not None) != (data.get("enable_multimodal") is False):
                wrong.append(f"{said}: {name} {data}: SGLang {theirs}")
    assert not wrong, "\n".join(wrong)


def test_file_plant_is_caught(hook_targets: dict[str, Path],
                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The file's keys unread by the hooks: LLaVA's chunk stays off."""
    from graphfit.inputs import sglang_file_chunk_off

    monkeypatch.setattr(sglang_file_chunk_off, "settle",
                        lambda data, line, resolved, model=None: resolved)
    assert _compare_file(hook_targets["llava"], FILE_LINES[0])[0] == "differ"
