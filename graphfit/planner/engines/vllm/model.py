"""The vLLM engine model: its ladders, dispatchers, buffers and reachable batches.

One class serves every release: `VllmModel(release)` reads the release's switches
(`releases/`, each release a delta of its predecessor); the modules it calls describe 0.33
and say where a later release differs.

The attention backends' cudagraph support level decides the mode the runner resolves
(`attention.resolve_mode`); when the config leaves it unknown, every level vLLM would accept
is a scenario: the plan follows the highest (its `assumed` scenario) and its capacities and
audits cover the others (`covered`, each component's `alternatives`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from graphfit.planner.core.batches import BatchFamily, Requests, Stream
from graphfit.planner.core.dispatch import DispatchTables
from graphfit.planner.core.enums import CUDAGraphMode, Engine, LadderPolicy, SpecMethod, Unit
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.ladder import Ladder
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.base import Alternative, ComponentModel, EngineLadders, Scenario
from graphfit.planner.engines.vllm.attention import (
    ANY_LEVEL,
    BACKEND_LEVELS,
    UNIFORM,
    backend_levels,
    resolve_mode,
    target_levels,
)
from graphfit.planner.engines.vllm.buffers import (
    drafter_buffer_specs,
    lookahead,
    target_buffer_specs,
)
from graphfit.planner.engines.vllm.dispatch import (
    drafter_tables,
    target_tables,
    v2_full_decode_tables,
    v2_split_tables,
    v2_tables,
)
from graphfit.planner.engines.vllm.enums import AttentionSupport, Runner
from graphfit.planner.engines.vllm.ladder import config_ladder, runtime_ladder
from graphfit.planner.engines.vllm.options import VllmOptions
from graphfit.planner.engines.vllm.releases import Release
from graphfit.planner.engines.vllm.releases.v0_33 import RELEASE as V0_33
from graphfit.planner.engines.vllm.split import SPLIT_FIELDS, SplitLadder, split_ladder

_TARGET = frozenset({Stream.TARGET_TOKENS, Stream.TARGET_REQUESTS})
_DRAFTER = frozenset({Stream.DRAFTER_TOKENS, Stream.DRAFTER_REQUESTS})
_QUERY = frozenset({Stream.DRAFT_QUERY, Stream.DRAFTER_REQUESTS})
_CONTEXT = frozenset({Stream.CONTEXT})
_PARALLEL = (SpecMethod.DFLASH, SpecMethod.DSPARK)  # a separate query pass per step
_V1_DRAFTERS = (SpecMethod.EAGLE, SpecMethod.EAGLE3, SpecMethod.MTP, SpecMethod.DRAFT_MODEL,
                SpecMethod.EXTRACT_HIDDEN_STATES, SpecMethod.DFLASH)
_V2_AR = (SpecMethod.EAGLE, SpecMethod.EAGLE3, SpecMethod.MTP)
# drafters that are models with attention layers in the runner's KV-cache groups
DRAFT_ATTENTION = (SpecMethod.EAGLE, SpecMethod.EAGLE3, SpecMethod.MTP, SpecMethod.DRAFT_MODEL,
                   SpecMethod.DFLASH, SpecMethod.DSPARK)


@dataclass(frozen=True)
class _Run:
    """One scenario: the levels, the resolved mode and the runtime ladder."""

    level: AttentionSupport
    drafter_level: AttentionSupport | None
    mode: CUDAGraphMode
    runtime: Ladder

    def label(self) -> str:
        text = f"attention support {self.level.value}"
        if self.drafter_level is not None:
            text += f", drafter attention {self.drafter_level.value}"
        return text

    def settings(self) -> tuple[tuple[str, str], ...]:
        out = [("attention_cudagraph_support", self.level.value)]
        if self.drafter_level is not None:
            out.append(("drafter_attention_cudagraph_support", self.drafter_level.value))
        return tuple(out)


def default_runner(config: EngineSettings, release: Release = V0_33) -> Runner:
    """The model runner vLLM picks when VLLM_USE_V2_MODEL_RUNNER is unset
    (0.33: `VllmConfig.use_v2_model_runner`, config/vllm.py:730-767): the V2 runner, unless the
    config needs a feature it lacks (`_get_v2_model_runner_unsupported_features`,
    config/vllm.py:3053-3087) -- of those graphfit models the suffix method. (Without Triton
    vLLM also falls back to V1; graphfit models CUDA GPUs, where Triton is present.) 0.34 has
    the V2 runner only."""
    return release.default_runner(config.spec_method)


def _uses_drafter_level(config: EngineSettings) -> bool:
    """Only MRV2's DFlash/DSpark drafters build graphs from their own attention's level."""
    return config.runner is Runner.V2 and config.spec_method in _PARALLEL


def _drafter_levels(config: EngineSettings) -> tuple[AttentionSupport | None, ...]:
    """The draft layers' levels to plan for (None: the same backend as the target's)."""
    if config.spec_method in DRAFT_ATTENTION \
            and config.drafter_attention_cudagraph_support is not None:
        return (config.drafter_attention_cudagraph_support,)
    if not _uses_drafter_level(config):
        return (None,)
    if config.attention_backend is not None:
        return backend_levels(config.attention_backend)
    return ANY_LEVEL


def runner_level(config: EngineSettings, level: AttentionSupport,
                 drafter_level: AttentionSupport | None) -> AttentionSupport:
    """The level the runner resolves its mode with: the minimum over every attention layer,
    the draft model's included (V1 `_check_and_update_cudagraph_mode`, 0.33
    gpu_model_runner.py:6710-6719, 6771-6795; MRV2 `get_attn_cg_support` over every
    attention group, attn_utils.py:314-338, from model_runner.py:688-697)."""
    if drafter_level is None or config.spec_method not in DRAFT_ATTENTION:
        return level
    return min(level, drafter_level, key=lambda x: x.rank)


def _drafter_graphs(run: _Run) -> bool:
    """MRV2 DFlash/DSpark: FULL query graphs need decode FULL and draft attention >= UB
    (v1/worker/gpu/spec_decode/dflash/speculator.py:143-160)."""
    return (run.mode.decode_mode is CUDAGraphMode.FULL and run.drafter_level is not None
            and run.drafter_level.rank >= UNIFORM.rank)


def _runs(config: EngineSettings, ladder: Ladder, split: SplitLadder | None = None
          ) -> list[_Run]:
    """Every scenario vLLM accepts, the assumed (highest levels) first; ConfigError when it
    accepts none. With split sizes (0.34) an empty ladder already set the mode NONE."""
    q = config.uniform_query_len
    configured = config.cudagraph_mode
    if split is not None and split.mode_none:
        configured = CUDAGraphMode.NONE
    levels = target_levels(config.attention_backend, config.attention_cudagraph_support)
    runs: list[_Run] = []
    seen: set[tuple[object, ...]] = set()
    error: ConfigError | None = None
    refused: dict[AttentionSupport, ConfigError] = {}
    for level in sorted(levels, key=lambda x: -x.rank):
        for drafter_level in sorted(_drafter_levels(config),
                                    key=lambda x: -(x.rank if x is not None else 0)):
            effective = runner_level(config, level, drafter_level)
            try:
                mode = resolve_mode(configured, effective, q)
                runtime = runtime_ladder(config, ladder, mode)
            except ConfigError as exc:
                error = error or exc
                refused.setdefault(effective, exc)
                continue
            run = _Run(level, drafter_level, mode, runtime)
            effect = (mode, runtime.sizes, _drafter_graphs(run))
            if effect not in seen:
                seen.add(effect)
                runs.append(run)
    if not runs:
        assert error is not None
        raise error
    if refused:  # some levels vLLM accepts, others make it refuse to start: say which
        first = runs[0]
        note = _refusal_note(config, refused)
        runs[0] = _Run(first.level, first.drafter_level, first.mode,
                       Ladder(first.runtime.sizes, (*first.runtime.warnings, note)))
    return runs


def _refusal_note(config: EngineSettings, refused: Mapping[AttentionSupport, ConfigError]
                  ) -> str:
    """Which attention support levels (and so which backends) make vLLM refuse this config
    at start-up, e.g. "No valid cudagraph sizes after rounding" (0.33
    config/compilation.py:1555-1562) when only the V1 rounding to q applies."""
    by_reason: dict[str, list[str]] = {}
    for level in sorted(refused, key=lambda x: -x.rank):
        if config.attention_backend is not None:
            names = [config.attention_backend]
        else:
            names = sorted(n for n, levels in BACKEND_LEVELS.items() if level in levels)
        shown = ", ".join(names[:3]) + (f" +{len(names) - 3}" if len(names) > 3 else "")
        by_reason.setdefault(str(refused[level])[:160], []).append(f"{level.value} ({shown})")
    return "vLLM refuses to start this config when the attention cudagraph support is " + \
        "; ".join(f"{' or '.join(levels)}: {reason}" for reason, levels in by_reason.items())


class VllmModel:
    """vLLM captures per token count; the V1 runner rounds to multiples of q (see ladder)."""

    engine = Engine.VLLM
    unit = Unit.TOKENS
    policies = (LadderPolicy.VLLM, LadderPolicy.VLLM_LEGACY)
    runner_choice = True  # V1 or V2 (VLLM_USE_V2_MODEL_RUNNER)
    config_stage = "config (drafter __init__ sees)"
    options = VllmOptions  # vLLM's own inputs (runner, ceiling, attention levels)

    def capture_multiple(self, config: EngineSettings, mode: CUDAGraphMode) -> int:
        """q when the V1 runner rounds capture sizes to multiples of q: spec decode with
        FULL decode graphs (see ladder)."""
        q = config.uniform_query_len
        if config.runner is Runner.V1 and q > 1 and mode.decode_mode is CUDAGraphMode.FULL:
            return q
        return 1

    def __init__(self, release: Release = V0_33) -> None:
        self.changes = release

    @property
    def release(self) -> str:
        """The version string, e.g. "0.34.0"."""
        return self.changes.release

    @property
    def version(self) -> str:
        """What reports print, e.g. "vLLM 0.34.0"."""
        return self.changes.name

    def _split(self, config: EngineSettings) -> SplitLadder | None:
        return split_ladder(config) if self.changes.split_sizes else None

    def resolve(self, config: EngineSettings) -> Mapping[str, object]:
        """vLLM's own defaults and checks: the ladder, padding, the model runner when
        VLLM_USE_V2_MODEL_RUNNER is unset, the graph mode the attention allows."""
        changes: dict[str, object] = {}
        if config.spec_method is SpecMethod.UNO:
            raise ConfigError("spec_method: uno is SGLang's LoRA self-draft (--speculative-"
                              "algorithm UNO); vLLM's speculative-config has no such method")
        if config.ladder is LadderPolicy.AUTO:
            changes["ladder"] = LadderPolicy.VLLM
        padding = config.cuda_graph_padding
        if padding is None:
            changes["cuda_graph_padding"] = True
        elif padding is False:
            raise ConfigError("cuda_graph_padding: vLLM always pads to the next capture size")
        if config.speculative_eagle_topk is not None:
            raise ConfigError("speculative_eagle_topk: SGLang-only (set engine sglang)")
        if config.speculative_num_draft_tokens is not None:
            raise ConfigError("speculative_num_draft_tokens: SGLang-only (set engine sglang)")
        levels = target_levels(config.attention_backend, config.attention_cudagraph_support)
        errors = []
        combos = [(level, drafter) for level in levels for drafter in _drafter_levels(config)]
        for level, drafter in combos:  # vLLM rejects a FULL mixed mode when an attention
            try:                        # layer (the draft's too) has NEVER
                resolve_mode(config.cudagraph_mode, runner_level(config, level, drafter),
                             config.uniform_query_len)
            except ConfigError as exc:
                errors.append(exc)
        if len(errors) == len(combos):
            raise errors[0]
        if not self.changes.split_sizes:
            given = [name for name in SPLIT_FIELDS if getattr(config, name) is not None]
            if given:
                raise ConfigError(
                    # a 0.34 CompilationConfig key (config/compilation.py:762-801 in 0.34)
                    f"{given[0]}: {self.version} has no split capture sizes (0.34 has); use "
                    f"cudagraph_capture_sizes")
        method, k = config.spec_method, config.num_speculative_tokens
        runner = config.runner
        if runner is None:  # VLLM_USE_V2_MODEL_RUNNER unset
            runner = default_runner(config, self.changes)
            changes["runner"] = runner
        if runner is Runner.V1 and not self.changes.v1_runner:
            raise ConfigError(
                f"runner: the V1 model runner was removed in {self.version} "
                f"(VLLM_USE_V2_MODEL_RUNNER=0 is an error there: platforms/interface.py:"
                f"1481-1491); use runner v2, or engine version 0.33.0 for V1")
        if method is SpecMethod.DSPARK and runner is Runner.V1:
            raise ConfigError("spec_method: dspark runs on the V2 model runner only (vLLM's V1 "
                              "runner rejects it: config/vllm.py:3110-3113)")
        if method is SpecMethod.SUFFIX and runner is Runner.V2 \
                and method in self.changes.runner_fallbacks:
            raise ConfigError("spec_method: suffix runs on the V1 model runner only (vLLM's V2 "
                              "runner rejects it: config/vllm.py:3066-3068)")
        if method is SpecMethod.EXTRACT_HIDDEN_STATES and k != 1:
            raise ConfigError(f"num_speculative_tokens: extract_hidden_states needs k = 1, "
                              f"got {k} (vLLM asserts it)")
        if not config.dspark_sample_from_anchor and method is not SpecMethod.DSPARK:
            raise ConfigError("dspark_sample_from_anchor: only for spec_method dspark")
        T = config.max_num_batched_tokens
        slots = self.changes.reserved_slots(config)
        if method is not SpecMethod.NONE and k > 0 and isinstance(T, int) and slots >= T:
            raise ConfigError(
                f"max_num_batched_tokens: {T} leaves no slot for a token besides the "
                f"{slots} lookahead slots of {method.value} ({self.version} rejects "
                f"max_num_batched_tokens <= its reserved draft slots)")
        return changes

    def ladders(self, config: EngineSettings) -> EngineLadders:
        split = self._split(config)
        ladder = config_ladder(config) if split is None else split.recorded
        runs = _runs(config, ladder, split)
        first = runs[0]
        scenarios = [Scenario(run.label(), run.settings(), run.mode, run.runtime.sizes)
                     for run in runs]
        return EngineLadders(ladder, first.runtime, first.mode, scenarios[0],
                             tuple(scenarios[1:]))

    def components(self, config: EngineSettings, ladders: EngineLadders
                   ) -> tuple[ComponentModel, ...]:
        split = self._split(config)
        runs = _runs(config, ladders.config, split)
        built = [self._components(config, ladders.config, run, split) for run in runs]
        out: list[ComponentModel] = []
        for i, comp in enumerate(built[0]):
            alternatives = tuple(
                Alternative(run.label(), other[i].tables, other[i].families)
                for run, other in zip(runs[1:], built[1:]))
            out.append(ComponentModel(comp.name, comp.unit, comp.tables, comp.buffers,
                                      comp.families, alternatives))
        return tuple(out)

    def _components(self, config: EngineSettings, ladder: Ladder, run: _Run,
                    split: SplitLadder | None = None) -> tuple[ComponentModel, ...]:
        S, T, q = config.max_num_seqs, config.max_num_batched_tokens, config.uniform_query_len
        sizes, mode = run.runtime.sizes, run.mode
        v2 = config.runner is Runner.V2
        if split is not None:
            tables = v2_split_tables(split.prefill, split.decode_graph_tokens(q, S), mode, q, S)
        elif v2:
            tables = v2_tables(sizes, mode, q, S, ladder.max_size)
        else:
            tables = target_tables(sizes, mode, q, S)
        decodes = min(S, T // q)
        target_families = (
            BatchFamily("mixed", _TARGET, 1, 1, T, Requests.UP_TO_TOKENS),
            BatchFamily("uniform decode", _TARGET, q, 1, decodes, Requests.PER_UNIT,
                        uniform=True))
        target = ComponentModel("target", Unit.TOKENS, tables,
                                tuple(target_buffer_specs(config)), target_families)
        specs = tuple(drafter_buffer_specs(config, ladder.max_size,
                                           self.changes.dflash_aux_staging))
        if not specs:
            return (target,)
        if v2:
            drafter_tables_, families = self._v2_drafter(config, ladder, run, target_families,
                                                          split)
        else:
            drafter_tables_, families = self._v1_drafter(config, run)
        return (target, ComponentModel("drafter", Unit.TOKENS, drafter_tables_, specs,
                                       families))

    @staticmethod
    def _v1_drafter(config: EngineSettings, run: _Run
                    ) -> tuple[DispatchTables, tuple[BatchFamily, ...]]:
        S, T, q = config.max_num_seqs, config.max_num_batched_tokens, config.uniform_query_len
        sizes, mode = run.runtime.sizes, run.mode
        tables = drafter_tables(sizes, mode, q, S)
        if config.spec_method is not SpecMethod.DFLASH:
            # the scheduler keeps every draft slot inside T (scheduler.py:721-847), so the
            # drafter never sees more than T tokens (vLLM #32591 does not happen in 0.33)
            return tables, (BatchFamily("drafter", _DRAFTER, 1, 1, T, Requests.UP_TO_TOKENS),)
        # DFlash: q query tokens per request, at most T // q requests (vllm.py:2378-2396)
        families = [
            BatchFamily("query", _QUERY, q, 1, min(S, T // q), Requests.PER_UNIT),
            BatchFamily("context", _CONTEXT, 1, 1, T, Requests.UP_TO_TOKENS, padded=False),
        ]
        # what only vLLM's code runs: DFlashProposer.dummy_run(n) drafts min(n, S*q) query
        # tokens (dflash.py:218-228) for every size the target captures, padded only when
        # the target captures it PIECEWISE (gpu_model_runner.py:5800-5838)
        captured = [s for s in sizes if mode.mixed_mode is not CUDAGraphMode.NONE
                    or (mode.separate_routine and q <= s <= S * q)]
        if captured:
            families.append(BatchFamily(
                "capture (every captured size)", _QUERY, 1, 1, S * q, Requests.UP_TO_TOKENS,
                padded=mode.mixed_mode is CUDAGraphMode.PIECEWISE,
                points=tuple(min(s, S * q) for s in captured), engine_only=True))
        # the memory-profiling run is forced eager (gpu_model_runner.py:5558-5566, 6132)
        profile = min(T, S * q)
        families.append(BatchFamily("profile run", _QUERY, 1, profile, profile,
                                    Requests.UP_TO_TOKENS, padded=False, engine_only=True))
        return tables, tuple(families)

    @staticmethod
    def _v2_drafter(config: EngineSettings, ladder: Ladder, run: _Run,
                    target: tuple[BatchFamily, ...], split: SplitLadder | None = None
                    ) -> tuple[DispatchTables, tuple[BatchFamily, ...]]:
        S, T, q = config.max_num_seqs, config.max_num_batched_tokens, config.uniform_query_len
        sizes, mode, method = run.runtime.sizes, run.mode, config.spec_method
        if split is not None and method is SpecMethod.DRAFT_MODEL:
            return _standalone_drafter(config, run, split)
        if method in _PARALLEL:
            width = lookahead(config)
            if split is None:
                tables = v2_full_decode_tables(sizes, _drafter_graphs(run), width, S,
                                               ladder.max_size)
            else:  # 0.34: the query manager's decode graphs are the split request counts
                full = CUDAGraphMode.FULL_DECODE_ONLY if _drafter_graphs(run) \
                    else CUDAGraphMode.NONE
                tables = v2_split_tables((), split.decode_graph_tokens(width, S), full,
                                         width, S)
            return tables, (
                BatchFamily("query", _QUERY, width, 1, min(S, T // width), Requests.PER_UNIT,
                            uniform=True),
                BatchFamily("context", _CONTEXT, 1, 1, T, Requests.UP_TO_TOKENS, padded=False),
                # the prepare kernel writes rows [num_reqs * width, T) of input_ids,
                # positions, is_padding and pads the request rows to S on EVERY call
                # (dflash/speculator.py:806-838): vLLM's code writes T rows
                BatchFamily("prepare kernel fill", _QUERY, 1, T, T, Requests.UP_TO_TOKENS,
                            padded=False, engine_only=True))
        if method in _V2_AR:
            # the prefill manager dispatches the target's batches with the target's mode
            tables = (v2_tables(sizes, mode, q, S, ladder.max_size) if split is None else
                      v2_split_tables(split.prefill, split.decode_graph_tokens(q, S), mode,
                                      q, S))
            return tables, tuple(
                BatchFamily(f.name, _DRAFTER, f.step, f.first, f.last, f.requests,
                            uniform=f.uniform) for f in target)
        no_graphs = DispatchTables((), (), (), q, S)
        if method in (SpecMethod.NGRAM, SpecMethod.NGRAM_GPU, SpecMethod.SUFFIX):
            return no_graphs, (BatchFamily("requests", frozenset({Stream.DRAFTER_REQUESTS}),
                                           1, 1, S, Requests.PER_UNIT),)
        # draft_model, extract_hidden_states: eager, at most T tokens
        return no_graphs, (BatchFamily("drafter", _DRAFTER, 1, 1, T, Requests.UP_TO_TOKENS),)


def _standalone_drafter(config: EngineSettings, run: _Run, split: SplitLadder
                        ) -> tuple[DispatchTables, tuple[BatchFamily, ...]]:
    """0.34's draft_model prefill (standalone_ar/speculator.py:62-73, 367-388): one correction
    slot per request, so n target tokens of r requests are n + r drafter tokens, a uniform
    decode r x (q + 1); its own manager keys decode graphs on q + 1."""
    S, T, q = config.max_num_seqs, config.max_num_batched_tokens, config.uniform_query_len
    width = q + 1
    tables = v2_split_tables(split.prefill, split.decode_graph_tokens(width, S), run.mode,
                             width, S)
    return tables, (
        BatchFamily("expanded prefill", _DRAFTER, 1, 2, T + S, Requests.UP_TO_TOKENS),
        BatchFamily("expanded uniform decode", _DRAFTER, width, 1, min(S, T // q),
                    Requests.PER_UNIT, uniform=True))


VLLM = VllmModel()
