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
* the `fi_a2a` communication backend (issue 23 s47d): planned where graphfit can tell SGLang
  starts it. Nothing the graph runners hold reads the backend (forward_mla.py:816-827 picks
  the reduce at run time; `_dcp_fi_a2a_lse_reduce`, layers/dcp/comm.py:540-599, allocates its
  staging tensors per call), so the plan is that of the same line with a2a. Its FlashInfer
  MNNVL workspace is allocated in the runner's warm-up before capture (base_runner.py:
  257-268, 335-348; layers/dcp/comm.py:399-470), outside the graphs, after the KV pool is
  sized, so out of the memory left for activations and graphs; graphfit shows its size
  (`workspace_bytes`, FlashInfer 0.6.17, the version SGLang 0.5.23 checks for,
  kernels/ops/layernorm/muse_spark_rmsnorm_nvfp4_quant.py:197-198). SGLang's default is
  fi_a2a on SM100 when the TP ranks per node divide by --dcp-size or the GPU is on an NVLink
  fabric (`_dcp_comm_backend_default`, overrides.py:1373-1396; `is_fi_a2a_supported`,
  utils/common.py:1038-1064), else a2a; the runner refuses fi_a2a outside that
  (layers/dcp/comm.py:435-448). SGLang's fabric probe (`is_mnnvl_fabric_device`,
  utils/common.py:1038-1053) answers True for a device named GB200 / GB300, else asks NVML:
  graphfit reads it as SglangOptions.mnnvl_fabric (True from a GB200 / GB300 name, or given in a
  config file, issue 23 s55k), so a line whose TP per node does not divide by --dcp-size on
  SM100 is planned with fi_a2a on a fabric, with a2a (default) or refused (fi_a2a named)
  where the fabric is given false, and stays not modelled where it is unknown, as does any
  line with fi_a2a possible on a GPU graphfit cannot name.
