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

The protocol is not tied to that key: a key is any hashable value the engine files a graph
under (SGLang's vision-encoder graphs key on an image layout, graphfit.planner.engines.
sglang_vit), with a stable text form (`KeyedDispatch.key_text`) for documents and reports;
a batch is whatever the rule reads (`admit` validates it: a `BatchKey` by default); and a
buffer may read its own rows per key (`buffer_rows`: a sequence-boundary buffer counts
sequences, not tokens). Without those, a dispatch is the (requests, tokens, longest) one
above, every buffer reading `rows(key)`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from graphfit.planner.core.errors import ConfigError, require_int

# (requests, tokens, longest request): what a multi-dimensional dispatch reads of a batch
BatchKey = tuple[int, int, int]
KEY_NAMES = ("requests", "tokens", "longest")  # a BatchKey's dimensions, as documents name them
# a graph key: any hashable value (TensorRT-LLM's encoder: a tuple of ints); typed Any so an
# engine's rule keeps its own precise key type
Key = Any


def int_key_text(key: Key) -> str:
    """The text form of a key of integers: "1,64,32" (the default `KeyedDispatch.text`)."""
    if not isinstance(key, tuple) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in key):
        raise ConfigError(f"keyed dispatch: key {key!r} is not a tuple of integers: give the "
                          "dispatch its own text form")
    return ",".join(map(str, key))


def int_key_json(key: Key) -> Any:
    """A key of integers as a JSON list (the default `KeyedDispatch.key_json`)."""
    int_key_text(key)
    return list(key)


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
    `rows(key)` is what a graph of that key occupies in a buffer (its padded tokens).

    The rest is how keys and batches are spelled (module docstring), all optional for a
    (requests, tokens, longest) dispatch with integer keys: `buffer_rows` the rows of named
    buffers where they differ from `rows`; `text` a key's stable text form (one key, one
    text: the proof reports and plan documents name keys by it); `key_json` / `batch_json` a
    key / batch as a plan document writes it; `order` the sort key of the captured keys
    (default: the keys themselves); `admit` a batch as the rule reads it, ConfigError for a
    batch that is not one (default `check_key`)."""

    rule: Callable[[Any], Key | None]
    captured: frozenset[Key]
    rows: Callable[[Key], int]
    buffer_rows: Mapping[str, Callable[[Key], int]] = field(
        default_factory=lambda: MappingProxyType({}))
    text: Callable[[Key], str] = int_key_text
    key_json: Callable[[Key], Any] = int_key_json
    batch_json: Callable[[Any], Any] = list
    order: Callable[[Key], Any] | None = None
    admit: Callable[[Any], Any] = check_key

    def __post_init__(self) -> None:
        functions = (self.rule, self.rows, self.text, self.key_json, self.batch_json,
                     self.admit, *self.buffer_rows.values())
        if not all(callable(f) for f in functions) or not (
                self.order is None or callable(self.order)):
            raise ConfigError("keyed dispatch: rule, rows and the spelling rules must be "
                              "functions")
        if not all(isinstance(name, str) and name for name in self.buffer_rows):
            raise ConfigError("keyed dispatch: buffer_rows is keyed by buffer name")
        captured = frozenset(self.captured)
        if not all(isinstance(k, Hashable) for k in captured):
            raise ConfigError("keyed dispatch: keys must be hashable")
        texts = [self.text(k) for k in captured]
        if len(set(texts)) != len(texts):  # a text names one key, so a document can
            raise ConfigError("keyed dispatch: two captured keys share one text form")
        object.__setattr__(self, "captured", captured)
        object.__setattr__(self, "buffer_rows", MappingProxyType(dict(self.buffer_rows)))

    def lookup(self, batch: Any) -> Key | None:
        """The captured key `batch` replays, or None (eager)."""
        key = self.rule(self.admit(batch))
        return key if key is not None and key in self.captured else None

    @property
    def reads_counts(self) -> bool:
        """True when a batch is a (requests, tokens, longest) `BatchKey` (the default
        `admit`); a runtime holding request lengths then passes their counts, else the
        lengths themselves (TensorRT-LLM's fixed sequence slots key on them)."""
        return self.admit is check_key

    def rows_of(self, key: Key, buffer: str) -> int:
        """The rows a graph of `key` reads in `buffer` (its own rule, else `rows`)."""
        rule = self.buffer_rows.get(buffer, self.rows)
        return rule(key)

    def key_text(self, key: Key) -> str:
        return self.text(key)

    def sorted_keys(self) -> tuple[Key, ...]:
        """The captured keys in `order` (smallest first)."""
        return tuple(sorted(self.captured, key=self.order))


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
