"""Any valid engine description plans, or is refused with a ConfigError: never another
exception, and every plan it gives is proven safe (padded <= capacity for every reachable
batch) with minimal padding (the next captured size up)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import ConfigError, CUDAGraphMode, EngineConfig, plan
from graphfit.planner.engines.described import (
    BufferRule,
    ComponentRule,
    DispatchRule,
    EngineDescription,
    FamilyRule,
    Grid,
    LadderRule,
    register_description,
)

FORMULAS = ("S", "T", "S * q", "min(T, 64)", "max(S * q, 8)", "T // 2", "q", 1, 16)
_count = iter(range(10**9))


@st.composite
def components(draw: st.DrawFn, name: str, speculative: bool) -> ComponentRule:
    keyed = draw(st.sampled_from(("tokens", "requests")))
    if draw(st.booleans()):
        ladder = LadderRule(keyed, draw(st.sampled_from(FORMULAS)), grid=Grid(
            tuple(draw(st.lists(st.integers(1, 16), max_size=4, unique=True))),
            draw(st.integers(1, 16))))
    else:
        ladder = LadderRule(keyed, draw(st.sampled_from(FORMULAS)), sizes=tuple(
            draw(st.lists(st.integers(1, 128), min_size=1, max_size=8, unique=True))))
    mixed = "NONE" if keyed == "requests" else draw(st.sampled_from(("FULL", "PIECEWISE",
                                                                      "NONE")))
    dispatch = DispatchRule(mixed, draw(st.sampled_from(("FULL", "PIECEWISE", "NONE"))),
                            draw(st.sampled_from(("next_size_up", "exact"))))
    kinds = draw(st.lists(st.sampled_from(("mixed", "prefill", "uniform_decode")),
                          min_size=1, max_size=3, unique=True))
    families = tuple(FamilyRule(k, draw(st.sampled_from((None, *FORMULAS)))) for k in kinds)
    buffers = []
    for i in range(draw(st.integers(1, 3))):
        rows = draw(st.sampled_from(("tokens", "requests", "fixed")))
        buffers.append(BufferRule(f"b{i}", draw(st.sampled_from(("int32", "float32"))), rows,
                                  draw(st.sampled_from(FORMULAS)),
                                  offset=draw(st.integers(0, 2)),
                                  fill=draw(st.sampled_from(("zero", "copy-real-rows")))))
    return ComponentRule(name, ladder, families, tuple(buffers), dispatch, speculative)


@st.composite
def descriptions(draw: st.DrawFn) -> EngineDescription:
    first = draw(components("main", False))
    rest = [draw(components("helper", True))] if draw(st.booleans()) else []
    return EngineDescription(f"fuzz-{next(_count)}", "1", (first, *rest))


@settings(max_examples=60)
@given(descriptions(), st.integers(1, 24), st.integers(1, 256), st.integers(0, 3))
def test_any_description_plans_safely_or_is_refused(
        description: EngineDescription, s: int, t: int, k: int) -> None:
    register_description(description)
    try:
        p = plan(EngineConfig(engine=description.name, max_num_seqs=s,
                              max_num_batched_tokens=max(s, t), num_speculative_tokens=k))
    except ConfigError:
        return  # e.g. a size list the engine cannot take; refused by name, never a crash
    assert p.verify().ok
    for name, comp in p.components.items():
        sizes = comp.tables.sizes
        for n in range(1, min(comp.tables.max_size, 64) + 1):
            d = p.pad(n, component=name)
            if d.mode is not CUDAGraphMode.NONE:
                assert d.padded >= n
                if comp.tables.padding:  # the next captured size up, never a larger one
                    assert d.padded == min(x for x in sizes if x >= n)
                else:
                    assert d.padded == n
