"""Sizing and proof of a keyed component: graphs keyed on more than a token count --
(requests, tokens, longest request), or any key an engine files a graph under
(graphfit.planner.core.keyed).

A `KeyedComponentModel` (graphfit.planner.engines.base) says which key each batch replays
(`KeyedDispatch`) and which keys the engine captures. Its plan is sized and proven here, the
same way for any engine:

* capacity: per buffer, the most rows any captured key's graph reads in it. The engine
  writes every captured key's rows when it captures it, and a batch replays a graph only
  when its key is captured (`KeyedDispatch.lookup`), so no batch, reachable or not, reads
  more;
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

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from graphfit.planner.core.buffers import Axis
from graphfit.planner.core.errors import ConfigError, brief
from graphfit.planner.core.keyed import KEY_NAMES, KeyedDispatch, split
from graphfit.planner.core.layout import lay_out
from graphfit.planner.core.named import find_buffer
from graphfit.planner.core.verify import EngineRefusal, ViolationRange
from graphfit.planner.engines.base import KeyedComponentModel

if TYPE_CHECKING:  # plan.py builds the BufferPlans (it imports this module)
    from graphfit.planner.plan import BufferPlan


@dataclass(frozen=True)
class KeyedComponentPlan:
    """A sized keyed component: its buffers (capacity = the most rows a captured key's graph
    reads in it), the dispatch, the bounds of the batches that reach it and one witness
    batch per key (the model's spelling fields carried for reports and documents)."""

    name: str
    buffers: tuple[BufferPlan, ...]
    dispatch: KeyedDispatch = field(repr=False)
    bounds: tuple[int, ...]
    witnesses: Mapping[Any, Any] = field(repr=False)
    ladders: tuple[tuple[str, tuple[int, ...]], ...] = ()
    layout: str = "arena"
    alignment: int = 0
    measure: Callable[[Any], tuple[int, ...]] | None = field(default=None, repr=False)
    bound_names: tuple[str, ...] = KEY_NAMES
    key_names: tuple[str, ...] = KEY_NAMES
    summary: str = ""
    refusals: tuple[EngineRefusal, ...] = ()

    @property
    def graph_keys(self) -> tuple[Any, ...]:
        """The captured keys, smallest first: what the engine and graphfit's runtime capture."""
        return self.dispatch.sorted_keys()

    @property
    def total_bytes(self) -> int:
        """Device bytes: the arena of its device buffers (host ones are `host_bytes`)."""
        return lay_out([b.bytes for b in self.buffers if b.on_device], self.layout,
                       self.alignment)[1]

    @property
    def reference_bytes(self) -> int:
        return sum(b.reference_bytes for b in self.buffers if b.on_device)

    @property
    def host_bytes(self) -> int:
        """Bytes of its host buffers (separate pinned allocations, outside the arena)."""
        return sum(b.bytes for b in self.buffers if not b.on_device)

    @property
    def host_reference_bytes(self) -> int:
        return sum(b.reference_bytes for b in self.buffers if not b.on_device)

    def buffer(self, name: str) -> BufferPlan:
        return find_buffer(self.name, self.buffers, name)

    def counts(self, batch: Any) -> tuple[int, ...]:
        """`batch` measured on `bound_names` (ConfigError when the dispatch refuses it)."""
        admitted = self.dispatch.admit(batch)
        return tuple(self.measure(admitted)) if self.measure is not None else tuple(admitted)

    def lookup(self, batch: Any) -> Any | None:
        """The captured key a batch replays (None: eager); ConfigError for a batch outside
        the bounds."""
        counts = self.counts(batch)
        if any(c > b for c, b in zip(counts, self.bounds, strict=True)):
            names = ", ".join(self.bound_names)
            raise ConfigError(f"batch {batch}: outside the bounds ({names}) <= {self.bounds}")
        return self.dispatch.lookup(batch)

    def rows(self, key: Any) -> dict[str, int]:
        """The rows a graph of `key` reads in each buffer."""
        return {b.name: self.dispatch.rows_of(key, b.name) for b in self.buffers}

    def witness(self, key: Any) -> Any:
        """The batch that replays captured `key` (what a runtime probes its graph with)."""
        if key not in self.witnesses:
            raise ConfigError(f"{self.name}: {key!r} is not a captured key")
        return self.witnesses[key]

    def probe(self, key: tuple[int, ...]) -> tuple[int, ...]:
        """Request lengths of a batch that replays captured `key` (its witness's counts, one
        split of them): what a runtime replays to compare the graph with eager. For a
        (requests, tokens, longest) dispatch, or a dispatch of request lengths (its witness
        is one); others probe with `witness(key)`."""
        witness = self.witness(key)
        return split(witness) if self.dispatch.reads_counts else tuple(witness)

    def check(self, capacities: Mapping[str, int]) -> tuple[list[ViolationRange], int]:
        """(violations, checks): every captured key's rows against each buffer's capacity
        (`capacities` by buffer name), a violation naming the tokens of the key's witness
        batch (its second count)."""
        found: list[ViolationRange] = []
        checked = 0
        for buf in self.buffers:
            cap = capacities[buf.name]
            short: set[int] = set()  # one report per row count (keys of other batch sizes)
            for key in self.graph_keys:
                checked += 1
                rows = self.dispatch.rows_of(key, buf.name)
                if rows > cap and rows not in short:
                    short.add(rows)
                    counts = self.counts(self.witnesses[key])
                    # a request-axis buffer names the witness's requests, others its tokens
                    on_requests = buf.axis is Axis.REQUESTS
                    tokens = counts[1] if len(counts) > 1 and not on_requests else counts[0]
                    said = "" if self.bound_names == KEY_NAMES else (
                        f"{self.name}.{buf.name}: a call of "
                        + ", ".join(f"{n} {c}" for n, c in zip(self.bound_names, counts,
                                                                strict=True))
                        + f" reads {rows} rows > capacity {cap} (key "
                        + brief(self.dispatch.key_text(key), 48) + ")")
                    found.append(ViolationRange(
                        self.name, buf.name, tokens, tokens, rows, cap, rows, said=said,
                        unit="requests" if on_requests else "num_tokens"))
        return found, checked


def _witnessed(model: KeyedComponentModel) -> None:
    """Each witness is a batch within the bounds that replays its key."""
    for key in model.dispatch.sorted_keys():
        batch = model.witnesses[key]
        counts = model.counts(batch)
        if (len(counts) != len(model.bounds)
                or any(c > b for c, b in zip(counts, model.bounds, strict=True))
                or model.dispatch.lookup(batch) != key):
            raise ConfigError(f"{model.name}: batch {batch} does not replay captured key "
                              f"{model.dispatch.key_text(key)} within the bounds "
                              f"{model.bounds}")


def keyed_capacities(model: KeyedComponentModel) -> dict[str, int]:
    """Each buffer's capacity: the most rows a captured key's graph reads in it (after
    checking every witness)."""
    _witnessed(model)
    keys = model.dispatch.captured
    return {b.name: max((model.dispatch.rows_of(k, b.name) for k in keys), default=0)
            for b in model.buffers}


def keyed_rows(model: KeyedComponentModel) -> int:
    """The largest captured key's rows (`dispatch.rows`), the capacity of every buffer of a
    component without per-buffer rows (after checking every witness)."""
    _witnessed(model)
    return max((model.dispatch.rows(k) for k in model.dispatch.captured), default=0)
