"""graphfit == SGLang 0.5.23 on all-to-all lines over a dense model (tests.oracle.
sglang_dense_a2a; issue 23, s68m): the backend's start-up rules apply, its runners see none.

Fixed lines pin each site graphfit splits (the runners' gather, the draft runners' gather,
the target's and the draft's dispatcher builds, a budget the layers never read, the
two-batch-overlap check reading the resolved argument, DeepEP's normal mode, pplx's
start-up assert); a small drawn grid shares `sglang_dense_a2a.draw` with
tests/oracle/measure_sglang_dense_a2a.py.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.helpers import HypothesisRandom  # noqa: E402
from tests.oracle import sglang_dense_a2a as da  # noqa: E402
from tests.oracle import sglang_moe_a2a_compare as mc  # noqa: E402

EAGLE = ("--speculative-algorithm", "EAGLE", "--speculative-num-steps", "2",
         "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "3")
MOONCAKE_ENV = "SGLANG_MOONCAKE_EP_NUM_MAX_DISPATCH_TOKENS_PER_RANK"


def _moe_draft(*argv: str) -> tuple[str, ...]:
    """An EAGLE line whose draft is the Qwen3-MoE model, on the dense target."""
    return da.dense((*argv, *EAGLE, "--speculative-draft-model-path", mc.model_dir()),
                    moe_draft=True)


# (line, whether SGLang starts it)
FIXED = [
    # no gather: SGLang's runner aligns to 1 at TP 4 (a MoE model's aligns to 4)
    (da.dense(("--moe-a2a-backend", "deepep", "--tp-size", "4", "--max-running-requests",
               "40", "--disable-prefill-cuda-graph")), True),
    # Mooncake's auto mode raises only where a MoE layer builds (mooncake.py:343-344)
    (da.dense(("--moe-a2a-backend", "mooncake", "--tp-size", "2")), True),
    # check_two_batch_overlap reads the resolved argument: mooncake counts (:756-772)
    (da.dense(("--moe-a2a-backend", "mooncake", "--tp-size", "2",
               "--enable-two-batch-overlap")), True),
    # the first dispatch / the dispatcher's <= 1024 assert: no layer reads the budget
    (da.dense((f"{MOONCAKE_ENV}=0", "--moe-a2a-backend", "mooncake", "--deepep-mode",
               "low_latency", "--tp-size", "2")), True),
    (da.dense((f"{MOONCAKE_ENV}=2048", "--moe-a2a-backend", "mooncake", "--deepep-mode",
               "low_latency", "--tp-size", "2")), True),
    # resolution still applies: normal mode turns graphs off, pplx asserts attention DP
    (da.dense(("--moe-a2a-backend", "deepep", "--deepep-mode", "normal", "--tp-size",
               "2")), True),
    (da.dense(("--moe-a2a-backend", "pplx", "--tp-size", "4")), False),
    # a MoE draft on a dense target builds and captures under none
    (_moe_draft("--tp-size", "4", "--max-running-requests", "40",
                "--speculative-moe-a2a-backend", "deepep"), True),
    (_moe_draft("--tp-size", "2", "--speculative-moe-a2a-backend", "mooncake"), True),
    (_moe_draft("SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK=0", "--tp-size", "2",
                "--speculative-moe-a2a-backend", "mori"), True),
]


def _check(argv: tuple[str, ...]) -> None:
    said, detail = da.verdict(argv)
    assert said == "agree", f"{' '.join(w for w in argv if not w.startswith('/'))}: {detail}"


@pytest.mark.parametrize(("argv", "starts"), FIXED)
def test_fixed_lines_agree(argv: tuple[str, ...], starts: bool) -> None:
    assert (mc.sglang(argv).rejected is None) == starts  # the line is the case it names
    _check(argv)


@st.composite
def lines(draw: st.DrawFn) -> tuple[str, ...]:
    return da.draw(HypothesisRandom(draw))


@settings(max_examples=4, deadline=None)
@given(lines())
def test_generated_lines_agree(argv: tuple[str, ...]) -> None:
    _check(argv)


def test_a_planted_error_is_caught() -> None:
    """Not vacuous: graphfit's runners reading the given backend on a dense model (its MoE
    view) gather at TP 4, which SGLang's runner does not."""
    from graphfit.planner.engines import sglang_moe_a2a

    argv = FIXED[0][0]
    with pytest.MonkeyPatch.context() as m:
        m.setattr(sglang_moe_a2a, "runtime_backend",
                  lambda config: sglang_moe_a2a.resolved_a2a(config.moe_a2a_backend, False))
        mc.graphfit_cli.cache_clear()
        try:
            diffs = mc.compare(argv)
        finally:
            mc.graphfit_cli.cache_clear()
    assert diffs["target_ladder"] or diffs["target_padding"]


def test_measurement_lines_are_reproducible() -> None:
    first, second = random.Random(5), random.Random(5)
    drawn = [da.draw(first) for _ in range(4)]
    assert drawn == [da.draw(second) for _ in range(4)]
    assert all(line[-1] == da.dense_model_dir() for line in drawn)
