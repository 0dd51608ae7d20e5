"""The proof: no reachable batch needs more rows than a buffer holds, and no padded tail that
a graph reads is left with an unsafe fill.

Capacities are audited over the same walk (`reach.walk`) that sized them. A buffer's rows on a
family peak at `FamilyWalk.peak` (exact, O(1)); only a family whose peak exceeds a capacity is
walked segment by segment, bisecting each segment for its first short batch. So the proof is
exact for every batch without visiting each one; `Verification.violations` expands the
offending ranges batch by batch when someone wants them one at a time.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from graphfit.planner.core.buffers import Axis, BufferSpec, FillKind
from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.core.reach import FamilyWalk, Reached
from graphfit.planner.core.rows import RowRule, rule_for


@dataclass(frozen=True, slots=True)
class Violation:
    """A reachable batch whose rows exceed a buffer: `buf[:padded]` would be short."""

    component: str
    buffer: str
    num_tokens: int
    padded: int
    capacity: int
    needed: int

    @property
    def key(self) -> str:
        return f"{self.component}.{self.buffer}"


@dataclass(frozen=True)
class ViolationRange:
    """Batches of `first..last` tokens (every `step`) that go short on one buffer.

    Graph batches share one `padded` size; eager ones (`eager`) each run at their own size,
    so `padded` is the largest of them and `needed` the most rows any of them needs.
    """

    component: str
    buffer: str
    first: int
    last: int
    padded: int
    capacity: int
    needed: int
    step: int = 1
    eager: bool = False
    _part: Reached | None = field(default=None, repr=False, compare=False)
    _rule: RowRule | None = field(default=None, repr=False, compare=False)
    _max_num_seqs: int = field(default=0, repr=False, compare=False)
    scenario: str = ""  # the covered scenario it happens in ("": the assumed one)
    # what first..last count: "num_tokens" (batches of that many tokens), or "requests" for a
    # keyed component's request-axis buffer (its witness batch's requests)
    unit: str = "num_tokens"
    # how a keyed component that pads nothing says it (a vision-encoder call and its key):
    # replaces `describe`'s "num_tokens .. pad to .." (the numbers above stay as they are)
    said: str = field(default="", compare=False)

    @property
    def key(self) -> str:
        return f"{self.component}.{self.buffer}"

    @property
    def count(self) -> int:
        return (self.last - self.first) // self.step + 1

    @property
    def family(self) -> str:
        """The family of batches that goes short ("mixed", "uniform decode", "query"...): one
        buffer can go short on several, each a range of its own."""
        return self._part.family.name if self._part is not None else ""

    def describe(self) -> str:
        span = f"{self.first}" if self.first == self.last else f"{self.first}-{self.last}"
        if self.step > 1 and self.first != self.last:
            span += f" (every {self.step})"
        where = f" [{self.scenario}]" if self.scenario else ""
        if self.said:
            return f"{self.said}{where}"
        if self.eager and self.first != self.last:
            return (f"{self.key}: num_tokens {span} run eagerly, needing up to {self.needed} "
                    f"rows > capacity {self.capacity}{where}")
        if self.fixed:
            return (f"{self.key}: num_tokens {span} write all {self.needed} rows of this "
                    f"fixed-size buffer > capacity {self.capacity}{where}")
        extra = f" (+{self.needed - self.padded} rows)" if self.needed != self.padded else ""
        return f"{self.key}: {self.unit} {span} pad to {self.padded}{extra} > capacity " \
               f"{self.capacity}{where}"

    @property
    def fixed(self) -> bool:
        """A fixed-size buffer: every batch needs all of its rows, whatever its size."""
        return self._rule is not None and self._rule.fixed is not None

    def batches(self) -> Iterator[Violation]:
        """The range's violations one batch at a time."""
        part, rule = self._part, self._rule
        if part is None or rule is None:  # built by hand: every batch alike
            for n in range(self.first, self.last + 1, self.step):
                padded = n if self.eager else self.padded
                yield Violation(self.component, self.buffer, n, padded, self.capacity,
                                self.needed)
            return
        for n in range(self.first, self.last + 1, self.step):
            a = n // part.family.step
            needed = part.rows(rule, a, self._max_num_seqs)
            padded = n if self.eager else self.padded
            yield Violation(self.component, self.buffer, n, padded, self.capacity, needed)


