"""The live check's default mem_fraction_static against SGLang 0.5.23's (issue 23 s45l;
tests/oracle/sglang_live_fraction): the JSON `--cuda-graph-config` prefill phase and
`--max-total-tokens`, which bound the prefill graphs the memory hook reserves 8 MiB each for
(memory_hook.py:380-387), read from the live ServerArgs as a pasted line reads them
(graphfit.inputs.sglang_live_post_capture); and SGLang's not-positive figure, named by
graphfit's warning on both paths (graphfit.planner.engines.sglang_reserve.unfit_warning)."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")

import graphfit  # noqa: E402
from tests.oracle import sglang_live_fraction as lf  # noqa: E402
from tests.oracle import sglang_plan_prefill as spp  # noqa: E402

PD = ("--max-running-requests", "219", "--disaggregation-mode", "prefill")
PINNED: list[tuple[tuple[str, ...], float]] = [
    # s43l's line left: the JSON phase's prefill max, graph-less and with graphs
    ((*PD, "--cuda-graph-config", '{"prefill": {"max_bs": 410}}', "--attention-backend",
      "torch_native"), 192.0),
    ((*PD, "--cuda-graph-config", '{"prefill": {"max_bs": 410}}'), 192.0),
    ((*PD, "--cuda-graph-config", '{"prefill": {"bs": [1, 2, 4, 8]}}'), 80.0),
    # the JSON phase wins over the flag (cuda_graph_hook.py:86-94)
    (("--max-running-requests", "64", "--cuda-graph-max-bs-prefill", "4096",
      "--cuda-graph-config", '{"prefill": {"max_bs": 96}}'), 141.0),
    # --max-total-tokens bounds the default prefill sizes
    (("--max-running-requests", "317", "--chunked-prefill-size", "15936",
      "--max-total-tokens", "6212"), 80.0),
    # SGLang's figure is not positive (s43l's 16 GB line): graphfit warns with it
    (("--max-running-requests", "451", "--chunked-prefill-size", "19022",
      "--cuda-graph-backend-prefill", "full", "--max-total-tokens", "3538",
      "--attention-backend", "flex_attention"), 16.0)]


@pytest.mark.parametrize(("argv", "gb"), PINNED)
def test_pinned_lines(argv: tuple[str, ...], gb: float) -> None:
    assert lf.compare(argv, gb) is None


def test_the_pinned_lines_are_not_vacuous() -> None:
    """A reserve-bound figure and a not-positive one are both compared."""
    assert spp.graphfit_plan(*PINNED[0]).config.mem_fraction_static is not None
    assert lf.warned(spp.graphfit_plan(*PINNED[-1])) == pytest.approx(-0.805)
    small = [spp.graphfit_plan(a, g) for a, g in lf.drawn(4, 49, most_gb=16)]
    assert any(lf.warned(p) is not None for p in small)


@pytest.mark.parametrize(("argv", "gb"), lf.drawn(6, 45, need=("--cuda-graph-config",
                                                               "--max-total-tokens")))
def test_drawn_lines(argv: tuple[str, ...], gb: float) -> None:
    found = lf.compare(argv, gb)
    if found == lf.REJECTED:  # no live record to check: the pasted line must be refused too
        with pytest.raises(graphfit.GraphfitError):
            spp.graphfit_plan(argv, gb)
        return
    assert found is None, (argv, gb)


@pytest.mark.parametrize(("argv", "gb"), lf.drawn(4, 49, most_gb=16))
def test_drawn_small_gpu_lines(argv: tuple[str, ...], gb: float) -> None:
    """16 GB lines: SGLang's figure is mostly not positive there."""
    found = lf.compare(argv, gb)
    if found == lf.REJECTED:  # no live record to check: the pasted line must be refused too
        with pytest.raises(graphfit.GraphfitError):
            spp.graphfit_plan(argv, gb)
        return
    assert found is None, (argv, gb)
