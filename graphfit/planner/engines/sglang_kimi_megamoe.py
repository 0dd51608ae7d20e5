"""Kimi-K3's MegaMoE rows against SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK in SGLang
0.5.23 (issue 23, s64k). Paths under sglang/srt/.

Under `--moe-a2a-backend megamoe` (after Waterfill), Kimi-K3's MoE block sends every batch
through MegaMoE: its non-mega fallback is wrong for scattered tokens (models/kimi_k3.py:
559-568, 1137-1144). Each call asserts its rows <= the budget before it sizes the DeepGEMM
buffer with it (:794-833). The rows are what this rank holds: the SP-MoE shard, the DP-local
batch, or the whole batch (:433-446, 813-815). SGLang's start-up check does not cover this:
Kimi-K3 is not in MEGA_MOE_NO_FALLBACK_ARCHS (arg_groups/mega_moe_hook.py:52-75), so only
NVFP4 experts get it, and its need is the per-rank figure, not the rows.

graphfit bounds the rows from above: a captured decode graph's tokens (max batch x tokens per
request) and the prefill chunk per attention-DP rank (plus the decode batch mixed into it under
`--enable-mixed-chunk`). Where that bound is within the budget, no call can assert, and the line
is planned as before. Where it is above, a call may assert at capture or on a large prefill,
depending on how the rows are sharded, which graphfit does not restate: not modelled. A budget
of 0 or below is sglang_budget_floor's.

With chunked prefill off (issue 23, s70l) the scheduler admits the first waiting request whole,
even above `--max-prefill-tokens`, and later ones only while their page-ceiled length is below
what is left of it (managers/schedule_policy.py:1627-1633, 938): one prefill holds at most
max(longest prompt, max_prefill_tokens - 1) rows. The longest prompt the scheduler keeps is
`max_req_len` = min(context_len - 1, kv_capacity - 1) (managers/tp_worker.py:567-572,
managers/utils.py:259-289), so context_len - 1 bounds it. Mixed chunks are off without a chunk
(managers/scheduler.py:1376-1378), so no decode rows join a prefill. graphfit bounds the rows by
that and a given prefill capture size; where it does not know the context length (a hub id,
no local config.json: `context_length_read`), the line stays not modelled.
"""

from __future__ import annotations

from collections.abc import Mapping

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.sglang_prefill import chunk_or

# models/kimi_k3.py:3876 (EntryClass); both build KimiK3MoE (:2565, 2806, 3020, 3515)
KIMI_K3 = frozenset({"KimiK3ForConditionalGeneration", "KimiK3LinearForCausalLM"})
ENV = "SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK"


def unchunked_prefill_rows(context_length: int, max_prefill_tokens: int) -> int:
    """The most rows one prefill batch holds with chunked prefill off: the first request whole
    (at most max_req_len <= context_len - 1 tokens, tp_worker.py:567-572), or requests each
    below what is left of --max-prefill-tokens (schedule_policy.py:1627-1633, 938), which sum
    to at most max_prefill_tokens - 1. Each attention-DP rank's scheduler has its own."""
    return max(context_length - 1, max_prefill_tokens - 1)


def rows_bound(config: EngineSettings, changes: Mapping[str, object], speculative: bool,
               decode_graphs: bool, decode_default: int, chunk_default: int) -> int:
    """The most rows one MegaMoE call can get on this line (module docstring)."""
    from graphfit.planner.engines.sglang_megamoe import decode_forward

    max_bs, _, per_request = decode_forward(config, changes, speculative, decode_default)
    rows = 0
    if decode_graphs and config.disaggregation_mode != "prefill":
        rows = max_bs * per_request
    if config.disaggregation_mode != "decode":
        chunk = chunk_or(config.chunked_prefill_size, chunk_default)
        if chunk <= 0:  # no mixed chunk without a chunk (scheduler.py:1376-1378)
            captured = max((*(config.cuda_graph_bs_prefill or ()),
                            config.cuda_graph_max_bs_prefill or 0))
            return max(rows, captured, unchunked_prefill_rows(config.max_model_len,
                                                              config.max_prefill_tokens))
        chunk //= config.attn_dp_size
        rows = max(rows, chunk + (max_bs * per_request if config.enable_mixed_chunk else 0))
    return rows


def problem(config: EngineSettings, changes: Mapping[str, object], *, speculative: bool,
            decode_graphs: bool, decode_default: int, chunk_default: int) -> str | None:
    """`not modelled` where Kimi-K3's MegaMoE rows may pass the budget, or None."""
    from graphfit.planner.engines.sglang_moe_a2a import runtime_backend

    if config.architecture not in KIMI_K3 or runtime_backend(config) != "megamoe":
        return None
    budget = config.megamoe_tokens_per_rank
    if budget <= 0:  # graphfit.planner.engines.sglang_budget_floor
        return None
    if (config.disaggregation_mode != "decode"
            and chunk_or(config.chunked_prefill_size, chunk_default) <= 0
            and not config.context_length_read):
        return (f"{ENV}={budget}: not modelled with chunked prefill off: a prefill may hold "
                f"the context length (models/kimi_k3.py:816-824); give a local model dir")
    rows = rows_bound(config, changes, speculative, decode_graphs, decode_default,
                      chunk_default)
    if rows <= budget:
        return None
    return (f"{ENV}={budget}: not modelled: Kimi-K3's MegaMoE asserts its rows <= it on every "
            f"batch (models/kimi_k3.py:816-824), and this line's may reach {rows}")


def check(config: EngineSettings, changes: Mapping[str, object], *, speculative: bool,
          decode_graphs: bool, decode_default: int, chunk_default: int) -> None:
    """Raise `problem`'s reason."""
    said = problem(config, changes, speculative=speculative, decode_graphs=decode_graphs,
                   decode_default=decode_default, chunk_default=chunk_default)
    if said:
        raise ConfigError(said)


__all__ = ["KIMI_K3", "check", "problem", "rows_bound", "unchunked_prefill_rows"]