"""

from __future__ import annotations

from graphfit.planner.core.enums import SpecMethod
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.sglang_arch_overrides import KIMI_K3
from graphfit.planner.engines.sglang_prefill import MLA_ARCHITECTURES

DCP = "--dcp-size > 1 (decode context parallelism)"

def check(config: EngineSettings) -> None:
    """Refuse, as not modelled, a DCP line whose graph memory graphfit cannot restate (module
    docstring); pass every other line, on MLA and MHA models alike."""
    size = config.dcp_size
    if size <= 1:
        return
    _speculation(config)
    _kimi_k3_dspark(config)
    given = config.dcp_comm_backend
    if given == "fi_a2a" and config.sm100 is False:
        raise ConfigError("SGLang refuses --dcp-comm-backend fi_a2a off SM100 when the runner "
                          "starts: it needs a Blackwell system whose DCP group shares one "
                          "MNNVL domain (layers/dcp/comm.py:435-448, utils/common.py:1056-1064)"
                          "; use --dcp-comm-backend a2a or ag_rs")
    if given not in (None, "fi_a2a"):
        return
    if config.sm100 is None:
        raise ConfigError(f"{DCP}: on a GPU graphfit cannot name SGLang may pick or start the "
                          f"fi_a2a backend only on SM100 (overrides.py:1373-1396, "
                          f"utils/common.py:1056-1064): not modelled; name the GPU "
                          f"(--gpu-memory-gb B200) or pass --dcp-comm-backend a2a or ag_rs")
    if config.sm100 and not _divides(config):
        fabric = config.mnnvl_fabric
        if fabric is None:
            picked = "starts" if given else "picks"
            # one CLI error line (<= 200 characters, issue 23 s60k: the option's name whole)
            raise ConfigError(f"DCP not modelled: {config.tp_size // _node_groups(config)} TP "
                              f"ranks/node, --dcp-size {size}: SGLang {picked} fi_a2a only on an "
                              f"NVLink fabric (utils/common.py:1038-1064), unknown: set "
                              f"mnnvl_fabric in a config file or name a GB200 / GB300")
        if given and not fabric:  # the runner's start check (issue 23 s55k)
            raise ConfigError(f"SGLang refuses --dcp-comm-backend fi_a2a when the runner "
                              f"starts: it needs a Blackwell system whose DCP group shares one "
                              f"MNNVL domain (layers/dcp/comm.py:435-448): no fabric and "
                              f"{config.tp_size // _node_groups(config)} TP ranks per node do "
                              f"not divide by --dcp-size {size}; use --dcp-comm-backend a2a or "
                              f"ag_rs")


def _node_groups(config: EngineSettings) -> int:
    """`max(nnodes // pp_size, 1)` of `is_fi_a2a_supported` (utils/common.py:1062)."""
    return max(config.nnodes // config.pp_size, 1)


def _divides(config: EngineSettings) -> bool:
    """`tp_size_per_node % dcp_size == 0` (utils/common.py:1062-1064)."""
    return (config.tp_size // _node_groups(config)) % config.dcp_size == 0


def fi_a2a_supported(config: EngineSettings) -> bool:
    """`is_fi_a2a_supported` (utils/common.py:1056-1064): SM100, and the GPU on an NVLink
    fabric (`mnnvl_fabric`: a GB200 name, or given) or the TP ranks per node dividing by
    --dcp-size. An unknown fabric counts as none here; `check` refuses where it decides."""
    return bool(config.sm100) and (config.mnnvl_fabric is True or _divides(config))


def comm_backend(config: EngineSettings) -> str | None:
    """The DCP communication backend SGLang resolves for a line `check` passes
    (`_dcp_comm_backend_default`, overrides.py:1373-1396): the given one, else fi_a2a where
    `fi_a2a_supported`, else a2a (a CUDA or ROCm GPU); None without DCP."""
    if config.dcp_size <= 1:
        return None
    if config.dcp_comm_backend is not None:
        return config.dcp_comm_backend
    return "fi_a2a" if fi_a2a_supported(config) else "a2a"


# FlashInfer 0.6.17's DCP all-to-all (data/csrc/nv_internal/tensorrt_llm/kernels/
# helixAllToAll.cu, from TensorRT-LLM's Helix kernel):
FIFO_BYTES = 4 * 128 * 1024  # HELIX_FIFO_DEPTH x HELIX_FIFO_ENTRY_BYTES, :50-52
FIFO_INFO_BYTES = 256  # sizeof(HelixFifoInfo): two int64 under ALIGN_256, :40-43
GROUPS_PER_BLOCK = 8  # MAX_GROUP_COUNT_PER_BLOCK, moeCommKernelsCommon.h:64
B200_SMS = 148  # the SM count graphfit shows the workspace for (NVIDIA B200)


def channels(dcp_size: int, sms: int) -> int:
    """`computeHelixMaxChannelCount` (helixAllToAll.cu:581-593): the SMs over two blocks
    (send, receive) per channel of ceil(cp / 8) groups, at least 1. DCP_A2A_CHANNEL_COUNT
    picks the channels a call uses, not the workspace's (trtllm_dcp_alltoall.cu:151-153)."""
    if dcp_size < 1 or sms < 1:
        raise ValueError(f"dcp_size and sms must be >= 1, got {dcp_size}, {sms}")
    blocks = 2 * -(-dcp_size // GROUPS_PER_BLOCK)
    return max(sms // blocks, 1)


def workspace_bytes(dcp_size: int, sms: int) -> int:
    """FlashInfer's `decode_cp_a2a_workspace_size` per rank (comm/dcp_alltoall.py:117-136 ->
    `computeHelixWorkspaceSizePerRank`, helixAllToAll.cu:595-606): a FIFO and a sender and a
    receiver FIFO record per (peer, channel). `MnnvlMemory` then rounds it up to the
    driver's allocation granularity (comm/mnnvl.py:483-484), which graphfit does not know."""
    pairs = dcp_size * channels(dcp_size, sms)
    return pairs * (FIFO_BYTES + 2 * FIFO_INFO_BYTES)


def shown(config: EngineSettings) -> tuple[str, str] | None:
    """The plan's line for the resolved DCP backend: fi_a2a's workspace, else None."""
    if comm_backend(config) != "fi_a2a":
        return None
    size = workspace_bytes(config.dcp_size, B200_SMS)
    return ("dcp_comm_backend",
            f"fi_a2a: FlashInfer MNNVL workspace {size / 2**20:.1f} MiB per rank on a "
            f"{B200_SMS}-SM GPU (B200; dcp_size x SMs // (2 x ceil(dcp_size / 8)) x "
            f"{FIFO_BYTES + 2 * FIFO_INFO_BYTES} B, helixAllToAll.cu:581-606), allocated "
            f"before capture out of the memory for activations and graphs "
            f"(base_runner.py:335-348), rounded up to the driver's granularity")


def _kimi_k3_dspark(config: EngineSettings) -> None:
    """Kimi-K3's DCP override with DSPARK (kimi_k3.py:66-82, issue 23 s55k): a ragged verify
    mode other than "static" is SGLang's ValueError, raised while it resolves the line; with
    "static" it only sets `speculative_attention_mode=decode` (verify and draft-extend on the
    cutedsl_mla decode backend, :78-82), which changes no buffer graphfit plans (the DSPARK
    runners are compared with SGLang's on such lines, tests/oracle/
    test_sglang_dcp_fabric_oracle.py). An unknown mode is check_ragged_verify's refusal."""
    if config.architecture not in KIMI_K3 or config.spec_method is not SpecMethod.DSPARK:
        return
    mode = config.ragged_verify_mode
    if mode in ("cap-accept", "compact"):
        raise ConfigError(f"SGLang refuses this line (model_overrides/kimi_k3.py:66-76): "
                          f"Kimi-K3 DCP + DSPARK currently requires SGLANG_RAGGED_VERIFY_MODE="
                          f"static; compact/cap-accept are not validated under DCP (got "
                          f"{mode!r}).")


def _speculation(config: EngineSettings) -> None:
    """Every SGLang draft is planned under DCP: the speculative package reads no DCP state (no
    `dcp` in sglang/srt/speculative/) and drafts never join the DCP group, so the draft
    runners' buffers are those of the same line without DCP (tests/oracle/
    test_sglang_dcp_oracle.py compares EAGLE / EAGLE3 / NEXTN / FROZEN_KV_MTP, multi-layer
    EAGLE, NGRAM, STANDALONE, DFLASH, DSPARK and UNO); the draft's KV pool (replicated over
    the widened locations, kv_cache_configurator.py:515-522) is not planned for any line.
    trtllm_mla refuses DCP with any draft when its backend is built
    (attention_registry.py:99-105); it serves MLA models only (:96-97), so an unknown decode
    backend on a possible SM100 is not modelled for an MLA (or unknown) model only; Kimi-K3's
    DCP override decodes on cutedsl_mla or refuses (kimi_k3.py:84-112, issue 23 s47d)."""
    if config.spec_method is SpecMethod.NONE:
        return
    decode = config.decode_attention_backend
    if decode == "trtllm_mla":
        raise ConfigError("SGLang refuses trtllm_mla for decode context parallelism with "
                          "speculative decoding when the backend is built: it returns no "
                          "rank-local LSE for the merge (attention_registry.py:99-105); "
                          "select cutedsl_mla")
    mla = config.architecture is None or config.architecture in MLA_ARCHITECTURES
    if config.architecture in KIMI_K3:  # its DCP override: cutedsl_mla (kimi_k3.py:84-96)
        return
    if decode is None and config.sm100 is not False and mla:  # trtllm_mla serves MLA only
        raise ConfigError(f"{DCP} with a draft is not modelled when the decode backend is "
                          f"unknown: trtllm_mla refuses it (attention_registry.py:99-105); "
                          f"name the backend or the GPU")


__all__ = ["DCP", "channels", "check", "comm_backend", "fi_a2a_supported", "shown",
           "workspace_bytes"]
