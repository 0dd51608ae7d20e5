"""An engine described as data: frozen dataclasses, validated at construction.

The same shape as an engine file (TOML, YAML or JSON; graphfit.inputs.engine_file reads one):
an `EngineDescription` of components, each a `LadderRule` (tokens- or request-keyed; a list
or a `Grid`; a max formula), a `DispatchRule`, the `FamilyRule`s that reach it and its
`BufferRule`s. What it means for planning is `described.DescribedEngine`'s business.
Formulas are integers over CONFIG_NAMES (buffers: BUFFER_NAMES), parsed, never run.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from graphfit.planner.core.batches import Stream
from graphfit.planner.core.buffers import (
    Axis,
    BufferSpec,
    Demand,
    FillKind,
    Placement,
    check_staging,
)
from graphfit.planner.core.dtypes import DTYPE_SIZES
from graphfit.planner.core.enums import CUDAGraphMode, Unit
from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.core.formula import evaluate_tree, parse_formula
from graphfit.planner.core.ladder import check_size_count
from graphfit.planner.core.limits import MAX_INT

__all__ = [
    "BUFFER_NAMES", "CONFIG_NAMES", "GRAPH_MODES", "BufferRule", "ComponentRule",
    "DispatchRule", "EngineDescription", "FamilyRule", "Formula", "Grid", "LadderRule",
    "formula_value",
]

CONFIG_NAMES = ("S", "T", "k", "q", "M", "H")  # what ladders and families may use
BUFFER_NAMES = (*CONFIG_NAMES, "C")  # buffers may also use their component's max size
GRAPH_MODES = {"FULL": CUDAGraphMode.FULL, "PIECEWISE": CUDAGraphMode.PIECEWISE,
               "NONE": CUDAGraphMode.NONE}
FAMILY_KINDS = ("mixed", "prefill", "uniform_decode")
ROWS = ("tokens", "requests", "fixed")
FILLS = tuple(k.value for k in FillKind)
PLACEMENTS = tuple(p.value for p in Placement)
MAX_COMPONENTS = 8
MAX_BUFFERS = 64  # per component
MAX_LISTED_SIZES = 4096
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$")
Formula = int | str


def _name(what: str, value: object) -> str:
    if not isinstance(value, str) or not _NAME.match(value):
        raise ConfigError(f"{what}: {excerpt(value)} is not a name (a letter, then letters, "
                          "digits, _ . -; at most 64)")
    return value


def _formula(what: str, value: object, names: tuple[str, ...]) -> Formula:
    """An integer >= 0 or a formula over `names` (checked now)."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ConfigError(f"{what}: expected an integer or a formula, got {excerpt(value)}")
    if isinstance(value, int):
        if not 0 <= value <= MAX_INT:
            raise ConfigError(f"{what}: {excerpt(value)} is not in 0..{MAX_INT}")
        return value
    parse_formula(value, names, what)
    return value


def formula_value(what: str, formula: Formula, env: Mapping[str, int],
                  minimum: int = 0) -> int:
    """A formula's value for one config (ConfigError outside minimum..MAX_INT)."""
    if isinstance(formula, int):
        value = formula
    else:
        value = evaluate_tree(parse_formula(formula, env, what), env, formula, what)
    if not minimum <= value <= MAX_INT:
        raise ConfigError(f"{what}: {excerpt(formula)} is {excerpt(value)} for this config, "
                          f"not in {minimum}..{MAX_INT}")
    return value


@dataclass(frozen=True)
class Grid:
    """Generated sizes: each of `start`, then every multiple of `step` (up to the max)."""

    start: tuple[int, ...] = (1, 2, 4)
    step: int = 8

    def __post_init__(self) -> None:
        object.__setattr__(self, "start", _sequence("grid.start", self.start))
        if (isinstance(self.step, bool) or not isinstance(self.step, int)
                or not 1 <= self.step <= MAX_INT):
            raise ConfigError(f"grid.step: must be an integer >= 1, got {excerpt(self.step)}")
        _sizes_list("grid.start", self.start)


def _sequence(what: str, value: object) -> tuple[object, ...]:
    """A list or tuple as a tuple (a string or a number is not a list of values)."""
    if not isinstance(value, (list, tuple)):
        raise ConfigError(f"{what}: expected a list, got {excerpt(value)}")
    return tuple(value)


