"""SGLang 0.5.23's DeepEP v2 all-to-all backend (`--moe-a2a-backend deepep_v2`): its start-up
rules, restated so graphfit starts exactly the lines SGLang starts.

As the graph runners see it, deepep_v2 is one more live backend: they gather the attention
input (`require_attn_tp_gather`, utils/common.py:4133-4156), so captured batch sizes are
multiples of the attention-TP width. It adds no memory reserve (memory_hook.py:317 and
391-397 count DeepEP v1 only). Its start-up rules (`handle_a2a_moe`, arg_groups/moe_hook.py:
400-457, then the late checks pipeline.py:374-375):

* the model class must be in the DeepEP v2 registry (`validate_deepep_v2_model_architecture`,
  moe_hook.py:709-731; the built-in classes configs/moe_model_registry.py:20-28 -- a model
  package may register more, which graphfit cannot see);
* the MoE runner resolves auto to deep_gemm and refuses any other (:403-419); no two-batch /
  single-batch overlap (:420-425);
* prefill graphs are off (:436-443). That runs after the memory hook (pipeline.py:218, 295),
  so a prefill backend given on the line is still counted in SGLang's default
  mem_fraction_static (deepep_v2 is not prefill-validated, so without one the graphs were
  already off, cuda_graph_hook.py:223-229);
* the draft may not run deepep_v2, given or inherited by a non-NGRAM algorithm (:624-638);
* `validate_deepep_v2_dispatch_token_budget` (:679-707): each rank's prefill dispatch (the
  chunk after attention DP, split over the attention-TP ranks, :641-653; with chunking off
  --max-prefill-tokens, undivided, `prefill_ceiling`, issue 23 s69a) and the largest
  decode / verify graph (:656-676) must fit SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK
  (default 128, environ.py:1441).
"""

from __future__ import annotations

from collections.abc import Mapping

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.sglang_megamoe import decode_forward
from graphfit.planner.engines.sglang_prefill import chunk_or

# configs/moe_model_registry.py:20-28 (none registers its own prefill dispatch sizing)
REGISTERED = ("DeepseekV3ForCausalLM", "DeepseekV4ForCausalLM", "Qwen3MoeForCausalLM",
              "Glm5NextForConditionalGeneration", "GlmMoeDsaForCausalLM",
              "MiMoV2ForCausalLM", "MiMoV2FlashForCausalLM")
DEFAULT_TOKENS_PER_RANK = 128  # environ.py:1441
ENV = "SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK"


def prefill_dispatch_tokens(chunk: int, tp_size: int, attn_dp_size: int) -> int:
    """`required_deepep_v2_prefill_tokens_per_rank` (moe_hook.py:641-653) with the default
    policy: the prefill-buffer ceiling (chunked_prefill_size as the check sees it, after
    attention DP divided it, parallel_hook.py:326-332) over the ranks one DP chunk is
    scattered across, rounded up."""
    return -(-chunk // max(1, tp_size // attn_dp_size))


def prefill_ceiling(chunk: int, max_prefill_tokens: int) -> int:
    """The prefill-buffer ceiling `required_deepep_v2_prefill_tokens_per_rank` scatters
    (moe_hook.py:644): `max_prefill_buffer_tokens` is the chunk where chunking is on and 0
    where it is off (overrides.py:1872-1876), and then `--max-prefill-tokens` stands in, as
    given: no attention-DP division and no floor (issue 23, s69a). Why: with chunking off an
    unchunked prefill batch is bounded by --max-prefill-tokens alone, so SGLang sizes the
    dispatch by it rather than refusing the line."""
    return chunk if chunk > 0 else max_prefill_tokens


def decode_dispatch_tokens(max_bs: int, requests: int | None, attn_dp_size: int,
                           per_request: int) -> int:
    """`_decode_graph_dispatch_tokens_per_rank` (moe_hook.py:656-676) for a line that captures
    decode graphs: max_bs, capped by the per-rank request pool (not aligned, unlike megamoe's
    rule) when max_running_requests is set, times the draft tokens per request."""
    if requests is not None:
        max_bs = min(max_bs, max(1, requests // attn_dp_size))
    return max_bs * per_request


def check(config: EngineSettings, changes: Mapping[str, object], *, speculative: bool, ngram: bool,
          decode_graphs: bool, decode_default: int, chunk_default: int) -> None:
    """Every deepep_v2 start-up rule above for one line (`changes`: what SglangModel.resolve
    set so far; `decode_graphs`: whether the line captures decode graphs)."""
    if config.moe_a2a_backend != "deepep_v2":
        return
    arch = config.architecture
    if arch is None:
        raise ConfigError("deepep_v2: SGLang allows it only for registered model classes "
                          "(moe_hook.py:709-731); graphfit needs the model's config.json "
                          "(--model-path DIR) or --architecture")
    if arch not in REGISTERED:
        raise ConfigError(f"deepep_v2: {arch} is not registered for DeepEP v2 (configs/"
                          f"moe_model_registry.py:20-28): SGLang refuses (moe_hook.py:"
                          f"722-731)")
    if config.moe_runner_backend not in ("auto", "deep_gemm"):
        raise ConfigError(f"deepep_v2 runs only --moe-runner-backend deep_gemm (auto resolves "
                          f"to it), not {config.moe_runner_backend}: SGLang refuses "
                          f"(moe_hook.py:403-419)")
    if config.two_batch_overlap:
        raise ConfigError("deepep_v2 has no two-batch overlap hooks: SGLang refuses "
                          "--enable-two-batch-overlap (moe_hook.py:420-425)")
    if speculative and not ngram and config.speculative_moe_a2a_backend is None:
        raise ConfigError("deepep_v2: the draft inherits the target's backend and DeepEP v2 "
                          "is not validated for drafts; SGLang refuses (moe_hook.py:624-638): "
                          "give --speculative-moe-a2a-backend")
    budget = config.deepep_v2_dispatch_tokens_per_rank
    if config.disaggregation_mode != "decode":
        chunk = chunk_or(config.chunked_prefill_size, chunk_default)
        if config.attn_dp_size > 1:  # handle_data_parallelism (parallel_hook.py:326-332)
            chunk //= config.attn_dp_size
        need = prefill_dispatch_tokens(prefill_ceiling(chunk, config.max_prefill_tokens),
                                       config.tp_size, config.attn_dp_size)
        if need > budget:
            raise ConfigError(f"deepep_v2: {need} prefill dispatch tokens per rank > {ENV}="
                              f"{budget}: SGLang refuses (moe_hook.py:686-696)")
    need = 0  # no decode graph: 0 tokens, still compared (moe_hook.py:660-666, 698; s63k)
    if decode_graphs and config.disaggregation_mode != "prefill":
        max_bs, requests, per_request = decode_forward(config, changes, speculative,
                                                       decode_default)
        need = decode_dispatch_tokens(max_bs, requests, config.attn_dp_size, per_request)
    if need > budget:
        raise ConfigError(f"deepep_v2: the largest decode graph dispatches {need} tokens per "
                          f"rank > {ENV}={budget}: SGLang refuses (moe_hook.py:698-707)")


def prefill_off(backend: str) -> bool:
    """deepep_v2 turns prefill graphs off after the memory hook (moe_hook.py:436-443)."""
    return backend == "deepep_v2"


__all__ = ["DEFAULT_TOKENS_PER_RANK", "ENV", "REGISTERED", "check", "decode_dispatch_tokens",
           "prefill_ceiling", "prefill_dispatch_tokens", "prefill_off"]
