"""The `[COUNT] [SEED] [GRAPHFIT_ROOT]` command line the whole-line SGLang measure scripts
share (not a test; measure_sglang_ep_rules, measure_sglang_class_picks): a before figure
scores another checkout's `graphfit` on this tree's cases and SGLang side; and the printing
the per-verdict and per-outcome measure scripts share.

This module imports no graphfit, so calling it first leaves `graphfit` unbound until the
checkout to score is on sys.path.
"""

from __future__ import annotations

import collections
import json
import logging
import os
import random
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from tests.oracle.before_tree import frozen


def count_seed_root(argv: list[str], default_count: int) -> tuple[int, int]:
    """COUNT (default `default_count`) and SEED (default 23); with GRAPHFIT_ROOT, `graphfit`
    is imported from that checkout while the `tests` package stays this tree's."""
    count = int(argv[0]) if argv else default_count
    seed = int(argv[1]) if len(argv) > 1 else 23
    if len(argv) > 2:
        here = str(Path(__file__).resolve().parents[2])
        sys.path.insert(0, frozen(argv[2]))  # one commit for the whole run (before_tree)
        import graphfit  # bound to GRAPHFIT_ROOT's package

        sys.path.insert(0, here)  # the tests package stays this tree's
        print(f"graphfit from {Path(graphfit.__file__).parent}")
    return count, seed


def print_counts(count: int, seed: int, counts: dict[str, int], lines: list[str]) -> None:
    """The agree / differ / not-modelled line, then the first 12 lines that are not
    "not modelled" (the differing ones)."""
    print(f"{count} lines (seed {seed}): {counts['agree']} agree, {counts['differ']} differ, "
          f"{counts['not modelled']} not modelled")
    for line in [x for x in lines if not x.startswith("not modelled")][:12]:
        print("  " + line)


def print_before_in_child(module: str, count: int, seed: int, root: str) -> None:
    """Run `tests.oracle.<module>.measure(count, seed)` in a child process whose `graphfit` is
    `root`'s and whose `tests` is this tree's, and print its last counts line (a before
    figure for the scripts whose `measure` prints a `{...}` counts dict)."""
    here = Path(__file__).resolve().parents[2]
    with tempfile.TemporaryDirectory(prefix="graphfit-before-") as shim:
        os.symlink(Path(frozen(root)) / "graphfit", Path(shim) / "graphfit")
        os.symlink(here / "tests", Path(shim) / "tests")
        env = {**os.environ, "PYTHONPATH": shim}
        code = f"from tests.oracle import {module} as m; m.measure({count}, {seed})"
        # run from the shim: a `-c` child puts its working directory first on sys.path
        result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                                text=True, check=False, cwd=shim)
        lines = [ln for ln in result.stdout.splitlines() if ln.startswith("{")]
        print(f"before ({root}):", lines[-1] if lines else result.stderr[-500:])


def main_with_before(module: str, measure: Callable[[int, int], Mapping[str, int]],
                     argv: list[str], default_count: int, noun: str) -> int:
    """`[COUNT] [SEED] [BEFORE_ROOT]`: this checkout's `measure(count, seed)` (which prints a
    `{...}` counts dict with a "differ" count), then BEFORE_ROOT's (default /work/main) on
    the same draw in a child process (`print_before_in_child`); 1 where this checkout
    differs (issue 23, s60d)."""
    count = int(argv[0]) if argv else default_count
    seed = int(argv[1]) if len(argv) > 1 else 23
    before = argv[2] if len(argv) > 2 else "/work/main"
    print(f"after (this checkout), {count} {noun}, seed {seed}:")
    counts = measure(count, seed)
    print_before_in_child(module, count, seed, before)
    return 0 if counts["differ"] == 0 else 1


def print_family(family: str, results: Iterable[tuple[str, str | None]],
                 verdicts: tuple[str, ...], *, totals: bool = False) -> list[str]:
    """One family's line: of its (SGLang's verdict, a disagreement or None) per generated
    line, how many of each verdict graphfit agrees on (after the family's total agreeing
    with `totals`). Returns the disagreements."""
    wrong: list[str] = []
    seen: collections.Counter[str] = collections.Counter()
    agree: collections.Counter[str] = collections.Counter()
    for verdict, bad in results:
        seen[verdict] += 1
        agree[verdict] += bad is None
        if bad:
            wrong.append(bad)
    total = f"{sum(agree.values())}/{sum(seen.values())} agree; " if totals else ""
    print(f"{family}: {total}" + ", ".join(
        f"SGLang {v}: graphfit agrees {agree[v]}/{seen[v]}" for v in verdicts if seen[v]))
    return wrong


def print_wrong(wrong: list[str]) -> int:
    """The first 12 disagreements; the exit status (0 when there are none, else 1)."""
    for line in wrong[:12]:
        print("  " + line)
    return 0 if not wrong else 1


