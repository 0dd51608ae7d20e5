"""Sizing and proof of a keyed component: graphs keyed on (requests, tokens, longest request).

A `KeyedComponentModel` (graphfit.planner.engines.base) says which key each batch replays
(`KeyedDispatch`) and which keys the engine captures. Its plan is sized and proven here, the
same way for any engine:

* capacity: the most rows any captured key's graph reads (token rows, `dispatch.rows(key)`;
  a request-axis buffer's rows are the key's padded requests, `key[0]`). The engine writes
  every captured key's rows when it captures it, and a batch replays a graph only when its
  key is captured (`KeyedDispatch.lookup`), so no batch, reachable or not, reads more;
* proof (`check`): every captured key's rows against the buffer's capacity, each violation
  shown with a reachable batch that replays that key (the model's witness, checked here to
  be within the bounds and to replay it). At the planned capacity nothing goes short; one
  row less, the witness of the largest key does;
* the witnesses are what a runtime replays to compare each graph with eager
  (graphfit.cudagraph.rehearsal).

The component sits in `Plan.keyed`, beside the token-dispatched components, so plans without
one are unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from graphfit.planner.core.buffers import Axis, BufferSpec
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.keyed import BatchKey, KeyedDispatch, check_key, split
from graphfit.planner.core.layout import lay_out
from graphfit.planner.core.verify import ViolationRange
from graphfit.planner.engines.base import KeyedComponentModel

if TYPE_CHECKING:  # plan.py builds the BufferPlans (it imports this module)
    from graphfit.planner.plan import BufferPlan


@dataclass(frozen=True)
class KeyedComponentPlan:
    """A sized keyed component: its buffers (capacity = the largest captured key's rows), the
    dispatch, the bounds of the batches that reach it and one witness batch per key."""

    name: str
    buffers: tuple[BufferPlan, ...]
    dispatch: KeyedDispatch = field(repr=False)
    bounds: BatchKey
    witnesses: Mapping[tuple[int, ...], BatchKey] = field(repr=False)
    ladders: tuple[tuple[str, tuple[int, ...]], ...] = ()
    layout: str = "arena"
    alignment: int = 0

    @property
    def graph_keys(self) -> tuple[tuple[int, ...], ...]:
        """The captured keys, smallest first: what the engine and graphfit's runtime capture."""
        return tuple(sorted(self.dispatch.captured))

    @property
    def total_bytes(self) -> int:
        return lay_out([b.bytes for b in self.buffers], self.layout, self.alignment)[1]

    @property
    def reference_bytes(self) -> int:
        return sum(b.reference_bytes for b in self.buffers)

    def buffer(self, name: str) -> BufferPlan:
        for buf in self.buffers:
            if buf.name == name:
                return buf
        known = ", ".join(b.name for b in self.buffers)
        raise ConfigError(f"buffer: {self.name} has no buffer {name!r} (known: {known})")

    def lookup(self, batch: BatchKey) -> tuple[int, ...] | None:
        """The captured key a batch of (requests, tokens, longest) replays (None: eager);
        ConfigError for a batch outside the bounds."""
        b, n, longest = check_key(batch)
        if b > self.bounds[0] or n > self.bounds[1] or longest > self.bounds[2]:
            raise ConfigError(f"batch {batch}: outside the bounds (requests, tokens, longest) "
                              f"<= {self.bounds}")
        return self.dispatch.lookup(batch)

    def probe(self, key: tuple[int, ...]) -> tuple[int, ...]:
        """Request lengths of a batch that replays captured `key` (its witness's counts, one
        split of them): what a runtime replays to compare the graph with eager."""
        if key not in self.witnesses:
            raise ConfigError(f"{self.name}: {key} is not a captured key")
        return split(self.witnesses[key])

    def check(self, capacities: Mapping[str, int]) -> tuple[list[ViolationRange], int]:
        """(violations, checks): every captured key's rows against each buffer's capacity
        (`capacities` by buffer name), a violation naming the key's witness batch."""
        found: list[ViolationRange] = []
        checked = 0
        for buf in self.buffers:
            cap = capacities[buf.name]
            short: set[int] = set()  # one report per row count (keys of other batch sizes)
            at = 0 if buf.axis is Axis.REQUESTS else 1  # the witness's requests or tokens
            for key in self.graph_keys:
                checked += 1
                rows = key_rows(self.dispatch, key, buf.spec)
                if rows > cap and rows not in short:
                    short.add(rows)
                    count = self.witnesses[key][at]
                    found.append(ViolationRange(
                        self.name, buf.name, count, count, rows, cap, rows,
                        unit="requests" if buf.axis is Axis.REQUESTS else "num_tokens"))
        return found, checked


def _witnessed(model: KeyedComponentModel) -> None:
    """Each witness is a batch within the bounds that replays its key."""
    max_b, max_n, max_l = model.bounds
    for key in sorted(model.dispatch.captured):
        batch = model.witnesses[key]
        b, n, longest = check_key(batch)
        if b > max_b or n > max_n or longest > max_l or model.dispatch.lookup(batch) != key:
            raise ConfigError(f"{model.name}: batch {batch} does not replay captured key "
                              f"{key} within the bounds {model.bounds}")


def key_rows(dispatch: KeyedDispatch, key: tuple[int, ...], spec: BufferSpec) -> int:
    """The rows a graph of `key` reads in a buffer: its token rows, or on Axis.REQUESTS its
    padded requests (`key[0]`)."""
    return key[0] if spec.axis is Axis.REQUESTS else dispatch.rows(key)


def keyed_rows(model: KeyedComponentModel, spec: BufferSpec | None = None) -> int:
    """The capacity of a buffer (default: a token buffer): the largest captured key's rows
    (after checking every witness)."""
    _witnessed(model)
    if spec is None:
        return max((model.dispatch.rows(k) for k in model.dispatch.captured), default=0)
    return max((key_rows(model.dispatch, k, spec) for k in model.dispatch.captured),
               default=0)
