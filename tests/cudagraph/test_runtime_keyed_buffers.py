"""`KeyedBufferRunner` (graphfit.cudagraph.keyed_buffers) on TensorRT-LLM's feature-mode encoder
and multimodal-encoder plans, CPU backend: every batch within the bounds equals its eager run
(the graph its key replays, the rest eager), the feature mirrors are used in turn and hold the
batch's rows then zeros up to the key's, and a buffer one row short fails before any capture.
"""

from __future__ import annotations

import math

import pytest
import torch

from graphfit import CapacityError, EngineConfig, Plan, plan
from graphfit.cudagraph.keyed_buffers import KeyedBufferRunner
from graphfit.cudagraph.rehearsal import BufferToyForward, rehearse
from graphfit.planner.engines.trtllm_features import MIRROR_BUFFER

SHAPE, FIXED = (6,), 3


def _feature_plan(tp: int = 1) -> Plan:
    return plan(EngineConfig.from_dict({
        "engine": "trtllm", "max_num_seqs": 8, "max_num_batched_tokens": 256,
        "max_model_len": 64, "options": {
            "encoder_graph_batch_sizes": [1, 2, 4, 8, 9], "encoder_graph_padding": True,
            "encoder_max_batch_size": 9, "encoder_max_num_tokens": 100,
            "encoder_feature_spec": [list(SHAPE), "float32", FIXED],
            "tensor_parallel_size": tp}}))


def _mm_plan() -> Plan:
    return plan(EngineConfig.from_dict({
        "engine": "trtllm", "max_num_seqs": 8, "max_num_batched_tokens": 256, "options": {
            "mm_encoder_graphs": [["image", [[8, 1], [24, 3]], True]],
            "mm_encoder_inputs": [["image", [["x", [5], "bfloat16"],
                                             ["cos", [2], "float32"]]]]}}))


def _runner(p: Plan, name: str, **kw: object) -> KeyedBufferRunner:
    """The component's runner with the rehearsal's toy forward (one layer per read buffer)."""
    reads = [b for b in p.keyed[name].buffers if not b.stages]  # not the staging copies
    widths = {b.name: math.prod(d for i, d in enumerate(b.shape) if i != b.axis_dim)
              for b in reads}
    model = BufferToyForward(widths, {b.name: b.axis_dim for b in reads})
    return KeyedBufferRunner(model, p, name, **kw)  # type: ignore[arg-type]


def test_feature_batches_equal_eager_and_rotate_the_mirrors() -> None:
    p = _feature_plan()
    comp = p.keyed["encoder"]
    runner = _runner(p, "encoder")
    runner.capture()
    assert set(runner.graphs) == set(comp.graph_keys)
    gen = torch.Generator().manual_seed(0)
    used = []
    with torch.no_grad():
        for b in range(1, 10):
            batch = {"input_features": torch.randn((b, *SHAPE), generator=gen),
                     # the graphs read the device lengths, staged from the host seq_lens
                     "seq_lens_cuda": torch.full((b,), FIXED, dtype=torch.int32)}
            slot = runner.slot
            got = runner.step((b, b * FIXED, FIXED), batch)
            key = comp.lookup((b, b * FIXED, FIXED))
            assert runner.last_key == key
            ref = runner.step((b, b * FIXED, FIXED), batch, eager=True)
            assert all(torch.equal(g, r) for g, r in zip(got, ref, strict=True)), b
            if key is None:
                continue
            used.append(slot)
            mirror = runner.buffers[MIRROR_BUFFER][slot]
            assert torch.equal(mirror[:b], batch["input_features"])
            assert not mirror[b:key[0]].any()  # the padding requests' rows are zeros
            assert torch.equal(runner.buffers["input_features"][:key[0]], mirror[:key[0]])
    assert used == [i % 2 for i in range(len(used))] and len(used) >= 5  # 1, 2, 4, 8, 9


def test_mm_batches_equal_eager() -> None:
    p = _mm_plan()
    comp = p.keyed["mm_encoder.image"]
    runner = _runner(p, "mm_encoder.image")
    runner.capture()
    gen = torch.Generator().manual_seed(1)
    replays = 0
    with torch.no_grad():
        for contexts in (1, 2, 3):
            for tokens in range(contexts, 25):
                batch = {"x": torch.randn((tokens, 5), generator=gen).bfloat16(),
                         "cos": torch.randn((tokens, 2), generator=gen)}
                got = runner.step((contexts, tokens), batch)
                assert runner.last_key == comp.lookup((contexts, tokens))
                replays += runner.last_key is not None
                ref = runner.step((contexts, tokens), batch, eager=True)
                assert all(torch.equal(g, r) for g, r in zip(got, ref, strict=True))
    assert replays == 8 + 22  # (1, 1..8) and (3, 3..24)


@pytest.mark.parametrize("name", ["input_features", "seq_lens", MIRROR_BUFFER])
def test_one_row_short_fails_before_capture(name: str) -> None:
    p = _feature_plan()
    short = {name: p.keyed["encoder"].buffer(name).capacity - 1}
    runner = _runner(p, "encoder", capacities=short)
    with pytest.raises(CapacityError, match=name):
        runner.capture()
    assert not runner.graphs


def test_rehearse_replays_the_feature_and_mm_encoders() -> None:
    for p, name in ((_feature_plan(), "encoder"), (_mm_plan(), "mm_encoder.image")):
        result = rehearse(p)
        part = next(c for c in result.components if c.component == name)
        assert result.ok and part.graphs == part.replayed == len(p.keyed[name].graph_keys)
    eager = rehearse(_feature_plan(tp=2))  # TP 2: the encoder has no graph to rehearse
    assert "encoder" in eager.skipped and eager.ok