@dataclass(frozen=True, slots=True)
class FillViolation:
    """A padded graph batch whose tail rows of a buffer hold an unsafe fill (stale data).

    `batch` and `padded` count the family's units: requests for uniform decodes, tokens for
    mixed batches.
    """

    component: str
    buffer: str
    batch: int
    padded: int
    fill: FillKind
    safe: frozenset[FillKind]

    @property
    def key(self) -> str:
        return f"{self.component}.{self.buffer}"

    def describe(self) -> str:
        safe = ", ".join(sorted(k.value for k in self.safe))
        return (f"{self.key}: a batch of {self.batch} padded to {self.padded} leaves its "
                f"padded rows {self.fill.value}; only {safe} is safe there")


@dataclass(frozen=True, slots=True)
class FillViolationRange:
    """Batches `first..last` (family units) padded to `padded` whose tail fill is unsafe."""

    component: str
    buffer: str
    first: int
    last: int
    padded: int
    fill: FillKind
    safe: frozenset[FillKind]
    scenario: str = ""

    @property
    def key(self) -> str:
        return f"{self.component}.{self.buffer}"

    def batches(self) -> Iterator[FillViolation]:
        for a in range(self.first, self.last + 1):
            yield FillViolation(self.component, self.buffer, a, self.padded, self.fill,
                                self.safe)

    def describe(self) -> str:
        span = f"{self.first}" if self.first == self.last else f"{self.first}-{self.last}"
        safe = ", ".join(sorted(k.value for k in self.safe))
        return (f"{self.key}: batches of {span} padded to {self.padded} leave their padded "
                f"rows {self.fill.value}; only {safe} is safe there")


@dataclass(frozen=True)
class EngineRefusal:
    """Reachable batches the engine's own code raises on when it replays a graph: no buffer
    goes short, the engine refuses the batch (TensorRT-LLM's fixed encoder slots without
    padding, graphfit.planner.engines.trtllm_encdec). It fails the engine's verdict
    (`Plan.verify_engine`) as a short buffer does: a server errors on such a batch.

    `key` is the graph's key text, `batches` which batches (in words), `example` one of them
    as the dispatch reads it, `error` what the engine raises and where."""

    component: str
    key: str
    batches: str
    example: tuple[int, ...]
    error: str

    def __post_init__(self) -> None:
        for name in ("component", "key", "batches", "error"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name):
                raise ConfigError(f"engine refusal: {name} must be a non-empty string")
        if not isinstance(self.example, tuple) or not self.example or not all(
                isinstance(v, int) and not isinstance(v, bool) for v in self.example):
            raise ConfigError(f"engine refusal: example must be a tuple of integers, got "
                              f"{excerpt(self.example)}")

    def describe(self) -> str:
        example = ", ".join(map(str, self.example))
        return (f"{self.component} graph {self.key}: {self.error} for {self.batches} "
                f"(e.g. [{example}])")


