"""The shared path, checked against brute force: the interval walk that sizes and proves every
engine's buffers agrees with dispatching every reachable batch one by one through `Plan.pad`."""

from __future__ import annotations

from hypothesis import given, settings

from graphfit import (
    Axis,
    BufferPlan,
    ComponentPlan,
    ConfigError,
    CUDAGraphMode,
    Engine,
    EngineConfig,
    GraphKey,
    LadderPolicy,
    plan,
)
from graphfit.planner import BatchFamily, Requests
from graphfit.planner.core.batches import fed_streams
from graphfit.planner.core.dispatch import DispatchTables
from graphfit.planner.core.rows import RowRule, rule_for
from graphfit.planner.engines.registry import MODELS, engine_model, policy_engine
from graphfit.testing import engine_configs


def _batches(tables: DispatchTables, families: tuple[BatchFamily, ...]
             ) -> list[tuple[str, int, int, int, bool]]:
    """(family, tokens, token rows, request rows, graph) for every reachable batch, one by one,
    through the dispatcher's per-batch lookup."""
    S = tables.max_num_seqs
    out = []
    for family in families:
        units = family.points if family.points is not None else range(family.first,
                                                                       family.last + 1)
        for a in units:
            n = family.step * a
            real = a if family.requests is Requests.PER_UNIT else min(n, S)
            if not family.padded:
                out.append((family.name, n, n, real, False))
                continue
            d = tables.lookup(n, uniform_decode=family.uniform)
            graph = d.mode is not CUDAGraphMode.NONE
            if not graph and not family.eager_writes:
                continue
            static = (d.num_reqs if d.num_reqs is not None else min(d.padded, S)) if graph else 0
            out.append((family.name, n, d.padded, max(real, static), graph))
    return out


def _variants(comp: ComponentPlan, *, engine: bool
              ) -> list[tuple[str, DispatchTables, tuple[BatchFamily, ...]]]:
    """The assumed scenario and every covered one; engine=False: graphfit's runtime batches."""
    out = [("", comp.tables, comp.families)]
    out += [(a.label, a.tables, a.families) for a in comp.alternatives]
    return [(label, tables, tuple(f for f in families if engine or not f.engine_only))
            for label, tables, families in out]


# a component's scenarios with their batches expanded: (scenario, families by name, whether any
# family is padded, every reachable batch); computed once per component and shared by its
# buffers (the batches do not depend on the buffer)
Expanded = list[tuple[str, dict[str, BatchFamily], bool, list[tuple[str, int, int, int, bool]]]]


def _expand(variants: list[tuple[str, DispatchTables, tuple[BatchFamily, ...]]]) -> Expanded:
    return [(label, {f.name: f for f in families}, any(f.padded for f in families),
             _batches(tables, families)) for label, tables, families in variants]


def _rows(buf: BufferPlan, expanded: Expanded) -> dict[tuple[str, str, int], int]:
    """Rows of `buf` per (scenario, family, batch), brute force."""
    rows = {}
    for label, by_name, any_padded, batches in expanded:
        # the rule depends on the family and whether it replays a graph only
        rules: dict[tuple[str, bool], RowRule | None] = {}
        for fam, n, tok, req, graph in batches:
            if buf.axis is Axis.FIXED:  # filled whole by every dispatched step
                if by_name[fam].padded or not any_padded:
                    rows[(label, fam, n)] = buf.reference_capacity
                continue
            if (fam, graph) not in rules:
                # graph-only streams (a graph runner's private inputs) are fed by replays alone
                rules[(fam, graph)] = rule_for(buf.demands,
                                               fed_streams(by_name[fam].streams, graph))
            rule = rules[(fam, graph)]
            if rule is not None:
                rows[(label, fam, n)] = rule.rows(tok, req)
    return rows


