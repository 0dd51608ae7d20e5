"""The engine you bring: a described engine plans and proves like a modelled one, its file is
read strictly, and the S*q sizing bug shows up in a variant of the shipped example."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit import ConfigError, CUDAGraphMode, EngineConfig, plan
from graphfit.inputs.engine_file import (
    MAX_ENGINE_FILE_BYTES,
    description_from_data,
    load_engine_file,
    read_engine_file,
)
from graphfit.planner.engines.described import (
    BufferRule,
    ComponentRule,
    DescribedEngine,
    DispatchRule,
    EngineDescription,
    FamilyRule,
    Grid,
    LadderRule,
    register_description,
)
from tests.helpers import ROOT, run_cli

EXAMPLE = ROOT / "examples" / "engines" / "tiny_spec.toml"
SIZING = 'allocates = "max(S * q, C)"'
VLLM_NAMES = {"input_ids", "positions", "slot_mapping_buffer", "inputs_embeds",
              "query_start_loc", "seq_lens", "hidden_states"}
FLAGS = ["--max-num-seqs", "6", "--max-num-batched-tokens", "64",
         "--num-speculative-tokens", "2"]


def _config(s: int = 6, t: int = 64, k: int = 2, name: str = "tiny-spec") -> EngineConfig:
    return EngineConfig(engine=name, max_num_seqs=s, max_num_batched_tokens=t,
                        num_speculative_tokens=k)


@pytest.fixture(scope="module", autouse=True)
def tiny() -> DescribedEngine:
    return load_engine_file(EXAMPLE)


def _buggy(tmp_path: Path) -> Path:
    """The example with the proposer's query buffers sized S*q (the padded query goes
    above S*q whenever S*q is not a capture size)."""
    text = EXAMPLE.read_text()
    assert text.count(SIZING) == 3
    path = tmp_path / "tiny_spec_sq.toml"
    path.write_text(text.replace(SIZING, 'allocates = "S * q"')
                    .replace('name = "tiny-spec"', 'name = "tiny-spec-sq"'))
    return path


def test_the_example_uses_none_of_vllms_names() -> None:
    p = plan(_config())
    names = {b.name for c in p.components.values() for b in c.buffers}
    assert names and not names & VLLM_NAMES
    assert set(p.components) == {"target", "proposer"}
    assert p.engine_version == "tiny-spec 0.1.0 (described)"
    assert p.config.engine.value == "tiny-spec" and p.config.engine_version == "0.1.0"


@given(st.integers(1, 40), st.integers(1, 200), st.integers(0, 4))
def test_described_plans_are_proven_safe(s: int, t: int, k: int) -> None:
    """Invariant: graphfit's capacities hold every reachable batch (the proof), the
    engine's own allocation max(S*q, C) too, and every padded size is >= the batch."""
    if t < s:
        return
    p = plan(_config(s, t, k))
    assert p.verify().ok and p.verify_engine().ok
    q = 1 + k
    for r in range(1, s + 1):
        for name in p.components:
            d = p.pad(r * q, uniform_decode=True, component=name)
            assert d.padded >= r * q
            if d.mode is not CUDAGraphMode.NONE:
                assert d.padded == min(size for size in p.capture_sizes if size >= r * q)
    if k == 0:
        assert set(p.components) == {"target"}


@given(st.integers(1, 12), st.integers(1, 4))
def test_s_times_q_is_short_exactly_when_s_times_q_is_not_captured(s: int, k: int) -> None:
    """Over the batches that reach the proposer (engine=False) S*q rows are short exactly
    when the widest decode pads past S*q; the engine itself also captures every ladder
    size, so its own audit fails whenever the ladder goes above S*q."""
    q = 1 + k
    p = plan(_config(s, 64, k))
    sizing = {"proposer.draft_tok": s * q}
    reached = p.verify(sizing, engine=False)
    captured = s * q in p.capture_sizes or s * q > p.max_capture_size
    assert reached.ok == captured
    if not reached.ok:
        first = reached.ranges()[0]
        assert first.padded > s * q and first.capacity == s * q
    assert p.verify(sizing).ok == (p.max_capture_size <= s * q)


def test_the_s_times_q_variant_fails_its_check(tmp_path: Path) -> None:
    path = _buggy(tmp_path)
    code, out, err = run_cli(["check", "--engine-file", str(path), *FLAGS])
    assert code == 1, err
    assert "holds 18 rows, a batch of 18 tokens pads to 24" in out  # S=6, q=3: pad(18)
    code, out, err = run_cli(["check", "--engine-file", str(path), *FLAGS, "--json"])
    doc = json.loads(out)
    assert code == 1 and doc["ok"] is False
    assert doc["engine_version"] == "tiny-spec-sq 0.1.0 (described)"
    code, out, err = run_cli(["check", "--engine-file", str(EXAMPLE), *FLAGS])
    assert code == 0, err


