"""The engine you bring: a described engine plans and proves like a modelled one, its file is
read strictly, and the S*q sizing bug shows up in a variant of the shipped example."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit import EngineConfig, plan
from graphfit.inputs.engine_file import (
    MAX_ENGINE_FILE_BYTES,
    description_from_data,
    load_engine_file,
    read_engine_file,
)
from graphfit.planner.core.enums import CUDAGraphMode
from graphfit.planner.core.errors import ConfigError
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
    ({"name": "X", "version": "1", "components": [{}]}, "ladder"),
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
]


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
    with pytest.raises(ConfigError, match="takes its ladders from its description"):
        EngineConfig(engine="tiny-spec", max_num_seqs=4, cudagraph_capture_sizes=[1, 2])
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
