"""The interval proof is exact: it agrees, batch by batch, with a brute-force check.

`Plan.verify` and the capacities walk each family's batches by segments and clear a family
whose peak fits at once; the reference here visits every reachable batch one at a time,
finds its graph by scanning the capture sizes, and checks every buffer. Both must report the
same short (buffer, batch) pairs, the same unsafe tails, the same number of checks, and
every capacity must be the brute-force peak.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import Axis, CUDAGraphMode, Dispatch, FillKind, Plan
from graphfit.planner.core.dispatch import DispatchTables, static_requests
from graphfit.planner.core.rows import rule_for
from graphfit.testing import sglang_configs, trtllm_configs, vllm_configs
from tests.strategies import plan_or_reject


def _graph(tables: DispatchTables, n: int, uniform: bool) -> Dispatch | None:
    """The graph a batch of n tokens replays, by scanning the sizes (None: eager)."""
    entries = tables.uniform if uniform else tables.mixed
    for i, (size, hit) in enumerate(zip(tables.sizes, entries)):
        if size >= n:
            if hit.mode is CUDAGraphMode.NONE or (not tables.padding and size != n):
                return None
            if tables.min_tokens and n < tables.min_tokens[i]:  # padding bounded per size
                return None
            return hit
    return None


@dataclass
class Brute:
    short: set[tuple[str, int]] = field(default_factory=set)
    tails: set[tuple[str, int]] = field(default_factory=set)
    peaks: dict[str, int] = field(default_factory=dict)  # graphfit's runtime batches
    engine_peaks: dict[str, int] = field(default_factory=dict)  # every batch the engine runs
    checked: int = 0


def brute_force(p: Plan, caps: dict[str, int], fills: dict[str, FillKind]) -> Brute:
    """Every batch of every family (engine-only ones too: an audit), in every scenario."""
    out = Brute()
    for comp in p.components.values():
        S = comp.tables.max_num_seqs
        variants = [(comp.tables, comp.families)]
        variants += [(alt.tables, alt.families) for alt in comp.alternatives]
        for tables, families, fam in ((t, fs, f) for t, fs in variants for f in fs):
            # a fixed-size buffer is filled whole by every dispatched step (all of its rows)
            writes_fixed = fam.padded or not any(f.padded for f in families)
            units = fam.points if fam.points is not None else range(fam.first, fam.last + 1)
            for a in units:
                n, real = fam.step * a, fam.requests_at(a, S)
                d = _graph(tables, n, fam.uniform) if fam.padded else None
                if d is None and fam.padded and not fam.eager_writes:
                    continue  # eager batches that never touch the buffers
                static = 0 if d is None else static_requests(d, S)
                for buf in comp.buffers:
                    rule = rule_for(buf.demands, fam.streams)
                    if buf.axis is Axis.FIXED and writes_fixed:
                        rows = buf.reference_capacity
                    elif rule is None:
                        continue
                    elif d is None and rule.graph_only:
                        out.checked += 1  # fed by graph replays only: an eager batch fits
                        continue
                    else:
                        rows = (rule.rows(n, real) if d is None
                                else rule.rows(d.padded, max(static, real)))
                    out.checked += 1
                    out.engine_peaks[buf.key] = max(out.engine_peaks.get(buf.key, 0), rows)
                    if not fam.engine_only:
                        out.peaks[buf.key] = max(out.peaks.get(buf.key, 0), rows)
                    if rows > caps[buf.key]:
                        out.short.add((buf.key, n))
                    tail = (d is not None and (n < d.padded or real < static)
                            and buf.axis is not Axis.FIXED)
                    if tail and buf.safe_fills is not None and \
                            fills[buf.key] not in buf.safe_fills:
                        out.tails.add((buf.key, a))
    return out


def _agree(p: Plan, data: st.DataObject) -> None:
    buffers = [b for c in p.components.values() for b in c.buffers]
    caps = {b.key: max(0, b.capacity - data.draw(st.sampled_from((0, 0, 1, 3, 64))))
            for b in buffers}
    fills = {b.key: data.draw(st.sampled_from((b.fill.kind,) * 3 + tuple(FillKind)))
             for b in buffers}
    result = p.verify(caps, fills)
    ref = brute_force(p, caps, fills)
    assert {(v.key, v.num_tokens) for v in result.violations} == ref.short
    assert {(v.key, v.batch) for v in result.fill_violations} == ref.tails
    assert result.checked == ref.checked
    assert result.ok == (not ref.short and not ref.tails)
    for b in buffers:  # graphfit's own capacity and the engine's rows are exact peaks
        if b.key in ref.peaks:
            assert b.capacity == ref.peaks[b.key], b.key
        if b.key in ref.engine_peaks:
            assert b.engine_rows == max(b.capacity, ref.engine_peaks[b.key]), b.key


@given(vllm_configs(max_seqs=48, max_tokens=600, max_k=7), st.data())
@settings(max_examples=40, deadline=None)
def test_vllm_verify_is_the_brute_force_check(config: object, data: st.DataObject) -> None:
    _agree(plan_or_reject(config), data)  # type: ignore[arg-type]


@given(st.one_of(sglang_configs(max_seqs=32, max_k=4), trtllm_configs(max_seqs=48,
                                                                       max_tokens=600)),
       st.data())
@settings(max_examples=30, deadline=None)
def test_batch_engines_verify_is_the_brute_force_check(config: object,
                                                       data: st.DataObject) -> None:
    _agree(plan_or_reject(config), data)  # type: ignore[arg-type]
