"""The runtime's host staging (`BufferPlan.stages`): a keyed graph runner writes a batch in the
host copies the plan declares and copies the key's rows into the device buffers before each
replay, as TensorRT-LLM's token-mode encoder runner does with its pinned
`shared_static_tensors_cpu` (`ref.cite_fact("encoder_token_staging")`).

Over generated token-mode encoder configs: every captured key replayed with its witness batch
and with random batches the dispatch sends to a graph equals the eager forward, and the device
rows the graph read are the engine's staged rows (`ref.token_mode_staged_rows`: the ids and
packed positions, then zeros up to the key's tokens). Planted errors -- a stale host row, a
short host-to-device copy, no copy at all -- fail `graphfit rehearse`'s comparison. A plan
without the relation (an older plan file's buffers) stages nothing and still rehearses.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch
from hypothesis import given, settings

from graphfit import ConfigError, EngineConfig, plan
from graphfit.cudagraph import CaptureSession
from graphfit.cudagraph.keyed import KeyedGraphRunner
from graphfit.cudagraph.keyed_buffers import KeyedBufferRunner, graph_reads
from graphfit.cudagraph.rehearsal import KeyedToyForward, _batch_rows, rehearse
from graphfit.planner.core.batches import Stream
from graphfit.planner.core.buffers import (
    ZERO,
    Axis,
    BufferSpec,
    Demand,
    Placement,
    check_staging,
)
from graphfit.planner.keyed_plan import KeyedComponentPlan
from graphfit.planner.plan import Plan
from tests.helpers import run_cli, saved_plan
from tests.oracle import trtllm_reference as ref
from tests.oracle.test_trtllm_encoder_reference import encode_args
from tests.oracle.test_trtllm_reference import graphfit_config

SMALL = {"max_batch_size": 4, "max_num_tokens": 32, "max_seq_len": 16,
         "cuda_graph_config": {"mode": "encode", "batch_sizes": [1, 2, 4],
                               "num_tokens": [8, 16, 32], "seq_lens": [4, 16],
                               "enable_padding": True}}


def _plan(raw: dict[str, Any]) -> Plan:
    return plan(graphfit_config(raw))


def _runner(p: Plan) -> KeyedGraphRunner:
    session = CaptureSession("cpu", freeze_gc=False)
    runner = KeyedGraphRunner.from_plan(KeyedToyForward(), p, session=session)
    session.capture()
    return runner


def _batches(p: Plan, gen: torch.Generator, extra: int) -> list[tuple[int, ...]]:
    """Each captured key's witness lengths, then `extra` random batches within the bounds."""
    comp = p.keyed["encoder"]
    out = [tuple(comp.probe(key)) for key in sorted(comp.graph_keys)]
    top_b, top_n, top_l = comp.bounds
    for _ in range(extra):
        b = int(torch.randint(1, max(top_b, 1) + 1, (), generator=gen))
        lens = [int(torch.randint(1, max(top_l, 1) + 1, (), generator=gen)) for _ in range(b)]
        if sum(lens) <= top_n:
            out.append(tuple(lens))
    return out


def _check_staged(runner: KeyedGraphRunner, p: Plan, gen: torch.Generator, extra: int
                  ) -> int:
    """Replay the batches; assert graph == eager and the engine's staged device rows. The
    number of replays."""
    replays = 0
    for lens in _batches(p, gen, extra):
        ids = torch.randint(0, 1000, (sum(lens),), generator=gen, dtype=torch.int32)
        runner.input_ids.fill_(-1)
        runner.position_ids.fill_(-1)
        for copies in runner.staging.values():
            copies.fill_(-1)
        got = runner.step(ids, lens)
        key = runner.last_key
        if key is None or key not in runner.graphs:
            continue
        replays += 1
        assert torch.equal(got, runner.step(ids, lens, eager=True)), (lens, key)
        rows = runner.dispatch.rows(key)
        want = ref.token_mode_staged_rows(rows, ids.tolist(), lens)
        assert runner.input_ids[:rows].tolist() == want["input_ids"], (
            ref.cite_fact("encoder_token_staging"), lens, key)
        assert runner.position_ids[:rows].tolist() == want["position_ids"], (lens, key)
        if runner.seq_lens_cuda is not None:  # the graph's device lengths: the batch's, then
            # one per one-token dummy (`ref.cite_fact("encoder_graph_seq_lens_cuda")`)
            b = key[0]
            assert runner.seq_lens_cuda[:b].tolist() == [*lens, *[1] * (b - len(lens))], (
                ref.cite_fact("encoder_graph_seq_lens_cuda"), lens, key)
    return replays