def test_every_command_takes_an_engine_file() -> None:
    code, out, err = run_cli(["plan", "--engine-file", str(EXAMPLE), *FLAGS, "--json"])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["config"]["engine"] == "tiny-spec" and doc["config"]["engine_version"] == "0.1.0"
    assert doc["verification"]["ok"] is True
    rest = ["--engine-file", str(EXAMPLE), "--max-num-batched-tokens", "64",
            "--num-speculative-tokens", "2"]
    for command, shown in ((["explain", "12", "--max-num-seqs", "6"], "req_starts"),
                           (["compare", "max_num_seqs=4", "max_num_seqs=6", "--max-num-seqs",
                             "6"], "safe (298 checks)"),
                           (["memory", "--bytes-per-token", "1000", "--max-num-seqs", "6"],
                            "11 graphs"),
                           (["sweep", "--max-num-seqs", "1..8"],
                            "SAFE (tiny-spec 0.1.0 (described)): 8 configs")):
        code, out, err = run_cli([*command, *rest])
        assert code == 0 and "error:" not in err, (command, err)
        assert shown in out, (command, out)
    # spawned sweep workers get the described engine too (their registry starts empty)
    code, out, err = run_cli(["sweep", "--max-num-seqs", "1..40", "--num-speculative-tokens",
                              "0..3", "--workers", "2", "--engine-file", str(EXAMPLE),
                              "--max-num-batched-tokens", "64"])
    assert code == 0 and "160 configs, 0 failing" in out and "2 worker(s)" in out, err


def test_the_python_description_equals_the_file() -> None:
    """The same engine written as dataclasses plans the same."""
    target = ComponentRule(
        "target", LadderRule("tokens", "min(T, 64)", grid=Grid((1, 2, 4), 8)),
        (FamilyRule("mixed"), FamilyRule("uniform_decode")),
        (BufferRule("tok_ids", "int32", "tokens", "T"),
         BufferRule("tok_pos", "int64", "tokens", "T"),
         BufferRule("req_starts", "int32", "requests", "S + 1", offset=1,
                    fill="copy-real-rows", safe_fills=("copy-real-rows",)),
         BufferRule("req_ctx", "int32", "requests", "S")),
        DispatchRule("PIECEWISE", "FULL"))
    proposer = ComponentRule(
        "proposer", LadderRule("tokens", "min(T, 64)", grid=Grid((1, 2, 4), 8)),
        (FamilyRule("uniform_decode"),),
        (BufferRule("draft_tok", "int32", "tokens", "max(S * q, C)"),
         BufferRule("draft_pos", "int64", "tokens", "max(S * q, C)"),
         BufferRule("draft_hidden", "float32", "tokens", "max(S * q, C)", trailing=(16,))),
        DispatchRule("NONE", "FULL"), speculative=True)
    written = EngineDescription("tiny-spec-py", "0.1.0", (target, proposer))
    read = read_engine_file(EXAMPLE)
    assert read.components == written.components
    register_description(written)
    a, b = plan(_config()), plan(_config(name="tiny-spec-py"))
    assert [(x.key, x.capacity, x.reference_capacity) for c in a.components.values()
            for x in c.buffers] == [(x.key, x.capacity, x.reference_capacity)
                                    for c in b.components.values() for x in c.buffers]


def test_a_request_keyed_engine_plans_decode_graphs() -> None:
    target = ComponentRule(
        "target", LadderRule("requests", "S", sizes=(1, 2, 4, 8, 16)),
        (FamilyRule("uniform_decode"), FamilyRule("prefill")),
        (BufferRule("ids", "int64", "tokens", "T"),
         BufferRule("lens", "int32", "requests", "S")),
        DispatchRule("NONE", "FULL"))
    sglang_like = EngineDescription("batchy", "1", (target,))
    register_description(sglang_like)
    p = plan(EngineConfig(engine="batchy", max_num_seqs=12, max_num_batched_tokens=256,
                          num_speculative_tokens=3))
    assert p.capture_sizes == (1, 2, 4, 8)
    assert p.graph_sizes("target") == (1, 2, 4, 8)
    assert p.pad(5 * 4, uniform_decode=True).padded == 8 * 4
    assert p.verify().ok and p.verify_engine().ok


BAD = [
    ({"version": "1", "components": []}, "missing 'name'"),
    ({"name": "x", "version": "1", "components": [], "extra": 1}, "unknown key 'extra'"),
    ({"name": "x", "version": "1", "components": []}, "1..8 components"),
    ({"name": "X", "version": "1", "components": [{"name": "t"}]}, "ladder"),
]


