"""Pinned versus pageable host buffers (`BufferSpec.pinned`), and the graphs' device sequence
lengths (`seq_lens_cuda`) TensorRT-LLM's encoder graphs read (issue 23, s37t).

TensorRT-LLM allocates its encoder runner's host copies with `pin_memory=prefer_pinned()`
(`ref.pinned_host_tensors`) and records their host-to-device copies in the graph only then:
a captured memcpy node needs a pinned source (`ref.cite_fact("encoder_pinned_capture")`).
graphfit's plan says which host buffers are pinned (engine-neutral; an engine file may say
so too), and the keyed runners record a one-slot copy only from a pinned copy: the same plan
with its copies declared pageable copies them eagerly before each replay, with the same
result. Each graph's attention metadata owns a device `_seq_lens_cuda` refilled from the
host `seq_lens` (`ref.cite_fact("encoder_graph_seq_lens_cuda")`): the runner allocates the
plan's `seq_lens_cuda`, and a replay leaves there the batch's lengths then 1 per one-token
dummy, recorded in the graph from the pinned host `seq_lens`.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
import torch
from hypothesis import given, settings

from graphfit import ConfigError, plan
from graphfit.cudagraph.keyed import KeyedGraphRunner
from graphfit.cudagraph.rehearsal import rehearse
from graphfit.inputs.engine_file import description_from_data
from graphfit.planner.core.batches import Stream
from graphfit.planner.core.buffers import ZERO, Axis, BufferSpec, Demand, Placement
from graphfit.planner.plan import Plan
from tests.cudagraph.test_runtime_host_staging import (
    SMALL,
    _batches,
    _runner,
    check_refuses_entry_without,
    encoder_plan_file,
)
from tests.oracle import trtllm_reference as ref
from tests.oracle.test_trtllm_encoder_reference import encode_args
from tests.oracle.test_trtllm_reference import graphfit_config


def _pageable(p: Plan) -> Plan:
    """The plan with every host buffer declared pageable (as an engine that does not pin)."""
    comp = p.keyed["encoder"]
    buffers = tuple(dataclasses.replace(b, spec=dataclasses.replace(b.spec, pinned=False))
                    for b in comp.buffers)
    return dataclasses.replace(p, keyed={**p.keyed, "encoder": dataclasses.replace(
        comp, buffers=buffers)})


def _lengths(runner: KeyedGraphRunner, key: tuple[int, ...], lens: list[int]) -> list[int]:
    assert runner.seq_lens_cuda is not None
    return [int(v) for v in runner.seq_lens_cuda[:key[0]]]


@settings(max_examples=20, deadline=None)
@given(encode_args())
def test_pinned_and_pageable_plans_replay_the_engines_lengths(raw: dict[str, Any]) -> None:
    """Over generated encoder-only lines: the plan pins what the engine pins; the runner
    records the pinned copies (token ids, positions, lengths) and copies a pageable plan's
    eagerly; both leave the engine's lengths in `seq_lens_cuda` and equal the eager run."""
    p = plan(graphfit_config(raw))
    comp = p.keyed["encoder"]
    if not comp.graph_keys:
        return
    names = {"input_ids_host": "input_ids", "position_ids_host": "position_ids",
             "seq_lens": "seq_lens", "arange_max": "_arange_max"}
    assert {names[b.name] for b in comp.buffers if b.pinned} == ref.pinned_host_tensors(
        False), ref.cite_fact("encoder_token_placement")
    pinned, pageable = _runner(p), _runner(_pageable(p))
    assert pinned.recorded == {"input_ids", "position_ids"} and pinned.seq_lens_recorded
    assert pageable.recorded == frozenset() and not pageable.seq_lens_recorded
    gen = torch.Generator().manual_seed(0)
    for lens in map(list, _batches(p, gen, 6)):
        ids = torch.randint(0, 1000, (sum(lens),), generator=gen, dtype=torch.int32)
        for runner in (pinned, pageable):
            assert runner.seq_lens_cuda is not None
            runner.seq_lens_cuda.fill_(-1)
            got = runner.step(ids, lens)
            key = runner.last_key
            if key is None or key not in runner.graphs:
                continue
            assert torch.equal(got, runner.step(ids, lens, eager=True)), lens
            want = [*lens, *[1] * (key[0] - len(lens))]
            assert _lengths(runner, key, lens) == want, (
                ref.cite_fact("encoder_graph_seq_lens_cuda"), lens, key)


def test_the_graph_records_the_lengths_copy_only_from_pinned_memory() -> None:
    """After a replay, new lengths written in the host `seq_lens` alone are what the next
    replay of the same graph leaves in `seq_lens_cuda` when the host copy is pinned; from a
    pageable one the graph does not copy (the runner copied eagerly before the replay)."""
    p = plan(graphfit_config(SMALL))
    for runner, recorded in ((_runner(p), True), (_runner(_pageable(p)), False)):
        lens = [3, 2]
        runner.step(torch.zeros(5, dtype=torch.int32), lens)
        key = runner.last_key
        assert key is not None and key in runner.graphs and key[0] == 2
        assert runner.seq_lens is not None and runner.seq_lens_cuda is not None
        runner.seq_lens[:2] = torch.tensor([4, 1], dtype=torch.int32)
        runner.graphs[key].replay()
        assert _lengths(runner, key, lens) == ([4, 1] if recorded else [3, 2]), recorded


