"""Buffer placement (`BufferSpec.placement`): host buffers are counted apart from the device.

Engine-neutral: a described engine (examples/engines/tiny_spec.toml, none of whose names is
an engine's) with host staging buffers added plans exactly the device figures it plans
without them -- every device buffer's capacity, bytes and arena offset, each component's and
the plan's device bytes -- and counts the host buffers in `host_bytes` only. A plan without
host buffers writes no placement field (a plan file written before placements still reads);
an entry without one reads as device. The runtime allocates host buffers outside the arena.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import ConfigError, EngineConfig, plan
from graphfit.inputs.engine_file import description_from_data
from graphfit.planner.core.batches import Stream
from graphfit.planner.core.buffers import (
    Axis,
    BufferSpec,
    Demand,
    Placement,
)
from graphfit.planner.core.layout import lay_out
from graphfit.planner.document import plan_document
from graphfit.planner.engines.described import register_description
from tests.helpers import ROOT, run_cli, saved_plan

EXAMPLE = ROOT / "examples" / "engines" / "tiny_spec.toml"
STAGE = {"name": "stage_ids", "dtype": "int64", "rows": "tokens", "allocates": "T",
         "placement": "host"}
STAGE_REQ = {"name": "stage_lens", "dtype": "int32", "rows": "requests", "allocates": "S",
             "placement": "host"}


def _described(name: str, host: bool) -> None:
    toml = pytest.importorskip("tomllib")  # Python 3.11+ (the example is TOML)
    data: dict[str, Any] = toml.loads(EXAMPLE.read_text())
    data["name"] = name
    if host:  # host buffers first: they must not shift any device buffer's offset
        for comp in data["components"]:
            comp["buffers"] = [dict(STAGE), *comp["buffers"], dict(STAGE_REQ)]
    register_description(description_from_data(data, name))


@pytest.fixture(scope="module", autouse=True)
def engines() -> None:
    _described("placed-device", False)
    _described("placed-host", True)


def _config(name: str, s: int, t: int, k: int) -> EngineConfig:
    return EngineConfig(engine=name, max_num_seqs=s, max_num_batched_tokens=t,
                        num_speculative_tokens=k)


def _walk(doc: Any) -> list[str]:
    """Every key of a JSON document, nested."""
    if isinstance(doc, dict):
        return [k for k, v in doc.items() for k in (k, *_walk(v))]
    if isinstance(doc, list):
        return [k for v in doc for k in _walk(v)]
    return []


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 12), st.integers(12, 96), st.integers(0, 3))
def test_host_buffers_leave_every_device_figure_unchanged(s: int, t: int, k: int) -> None:
    without, with_host = (plan(_config("placed-device", s, t, k)),
                          plan(_config("placed-host", s, t, k)))
    assert without.host_bytes == 0 and without.host_reference_bytes == 0
    for name, comp in without.components.items():
        other = with_host.components[name]
        device = [b for b in other.buffers if b.on_device]
        assert [(b.key, b.capacity, b.bytes, b.offset, b.reference_bytes)
                for b in comp.buffers] == [(b.key, b.capacity, b.bytes, b.offset,
                                            b.reference_bytes) for b in device]
        assert (comp.total_bytes, comp.reference_bytes) == (other.total_bytes,
                                                            other.reference_bytes)
        hosted = [b for b in other.buffers if not b.on_device]
        assert {b.name for b in hosted} == {STAGE["name"], STAGE_REQ["name"]}
        assert all(b.offset == 0 for b in hosted)
        assert other.host_bytes == sum(b.bytes for b in hosted) > 0
        # the device figure is the placement-blind arena of the device buffers alone
        assert other.total_bytes == lay_out([b.bytes for b in device], other.layout,
                                            other.alignment)[1]
    assert (without.total_bytes, without.reference_bytes) == (with_host.total_bytes,
                                                              with_host.reference_bytes)
    assert with_host.host_bytes == sum(c.host_bytes for c in with_host.components.values())
    assert without.verify().ok and with_host.verify().ok
    # a plan without host buffers writes no placement field; one with them marks them
    verification = without.verify()
    keys = set(_walk(plan_document(without, verification)))
    assert not keys & {"placement", "host_bytes", "host_reference_bytes"}
    doc = plan_document(with_host, with_host.verify())
    assert doc["host_bytes"] == with_host.host_bytes
    placed = {b["name"]: b.get("placement", "device")
              for c in doc["components"].values() for b in c["buffers"]}
    assert placed[STAGE["name"]] == "host" and placed["tok_ids"] == "device"


def test_runtime_allocates_host_buffers_outside_the_arena() -> None:
    torch = pytest.importorskip("torch")
    from graphfit.cudagraph.buffers import StaticBuffers

    p = plan(_config("placed-host", 6, 64, 2))
    bufs = StaticBuffers.allocate(p, "cpu", "target")
    comp = p.component("target")
    assert bufs.arena is not None and bufs.arena.numel() == comp.total_bytes
    start = bufs.arena.data_ptr()
    for b in comp.buffers:
        t = bufs[b.name]
        inside = start <= t.data_ptr() < start + bufs.arena.numel()
        assert inside == b.on_device, b.key
        assert tuple(t.shape) == b.shape and t.dtype == getattr(torch, b.dtype)


def test_bad_placements_are_one_error() -> None:
    with pytest.raises(ConfigError, match="placement 'gpu' is not one of device, host"):
        description_from_data({"name": "x", "version": "1", "components": [{
            "name": "target", "ladder": {"keyed": "tokens", "sizes": [1, 2]},
            "buffers": [{**STAGE, "placement": "gpu"}]}]})
    with pytest.raises(ConfigError, match="placement must be one of device, host"):
        BufferSpec("x", "int32", Axis.TOKENS, (Demand(Stream.GRAPH_TOKENS),), 4,
                   placement="pinned")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="a shared buffer is a device buffer"):
        BufferSpec("x", "int32", Axis.TOKENS, (Demand(Stream.GRAPH_TOKENS),), 4, shared="x",
                   placement=Placement.HOST)


def test_plan_file_reads_entries_without_placement_as_device(tmp_path: Path) -> None:
    """TensorRT-LLM's encoder plan (host seq_lens and staging copies): its plan file checks;
    the same file with a host buffer's `placement` dropped (what a file written before
    placements holds) reads that buffer as device, so it is refused naming the field."""
    config = tmp_path / "encode.yaml"
    config.write_text("max_batch_size: 4\nmax_num_tokens: 256\nmax_seq_len: 64\n"
                      "cuda_graph_config:\n  mode: encode\n  batch_sizes: [1, 2, 4]\n"
                      "  num_tokens: [16, 64]\n  seq_lens: [16, 64]\n")
    line = ["--", "trtllm-serve", "bert", "--extra_llm_api_options", str(config)]
    code, out, err = run_cli(["plan", "--json", *line])
    assert code == 0, err
    saved = saved_plan(tmp_path, out)
    doc = json.loads(out)
    encoder = doc["keyed_components"]["encoder"]
    assert encoder["host_bytes"] == sum(b["bytes"] for b in encoder["buffers"]
                                        if b.get("placement") == "host") > 0
    assert doc["host_bytes"] == encoder["host_bytes"]  # the only host buffers
    assert doc["total_bytes"] == encoder["total_bytes"] + sum(
        c["total_bytes"] for c in doc["components"].values())
    index = next(i for i, b in enumerate(encoder["buffers"]) if b["name"] == "seq_lens")
    del encoder["buffers"][index]["placement"]
    saved.write_text(json.dumps(doc))
    code, _, err = run_cli(["check", "--plan", str(saved)])
    assert code == 2 and f"keyed_components.encoder.buffers[{index}]" in err, err
    code, out, err = run_cli(["plan", *line])
    assert code == 0 and "total host" in out, err