def _engine(**component: object) -> dict[str, object]:
    base: dict[str, object] = {
        "name": "target", "ladder": {"keyed": "tokens", "grid": {"start": [1], "step": 8}},
        "families": [{"kind": "mixed"}],
        "buffers": [{"name": "a", "dtype": "int32", "rows": "tokens", "allocates": "T"}]}
    base.update(component)
    return {"name": "bad", "version": "1", "components": [base]}


BAD += [
    (_engine(ladder={"keyed": "bytes", "sizes": [1]}), "not tokens or requests"),
    (_engine(ladder={"keyed": "tokens", "sizes": [1], "grid": {"step": 2}}), "either sizes"),
    (_engine(ladder={"keyed": "tokens", "sizes": [0]}), "integers >= 1"),
    (_engine(ladder={"keyed": "tokens", "sizes": [1], "max": "__import__('os')"}),
     "not an integer formula"),
    (_engine(ladder={"keyed": "tokens", "sizes": [1], "max": "S * Z"}), "unknown name 'Z'"),
    (_engine(families=[{"kind": "decode"}]), "not one of mixed"),
    (_engine(families=[]), "at least one family"),
    (_engine(buffers=[{"name": "a", "dtype": "int3", "rows": "tokens", "allocates": 1}]),
     "dtype"),
    (_engine(buffers=[{"name": "a", "dtype": "int32", "rows": "tokens", "alocates": 1}]),
     "did you mean allocates"),
    (_engine(buffers=[{"name": "a", "dtype": "int32", "rows": "tokens", "allocates": 1,
                       "fill": "nan"}]), "fill 'nan'"),
    (_engine(buffers=[{"name": "a b", "dtype": "int32", "rows": "tokens", "allocates": 1}]),
     "not a name"),
    (_engine(dispatch={"mixed": "HALF"}), "not one of FULL"),
    (_engine(buffers="x"), "expected a list"),
    (_engine(buffers=[{"name": "a", "dtype": "int32", "rows": "tokens"}]),
     "a buffer is missing 'allocates'"),
    (_engine(families=[{}]), "a family is missing 'kind'"),
    (_engine(buffers=[{"name": "a", "dtype": "int32", "rows": "tokens", "allocates": 1,
                       "safe_fills": "zero"}]), "safe_fills: expected a list"),
    (_engine(ladder={"keyed": "tokens", "grid": {"start": 5}}), "grid.start: expected a list"),
    ({"name": "x", "version": "1", "components": [{"ladder": {}}]},
     "a component is missing 'name'"),
]

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 10**20) | st.floats(allow_nan=True)
    | st.text(max_size=12) | st.sampled_from(["tokens", "requests", "mixed", "FULL", "S*q"]),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.sampled_from(["name", "version", "components", "ladder", "keyed",
                                       "sizes", "grid", "start", "step", "max", "families",
                                       "kind", "buffers", "dtype", "rows", "allocates",
                                       "dispatch", "mixed", "uniform", "padding", "fill",
                                       "trailing", "offset", "placement", "stages",
                                       "bogus"]), inner, max_size=6),
    max_leaves=30)


@given(JSON)
def test_no_file_content_gets_past_as_anything_but_a_config_error(data: object) -> None:
    """The file is never trusted: any parsed content is a description or one ConfigError."""
    try:
        found = description_from_data(data)
    except ConfigError as exc:
        assert str(exc) and "\n" not in str(exc)
    else:
        assert isinstance(found, EngineDescription)


@pytest.mark.parametrize(("data", "message"), BAD)
def test_bad_descriptions_are_one_config_error(data: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace("*", r"\*")):
        description_from_data(data)


def test_bad_engine_files_are_one_error_line(tmp_path: Path) -> None:
    cases = {
        "broken.toml": "name = [",
        "list.yaml": "- 1\n- 2\n",
        "huge.toml": "# " + "x" * MAX_ENGINE_FILE_BYTES,
        "typo.toml": EXAMPLE.read_text().replace("allocates", "alocates", 1),
        "empty.json": "{}",
    }
    for name, text in cases.items():
        path = tmp_path / name
        path.write_text(text)
        code, out, err = run_cli(["plan", "--engine-file", str(path), *FLAGS])
        lines = err.strip().splitlines()
        assert code == 2 and out == "", (name, err)
        assert len(lines) == 1 and lines[0].startswith("error: engine file"), (name, err)
        assert len(lines[0]) <= 200, lines[0]
    code, out, err = run_cli(["plan", "--engine-file", str(tmp_path / "none.toml"), *FLAGS])
    assert code == 2 and err.startswith("error: engine file")


