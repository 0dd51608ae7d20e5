"""The engine-model protocol: what each engine (vLLM, SGLang, TensorRT-LLM) tells the planner.

An engine model turns a config into data: its ladders, and per graph runner (component) the
dispatch tables, the buffer catalogue and the families of batches that reach it. It never
builds a `Plan`: the shared path (graphfit.planner.plan) sizes, lays out and verifies every
engine's components the same way, so nothing here imports back up.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Protocol

from graphfit.planner.core.batches import BatchFamily
from graphfit.planner.core.buffers import Axis, BufferSpec, as_shared, check_staging
from graphfit.planner.core.dispatch import DispatchTables
from graphfit.planner.core.enums import CUDAGraphMode, Engine, EngineName, LadderPolicy, Unit
from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.core.keyed import KEY_NAMES, KeyedDispatch
from graphfit.planner.core.ladder import Ladder
from graphfit.planner.core.options import EngineOptions, NoOptions
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.core.verify import EngineRefusal


@dataclass(frozen=True)
class Alternative:
    """The same component as the engine would run it under another value of an input the
    config leaves unknown (vLLM: the attention backends' cudagraph support level).

    Capacities and audits cover every alternative; `Plan.pad` and the graphs graphfit's
    runtime captures follow the assumed one (the component's own tables).
    """

    label: str
    tables: DispatchTables
    families: tuple[BatchFamily, ...]


@dataclass(frozen=True)
class Scenario:
    """One way the engine may resolve the config: the unknown inputs' values, the graph mode
    they resolve to and the sizes captured."""

    label: str
    settings: tuple[tuple[str, str], ...]
    mode: CUDAGraphMode
    sizes: tuple[int, ...]


@dataclass(frozen=True)
class ComponentModel:
    """One graph runner of an engine: how its batches dispatch, what it reads, what reaches it.

    `unit` is what its capture sizes count (tokens or requests); `width` the tokens per
    request of a uniform decode (q; SGLang's draft runner: topk). `alternatives`: how the
    engine dispatches it in the scenarios the plan covers besides the assumed one.
    `graphs_per_size`: graphs the engine captures at each size (SGLang's multi-layer EAGLE
    draft-extend: one per draft step unless one graph holds them all,
    graphfit.planner.engines.sglang_mtp_graphs); 1 for every other runner.
    """

    name: str
    unit: Unit
    tables: DispatchTables
    buffers: tuple[BufferSpec, ...]
    families: tuple[BatchFamily, ...]
    alternatives: tuple[Alternative, ...] = ()
    graphs_per_size: int = 1

    def __post_init__(self) -> None:
        names = [b.name for b in self.buffers]
        if len(set(names)) != len(names):
            raise ConfigError(f"{self.name}: buffer names must be unique")
        check_staging(self.name, self.buffers)
        if isinstance(self.graphs_per_size, bool) or not isinstance(
                self.graphs_per_size, int) or self.graphs_per_size < 1:
            raise ConfigError(f"{self.name}: graphs_per_size must be an int >= 1")

    @property
    def width(self) -> int:
        return self.tables.uniform_query_len


@dataclass(frozen=True)
class KeyedComponentModel:
    """A graph runner whose graphs are keyed on more than a token count (`core.keyed`): an
    encoder that buckets (requests, tokens, longest request), a vision encoder that keys on
    an image layout.

    `dispatch` is the engine's key rule with the keys it captures; `bounds` the limits of
    the batches that reach it, on `bound_names` ((requests, tokens, longest) by default),
    as `measure` counts a batch (default: the `BatchKey` itself); `buffers` its static
    inputs, of which a graph of key k reads `dispatch.rows_of(k, name)` rows (a buffer off
    Axis.TOKENS needs its own rule in `dispatch.buffer_rows`); `witnesses` one batch within
    the bounds that replays each captured key (the planner checks it does: the proof's "one
    row less fails" is a real batch, and a runtime probes each graph with it); `ladders`
    the engine's named bucket lists, `key_names` what a key holds and `summary` one line
    about the runner, for reports; `refusals` the reachable batches the engine's own code
    raises on (they fail the engine's verdict, not graphfit's plan, whose runtime replays
    them).
    """

    name: str
    dispatch: KeyedDispatch
    bounds: tuple[int, ...]
    buffers: tuple[BufferSpec, ...]
    witnesses: Mapping[Any, Any]
    ladders: tuple[tuple[str, tuple[int, ...]], ...] = ()
    measure: Callable[[Any], tuple[int, ...]] | None = None
    bound_names: tuple[str, ...] = KEY_NAMES
    key_names: tuple[str, ...] = KEY_NAMES
    summary: str = ""
    refusals: tuple[EngineRefusal, ...] = ()

    def __post_init__(self) -> None:
        names = [b.name for b in self.buffers]
        if len(set(names)) != len(names):
            raise ConfigError(f"{self.name}: buffer names must be unique")
        check_staging(self.name, self.buffers)
        if not isinstance(self.refusals, tuple) or not all(
                isinstance(r, EngineRefusal) and r.component == self.name
                for r in self.refusals):
            raise ConfigError(f"{self.name}: refusals must be a tuple of this component's "
                              "EngineRefusal")
        for b in self.buffers:
            if b.axis is Axis.FIXED or (b.axis is not Axis.TOKENS
                                        and b.name not in self.dispatch.buffer_rows):
                raise ConfigError(f"{self.name}: buffer {b.name} is not on token rows: a "
                                  "keyed component's buffer scales with its key and needs "
                                  "its own rows rule (KeyedDispatch.buffer_rows)")
        unknown = sorted(set(self.dispatch.buffer_rows) - set(names))
        if unknown:
            raise ConfigError(f"{self.name}: rows rule for no buffer: {unknown[:3]}")
        if len(self.bounds) != len(self.bound_names) or not all(
                isinstance(v, int) and not isinstance(v, bool) and v >= 0
                for v in self.bounds):
            raise ConfigError(f"{self.name}: bounds must be one integer >= 0 per bound name "
                              f"{self.bound_names}")
        if self.measure is not None and not callable(self.measure):
            raise ConfigError(f"{self.name}: measure must be a function")
        missing = [k for k in self.dispatch.sorted_keys() if k not in self.witnesses]
        if missing:
            shown = [self.dispatch.key_text(k) for k in missing[:3]]
            raise ConfigError(f"{self.name}: no batch replays captured key(s) {shown}")

    def counts(self, batch: Any) -> tuple[int, ...]:
        """`batch` measured on `bound_names` (after `dispatch.admit`)."""
        admitted = self.dispatch.admit(batch)
        return tuple(self.measure(admitted)) if self.measure is not None else tuple(admitted)


def keyed_components(model: EngineModel, config: EngineSettings, ladders: EngineLadders
                     ) -> tuple[KeyedComponentModel, ...]:
    """`model`'s keyed components (its optional `keyed_components(config, ladders)`; none
    for a model that has no such runner)."""
    rule = getattr(model, "keyed_components", None)
    return tuple(rule(config, ladders)) if rule is not None else ()


def share_buffers(components: tuple[ComponentModel, ...], owner: str, reader: str
                  ) -> tuple[ComponentModel, ...]:
    """`reader`'s buffers that `owner` also has (same name) become one shared buffer each
    (`BufferSpec.shared`, the name): allocated once, sized for the larger need, counted once.
    For an engine whose second graph runner reads the first one's persistent tensors."""
    by_name = {c.name: c for c in components}
    if owner not in by_name or reader not in by_name:
        raise ConfigError(f"share_buffers: no component {owner!r} or {reader!r}")
    common = ({b.name for b in by_name[owner].buffers}
              & {b.name for b in by_name[reader].buffers})
    return tuple(replace(c, buffers=tuple(as_shared(b) if b.name in common else b
                                          for b in c.buffers))
                 if c.name in (owner, reader) else c for c in components)


@dataclass(frozen=True)
class EngineLadders:
    """The capture sizes as the engine's config computes them, and as its runner captures.

    `mode` is the graph mode the runner resolves (None: the config's own); `assumed` the
    scenario the ladders and tables follow when an input is unknown, `covered` the other
    scenarios whose dispatch the capacities also cover.
    `inputs` are the engine's own names for its key settings with their resolved values
    (("max_running_requests", "48"), ...), for reports that speak the engine's language;
    empty: reports use graphfit's (vLLM's) field names.
    """

    config: Ladder
    runtime: Ladder
    mode: CUDAGraphMode | None = None
    assumed: Scenario | None = None
    covered: tuple[Scenario, ...] = ()
    inputs: tuple[tuple[str, str], ...] = ()


class EngineModel(Protocol):
    """What every engine model provides (see vllm, sglang, trtllm)."""

    @property
    def engine(self) -> Engine | EngineName: ...

    @property
    def release(self) -> str:
        """The release the model follows, bare ("0.33.0"): its key in the registry."""
        ...

    @property
    def version(self) -> str:
        """The release for display, e.g. "vLLM 0.33.0" (plans, documents, verdicts)."""
        ...

    @property
    def unit(self) -> Unit:
        """What the engine's capture sizes count."""
        ...

    @property
    def policies(self) -> tuple[LadderPolicy, ...]:
        """The ladder policies that belong to this engine."""
        ...

    def resolve(self, config: EngineSettings) -> Mapping[str, object]:
        """Engine-specific field values (e.g. ladder=auto made concrete); ConfigError for
        fields this engine does not have or values it rejects."""
        ...

    def ladders(self, config: EngineSettings) -> EngineLadders: ...

    def components(self, config: EngineSettings, ladders: EngineLadders
                   ) -> tuple[ComponentModel, ...]: ...


# Optional members of an engine model (read with a default, so a model that predates them
# keeps its behaviour):
#   requests_within_token_budget: bool -- whether max_num_batched_tokens < max_num_seqs is an
#       error (vLLM) or not (SGLang has no such budget for decode graphs; TensorRT-LLM warns).
#   runner_choice: bool -- the engine has model runners to choose from (vLLM's V1 / V2):
#       reports name the config's runner.
#   config_stage: str -- how reports name the ladder as the config computes it.
#   capture_multiple(config, mode) -> int -- the multiple the runner rounds capture sizes
#       to under the resolved graph mode (vLLM V1: q with FULL decode graphs), else 1.
#   keyed_components(config, ladders) -> tuple[KeyedComponentModel, ...] -- graph runners
#       keyed on (requests, tokens, longest request) (TensorRT-LLM's encoder); none if absent.
#   options: type[EngineOptions] -- the engine's own options class (its package's
#       options module: VllmOptions, SglangOptions, TrtllmOptions); NoOptions when absent.
# (architecture and vocab_size are facts of the model, accepted for every engine)


def options_type(model: EngineModel) -> type[EngineOptions]:
    """The options class `model`'s engine owns (`NoOptions` for a model that names none)."""
    value = getattr(model, "options", NoOptions)
    if not (isinstance(value, type) and issubclass(value, EngineOptions)):
        raise ConfigError(f"engine {model.engine.value}: its model's `options` is not an "
                          f"EngineOptions class ({excerpt(value)})")
    return value


def requests_within_token_budget(model: EngineModel) -> bool:
    """Whether `model`'s engine rejects max_num_batched_tokens < max_num_seqs."""
    return bool(getattr(model, "requests_within_token_budget", True))


def runner_choice(model: EngineModel) -> bool:
    """Whether `model`'s engine has runners to choose from (reports name the runner)."""
    return bool(getattr(model, "runner_choice", False))


def config_stage(model: EngineModel) -> str:
    """How reports name the ladder as `model`'s config computes it."""
    return str(getattr(model, "config_stage", "config (resolved batch sizes)"))


def capture_multiple(model: EngineModel, config: EngineSettings, mode: CUDAGraphMode) -> int:
    """The multiple `model`'s runner rounds capture sizes to (1: none)."""
    rule = getattr(model, "capture_multiple", None)
    return int(rule(config, mode)) if rule is not None else 1