def print_outcomes(graphfit_file: str, count: int, seed: int, outcomes: Mapping[str, int],
                   tracked_label: str, tracked: Mapping[str, int], shown: list[str]) -> None:
    """Which graphfit answered, the outcome counts of COUNT lines, the tracked counts under
    `tracked_label`, and the shown differences (each cut to 400 characters)."""
    print(f"graphfit: {graphfit_file}")
    print(f"{count} lines (seed {seed}): {dict(sorted(outcomes.items()))}")
    print(f"{tracked_label}: {dict(sorted(tracked.items()))}")
    for line in shown:
        print("  " + line[:400])


def main_before_after(module: str, measure: Callable[[int, int], object], argv: list[str],
                      count: int, seed: int) -> None:
    """`tests.oracle.<module> [COUNT] [SEED] [BEFORE]` (defaults `count`, `seed`): with
    BEFORE, a repository root, the same draws scored with its graphfit in a child process
    first (`print_before_in_child`), then `measure` on this tree."""
    count = int(argv[0]) if argv else count
    seed = int(argv[1]) if len(argv) > 1 else seed
    if len(argv) > 2:
        print_before_in_child(module, count, seed, argv[2])
        print("after (this tree):", end=" ")
    measure(count, seed)


def print_fixed_and_generated(compares: Any, count: int, seed: int, verdicts: tuple[str, ...],
                              fixed: str = "fixed") -> int:
    """The two families of a compare module with `FIXED` lines and `generated_lines(count,
    seed)`: `compares.compare(*line)` on each, SGLang's logging quiet; the exit status
    (`print_wrong`). Shared by the config-class measure scripts (issue 23, s55x)."""
    logging.disable(logging.WARNING)
    wrong: list[str] = []
    for family, lines in ((fixed, list(compares.FIXED.values())),
                          (f"generated ({count}, seed {seed})",
                           compares.generated_lines(count, seed))):
        wrong += print_family(family, (compares.compare(*line) for line in lines), verdicts,
                              totals=True)
    return print_wrong(wrong)


def child_result(code: str, tree: str, *, differs: bool = True) -> Any:
    """Run a measure script's CHILD `code` (already formatted with `tree` as its graphfit
    root) from this tree, and return the JSON after its last `RESULT ` line; on this tree's
    run (`differs`) first print the child's `DIFFERS` lines. A failing child ends the
    script with its stderr's tail. Shared by the prefill-CP measure scripts (issue 23, s56x)."""
    here = os.getcwd()
    done = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": here},
                          capture_output=True, text=True, check=False, cwd=here)
    if done.returncode:
        raise SystemExit(done.stderr[-2000:])
    if differs and tree == here:
        print("\n".join(t for t in done.stdout.splitlines() if t.startswith("DIFFERS")))
    line = [t for t in done.stdout.splitlines() if t.startswith("RESULT ")][-1]
    return dict(json.loads(line[len("RESULT "):]))


# the first lines of a prefill-CP measure's CHILD code: `graphfit` from the tree scored, the
# `tests` package this tree's
CHILD_HEAD = """
import json, sys
sys.path.insert(0, {graphfit!r})
import graphfit  # this tree's or the "before" tree's, first on the path
sys.path.insert(0, {tests!r})
from collections import Counter
"""


def count_seed(argv: list[str], count: int, seed: int) -> tuple[int, int]:
    """COUNT and SEED from a measure script's arguments (`argv` without the program name),
    `count` and `seed` where absent."""
    return (int(argv[0]) if argv else count, int(argv[1]) if len(argv) > 1 else seed)


def child_before_after(body: str, count: int, seed: int, *, differs: bool = True,
                       **fields: Any) -> tuple[Any, Any]:
    """A prefill-CP measure's CHILD (`CHILD_HEAD` + `body`, formatted with `count`, `seed`
    and `fields`) run with GRAPHFIT_BEFORE's graphfit (default /work/main), then with this
    tree's (`child_result`): the (before, after) results."""
    here = os.getcwd()
    return tuple(child_result((CHILD_HEAD + body).format(graphfit=tree, tests=here,
                                                         count=count, seed=seed, **fields),
                              tree, differs=differs)
                 for tree in (frozen(os.environ.get("GRAPHFIT_BEFORE", "/work/main")), here))


GENERATED_CHILD = """from tests.oracle import {oracle} as oracle

out = Counter()
for case in oracle.generate({count}, {seed}):
    outcome, diffs = oracle.compare(case)
    out[outcome] += 1
    if outcome in {shown}:
        print("DIFFERS", case, diffs[:1])
print("RESULT", json.dumps(dict(sorted(out.items()))))
"""


