"""torch.compile(dynamic=False) on CPU: the seed bug's size assertion, and graphfit avoiding it.

What torch 2.13 actually does with a short tensor: dynamo's guards would notice the new shape
and recompile, but engines (vLLM's piecewise backend) call the compiled artifact for a size
directly. Then inductor's generated code asserts sizes (`expected size 132==136`), while
aot_eager / eager artifacts run on the short tensor silently.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest
import torch

from graphfit import CapacityError, EngineConfig, GraphfitError, plan
from graphfit.cudagraph import CompiledBackend, GraphRunner, StaticBuffers
from tests.cudagraph.runtime_models import SEED, SMALL, TinyDrafter, drafter_batch

# torch.compile's own internals warn about torch.jit deprecations; not ours to fix
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

LEGACY = plan(SEED.replace(ladder="vllm-legacy"))  # pads a full 132-token query to 136


def seed_views(bufs: StaticBuffers, n: int) -> dict[str, torch.Tensor]:
    return {"input_ids": bufs.view("input_ids", n), "positions": bufs.view("positions", n)}


def test_inductor_graph_asserts_on_the_seed_bug_short_tensor() -> None:
    bufs = StaticBuffers.allocate(LEGACY, "cpu", "drafter")  # graphfit: 136 rows
    model = TinyDrafter()
    views = seed_views(bufs, 136)
    views["positions"].copy_(torch.arange(136))
    graph = CompiledBackend("inductor", dynamic=False).capture(model.graph_fn, views)
    torch.testing.assert_close(graph.replay(), model.graph_fn(views))

    vllm_positions = torch.zeros(132, dtype=torch.int64)  # vLLM's max_num_seqs * (1 + k)
    short = vllm_positions[:136]
    assert short.shape == (132,)  # the slice silently returns 132 rows
    with pytest.raises(AssertionError, match="expected size 132==136"):
        graph.call_with({"positions": short})

    sized_like_vllm = StaticBuffers.allocate(LEGACY, "cpu", "drafter",
                                             capacities={"positions": 132})
    with pytest.raises(CapacityError, match="holds 132 rows but 136"):
        sized_like_vllm.view("positions", 136)  # graphfit never hands out the short tensor


def test_aot_eager_artifacts_do_not_check_sizes() -> None:
    bufs = StaticBuffers.allocate(LEGACY, "cpu", "drafter")
    graph = CompiledBackend("aot_eager").capture(TinyDrafter().graph_fn, seed_views(bufs, 136))
    out = graph.call_with({"positions": torch.zeros(132, dtype=torch.int64)[:136],
                           "input_ids": torch.zeros(132, dtype=torch.int32)[:136]})
    assert isinstance(out, torch.Tensor) and out.shape[0] == 132  # wrong, and nobody noticed


def test_compiled_runner_replays_equal_eager_without_recompiling() -> None:
    p = plan(SMALL)
    bufs = StaticBuffers.allocate(p, "cpu", "drafter")
    model = TinyDrafter()
    backend = CompiledBackend("aot_eager")
    runner = GraphRunner(model.graph_fn, p, bufs, backend=backend,
                         graph_inputs=["input_ids", "positions", "slot_mapping_buffer"])
    assert backend.captured == len(runner.graphs) == 5
    assert backend.compiles == 1  # one dynamic-shape artifact, a graph per size bound to it
    gen = torch.Generator().manual_seed(3)
    for r in (8, 1, 3, 8, 5, 2):
        bufs.poison()
        batch = drafter_batch(gen, r, SMALL.uniform_query_len)
        torch.testing.assert_close(runner.step(batch),
                                   model(batch["input_ids"], batch["positions"]))
    assert backend.captured == 5


def test_inductor_runner_on_a_two_size_ladder() -> None:
    cfg = EngineConfig(runner="v1", max_num_seqs=2, num_speculative_tokens=3, spec_method="dflash",
                       engine_version="0.33.0",
                       max_num_batched_tokens=32, hidden_size=4, dtype="float32",
                       ladder="explicit", cudagraph_capture_sizes=(4, 8))
    p = plan(cfg)
    bufs = StaticBuffers.allocate(p, "cpu", "drafter")
    model = TinyDrafter()
    runner = GraphRunner(model.graph_fn, p, bufs, backend="compiled",
                         graph_inputs=["input_ids", "positions"])
    assert [k.padded for k in runner.graphs] == [8, 4]
    gen = torch.Generator().manual_seed(4)
    for r in (1, 2, 1):
        batch = drafter_batch(gen, r, 4)
        batch.pop("slot_mapping_buffer")
        torch.testing.assert_close(runner.step(batch),
                                   model(batch["input_ids"], batch["positions"]))


def test_one_compiler_call_for_a_fn_with_float_constants() -> None:
    """A float constant of fn (here `/ 97.0` and a GELU) once made dynamo restart its analysis
    (a second trace and compiler call); specialised floats compile once for every size."""
    p = plan(SMALL)
    bufs = StaticBuffers.allocate(p, "cpu", "drafter")
    model = TinyDrafter()
    scale = 0.5

    def fn(views: Mapping[str, torch.Tensor]) -> torch.Tensor:
        return torch.nn.functional.gelu(model.graph_fn(views)) * scale

    backend = CompiledBackend("aot_eager")
    runner = GraphRunner(fn, p, bufs, backend=backend, graph_inputs=["input_ids", "positions"])
    assert backend.compiler_calls == 1 and backend.compiles == 1
    assert len(runner.graphs) == 5
    gen = torch.Generator().manual_seed(5)
    for r in (8, 3, 1):
        batch = drafter_batch(gen, r, SMALL.uniform_query_len)
        batch.pop("slot_mapping_buffer")
        torch.testing.assert_close(runner.step(batch), fn(batch))


def test_outputs_aliasing_an_input_are_refused_at_capture() -> None:
    p = plan(SMALL)
    bufs = StaticBuffers.allocate(p, "cpu", "drafter")

    def fn(views: Mapping[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
        return views["positions"].float() * 2, views["input_ids"]  # the second is an input

    with pytest.raises(GraphfitError, match="do not map 1:1"):
        GraphRunner(fn, p, bufs, backend=CompiledBackend("aot_eager"),
                    graph_inputs=["input_ids", "positions"])