@given(engine_configs(max_seqs=48))
@settings(max_examples=40)
def test_capacities_and_violations_match_brute_force(config: EngineConfig) -> None:
    try:
        p = plan(config.replace(max_num_batched_tokens=max(config.max_num_seqs, 512)))
    except ConfigError:  # the engine rejects it: nothing to compare
        return
    expanded = {(name, engine): _expand(_variants(comp, engine=engine))
                for name, comp in p.components.items() for engine in (False, True)}
    rows: dict[tuple[str, str, bool], dict[tuple[str, str, int], int]] = {}

    def rows_of(name: str, buf: BufferPlan, engine: bool) -> dict[tuple[str, str, int], int]:
        """`_rows` of one component's buffer, for graphfit's batches or the engine's, once."""
        if (name, buf.key, engine) not in rows:
            rows[(name, buf.key, engine)] = _rows(buf, expanded[(name, engine)])
        return rows[(name, buf.key, engine)]

    def own(name: str, buf: BufferPlan) -> tuple[int, int]:
        """(capacity, engine rows) one component's batches need of the buffer."""
        ours, theirs = rows_of(name, buf, False), rows_of(name, buf, True)
        capacity = max(ours.values(), default=max(theirs.values(),
                                                  default=buf.reference_capacity))
        return capacity, max(theirs.values(), default=capacity)

    for name, comp in p.components.items():
        for buf in comp.buffers:
            ours, theirs = rows_of(name, buf, False), rows_of(name, buf, True)
            # a shared buffer is one tensor: sized for the most rows any of its users needs
            users = [own(n, b) for n, c in p.components.items() for b in c.buffers
                     if buf.shared and b.shared == buf.shared] or [own(name, buf)]
            assert buf.capacity == max(u[0] for u in users), buf.key
            assert buf.engine_rows == max(u[1] for u in users), buf.key
            if buf.engine_rows == 0:
                continue
            # an audit of the engine's sizing: every batch the engine's code runs
            cut = buf.engine_rows - 1 - (buf.engine_rows - 1) // 3  # some fit, some do not
            audit = p.verify({buf.key: cut})
            expected = {n for (_, _, n), r in theirs.items() if r > cut}
            assert {v.num_tokens for v in audit.violations} == expected, buf.key
            # graphfit's own runtime: only its batches
            cut = buf.capacity - 1 - (buf.capacity - 1) // 3
            audit = p.verify({buf.key: cut}, engine=False)
            expected = {n for (_, _, n), r in ours.items() if r > cut}
            assert {v.num_tokens for v in audit.violations} == expected, buf.key


@given(engine_configs(max_seqs=48))
@settings(max_examples=40)
def test_graph_keys_are_exactly_the_replayed_shapes(config: EngineConfig) -> None:
    try:
        p = plan(config.replace(max_num_batched_tokens=max(config.max_num_seqs, 512)))
    except ConfigError:
        return
    for name, comp in p.components.items():
        replayed = {GraphKey(tok, req) for _, _, tok, req, graph
                    in _batches(comp.tables, comp.runtime_families) if graph}
        assert set(p.graph_keys(name)) == replayed


def test_registry_is_the_one_engine_switch() -> None:
    assert set(MODELS) == set(Engine)
    for engine, model in MODELS.items():
        assert engine_model(engine) is model and model.engine is engine and model.version
        for policy in model.policies:
            assert policy_engine(policy) is engine
    assert policy_engine(LadderPolicy.EXPLICIT) is None


def test_plans_name_the_engine_version_they_model() -> None:
    assert plan(EngineConfig(max_num_seqs=8)).engine_version.startswith("vLLM ")
    assert plan(EngineConfig(engine="sglang", max_num_seqs=8)).engine_version.startswith(
        "SGLang ")


def test_fixed_size_buffers_are_audited_whole() -> None:
    """MRV2 DFlash's sampling slots (S*k) and DSpark's step columns are filled whole at every
    dispatched drafter step: an audit that gives one fewer row fails every such batch, and
    one that gives all of them passes (they used to be skipped: always SAFE)."""
    for method in ("dflash", "dspark"):
        p = plan(EngineConfig(max_num_seqs=33, num_speculative_tokens=3, spec_method=method,
                              runner="v2"))
        fixed = [b for c in p.components.values() for b in c.buffers if b.axis is Axis.FIXED]
        assert fixed, method
        for buf in fixed:
            comp = p.components[buf.component]
            theirs = _rows(buf, _expand(_variants(comp, engine=True)))
            assert theirs and set(theirs.values()) == {buf.reference_capacity}
            short = p.verify({buf.key: buf.reference_capacity - 1})
            assert {v.num_tokens for v in short.violations} == {n for (_, _, n) in theirs}
            assert all(r.fixed and r.needed == buf.reference_capacity for r in short.ranges())
            assert p.verify({buf.key: buf.reference_capacity}).ok
