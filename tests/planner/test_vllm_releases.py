"""vLLM releases as deltas of 0.33 (graphfit/planner/engines/vllm/releases/): each registered
release names itself, its predecessor and its own flag table; 0.34's rules hold as
properties (the oracle, tests/oracle/test_vllm_release_oracle.py, checks them against vLLM's
code); the draft layers' support lowers the runner's mode on every release; a pasted line
that only a newer release's parser reads is planned as that release's."""

from __future__ import annotations

import json
from dataclasses import FrozenInstanceError
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import graphfit
from graphfit import ConfigError, EngineConfig, plan
from graphfit.planner.engines.registry import engine_model, versions
from graphfit.planner.engines.vllm import VllmModel
from graphfit.planner.engines.vllm.split import decode_grid, decode_shapes, prefill_grid
from graphfit.testing import vllm_configs
from tests.helpers import run_cli

FLAGS = Path(graphfit.__path__[0], "inputs", "flags")


def test_every_release_is_a_delta_naming_its_data() -> None:
    releases = versions("vllm")
    assert {"0.32.0", "0.33.0", "0.34.0"} <= set(releases)
    for release in releases:
        model = engine_model("vllm", release)
        assert isinstance(model, VllmModel)
        assert model.release == release and model.version == f"vLLM {release}"
        changes = model.changes
        assert changes.previous is None or changes.previous in releases
        table = json.loads(Path(FLAGS, changes.flag_table).read_text())
        assert table["engine"] == "vllm" and table["version"] == release
        with pytest.raises(FrozenInstanceError):
            changes.release = "9.9.9"  # type: ignore[misc]


def test_v1_was_removed_in_0_34() -> None:
    with pytest.raises(ConfigError, match=r"V1 model runner was removed in vLLM 0\.34\.0"):
        EngineConfig(max_num_seqs=8, runner="v1", engine_version="0.34.0")
    # suffix decoding runs on V2 there; 0.33 picks V1 for it
    suffix = dict(max_num_seqs=8, num_speculative_tokens=3, spec_method="suffix")
    assert EngineConfig(**suffix, engine_version="0.34.0").runner.value == "v2"
    assert EngineConfig(**suffix, engine_version="0.33.0").runner.value == "v1"
    code, out, err = run_cli(["plan", "--max-num-seqs", "8", "--runner", "v1",
                              "--engine-version", "0.34.0"])
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "removed in vLLM 0.34.0" in err and len(err.strip()) <= 200


def test_draft_layers_lower_the_runner_mode() -> None:
    # V1, S=33, k=5, dflash, max 200: target ALWAYS, drafter NEVER -> vLLM runs PIECEWISE
    # and pads 198 -> 200 (the minimum over all layers)
    for release in ("0.32.0", "0.33.0"):
        p = plan(EngineConfig(max_num_seqs=33, num_speculative_tokens=5, spec_method="dflash",
                              max_cudagraph_capture_size=200, runner="v1",
                              attention_cudagraph_support="ALWAYS",
                              drafter_attention_cudagraph_support="NEVER",
                              engine_version=release))
        assert p.cudagraph_mode.value == "PIECEWISE" and p.pad(198).padded == 200
        assert p.buffer("drafter.positions").capacity >= 200


def test_mode_none_takes_max_capture_size_zero() -> None:
    # vLLM records max 0 with mode NONE and checks nothing (0.33 config/vllm.py:2447-2451);
    # with graphs it asserts max >= 1 (the oracle grid has both)
    for release in versions("vllm"):
        p = plan(EngineConfig(max_num_seqs=8, cudagraph_mode="NONE",
                              max_cudagraph_capture_size=0, engine_version=release))
        assert p.capture_sizes == () and p.cudagraph_mode.value == "NONE"
        with pytest.raises(ConfigError, match=">= 1"):
            EngineConfig(max_num_seqs=8, max_cudagraph_capture_size=0, engine_version=release)