def test_a_described_engine_refuses_other_engines_fields() -> None:
    with pytest.raises(ConfigError, match="takes its ladders' max from its description"):
        EngineConfig(engine="tiny-spec", max_num_seqs=4, max_cudagraph_capture_size=8)
    with pytest.raises(ConfigError, match="ladder: sglang is a sglang ladder, but engine is "):
        EngineConfig(engine="tiny-spec", max_num_seqs=4, ladder="sglang")
    with pytest.raises(ConfigError, match="sorted and unique"):
        plan(EngineConfig(engine="tiny-spec", max_num_seqs=4, cudagraph_capture_sizes=[4, 2]))
    with pytest.raises(ConfigError, match="attention_backend: not an input"):
        EngineConfig(engine="tiny-spec", max_num_seqs=4, attention_backend="FLASH_ATTN")
    with pytest.raises(ConfigError, match="engine: 'tiny-spek' is not one of vllm"):
        EngineConfig(engine="tiny-spek", max_num_seqs=4)


def test_vllm_environment_variables_do_not_reach_a_described_engine(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VLLM_USE_V2_MODEL_RUNNER", "1")
    code, out, err = run_cli(["plan", "--engine-file", str(EXAMPLE), *FLAGS])
    assert code == 0 and "SAFE" in out, err
    assert "VLLM_USE_V2_MODEL_RUNNER=1: ignored for engine tiny-spec" in err


def test_optimize_tunes_and_pastes_back_the_first_component_ladder(tmp_path: Path) -> None:
    trace = tmp_path / "trace.csv"
    trace.write_text("num_tokens\n" + "\n".join(map(str, [3, 3, 6, 9, 12, 17, 30, 33, 18])))
    code, out, err = run_cli(["optimize", "--trace", str(trace), "--engine-file", str(EXAMPLE),
                              *FLAGS])
    assert code == 0, err
    lines = [line for line in out.splitlines() if line.startswith("sizes = [")]
    assert len(lines) == 1, out
    sizes = tuple(int(s) for s in lines[0][len("sizes = ["):-1].split(", "))
    # the pasted list is what the engine then captures, and it is proven safe
    tuned = plan(EngineConfig(engine="tiny-spec", max_num_seqs=6, max_num_batched_tokens=64,
                              num_speculative_tokens=2, cudagraph_capture_sizes=sizes))
    assert tuned.capture_sizes == sizes and tuned.verify().ok
    assert {3, 6, 9, 12, 17, 18, 30, 33} <= set(sizes)


def test_check_plan_of_a_described_engine_takes_its_engine_file(tmp_path: Path) -> None:
    code, out, err = run_cli(["plan", "--json", "--engine-file", str(EXAMPLE), *FLAGS])
    assert code == 0, err
    saved = tmp_path / "plan.json"
    saved.write_text(out)
    code, out, err = run_cli(["check", "--plan", str(saved), "--engine-file", str(EXAMPLE)])
    assert code == 0 and "SAFE" in out, err
    doc = json.loads(saved.read_text())
    doc["components"]["proposer"]["buffers"][0]["capacity"] = 18  # edited by hand
    saved.write_text(json.dumps(doc))
    code, out, err = run_cli(["check", "--plan", str(saved), "--engine-file", str(EXAMPLE)])
    assert code == 2 and "capacity" in err


def test_python_descriptions_check_their_parts_types() -> None:
    ladder = LadderRule("tokens", "T", sizes=(1, 2))
    buffer = BufferRule("a", "int32", "tokens", "T")
    with pytest.raises(ConfigError, match="families: expected a FamilyRule, got 'mixed'"):
        ComponentRule("t", ladder, ("mixed",), (buffer,))  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="ladder: expected a LadderRule"):
        ComponentRule("t", "T", (FamilyRule("mixed"),), (buffer,))  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="expected ComponentRules"):
        EngineDescription("x", "1", ("target",))  # type: ignore[arg-type]


def _as_data(value: object) -> object:
    """A description as the plain data a file holds (no None entries, lists for tuples)."""
    import dataclasses

    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _as_data(getattr(value, f.name)) for f in dataclasses.fields(value)
                if getattr(value, f.name) is not None}
    if isinstance(value, (list, tuple)):
        return [_as_data(v) for v in value]
    return value


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_yaml_and_json_files_describe_the_same_engine(tmp_path: Path, suffix: str) -> None:
    import yaml

    described = read_engine_file(EXAMPLE)
    data = _as_data(described)
    path = tmp_path / f"tiny{suffix}"
    path.write_text(yaml.safe_dump(data) if suffix == ".yaml" else json.dumps(data))
    assert read_engine_file(path) == described
