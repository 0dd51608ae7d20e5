"""The before/after outcome lines of the SGLang measure scripts that score one drawn set of
lines twice, a graphfit rule switched off ("before", main's reading) and on ("after") (not
a test; measure_sglang_iquest_mtp, measure_sglang_target_dtype).
"""

from __future__ import annotations

import collections


def print_before_after(before_label: str, before: collections.Counter[str],
                       after: collections.Counter[str], keys: tuple[str, ...],
                       first: list[str]) -> None:
    """One line each for `before_label` and "after" with the counts of `keys` in that
    order (an outcome never met counts 0), then the first differences left after."""
    for label, got in ((before_label, before), ("after", after)):
        print(f"{label}: " + ", ".join(f"{k} {got[k]}" for k in keys))
    for detail in first:
        print("  differs:", detail)
