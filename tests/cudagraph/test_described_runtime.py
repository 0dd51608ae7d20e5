"""The shipped described engine (examples/engines/tiny_spec.toml) runs on graphfit's runtime:
StaticBuffers and GraphRunner on the CPU backend, graph outputs == eager, with none of
vLLM's buffer names; its S*q variant fails at capture, never mid-burst."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import CapacityError, CUDAGraphMode, EngineConfig, Plan, plan
from graphfit.cudagraph import GraphRunner, StaticBuffers
from graphfit.inputs.engine_file import load_engine_file, read_engine_file
from graphfit.planner.engines.described import register_description
from tests.helpers import ROOT

EXAMPLE = ROOT / "examples" / "engines" / "tiny_spec.toml"
S, T, K = 6, 64, 2
Q = 1 + K
VOCAB, DIM = 50, 16


class Target(torch.nn.Module):
    """Per-token embedding plus a per-request term found through req_starts (cumulative
    offsets, whose padded tail must repeat the last one) and req_ctx."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.emb = torch.nn.Embedding(VOCAB, 8)
        self.out = torch.nn.Linear(8, 8)

    def forward(self, tok_ids: torch.Tensor, tok_pos: torch.Tensor, req_starts: torch.Tensor,
                req_ctx: torch.Tensor) -> torch.Tensor:
        rows = torch.arange(tok_ids.shape[0])
        req = torch.bucketize(rows, req_starts[1:], right=True).clamp(max=req_ctx.shape[0] - 1)
        x = self.emb(tok_ids.long() % VOCAB) + 0.01 * (tok_pos % 97).unsqueeze(-1).float()
        return self.out(torch.tanh(x + 0.001 * req_ctx[req].unsqueeze(-1).float()))

    def graph_fn(self, views: Mapping[str, torch.Tensor]) -> torch.Tensor:
        return self(views["tok_ids"], views["tok_pos"], views["req_starts"], views["req_ctx"])


