"""The shared path, checked against brute force: the interval walk that sizes and proves every
engine's buffers agrees with dispatching every reachable batch one by one through `Plan.pad`."""

from __future__ import annotations

from hypothesis import given, settings

from graphfit import (
    ConfigError,
    CUDAGraphMode,
    Engine,
    EngineConfig,
    GraphKey,
    LadderPolicy,
    Plan,
    Requests,
    plan,
)
from graphfit.planner.core.batches import fed_streams
from graphfit.planner.core.rows import rule_for
from graphfit.planner.engines.registry import MODELS, engine_model, policy_engine
from graphfit.testing import engine_configs


def _batches(p: Plan, component: str) -> list[tuple[str, int, int, int, bool]]:
    """(family, tokens, token rows, request rows, graph) for every reachable batch, one by one,
    through the public dispatcher."""
    comp = p.component(component)
    S = comp.tables.max_num_seqs
    out = []
    for family in comp.families:
        units = family.points if family.points is not None else range(family.first,
                                                                       family.last + 1)
        for a in units:
            n = family.step * a
            real = a if family.requests is Requests.PER_UNIT else min(n, S)
            if not family.padded:
                out.append((family.name, n, n, real, False))
                continue
            d = p.pad(n, uniform_decode=family.uniform, component=component)
            graph = d.mode is not CUDAGraphMode.NONE
            if not graph and not family.eager_writes:
                continue
            static = (d.num_reqs if d.num_reqs is not None else min(d.padded, S)) if graph else 0
            out.append((family.name, n, d.padded, max(real, static), graph))
    return out


@given(engine_configs(max_seqs=48))
@settings(max_examples=40)
def test_capacities_and_violations_match_brute_force(config: EngineConfig) -> None:
    try:
        p = plan(config.replace(max_num_batched_tokens=max(config.max_num_seqs, 512)))
    except ConfigError:  # the engine rejects it: nothing to compare
        return
    for name, comp in p.components.items():
        batches = _batches(p, name)
        families = {f.name: f for f in comp.families}
        for buf in comp.buffers:
            rows = {}
            for fam, n, tok, req, graph in batches:
                # graph-only streams (a graph runner's private inputs) are fed by replays alone
                rule = rule_for(buf.demands, fed_streams(families[fam].streams, graph))
                if rule is not None:
                    rows[(fam, n)] = rule.rows(tok, req)
            assert buf.capacity == max(rows.values(), default=buf.reference_capacity), buf.key
            if buf.capacity == 0:
                continue
            cut = buf.capacity - 1 - (buf.capacity - 1) // 3  # some batches fit, some do not
            audit = p.verify({buf.key: cut})
            expected = {n for (_, n), r in rows.items() if r > cut}
            assert {v.num_tokens for v in audit.violations} == expected, buf.key


@given(engine_configs(max_seqs=48))
@settings(max_examples=40)
def test_graph_keys_are_exactly_the_replayed_shapes(config: EngineConfig) -> None:
    try:
        p = plan(config.replace(max_num_batched_tokens=max(config.max_num_seqs, 512)))
    except ConfigError:
        return
    for name in p.components:
        replayed = {GraphKey(tok, req) for _, _, tok, req, graph in _batches(p, name) if graph}
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
