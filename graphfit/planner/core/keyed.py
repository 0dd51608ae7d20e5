"""Dispatch over a multi-dimensional batch key: (requests, tokens, longest request).

`DispatchTables` maps a token count (and at most a request bound) to one graph. Some graph
runners key a graph on more than that: an encoder that pads the batch size, the total tokens
and the longest request's length to buckets of their own replays a different graph for two
batches of the same token count split differently between requests. This module is the
engine-neutral part of planning such a runner:

* `BatchKey`: a batch as that dispatch sees it, (requests, tokens, longest request);
* `reachable_keys`: every such batch within the bounds (each request holds at least one
  token, and no more than the longest), so a proof covers every split;
* `KeyedDispatch`: the engine's key rule (a function from a batch to the key of the graph it
  replays, or None for eager) with the keys the engine captures; a batch replays a graph only
  when its key is captured;
* `prove_keyed`: padded rows <= capacity for every reachable batch that replays a graph.

The engine's own rule (how it rounds each dimension) stays in its engine module.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from graphfit.planner.core.errors import ConfigError, require_int

# (requests, tokens, longest request): what a multi-dimensional dispatch reads of a batch
BatchKey = tuple[int, int, int]


def check_key(key: BatchKey) -> BatchKey:
    """The key, or ConfigError when no batch has it (a request holds 1..longest tokens)."""
    if not isinstance(key, tuple) or len(key) != 3:
        raise ConfigError(f"batch key: expected (requests, tokens, longest), got {key!r}")
    b, n, longest = key
    for name, value in (("requests", b), ("tokens", n), ("longest", longest)):
        require_int(f"batch key: {name}", value, 1)
    if not (b <= n <= b * longest and longest <= n - b + 1):
        raise ConfigError(f"batch key: no batch of {b} requests holds {n} tokens with the "
                          f"longest request {longest}")
    return key


def reachable_keys(max_requests: int, max_tokens: int, max_longest: int
                   ) -> Iterator[BatchKey]:
    """Every (b, n, L) a batch of at most `max_requests` requests, `max_tokens` tokens and
    requests of at most `max_longest` tokens has: b <= n, ceil(n / b) <= L <= n - b + 1."""
    for name, value in (("max_requests", max_requests), ("max_tokens", max_tokens),
                        ("max_longest", max_longest)):
        require_int(name, value, 0)
    for b in range(1, max_requests + 1):
        for n in range(b, min(max_tokens, b * max_longest) + 1):
            for longest in range(-(-n // b), min(max_longest, n - b + 1) + 1):
                yield b, n, longest


@dataclass(frozen=True)
class KeyedDispatch:
    """The graph a batch replays: `rule(batch)` is the key the engine computes (None: it runs
    eagerly), and only `captured` keys have a graph (an uncaptured key runs eagerly too).
    `rows(key)` is what a graph of that key occupies in a buffer (its padded tokens)."""

    rule: Callable[[BatchKey], tuple[int, ...] | None]
    captured: frozenset[tuple[int, ...]]
    rows: Callable[[tuple[int, ...]], int]

    def __post_init__(self) -> None:
        if not callable(self.rule) or not callable(self.rows):
            raise ConfigError("keyed dispatch: rule and rows must be functions")
        object.__setattr__(self, "captured", frozenset(self.captured))

    def lookup(self, batch: BatchKey) -> tuple[int, ...] | None:
        """The captured key `batch` replays, or None (eager)."""
        key = self.rule(check_key(batch))
        return key if key is not None and key in self.captured else None


@dataclass(frozen=True)
class KeyedViolation:
    """A reachable batch whose graph occupies more rows than the buffer holds."""

    batch: BatchKey
    key: tuple[int, ...]
    rows: int
    capacity: int


def prove_keyed(dispatch: KeyedDispatch, capacity: int, max_requests: int, max_tokens: int,
                max_longest: int) -> tuple[tuple[KeyedViolation, ...], int, int]:
    """(violations, batches checked, batches that replay a graph): every reachable batch's
    graph rows against `capacity` (eager batches do not read the graph's buffer)."""
    require_int("capacity", capacity, 0)
    found: list[KeyedViolation] = []
    checked = replayed = 0
    for batch in reachable_keys(max_requests, max_tokens, max_longest):
        checked += 1
        key = dispatch.lookup(batch)
        if key is None:
            continue
        replayed += 1
        rows = dispatch.rows(key)
        if rows > capacity:
            found.append(KeyedViolation(batch, key, rows, capacity))
    return tuple(found), checked, replayed


def split(batch: BatchKey) -> tuple[int, ...]:
    """One list of request lengths with exactly `batch`'s counts: one request of the longest
    length, the rest spread evenly (each 1..longest). Any split of the same counts replays
    the same graph, so a runtime can probe a key with this one."""
    b, n, longest = check_key(batch)
    if b == 1:
        return (n,)
    base, extra = divmod(n - longest, b - 1)
    return (longest, *([base + 1] * extra), *([base] * (b - 1 - extra)))
