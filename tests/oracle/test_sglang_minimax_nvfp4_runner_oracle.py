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


# (s54m) the hook's megamoe on Blackwell (minimax_m3.py:109-114) brings SGLang's megamoe token
# budget (mega_moe_hook.py:78-91): B200's default chunk 16384 is over the 8192 tokens a rank
# may take; a chunk of 8192 fits; off Blackwell, and under flashinfer_trtllm_routed with no
# a2a backend given (no megamoe written), there is no budget
BUDGET: tuple[tuple[str, int, tuple[str, ...]], ...] = (
    ("B200", 1, ()), ("B200", 2, ("--chunked-prefill-size", "8192")),
    ("B200", 2, ("--moe-runner-backend", "flashinfer_trtllm_routed")),
    ("H100", 1, ()),
    # megamoe given with flashinfer_trtllm_routed: no write, the NVFP4 experts' budget still
    # applies (mega_moe_hook.py:67-75), before the model class's own refusal (runner.py:168)
    ("B200", 2, ("--moe-a2a-backend", "megamoe", "--moe-runner-backend",
                 "flashinfer_trtllm_routed")),
)


@pytest.mark.parametrize(("gpu", "tp", "flags"), BUDGET)
def test_megamoe_budget_the_hook_brings(gpu: str, tp: int, flags: tuple[str, ...]) -> None:
    from tests.oracle import measure_sglang_minimax_nvfp4_hook as m

    outcome, detail = m.verdict(m.target(True), gpu, tp, flags)
    assert outcome == "agree", detail