def test_the_plan_says_which_levels_make_vllm_refuse() -> None:
    # V1, q=5, max 3: with FULL decode kept (ALWAYS, UNIFORM_BATCH) the rounding to q leaves
    # no size and vLLM refuses to start (0.33 config/compilation.py:1555-1562); lower levels
    # downgrade to PIECEWISE and start: the plan follows those and names the others
    p = plan(EngineConfig(max_num_seqs=8, num_speculative_tokens=4, spec_method="eagle",
                          max_cudagraph_capture_size=3, runner="v1", engine_version="0.33.0"))
    assert p.cudagraph_mode.value == "PIECEWISE"
    note = next(w for w in p.warnings if w.startswith("vLLM refuses to start"))
    assert "ALWAYS (" in note and "UNIFORM_BATCH (" in note and "FLASHINFER" in note
    assert "UNIFORM_SINGLE_TOKEN_DECODE (" not in note


@given(st.integers(1, 4096))
def test_grids_start_at_one_and_end_at_their_limit(limit: int) -> None:
    for grid in (prefill_grid(limit), decode_grid(limit), prefill_grid(limit, True)):
        assert grid[0] == 1 and grid[-1] == limit and grid == sorted(set(grid))


@given(st.lists(st.integers(1, 600), min_size=1, max_size=12), st.integers(1, 16),
       st.integers(1, 600), st.integers(1, 8192))