def _sizes_list(what: str, sizes: tuple[int, ...]) -> None:
    if len(sizes) > MAX_LISTED_SIZES:
        raise ConfigError(f"{what}: more than {MAX_LISTED_SIZES} sizes")
    for s in sizes:
        if isinstance(s, bool) or not isinstance(s, int) or not 1 <= s <= MAX_INT:
            raise ConfigError(f"{what}: sizes are integers >= 1, got {excerpt(s)}")


@dataclass(frozen=True)
class LadderRule:
    """A component's capture sizes: `keyed` by "tokens" or "requests", an explicit `sizes`
    list or a `grid`, cut at `max` (a formula; sizes above it are not captured)."""

    keyed: str = "tokens"
    max: Formula = "T"
    sizes: tuple[int, ...] | None = None
    grid: Grid | None = None

    def __post_init__(self) -> None:
        if self.keyed not in ("tokens", "requests"):
            raise ConfigError(f"ladder.keyed: {excerpt(self.keyed)} is not tokens or requests")
        _formula("ladder.max", self.max, CONFIG_NAMES)
        if (self.sizes is None) == (self.grid is None):
            raise ConfigError("ladder: give either sizes (a list) or grid, not both or neither")
        if self.sizes is not None:
            object.__setattr__(self, "sizes", _sequence("ladder.sizes", self.sizes))
            _sizes_list("ladder.sizes", self.sizes)
        if self.grid is not None and not isinstance(self.grid, Grid):
            raise ConfigError(f"ladder.grid: expected a Grid, got {excerpt(self.grid)}")

    @property
    def unit(self) -> Unit:
        return Unit(self.keyed)

    def sizes_for(self, env: Mapping[str, int], what: str) -> tuple[int, ...]:
        top = formula_value(f"{what}.ladder.max", self.max, env)
        if self.sizes is not None:
            return tuple(sorted({s for s in self.sizes if s <= top}))
        assert self.grid is not None
        step = self.grid.step
        check_size_count(len(self.grid.start) + top // step, f"{what}.ladder")
        return tuple(sorted({s for s in self.grid.start if s <= top}
                            | set(range(step, top + 1, step))))


@dataclass(frozen=True)
class DispatchRule:
    """Which graphs mixed and uniform-decode batches replay (FULL, PIECEWISE or NONE), and
    whether a batch pads to the next size up (`padding` "next_size_up") or replays only an
    exact size ("exact"). Above the largest size every batch runs eagerly."""

    mixed: str = "PIECEWISE"
    uniform: str = "FULL"
    padding: str = "next_size_up"

    def __post_init__(self) -> None:
        for name in ("mixed", "uniform"):
            value = getattr(self, name)
            if not isinstance(value, str) or value.upper() not in GRAPH_MODES:
                raise ConfigError(f"dispatch.{name}: {excerpt(value)} is not one of "
                                  f"{', '.join(GRAPH_MODES)}")
            object.__setattr__(self, name, value.upper())
        if self.padding not in ("next_size_up", "exact"):
            raise ConfigError(f"dispatch.padding: {excerpt(self.padding)} is not next_size_up "
                              "or exact")


@dataclass(frozen=True)
class FamilyRule:
    """Batches that reach a component: "mixed" (1..max tokens, padded), "prefill" (1..max
    tokens, always eager) or "uniform_decode" (1..max requests of `width` tokens each, and
    never more tokens than the token budget T).
    `max` defaults to T (tokens) or S (requests); `width` to q."""

    kind: str
    max: Formula | None = None
    width: Formula = "q"

    def __post_init__(self) -> None:
        if self.kind not in FAMILY_KINDS:
            raise ConfigError(f"family.kind: {excerpt(self.kind)} is not one of "
                              f"{', '.join(FAMILY_KINDS)}")
        if self.max is not None:
            _formula(f"{self.kind}.max", self.max, CONFIG_NAMES)
        _formula(f"{self.kind}.width", self.width, CONFIG_NAMES)

    def top(self, env: Mapping[str, int]) -> int:
        default: Formula = "S" if self.kind == "uniform_decode" else "T"
        return formula_value(f"{self.kind}.max", self.max if self.max is not None else default,
                             env)


@dataclass(frozen=True)
class BufferRule:
    """One persistent buffer: `rows` per "tokens", per "requests" (plus `offset`, e.g. the
    n + 1 entries of a cumulative offsets array) or "fixed"; `allocates` is the rows the
    engine's own code allocates (a formula; required for fixed buffers). `fill`: what the
    padded tail holds on a replay (zero, keep, sentinel with `fill_value`, copy-real-rows);
    `safe_fills`: the fills that keep a replay correct (None: any). `placement`: "device", or
    "host" for a (pinned) host staging tensor, counted apart from the device bytes.
    `stages`: on a host buffer, the device buffer of the same component it is the staging
    copy of (the runtime writes a batch here and copies the rows a graph reads to that
    buffer before each replay); "" for none. `pinned`: on a host buffer, whether the engine
    allocates it page-locked (`pin_memory=True`): only a pinned copy's host-to-device copy
    is recorded in the graph, a pageable one is copied before each replay. `slots`: on a
    staging copy, how many copies of the staged buffer it holds, used in turn (a leading
    dim; more than one is copied before each replay, never recorded: a graph would read one
    fixed slot, as TensorRT-LLM's feature mirrors)."""

    name: str
    dtype: str
    rows: str
    allocates: Formula
    trailing: tuple[Formula, ...] = ()
    offset: int = 0
    fill: str = "zero"
    fill_value: float = 0
    safe_fills: tuple[str, ...] | None = None
    init: str = "zeros"
    placement: str = "device"
    stages: str = ""
    pinned: bool = False
    slots: int = 1

    def __post_init__(self) -> None:
        _name("buffer.name", self.name)
        if isinstance(self.slots, bool) or not isinstance(self.slots, int) or \
                not 1 <= self.slots <= 64:
            raise ConfigError(f"buffer {self.name}: slots must be an integer in 1..64, got "
                              f"{excerpt(self.slots)}")
        if self.slots > 1 and not self.stages:
            raise ConfigError(f"buffer {self.name}: slots needs stages (only a host staging "
                              "copy holds several copies of a buffer)")
        if not isinstance(self.pinned, bool):
            raise ConfigError(f"buffer {self.name}: pinned must be true or false, got "
                              f"{excerpt(self.pinned)}")
        if self.pinned and self.placement != "host":
            raise ConfigError(f"buffer {self.name}: pinned needs placement = \"host\" (only "
                              "host memory is pinned)")
        if self.placement not in PLACEMENTS:
            raise ConfigError(f"buffer {self.name}: placement {excerpt(self.placement)} is not "
                              f"one of {', '.join(PLACEMENTS)}")
        if self.stages != "":
            _name(f"buffer {self.name}.stages", self.stages)
            if self.placement != "host":
                raise ConfigError(f"buffer {self.name}: stages {self.stages!r} needs placement "
                                  "= \"host\" (a staging copy lives in host memory)")
        what = f"buffer {self.name}"
        if not isinstance(self.dtype, str) or self.dtype not in DTYPE_SIZES:
            raise ConfigError(f"{what}: dtype {excerpt(self.dtype)} is not one of "
                              f"{', '.join(DTYPE_SIZES)}")
        if not isinstance(self.rows, str) or self.rows not in ROWS:
            raise ConfigError(f"{what}: rows {excerpt(self.rows)} is not one of "
                              f"{', '.join(ROWS)}")
        _formula(f"{what}.allocates", self.allocates, BUFFER_NAMES)
        object.__setattr__(self, "trailing", _sequence(f"{what}.trailing", self.trailing))
        if len(self.trailing) > 4:
            raise ConfigError(f"{what}: at most 4 trailing dims")
        for dim in self.trailing:
            _formula(f"{what}.trailing", dim, CONFIG_NAMES)
        if isinstance(self.offset, bool) or not isinstance(self.offset, int) or \
                not 0 <= self.offset <= 1024:
            raise ConfigError(f"{what}: offset must be an integer in 0..1024")
        if self.safe_fills is not None:
            object.__setattr__(self, "safe_fills",
                               _sequence(f"{what}.safe_fills", self.safe_fills))
        kinds = [self.fill, *(self.safe_fills or ())]
        for kind in kinds:
            if kind not in FILLS:
                raise ConfigError(f"{what}: fill {excerpt(kind)} is not one of {', '.join(FILLS)}")
        if isinstance(self.fill_value, bool) or not isinstance(self.fill_value, (int, float)) \
                or not math.isfinite(self.fill_value) or abs(self.fill_value) > MAX_INT:
            raise ConfigError(f"{what}: fill_value must be a finite number")
        if self.init not in ("zeros", "arange"):
            raise ConfigError(f"{what}: init must be zeros or arange")


@dataclass(frozen=True)
class ComponentRule:
    """One graph runner: its ladder, dispatch, the families reaching it and its buffers."""

    name: str
    ladder: LadderRule
    families: tuple[FamilyRule, ...]
    buffers: tuple[BufferRule, ...]
    dispatch: DispatchRule = field(default_factory=DispatchRule)
    speculative: bool = False

    def __post_init__(self) -> None:
        _name("component.name", self.name)
        object.__setattr__(self, "families", _sequence(f"component {self.name}.families",
                                                       self.families))
        object.__setattr__(self, "buffers", _sequence(f"component {self.name}.buffers",
                                                      self.buffers))
        for what, values, kind in (("families", self.families, FamilyRule),
                                   ("buffers", self.buffers, BufferRule),
                                   ("ladder", (self.ladder,), LadderRule),
                                   ("dispatch", (self.dispatch,), DispatchRule)):
            for value in values:
                if not isinstance(value, kind):
                    raise ConfigError(f"component {self.name}.{what}: expected a "
                                      f"{kind.__name__}, got {excerpt(value)}")
        if not self.families:
            raise ConfigError(f"component {self.name}: needs at least one family")
        if not 1 <= len(self.buffers) <= MAX_BUFFERS:
            raise ConfigError(f"component {self.name}: 1..{MAX_BUFFERS} buffers")
        names = [b.name for b in self.buffers]
        if len(set(names)) != len(names):
            raise ConfigError(f"component {self.name}: buffer names must be unique")
        if self.ladder.keyed == "requests" and self.dispatch.mixed != "NONE":
            raise ConfigError(f"component {self.name}: a request-keyed ladder holds decode "
                              "graphs only (dispatch.mixed must be NONE)")
        if not isinstance(self.speculative, bool):
            raise ConfigError(f"component {self.name}: speculative must be true or false")
        _check_staging(self.name, self.buffers)


def _shape_token(formula: Formula, tokens: dict[str, int]) -> int:
    """A trailing dim as a number that two dims share exactly when their formulas are the
    same (an integer, or the same text up to spaces): shapes compared before any config."""
    if isinstance(formula, int):
        return formula
    text = "".join(formula.split())
    return int(text) if text.isdigit() else tokens.setdefault(text, -1 - len(tokens))


def _check_staging(component: str, rules: tuple[BufferRule, ...]) -> None:
    """The staging pairs checked by the planner's own rules (`check_staging`: the copy names
    a device buffer of the component, one copy per buffer, the same dtype, axis and trailing
    shape) on config-free stand-ins of the buffers, plus the same `offset` (the rows a batch
    needs in both), so a bad pair is refused when the description is read."""
    if not any(rule.stages for rule in rules):
        return
    tokens: dict[str, int] = {}
    specs = tuple(
        BufferSpec(rule.name, rule.dtype, Axis(rule.rows),
                   () if rule.rows == "fixed" else (Demand(Stream.TARGET_TOKENS),), 0,
                   trailing=tuple(_shape_token(d, tokens) for d in rule.trailing),
                   leading=(rule.slots,) if rule.slots > 1 else (),
                   placement=Placement(rule.placement), stages=rule.stages)
        for rule in rules)
    check_staging(f"component {component}", specs)
    by_name = {rule.name: rule for rule in rules}
    for rule in rules:
        if rule.stages and by_name[rule.stages].offset != rule.offset:
            raise ConfigError(f"component {component}.{rule.name}: a staging copy has the "
                              f"offset of {rule.stages} ({by_name[rule.stages].offset})")


@dataclass(frozen=True)
class EngineDescription:
    """A whole engine: its registry name and version, and its components (the first is the
    one whose ladder the plan reports)."""

    name: str
    version: str
    components: tuple[ComponentRule, ...]
    summary: str = ""

    def __post_init__(self) -> None:
        _name("engine name", self.name)
        if self.name.lower() != self.name:
            raise ConfigError(f"engine name: {excerpt(self.name)} must be lower case")
        if not isinstance(self.version, str) or not 0 < len(self.version) <= 64:
            raise ConfigError(f"engine version: expected a short string, got "
                              f"{excerpt(self.version)}")
        object.__setattr__(self, "components", _sequence(f"engine {self.name}.components",
                                                         self.components))
        for component in self.components:
            if not isinstance(component, ComponentRule):
                raise ConfigError(f"engine {self.name}.components: expected ComponentRules, "
                                  f"got {excerpt(component)}")
        if not 1 <= len(self.components) <= MAX_COMPONENTS:
            raise ConfigError(f"engine {self.name}: 1..{MAX_COMPONENTS} components")
        names = [c.name for c in self.components]
        if len(set(names)) != len(names):
            raise ConfigError(f"engine {self.name}: component names must be unique")
        if self.components[0].speculative:
            raise ConfigError(f"engine {self.name}: the first component cannot be speculative")
