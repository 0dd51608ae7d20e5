"""The ladder optimiser: exact (brute force agrees), safe (keeps the max, verifies), and never
worse than the default ladder at equal graph count."""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from graphfit import ConfigError, EngineConfig, plan
from graphfit.cli.options import parse_sizes
from graphfit.inputs.traces import load_trace
from graphfit.planner.tuning.memory import GraphMemoryModel
from graphfit.planner.tuning.optimize import (
    candidate_sizes,
    expected_waste_total,
    ladder_cost,
    optimal_ladder,
)
from graphfit.planner.tuning.trace import Trace
from graphfit.planner.tuning.tune import default_multiple_of, tune
from tests.helpers import ROOT, load_module, run_cli
from tests.strategies import MODES, plan_or_reject, vllm_configs

TRACES = ROOT / "examples" / "traces"


def _generator() -> ModuleType:
    return load_module(TRACES / "generate.py", "trace_generate")


def pad(ladder: tuple[int, ...], n: int) -> int:
    """Reference padding, written plainly: smallest size >= n, else eager (n itself)."""
    fits = [s for s in ladder if s >= n]
    return min(fits) if fits else n


def brute_force(trace: Trace, K: int, M: int, g: int) -> float:
    """Minimum waste over every ladder of <= K sizes from {g, 2g, ... < M} plus M."""
    pool = range(g, M, g)
    return min(expected_waste_total((*chosen, M), trace)
               for k in range(K) for chosen in combinations(pool, k))


int_traces = st.dictionaries(st.integers(1, 18), st.integers(1, 9), min_size=1, max_size=9).map(
    Trace.from_weights)
float_traces = st.dictionaries(st.integers(1, 18), st.floats(0.001, 1.0), min_size=1,
                               max_size=9).map(Trace.from_weights)


@given(int_traces, st.integers(1, 5), st.integers(1, 14), st.integers(1, 3))
def test_dp_equals_brute_force(trace: Trace, K: int, M: int, g: int) -> None:
    """Exact: also checks that the candidate sizes suffice (brute force tries every size)."""
    ladder = optimal_ladder(trace, K, M, g)
    assert expected_waste_total(ladder, trace) == brute_force(trace, K, M, g)


@given(float_traces, st.integers(1, 5), st.integers(1, 14), st.integers(1, 3))
def test_dp_equals_brute_force_with_probabilities(trace: Trace, K: int, M: int, g: int) -> None:
    ladder = optimal_ladder(trace, K, M, g)
    assert expected_waste_total(ladder, trace) == pytest.approx(brute_force(trace, K, M, g),
                                                                rel=1e-9, abs=1e-12)


def naive_dp(trace: Trace, K: int, M: int, g: int) -> float:
    """The O(K m^2) recurrence over candidates, evaluated with plain sums (no hull)."""
    c = (0, *candidate_sizes(trace, M, g))
    m = len(c) - 1

    def block(i: int, j: int) -> float:
        return sum(w * (c[j] - n) for n, w in zip(trace.sizes, trace.weights) if c[i] < n <= c[j])

    inf = float("inf")
    F = [0.0] + [inf] * m
    best = inf
    for _ in range(min(K, m)):
        F = [inf] + [min(F[i] + block(i, j) for i in range(j)) for j in range(1, m + 1)]
        best = min(best, F[m])
    return best


@given(st.lists(st.integers(1, 120), min_size=1, max_size=300), st.integers(1, 12),
       st.integers(40, 120), st.sampled_from([1, 2, 4]))
def test_dp_equals_the_naive_recurrence_on_larger_instances(
        samples: list[int], K: int, M: int, g: int) -> None:
    trace = Trace.from_samples(samples)
    ladder = optimal_ladder(trace, K, M, g)
    assert expected_waste_total(ladder, trace) == naive_dp(trace, K, M, g)


@given(int_traces, st.integers(1, 8), st.integers(1, 20), st.integers(1, 4))
def test_ladder_shape(trace: Trace, K: int, M: int, g: int) -> None:
    ladder = optimal_ladder(trace, K, M, g)
    assert ladder[-1] == M
    assert list(ladder) == sorted(set(ladder))
    assert all(s % g == 0 for s in ladder[:-1])
    assert len(ladder) == min(K, len(candidate_sizes(trace, M, g)))


