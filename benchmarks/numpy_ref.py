"""The reference the issue measured against: the same checks as `Plan.verify`, batch by batch,
as numpy arrays over the padding tables.

For every family of every component, every reachable batch is dispatched with
`np.searchsorted` over the capture sizes, its token and request rows are computed as arrays,
and every buffer that reads the family is compared with its capacity (and, for padded graph
batches, its tail fill with the fills that are safe there). The counts must equal
`Plan.verify`'s (the benchmarks check they do before timing), so the two measure the same
work done two ways: graphfit by intervals in pure Python, this per batch in numpy.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from graphfit import Plan
from graphfit.planner.core.batches import Requests
from graphfit.planner.core.buffers import Axis, FillKind
from graphfit.planner.core.dispatch import static_requests
from graphfit.planner.core.enums import CUDAGraphMode
from graphfit.planner.core.rows import rule_for


@dataclass(frozen=True)
class Checked:
    checked: int  # (batch, buffer) pairs
    short: int  # pairs whose rows exceed the capacity
    unsafe_tails: int  # padded graph batches whose tail fill is unsafe, per buffer

    @property
    def ok(self) -> bool:
        return not self.short and not self.unsafe_tails


def verify_batches(p: Plan, capacities: Mapping[str, int] | None = None,
                   fills: Mapping[str, FillKind] | None = None) -> Checked:
    """Every reachable batch of every buffer, checked with numpy (the assumed scenario: plan
    with a known attention support level to compare with `Plan.verify`)."""
    caps = {b.key: b.capacity for c in p.components.values() for b in c.buffers}
    caps.update(capacities or {})
    kinds = {b.key: b.fill.kind for c in p.components.values() for b in c.buffers}
    kinds.update(fills or {})
    checked = short = unsafe = 0
    for comp in p.components.values():
        tables = comp.tables
        S = tables.max_num_seqs
        sizes = np.asarray(tables.sizes, dtype=np.int64)
        for family in comp.families:
            if family.empty or (family.engine_only and capacities is None):
                continue  # verify() without capacities: the batches graphfit's runtime runs
            a = (np.asarray(family.points, dtype=np.int64) if family.points is not None
                 else np.arange(family.first, family.last + 1, dtype=np.int64))
            n = family.step * a
            real = a if family.requests is Requests.PER_UNIT else np.minimum(n, S)
            graph = np.zeros(n.shape, dtype=bool)
            tokens, requests = n, real
            if family.padded and sizes.size:
                entries = tables.uniform if family.uniform else tables.mixed
                replays = np.asarray([e.mode is not CUDAGraphMode.NONE for e in entries])
                padded = np.asarray([e.padded for e in entries], dtype=np.int64)
                static = np.asarray([static_requests(e, S) for e in entries], dtype=np.int64)
                index = np.searchsorted(sizes, n)  # bisect_left: the smallest size >= n
                inside = index < sizes.size
                index = np.minimum(index, sizes.size - 1)
                graph = inside & replays[index]
                if not tables.padding:
                    graph &= sizes[index] == n
                tokens = np.where(graph, padded[index], n)
                requests = np.where(graph, np.maximum(static[index], real), real)
                tails = graph & ((n < padded[index]) | (real < static[index]))
                if not family.eager_writes:  # eager batches never touch the buffers
                    keep = graph
                    tokens, requests, tails = tokens[keep], requests[keep], tails[keep]
            else:
                tails = graph
            writes_fixed = family.padded or not any(f.padded for f in comp.families)
            for buf in comp.buffers:
                if buf.axis is Axis.FIXED:  # filled whole by every dispatched step
                    if not writes_fixed:
                        continue
                    rows = np.full(tokens.shape, buf.reference_capacity, dtype=np.int64)
                    checked += rows.size
                    short += int(np.count_nonzero(rows > caps[buf.key]))
                    continue
                rule = rule_for(buf.demands, family.streams)
                if rule is None:
                    continue
                rows = np.zeros(tokens.shape, dtype=np.int64)
                for offset in rule.token_offsets:
                    rows = np.maximum(rows, tokens + offset)
                for offset in rule.request_offsets:
                    rows = np.maximum(rows, requests + offset)
                checked += rows.size
                short += int(np.count_nonzero(rows > caps[buf.key]))
                safe = buf.safe_fills is None or kinds[buf.key] in buf.safe_fills
                if not safe:
                    unsafe += int(np.count_nonzero(tails))
    return Checked(checked, short, unsafe)