@dataclass(frozen=True)
class Verification:
    """Result of `Plan.verify()`: every violation as ranges, and how many checks were made;
    `refusals` the batches the engine's own code raises on (the engine's verdict only)."""

    violation_ranges: tuple[ViolationRange, ...]
    checked: int
    capacities: Mapping[str, int]
    fill_ranges: tuple[FillViolationRange, ...] = ()
    fills: Mapping[str, FillKind] = field(default_factory=dict)
    refusals: tuple[EngineRefusal, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.violation_ranges and not self.fill_ranges and not self.refusals

    @property
    def count(self) -> int:
        """How many (batch, buffer) pairs go short."""
        return sum(r.count for r in self.violation_ranges)

    @cached_property
    def violations(self) -> tuple[Violation, ...]:
        """Every short (batch, buffer) pair, one by one (can be long: prefer `ranges()`)."""
        return tuple(v for r in self.violation_ranges for v in r.batches())

    @cached_property
    def fill_violations(self) -> tuple[FillViolation, ...]:
        """Every padded batch with an unsafe tail fill, one by one."""
        return tuple(v for r in self.fill_ranges for v in r.batches())

    def ranges(self) -> tuple[ViolationRange, ...]:
        return self.violation_ranges


def checked_overrides(known: Mapping[str, int], overrides: Mapping[str, object]
                      ) -> dict[str, int]:
    """`known` capacities with the audited overrides validated and applied."""
    if not isinstance(overrides, Mapping):
        raise ConfigError(f"capacities: expected a mapping of buffer -> rows, got "
                          f"{type(overrides).__name__}")
    caps = dict(known)
    for key, value in overrides.items():
        if not isinstance(key, str) or "." not in key:
            raise ConfigError(f"buffer: {excerpt(key)} is not of the form component.name")
        if key not in caps:
            component = key.partition(".")[0]
            names = ", ".join(k.partition(".")[2] for k in caps if k.startswith(component + "."))
            if not names:
                raise ConfigError(f"buffer: no component {excerpt(component)} in "
                                  f"{excerpt(key)}")
            raise ConfigError(f"buffer: {component} has no buffer "
                              f"{excerpt(key.partition('.')[2])} (known: {names})")
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ConfigError(f"capacity: {key} must be a non-negative integer, got "
                              f"{excerpt(value)}")
        caps[key] = value
    return caps


def checked_fills(known: Mapping[str, FillKind], overrides: Mapping[str, object]
                  ) -> dict[str, FillKind]:
    """`known` fills with the audited overrides validated and applied."""
    if not isinstance(overrides, Mapping):
        raise ConfigError(f"fills: expected a mapping of buffer -> fill kind, got "
                          f"{type(overrides).__name__}")
    kinds = dict(known)
    for key, fill in overrides.items():
        checked_overrides(dict.fromkeys(known, 0), {key: 0})  # names the unknown buffer
        try:
            kinds[key] = FillKind(fill)
        except (ValueError, TypeError):
            choices = ", ".join(k.value for k in FillKind)
            raise ConfigError(f"fill: {key}: {excerpt(fill)} is not one of {choices}") from None
    return kinds


def family_rules(specs: Sequence[BufferSpec], walks: Sequence[FamilyWalk]
                 ) -> tuple[tuple[RowRule | None, ...], ...]:
    """Per spec, per family: the row rule of the spec's demands on the family's streams."""
    return tuple(tuple(rule_for(spec.demands, fw.family.streams) for fw in walks)
                 for spec in specs)


def fixed_rules(spec: BufferSpec, walks: Sequence[FamilyWalk]
                ) -> tuple[RowRule | None, ...]:
    """A fixed-size buffer's rows per family: all of them (`reference_capacity`, what the
    engine allocates and fills whole at every step, e.g. MRV2 DFlash's S*k sampling slots) on
    every family that goes through the dispatcher, the steps that write it; none on the others
    (DFlash's context, never padded). Sizing never needs this (a fixed buffer's capacity is its
    size); an audit that gives it fewer rows does."""
    rule = RowRule((), (), fixed=spec.reference_capacity)
    padded = [fw.family.padded for fw in walks]
    return tuple(rule if p or not any(padded) else None for p in padded)


def peak_rows(rules: Sequence[RowRule | None], walks: Sequence[FamilyWalk], *,
              engine: bool = True) -> int | None:
    """The most rows any reachable batch needs in a buffer whose rule on each family is
    `rules` (None: nothing reaches it); `engine=False` leaves out the batches only the
    engine's own code runs (graphfit's runtime never does)."""
    best: int | None = None
    for rule, fw in zip(rules, walks):
        if rule is not None and (engine or not fw.family.engine_only):
            rows = fw.peak(rule)
            if rows is not None and (best is None or rows > best):
                best = rows
    return best


def _without_repeats(ranges: list[ViolationRange]) -> list[ViolationRange]:
    """Drop graph ranges whose batches another family already reported at the same padded size
    (a uniform decode of 132 tokens is also a mixed batch of 132), sorted by buffer and batch."""
    groups: dict[tuple[str, int], list[ViolationRange]] = {}
    out: list[ViolationRange] = []
    for r in sorted(ranges, key=lambda r: (r.first - r.last, r.step)):  # widest first
        if r.eager:
            out.append(r)
            continue
        group = groups.setdefault((r.key, r.padded), [])
        if not any(o.step == 1 and o.first <= r.first and r.last <= o.last
                   and r.needed <= o.needed for o in group):
            group.append(r)
            out.append(r)
    return sorted(out, key=lambda r: (r.key, r.first, r.step))


def check_component(component: str, specs: Sequence[BufferSpec], capacities: Mapping[str, int],
                    fills: Mapping[str, FillKind], walks: Sequence[FamilyWalk],
                    max_num_seqs: int,
                    rules: Sequence[Sequence[RowRule | None]] | None = None
                    ) -> tuple[list[ViolationRange], list[FillViolationRange], int]:
    """Violations, fill violations and the number of (batch, buffer) checks of a component.

    `capacities` / `fills` are keyed by buffer name; `rules` is `family_rules(specs, walks)`
    when the caller kept it. A family whose peak rows fit a buffer
    (`FamilyWalk.peak`, exact) is cleared at once; only a family that goes short is walked
    segment by segment to find its ranges.
    """
    S = max_num_seqs
    ranges: list[ViolationRange] = []
    fill_ranges: list[FillViolationRange] = []
    checked = 0
    if rules is None:
        rules = family_rules(specs, walks)
    for spec, spec_rules in zip(specs, rules):
        capacity = capacities[spec.name]
        kind = fills[spec.name]
        unsafe = not spec.fill_is_safe(kind)
        if spec.axis is Axis.FIXED:
            for rule, fw in zip(fixed_rules(spec, walks), walks):
                if rule is None or not fw.segments:
                    continue
                checked += fw.count
                if spec.reference_capacity > capacity:  # filled whole: no padded tail
                    ranges += _fixed_short(component, spec, rule, capacity, fw)
            continue
        for rule, fw in zip(spec_rules, walks):
            if rule is None or not fw.segments:
                continue
            checked += fw.count
            peak = fw.peak(rule)
            if peak is not None and peak > capacity:
                ranges += _short(component, spec, rule, capacity, fw, S)
            if unsafe:
                fill_ranges += _unsafe_tails(component, spec, kind, fw, S)
    kept = _without_repeats(ranges)
    fill_ranges.sort(key=lambda r: (r.key, r.first))
    return kept, fill_ranges, checked


def _short(component: str, spec: BufferSpec, rule: RowRule, capacity: int, fw: FamilyWalk,
           S: int) -> Iterator[ViolationRange]:
    """The family's batches that need more than `capacity` rows, one range per segment."""
    step = fw.family.step
    for part in fw.parts:
        if rule.graph_only and not part.graph:
            continue  # an eager batch never writes a graph runner's own inputs
        over = part.first_over(rule, capacity, S)
        if over is None:
            continue
        d = part.segment.dispatch
        top = part.rows(rule, part.last, S)
        yield ViolationRange(
            component, spec.name, step * over, step * part.last,
            d.padded if d is not None else step * part.last, capacity, top, step,
            d is None, part, rule, S)


def _fixed_short(component: str, spec: BufferSpec, rule: RowRule, capacity: int,
                 fw: FamilyWalk) -> Iterator[ViolationRange]:
    """Every reached batch of the family goes short on a fixed-size buffer given fewer rows
    than it has: one range per run of adjacent reached segments."""
    step = fw.family.step
    assert rule.fixed is not None
    runs: list[list[int]] = []
    for seg in sorted(fw.segments, key=lambda seg: seg.first):
        if runs and seg.first == runs[-1][1] + 1:
            runs[-1][1] = seg.last
        else:
            runs.append([seg.first, seg.last])
    for first, last in runs:
        yield ViolationRange(component, spec.name, step * first, step * last, step * last,
                             capacity, rule.fixed, step, False, None, rule)


def _unsafe_tails(component: str, spec: BufferSpec, kind: FillKind, fw: FamilyWalk,
                  S: int) -> Iterator[FillViolationRange]:
    """The family's graph batches whose padded tail of `spec` would hold an unsafe fill."""
    step = fw.family.step
    for part in fw.parts:
        tail_top = part.last_with_tail(S)
        if tail_top is None:
            continue
        d = part.segment.dispatch
        assert d is not None  # a tail exists only on graph segments
        yield FillViolationRange(component, spec.name, part.first, tail_top, d.padded // step,
                                 kind, spec.safe_fills or frozenset())