@given(int_traces, st.integers(1, 8), st.integers(1, 20), st.integers(1, 3))
def test_more_graphs_never_hurt(trace: Trace, K: int, M: int, g: int) -> None:
    fewer = expected_waste_total(optimal_ladder(trace, K, M, g), trace)
    assert expected_waste_total(optimal_ladder(trace, K + 1, M, g), trace) <= fewer


@given(int_traces, st.integers(1, 20))
def test_enough_graphs_remove_all_padding(trace: Trace, M: int) -> None:
    K = sum(1 for n in trace.sizes if n <= M) + 1
    assert expected_waste_total(optimal_ladder(trace, K, M), trace) == 0


@given(st.lists(st.integers(1, 60), min_size=1, max_size=60),
       st.lists(st.integers(1, 50), min_size=1, max_size=10, unique=True))
def test_ladder_cost_matches_a_per_step_replay(samples: list[int], sizes: list[int]) -> None:
    ladder = tuple(sorted(sizes))
    cost = ladder_cost(ladder, Trace.from_samples(samples))
    padded = [pad(ladder, n) for n in samples]
    assert cost.expected_tokens == pytest.approx(sum(samples) / len(samples))
    assert cost.expected_padded == pytest.approx(sum(padded) / len(samples))
    assert cost.graphed_fraction == pytest.approx(
        sum(n <= ladder[-1] for n in samples) / len(samples))
    assert 0 <= cost.waste_fraction < 1


def test_invalid_arguments_are_config_errors() -> None:
    trace = Trace.from_samples([3, 5])
    for kwargs in ({"max_graphs": 0, "max_size": 8}, {"max_graphs": 2, "max_size": 0},
                   {"max_graphs": 2, "max_size": 8, "multiple_of": 0}):
        with pytest.raises(ConfigError):
            optimal_ladder(trace, **kwargs)
    with pytest.raises(ConfigError, match="ascending"):
        ladder_cost((4, 4), trace)


# ---- tune: the optimiser applied to an engine config --------------------------------------

@given(vllm_configs(max_seqs=48, max_tokens=1024, modes=MODES[1:]), st.data())
def test_tune_keeps_its_promises(config: EngineConfig, data: st.DataObject) -> None:
    assume(plan_or_reject(config).has_graphs)  # no size fits: nothing to optimise
    T = config.max_num_batched_tokens
    samples = data.draw(st.lists(st.integers(1, T), min_size=1, max_size=200))
    result = tune(config, Trace.from_samples(samples))
    base = plan(config)
    # the max needed for coverage and capacity safety is kept
    assert result.chosen.sizes[-1] == result.max_size == base.max_capture_size
    # never worse than the default ladder, with at most its graph count (fewer only when
    # the trace has fewer useful sizes: then no "equal count" is claimed)
    assert result.chosen.num_graphs <= len(base.capture_sizes)
    assert result.chosen.expected_waste <= result.baseline.expected_waste + 1e-9
    assert (result.equal_count is not None) == (
        result.chosen.num_graphs == result.baseline.num_graphs)
    # the list to paste is captured exactly as printed (vLLM 0.33 and earlier; 0.34 adds
    # graphs of its own to a list, and then a warning says what it would capture), and its
    # plan is proven safe
    captured = plan(result.tuned_config).capture_sizes
    if config.engine_version in ("0.32.0", "0.33.0"):
        assert captured == result.chosen.sizes
    else:
        assert captured == result.chosen.sizes or any(
            f"would capture {','.join(map(str, captured))}" in w for w in result.warnings)
    assert result.verification.ok
    assert parse_sizes(" ".join(result.capture_sizes_flag.split()[1:])) == result.chosen.sizes
    g = default_multiple_of(config)
    assert all(s % g == 0 for s in result.chosen.sizes)


