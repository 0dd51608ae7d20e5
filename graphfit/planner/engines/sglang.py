"""The SGLang engine model (domain.md §6): decode / target-verify and EAGLE draft runners.

The target runner replays decode (width 1) or, with speculative decoding, target verify
(width = speculative_num_draft_tokens); the EAGLE draft runner replays the multi-step draft
(width = topk, out_cache_loc holding one slot per step). Padded rows must not keep stale
values: positions (SGLang #10892, #24401), req_pool_indices and out_cache_loc are zeroed
(row/slot 0 is reserved), seq_lens gets the attention backend's fill value.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from graphfit.planner.core.buffers import (
    KEEP,
    ONLY_SENTINEL,
    ONLY_ZERO,
    ZERO,
    Axis,
    BufferSpec,
    FillKind,
    FillPolicy,
)
from graphfit.planner.core.enums import Engine, LadderPolicy, SpecMethod, Unit
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.ladder import Ladder, check_size_count
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.base import ComponentModel, EngineLadders
from graphfit.planner.engines.batch import (
    BatchRunner,
    batch_components,
    explicit_batch_ladder,
    graph_input,
    resolve_common,
)

SGLANG_DEFAULT_MAX_BS = 256  # SGLang derives it from GPU memory and TP (160-512); 80 GB, TP1
SEQ_LEN_FILL = FillPolicy(FillKind.SENTINEL, 1)  # FlashInfer / Triton backends' fill value


def sglang_sizes(max_bs: int, *, speculative: bool) -> list[int]:
    """SGLang's decode list (or its finer speculative list), cut at max_bs, max_bs appended."""
    runs: tuple[Iterable[int], ...]
    if speculative:
        runs = (range(1, 9), range(10, 33, 2), range(40, 65, 4), range(72, 257, 8),
                range(272, max_bs + 1, 16))
    else:
        runs = ((1, 2, 4, 8, 12), range(16, 257, 8), range(272, 512, 16),
                range(512, max_bs + 1, 32))
    return sorted({s for run in runs for s in run if s <= max_bs} | {max_bs})


def sglang_ladder(config: EngineSettings) -> Ladder:
    S = config.max_num_seqs
    user = config.cudagraph_capture_sizes
    warnings: list[str] = []
    if user is not None:
        sizes = list(user)
        given = config.max_cudagraph_capture_size
        if given is not None and given != sizes[-1]:
            warnings.append(f"cuda_graph_max_bs {given} replaced by max(cuda_graph_bs) "
                            f"{sizes[-1]} (SGLang does the same)")
    else:
        # sizes above S are cut below anyway: generating only up to S gives the same ladder
        max_bs = min(config.max_cudagraph_capture_size or SGLANG_DEFAULT_MAX_BS, S)
        check_size_count(max_bs if not config.cuda_graph_padding else max_bs // 16,
                         "cuda_graph_max_bs")
        if not config.cuda_graph_padding:
            sizes = list(range(1, max_bs + 1))
        else:
            sizes = sglang_sizes(max_bs, speculative=config.ladder is LadderPolicy.SGLANG_SPEC)
    if sizes[-1] > S:  # the runner caps at the request pool, keeping a graph for the pool size
        dropped = [s for s in sizes if s > S]
        sizes = [s for s in sizes if s <= S] + [S]
        if user is not None:
            warnings.append(f"batch sizes {dropped} exceed max_num_seqs {S}; captured {S}")
    return Ladder(tuple(sorted(set(sizes))), tuple(warnings))


def _token_inputs(runner: str, max_tokens: int, config: EngineSettings, *, steps: int = 1
                  ) -> list[BufferSpec]:
    out_cache = (steps,) if steps > 1 else ()
    specs = [
        graph_input(runner, "input_ids", "int64", Axis.TOKENS, max_tokens, KEEP, None,
                    why="token ids of stale rows stay inside the vocabulary"),
        graph_input(runner, "positions", "int64", Axis.TOKENS, max_tokens, ZERO, ONLY_ZERO,
                    why="stale positions index rope/attention out of range (#10892, #24401)"),
        graph_input(runner, "out_cache_loc", "int64", Axis.TOKENS, max_tokens, ZERO, ONLY_ZERO,
                    trailing=out_cache,
                    why="KV slot 0 is the dummy slot; stale slots overwrite live KV"),
    ]
    if config.multimodal:
        specs.append(graph_input(runner, "mrope_positions", "int64", Axis.TOKENS, max_tokens,
                                 ZERO, ONLY_ZERO, leading=(config.mrope_dims,)))
    return specs


