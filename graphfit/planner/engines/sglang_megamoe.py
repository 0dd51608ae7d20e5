"""SGLang 0.5.23's DeepGEMM MegaMoE all-to-all backend (`--moe-a2a-backend megamoe`): its
start-up rules, restated so graphfit starts exactly the lines SGLang starts.

As the decode and prefill graph runners see it, megamoe is one more live backend: the runners
gather the attention input (`require_attn_tp_gather`, utils/common.py:4133-4156), so the
captured batch sizes are multiples of the attention-TP width, and its prefill graphs stay on
(cuda_graph_hook.py:223-229). It adds no memory reserve (memory_hook.py:317 and 391-397 count
DeepEP only) and no buffer of its own. What it adds are start-up checks:

* `check_mega_moe_compat` (arg_groups/mega_moe_hook.py:27-48, run first, pipeline.py:47-49):
  no two-batch / single-batch overlap; a CUDA SM90 or SM100 GPU (ROCm's FlyDSL path is not
  modelled: graphfit refuses it).
* `validate_mega_moe_token_budget_for_model` (:78-91, run after speculative resolution,
  pipeline.py:320-324): for a model class with no fused-MoE fallback
  (`MEGA_MOE_NO_FALLBACK_ARCHS`, :52-64) or NVFP4 experts (:67-75), the largest decode /
  verify forward and each rank's chunked-prefill share must fit
  SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK (default 8192, environ.py:1470),
  `validate_mega_moe_token_budget` (:161-256).
* `--moe-runner-backend megamoe` is an alias: the backend becomes megamoe and the runner
  auto (`handle_moe_runner_backend_alias`, :259-276).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings

# mega_moe_hook.py:52-64
NO_FALLBACK_ARCHS = frozenset({
    "DeepseekV4ForCausalLM", "InternS2PreviewForConditionalGeneration", "MellumForCausalLM",
    "Qwen2MoeForCausalLM", "Qwen3MoeForCausalLM", "Qwen3NextForCausalLM",
    "Qwen3VLMoeForConditionalGeneration", "Qwen3_5MoeForCausalLM",
    "Qwen3_5MoeForConditionalGeneration",
})
NVFP4_METHODS = ("modelopt_fp4", "minimax_m3_nvfp4")  # mega_moe_hook.py:70-73
DEFAULT_TOKENS_PER_RANK = 8192  # SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK
ENV = "SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK"


def needs_token_budget(architecture: str, quant_algo: str | None,
                       quant_method: str | None) -> bool:
    """`mega_moe_needs_token_budget` (mega_moe_hook.py:67-75): a no-fallback model class, or
    NVFP4 experts (`--quantization` modelopt_fp4 / minimax_m3_nvfp4, or "FP4" inside the
    checkpoint's `quantization_config.quant_algo`, case as written)."""
    nvfp4 = quant_method in NVFP4_METHODS or "FP4" in str(quant_algo or "")
    return architecture in NO_FALLBACK_ARCHS or nvfp4


def _ceil_align(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment


def decode_tokens_per_rank(decode_max_bs: int, max_running_requests: int | None,
                           tp_size: int, attn_dp_size: int, tokens_per_request: int) -> int:
    """`mega_moe_decode_tokens_per_rank` (mega_moe_hook.py:94-108): the resolved decode
    max_bs, capped by the per-rank request pool aligned to the attention-TP width when
    max_running_requests is set (a speculative line's 48 counts: the speculative hook sets it
    before the check), times the draft tokens per request under speculation."""
    if max_running_requests is not None:
        per_rank = _ceil_align(max_running_requests // attn_dp_size, tp_size // attn_dp_size)
        decode_max_bs = min(decode_max_bs, per_rank)
    return decode_max_bs * tokens_per_request


def prefill_tokens_per_rank(chunked_prefill_size: int, tp_size: int, attn_dp_size: int,
                            attn_cp_size: int) -> tuple[int, str]:
    """Each rank's effective prefill token budget (mega_moe_hook.py:199-239) and how it was
    split. `chunked_prefill_size` is SGLang's value at the check, *after* attention DP divided
    it once (parallel_hook.py:326-332 runs first, pipeline.py:274, 324): the check divides it
    by attn_dp_size again and aligns to the attention-TP width. Prefill context parallelism is
    refused by graphfit's readers (the :199-205 branch)."""
    if attn_dp_size > 1:  # attn_dp_enabled_of
        local = chunked_prefill_size // attn_dp_size
        alignment = max(tp_size // attn_dp_size // attn_cp_size, 1)
        how = f"attn_dp_size {attn_dp_size}"
    else:
        local = chunked_prefill_size
        alignment = max(tp_size // attn_cp_size, 1)
        how = "no partition"
    if local <= 0:
        raise ConfigError(f"megamoe: each rank's chunked prefill share is {local} tokens "
                          f"({chunked_prefill_size} over {how}); SGLang needs it positive "
                          f"(mega_moe_hook.py:225-233)")
    return _ceil_align(local, alignment), f"{how}, aligned to {alignment}"


class _Megamoe(Protocol):
    @property
    def moe_a2a_backend(self) -> str: ...
    @property
    def two_batch_overlap(self) -> bool: ...
    @property
    def sm90(self) -> bool | None: ...
    @property
    def sm100(self) -> bool | None: ...


def check_compat(config: _Megamoe) -> None:
    """`check_mega_moe_compat` (mega_moe_hook.py:27-48) for a megamoe line."""
    if config.moe_a2a_backend != "megamoe":
        return
    if config.two_batch_overlap:
        raise ConfigError("megamoe has no two-batch overlap decomposition: SGLang refuses "
                          "--enable-two-batch-overlap (mega_moe_hook.py:31-37)")
    if config.sm90 or config.sm100:
        return
    if config.sm90 is None and config.sm100 is None:
        raise ConfigError("megamoe needs a CUDA SM90 or SM100 GPU (mega_moe_hook.py:39-48): "
                          "name it (--gpu-memory-gb H100 / H200 / B200 / GB200) or set sm90 / "
                          "sm100 in a config file")
    raise ConfigError("megamoe needs a CUDA SM90 or SM100 GPU, SGLang refuses this one "
                      "(mega_moe_hook.py:39-48; ROCm's FlyDSL MegaMoE is not modelled)")


def check_budget(*, architecture: str | None, quant_algo: str | None,
                 quant_method: str | None, budget: int, disaggregation_mode: str,
                 decode_tokens: int, prefill: tuple[int, int, int, int] | None,
                 dynamic_pp: bool = False) -> None:
    """`validate_mega_moe_token_budget_for_model` / `validate_mega_moe_token_budget`
    (mega_moe_hook.py:78-91, 161-256). `decode_tokens`: `decode_tokens_per_rank`;
    `prefill`: (chunked_prefill_size as the check sees it, tp, attn_dp, attn_cp), None when
    chunked prefill is off (-1: refused for these models, :191-197); `dynamic_pp`: --pp-size > 1
    with --enable-dynamic-chunking."""
    nvfp4 = needs_token_budget("", quant_algo, quant_method)
    if architecture is None and not nvfp4:
        raise ConfigError("megamoe: whether SGLang bounds the tokens per rank depends on the "
                          "model class (mega_moe_hook.py:52-91); graphfit needs the model's "
                          "config.json (--model-path DIR) or --architecture")
    label = architecture or "an NVFP4 MoE checkpoint"
    if not needs_token_budget(architecture or "", quant_algo, quant_method):
        return
    if disaggregation_mode != "prefill" and budget < decode_tokens:
        raise ConfigError(f"megamoe: {label}: {decode_tokens} decode / verify tokens per rank "
                          f"> {ENV}={budget} (mega_moe_hook.py:171-183)")
    if disaggregation_mode == "decode":
        return  # :184-186
    if dynamic_pp:  # PP with --enable-dynamic-chunking skips the prefill check (:188-189)
        return
    if prefill is None:
        raise ConfigError(f"megamoe: {label} needs chunked prefill on (--chunked-prefill-size "
                          f"> 0, mega_moe_hook.py:191-197)")
    required, how = prefill_tokens_per_rank(*prefill)
    if budget < required:
        raise ConfigError(f"megamoe: {label}: {required} prefill tokens per rank ({how}) > "
                          f"{ENV}={budget} (mega_moe_hook.py:240-256)")


SPEC_MAX_RUNNING_REQUESTS = 48  # speculative_hook.py:438-442 (and its siblings)


class _Decode(Protocol):
    @property
    def cudagraph_capture_sizes(self) -> tuple[int, ...] | None: ...
    @property
    def max_cudagraph_capture_size(self) -> int | None: ...
    @property
    def max_num_seqs(self) -> int | None: ...
    @property
    def speculative_num_draft_tokens(self) -> int | None: ...


def decode_forward(config: _Decode, changes: Mapping[str, object], speculative: bool,
                   decode_default: int) -> tuple[int, int | None, int]:
    """(decode max_bs, max_running_requests, tokens per request) as SGLang's resolving view
    holds them when its late all-to-all checks run (megamoe's, DeepEP v2's): max_bs is
    max(--cuda-graph-bs-decode) (memory_hook.py:202-207), else the given or overridden max,
    else the memory hook's default (`decode_default`) clamped to a given
    --max-running-requests; the request cap is the given one or, with speculation, the
    speculative hook's 48 (speculative_hook.py:438-442); tokens per request the draft tokens
    under speculation, else 1. `changes`: what SglangModel.resolve set so far."""
    given_requests = config.max_num_seqs
    if config.cudagraph_capture_sizes:
        max_bs = max(config.cudagraph_capture_sizes)
    else:
        set_max = changes.get("max_cudagraph_capture_size", config.max_cudagraph_capture_size)
        if isinstance(set_max, int):
            max_bs = set_max
        else:
            max_bs = (decode_default if given_requests is None
                      else min(decode_default, given_requests))
    requests = given_requests
    if requests is None and speculative:
        requests = SPEC_MAX_RUNNING_REQUESTS
    drafts = changes.get("speculative_num_draft_tokens", config.speculative_num_draft_tokens)
    per_request = (drafts if isinstance(drafts, int) and drafts else 1) if speculative else 1
    return max_bs, requests, per_request


def check_line(config: EngineSettings, changes: Mapping[str, object], speculative: bool,
               decode_default: int, chunk_default: int, hook_megamoe: bool = False,
               minimax_nvfp4: bool = False) -> None:
    """megamoe's token budget for a line as SglangModel.resolve sees it: `config` as given,
    `changes` what resolution set so far. The decode max_bs is the one SGLang's
    cuda_graph_config holds at the check: max(--cuda-graph-bs-decode) (memory_hook.py:
    202-207), else the given or override max, else the memory hook's default
    (`decode_default`) clamped to a given --max-running-requests; the request cap is the given
    one or, with speculation, the speculative hook's 48. `chunk_default`: the chunked prefill
    size SGLang picks by GPU memory (memory_hook.py:89-180). `hook_megamoe`: a model
    override hook wrote megamoe (MiniMax-M3 NVFP4 on Blackwell, graphfit.planner.engines.
    sglang_minimax_kv.hook_writes_megamoe; issue 23 s54m). `minimax_nvfp4`: a MiniMax-M3
    served as minimax_m3_nvfp4 (the hook copies it into --quantization on any GPU,
    minimax_m3.py:18-34, 46-54), whose NVFP4 experts need the budget (mega_moe_hook.py:
    67-75) under megamoe, written or given."""
    if config.moe_a2a_backend != "megamoe" and not hook_megamoe:
        return
    max_bs, requests, per_request = decode_forward(config, changes, speculative,
                                                   decode_default)
    decode = decode_tokens_per_rank(max_bs, requests, config.tp_size, config.attn_dp_size,
                                    per_request)
    from graphfit.planner.engines.sglang_prefill import chunk_or

    chunk = chunk_or(config.chunked_prefill_size, chunk_default)
    if config.attn_dp_size > 1:  # handle_data_parallelism (parallel_hook.py:326-332)
        chunk //= config.attn_dp_size
    check_budget(architecture=config.architecture, quant_algo=config.quant_algo,
                 quant_method="minimax_m3_nvfp4" if minimax_nvfp4 else config.quant_method,
                 budget=config.megamoe_tokens_per_rank,
                 disaggregation_mode=config.disaggregation_mode, decode_tokens=decode,
                 prefill=(chunk, config.tp_size, config.attn_dp_size, config.attn_cp_size)
                 if chunk > 0 else None,  # chunking off: refused (mega_moe_hook.py:191-197)
                 dynamic_pp=config.pp_size > 1 and config.dynamic_chunking)


__all__ = ["DEFAULT_TOKENS_PER_RANK", "ENV", "NO_FALLBACK_ARCHS", "NVFP4_METHODS",
           "SPEC_MAX_RUNNING_REQUESTS", "check_budget", "check_compat", "check_line",
           "decode_forward", "decode_tokens_per_rank", "needs_token_budget",
           "prefill_tokens_per_rank"]