def test_on_0_34_the_ladder_keeps_the_graphs_the_engine_adds() -> None:
    """vLLM 0.34 adds a decode graph for the full batch (max_num_seqs requests) to any list
    it is given (config/vllm.py:2558-2737): the optimised ladder is built around it, so the
    list to paste is captured exactly as printed, at the same graph count."""
    config = EngineConfig(max_num_seqs=64, engine_version="0.34.0")
    trace = Trace.from_samples([t for t in range(1, 129) for _ in range(1 + t % 7)])
    base = plan(config)
    added = set(plan(config.replace(cudagraph_capture_sizes=(20, 128),
                                    max_cudagraph_capture_size=None)).capture_sizes) - {20, 128}
    assert added == {64}
    result = tune(config, trace)
    assert 64 in result.chosen.sizes
    assert plan(result.tuned_config).capture_sizes == result.chosen.sizes
    assert result.chosen.num_graphs == len(base.capture_sizes)
    assert result.chosen.expected_waste <= result.baseline.expected_waste
    assert any("adds 64 to any list" in w for w in result.warnings)
    assert not any("would capture" in w for w in result.warnings)


def test_one_solve_at_the_count_asked_for() -> None:
    config = EngineConfig(max_num_seqs=64, engine_version="0.33.0")  # 0.33's 11-size ladder
    trace = Trace.from_samples([3, 3, 5, 9, 17, 100, 900])
    default = tune(config, trace)
    # only 6 useful sizes on this trace: 6 graphs against the default's 11, never "equal"
    assert default.graph_counts == (6, default.baseline.num_graphs)
    assert default.baseline.num_graphs > 6
    assert default.equal_count is None and default.reduction_at_equal_count is None
    busy = Trace.from_samples(range(1, 129))
    full = tune(config, busy)
    assert full.equal_count is full.chosen and full.reduction_at_equal_count == full.reduction
    fewer = tune(config, trace, max_graphs=4)
    assert fewer.equal_count is None and fewer.reduction_at_equal_count is None
    assert fewer.graph_counts == (4, default.baseline.num_graphs)
    assert fewer.reduction == pytest.approx(
        1 - fewer.chosen.expected_waste / fewer.baseline.expected_waste)


def test_spec_decode_sizes_are_multiples_of_q() -> None:
    config = EngineConfig(max_num_seqs=33, num_speculative_tokens=3, spec_method="dflash",
                          runner="v1", engine_version="0.33.0")
    assert default_multiple_of(config) == 4
    assert default_multiple_of(config.replace(cudagraph_mode="PIECEWISE")) == 1
    assert default_multiple_of(config.replace(runner="v2")) == 1
    trace = Trace.from_samples([1, 2, 3, 5, 7, 9, 33 * 4, 131])
    result = tune(config, trace, max_graphs=4)
    assert all(s % 4 == 0 for s in result.chosen.sizes)
    assert result.chosen.sizes[-1] == 256
    rounded = tune(config, trace, max_graphs=4, multiple_of=1)
    assert any("rounds it to multiples of q=4" in w for w in rounded.warnings)


def test_tune_rejects_inconsistent_input() -> None:
    config = EngineConfig(max_num_seqs=8, max_num_batched_tokens=64)
    with pytest.raises(ConfigError, match="exceeds max_num_batched_tokens"):
        tune(config, Trace.from_samples([65]))
    with pytest.raises(ConfigError, match="NONE"):
        tune(config.replace(cudagraph_mode="NONE"), Trace.from_samples([3]))
    with pytest.raises(ConfigError, match="max_graphs"):
        tune(config, Trace.from_samples([3]), max_graphs=0)
    with pytest.raises(ConfigError, match="multiple_of"):
        tune(config, Trace.from_samples([3]), multiple_of=0)
    with pytest.raises(ConfigError, match="memory model"):
        tune(config, Trace.from_samples([3]), budget_bytes=1e9)
    # batch-size engines: the trace counts requests, bounded by max_num_seqs
    with pytest.raises(ConfigError, match="batch size 9 exceeds max_num_seqs 8"):
        tune(config.replace(engine="sglang", ladder="auto", runner=None),
             Trace.from_samples([9]))


@given(st.lists(st.integers(1, 512), min_size=1, max_size=100), st.integers(1, 60),
       st.floats(1.0, 400.0))
def test_budget_caps_the_graph_count(samples: list[int], K: int, budget_mib: float) -> None:
    config = EngineConfig(max_num_seqs=256, max_num_batched_tokens=512)
    model = GraphMemoryModel(bytes_per_captured_token=65536, per_graph_overhead_bytes=3 << 20)
    budget = budget_mib * (1 << 20)
    try:
        result = tune(config, Trace.from_samples(samples), max_graphs=K, memory=model,
                      budget_bytes=budget)
    except ConfigError as exc:  # not even the largest graph fits
        assert model.ladder_bytes([512]) > budget, exc
        return
    assert result.budget_graphs is not None
    assert result.chosen.num_graphs <= min(K, result.budget_graphs)
    assert model.ladder_bytes(result.chosen.sizes) <= budget
    assert result.chosen.sizes[-1] == 512