def main_generated(oracle: str, argv: list[str], default_count: int, noun: str,
                   shown: tuple[str, ...] = ("differs", "other refusal")) -> None:
    """`[COUNT] [SEED]`: `tests.oracle.<oracle>`'s `generate(count, seed)` cases, each
    `compare`d, counted by outcome before (GRAPHFIT_BEFORE's graphfit) and after (this tree's)
    in child processes (`child_before_after`); the `shown` outcomes' first difference
    printed. The generated-line measures' one main (kv auto, skip-softmax, prefill-CP LM head)."""
    count, seed = count_seed(argv, default_count, 0)
    was, now = child_before_after(GENERATED_CHILD, count, seed, oracle=oracle,
                                  shown=repr(shown))
    print(f"{count} {noun} (seed {seed})")
    print("before:", was)
    print("after: ", now)

def tally(counts: dict[str, int], lines: list[str], agree: bool, said: str,
          differs: str) -> None:
    """Count one line of the agree / differ / not-modelled scripts (`print_counts`): agreed,
    or "not modelled" in graphfit's words `said` (noted, cut to 110 characters), or differing
    (noted as `differs`). Shared by the dispatch measure scripts (issue 23, s56x)."""
    if agree:
        counts["agree"] += 1
    elif "not modelled" in said:
        counts["not modelled"] += 1
        lines.append(f"not modelled: {said[:110]}")
    else:
        counts["differ"] += 1
        lines.append(differs)


def print_agreement(count: int, compare_one: Callable[[], tuple[str, str]]) -> dict[str, int]:
    """`compare_one` called `count` times, each giving (agree / differ / other, the compared
    line's text, "SGLang None" in it where SGLang starts the line): up to 8 lines that do not
    agree, how many SGLang refused, then the counts (what the start-up check measures print)."""
    counts = {"agree": 0, "differ": 0, "other": 0}
    refused = 0
    shown: list[str] = []
    for _ in range(count):
        said, line = compare_one()
        counts[said] += 1
        refused += "SGLang None" not in line
        if said != "agree":
            shown.append(f"{said}: {line}")
    for line in shown[:8]:
        print("  " + line)
    print(f"SGLang refused {refused} of {count}")
    print(counts)
    return counts


def tally_verdicts(count: int, seed: int, draw: Callable[[random.Random], tuple[str, ...]],
                   verdict: Callable[[tuple[str, ...]], tuple[str, str | None]]
                   ) -> dict[str, int]:
    """`count` lines drawn with `random.Random(seed)`, each judged by `verdict` (agree /
    differ / not modelled / other rule, a detail): the counts, then up to 8 differing lines
    (their paths left out), as the per-verdict measures print them."""
    logging.disable(logging.WARNING)
    rng = random.Random(seed)
    counts = {"agree": 0, "differ": 0, "not modelled": 0, "other rule": 0}
    shown: list[str] = []
    for _ in range(count):
        line = draw(rng)
        said, detail = verdict(line)
        counts[said] += 1
        if detail and said == "differ" and len(shown) < 8:
            shown.append(f"{' '.join(w for w in line if not w.startswith('/'))} :: {detail}")
    print(counts)
    for text in shown:
        print("  " + text[:400])
    return counts


def tally_refusals(count: int, rows: Iterable[tuple[str, str | None, int, str, bool]]
                   ) -> dict[str, int]:
    """The draft measures' count: each row (a label, SGLang's refusal or None, graphfit's exit
    code and words, whether they agree) tallied as agree / differ; prints up to 8 differing
    rows, how many lines SGLang refused and the counts, and returns the counts."""
    counts = {"agree": 0, "differ": 0}
    refused, wrong = 0, []
    for label, theirs, code, said, ok in rows:
        refused += theirs is not None
        counts["agree" if ok else "differ"] += 1
        if not ok:
            wrong.append(f"{label}: SGLang {theirs and theirs[:120]}; graphfit {code} "
                         f"{said[:120]}")
    for text in wrong[:8]:
        print("  " + text)
    print(f"SGLang refused {refused} of {count} lines")
    print({**counts, "lines": count})
    return counts


def pasted_and_file_child(oracle: str) -> str:
    """The child script (after CHILD_HEAD) of a measure whose oracle module `oracle` (under
    tests.oracle) has `generate(count, seed)` and `compare(case, file)`: each case compared as
    a pasted line and as graphfit's own config file ("file ..." outcomes), the lines that
    differ printed, the outcome counts last."""
    return f"""from tests.oracle import {oracle} as oracle

out = Counter()
for case in oracle.generate({{count}}, {{seed}}):
    for file in (False, True):
        outcome, diffs = oracle.compare(case, file)
        out[("file " if file else "") + outcome] += 1
        if outcome in ("differs", "other refusal"):
            print("DIFFERS", "(file)" if file else "", case, diffs[:1])
print("RESULT", json.dumps(dict(sorted(out.items()))))
"""
