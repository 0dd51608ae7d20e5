"""graphfit.testing: strategies produce valid configs; assertions catch short sizing."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
from hypothesis import given

from graphfit import ConfigError, EngineConfig, Plan, plan
from graphfit.planner.analysis import capexpr
from graphfit.testing import (
    assert_plan_safe,
    assert_property,
    engine_configs,
    engine_plans,
    pinned,
    verify,
)
from tests.helpers import ROOT

PAGE = ROOT / "docs" / "engine-developers" / "property-testing.md"


@given(engine_plans())
def test_every_generated_plan_is_safe(p: Plan) -> None:
    assert_plan_safe(p)


@given(engine_configs(engines=("sglang", "trtllm"), methods=("eagle",)))
def test_method_filter(config: EngineConfig) -> None:
    assert config.spec_method.value == "eagle" and config.engine.value in ("sglang", "trtllm")


def test_strategy_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match="engine"):
        engine_configs(engines=("tgi",))
    with pytest.raises(ValueError, match="supports methods"):
        engine_configs(engines=("sglang",), methods=("suffix",))  # DSPARK is modelled since #23


def test_assert_plan_safe_reports_counterexamples() -> None:
    legacy = plan(EngineConfig(runner="v1", engine_version="0.33.0",
                               max_num_seqs=33, num_speculative_tokens=3, spec_method="dflash",
                               ladder="vllm-legacy"))
    with pytest.raises(AssertionError) as info:
        assert_plan_safe(legacy, {"drafter.positions": "S*q"})
    assert "drafter.positions: num_tokens 132 pad to 136 > capacity 132" in str(info.value)
    assert_plan_safe(legacy, {"drafter.positions": "max(S*q, C)"})  # vLLM's fix


def test_fill_audits() -> None:
    sg = plan(EngineConfig(engine="sglang", max_num_seqs=16, spec_method="eagle",
                           num_speculative_tokens=3, speculative_eagle_topk=1))
    with pytest.raises(AssertionError, match="only zero is safe"):
        assert_plan_safe(sg, fills={"drafter.positions": "keep"})
    # a buffer only other configs have is skipped; a name no config has is a typo
    assert verify(sg, fills={"drafter.context_positions": "keep"}).ok
    with pytest.raises(ConfigError, match=r"no engine config has a buffer 'drafter\.no_such'"):
        verify(sg, fills={"drafter.no_such": "keep"})
    # vLLM's padded tails are proven too: a slot mapping left stale writes live KV
    vllm = plan(EngineConfig(max_num_seqs=4))
    assert verify(vllm, fills={"target.positions": "keep"}).ok  # any position is in range
    with pytest.raises(AssertionError, match="only sentinel is safe"):
        assert_plan_safe(vllm, fills={"target.slot_mapping": "keep"})


def test_assert_property() -> None:
    # vLLM 0.33's ladders (0.34 adds a full-batch decode graph to every ladder)
    assert_property(plan(EngineConfig(max_num_seqs=100, engine_version="0.33.0")),
                    "decodes_full")
    with pytest.raises(AssertionError, match="97"):
        assert_property(plan(EngineConfig(max_num_seqs=100, ladder="vllm-legacy",
                                          engine_version="0.33.0")), "decodes_full")


@pytest.mark.parametrize("formula", ["__import__('os')", "S.bit_length()", "S**2", "S/2",
                                     "open('x')", "max()", "S if T else q", "1.5", "[S]"])
def test_capacity_formulas_are_not_eval(formula: str) -> None:
    with pytest.raises(ConfigError, match="capacity:"):
        capexpr.parse(formula)


def test_capacity_formulas() -> None:
    p = plan(EngineConfig(max_num_seqs=33, num_speculative_tokens=3, spec_method="dflash"))
    values = {"S*q": 132, "max(S*q, C)": 256, "T + S": 8225, "T // q - 1": 2047, "R": 256,
              "min(S, 8) * topk": 8, "-S + 2*S": 33}
    for formula, expected in values.items():
        assert capexpr.evaluate(formula, p) == expected, formula
    with pytest.raises(ConfigError, match="negative"):
        capexpr.evaluate("S - T", p)


def test_readme_pytest_example_runs(tmp_path: Path) -> None:
    """The docs page's example is real: extract it and run its tests (hypothesis runs them)."""
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(), re.S)
    example = next(b for b in blocks if "def test_" in b and "graphfit.testing" in b)
    path = tmp_path / "test_buffer_sizing.py"
    path.write_text(example)
    spec = importlib.util.spec_from_file_location("readme_example", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    tests = [f for name, f in vars(module).items() if name.startswith("test_") and callable(f)]
    assert len(tests) == 3
    for test in tests:
        test()


def test_assert_plan_safe_rejects_unknown_buffer_names() -> None:
    seed = plan(EngineConfig(max_num_seqs=33, num_speculative_tokens=3, spec_method="dflash"))
    with pytest.raises(ConfigError, match=r"did you mean drafter\.positions"):
        assert_plan_safe(seed, {"drafter.postions": "S*q"})  # a typo must not check nothing
    plain = plan(EngineConfig(max_num_seqs=33))
    assert_plan_safe(plain, {"drafter.positions": "S*q"})  # other configs have it: skipped
    with pytest.raises(ConfigError, match="this plan has no buffer"):
        assert_plan_safe(plain, {"drafter.positions": "S*q"}, require_all=True)


# -- filters for an engine's CI: what they yield is what plan() accepts, and honours them ------

FILTERED = dict(engines=("vllm",), runners=("v1",), ladders=("vllm",),
                attention_support=("UNIFORM_BATCH",))


@given(engine_configs(**FILTERED))  # type: ignore[arg-type]
def test_filtered_configs_are_planned_and_honour_the_filters(config: EngineConfig) -> None:
    p = plan(config)  # never ConfigError: the strategies yield only configs plan() accepts
    assert config.runner.value == "v1" and config.ladder.value == "vllm"
    assert config.attention_cudagraph_support is not None
    assert config.attention_cudagraph_support.value == "UNIFORM_BATCH"
    # a pinned level leaves one target scenario (drafter levels may still vary)
    assert all(dict(s.settings).get("attention_cudagraph_support") == "UNIFORM_BATCH"
               for s in (p.assumed, *p.covered) if s is not None)


@given(engine_plans(engines=("vllm",), versions=("0.33.0",), runners=("v2",),
                    attention_support=(None,)))
def test_version_filter_and_pinned_scenario(p: Plan) -> None:
    assert p.engine_version.endswith("0.33.0") and p.config.runner.value == "v2"
    only = pinned(p)
    assert not only.covered
    assert only.assumed == p.assumed or p.assumed is None
    # the assumed scenario is one of the scenarios the full plan checks: whatever is safe
    # everywhere is safe there
    assert verify(only).ok == verify(p, scenario="assumed").ok
    if verify(p).ok:
        assert verify(p, scenario="assumed").ok


def test_filter_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match="not one of"):
        engine_configs(runners=("v3",))
    with pytest.raises(ValueError, match="include 'vllm'"):
        engine_configs(engines=("sglang",), runners=("v1",))
    with pytest.raises(ValueError, match="graphfit models"):
        engine_plans(engines=("vllm",), versions=("0.1.0",))
    p = plan(EngineConfig(max_num_seqs=8, runner="v1", engine_version="0.33.0"))
    with pytest.raises(ConfigError, match="scenario"):
        verify(p, scenario="no such scenario")


@given(engine_configs())
def test_every_generated_config_is_one_plan_accepts(config: EngineConfig) -> None:
    assert isinstance(plan(config), Plan)
