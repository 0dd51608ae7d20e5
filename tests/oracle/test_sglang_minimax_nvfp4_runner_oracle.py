"""The DSPARK / DFLASH draft runner on a MiniMax-M3 NVFP4 target (issue 23 s54m): SGLang's own
resolution (the NVFP4 hook included) and runners on the fake B200 against graphfit's plan of
the same pasted line (tests/oracle/sglang_minimax_nvfp4_runner: ladders, components, every
buffer both ways, the draft's padding, the folded sampler's names)."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_minimax_nvfp4_runner as r  # noqa: E402


@pytest.mark.parametrize(("gpu", "flags"), r.LINES[:2] + r.LINES[3:])
def test_draft_runner_on_an_nvfp4_target(gpu: str, flags: tuple[str, ...]) -> None:
    outcome, diffs = r.compare(gpu, flags)
    assert outcome == "runner" and diffs == [], (gpu, flags, outcome, diffs)