def test_pageable_plan_rehearses_and_a_skipped_lengths_copy_fails(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Both plans rehearse; a runner that skips the lengths' copy (planted) fails the
    rehearsal's device-row check, pinned (recorded) or pageable (eager)."""
    p = plan(graphfit_config(SMALL))
    assert rehearse(p).ok and rehearse(_pageable(p)).ok
    real = KeyedGraphRunner._refill

    def planted(self: KeyedGraphRunner, name: str, device: torch.Tensor, host: torch.Tensor,
                rows: int) -> None:
        if name != "seq_lens":
            real(self, name, device, host, rows)

    monkeypatch.setattr(KeyedGraphRunner, "_refill", planted)
    for q in (p, _pageable(p)):
        encoder = next(c for c in rehearse(q).components if c.component == "encoder")
        assert encoder.mismatches


def test_pinned_is_a_host_buffers_boolean() -> None:
    def spec(**kw: Any) -> BufferSpec:
        return BufferSpec("b", "int32", Axis.TOKENS, (Demand(Stream.GRAPH_TOKENS),), 8, ZERO,
                          **kw)

    assert spec(placement=Placement.HOST, pinned=True).pinned
    with pytest.raises(ConfigError, match="pinned is for a host buffer"):
        spec(pinned=True)
    with pytest.raises(ConfigError, match="pinned must be true or false"):
        spec(placement=Placement.HOST, pinned="yes")


def _description(buffer: dict[str, Any]) -> dict[str, Any]:
    return {"name": "pinned-gen", "version": "0.1", "components": [{
        "name": "target", "ladder": {"keyed": "tokens", "grid": {"start": [1, 2, 4],
                                                                 "step": 8}, "max": "min(T, 16)"},
        "families": [{"kind": "mixed"}],
        "buffers": [{"name": "ids", "dtype": "int32", "rows": "tokens", "allocates": "T"},
                    buffer]}]}


def test_engine_files_declare_pinned_host_buffers() -> None:
    copy = {"name": "ids_host", "dtype": "int32", "rows": "tokens", "allocates": "T",
            "placement": "host", "stages": "ids", "pinned": True}
    rule = description_from_data(_description(copy)).components[0].buffers[1]
    assert rule.pinned and rule.stages == "ids"
    for bad, why in (({**copy, "placement": "device", "stages": ""}, "pinned needs placement"),
                     ({**copy, "pinned": "yes"}, "pinned must be true or false")):
        with pytest.raises(ConfigError, match=why):
            description_from_data(_description(bad))


def test_plan_file_marks_pinned_host_buffers_and_refuses_one_without(tmp_path: Path) -> None:
    """`"pinned": true` on the host buffers the engine pins, nowhere else; a file whose entry
    lost it (written before the field) is refused by `check --plan`, naming the entry."""
    saved, doc, entries = encoder_plan_file(tmp_path)
    assert {b["name"] for b in entries if b.get("pinned")} == {
        "input_ids_host", "position_ids_host", "seq_lens"}
    index = next(i for i, b in enumerate(entries) if b.get("pinned"))
    check_refuses_entry_without(saved, doc, index, "pinned")


def test_buffer_keyed_runner_records_only_pinned_copies() -> None:
    """Feature mode: the pinned one-slot host `seq_lens` has its copy into `seq_lens_cuda`
    recorded; declared pageable, it is copied eagerly, and the rehearsal still passes."""
    from graphfit import EngineConfig
    from graphfit.cudagraph.keyed_buffers import KeyedBufferRunner

    p = plan(EngineConfig.from_dict({
        "engine": "trtllm", "max_num_seqs": 8, "max_num_batched_tokens": 256,
        "max_model_len": 64, "options": {
            "encoder_graph_batch_sizes": [1, 2, 4, 8], "encoder_graph_padding": True,
            "encoder_max_batch_size": 8, "encoder_max_num_tokens": 100,
            "encoder_feature_spec": [[6], "float32", 3]}}))
    comp = p.keyed["encoder"]
    assert {b.name for b in comp.buffers if b.pinned} == {"seq_lens", "input_features_host"}

    def fn(views: Any) -> tuple[torch.Tensor, ...]:
        return tuple(views[n].float() for n in ("input_features", "seq_lens_cuda"))

    assert KeyedBufferRunner(fn, p, "encoder").recorded == {"seq_lens_cuda"}
    assert KeyedBufferRunner(fn, _pageable(p), "encoder").recorded == frozenset()
    assert rehearse(_pageable(p)).ok
