"""Tiny torch models, configs and batch builders shared by the runtime tests (not collected)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import torch

from graphfit import CUDAGraphMode, EngineConfig
from graphfit.cudagraph import GraphRunner

# the toy models read the V1 model runner's buffers (arange, slot_mapping_buffer, ...): every
# config here pins runner v1 and vLLM 0.33.0 (0.33 itself defaults to the V2 runner; 0.34
# removed V1)
# small enough that capturing every graph takes milliseconds: ladder 4..64, drafter reach 32
SMALL = EngineConfig(runner="v1", max_num_seqs=8, num_speculative_tokens=3, spec_method="dflash",
                     engine_version="0.33.0",
                     max_num_batched_tokens=256, max_model_len=512, hidden_size=32,
                     dtype="float32")
# the seed bug's config (hidden size only shrinks the context buffer, not any capacity)
SEED = EngineConfig(max_num_seqs=33, num_speculative_tokens=3, spec_method="dflash", runner="v1",
                    engine_version="0.33.0",
                    hidden_size=16)
VOCAB = 64


class TinyPrefill(torch.nn.Module):
    """Token embedding plus positions (`input_ids`, `position_ids`): what a piecewise prefill
    segment between attentions reads."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.emb = torch.nn.Embedding(VOCAB, 8)
        self.out = torch.nn.Linear(8, 8)

    def graph_fn(self, views: Mapping[str, torch.Tensor]) -> torch.Tensor:
        x = self.emb(views["input_ids"] % VOCAB) + 0.01 * views["position_ids"].unsqueeze(-1)
        return self.out(torch.tanh(x))


def step_equals_eager(runner: GraphRunner, batch: Mapping[str, torch.Tensor], reqs: int,
                      padded: int | None) -> None:
    """One prefill step of `runner`: it replays the graph of `padded` tokens (None: runs
    eagerly), returns one row per real token, and equals the eager forward."""
    out = runner.step(batch, num_reqs=reqs)
    d = runner.last_dispatch
    assert d is not None and (None if d.mode is CUDAGraphMode.NONE else d.padded) == padded
    expected = runner.step(batch, num_reqs=reqs, eager=True)
    assert out.shape[0] == batch["input_ids"].shape[0]
    torch.testing.assert_close(out, expected)


class TinyTarget(torch.nn.Module):
    """Per-token embedding plus a per-request term read through query_start_loc/seq_lens.

    The request lookup is what FULL graphs do with attention metadata: it only stays right
    on padded rows because query_start_loc's tail repeats its last value.
    """

    def __init__(self, dim: int = 8, seed: int = 0) -> None:
        super().__init__()
        torch.manual_seed(seed)
        self.emb = torch.nn.Embedding(VOCAB, dim)
        self.pos = torch.nn.Embedding(VOCAB, dim)
        self.out = torch.nn.Linear(dim, dim)

    def forward(self, input_ids: torch.Tensor, positions: torch.Tensor,
                query_start_loc: torch.Tensor, seq_lens: torch.Tensor) -> torch.Tensor:
        tokens = torch.arange(input_ids.shape[0])
        req = torch.bucketize(tokens, query_start_loc[1:], right=True)
        req = req.clamp(max=seq_lens.shape[0] - 1)
        x = self.emb(input_ids.long() % VOCAB) + self.pos(positions % VOCAB)
        x = x + 0.01 * seq_lens[req].unsqueeze(-1).float()
        return self.out(torch.tanh(x))

    def graph_fn(self, views: Mapping[str, torch.Tensor]) -> torch.Tensor:
        return self(views["input_ids"], views["positions"], views["query_start_loc"],
                    views["seq_lens"])


class TinyDrafter(torch.nn.Module):
    """A DFlash-like drafter head: logits for each of the S*q query tokens."""

    def __init__(self, dim: int = 8, seed: int = 1) -> None:
        super().__init__()
        torch.manual_seed(seed)
        self.emb = torch.nn.Embedding(VOCAB, dim)
        self.mix = torch.nn.Linear(dim, dim)
        self.head = torch.nn.Linear(dim, VOCAB)

    def forward(self, input_ids: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        angle = positions.unsqueeze(-1).float() / 97.0
        x = self.emb(input_ids.long() % VOCAB) + torch.sin(angle)
        return self.head(torch.relu(self.mix(x)))

    def graph_fn(self, views: Mapping[str, torch.Tensor]) -> torch.Tensor:
        return self(views["input_ids"], views["positions"])


class Recorder:
    """Wraps a graph fn and keeps a copy of the views of its last call: what the graph saw."""

    def __init__(self, fn: Callable[[Mapping[str, torch.Tensor]], torch.Tensor]) -> None:
        self.fn = fn
        self.seen: dict[str, torch.Tensor] = {}
        self.calls = 0

    def __call__(self, views: Mapping[str, torch.Tensor]) -> torch.Tensor:
        self.calls += 1
        self.seen = {k: v.clone() for k, v in views.items()}
        return self.fn(views)


def target_batch(gen: torch.Generator, num_tokens: int, num_reqs: int) -> dict[str, torch.Tensor]:
    """Real rows of a target batch: num_reqs requests with >= 1 token each."""
    cuts = torch.randperm(num_tokens - 1, generator=gen)[:num_reqs - 1] + 1
    bounds = torch.cat([torch.zeros(1, dtype=torch.int64), cuts.sort().values,
                        torch.tensor([num_tokens])])
    return {
        "input_ids": torch.randint(0, VOCAB, (num_tokens,), generator=gen, dtype=torch.int32),
        "positions": torch.randint(0, 500, (num_tokens,), generator=gen),
        "slot_mapping": torch.randint(0, 1000, (num_tokens,), generator=gen),
        "is_padding": torch.zeros(num_tokens, dtype=torch.bool),
        "query_start_loc": bounds.to(torch.int32),
        "seq_lens": torch.randint(1, 500, (num_reqs,), generator=gen, dtype=torch.int32),
    }


def drafter_batch(gen: torch.Generator, num_reqs: int, q: int) -> dict[str, torch.Tensor]:
    """A DFlash query: q tokens per request at consecutive positions after its context."""
    ctx = torch.randint(1, 400, (num_reqs, 1), generator=gen)
    positions = (ctx + torch.arange(q)).reshape(-1)
    return {
        "input_ids": torch.randint(0, VOCAB, (num_reqs * q,), generator=gen, dtype=torch.int32),
        "positions": positions,
        "slot_mapping_buffer": positions + 1000 * torch.arange(num_reqs).repeat_interleave(q),
    }
