"""Agreement of graphfit with SGLang 0.5.23 over N generated UNO lines (not a test).

    python -m tests.oracle.measure_sglang_uno 300
    python -m tests.oracle.measure_sglang_uno --defaults
    python -m tests.oracle.measure_sglang_uno --moe 300

The second form runs every UNO line naming no attention backend (sglang_uno_compare.
default_lines) on every fake GPU and model shape (SGLang's default by GPU and model).

The third form draws N UNO adapters (adapter_config.json target lists or shorthands) on a
MoE or a dense model and counts how often SGLang's LoRA manager and UNO backend accept or
refuse them as graphfit does (tests/oracle/test_sglang_uno_moe_oracle.py).

Prints how many pasted lines both plan in linear mode, in tree mode, without decode graphs,
both reject, and how many differ (with the first differences); tests/oracle/
sglang_uno_compare.py says what is compared.
"""

from __future__ import annotations

import collections
import sys
import time

from hypothesis import HealthCheck, given, settings

from tests.oracle import sglang_compare as sc
from tests.oracle import sglang_uno_compare as uc


def main(n: int) -> int:
    counts: collections.Counter[str] = collections.Counter()
    shown: list[str] = []
    start = time.perf_counter()

    @settings(max_examples=n, derandomize=False, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(uc.uno_lines())
    def draw(case: tuple[tuple[str, ...], float | None]) -> None:
        outcome, diffs = uc.compare_line(*case)
        counts[outcome] += 1
        if diffs and len(shown) < 10:
            shown.append(f"{' '.join(case[0])} ({case[1]} GB): {diffs[0]}")

    draw()
    total = sum(counts.values())
    agree = total - counts["differs"]
    summary = (f"{total} generated UNO lines in {time.perf_counter() - start:.0f} s: "
               f"{agree}/{total} agree (linear {counts['linear']}, tree {counts['tree']}, "
               f"no decode graphs {counts['no_graphs']}, rejected by both "
               f"{counts['rejected']}), "
               f"{counts['differs']} differ")
    return sc.report(summary, shown, counts)


def defaults() -> int:
    """Every default line x fake GPU x model shape, plus each line with the GPU in GiB."""
    import tempfile

    from tests.oracle.sglang_mtp_oracle import model_dirs

    counts: collections.Counter[str] = collections.Counter()
    shown: list[str] = []
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as root:
        shapes = model_dirs(root)
        cases = [(line, gpu, shape, None) for line in uc.default_lines()
                 for gpu in uc.DEFAULT_GPUS for shape in uc.DEFAULT_SHAPES]
        cases += [(line, "H100", "llama", "80") for line in uc.default_lines()]
        for line, gpu, shape, given in cases:
            outcome, diffs = uc.default_line(line, gpu, shapes[shape], given)
            counts[outcome] += 1
            if diffs and len(shown) < 10:
                shown.append(f"{gpu} {shape} {' '.join(line)}: {diffs[0]}")
    total = sum(counts.values())
    summary = (f"{total} UNO lines without a backend in {time.perf_counter() - start:.0f} s: "
               f"{total - counts['differs']}/{total} agree (fa3 planned by both {counts['fa3']}, "
               f"rejected by both {counts['rejected']}, refused by graphfit for a missing input "
               f"{counts['unrestated']}), {counts['differs']} differ")
    return sc.report(summary, shown, counts)


def moe(n: int) -> int:
    """N generated UNO adapters on a MoE or dense model: SGLang's verdict against graphfit's."""
    from hypothesis import strategies as st

    from tests.oracle import test_sglang_uno_moe_oracle as mo

    counts: collections.Counter[str] = collections.Counter()
    shown: list[str] = []
    start = time.perf_counter()
    leaves = st.sampled_from(mo.LEAVES)
    prefixes = st.sampled_from(("", "mlp.", "model.layers.1.self_attn."))

    @settings(max_examples=n, derandomize=False, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(st.one_of(st.lists(st.tuples(prefixes, leaves).map("".join), max_size=5),
                     st.sampled_from(("all", "all-linear", "lora"))), st.booleans())
    def draw(targets: object, is_moe: bool) -> None:
        adapter = mo._adapter(targets)
        theirs, ours = mo.sglang_verdict(adapter, is_moe), mo.graphfit_verdict(adapter, is_moe)
        if (theirs is None) != (ours is None):
            counts["differs"] += 1
            if len(shown) < 10:
                shown.append(f"{targets} moe={is_moe}: SGLang {theirs}, graphfit {ours}")
        else:
            counts["accepted" if theirs is None else "refused"] += 1

    draw()
    total = sum(counts.values())
    summary = (f"{total} generated UNO adapters in {time.perf_counter() - start:.0f} s: "
               f"{total - counts['differs']}/{total} agree (accepted by both "
               f"{counts['accepted']}, refused by both {counts['refused']}), "
               f"{counts['differs']} differ")
    return sc.report(summary, shown, counts)


if __name__ == "__main__":
    if sys.argv[1:] == ["--defaults"]:
        sys.exit(defaults())
    if sys.argv[1:2] == ["--moe"]:
        sys.exit(moe(int(sys.argv[2]) if len(sys.argv) > 2 else 200))
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 200))
