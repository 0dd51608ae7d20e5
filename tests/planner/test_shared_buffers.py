"""Buffers shared between plan components (`BufferSpec.shared`, `Plan.shared`).

Invariants, over generated TensorRT-LLM configs with prefill graphs (the engine whose prefill
graphs read the decoder's own `input_ids` / `position_ids`, trtllm.py `components`):

* one shared buffer's capacity is >= every user's padded rows, for every reachable batch of
  every user (brute force through `Plan.rows`, and the plan's proof `verify()`);
* it is exactly the largest of what each user would need alone (the same components sized
  without sharing), so sharing never shrinks a user below its own need;
* its bytes are counted once: the plan's total is the unshared total less every user's bytes
  plus the one tensor's;
* the document lists it once and marks each user.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import ConfigError, EngineConfig, SharedBufferPlan, plan
from graphfit.planner.core.shape import BatchShape
from graphfit.planner.document import PLAN_SCHEMA, plan_document
from graphfit.planner.engines.base import share_buffers
from graphfit.planner.engines.registry import engine_model
from graphfit.planner.plan import BufferPlan, _sized
from graphfit.testing import trtllm_configs
from tests.helpers import run_cli


def _with_prefill(config: EngineConfig) -> bool:
    return "prefill" in plan(config).components


PREFILL_CONFIGS = trtllm_configs(max_seqs=32, max_tokens=256).filter(_with_prefill)


def _unshared(config: EngineConfig, layout: str) -> dict[str, int]:
    """Each component sized alone (no buffer shared): capacity per "component.name"."""
    model = engine_model(config.engine, config.engine_version)
    ladders = model.ladders(config)
    out: dict[str, int] = {}
    for comp in model.components(config, ladders):
        alone = replace(comp, buffers=tuple(replace(b, shared="") for b in comp.buffers))
        for b in _sized(alone, layout, 256).buffers:
            out[b.key] = b.capacity
    return out


@settings(max_examples=25, deadline=None)
@given(PREFILL_CONFIGS)
def test_shared_capacity_covers_every_user(config: EngineConfig) -> None:
    p = plan(config)
    assert set(p.shared) >= {"input_ids", "position_ids"}
    alone = _unshared(config, "arena")
    for name, sb in p.shared.items():
        assert {b.component for b in sb.users} == {"target", "prefill"}
        # every user carries the one capacity, the most any of them needs alone
        assert all(b.capacity == sb.capacity for b in sb.users)
        assert sb.capacity == max(alone[k] for k in sb.keys)
        assert all(p.buffer(k).shared == name for k in sb.keys)
    # every user's padded rows, batch by batch: prefill/mixed batches of 1..T tokens
    T, S = config.max_num_batched_tokens, config.max_num_seqs
    for n in range(1, T + 1):
        for reqs in {1, min(n, S)}:
            for comp in ("prefill", "target"):
                rows = p.rows(comp, BatchShape(n, reqs))
                for name, sb in p.shared.items():
                    assert rows.get(name, 0) <= sb.capacity, (comp, name, n, reqs)
    # and the plan's own proof, over every reachable batch of every component
    assert p.verify().ok


@settings(max_examples=25, deadline=None)
@given(PREFILL_CONFIGS, st.sampled_from(["arena", "separate"]))
def test_shared_bytes_counted_once(config: EngineConfig, layout: str) -> None:
    p = plan(config, layout=layout)
    shared_bytes = sum(sb.bytes for sb in p.shared.values())
    own = sum(c.total_bytes for c in p.components.values())
    assert p.total_bytes == own + shared_bytes
    for comp in p.components.values():
        assert all(not b.shared for b in comp.own_buffers)
        assert len(comp.own_buffers) + sum(1 for b in comp.buffers if b.shared) == len(
            comp.buffers)
    if layout == "separate":
        # unshared, every user would be a tensor of its own
        alone = _unshared(config, layout)
        twice = sum(alone[k] * p.buffer(k).row_bytes for sb in p.shared.values()
                    for k in sb.keys)
        assert p.total_bytes == own + shared_bytes
        assert shared_bytes < twice  # two users each: counted once is less than twice


@settings(max_examples=10, deadline=None)
@given(PREFILL_CONFIGS)
def test_document_lists_shared_buffers_once(config: EngineConfig) -> None:
    p = plan(config)
    doc = plan_document(p, p.verify())
    assert doc["schema"] == PLAN_SCHEMA
    listed = {s["name"]: s for s in doc["shared_buffers"]}
    assert set(listed) == set(p.shared)
    for name, entry in listed.items():
        assert entry["bytes"] == p.shared[name].bytes
        assert set(entry["users"]) == set(p.shared[name].keys)
    marked = {f"{c}.{b['name']}" for c, comp in doc["components"].items()
              for b in comp["buffers"] if b.get("shared")}
    assert marked == {k for sb in p.shared.values() for k in sb.keys}
    assert doc["total_bytes"] == sum(c["total_bytes"] for c in doc["components"].values()) + \
        sum(s["bytes"] for s in doc["shared_buffers"])


def test_plan_without_shared_buffers_writes_the_same_document() -> None:
    p = plan(EngineConfig.from_dict({"engine": "trtllm", "max_num_seqs": 8,
                                     "max_num_batched_tokens": 64}))
    assert not p.shared
    doc = plan_document(p, p.verify())
    assert "shared_buffers" not in doc
    assert all("shared" not in b for c in doc["components"].values() for b in c["buffers"])


def test_trtllm_prefill_shares_the_decoder_token_buffers() -> None:
    p = plan(EngineConfig.from_dict({
        "engine": "trtllm", "max_num_seqs": 8, "max_num_batched_tokens": 64,
        "max_model_len": 512, "prefill_cuda_graph_backend": "piecewise", "multimodal": True}))
    assert set(p.shared) == {"input_ids", "position_ids", "mrope_position_ids"}
    assert p.shared["input_ids"].keys == ("target.input_ids", "prefill.input_ids")
    assert p.shared["input_ids"].capacity == 64
    assert p.component("prefill").total_bytes == 0  # all its buffers are the decoder's
    assert p.total_bytes == p.component("target").total_bytes + 64 * 4 * (1 + 1 + 3)


def _user(component: str, dtype: str = "int32", capacity: int = 8) -> BufferPlan:
    p = plan(EngineConfig.from_dict({
        "engine": "trtllm", "max_num_seqs": 8, "max_num_batched_tokens": 64,
        "max_model_len": 512, "prefill_cuda_graph_backend": "piecewise"}))
    b = p.buffer("prefill.input_ids")
    return replace(b, spec=replace(b.spec, dtype=dtype), component=component, capacity=capacity)


def test_users_that_are_not_one_tensor_are_refused() -> None:
    with pytest.raises(ConfigError, match="int64"):
        SharedBufferPlan("input_ids", (_user("a"), _user("b", "int64")))
    with pytest.raises(ConfigError, match="two buffers of one component"):
        SharedBufferPlan("input_ids", (_user("a"), _user("a")))
    with pytest.raises(ConfigError, match="no user"):
        SharedBufferPlan("input_ids", ())


def test_share_buffers_is_engine_neutral() -> None:
    config = EngineConfig.from_dict({
        "engine": "trtllm", "max_num_seqs": 8, "max_num_batched_tokens": 64,
        "max_model_len": 512, "prefill_cuda_graph_backend": "piecewise"})
    model = engine_model(config.engine, config.engine_version)
    comps = model.components(config, model.ladders(config))
    with pytest.raises(ConfigError, match="no component"):
        share_buffers(comps, "target", "nope")
    # sharing is by the buffers' names the two components have in common, nothing else
    again = share_buffers(comps, "target", "prefill")
    names = {b.name for c in again for b in c.buffers if b.shared}
    assert names == {b.name for b in comps[-1].buffers}


def test_cli_plan_shows_each_shared_buffer_once_and_its_file_round_trips(
        tmp_path: Path) -> None:
    config = tmp_path / "trt.yaml"
    config.write_text("max_batch_size: 8\nmax_num_tokens: 64\n"
                      "prefill_cuda_graph_backend: piecewise\n")
    code, out, err = run_cli(["plan", "--engine", "trtllm", "--config", str(config), "--json"])
    assert code == 0, err
    doc = json.loads(out)
    assert [s["name"] for s in doc["shared_buffers"]] == ["input_ids", "position_ids"]
    assert doc["components"]["prefill"]["total_bytes"] == 0
    path = tmp_path / "plan.json"
    path.write_text(out)
    code, out, err = run_cli(["check", "--plan", str(path)])
    assert code == 0 and "SAFE" in out, err
    code, out, err = run_cli(["plan", "--engine", "trtllm", "--config", str(config),
                              "--format", "markdown"])
    assert code == 0, err
    assert "| = target.input_ids |" in out and "| = target.position_ids |" in out
