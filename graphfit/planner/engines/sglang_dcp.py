"""SGLang 0.5.23's decode context parallelism (`--dcp-size` > 1): what graphfit plans, and the
parts it still refuses as not modelled, each with the SGLang source that decides it.

Why a line is plannable: the decode CUDA-graph runner's own buffers do not depend on DCP.
`DecodeInputBuffers.create` (model_executor/runner_utils/buffers.py:132) and
`build_decode_registry` (model_executor/cuda_graph_buffer_registry.py:576) take no DCP input,
and neither does the capture list (`get_batch_sizes_to_capture`,
runner/base_cuda_graph_runner.py:65-110) nor the memory hook's default max_bs
(arg_groups/memory_hook.py:89-188). The rows, dtypes, padding and ladder of a DCP line are
therefore those of the same line without DCP; tests/oracle/test_sglang_dcp_oracle.py runs
SGLang's own runner constructors on DCP lines of an MLA and an MHA model to check it. What
DCP changes that graphfit's plan shows:

* breakable prefill graphs are turned off unless the prefill backend is given
  (`disable_breakable_cudagraph_if_incompatible`, cuda_graph_hook.py:212-216; PrefillInputs.
  dcp in graphfit.planner.engines.sglang_prefill);
* post-capture KV sizing declines (overrides.py:1807-1808): `PostCaptureInputs.dcp_size` in
  graphfit.planner.engines.sglang_post_capture, which decides it for the MHA models graphfit
  plans under DCP (MLA declines anyway, :1809-1810);
* the memory hook's default fraction sees breakable prefill graphs already off: the rule runs
  inside handle_cuda_graph_config (cuda_graph_hook.py:165), before handle_gpu_memory_settings
  (pipeline.py:191, 218; `hook_prefill_inputs` in graphfit.planner.engines.sglang_reserve).

What DCP adds outside the runner's buffers, and how graphfit treats it:

* the per-layer DCP attention metadata (`attn_dcp_metadata`, model_executor/
  forward_batch_info.py:783-786) and the backends' DCP block tables live in the attention
  backend's graph state, which graphfit does not plan for any SGLang line (the oracle stubs
  the backend too);
* the KV pool: per-rank KV heads (`get_num_kv_heads(tp, dcp)`, configs/model_config.py:
  1700-1711, read at kv_cache_configurator.py:1048), the request rows widened into
  `dcp_size` ids (`logical_token_capacity`, :406-415) and the KV event pages of
  `page_size * dcp_size` (overrides.py:210-219) size the pool, which graphfit's plan does
  not size for a pasted line. The request pool every runner is bound by is computed from
  the per-rank rows (`resolve_max_num_reqs(config.max_total_num_tokens)`, :3184-3185, the
  user's --max-total-tokens cap applied to the same rows, :3212, 3096-3105), so graphfit's
  request pool is the same rule as without DCP;
* `--dcp-replicate-q-proj`'s gathered Q weights (model_runner.py:1130-1161) are weights, not
  graph buffers;
* drafts (`_speculation`): the speculative package reads no DCP state and drafts never join
  the DCP group (layers/attention/triton_backend.py:259-261; `get_num_kv_heads` ignores
  `dcp_size` for a draft model, configs/model_config.py:1708-1709), so the draft runners are
  those of the same line without DCP. Every SGLang draft is compared and planned;
  trtllm_mla's refusal of DCP with any draft (attention_registry.py:99-105) is restated;
* the `fi_a2a` communication backend: its FlashInfer MNNVL workspace is allocated at runner
  start (runner/base_runner.py:335-348, layers/dcp/comm.py:399-470) with a size set by the
  device's SM count (FlashInfer's `decode_cp_a2a_workspace_size` -> TensorRT-LLM's
  `computeHelixWorkspaceSizePerRank`, channels = SMs / (2 x groups)) and MNNVL's allocation
  granularity, which graphfit cannot restate; refused as not modelled. Off SM100 SGLang
  refuses fi_a2a there (comm.py:435-448), and so does graphfit on a named GPU. SGLang picks
  fi_a2a by default on SM100 (`_dcp_comm_backend_default`, overrides.py:1373-1396;
  `is_fi_a2a_supported`, utils/common.py:1056-1064), so a line that names no
  `--dcp-comm-backend` is planned only on a named GPU that is not SM100.
"""

