"""TensorRT-LLM's PyTorch model engine inputs for generation graphs (domain.md §4).

A generation batch of bs requests carries bs * (1 + max_draft_len) tokens and is padded with
dummy requests to the next captured batch size. The input buffers are the engine's persistent
[max_num_tokens] / [max_batch_size] tensors, shared with eager (context and oversize) batches,
which is why a graph batch whose padded tokens exceed max_num_tokens goes short (#5076).
TensorRT-LLM fills padded rows from its dummy requests, so fills are not audited here.
"""

from __future__ import annotations

from graphfit.planner.buffers import ZERO, Axis
from graphfit.planner.config import EngineConfig
from graphfit.planner.engines.catalogue import BatchBufferSpec, BatchRunner


def trtllm_runners(config: EngineConfig, max_bs: int) -> list[BatchRunner]:
    """One runner (the target; one-model drafters run inside its graph)."""
    S, T, q = config.max_num_seqs, config.max_num_batched_tokens, config.uniform_query_len
    k = config.num_speculative_tokens
    specs = [
        BatchBufferSpec("input_ids", "int32", Axis.TOKENS, T, ZERO),
        BatchBufferSpec("position_ids", "int32", Axis.TOKENS, T, ZERO),
        BatchBufferSpec("seq_slots", "int32", Axis.REQUESTS, S, ZERO),
        BatchBufferSpec("num_cached_tokens", "int32", Axis.REQUESTS, S, ZERO),
    ]
    if k:
        specs.append(BatchBufferSpec("draft_tokens", "int32", Axis.REQUESTS, S, ZERO,
                                     trailing=(k,)))
    gen_requests = min(S, T // q)
    return [BatchRunner("target", q, gen_requests, tuple(specs), eager_tokens=T,
                        eager_requests=S)]
