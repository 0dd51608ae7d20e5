"""The vLLM 0.33 engine model: its ladders, dispatchers, buffers and reachable batches."""

from __future__ import annotations

from collections.abc import Mapping

from graphfit.planner.core.batches import BatchFamily, Requests, Stream
from graphfit.planner.core.enums import Engine, LadderPolicy, SpecMethod, Unit
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.base import ComponentModel, EngineLadders
from graphfit.planner.engines.vllm.buffers import drafter_buffer_specs, target_buffer_specs
from graphfit.planner.engines.vllm.dispatch import drafter_tables, target_tables
from graphfit.planner.engines.vllm.ladder import config_ladder, runtime_ladder

_TARGET = frozenset({Stream.TARGET_TOKENS, Stream.TARGET_REQUESTS})
_DRAFTER = frozenset({Stream.DRAFTER_TOKENS, Stream.DRAFTER_REQUESTS})
_QUERY = frozenset({Stream.DRAFT_QUERY, Stream.DRAFTER_REQUESTS})


class VllmModel:
    """vLLM captures per token count; the V1 runner rounds to multiples of q (see ladder)."""

    engine = Engine.VLLM
    version = "vLLM 0.33.0"
    unit = Unit.TOKENS
    policies = (LadderPolicy.VLLM, LadderPolicy.VLLM_LEGACY)

    def resolve(self, config: EngineSettings) -> Mapping[str, object]:
        changes: dict[str, object] = {}
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
        return changes

    def ladders(self, config: EngineSettings) -> EngineLadders:
        ladder = config_ladder(config)
        return EngineLadders(ladder, runtime_ladder(config, ladder))

    def components(self, config: EngineSettings, ladders: EngineLadders
                   ) -> tuple[ComponentModel, ...]:
        S, T, q = config.max_num_seqs, config.max_num_batched_tokens, config.uniform_query_len
        sizes, mode = ladders.runtime.sizes, config.cudagraph_mode
        target = ComponentModel(
            "target", Unit.TOKENS, target_tables(sizes, mode, q, S),
            tuple(target_buffer_specs(config)),
            (BatchFamily("mixed", _TARGET, 1, 1, T, Requests.UP_TO_TOKENS),
             BatchFamily("uniform decode", _TARGET, q, 1, min(S, T // q), Requests.PER_UNIT,
                         uniform=True)))
        specs = tuple(drafter_buffer_specs(config, ladders.config.max_size))
        if not specs:
            return (target,)
        families: tuple[BatchFamily, ...]
        if config.spec_method is SpecMethod.DFLASH:
            families = (
                # a query of q tokens per request; every count up to S*q is planned for
                BatchFamily("query", _QUERY, 1, 1, S * q, Requests.UP_TO_TOKENS),
                BatchFamily("context", frozenset({Stream.CONTEXT}), 1, 1, T,
                            Requests.UP_TO_TOKENS, padded=False),
            )
        else:
            # the draft model re-reads every scheduled token plus one sampled token per
            # sequence (#32591): up to T + S tokens, not T
            reach = T + S if config.spec_method is SpecMethod.DRAFT_MODEL else T
            families = (BatchFamily("drafter", _DRAFTER, 1, 1, reach, Requests.UP_TO_TOKENS),)
        drafter = ComponentModel("drafter", Unit.TOKENS, drafter_tables(sizes, mode, q, S),
                                 specs, families)
        return (target, drafter)


VLLM = VllmModel()