from __future__ import annotations

from graphfit.planner.core.enums import SpecMethod
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.sglang_prefill import MLA_ARCHITECTURES

DCP = "--dcp-size > 1 (decode context parallelism)"

def check(config: EngineSettings) -> None:
    """Refuse, as not modelled, a DCP line whose graph memory graphfit cannot restate (module
    docstring); pass every other line, on MLA and MHA models alike."""
    size = config.dcp_size
    if size <= 1:
        return
    _speculation(config)
    backend = config.dcp_comm_backend
    if backend == "fi_a2a" and config.sm100 is False:
        raise ConfigError("SGLang refuses --dcp-comm-backend fi_a2a off SM100 when the runner "
                          "starts: it needs a Blackwell system whose DCP group shares one "
                          "MNNVL domain (layers/dcp/comm.py:435-448, utils/common.py:1056-1064)"
                          "; use --dcp-comm-backend a2a or ag_rs")
    if backend == "fi_a2a":
        raise ConfigError(f"{DCP} with --dcp-comm-backend fi_a2a is not modelled: its "
                          f"FlashInfer MNNVL workspace (layers/dcp/comm.py:399-470, "
                          f"base_runner.py:339-348) depends on the hardware")
    if backend is None and config.sm100 is not False:
        where = "an SM100 GPU" if config.sm100 else "a GPU graphfit cannot name"
        raise ConfigError(f"{DCP}: on {where} SGLang may pick the fi_a2a backend "
                          f"(overrides.py:1373-1396, utils/common.py:1056-1064), whose "
                          f"FlashInfer workspace is not modelled; name a non-SM100 GPU "
                          f"(--gpu-memory-gb H100) or pass --dcp-comm-backend a2a or ag_rs")


def _speculation(config: EngineSettings) -> None:
    """Every SGLang draft is planned under DCP: the speculative package reads no DCP state (no
    `dcp` in sglang/srt/speculative/) and drafts never join the DCP group, so the draft
    runners' buffers are those of the same line without DCP (tests/oracle/
    test_sglang_dcp_oracle.py compares EAGLE / EAGLE3 / NEXTN / FROZEN_KV_MTP, multi-layer
    EAGLE, NGRAM, STANDALONE, DFLASH, DSPARK and UNO); the draft's KV pool (replicated over
    the widened locations, kv_cache_configurator.py:515-522) is not planned for any line.
    trtllm_mla refuses DCP with any draft when its backend is built
    (attention_registry.py:99-105); it serves MLA models only (:96-97), so an unknown decode
    backend on a possible SM100 is not modelled for an MLA (or unknown) model only."""
    if config.spec_method is SpecMethod.NONE:
        return
    decode = config.decode_attention_backend
    if decode == "trtllm_mla":
        raise ConfigError("SGLang refuses trtllm_mla for decode context parallelism with "
                          "speculative decoding when the backend is built: it returns no "
                          "rank-local LSE for the merge (attention_registry.py:99-105); "
                          "select cutedsl_mla")
    mla = config.architecture is None or config.architecture in MLA_ARCHITECTURES
    if decode is None and config.sm100 is not False and mla:  # trtllm_mla serves MLA only
        raise ConfigError(f"{DCP} with a draft is not modelled when the decode backend is "
                          f"unknown: trtllm_mla refuses it (attention_registry.py:99-105); "
                          f"name the backend or the GPU")


__all__ = ["DCP", "check"]