def test_decode_shapes_cover_every_request_count_up_to_the_limit(
        sizes: list[int], q: int, max_reqs: int, max_tokens: int) -> None:
    shapes = decode_shapes(sizes, {q: max_reqs}, max_tokens)
    limit = min(max_reqs, max_tokens // q)
    counts = [n for n, _ in shapes]
    assert all(n <= limit and w == q for n, w in shapes)
    # a batch of r <= the largest graph's requests finds a graph of >= r requests
    for r in range(1, (max(counts) if counts else 0) + 1):
        assert any(n >= r for n in counts)


@given(vllm_configs(ladders=("vllm",)))
def test_0_34_uniform_decodes_pad_to_whole_requests(config: EngineConfig) -> None:
    try:
        config = config.replace(engine_version="0.34.0", runner="v2")
        p = plan(config)
    except ConfigError:
        assume(False)
        return
    q = config.uniform_query_len
    for r in range(1, min(config.max_num_seqs, 64) + 1):
        d = p.pad(r * q, uniform_decode=True, num_reqs=r)
        assert d.padded >= r * q
        if d.mode.value == "FULL" and d.num_reqs is not None and config.cudagraph_mode.value in (
                "FULL_AND_PIECEWISE", "FULL_DECODE_ONLY"):
            assert d.padded == d.num_reqs * q and d.num_reqs >= r  # no rounding: n x q


def test_a_line_only_0_34_reads_is_read_with_the_release_asked_for() -> None:
    line = ["--", "vllm", "serve", "m", "--max-num-seqs", "64", "-cc",
            '{"use_breakable_cudagraph": true}']
    code, out, err = run_cli(["plan", *line])  # the default release, 0.34, reads it
    assert code == 0, err
    assert "vLLM 0.34.0" in out and "planned as" not in out + err
    # an explicit release reads the line with its own parser: 0.33 has no such key
    code, out, err = run_cli(["plan", "--engine-version", "0.33.0", *line])
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and len(lines[0]) <= 200
    assert "use_breakable_cudagraph" in lines[0] and "0.33.0" in lines[0]


def test_v1_runner_from_the_environment_picks_a_release_that_has_it() -> None:
    """VLLM_USE_V2_MODEL_RUNNER=0 names the V1 runner, which exists up to 0.33: the default
    release (0.34) has no V1 runner, so the variable implies the newest one that has it."""
    from graphfit.inputs.environment import environment
    from graphfit.planner.engines import registry

    found = {s.field: s for s in environment({"VLLM_USE_V2_MODEL_RUNNER": "0"})}
    assert found["runner"].value == "v1" and found["engine_version"].value == "0.33.0"
    assert found["engine_version"].weak and "0.33.0" in found["engine_version"].origin
    assert "engine_version" not in {
        s.field for s in environment({"VLLM_USE_V2_MODEL_RUNNER": "1"})}
    saved = {name: dict(r) for name, r in registry._RELEASES.items()}
    loaded = dict(registry._LOADED)
    try:  # a default release with a V1 runner: the variable implies no release
        registry.register("vllm", "0.33.0", "graphfit.planner.engines.vllm:VLLM",
                          default=True)
        assert [s.field for s in environment({"VLLM_USE_V2_MODEL_RUNNER": "0"})] == ["runner"]
    finally:
        registry._RELEASES.clear()
        registry._RELEASES.update(saved)
        registry._LOADED.clear()
        registry._LOADED.update(loaded)


@pytest.mark.parametrize("how", ["flag", "config file"])
def test_an_explicit_release_reads_the_line_with_its_own_flag_table(how: str,
                                                                    tmp_path: Path) -> None:
    """--engine-version 0.33.0 (or engine_version in a config file) with a flag only 0.34 has
    (arg_utils in 0.34.0: --enable-extensible-kv-cache) is 0.33's refusal, one error line."""
    if how == "flag":
        asked = ["--engine-version", "0.33.0"]
    else:
        (tmp_path / "c.yaml").write_text('engine_version: "0.33.0"\n')
        asked = ["--config", str(tmp_path / "c.yaml")]
    line = ["--", "vllm", "serve", "m", "--max-num-seqs", "64", "--enable-extensible-kv-cache"]
    code, out, err = run_cli(["plan", *asked, *line])
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and len(lines[0]) <= 200
    assert lines[0].startswith("error: vLLM 0.33.0 (vllm serve) refuses this line")
    assert "--enable-extensible-kv-cache" in lines[0]
    code, out, err = run_cli(["plan", *line])  # the default, 0.34, reads it
    assert code == 0 and out.startswith("vLLM 0.34.0 "), err


def test_v1_runner_on_an_explicit_0_34_is_the_removal_error() -> None:
    line = ["--", "VLLM_USE_V2_MODEL_RUNNER=0", "vllm", "serve", "m", "--max-num-seqs", "16"]
    code, out, err = run_cli(["plan", "--engine-version", "0.34.0", *line])
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and len(lines[0]) <= 200
    assert "V1 model runner was removed in vLLM 0.34.0" in lines[0]
    code, out, err = run_cli(["plan", "--runner", "v1", "--max-num-seqs", "16"])
    assert code == 2 and "removed in vLLM 0.34.0" in err


def test_v1_runner_without_a_release_plans_0_33_with_a_note() -> None:
    line = ["--", "VLLM_USE_V2_MODEL_RUNNER=0", "vllm", "serve", "m", "--max-num-seqs", "16"]
    code, out, err = run_cli(["plan", *line])
    assert code == 0, err
    assert out.startswith("vLLM 0.33.0 V1 runner: ")
    assert any(n.startswith("note: VLLM_USE_V2_MODEL_RUNNER=0: the V1 runner") and
               "planned as vLLM 0.33.0" in n for n in err.splitlines())
    # an explicit release wins, and no note claims otherwise
    code, out, err = run_cli(["plan", "--engine-version", "0.32.0", *line])
    assert code == 0 and out.startswith("vLLM 0.32.0 V1 runner: ")
    assert "planned as vLLM 0.33.0" not in err


# -- 0.34's split capture sizes as inputs (config/vllm.py:2558-2737 in 0.34; the oracle
# compares every aspect with 0.34's own code: test_vllm_release_oracle.py) ----------------

@pytest.mark.parametrize(("fields", "field"), [
    ({"prefill_cudagraph_capture_token_sizes": "1,2"}, "prefill_cudagraph_capture_token_sizes"),
    ({"decode_cudagraph_capture_request_sizes": [1, True]},
     "decode_cudagraph_capture_request_sizes"),
    ({"max_prefill_cudagraph_capture_tokens": -1}, "max_prefill_cudagraph_capture_tokens"),
    ({"max_decode_cudagraph_capture_requests": 1.5}, "max_decode_cudagraph_capture_requests"),
    ({"max_decode_cudagraph_capture_tokens": 0}, "max_decode_cudagraph_capture_tokens"),
    ({"max_decode_cudagraph_capture_requests": 4, "engine": "sglang"},
     "max_decode_cudagraph_capture_requests"),
    ({"max_decode_cudagraph_capture_requests": 4, "engine_version": "0.33.0"},
     "max_decode_cudagraph_capture_requests"),
    ({"decode_cudagraph_capture_request_sizes": [1, 2, 8],
      "max_decode_cudagraph_capture_requests": 4}, "decode_cudagraph_capture_request_sizes"),
    ({"cudagraph_capture_sizes": [1, 2, 3], "max_decode_cudagraph_capture_requests": 4},
     "cudagraph_capture_sizes"),
])
def test_split_size_inputs_are_validated(fields: dict[str, object], field: str) -> None:
    with pytest.raises(ConfigError) as info:
        plan(EngineConfig(max_num_seqs=16, **fields))  # type: ignore[arg-type]
    assert str(info.value).startswith(f"{field}:")


def test_split_sizes_set_each_kind_alone() -> None:
    # decode graphs of 1, 2 and 4 requests (q=2: 2, 4, 8 tokens), prefill graphs as listed;
    # sizes outside [1, limit] are dropped with a warning, as vLLM does
    p = plan(EngineConfig(max_num_seqs=16, max_num_batched_tokens=512, spec_method="mtp",
                          num_speculative_tokens=1, runner="v2",
                          decode_cudagraph_capture_request_sizes=(4, 2, 1, 99),
                          prefill_cudagraph_capture_token_sizes=(64, 0, 256)))
    assert p.config_capture_sizes == (2, 4, 8, 64, 256)
    assert any("drops [99]" in w for w in p.warnings) and any("drops [0]" in w
                                                               for w in p.warnings)
    # [] captures none of a kind; nothing left at all is mode NONE
    none = plan(EngineConfig(max_num_seqs=16, decode_cudagraph_capture_request_sizes=(),
                             prefill_cudagraph_capture_token_sizes=()))
    assert none.capture_sizes == () and not none.has_graphs


@given(vllm_configs(versions=("0.34.0",), max_tokens=1024))
def test_split_size_plans_are_safe_and_pad_up(config: EngineConfig) -> None:
    p = plan(config)
    assert p.verify().ok
    for n in range(1, config.max_num_batched_tokens + 1, 7):
        assert p.pad(n).padded >= n


def test_split_size_keys_on_a_pasted_line_and_in_a_config_file(tmp_path: Path) -> None:
    cc = ["-cc", '{"max_decode_cudagraph_capture_requests": 4, '
          '"prefill_cudagraph_capture_token_sizes": [16, 128]}']
    code, out, err = run_cli(["plan", "--json", "--", "vllm", "serve", "m",
                              "--max-num-seqs", "16", *cc])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["config"]["options"]["max_decode_cudagraph_capture_requests"] == 4
    assert doc["ladder"]["capture_sizes"] == [1, 2, 3, 4, 16, 128]
    (tmp_path / "c.yaml").write_text("max_num_seqs: 16\nmax_decode_cudagraph_capture_requests: 4"
                                     "\nprefill_cudagraph_capture_token_sizes: [16, 128]\n")
    code, out, err = run_cli(["plan", "--json", "--config", str(tmp_path / "c.yaml")])
    assert code == 0 and json.loads(out)["ladder"]["capture_sizes"] == [1, 2, 3, 4, 16, 128]
    code, out, err = run_cli(["plan", "--engine-version", "0.33.0", "--config",
                              str(tmp_path / "c.yaml")])
    assert code == 2 and err.startswith(
        "error: prefill_cudagraph_capture_token_sizes: vLLM 0.33.0 has no split capture sizes")
    assert "0.34" in err and len(err.strip().splitlines()) == 1 and len(err.strip()) <= 200


# -- MRV2 DFlash/DSpark aux staging: only when the draft names aux layers ------------------

@pytest.mark.parametrize("method", ["dflash", "dspark"])
def test_aux_staging_follows_the_draft_aux_layers(method: str) -> None:
    def staging(**kw: object) -> tuple[int, ...] | None:
        p = plan(EngineConfig(max_num_seqs=8, num_speculative_tokens=3, spec_method=method,
                              runner="v2", hidden_size=16, **kw))  # type: ignore[arg-type]
        found = [b.shape for b in p.components["drafter"].buffers if b.name == "aux_staging"]
        return found[0] if found else None

    assert staging() == (32, 16)  # unknown: one aux layer (as before the input existed)
    assert staging(draft_aux_layers=0) is None  # vLLM stages nothing
    assert staging(draft_aux_layers=3) == (32, 48)  # len(aux_layers) x hidden
    assert staging(draft_aux_layers=3, cudagraph_mode="PIECEWISE") is None  # no FULL graph
    assert staging(draft_aux_layers=3, engine_version="0.32.0") is None  # 0.32: no staging


@pytest.mark.parametrize(("fields", "message"), [
    ({"spec_method": "eagle3", "num_speculative_tokens": 3, "draft_aux_layers": 3},
     "only for spec_method dflash or dspark"),
    ({"spec_method": "dflash", "num_speculative_tokens": 3, "draft_aux_layers": -1},
     "expected an integer >= 0"),
    ({"spec_method": "dflash", "num_speculative_tokens": 3, "draft_aux_layers": True},
     "expected an integer >= 0"),
    ({"engine": "sglang", "spec_method": "eagle", "num_speculative_tokens": 3,
      "draft_aux_layers": 1}, "draft_aux_layers"),
])
def test_draft_aux_layers_is_validated(fields: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message) as info:
        EngineConfig(max_num_seqs=8, **fields)  # type: ignore[arg-type]
    assert str(info.value).startswith("draft_aux_layers:")


# -- 0.34's start-up graph-memory profiling (cudagraph_utils.py:989-1107 in 0.34) ----------

@given(st.lists(st.integers(1, 4096), max_size=12, unique=True),
       st.lists(st.integers(1, 4096), min_size=1, max_size=12, unique=True),
       st.floats(0, 4096), st.floats(0, 4 * 2**20), st.floats(0, 2**30))
def test_startup_reservation_extrapolates_full_graphs(piecewise: list[int], full: list[int],
                                                      per_token: float, overhead: float,
                                                      base: float) -> None:
    from graphfit.planner.tuning.memory import (
        MIN_PER_GRAPH_BYTES,
        GraphMemoryModel,
        startup_reservation,
    )

    assume(per_token > 0 or overhead > 0)
    model = GraphMemoryModel(per_token, overhead, base)
    full = sorted(full, reverse=True)
    got = startup_reservation(model, piecewise, full)
    # PIECEWISE graphs are measured in full; every FULL graph after the first costs at least
    # 1 MiB, and exactly the model's per-graph cost when that is above the floor
    exact = model.ladder_bytes(sorted({*piecewise, *full})) + model.per_graph_overhead_bytes * (
        len(full) - len(set(full) - set(piecewise)))
    floor = (len(full) - 1) * max(0.0, MIN_PER_GRAPH_BYTES - overhead)
    assert got == pytest.approx(exact + floor, rel=1e-9, abs=1e-3)
    assert startup_reservation(model, piecewise, ()) == model.ladder_bytes(piecewise)


def test_memory_names_the_0_34_startup_reservation() -> None:
    args = ["memory", "--max-num-seqs", "64", "--bytes-per-token", "1000",
            "--graph-overhead-mib", "2", "--json"]
    code, out, err = run_cli(args)
    assert code == 0, err
    doc = json.loads(out)
    # overhead 2 MiB > the 1 MiB floor: the extrapolation is exact under the model, so the
    # reservation is the PIECEWISE and FULL graphs' memory, each graph once
    assert doc["startup_reserved_bytes"] >= doc["graph_bytes"]
    code, out, err = run_cli([*args, "--engine-version", "0.33.0"])
    assert code == 0 and json.loads(out)["startup_reserved_bytes"] is None  # no profiling
