"""The engine you bring: an engine described as data, planned like a modelled one.

An `EngineDescription` (frozen dataclasses; the same shape as a TOML or YAML file, read by
graphfit.inputs.engine_file) lists an engine's graph runners (components: a target, a
drafter...), each with

* its ladder: keyed by tokens or by requests; an explicit list or a generated grid (`start`
  sizes, then every multiple of `step`), cut at `max` (a formula);
* its dispatch: a batch is padded to the next captured size up (or replays only an exact
  size), mixed batches replay FULL or PIECEWISE graphs (or none), uniform decodes FULL or
  PIECEWISE graphs (or none); batches above the largest size run eagerly, unpadded;
* the batch families that reach it: mixed batches up to the token budget, eager prefills
  (never padded), uniform decodes of `width` tokens per request (q by default);
* its buffers: name, dtype, trailing shape, rows per token, per request or fixed, how the
  padded tail is filled, and the rows the engine's own code allocates (a formula), which
  `Plan.verify_engine()` audits.

Formulas are integers over S (max_num_seqs), T (max_num_batched_tokens), k (speculative
tokens), q (1 + k), M (max_model_len), H (hidden_size) and, for buffers, C (the
component's largest capture size in its own unit). `DescribedEngine` turns a description
into the `EngineModel` protocol, so `plan`, the proof, the runtime, graphfit.testing and the
CLI take it as they take vLLM. A component marked `speculative` exists only when k > 0.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from graphfit.planner.core.batches import BatchFamily, Requests, Stream
from graphfit.planner.core.buffers import Axis, BufferSpec, Demand, FillKind, FillPolicy
from graphfit.planner.core.dispatch import NO_GRAPH, Dispatch, DispatchTables
from graphfit.planner.core.dtypes import DTYPE_SIZES
from graphfit.planner.core.enums import (
    CUDAGraphMode,
    EngineName,
    LadderPolicy,
    Runner,
    SpecMethod,
    Unit,
)
from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.core.formula import evaluate_tree, parse_formula
from graphfit.planner.core.ladder import Ladder, check_size_count
from graphfit.planner.core.limits import MAX_INT
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines import registry
from graphfit.planner.engines.base import Alternative, ComponentModel, EngineLadders

__all__ = [
    "BUFFER_NAMES", "CONFIG_NAMES", "BufferRule", "ComponentRule", "DescribedEngine",
    "DispatchRule", "EngineDescription", "FamilyRule", "Grid", "LadderRule",
    "register_description",
]

CONFIG_NAMES = ("S", "T", "k", "q", "M", "H")  # what ladders and families may use
BUFFER_NAMES = (*CONFIG_NAMES, "C")  # buffers may also use their component's max size
GRAPH_MODES = {"FULL": CUDAGraphMode.FULL, "PIECEWISE": CUDAGraphMode.PIECEWISE,
               "NONE": CUDAGraphMode.NONE}
FAMILY_KINDS = ("mixed", "prefill", "uniform_decode")
ROWS = ("tokens", "requests", "fixed")
FILLS = tuple(k.value for k in FillKind)
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


def _value(what: str, formula: Formula, env: Mapping[str, int], minimum: int = 0) -> int:
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
        object.__setattr__(self, "start", tuple(self.start))
        if (isinstance(self.step, bool) or not isinstance(self.step, int)
                or not 1 <= self.step <= MAX_INT):
            raise ConfigError(f"grid.step: must be an integer >= 1, got {excerpt(self.step)}")
        _sizes_list("grid.start", self.start)


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
            object.__setattr__(self, "sizes", tuple(self.sizes))
            _sizes_list("ladder.sizes", self.sizes)
        if self.grid is not None and not isinstance(self.grid, Grid):
            raise ConfigError(f"ladder.grid: expected a Grid, got {excerpt(self.grid)}")

    @property
    def unit(self) -> Unit:
        return Unit(self.keyed)

    def sizes_for(self, env: Mapping[str, int], what: str) -> tuple[int, ...]:
        top = _value(f"{what}.ladder.max", self.max, env)
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
        return _value(f"{self.kind}.max", self.max if self.max is not None else default, env)


@dataclass(frozen=True)
class BufferRule:
    """One persistent buffer: `rows` per "tokens", per "requests" (plus `offset`, e.g. the
    n + 1 entries of a cumulative offsets array) or "fixed"; `allocates` is the rows the
    engine's own code allocates (a formula; required for fixed buffers). `fill`: what the
    padded tail holds on a replay (zero, keep, sentinel with `fill_value`, copy-real-rows);
    `safe_fills`: the fills that keep a replay correct (None: any)."""

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

    def __post_init__(self) -> None:
        _name("buffer.name", self.name)
        what = f"buffer {self.name}"
        if self.dtype not in DTYPE_SIZES:
            raise ConfigError(f"{what}: dtype {excerpt(self.dtype)} is not one of "
                              f"{', '.join(DTYPE_SIZES)}")
        if self.rows not in ROWS:
            raise ConfigError(f"{what}: rows {excerpt(self.rows)} is not one of "
                              f"{', '.join(ROWS)}")
        _formula(f"{what}.allocates", self.allocates, BUFFER_NAMES)
        object.__setattr__(self, "trailing", tuple(self.trailing))
        if len(self.trailing) > 4:
            raise ConfigError(f"{what}: at most 4 trailing dims")
        for dim in self.trailing:
            _formula(f"{what}.trailing", dim, CONFIG_NAMES)
        if isinstance(self.offset, bool) or not isinstance(self.offset, int) or \
                not 0 <= self.offset <= 1024:
            raise ConfigError(f"{what}: offset must be an integer in 0..1024")
        kinds = [self.fill, *(self.safe_fills or ())]
        for kind in kinds:
            if kind not in FILLS:
                raise ConfigError(f"{what}: fill {excerpt(kind)} is not one of {', '.join(FILLS)}")
        if self.safe_fills is not None:
            object.__setattr__(self, "safe_fills", tuple(self.safe_fills))
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
        object.__setattr__(self, "families", tuple(self.families))
        object.__setattr__(self, "buffers", tuple(self.buffers))
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
        object.__setattr__(self, "components", tuple(self.components))
        if not 1 <= len(self.components) <= MAX_COMPONENTS:
            raise ConfigError(f"engine {self.name}: 1..{MAX_COMPONENTS} components")
        names = [c.name for c in self.components]
        if len(set(names)) != len(names):
            raise ConfigError(f"engine {self.name}: component names must be unique")
        if self.components[0].speculative:
            raise ConfigError(f"engine {self.name}: the first component cannot be speculative")


def _env(config: EngineSettings) -> dict[str, int]:
    return {"S": config.max_num_seqs, "T": config.max_num_batched_tokens,
            "k": config.num_speculative_tokens, "q": config.uniform_query_len,
            "M": config.max_model_len, "H": config.hidden_size}


def _tables(rule: ComponentRule, sizes: tuple[int, ...], width: int, max_num_seqs: int,
            padding: bool) -> DispatchTables:
    """Token-keyed dispatch tables (request ladders become bs * width tokens)."""
    mixed_mode = GRAPH_MODES[rule.dispatch.mixed]
    uniform_mode = GRAPH_MODES[rule.dispatch.uniform]
    tokens = sizes if rule.ladder.keyed == "tokens" else tuple(s * width for s in sizes)
    mixed: list[Dispatch] = []
    uniform: list[Dispatch] = []
    for size in tokens:
        if mixed_mode is CUDAGraphMode.FULL:
            mixed_hit = Dispatch(mixed_mode, size, min(size, max_num_seqs))
        elif mixed_mode is CUDAGraphMode.PIECEWISE:
            mixed_hit = Dispatch(mixed_mode, size, None)
        else:
            mixed_hit = NO_GRAPH
        mixed.append(mixed_hit)
        if uniform_mode is CUDAGraphMode.FULL and size >= width:
            # r requests of `width` tokens padded to `size` have r <= size // width: the
            # request rows such a graph bakes in hold every one of them
            uniform.append(Dispatch(uniform_mode, size, min(size // width, max_num_seqs)))
        elif uniform_mode is CUDAGraphMode.PIECEWISE:
            uniform.append(Dispatch(uniform_mode, size, None))
        else:  # no uniform batch pads to a size below one request, or no uniform graphs
            uniform.append(mixed_hit)
    return DispatchTables(tokens, tuple(mixed), tuple(uniform), width, max_num_seqs, padding)


def _capture(tables: DispatchTables, streams: frozenset[Stream]) -> tuple[Alternative, ...]:
    """The engine captures a graph at every size of its ladder (the rows its own code
    writes then, which `allocates` must hold): one engine-only batch per size, each
    replaying the graph of that size. graphfit's own runtime captures only the sizes a
    reachable batch replays, so these count for the engine's rows, not for capacities."""
    graphs = [(size, u if u.mode is not CUDAGraphMode.NONE else m)
              for size, m, u in zip(tables.sizes, tables.mixed, tables.uniform)]
    graphs = [(size, d) for size, d in graphs if d.mode is not CUDAGraphMode.NONE]
    if not graphs:
        return ()
    sizes = tuple(size for size, _ in graphs)
    hits = tuple(d for _, d in graphs)
    captured = DispatchTables(sizes, hits, hits, tables.uniform_query_len, tables.max_num_seqs)
    family = BatchFamily("capture (every ladder size)", streams, 1, 1, sizes[-1],
                         Requests.UP_TO_TOKENS, points=sizes, engine_only=True)
    return (Alternative("the engine's capture of every ladder size", captured, (family,)),)


