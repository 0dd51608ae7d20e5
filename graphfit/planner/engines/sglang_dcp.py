"""SGLang 0.5.23's decode context parallelism (`--dcp-size` > 1): what graphfit plans, and the
parts it still refuses as not modelled, each with the SGLang source that decides it.

Why a line is plannable: the decode CUDA-graph runner's own buffers do not depend on DCP.
`DecodeInputBuffers.create` (model_executor/runner_utils/buffers.py:132) and
`build_decode_registry` (model_executor/cuda_graph_buffer_registry.py:576) take no DCP input,
and neither does the capture list (`get_batch_sizes_to_capture`,
runner/base_cuda_graph_runner.py:65-110) nor the memory hook's default max_bs
(arg_groups/memory_hook.py:89-188). The rows, dtypes, padding and ladder of a DCP line are
therefore those of the same line without DCP; tests/oracle/test_sglang_dcp_oracle.py runs
SGLang's own runner constructors on DCP lines to check it. What DCP changes that graphfit's
plan shows:

* breakable prefill graphs are turned off unless the prefill backend is given
  (`disable_breakable_cudagraph_if_incompatible`, cuda_graph_hook.py:212-216; PrefillInputs.
  dcp in graphfit.planner.engines.sglang_prefill);
* post-capture KV sizing declines (overrides.py:1807-1808); graphfit plans DCP on MLA models
  only, for which it declines anyway (:1808-1809).

What DCP adds outside the runner's buffers, and how graphfit treats it:

* the per-layer DCP attention metadata (`attn_dcp_metadata`, model_executor/
  forward_batch_info.py:783-786) and the backends' DCP block tables live in the attention
  backend's graph state, which graphfit does not plan for any SGLang line (the oracle stubs
  the backend too);
* the per-rank KV rows (`get_num_kv_heads(tp, dcp)`, kv_cache_configurator.py:1048), the
  request rows widened into `dcp_size` ids (:406-415) and the KV event pages of
  `page_size * dcp_size` (overrides.py:210-219) concern the KV pool, which graphfit's plan does
  not size for a pasted line; its request pool is --max-running-requests, as without DCP;
* `--dcp-replicate-q-proj`'s gathered Q weights (model_runner.py:1130-1161) are weights, not
  graph buffers;
* refused as not modelled (`check`): a non-MLA model (the MHA DCP path: KV heads per rank and
  the post-capture rule, which graphfit does not restate); a draft other than EAGLE / NEXTN
  (`_speculation`: those drafts are planned, and trtllm_mla's refusal of DCP with a draft,
  attention_registry.py:99-105, restated); the
  `fi_a2a` communication backend, whose FlashInfer MNNVL workspace is allocated at runner
  start (runner/base_runner.py:339-348, layers/dcp/comm.py:399-470) with a size graphfit cannot
  restate; off SM100 SGLang refuses fi_a2a there (comm.py:435-448), and so does graphfit on a
  named GPU. SGLang picks fi_a2a by default on SM100 (`_dcp_comm_backend_default`,
  overrides.py:1373-1396; `is_fi_a2a_supported`, utils/common.py:1056-1064), so a line that
  names no `--dcp-comm-backend` is planned only on a named GPU that is not SM100.
"""

from __future__ import annotations

from graphfit.planner.core.enums import SpecMethod
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.sglang_prefill import MLA_ARCHITECTURES

DCP = "--dcp-size > 1 (decode context parallelism)"


def check(config: EngineSettings) -> None:
    """Refuse, as not modelled, a DCP line whose graph memory graphfit cannot restate (module
    docstring); pass every other line."""
    size = config.dcp_size
    if size <= 1:
        return
    if config.architecture not in MLA_ARCHITECTURES:
        raise ConfigError(f"{DCP} on a non-MLA model is not modelled: its per-rank KV heads "
                          f"(kv_cache_configurator.py:1048) and post-capture rule "
                          f"(overrides.py:1807) are not restated")
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
    """An EAGLE or NEXTN (graphfit's mtp) draft is planned: the speculative package reads no
    DCP state (no `dcp` in sglang/srt/speculative/), so its draft runners' buffers are those
    of the same line without DCP; the draft's KV pool (replicated over the widened locations,
    kv_cache_configurator.py:515-522) is not planned for any line. trtllm_mla refuses the
    pair when its backend is built (attention_registry.py:99-105). Other drafts are not
    compared, so not modelled."""
    method = config.spec_method
    if method is SpecMethod.NONE:
        return
    if method not in (SpecMethod.EAGLE, SpecMethod.MTP) or config.multi_layer_eagle:
        raise ConfigError(f"{DCP} with a {method.value} draft is not modelled (only EAGLE's "
                          f"and NEXTN's draft runners are compared under DCP); its draft pool "
                          f"spans the widened KV locations (kv_cache_configurator.py:515-522)")
    decode = config.decode_attention_backend
    if decode == "trtllm_mla":
        raise ConfigError("SGLang refuses trtllm_mla for decode context parallelism with "
                          "speculative decoding when the backend is built: it returns no "
                          "rank-local LSE for the merge (attention_registry.py:99-105); "
                          "select cutedsl_mla")
    if decode is None and config.sm100 is not False:
        raise ConfigError(f"{DCP} with EAGLE is not modelled when the decode backend is "
                          f"unknown: trtllm_mla refuses it (attention_registry.py:99-105); "
                          f"name the backend or the GPU")


__all__ = ["DCP", "check"]
