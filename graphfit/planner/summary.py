"""Summaries of a plan for people: padding waste per batch family, compact ladders."""

from __future__ import annotations

from graphfit.planner.plan import Plan
from graphfit.planner.waste import PaddingStats, padding_stats


def plan_padding(plan: Plan) -> list[PaddingStats]:
    """Waste for the batch families a serving engine actually sees."""
    cfg = plan.config
    S, q, T = cfg.max_num_seqs, cfg.uniform_query_len, cfg.max_num_batched_tokens
    top = min(plan.max_capture_size, T)
    out = [
        padding_stats(f"target mixed, 1..{top} tokens", range(1, top + 1), plan.pad),
        padding_stats(
            f"target uniform decode, 1..{min(S, T // q)} reqs x {q}",
            (r * q for r in range(1, min(S, T // q) + 1)),
            lambda n: plan.pad(n, uniform_decode=True)),
    ]
    if "drafter" in plan.components:
        out.append(padding_stats(
            f"drafter, 1..{top} tokens", range(1, top + 1),
            lambda n: plan.pad(n, component="drafter")))
    return out


def compress_sizes(sizes: tuple[int, ...]) -> str:
    """1,2,4,8,16,...,248 -> "1, 2, 4, 8..248/8": arithmetic runs of 4+ shown as ranges."""
    parts: list[str] = []
    i = 0
    while i < len(sizes):
        j = i
        if i + 1 < len(sizes):
            step = sizes[i + 1] - sizes[i]
            while j + 1 < len(sizes) and sizes[j + 1] - sizes[j] == step:
                j += 1
        if j - i >= 3:
            parts.append(f"{sizes[i]}..{sizes[j]}/{sizes[i + 1] - sizes[i]}")
            i = j + 1
        else:
            parts.append(str(sizes[i]))
            i += 1
    return ", ".join(parts)
