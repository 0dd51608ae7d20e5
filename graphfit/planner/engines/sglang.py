"""SGLang's decode graph runners and their inputs (domain.md §3 "SGLang decode buffers").

The target runner replays decode (width 1) or, with speculative decoding, target verify
(width = speculative_num_draft_tokens); the EAGLE draft runner replays the multi-step draft
(width = topk, out_cache_loc holding one slot per step). Padded rows must not keep stale
values: positions (SGLang #10892, #24401), req_pool_indices and out_cache_loc are zeroed
(row/slot 0 is reserved), seq_lens gets the attention backend's fill value.
"""

from __future__ import annotations

from graphfit.planner.buffers import KEEP, ZERO, Axis, FillKind, FillPolicy
from graphfit.planner.config import EngineConfig
from graphfit.planner.engines.catalogue import BatchBufferSpec, BatchRunner
from graphfit.planner.enums import SpecMethod

SEQ_LEN_FILL = FillPolicy(FillKind.SENTINEL, 1)  # FlashInfer / Triton backends' fill value
_ZERO_ONLY = frozenset({FillKind.ZERO})
_SENTINEL_ONLY = frozenset({FillKind.SENTINEL})


def _token_inputs(max_tokens: int, config: EngineConfig, *, steps: int = 1
                  ) -> list[BatchBufferSpec]:
    out_cache = (steps,) if steps > 1 else ()
    specs = [
        BatchBufferSpec("input_ids", "int64", Axis.TOKENS, max_tokens, KEEP, None,
                        why="token ids of stale rows stay inside the vocabulary"),
        BatchBufferSpec("positions", "int64", Axis.TOKENS, max_tokens, ZERO, _ZERO_ONLY,
                        why="stale positions index rope/attention out of range (#10892, #24401)"),
        BatchBufferSpec("out_cache_loc", "int64", Axis.TOKENS, max_tokens, ZERO, _ZERO_ONLY,
                        trailing=out_cache,
                        why="KV slot 0 is the dummy slot; stale slots overwrite live KV"),
    ]
    if config.multimodal:
        specs.append(BatchBufferSpec("mrope_positions", "int64", Axis.TOKENS, max_tokens, ZERO,
                                     _ZERO_ONLY, leading=(config.mrope_dims,)))
    return specs


def _request_inputs(max_bs: int) -> list[BatchBufferSpec]:
    return [
        BatchBufferSpec("req_pool_indices", "int64", Axis.REQUESTS, max_bs, ZERO, _ZERO_ONLY,
                        why="request slot 0 is reserved; stale slots read freed requests"),
        BatchBufferSpec("seq_lens", "int32", Axis.REQUESTS, max_bs, SEQ_LEN_FILL,
                        _SENTINEL_ONLY, why="padded requests must look like 1-token sequences"),
    ]


def sglang_runners(config: EngineConfig, max_bs: int) -> list[BatchRunner]:
    """The runners SGLang builds for this config; `max_bs` is the ladder's largest size."""
    S = config.max_num_seqs
    width = config.uniform_query_len  # 1 for plain decode, num_draft_tokens for verify
    target = _token_inputs(max_bs * width, config) + _request_inputs(max_bs)
    runners = [BatchRunner("target", width, S, tuple(target))]
    if config.has_drafter:
        topk = config.speculative_eagle_topk or 1
        steps = config.num_speculative_tokens
        draft = _token_inputs(max_bs * topk, config, steps=steps) + _request_inputs(max_bs)
        draft += [
            BatchBufferSpec("topk_p", "float32", Axis.REQUESTS, max_bs, ZERO, _ZERO_ONLY,
                            trailing=(topk,)),
            BatchBufferSpec("topk_index", "int64", Axis.REQUESTS, max_bs, ZERO, _ZERO_ONLY,
                            trailing=(topk,), why="stale ids may exceed the vocabulary"),
        ]
        if config.spec_method is not SpecMethod.DRAFT_MODEL:
            draft.append(BatchBufferSpec("hidden_states", config.dtype, Axis.REQUESTS, max_bs,
                                         ZERO, _ZERO_ONLY, trailing=(config.hidden_size,)))
        runners.append(BatchRunner("drafter", topk, S, tuple(draft)))
    return runners
