"""Reachable batches: the families of batches a component can see, as intervals.

A family is every batch of `step * a` tokens for a in [first, last] (or only the listed
points), with a request count per batch and a route through the dispatcher. Engines declare
families; capacities, verification and the runtime's graph keys all walk the same families
through the same tables, so they cannot disagree.

`Stream` names what a buffer reads: the token or request axis of one kind of batch. A family
says which streams its batches feed; a buffer's demands say which streams it reads.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphfit.planner.core.enums import Vocabulary
from graphfit.planner.core.errors import ConfigError, excerpt, require_int
from graphfit.planner.core.limits import MAX_INT


class Stream(Vocabulary):
    """Which batches reach a buffer, on which axis (the values are the plan JSON's names)."""

    TARGET_TOKENS = "target_tokens"  # target batches, token axis
    TARGET_REQUESTS = "target_requests"  # target batches, request axis (incl. graph keys)
    DRAFTER_TOKENS = "drafter_tokens"  # drafter passes, token axis
    DRAFT_QUERY = "draft_query"  # DFlash query tokens (q per request)
    CONTEXT = "context"  # context tokens, never padded
    DRAFTER_REQUESTS = "drafter_requests"  # drafter batches, request axis
    # target graph replays only, token axis: inputs private to a graph runner while the
    # engine's own buffers also serve eager batches (TensorRT-LLM's CUDAGraphRunner)
    GRAPH_TOKENS = "graph_tokens"

    @property
    def padded(self) -> bool:
        """Whether it counts tokens that the dispatcher pads (CONTEXT runs unpadded; request
        streams count requests, whose static rows are the graph key's request count)."""
        return self in (Stream.TARGET_TOKENS, Stream.DRAFTER_TOKENS, Stream.DRAFT_QUERY,
                        Stream.GRAPH_TOKENS)

    @property
    def graph_only(self) -> bool:
        """Fed by graph replays only: an eager batch of a family that feeds it writes it not."""
        return self is Stream.GRAPH_TOKENS

    @property
    def on_requests(self) -> bool:
        return self in (Stream.TARGET_REQUESTS, Stream.DRAFTER_REQUESTS)


def fed_streams(streams: frozenset[Stream], graph: bool) -> frozenset[Stream]:
    """The streams a batch writes: all of its family's, less the graph-only ones when eager."""
    if graph:
        return streams
    return frozenset(s for s in streams if not s.graph_only)


class Requests(Vocabulary):
    """How many requests a batch of a family carries."""

    PER_UNIT = "per_unit"  # a units = a requests (uniform decode: step tokens each)
    UP_TO_TOKENS = "up_to_tokens"  # min(tokens, max_num_seqs): a mixed batch's worst case


@dataclass(frozen=True)
class BatchFamily:
    """Batches of `step * a` tokens, a in [first, last], that reach one component.

    `uniform`: dispatched as uniform decodes. `padded`: goes through the dispatcher (False:
    always runs unpadded, e.g. DFlash's context). `eager_writes`: batches that run eagerly
    still write the component's buffers (vLLM, TensorRT-LLM) or not (SGLang's graph inputs are
    private to its graph runner). `points`: only these a (capture runs every ladder size).
    `engine_only`: only the engine's own code runs these batches (vLLM captures its drafter at
    every ladder size; MRV2's DFlash prepare kernel fills T rows on every call): they count
    for the rows the engine writes, which audits of the engine's sizing compare with, and not
    for graphfit's own runtime, whose capacities stay tight.
    """

    name: str
    streams: frozenset[Stream]
    step: int
    first: int
    last: int
    requests: Requests
    uniform: bool = False
    padded: bool = True
    eager_writes: bool = True
    points: tuple[int, ...] | None = None
    engine_only: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise ConfigError(f"family: name must be a string, got {excerpt(self.name)}")
        if not isinstance(self.streams, frozenset):
            raise ConfigError(f"family {self.name}: streams must be a frozenset of Streams, "
                              f"got {excerpt(self.streams)}")
        object.__setattr__(self, "streams", frozenset(Stream(s) for s in self.streams))
        object.__setattr__(self, "requests", Requests(self.requests))
        if type(self.step) is not int or type(self.first) is not int or (
                self.step < 1 or self.first < 1):
            raise ConfigError(f"family {self.name}: step and first must be integers >= 1")
        require_int(f"family {self.name}: last", self.last, -MAX_INT)
        for flag in ("uniform", "padded", "eager_writes", "engine_only"):
            if not isinstance(getattr(self, flag), bool):
                raise ConfigError(f"family {self.name}: {flag} must be True or False")
        if self.points is not None and (not isinstance(self.points, (tuple, list)) or not all(
                type(p) is int for p in self.points)):
            raise ConfigError(f"family {self.name}: points must be integers, got "
                              f"{excerpt(self.points)}")
        if self.points is not None:
            object.__setattr__(self, "points", tuple(sorted(
                p for p in set(self.points) if self.first <= p <= self.last)))

    @property
    def empty(self) -> bool:
        return self.last < self.first or self.points == ()

    @property
    def count(self) -> int:
        """How many batches the family holds."""
        if self.points is not None:
            return len(self.points)
        return max(0, self.last - self.first + 1)

    def requests_at(self, a: int, max_num_seqs: int) -> int:
        """Real requests of the batch of `a` units."""
        if self.requests is Requests.PER_UNIT:
            return a
        return min(self.step * a, max_num_seqs)