def _request_inputs(runner: str, max_bs: int) -> list[BufferSpec]:
    return [
        graph_input(runner, "req_pool_indices", "int64", Axis.REQUESTS, max_bs, ZERO, ONLY_ZERO,
                    why="request slot 0 is reserved; stale slots read freed requests"),
        graph_input(runner, "seq_lens", "int32", Axis.REQUESTS, max_bs, SEQ_LEN_FILL,
                    ONLY_SENTINEL, why="padded requests must look like 1-token sequences"),
    ]


def sglang_runners(config: EngineSettings, max_bs: int) -> list[BatchRunner]:
    """The runners SGLang builds for this config; `max_bs` is the ladder's largest size."""
    S = config.max_num_seqs
    width = config.uniform_query_len  # 1 for plain decode, num_draft_tokens for verify
    target = _token_inputs("target", max_bs * width, config) + _request_inputs("target", max_bs)
    runners = [BatchRunner("target", width, S, tuple(target))]
    if config.has_drafter:
        topk = config.speculative_eagle_topk or 1
        steps = config.num_speculative_tokens
        draft = (_token_inputs("drafter", max_bs * topk, config, steps=steps)
                 + _request_inputs("drafter", max_bs))
        draft += [
            graph_input("drafter", "topk_p", "float32", Axis.REQUESTS, max_bs, ZERO, ONLY_ZERO,
                        trailing=(topk,)),
            graph_input("drafter", "topk_index", "int64", Axis.REQUESTS, max_bs, ZERO,
                        ONLY_ZERO, trailing=(topk,), why="stale ids may exceed the vocabulary"),
        ]
        if config.spec_method is not SpecMethod.DRAFT_MODEL:
            draft.append(graph_input("drafter", "hidden_states", config.dtype, Axis.REQUESTS,
                                     max_bs, ZERO, ONLY_ZERO, trailing=(config.hidden_size,)))
        runners.append(BatchRunner("drafter", topk, S, tuple(draft)))
    return runners


def _resolve_speculation(config: EngineSettings) -> dict[str, object]:
    """SGLang's topk / num_draft_tokens rules (the verify width follows from them)."""
    spec = config.spec_method is not SpecMethod.NONE and config.num_speculative_tokens > 0
    topk, drafts = config.speculative_eagle_topk, config.speculative_num_draft_tokens
    if not spec:
        if topk is not None or drafts is not None:
            name = "speculative_eagle_topk" if topk is not None else "speculative_num_draft_tokens"
            raise ConfigError(f"{name}: needs a speculative method and num_speculative_tokens")
        return {}
    k = config.num_speculative_tokens
    topk = 1 if topk is None else topk
    if config.spec_method is SpecMethod.NGRAM and topk != 1:
        raise ConfigError("speculative_eagle_topk: ngram proposes no draft tree (topk must be 1)")
    if drafts is None:
        if topk > 1:
            raise ConfigError("speculative_num_draft_tokens: required when "
                              "speculative_eagle_topk > 1")
        drafts = k + 1
    elif topk == 1 and config.spec_method is not SpecMethod.NGRAM and drafts != k + 1:
        raise ConfigError(
            f"speculative_num_draft_tokens: with topk 1 SGLang verifies num_steps + 1 = {k + 1} "
            f"tokens, got {drafts}")
    return {"speculative_eagle_topk": topk, "speculative_num_draft_tokens": drafts}


class SglangModel:
    """SGLang 0.5.23's decode graph runners, captured per batch size."""

    engine = Engine.SGLANG
    version = "SGLang 0.5.23"
    unit = Unit.REQUESTS
    policies = (LadderPolicy.SGLANG, LadderPolicy.SGLANG_SPEC)

    def resolve(self, config: EngineSettings) -> Mapping[str, object]:
        changes: dict[str, object] = {}
        spec = config.spec_method is not SpecMethod.NONE and config.num_speculative_tokens > 0
        if config.ladder is LadderPolicy.AUTO:
            changes["ladder"] = LadderPolicy.SGLANG_SPEC if spec else LadderPolicy.SGLANG
        if config.cuda_graph_padding is None:
            changes["cuda_graph_padding"] = True
        resolve_common(config, self.engine)
        changes.update(_resolve_speculation(config))
        return changes

    def ladders(self, config: EngineSettings) -> EngineLadders:
        if config.ladder is LadderPolicy.EXPLICIT:
            ladder = explicit_batch_ladder(config)
        else:
            ladder = sglang_ladder(config)
        return EngineLadders(ladder, ladder)

    def components(self, config: EngineSettings, ladders: EngineLadders
                   ) -> tuple[ComponentModel, ...]:
        runners = sglang_runners(config, ladders.runtime.max_size)
        return batch_components(config, ladders.runtime, runners)


SGLANG = SglangModel()