@settings(max_examples=25, deadline=None)
@given(encode_args())
def test_token_mode_batches_stage_through_the_declared_host_copies(raw: dict[str, Any]
                                                                   ) -> None:
    p = _plan(raw)
    comp = p.keyed["encoder"]
    if not comp.graph_keys:
        return  # graphs off or none captured: nothing stages (covered by SMALL below)
    declared = {(ref.HOST, b.stages): (ref.DEVICE, b.stages) for b in comp.buffers
                if b.stages in ("input_ids", "position_ids")}
    assert declared == ref.TOKEN_STAGING, ref.cite_fact("encoder_token_staging")
    assert comp.buffer("seq_lens").stages == "seq_lens_cuda"
    runner = _runner(p)
    assert runner.seq_lens_cuda is not None and runner.seq_lens_recorded
    assert set(runner.staging) == {"input_ids", "position_ids"}
    assert all(t.device.type == "cpu" for t in runner.staging.values())
    gen = torch.Generator().manual_seed(0)
    assert _check_staged(runner, p, gen, 8) >= len(comp.graph_keys)


def test_small_plan_every_batch_equals_eager_and_rehearses() -> None:
    p = _plan(SMALL)
    runner = _runner(p)
    gen = torch.Generator().manual_seed(1)
    assert _check_staged(runner, p, gen, 40) > len(runner.graphs) > 1
    report = rehearse(p)
    encoder = next(c for c in report.components if c.component == "encoder")
    assert report.ok and encoder.replayed == encoder.graphs == len(runner.graphs)


Plant = Callable[[KeyedGraphRunner, str, torch.Tensor, torch.Tensor, int], None]


def _stale_host_row(runner: KeyedGraphRunner, name: str, device: torch.Tensor,
                    host: torch.Tensor, rows: int) -> None:
    host[rows - 1] = 7  # a row the batch did not write
    device[:rows].copy_(host[:rows])


def _stale_tail_row(runner: KeyedGraphRunner, name: str, device: torch.Tensor,
                    host: torch.Tensor, rows: int) -> None:
    if name == "input_ids" and int(host[rows - 1]) == 0:  # a zero-filled padding row
        host[rows - 1] = 7
    device[:rows].copy_(host[:rows])


def _short_copy(runner: KeyedGraphRunner, name: str, device: torch.Tensor,
                host: torch.Tensor, rows: int) -> None:
    device[:rows - 1].copy_(host[:rows - 1])


def _no_copy(runner: KeyedGraphRunner, name: str, device: torch.Tensor, host: torch.Tensor,
             rows: int) -> None:
    del runner, name, device, host, rows


@pytest.mark.parametrize("planted", [_stale_host_row, _stale_tail_row, _short_copy,
                                     _no_copy])
