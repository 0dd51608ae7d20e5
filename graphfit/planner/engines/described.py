"""The engine you bring: an engine described as data, planned like a modelled one.

An `EngineDescription` (frozen dataclasses in `description`, re-exported here; the same shape
as a TOML or YAML file, read by graphfit.inputs.engine_file) lists an engine's graph runners
(components: a target, a drafter...), each with

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

from collections.abc import Mapping

from graphfit.planner.core.batches import BatchFamily, Requests, Stream
from graphfit.planner.core.buffers import (
    Axis,
    BufferSpec,
    Demand,
    FillKind,
    FillPolicy,
    Placement,
)
from graphfit.planner.core.dispatch import NO_GRAPH, Dispatch, DispatchTables
from graphfit.planner.core.enums import (
    CUDAGraphMode,
    EngineName,
    LadderPolicy,
    SpecMethod,
)
from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.core.ladder import Ladder
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines import registry, table
from graphfit.planner.engines.base import Alternative, ComponentModel, EngineLadders
from graphfit.planner.engines.description import (
    BUFFER_NAMES,
    CONFIG_NAMES,
    GRAPH_MODES,
    BufferRule,
    ComponentRule,
    DispatchRule,
    EngineDescription,
    FamilyRule,
    Grid,
    LadderRule,
)
from graphfit.planner.engines.description import formula_value as _value
from graphfit.planner.engines.table import EnginePlugin

__all__ = [
    "BUFFER_NAMES", "CONFIG_NAMES", "BufferRule", "ComponentRule", "DescribedEngine",
    "DispatchRule", "EngineDescription", "FamilyRule", "Grid", "LadderRule",
    "register_description",
]


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
        if config.max_cudagraph_capture_size is not None:
            raise ConfigError(f"max_cudagraph_capture_size: engine {name} takes its ladders' "
                              "max from its description")
        if config.ladder not in (LadderPolicy.AUTO, LadderPolicy.EXPLICIT):
            raise ConfigError(f"ladder: engine {name} takes its ladders from its description "
                              "(or explicit sizes for its first component)")
        if config.cudagraph_mode not in (CUDAGraphMode.NONE,
                                         CUDAGraphMode.FULL_AND_PIECEWISE):
            raise ConfigError(f"cudagraph_mode: engine {name} dispatches as its description "
                              "says; only NONE (no graphs) changes that")
        # vLLM's / SGLang's own options are kept off a described engine by EngineConfig
        for field_name in ("speculative_eagle_topk", "speculative_num_draft_tokens"):
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

    def _sizes(self, rule: ComponentRule, config: EngineSettings) -> tuple[int, ...]:
        """The component's capture sizes; explicit `cudagraph_capture_sizes` replace the
        first component's (what `graphfit optimize` tunes), exactly as given."""
        given = config.cudagraph_capture_sizes
        if given is not None and rule is self.description.components[0]:
            return Ladder(tuple(given)).sizes  # sorted and unique, or a ConfigError
        return rule.ladder.sizes_for(_env(config), rule.name)

    def ladders(self, config: EngineSettings) -> EngineLadders:
        sizes = self._sizes(self.description.components[0], config)
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
            sizes = self._sizes(rule, config) if graphs else ()
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
                          FillPolicy(FillKind(rule.fill), rule.fill_value),
                          (rule.slots,) if rule.slots > 1 else (), trailing,
                          rule.init, source=f"{role}: described", safe_fills=safe,
                          placement=Placement(rule.placement), stages=rule.stages,
                          pinned=rule.pinned)


def register_description(description: EngineDescription, *, default: bool = False
                         ) -> DescribedEngine:
    """Build the engine's model and register it (engine = its name, engine_version = its
    version), so `EngineConfig(engine=description.name)` plans it."""
    model = DescribedEngine(description)
    registry.add_model(model, default=default)
    table.set_parts(EnginePlugin(model.engine.value, model.release, registry.RUNTIME_TARGET,
                                 pasteback="graphfit.inputs.pasteback:DESCRIBED_PASTEBACK"))
    return model