class Proposer(torch.nn.Module):
    """A draft head over q query tokens per request and the target's hidden rows."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(1)
        self.emb = torch.nn.Embedding(VOCAB, DIM)
        self.head = torch.nn.Linear(DIM, VOCAB)

    def forward(self, draft_tok: torch.Tensor, draft_pos: torch.Tensor,
                draft_hidden: torch.Tensor) -> torch.Tensor:
        x = self.emb(draft_tok.long() % VOCAB) + draft_hidden
        return self.head(torch.relu(x + torch.sin(draft_pos.unsqueeze(-1).float() / 31)))

    def graph_fn(self, views: Mapping[str, torch.Tensor]) -> torch.Tensor:
        return self(views["draft_tok"], views["draft_pos"], views["draft_hidden"])


@functools.cache
def tiny_plan() -> Plan:
    load_engine_file(EXAMPLE)
    return plan(EngineConfig(engine="tiny-spec", max_num_seqs=S, max_num_batched_tokens=T,
                             num_speculative_tokens=K))


@functools.cache
def harness(component: str) -> tuple[Plan, StaticBuffers, GraphRunner, torch.nn.Module]:
    p = tiny_plan()
    model: torch.nn.Module = Target() if component == "target" else Proposer()
    bufs = StaticBuffers.allocate(p, "cpu", component)
    runner = GraphRunner(model.graph_fn, p, bufs, backend="cpu")  # type: ignore[operator]
    return p, bufs, runner, model


def target_batch(gen: torch.Generator, n: int, r: int) -> dict[str, torch.Tensor]:
    cuts = torch.randperm(n - 1, generator=gen)[:r - 1] + 1
    starts = torch.cat([torch.zeros(1, dtype=torch.int64), cuts.sort().values,
                        torch.tensor([n])])
    return {"tok_ids": torch.randint(0, VOCAB, (n,), generator=gen, dtype=torch.int32),
            "tok_pos": torch.randint(0, 500, (n,), generator=gen),
            "req_starts": starts.to(torch.int32),
            "req_ctx": torch.randint(1, 500, (r,), generator=gen, dtype=torch.int32)}


def proposer_batch(gen: torch.Generator, r: int) -> dict[str, torch.Tensor]:
    n = r * Q
    return {"draft_tok": torch.randint(0, VOCAB, (n,), generator=gen, dtype=torch.int32),
            "draft_pos": torch.randint(0, 500, (n,), generator=gen),
            "draft_hidden": torch.randn(n, DIM, generator=gen)}


def test_the_runtime_captures_exactly_the_reachable_graphs() -> None:
    p, bufs, runner, _ = harness("proposer")
    assert set(bufs) == {"draft_tok", "draft_pos", "draft_hidden"}
    assert {k.padded for k in runner.graphs} == set(p.graph_sizes("proposer")) == {4, 8, 16, 24}
    assert all(g.modes == (CUDAGraphMode.FULL,) for g in runner.graphs.values())
    _, target_bufs, target_runner, _ = harness("target")
    assert set(target_bufs) == {"tok_ids", "tok_pos", "req_starts", "req_ctx"}
    modes = {m for g in target_runner.graphs.values() for m in g.modes}
    assert modes == {CUDAGraphMode.FULL, CUDAGraphMode.PIECEWISE}


@settings(max_examples=25)
@given(st.integers(1, T), st.data())
def test_target_graph_outputs_equal_eager(n: int, data: st.DataObject) -> None:
    p, bufs, runner, model = harness("target")
    r = data.draw(st.integers(1, min(n, S)))
    gen = torch.Generator().manual_seed(n * 31 + r)
    batch = target_batch(gen, n, r)
    bufs.poison()  # stale rows in every tail: the fills must make them harmless
    out = runner.step(batch)
    want = model(batch["tok_ids"], batch["tok_pos"], batch["req_starts"], batch["req_ctx"])
    torch.testing.assert_close(out, want)
    assert runner.last_dispatch == p.pad(n, num_reqs=r)


@settings(max_examples=12)
@given(st.integers(1, S), st.booleans())
def test_decode_graph_outputs_equal_eager(r: int, target: bool) -> None:
    """Uniform decodes of r requests x q tokens replay FULL graphs padded to the next size."""
    gen = torch.Generator().manual_seed(r)
    if target:
        p, bufs, runner, model = harness("target")
        batch = target_batch(gen, r * Q, r)
        batch["req_starts"] = torch.arange(0, r * Q + 1, Q, dtype=torch.int32)
        want = model(batch["tok_ids"], batch["tok_pos"], batch["req_starts"], batch["req_ctx"])
    else:
        p, bufs, runner, model = harness("proposer")
        batch = proposer_batch(gen, r)
        want = model(batch["draft_tok"], batch["draft_pos"], batch["draft_hidden"])
    bufs.poison()
    out = runner.step(batch, uniform_decode=True, num_reqs=r)
    torch.testing.assert_close(out, want)
    d = runner.last_dispatch
    assert d is not None and d.mode is CUDAGraphMode.FULL and d.padded >= r * Q
    component = "target" if target else "proposer"
    assert d == p.pad(r * Q, uniform_decode=True, component=component)


def test_the_s_times_q_variant_fails_at_capture(tmp_path: Path) -> None:
    """The engine's own S*q sizing cannot hold the padded query: allocating it is refused
    when the graphs are captured, before any batch runs."""
    path = tmp_path / "tiny_spec_sq.toml"
    path.write_text(EXAMPLE.read_text().replace('allocates = "max(S * q, C)"',
                                                'allocates = "S * q"')
                    .replace('name = "tiny-spec"', 'name = "tiny-spec-sq"'))
    description, variant = read_engine_file(EXAMPLE), read_engine_file(path)
    assert variant.components[1] != description.components[1]
    register_description(variant)
    p = plan(EngineConfig(engine="tiny-spec-sq", max_num_seqs=S, max_num_batched_tokens=T,
                          num_speculative_tokens=K))
    engine = {b.name: b.reference_capacity for b in p.component("proposer").buffers}
    assert engine == {"draft_tok": S * Q, "draft_pos": S * Q, "draft_hidden": S * Q}
    bufs = StaticBuffers.allocate(p, "cpu", "proposer", capacities=engine)
    with pytest.raises(CapacityError, match=r"holds 18 rows but 24"):
        GraphRunner(Proposer().graph_fn, p, bufs, backend="cpu")
    assert not p.verify_engine().ok


def test_graphfit_testing_generates_described_engine_plans() -> None:
    """An engine's own CI on a described engine: graphfit.testing's strategies and
    assertions take it like a modelled one (its allocation formula audited per plan)."""
    from graphfit.testing import assert_plan_safe, engine_plans

    tiny_plan()  # registers the example

    @settings(max_examples=15)
    @given(engine_plans(engines=("tiny-spec",), max_seqs=16, methods=("draft_model",)))
    def check(p: Plan) -> None:
        assert p.config.engine.value == "tiny-spec" and "proposer" in p.components
        assert_plan_safe(p, {"proposer.draft_tok": "max(S*q, C)"})

    check()
    with pytest.raises(AssertionError, match="draft_tok"):
        assert_plan_safe(tiny_plan(), {"proposer.draft_tok": "S*q"})


@settings(max_examples=12, deadline=None)
@given(st.sampled_from(sorted((ROOT / "examples" / "engines").glob("*.toml"))),
       st.integers(1, 12), st.integers(0, 4))
def test_rehearse_reaches_every_graph_of_the_shipped_engine_files(path: Path, seqs: int,
                                                                  k: int) -> None:
    """`graphfit rehearse` finds a batch for every captured graph: a proposer whose graphs
    are uniform decodes of q = 1 + k tokens a request is reached by a batch that pads to its
    key (q need not divide the key, and the key may need more than S requests to be full)."""
    from graphfit.cudagraph.rehearsal import rehearse

    engine = load_engine_file(path)
    p = plan(EngineConfig(engine=engine.engine, engine_version=engine.release,
                          max_num_seqs=seqs, max_num_batched_tokens=T,
                          num_speculative_tokens=k))
    if not p.verify().ok:  # the S*q variant: refused at capture (tested above)
        return
    report = rehearse(p)
    assert report.ok, [(c.component, c.unreached, c.mismatches) for c in report.components]
    assert all(c.replayed >= c.graphs for c in report.components)
