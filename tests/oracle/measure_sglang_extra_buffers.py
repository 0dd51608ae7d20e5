"""What the extra-buffer direction adds to the drafted oracles (not a test; issue 23, s50o).

    python -m tests.oracle.measure_sglang_extra_buffers [COUNT] [FAMILY...]

On COUNT generated lines of each family ("draft_shape": EAGLE-family drafts,
tests/oracle/sglang_draft_shape.lines; "dflash": DFLASH block drafts,
tests/oracle/sglang_dflash_compare.dflash_lines), each line compared the way its oracle does
(`compare` / `compare_line`), prints the outcomes three ways on the same lines:
"one-way" (buffers SGLang has, checked in graphfit's plan: the old check), "both ways" (also
every buffer graphfit plans that SGLang's runner lacks: the committed check), and "planted,
one-way" / "planted, both ways" with graphfit's mamba extra buffer forced on
(`sglang_mamba_buffers.mamba_extra_buffer`, so every draft-extend plans a
`mamba_track_indices` SGLang only allocates on hybrid-mamba lines,
eagle_draft_extend_cuda_graph_runner.py:273-277), then the first differences of each.
"""

from __future__ import annotations

import collections
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from typing import Any
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphfit.planner.engines import sglang_mamba_buffers
from tests.oracle import sglang_compare as sc

Compare = Callable[[Any], tuple[str, list[sc.Difference]]]


def _families() -> dict[str, tuple[st.SearchStrategy[Any], Compare]]:
    from tests.oracle import sglang_dflash_compare as dc
    from tests.oracle import sglang_draft_shape as ds

    return {"draft_shape": (ds.lines(), ds.compare),
            "dflash": (dc.dflash_lines(), lambda case: dc.compare_line(*case))}


def draw(strategy: st.SearchStrategy[Any], n: int) -> list[Any]:
    out: list[Any] = []

    @settings(max_examples=n, database=None, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(case: Any) -> None:
        out.append(case)

    collect()
    return list(dict.fromkeys(out))


@contextmanager
def direction(extra: bool) -> Iterator[None]:
    """Every buffer comparison made one-way (False) or both ways (True)."""
    buffers = sc.compare_buffers

    def forced(sg: sc.SglangAnswer, gf: sc.GraphfitAnswer, **_: bool) -> list[sc.Difference]:
        return buffers(sg, gf, extra=extra)

    with mock.patch.object(sc, "compare_buffers", forced):
        yield


def count(cases: list[Any], compare: Compare) -> tuple[collections.Counter[str], list[str]]:
    outcomes: collections.Counter[str] = collections.Counter()
    first: list[str] = []
    for case in cases:
        got, diffs = compare(case)
        outcomes[got] += 1
        if diffs and len(first) < 3:
            first.append(diffs[0].detail[:160])
    return outcomes, first


def main(args: list[str]) -> int:
    n = int(args[0]) if args else 20
    families = _families()
    for name in args[1:] or list(families):
        strategy, compare = families[name]
        cases = draw(strategy, n)
        print(f"{name}: {len(cases)} generated lines")
        for label, extra, plant in (("one-way", False, False), ("both ways", True, False),
                                    ("planted, one-way", False, True),
                                    ("planted, both ways", True, True)):
            planted = (mock.patch.object(sglang_mamba_buffers, "mamba_extra_buffer",
                                         lambda config: True) if plant else nullcontext())
            with direction(extra), planted:
                got, first = count(cases, compare)
            print(f"  {label}: " + ", ".join(f"{k} {v}" for k, v in sorted(got.items())))
            for detail in first:
                print(f"    differs: {detail}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