class DescribedEngine:
    """An `EngineModel` built from an `EngineDescription`."""

    own_fields: frozenset[str] = frozenset()
    requests_within_token_budget = True
    policies: tuple[LadderPolicy, ...] = ()
    config_stage = "config (the description's ladder)"

    def __init__(self, description: EngineDescription) -> None:
        if not isinstance(description, EngineDescription):
            raise ConfigError(f"engine: expected an EngineDescription, got "
                              f"{excerpt(description)}")
        self.description = description
        self.engine = EngineName(description.name)
        self.release = description.version
        self.version = f"{description.name} {description.version} (described)"
        self.unit = description.components[0].ladder.unit

    def resolve(self, config: EngineSettings) -> Mapping[str, object]:
        """A described engine has no vLLM / SGLang fields: those keep their defaults."""
        changes: dict[str, object] = {}
        name = self.description.name
        for field_name in ("cudagraph_capture_sizes", "max_cudagraph_capture_size"):
            if getattr(config, field_name) is not None:
                raise ConfigError(f"{field_name}: engine {name} takes its ladders from its "
                                  "description")
        if config.ladder not in (LadderPolicy.AUTO,):
            raise ConfigError(f"ladder: engine {name} takes its ladders from its description")
        if config.runner not in (None, Runner.V1):
            raise ConfigError(f"runner: {config.runner.value} is vLLM's; {name} has one")
        if config.cudagraph_mode not in (CUDAGraphMode.NONE,
                                         CUDAGraphMode.FULL_AND_PIECEWISE):
            raise ConfigError(f"cudagraph_mode: engine {name} dispatches as its description "
                              "says; only NONE (no graphs) changes that")
        for field_name in ("attention_backend", "attention_cudagraph_support",
                           "drafter_attention_cudagraph_support", "speculative_eagle_topk",
                           "speculative_num_draft_tokens"):
            if getattr(config, field_name) is not None:
                raise ConfigError(f"{field_name}: not an input of engine {name}")
        if config.num_speculative_tokens and config.spec_method is SpecMethod.NONE:
            # the config's vocabulary: a described engine's drafter is a draft model
            changes["spec_method"] = SpecMethod.DRAFT_MODEL
        if config.cuda_graph_padding is None:
            first = self.description.components[0].dispatch.padding
            changes["cuda_graph_padding"] = first == "next_size_up"
        return changes

    def _active(self, config: EngineSettings) -> tuple[ComponentRule, ...]:
        spec = config.num_speculative_tokens > 0
        return tuple(c for c in self.description.components if spec or not c.speculative)

    def ladders(self, config: EngineSettings) -> EngineLadders:
        first = self.description.components[0]
        sizes = first.ladder.sizes_for(_env(config), first.name)
        captured = sizes if config.cudagraph_mode is not CUDAGraphMode.NONE else ()
        inputs = (("max_num_seqs", str(config.max_num_seqs)),
                  ("max_num_batched_tokens", str(config.max_num_batched_tokens)),
                  ("q", str(config.uniform_query_len)))
        return EngineLadders(Ladder(sizes), Ladder(captured), inputs=inputs)

    def components(self, config: EngineSettings, ladders: EngineLadders
                   ) -> tuple[ComponentModel, ...]:
        env = _env(config)
        graphs = config.cudagraph_mode is not CUDAGraphMode.NONE
        out = []
        for i, rule in enumerate(self._active(config)):
            role = "target" if i == 0 else "drafter"
            tokens, requests = ((Stream.TARGET_TOKENS, Stream.TARGET_REQUESTS) if i == 0
                                else (Stream.DRAFTER_TOKENS, Stream.DRAFTER_REQUESTS))
            streams = frozenset({tokens, requests})
            sizes = rule.ladder.sizes_for(env, rule.name) if graphs else ()
            widths = {_value(f"{rule.name}.{f.kind}.width", f.width, env, 1)
                      for f in rule.families if f.kind == "uniform_decode"}
            if len(widths) > 1:
                raise ConfigError(f"component {rule.name}: one uniform-decode width, got "
                                  f"{sorted(widths)}")
            width = widths.pop() if widths else env["q"]
            padding = bool(config.cuda_graph_padding) and rule.dispatch.padding == "next_size_up"
            tables = _tables(rule, sizes, width, env["S"], padding)
            families = [self._family(f, streams, width, env) for f in rule.families]
            top = sizes[-1] if sizes else 0
            buffers = tuple(self._buffer(b, rule.name, role, tokens, requests,
                                         {**env, "C": top}) for b in rule.buffers)
            out.append(ComponentModel(rule.name, rule.ladder.unit, tables, buffers,
                                      tuple(families), _capture(tables, streams)))
        return tuple(out)

    @staticmethod
    def _family(rule: FamilyRule, streams: frozenset[Stream], width: int,
                env: Mapping[str, int]) -> BatchFamily:
        top = rule.top(env)
        if rule.kind == "uniform_decode":  # the token budget bounds a decode batch too
            return BatchFamily("uniform decode", streams, width, 1,
                               min(top, env["T"] // width), Requests.PER_UNIT, uniform=True)
        return BatchFamily(rule.kind if rule.kind == "mixed" else "prefill (eager)", streams,
                           1, 1, top, Requests.UP_TO_TOKENS, padded=rule.kind == "mixed")

    @staticmethod
    def _buffer(rule: BufferRule, component: str, role: str, tokens: Stream,
                requests: Stream, env: Mapping[str, int]) -> BufferSpec:
        what = f"{component}.{rule.name}"
        allocates = _value(f"{what}.allocates", rule.allocates, env)
        trailing = tuple(_value(f"{what}.trailing", d, env, 1) for d in rule.trailing)
        axis = Axis(rule.rows)
        demands = () if axis is Axis.FIXED else (
            Demand(tokens if axis is Axis.TOKENS else requests, rule.offset),)
        safe = frozenset(FillKind(k) for k in rule.safe_fills) \
            if rule.safe_fills is not None else None
        return BufferSpec(rule.name, rule.dtype, axis, demands, allocates,
                          FillPolicy(FillKind(rule.fill), rule.fill_value), (), trailing,
                          rule.init, source=f"{role}: described", safe_fills=safe)


def register_description(description: EngineDescription, *, default: bool = False
                         ) -> DescribedEngine:
    """Build the engine's model and register it (engine = its name, engine_version = its
    version), so `EngineConfig(engine=description.name)` plans it."""
    model = DescribedEngine(description)
    registry.add_model(model, default=default)
    return model