@pytest.mark.parametrize("name", ["decode_heavy_spec", "chat_chunked_prefill",
                                  "interactive_low_concurrency"])
def test_committed_traces_beat_the_default_ladder(name: str) -> None:
    workload = next(w for w in _generator().WORKLOADS if w.name == name)
    code, out, err = run_cli(["optimize", "--trace", str(TRACES / workload.file_name),
                              "--json", *workload.config_flags()])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["schema"] == "graphfit.optimize/1"
    assert doc["equal_count"]["num_graphs"] == doc["baseline"]["num_graphs"]
    assert doc["equal_count"]["expected_waste"] < doc["baseline"]["expected_waste"]
    assert doc["reduction_at_equal_count"] > 0
    assert doc["reduction"] == {"graphs": doc["optimized"]["num_graphs"],
                                "default_graphs": doc["baseline"]["num_graphs"],
                                "fraction": doc["reduction_at_equal_count"]}
    assert doc["optimized"]["capture_sizes"][-1] == doc["max_capture_size"]
    assert doc["verification"]["ok"]
    # vLLM 0.33 takes the list space-separated (a comma list is refused)
    assert doc["cli"] == "--cudagraph-capture-sizes " + " ".join(
        map(str, doc["optimized"]["capture_sizes"]))
    assert doc["paste"]["lines"][0] == doc["cli"]


def test_cli_prints_the_flag_to_paste_last(tmp_path: Path) -> None:
    # vLLM 0.33 captures a pasted list as given (0.34 adds a full-batch decode graph)
    trace = tmp_path / "t.csv"
    trace.write_text("num_tokens\n" + "\n".join(str(n) for n in (3, 3, 5, 9, 17, 100, 900)))
    code, out, err = run_cli(["optimize", "--max-num-seqs", "64", "--trace", str(trace),
                              "--max-graphs", "5", "--engine-version", "0.33.0"])
    assert code == 0, err
    last = out.strip().splitlines()[-1]
    assert last.startswith("--cudagraph-capture-sizes ")
    sizes = parse_sizes(" ".join(last.split()[1:]))
    assert len(sizes) == 5 and sizes[-1] == plan(EngineConfig(
        max_num_seqs=64, engine_version="0.33.0")).max_capture_size
    # the verdict names both graph counts; it never claims an equal count it did not solve
    default = len(plan(EngineConfig(max_num_seqs=64, engine_version="0.33.0")).capture_sizes)
    assert f"with 5 graphs against its {default}" in out and "SAFE" in out
    assert "equal" not in out
    cc = out.strip().splitlines()[-2]  # the -cc form, one line above
    assert cc == f"-cc '{json.dumps({'cudagraph_capture_sizes': list(sizes)})}'"
    # paste it back into a vllm serve line: graphfit plans exactly that ladder, safe
    for pasted in (last, cc):
        code, out, err = run_cli(["plan", "--json", "--engine-version", "0.33.0", "--",
                                  "vllm serve m --max-num-seqs 64 "
                                  + pasted])
        assert code == 0, err
        assert tuple(json.loads(out)["ladder"]["capture_sizes"]) == sizes
    assert load_trace(trace).total_weight == 7


@pytest.mark.parametrize(("args", "message"), [
    (["--trace", "missing.csv"], "missing.csv"),
    (["--trace", "BAD", "--max-graphs", "0"], "max_graphs"),
    (["--trace", "BAD", "--budget-mib", "100"], "memory model"),
    (["--trace", "BAD", "--bytes-per-token", "-1"], "bytes-per-token"),
    (["--trace", "BAD", "--max-num-batched-tokens", "64"], "exceeds"),
    ([], "--trace"),
])
def test_cli_bad_input_is_one_error_line(tmp_path: Path, args: list[str],
                                         message: str) -> None:
    trace = tmp_path / "t.json"
    trace.write_text("[3, 100]")
    args = [str(trace) if a == "BAD" else a for a in args]
    code, out, err = run_cli(["optimize", "--max-num-seqs", "32", *args])
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]
    assert "Traceback" not in err + out
