"""graphfit == SGLang 0.5.23 on MoE all-to-all lines with `--disable-attn-tp-gather`
(issue 23, s68l; tests.oracle.sglang_attn_tp_gather): SGLang's own resolution and runners
against graphfit's plan of the same pasted line on every aspect the a2a oracle compares.
Before s68l graphfit refused the flag as not modelled."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_attn_tp_gather as ag  # noqa: E402
from tests.oracle import sglang_moe_a2a_compare as mc  # noqa: E402

OFF = ag.FLAG
FIXED = [
    ("--moe-a2a-backend", "deepep", "--tp-size", "4", "--max-running-requests", "40", OFF),
    # attention DP over half the group: the MLP gather keeps the alignment at 2
    ("--moe-a2a-backend", "deepep", "--tp-size", "4", "--attn-dp-size", "2", OFF),
    ("--moe-a2a-backend", "deepep", "--tp-size", "2", "--enable-two-batch-overlap", OFF),
    # EAGLE's draft runners (under the target's backend, inherited) read the server's flag
    ("--moe-a2a-backend", "deepep", "--tp-size", "4", "--max-running-requests", "24",
     "--speculative-algorithm", "EAGLE", "--speculative-num-steps", "2",
     "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "3",
     "--speculative-draft-model-path", mc.model_dir(), OFF),
]


def _agree(argv: tuple[str, ...]) -> None:
    said, line = ag.verdict(argv)
    assert said == "agree", line


@pytest.mark.parametrize("argv", FIXED, ids=lambda a: " ".join(a[1:6]))
def test_fixed_lines_agree(argv: tuple[str, ...]) -> None:
    """Lines SGLang starts, planned the same on every aspect."""
    assert mc.sglang(argv).rejected is None
    _agree(argv)


@settings(max_examples=4, deadline=None)
@given(st.integers(0, 2**16))
def test_generated_lines_agree(seed: int) -> None:
    """The a2a oracle's draw with the flag appended (every backend, TP / attention DP, TBO,
    graph flags, EAGLE drafts)."""
    _agree(ag.draw(random.Random(seed)))


def test_the_flag_changes_what_sglang_captures() -> None:
    """Not vacuous: SGLang's own target runner aligns a deepep line at TP 4 to 4 without the
    flag and to 1 with it (utils/common.py:4142-4143, 4163-4175)."""
    with_flag, without = mc.sglang(FIXED[0]), mc.sglang(FIXED[0][:-1])
    assert with_flag.runners is not None and without.runners is not None
    assert (with_flag.runners["target"].alignment, without.runners["target"].alignment) == (1, 4)


def test_a_planted_error_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """graphfit ignoring the flag (gathering as before) differs from SGLang on the ladder."""
    from graphfit.planner.engines import sglang_moe_a2a

    monkeypatch.setattr(sglang_moe_a2a, "_gathers", lambda live, tp, dp, disabled=False,
                        dense_tp=None:  # the value s69c added
                        live != "none" and (dp == 1 or dp < tp))
    mc.graphfit_cli.cache_clear()
    try:
        diffs = mc.compare(FIXED[0])
    finally:
        mc.graphfit_cli.cache_clear()
    assert diffs["target_ladder"] and diffs["target_padding"]
