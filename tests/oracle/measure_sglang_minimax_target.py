"""Measure graphfit against SGLang's own MiniMax-M3 target class over every generated
combination: `python -m tests.oracle.measure_sglang_minimax_target` prints how many lines
SGLang builds / refuses and how many graphfit's answer agrees with (test module's compare)."""

from __future__ import annotations

import itertools
from collections import Counter

from tests.oracle import test_sglang_minimax_target_oracle as t


def main() -> None:
    counts: Counter[str] = Counter()
    for (tp, dp), nested, norm, kv in itertools.product(
            t.LAYOUTS, (False, True), t.FIELDS["qk_norm_type"], (4, 2)):
        fields = {"qk_norm_type": norm, "num_key_value_heads": kv}
        theirs = t.mo.build(t.mo.target_dir(fields, nested), tp, dp)
        counts["sglang refuses" if theirs else "sglang builds"] += 1
        try:
            t._compare(fields, nested, tp, dp)
            counts["agree"] += 1
        except AssertionError as exc:
            counts["differ"] += 1
            print("differs:", exc)
    print(dict(counts))


if __name__ == "__main__":
    main()