def test_planted_staging_errors_fail_the_rehearsal(planted: Plant,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    p = _plan(SMALL)
    assert rehearse(p).ok
    monkeypatch.setattr(KeyedGraphRunner, "_refill", planted)
    report = rehearse(p)
    encoder = next(c for c in report.components if c.component == "encoder")
    assert not report.ok and encoder.mismatches, planted.__name__


def _feature_plan() -> Plan:
    """A TensorRT-LLM feature-mode encoder (its rotated host mirrors stage input_features)."""
    return plan(EngineConfig.from_dict({
        "engine": "trtllm", "max_num_seqs": 8, "max_num_batched_tokens": 256,
        "max_model_len": 64, "options": {
            "encoder_graph_batch_sizes": [1, 2, 4, 8], "encoder_graph_padding": True,
            "encoder_max_batch_size": 8, "encoder_max_num_tokens": 100,
            "encoder_feature_spec": [[6], "float32", 3]}}))


def _short_feature_copy(runner: KeyedBufferRunner, name: str, host: torch.Tensor, rows: int
                        ) -> None:
    runner.buffers[name][:rows - 1].copy_(host[:rows - 1])


def _stale_feature_row(runner: KeyedBufferRunner, name: str, host: torch.Tensor, rows: int
                       ) -> None:
    host[rows - 1] = 7.0
    runner.buffers[name][:rows].copy_(host[:rows])


@pytest.mark.parametrize("planted", [_short_feature_copy, _stale_feature_row])
def test_feature_mode_stages_as_declared_and_planted_errors_fail(
        planted: Callable[..., None], monkeypatch: pytest.MonkeyPatch) -> None:
    """The feature mirrors stage `input_features` because the plan says so (`stages`), and a
    short copy or a stale mirror row fails the rehearsal."""
    p = _feature_plan()
    assert {b.stages for b in p.keyed["encoder"].buffers} == {"", "input_features",
                                                              "seq_lens_cuda"}
    assert rehearse(p).ok
    monkeypatch.setattr(KeyedBufferRunner, "_refill", planted)
    encoder = next(c for c in rehearse(p).components if c.component == "encoder")
    assert encoder.mismatches, planted.__name__


def _without_staging(p: Plan) -> Plan:
    """The plan as an older plan file's entries read: host copies with no `stages`."""
    comp = p.keyed["encoder"]
    buffers = tuple(dataclasses.replace(b, spec=dataclasses.replace(b.spec, stages=""))
                    for b in comp.buffers)
    old: KeyedComponentPlan = dataclasses.replace(comp, buffers=buffers)
    return dataclasses.replace(p, keyed={**p.keyed, "encoder": old})


def test_a_plan_without_the_relation_stages_nothing() -> None:
    p = _without_staging(_plan(SMALL))
    runner = _runner(p)
    assert runner.staging == {}
    gen = torch.Generator().manual_seed(2)
    assert _check_staged(runner, p, gen, 10) > 0
    assert rehearse(p).ok


def _spec(name: str, *, stages: str = "", host: bool = False, leading: tuple[int, ...] = (),
          dtype: str = "int32") -> BufferSpec:
    return BufferSpec(name, dtype, Axis.TOKENS, (Demand(Stream.GRAPH_TOKENS),), 8, ZERO,
                      leading=leading, stages=stages,
                      placement=Placement.HOST if host else Placement.DEVICE)


def test_bad_staging_relations_are_one_error() -> None:
    with pytest.raises(ConfigError, match="a staging copy is a host buffer"):
        _spec("ids_host", stages="ids")  # on the device
    with pytest.raises(ConfigError, match="a staging copy is a host buffer"):
        _spec("ids", stages="ids", host=True)
    with pytest.raises(ConfigError, match="stages must be a buffer name"):
        _spec("ids_host", stages="no such", host=True)
    ids = _spec("ids")
    for copies, why in (((_spec("h", stages="gone", host=True),), "not a device buffer"),
                        ((_spec("h", stages="ids", host=True, dtype="int64"),), "or its shape"),
                        ((_spec("h", stages="ids", host=True, leading=(2, 3)),), "or its shape"),
                        ((_spec("h", stages="ids", host=True), _spec("g", stages="ids",
                                                                     host=True)),
                         "another staging copy")):
        with pytest.raises(ConfigError, match=why):
            check_staging("c", (ids, *copies))
    check_staging("c", (ids, _spec("h", stages="ids", host=True, leading=(2,))))  # 2 slots


def encoder_plan_file(tmp_path: Path) -> tuple[Path, dict[str, Any], list[dict[str, Any]]]:
    """SMALL planned through the CLI (`plan --json` on a trtllm-serve line) and saved where
    `check --plan` accepts it: (the file, the document, the encoder's buffer entries), for the
    tests that take a field out of an entry (also tests/cudagraph/test_runtime_pinned_staging)."""
    config = tmp_path / "encode.yaml"
    config.write_text(json.dumps(SMALL))
    line = ["--", "trtllm-serve", "bert", "--extra_llm_api_options", str(config)]
    code, out, err = run_cli(["plan", "--json", *line])
    assert code == 0, err
    saved = saved_plan(tmp_path, out)
    doc = json.loads(out)
    return saved, doc, doc["keyed_components"]["encoder"]["buffers"]


def check_refuses_entry_without(saved: Path, doc: dict[str, Any], index: int, field: str
                                ) -> None:
    """`check --plan` refuses the document once `field` is taken out of the encoder's buffer
    entry `index` (a file written before the field), naming that entry."""
    del doc["keyed_components"]["encoder"]["buffers"][index][field]
    saved.write_text(json.dumps(doc))
    code, _, err = run_cli(["check", "--plan", str(saved)])
    assert code == 2 and f"keyed_components.encoder.buffers[{index}]" in err, err


def test_plan_file_names_the_staged_buffer_and_reads_without_it(tmp_path: Path) -> None:
    """The plan document marks each host copy with the buffer it stages (`"stages"`), and
    nothing else; a file without the field (written before the relation) reads as no
    staging, so `check --plan` refuses it naming the entry."""
    saved, doc, entries = encoder_plan_file(tmp_path)
    assert {b["name"]: b["stages"] for b in entries if "stages" in b} == {
        "input_ids_host": "input_ids", "position_ids_host": "position_ids",
        "seq_lens": "seq_lens_cuda"}
    assert "stages" not in json.dumps(doc["components"])  # no other buffer carries it
    index = next(i for i, b in enumerate(entries) if "stages" in b)
    check_refuses_entry_without(saved, doc, index, "stages")


# ---------------------------------------------------------------------------------------------
# The host-to-device copy recorded in the graph; positions from the plan's arange (issue 23,
# s35c). TensorRT-LLM captures the token-mode copy inside the graph (`capture_h2d`,
# ref.cite_fact("encoder_token_staging")), so a replay reads what the host copy holds when it
# runs; its feature mirrors (several, used in turn) are copied eagerly.
# ---------------------------------------------------------------------------------------------

def _replay_reads_host(runner: KeyedGraphRunner, lens: tuple[int, ...],
                       gen: torch.Generator) -> bool:
    """Stage one batch through `step`, then write another batch of the same lengths in the
    host copies only and replay the graph itself: whether it ran on the second batch (its
    output equals that batch's eager run)."""
    first = torch.randint(0, 1000, (sum(lens),), generator=gen, dtype=torch.int32)
    runner.step(first, lens)
    key = runner.last_key
    assert key is not None and key in runner.graphs
    second = first + 1  # the same lengths, so the same positions
    runner.staging["input_ids"][0, :len(first)].copy_(second)
    out = runner.graphs[key].replay()
    assert isinstance(out, torch.Tensor)
    return torch.equal(out[:len(first)], runner.step(second, lens, eager=True))


def test_the_graph_records_the_host_to_device_copy() -> None:
    """After a replay, a new batch written in the one-slot host copy alone is what the next
    replay of the same graph reads (no eager copy between); with the relation stripped
    nothing is staged, so nothing is recorded."""
    p = _plan(SMALL)
    runner = _runner(p)
    assert runner.recorded == frozenset({"input_ids", "position_ids"})
    gen = torch.Generator().manual_seed(3)
    for lens in _batches(p, gen, 12):
        runner.step(torch.zeros(sum(lens), dtype=torch.int32), lens)
        if runner.last_key in runner.graphs:
            assert _replay_reads_host(runner, lens, gen), lens
    old = _runner(_without_staging(p))
    assert old.recorded == frozenset() and old.staging == {}
    # the compiled backend records no copy: the rows are copied eagerly before its replay
    compiled = KeyedGraphRunner.from_plan(KeyedToyForward(), p, backend="compiled")
    assert set(compiled.staging) == {"input_ids", "position_ids"}
    assert compiled.recorded == frozenset()


def test_positions_come_from_the_plans_arange() -> None:
    """The runner slices its positions from the plan's `arange_max` (init "arange"), of the
    planned rows; a plan without one falls back to torch.arange with the same rows."""
    p = _plan(SMALL)
    arange = next(b for b in p.keyed["encoder"].buffers if b.init == "arange")
    runner = _runner(p)
    assert runner.arange is not None and runner.arange.device.type == "cpu"
    assert runner.arange.tolist() == list(range(arange.capacity))
    comp = p.keyed["encoder"]
    stripped = dataclasses.replace(comp, buffers=tuple(
        b for b in comp.buffers if b.init != "arange"))
    bare = _runner(dataclasses.replace(p, keyed={**p.keyed, "encoder": stripped}))
    assert bare.arange is None
    gen = torch.Generator().manual_seed(4)
    for lens in _batches(p, gen, 10):
        ids = torch.randint(0, 1000, (sum(lens),), generator=gen, dtype=torch.int32)
        assert torch.equal(runner.step(ids, lens), bare.step(ids, lens)), lens


def _corrupt_arange(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant: the runner's arange has a wrong row (graph and eager both read it, so only the
    rehearsal's device-row check against the engine's positions can see it)."""
    real = KeyedGraphRunner.from_plan

    def planted(*args: Any, **kwargs: Any) -> KeyedGraphRunner:
        runner = real(*args, **kwargs)
        assert runner.arange is not None
        runner.arange[1] = 5
        return runner

    monkeypatch.setattr(KeyedGraphRunner, "from_plan", planted)


def _stale_host_position(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant: the step leaves the last real position row of the host copy unwritten (it holds
    the rehearsal's poison when the recorded copy runs)."""
    real = KeyedGraphRunner._write_positions

    def planted(self: KeyedGraphRunner, target: torch.Tensor, lens: Any, **kw: Any) -> None:
        saved = target[sum(lens) - 1].clone()
        real(self, target, lens, **kw)
        if any(target.data_ptr() == c.data_ptr() for c in self.staging.values()):
            target[sum(lens) - 1] = saved  # only in a host copy, never the eager run's

    monkeypatch.setattr(KeyedGraphRunner, "_write_positions", planted)


@pytest.mark.parametrize("plant", [_corrupt_arange, _stale_host_position])
def test_planted_position_errors_fail_the_rehearsal(
        plant: Callable[[pytest.MonkeyPatch], None], monkeypatch: pytest.MonkeyPatch) -> None:
    p = _plan(SMALL)
    assert rehearse(p).ok
    plant(monkeypatch)
    encoder = next(c for c in rehearse(p).components if c.component == "encoder")
    assert encoder.mismatches, plant.__name__


def _one_slot_feature_plan() -> Plan:
    """The feature-mode plan with one mirror (its host copy of input_features' own shape):
    the copy a buffer-keyed graph records."""
    p = _feature_plan()
    comp = p.keyed["encoder"]
    buffers = tuple(dataclasses.replace(b, spec=dataclasses.replace(b.spec, leading=()))
                    if b.stages else b for b in comp.buffers)
    check_staging("encoder", tuple(b.spec for b in buffers))
    return dataclasses.replace(p, keyed={**p.keyed, "encoder": dataclasses.replace(
        comp, buffers=buffers)})


def test_buffer_keyed_copies_record_only_a_one_slot_copy() -> None:
    """Rotated mirrors (2 slots) are copied eagerly, as the engine's; a one-slot copy is
    recorded, and a replay of the graph alone reads what the host copy holds then."""
    rotated = _feature_plan()
    reads = graph_reads(rotated.keyed["encoder"].buffers)

    def double(views: Any) -> tuple[torch.Tensor, ...]:
        return tuple(views[name] * 2 for name in reads)

    # (the pinned one-slot host seq_lens's copy into the graphs' seq_lens_cuda is recorded)
    assert KeyedBufferRunner(double, rotated, "encoder").recorded == frozenset(
        {"seq_lens_cuda"})
    one = _one_slot_feature_plan()
    assert rehearse(one).ok
    runner = KeyedBufferRunner(double, one, "encoder")
    assert runner.recorded == frozenset({"input_features", "seq_lens_cuda"})
    runner.capture()
    key = max(runner.graphs, key=runner.dispatch.rows)
    witness = runner.keyed.witness(key)
    counts = runner.keyed.counts(witness)
    batch = _batch_rows(runner, counts, torch.Generator().manual_seed(5))
    runner.step(witness, batch)
    real = batch["input_features"].shape[0]
    host = runner.buffers[runner.staging["input_features"]]
    host[:real] = 3.0  # the host copy alone
    out = runner.graphs[key].replay()
    feature = out[reads.index("input_features")]
    assert torch.equal(feature[:real], torch.full_like(batch["input_features"], 6.0))
