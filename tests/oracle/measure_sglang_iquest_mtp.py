"""IQuest Q1 targets with an MTP draft over N generated lines, SGLang 0.5.23 against graphfit
(not a test).

    python -m tests.oracle.measure_sglang_iquest_mtp 200

On the same drawn lines (tests/oracle/sglang_iquest_mtp.lines) and the same SGLang verdicts:
how many both plan with the same steps / topk / draft tokens, both refuse with SGLang's words,
or differ; "before" with graphfit.inputs.sglang_iquest_mtp switched off (main's reading),
"after" with it on; then the first differences left.
"""

from __future__ import annotations

import collections
import sys
from unittest import mock

from hypothesis import HealthCheck, given, settings

from graphfit.inputs import sglang_iquest_mtp as rules
from tests.oracle import sglang_iquest_mtp as iq
from tests.oracle.measure_outcomes import print_before_after


def draw(n: int) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []

    @settings(max_examples=n, database=None, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(iq.lines())
    def collect(argv: tuple[str, ...]) -> None:
        out.append(argv)

    collect()
    return list(dict.fromkeys(out))


def count(lines: list[tuple[str, ...]]) -> tuple[collections.Counter[str], list[str]]:
    outcomes: collections.Counter[str] = collections.Counter()
    first: list[str] = []
    for argv in lines:
        got, detail = iq.compare(argv)
        outcomes[got] += 1
        if detail and len(first) < 5:
            first.append(f"{' '.join(argv[:2])} {' '.join(argv[4:])}: {detail}")
    return outcomes, first


def main(args: list[str]) -> int:
    lines = draw(int(args[0]) if args else 200)
    print(f"generated IQuest Q1 MTP lines: {len(lines)}")
    with mock.patch.object(rules, "line", lambda values: ([], [])):
        before, _ = count(lines)
    after, first = count(lines)
    print_before_after("before (rules off)", before, after, ("planned", "refused", "differs"),
                       first)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
