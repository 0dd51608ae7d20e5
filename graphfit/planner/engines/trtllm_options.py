"""`TrtllmOptions`: the inputs only TensorRT-LLM's model reads. See
`graphfit.planner.core.options` for the split between these and the shared `EngineConfig`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.core.options import (
    EngineOptions,
    int_list,
    positive_int,
    sizes,
    true_false,
)
from graphfit.planner.engines.trtllm_features import FeatureSpec
from graphfit.planner.engines.trtllm_ladders import mm_encoder_buckets
from graphfit.planner.engines.trtllm_mm_encoder import InputSpec, mm_input_specs

# PrefillCudaGraphBackend (tensorrt_llm/llmapi/llm_args.py@0004396720:5504-5509):
# disabled (the default), piecewise (torch.compile PiecewiseRunner graphs), breakable
# (BreakableCUDAGraphRunner)
PREFILL_BACKENDS = ("disabled", "piecewise", "breakable")
# `cuda_graph_config.mode` (tensorrt_llm/llmapi/llm_args.py@0004396720:495-498)
GRAPH_MODES = ("decode", "encode")
# `CpType` (tensorrt_llm/mapping.py@b35ac1b643:24-32), lower-cased
CP_TYPES = ("ulysses", "star", "ring", "helix")
# `moe_auto_checkpoint`'s quantizations: which of the two algorithms `resolve_moe_backend`
# tests a checkpoint's quant config sets (graphfit.inputs.trtllm_a2a; w4a16_nvfp4: s66t)
# "other" (s67t): an algorithm that is neither, which the legacy route's get_moe_cls may read
# s68t: the algorithms the legacy route's get_moe_cls tells apart, appended (each is "none"
# to resolve_moe_backend): nvfp4, mxfp4, w4a8_nvfp4_fp8, fp8 (per tensor), w4a8_awq, and
# "modeless" (an algorithm setting none of the quant modes get_moe_cls tests)
AUTO_QUANTIZATIONS = ("none", "fp8_block", "w4a16_nvfp4", "unknown", "other", "nvfp4", "mxfp4",
                      "w4a8_nvfp4_fp8", "fp8", "w4a8_awq", "modeless")

# the checkpoint dtype names `moe_a2a_dtype` takes ("untyped": no dtype key, or null; s70f)
A2A_DTYPES = ("bfloat16", "float16", "float32", "untyped")


@dataclass(frozen=True)
class TrtllmOptions(EngineOptions):
    """TensorRT-LLM (PyTorch backend) inputs graphfit's model reads.

    draft_len_schedule: the speculative config's `draft_len_schedule` thresholds (batch
        sizes); `DecodeCudaGraphConfig._merge_schedule_keys` joins them to the generated
        CUDA-graph batch sizes and forces padding on (graphfit.planner.engines.trtllm, whose
        rules cite the commits tests/oracle/trtllm_reference.py pins). None: no schedule.
    max_beam_width: beams per generation request (`max_beam_width`): the graph runner's
        static rows are batch x beams and `cache_indirection` is allocated per beam.
    parallel_draft: PARD (`decoding_type: PARD`): the target verifies 2 x max_draft_len
        tokens per request (K + 1 accepted + K - 1 mask tokens) instead of 1 + max_draft_len.
    prefill_cuda_graph_backend: `prefill_cuda_graph_backend` (`PrefillCudaGraphBackend`,
        tensorrt_llm/llmapi/llm_args.py@0004396720:5504-5509; the field:
        tensorrt_llm/llmapi/llm_args.py@0004396720:5872-5878): disabled (default), piecewise
        or breakable; the legacy `torch_compile_config.enable_piecewise_cuda_graph: true`
        means piecewise
        (`TorchLlmArgs.normalize_prefill_cuda_graph_config`). On, graphfit plans the
        token-keyed `prefill` component (graphfit.planner.engines.trtllm_prefill).
    prefill_capture_num_tokens: `prefill_capture_num_tokens` (`Optional[List[int]]`; the
        legacy `torch_compile_config.capture_num_tokens`): the token counts to capture, kept
        sorted and unique (`_filter_prefill_capture_num_tokens` sorts and de-duplicates them
        itself, and drops those outside (0, max_num_tokens]). None: TensorRT-LLM's default
        list when a backend is on.
    torch_compile: whether `torch_compile_config` is given (not null). TensorRT-LLM refuses it
        with the breakable backend (`normalize_prefill_cuda_graph_config`: "breakable prefill
        CUDA graph does not support torch_compile_config"); the piecewise backend creates one.
    cuda_graph_mode: `cuda_graph_config.mode` (`CudaGraphConfigType`, discriminated on
        `mode`, tensorrt_llm/llmapi/llm_args.py@0004396720:495-498): "decode" (the default,
        `DecodeCudaGraphConfig`) or "encode" (`EncodeCudaGraphConfig`,
        tensorrt_llm/llmapi/llm_args.py@0004396720:305-344). Encode: the batch sizes feed the
        encoder-only runner, whose graphs graphfit plans as the keyed `encoder` component
        (graphfit.planner.engines.trtllm_encoder); no decode graphs are planned.
    encode_num_tokens / encode_seq_lens: `EncodeCudaGraphConfig.num_tokens` / `seq_lens` as its
        validator leaves them (given, or generated from `max_num_token` / `max_seq_len`,
        tensorrt_llm/llmapi/llm_args.py@0004396720:346-385), kept sorted and unique (the
        runner's filters read them sorted; a duplicate bucket is the same graph). None:
        unset, so the encode step stays eager (`validate_token_encoder_bucket_config`,
        tensorrt_llm/llmapi/llm_args.py@0004396720:462-489). The model refuses them with mode
        "decode".
    encoder_graph_batch_sizes: the batch sizes of `encoder_cuda_graph_config` (the encoder
        graphs of an encoder-decoder model, an `EncodeCudaGraphConfig`; the field:
        tensorrt_llm/llmapi/llm_args.py@0004396720:5615-5622), given or generated as
        `cuda_graph_config`'s are, sorted and unique. None: no `encoder_cuda_graph_config`,
        so no encoder-decoder encoder graphs. Set, graphfit plans them as the keyed `encoder`
        component (graphfit.planner.engines.trtllm_encdec).
    encoder_graph_padding: that config's `enable_padding`.
    encoder_graph_num_tokens / encoder_graph_seq_lens: its `num_tokens` / `seq_lens` as the
        validator leaves them (tensorrt_llm/llmapi/llm_args.py@0004396720:346-385), sorted
        and unique. A token encoder-decoder model needs both: `EncoderConfigMixin.create`
        raises otherwise
        (tensorrt_llm/_torch/pyexecutor/engine/runners/encoder.py@0e91ee39be:102-112).
    encoder_max_batch_size / encoder_max_num_tokens: `encoder_max_batch_size` /
        `encoder_max_num_tokens` (tensorrt_llm/llmapi/llm_args.py@0004396720:5685-5707):
        the encoder's batch and token limits, each falling back to max_batch_size /
        max_num_tokens (tensorrt_llm/_torch/pyexecutor/model_engine.py@c0edad93fd:352-360);
        `encoder_cuda_graph_config` requires encoder_max_batch_size
        (tensorrt_llm/llmapi/llm_args.py@0004396720:5730-5747).
    encode_only: `encode_only` (the LLM's encode() path). TensorRT-LLM refuses it with
        `encoder_cuda_graph_config` (same validator); graphfit plans that path from
        `cuda_graph_config` mode encode.
    encoder_fixed_slots: the encoder graphs' fixed sequence slots (TensorRT-LLM's
        `use_fixed_sequence_slots`: an encoder-decoder model whose checkpoint config has
        `relative_attention_num_buckets`, e.g. T5;
        tensorrt_llm/_torch/pyexecutor/engine/runners/encoder.py@0e91ee39be:204-210). The
        checkpoint decides it, not an LLM-API argument, so graphfit takes it as an input. On,
        a batch replays a key only when each request fits one slot of that key's capture
        layout, so the encoder's dispatch reads the request lengths (not only their counts).
    encoder_feature_spec: the model class's `encoder_graph_spec()`, [feature_shape, dtype,
        fixed_seq_len]
        (tensorrt_llm/_torch/pyexecutor/engine/runners/encoder.py@0e91ee39be:98-128): set,
        an encoder-decoder model's `encoder_cuda_graph_config` runs in feature mode, one
        graph per batch size (graphfit.planner.engines.trtllm_features). The model class
        decides it, so graphfit takes it from the checkpoint's architecture
        (graphfit.inputs.trtllm_features) or `--config`. None: token mode.
    mm_encoder_graphs: `multimodal_config.encoder_cuda_graph`, [[modality, [[total_tokens,
        num_contexts], ...], enable_padding], ...], the buckets normalized as
        `MultimodalEncoderCudaGraphConfig._normalize` does
        (tensorrt_llm/llmapi/llm_args.py@0004396720:545-552). None: no multimodal encoder
        graphs.
    mm_encoder_inputs: the encoder model's `input_specs` per modality, [[modality, [[name,
        dims after the token axis, dtype], ...]], ...] (restated per architecture by
        graphfit.inputs.trtllm_features). A modality with both is planned as the keyed
        `mm_encoder.<modality>` component (graphfit.planner.engines.trtllm_mm_encoder); one
        without inputs is only reported.
    tensor_parallel_size: `tensor_parallel_size` (trtllm-serve `--tp_size`): the mapping's
        tp_size. A feature-mode encoder stays eager at TP > 1 (`EncoderConfigMixin.create`,
        tensorrt_llm/_torch/pyexecutor/engine/runners/encoder.py@0e91ee39be:123-126), and
        with attention DP it is the number of ranks the decode graphs' padding agrees over.
    enable_attention_dp: `enable_attention_dp`. With TP > 1 each of the tp_size ranks runs
        its own batch and `CUDAGraphRunner._get_padded_batch` all-gathers them
        (tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:835-846); at TP 1
        it changes nothing there. See `attention_dp_ranks`.
    context_parallel_size: `context_parallel_size` (trtllm-serve `--cp_size`): the mapping's
        cp_size. Above 1 with a cp_type other than helix the engine's warmup returns before
        it captures any decode graph
        (tensorrt_llm/_torch/pyexecutor/model_engine.py@c0edad93fd:1410-1416), and no graph is
        captured outside it
        (tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:594-599): every batch
        runs eagerly. Helix is refused (graphfit.planner.engines.trtllm_cp).
    cp_type: `cp_config.cp_type`, one of CP_TYPES (`CpType`,
        tensorrt_llm/mapping.py@b35ac1b643:24-32), lower-cased; None: the key is absent
        (the mapping then takes ulysses, tensorrt_llm/mapping.py@b35ac1b643:64-65, and the
        warmup reads None).
    moe_expert_parallel_size: `moe_expert_parallel_size` (trtllm-serve `--ep_size`) as given;
        None: not given (the mapping then derives it, 1 when no MoE size is given,
        tensorrt_llm/mapping.py@b35ac1b643:68-70). It changes no graph or buffer graphfit
        plans; it is kept for the mapping's refusal of MoE EP beside non-helix CP
        (tensorrt_llm/mapping.py@b35ac1b643:118-120).
    moe_tensor_parallel_size, moe_cluster_parallel_size: the LLM API's
        `moe_tensor_parallel_size` / `moe_cluster_parallel_size` as given; None: not given.
        Like moe_expert_parallel_size they change no graph or buffer; they are kept for the
        mapping's derivation and checks of the MoE sizes
        (tensorrt_llm/mapping.py@b35ac1b643:59-123, graphfit.planner.engines.trtllm_moe).
    moe_a2a_workspace_mb: the environment's `TRTLLM_MOE_A2A_WORKSPACE_MB`, kept as written
        (non-empty: TensorRT-LLM tests it for truth, then calls int() on it when the
        one-sided all-to-all is built,
        tensorrt_llm/_torch/distributed/moe_alltoall.py@97317b1d7b:143-151). None: unset.
        Shown in the plan's `moe_a2a_workspace` line (graphfit.planner.engines.
        trtllm_moe_a2a.shown), never counted.
    moe_a2a_token: (hidden_size, top_k, itemsize) of the served checkpoint's MoE layers
        (config.json's hidden_size, num_experts_per_tok and dtype; graphfit.inputs.
        trtllm_a2a): with them the plan gives the all-to-all workspace's exact bytes. None:
        not read, so the plan gives the payload as a formula.
    moe_a2a_force_method: the environment's `TRTLLM_FORCE_ALLTOALL_METHOD`, kept as written
        (the engine reads any set value, an empty one too, as an `AlltoallMethodType` name
        where it selects the method,
        tensorrt_llm/_torch/modules/fused_moe/fused_moe_cutlass.py@97317b1d7b:254-263).
        None: unset. Shown in the `moe_a2a_workspace` line (graphfit.planner.engines.
        trtllm_moe_a2a.forced), never counted.
    moe_configurable: the environment's `ENABLE_CONFIGURABLE_MOE`, kept as written; None:
        unset. `create_moe` wraps a CUTLASS backend in ConfigurableMoE unless it is set to
        something other than "1"
        (tensorrt_llm/_torch/modules/fused_moe/create_moe.py@01f8de52fe:385-390), and only
        then does TRTLLM_FORCE_ALLTOALL_METHOD reach the backend's own selection
        (graphfit.planner.engines.trtllm_moe_a2a.legacy).
    trtllm_moe_backend: `moe_config.backend`, upper-cased as `get_moe_cls` compares it
        (tensorrt_llm/_torch/modules/fused_moe/create_moe.py@01f8de52fe:25-85); None: not
        given. Read for the all-to-all workspace line only (graphfit.planner.engines.
        trtllm_moe_a2a: which backends' workspace the line sizes).
    moe_load_balancer: whether `moe_config.load_balancer` is given (EPLB): the workspace's
        auxiliary part then holds the EPLB statistics (graphfit.planner.engines.
        trtllm_moe_a2a).
    moe_comm_force_method: the environment's `TRTLLM_FORCE_COMM_METHOD`, kept as written; None:
        unset. ConfigurableMoE's CommunicationFactory reads it (`is not None`) where it selects
        a strategy (cited in graphfit.inputs.trtllm_a2a; its outcomes:
        graphfit.planner.engines.trtllm_moe_a2a.forced_comm).
    moe_eplb_experts: the MoE layer's expert count as the model class passes it to
        `create_moe` (config.json's num_local_experts for MixtralForCausalLM, num_experts
        for Qwen3MoeForCausalLM; graphfit.inputs.trtllm_a2a.eplb_experts); None: not read.
        Under `moe_config.load_balancer` it is the EPLB statistics' expert count
        (graphfit.planner.engines.trtllm_moe_a2a, issue 23, s61t).
    moe_auto_checkpoint: (architecture, quantization) of a local checkpoint, what
        `ModelConfig.resolve_moe_backend` reads to resolve `moe_config.backend` AUTO: the
        first of config.json's architectures ("" when it names none) and "none" (no
        algorithm), "fp8_block", "w4a16_nvfp4" (s66t: a ModelOpt config's), "unknown" or
        "other" (s67t: another algorithm), or (s68t) the family of an algorithm the legacy
        route's get_moe_cls tells apart: "nvfp4", "mxfp4", "w4a8_nvfp4_fp8", "fp8" (per
        tensor), "w4a8_awq" or "modeless" (graphfit.planner.engines.trtllm_moe_cls) for its
        quantization (graphfit.inputs.trtllm_a2a.auto_checkpoint); None: not read. Read for
        the all-to-all workspace line only (graphfit.planner.engines.trtllm_moe_a2a.
        auto_backends, issue 23, s64t).
    sm_version: the serving GPU's SM version as TensorRT-LLM's `get_sm_version()` gives it
        (compute capability major * 10 + minor: 80 A100, 90 H100 / H200, 100 B200 / GB200,
        103 GB300, 120 RTX 5090), set by naming an NVIDIA GPU (`--gpu-memory-gb H100`, or
        `gpu_memory_gb: H100` in a config file; graphfit.inputs.trtllm_gpu); None: not
        named. `resolve_moe_backend` reads it to resolve `moe_config.backend` AUTO
        (tensorrt_llm/_torch/model_config.py@008e0af898:448-486): with it the all-to-all
        workspace line takes that GPU's backend only (graphfit.planner.engines.
        trtllm_moe_a2a.auto_backends, issue 23, s64g).
    moe_disable_alltoallv, moe_can_use_deep_ep: the environment's
        `TRTLLM_MOE_DISABLE_ALLTOALLV` / `TRTLLM_CAN_USE_DEEP_EP`, kept as written; None: unset.
        WideEPMoE's `select_alltoall_method_type` compares each, unforced, with "1"
        (`os.environ.get(name, "0") == "1"`,
        tensorrt_llm/_torch/modules/fused_moe/fused_moe_wide_ep.py@99bca89296:292-293 and
        :301): the first makes it NotEnabled before its top-k test, the second lets it pick
        DeepEP where MNNVL is not supported. Read for a WIDEEP line's all-to-all only
        (graphfit.planner.engines.trtllm_moe_wide_ep, issue 23, s69o).
    moe_a2a_dtype: the local checkpoint's dtype name as the MoE layer receives it (bfloat16,
        float16, float32, or "untyped" for no dtype key / null; None: not read). WideEPMoE
        picks a DeepEP method only for bfloat16
        (tensorrt_llm/_torch/modules/fused_moe/fused_moe_wide_ep.py@99bca89296:301-306), which
        the itemsize of `moe_a2a_token` cannot tell from float16 (graphfit.planner.engines.
        trtllm_moe_deep_ep, issue 23, s70f).
    """

    engine: ClassVar[str] = "trtllm"
    label: ClassVar[str] = "TensorRT-LLM"

    draft_len_schedule: tuple[int, ...] | None = None
    max_beam_width: int = 1
    parallel_draft: bool = False
    prefill_cuda_graph_backend: str = "disabled"
    prefill_capture_num_tokens: tuple[int, ...] | None = None
    torch_compile: bool = False
    cuda_graph_mode: str = "decode"
    encode_num_tokens: tuple[int, ...] | None = None
    encode_seq_lens: tuple[int, ...] | None = None
    encoder_graph_batch_sizes: tuple[int, ...] | None = None
    encoder_graph_padding: bool = False
    encoder_graph_num_tokens: tuple[int, ...] | None = None
    encoder_graph_seq_lens: tuple[int, ...] | None = None
    encoder_max_batch_size: int | None = None
    encoder_max_num_tokens: int | None = None
    encode_only: bool = False
    encoder_fixed_slots: bool = False
    encoder_feature_spec: tuple[tuple[int, ...], str, int] | None = None
    mm_encoder_graphs: tuple[tuple[str, tuple[tuple[int, int], ...], bool], ...] | None = None
    mm_encoder_inputs: tuple[tuple[str, tuple[InputSpec, ...]], ...] | None = None
    tensor_parallel_size: int = 1
    enable_attention_dp: bool = False
    context_parallel_size: int = 1
    cp_type: str | None = None
    moe_expert_parallel_size: int | None = None
    moe_tensor_parallel_size: int | None = None
    moe_cluster_parallel_size: int | None = None
    moe_a2a_workspace_mb: str | None = None
    moe_a2a_token: tuple[int, int, int] | None = None
    moe_a2a_force_method: str | None = None
    moe_configurable: str | None = None
    trtllm_moe_backend: str | None = None
    moe_load_balancer: bool = False
    moe_comm_force_method: str | None = None
    moe_eplb_experts: int | None = None
    moe_auto_checkpoint: tuple[str, str] | None = None
    sm_version: int | None = None
    moe_disable_alltoallv: str | None = None
    moe_can_use_deep_ep: str | None = None
    moe_a2a_dtype: str | None = None

    @property
    def attention_dp_ranks(self) -> int:
        """The ranks whose batches one decode step's graph padding agrees over: tp_size with
        attention DP at TP > 1 (`_get_padded_batch` gathers only then,
        tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:835), else 1."""
        if self.enable_attention_dp and self.tensor_parallel_size > 1:
            return self.tensor_parallel_size
        return 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "draft_len_schedule",
                           sizes("draft_len_schedule", self.draft_len_schedule))
        positive_int("max_beam_width", self.max_beam_width)
        true_false("parallel_draft", self.parallel_draft)
        object.__setattr__(self, "prefill_cuda_graph_backend", _one_of(
            "prefill_cuda_graph_backend", self.prefill_cuda_graph_backend, PREFILL_BACKENDS))
        object.__setattr__(self, "prefill_capture_num_tokens",
                           token_counts("prefill_capture_num_tokens",
                                        self.prefill_capture_num_tokens))
        true_false("torch_compile", self.torch_compile)
        object.__setattr__(self, "cuda_graph_mode",
                           _one_of("cuda_graph_mode", self.cuda_graph_mode, GRAPH_MODES))
        for name in ("encode_num_tokens", "encode_seq_lens", "encoder_graph_batch_sizes",
                     "encoder_graph_num_tokens", "encoder_graph_seq_lens"):
            value = sizes(name, getattr(self, name))
            object.__setattr__(self, name, None if value is None else tuple(sorted(set(value))))
        true_false("encoder_fixed_slots", self.encoder_fixed_slots)
        if self.encoder_feature_spec is not None:
            spec = FeatureSpec.of(self.encoder_feature_spec)
            object.__setattr__(self, "encoder_feature_spec",
                               (spec.shape, spec.dtype, spec.fixed_seq_len))
        if self.mm_encoder_graphs is not None:
            object.__setattr__(self, "mm_encoder_graphs", _mm_graphs(self.mm_encoder_graphs))
        if self.mm_encoder_inputs is not None:
            object.__setattr__(self, "mm_encoder_inputs", _mm_inputs(self.mm_encoder_inputs))
        true_false("encode_only", self.encode_only)
        true_false("encoder_graph_padding", self.encoder_graph_padding)
        for name in ("encoder_max_batch_size", "encoder_max_num_tokens"):
            if getattr(self, name) is not None:
                positive_int(name, getattr(self, name))
        positive_int("tensor_parallel_size", self.tensor_parallel_size)
        true_false("enable_attention_dp", self.enable_attention_dp)
        positive_int("context_parallel_size", self.context_parallel_size)
        if self.cp_type is not None:
            object.__setattr__(self, "cp_type", _one_of("cp_type", self.cp_type, CP_TYPES))
        for name in ("moe_expert_parallel_size", "moe_tensor_parallel_size",
                     "moe_cluster_parallel_size"):
            if getattr(self, name) is not None:
                positive_int(name, getattr(self, name))
        if self.moe_a2a_workspace_mb is not None and (
                not isinstance(self.moe_a2a_workspace_mb, str)
                or not self.moe_a2a_workspace_mb):
            raise ConfigError(f"moe_a2a_workspace_mb: expected a non-empty string (the "
                              f"environment's value), got {excerpt(self.moe_a2a_workspace_mb)}")
        if self.moe_a2a_token is not None:
            object.__setattr__(self, "moe_a2a_token", _a2a_token(self.moe_a2a_token))
        if self.moe_a2a_force_method is not None and not isinstance(
                self.moe_a2a_force_method, str):
            raise ConfigError(f"moe_a2a_force_method: expected a string (the environment's "
                              f"value), got {excerpt(self.moe_a2a_force_method)}")
        if self.trtllm_moe_backend is not None and (
                not isinstance(self.trtllm_moe_backend, str) or not self.trtllm_moe_backend):
            raise ConfigError(f"trtllm_moe_backend: expected a backend name, got "
                              f"{excerpt(self.trtllm_moe_backend)}")
        true_false("moe_load_balancer", self.moe_load_balancer)
        if self.moe_comm_force_method is not None and not isinstance(
                self.moe_comm_force_method, str):
            raise ConfigError(f"moe_comm_force_method: expected a string (the environment's "
                              f"value), got {excerpt(self.moe_comm_force_method)}")
        if self.moe_configurable is not None and not isinstance(self.moe_configurable, str):
            raise ConfigError(f"moe_configurable: expected a string (the environment's "
                              f"value), got {excerpt(self.moe_configurable)}")
        if self.moe_eplb_experts is not None:
            positive_int("moe_eplb_experts", self.moe_eplb_experts)
        if self.moe_auto_checkpoint is not None:
            object.__setattr__(self, "moe_auto_checkpoint",
                               _auto_checkpoint(self.moe_auto_checkpoint))
        if self.sm_version is not None:
            positive_int("sm_version", self.sm_version)
        for name in ("moe_disable_alltoallv", "moe_can_use_deep_ep"):
            if getattr(self, name) is not None and not isinstance(getattr(self, name), str):
                raise ConfigError(f"{name}: expected a string (the environment's value), got "
                                  f"{excerpt(getattr(self, name))}")
        if self.moe_a2a_dtype is not None and self.moe_a2a_dtype not in A2A_DTYPES:
            raise ConfigError(f"moe_a2a_dtype: expected one of {', '.join(A2A_DTYPES)}, got "
                              f"{excerpt(self.moe_a2a_dtype)}")


def _auto_checkpoint(value: object) -> tuple[str, str]:
    """`moe_auto_checkpoint` as a tuple, or ConfigError (the option's doc)."""
    if not isinstance(value, (list, tuple)) or len(value) != 2 \
            or not all(isinstance(item, str) for item in value) \
            or value[1] not in AUTO_QUANTIZATIONS:
        raise ConfigError(f"moe_auto_checkpoint: expected [architecture, "
                          f"{' | '.join(AUTO_QUANTIZATIONS)}], got {excerpt(value)}")
    return value[0], value[1]


def _a2a_token(value: object) -> tuple[int, int, int]:
    """(hidden_size, top_k, itemsize), each a positive integer."""
    if not isinstance(value, (list, tuple)) or len(value) != 3:
        raise ConfigError(f"moe_a2a_token: expected [hidden_size, top_k, itemsize], got "
                          f"{excerpt(value)}")
    for name, item in zip(("hidden_size", "top_k", "itemsize"), value, strict=True):
        positive_int(f"moe_a2a_token: {name}", item)  # the field first (s55e)
    return (value[0], value[1], value[2])


def _one_of(name: str, value: object, choices: tuple[str, ...]) -> str:
    """`value` trimmed and lower-cased, one of `choices`; ConfigError naming them otherwise."""
    if not isinstance(value, str) or value.strip().lower() not in choices:
        raise ConfigError(f"{name}: {excerpt(value)} is not one of {', '.join(choices)}")
    return value.strip().lower()


def _modality_items(name: str, value: object) -> list[tuple[Any, ...]]:
    if not isinstance(value, (list, tuple)):
        raise ConfigError(f"{name}: expected a list of [modality, ...], got {excerpt(value)}")
    items = []
    for item in value:
        if not isinstance(item, (list, tuple)) or len(item) < 2 or not isinstance(
                item[0], str) or not item[0]:
            raise ConfigError(f"{name}: expected [modality, ...], got {excerpt(item)}")
        items.append(tuple(item))
    if len({item[0] for item in items}) != len(items):
        raise ConfigError(f"{name}: each modality once")
    return items


def _mm_graphs(value: object) -> tuple[tuple[str, tuple[tuple[int, int], ...], bool], ...]:
    """[[modality, buckets, enable_padding], ...], buckets normalized as TensorRT-LLM does."""
    out: list[tuple[str, tuple[tuple[int, int], ...], bool]] = []
    for item in _modality_items("mm_encoder_graphs", value):
        if len(item) != 3 or not isinstance(item[2], bool) or not isinstance(
                item[1], (list, tuple)):
            raise ConfigError(f"mm_encoder_graphs: expected [modality, [[total_tokens, "
                              f"num_contexts], ...], enable_padding], got {excerpt(item)}")
        pairs = []
        for pair in item[1]:
            if not isinstance(pair, (list, tuple)) or len(pair) != 2 or not all(
                    isinstance(v, int) and not isinstance(v, bool) for v in pair):
                raise ConfigError(f"mm_encoder_graphs: {item[0]}: expected [total_tokens, "
                                  f"num_contexts], got {excerpt(pair)}")
            pairs.append((pair[0], pair[1]))
        try:
            buckets = mm_encoder_buckets(pairs)
        except ConfigError as exc:  # the field first, as every option's error says
            raise ConfigError(f"mm_encoder_graphs: {item[0]}: {exc}") from None
        out.append((item[0], buckets, item[2]))
    return tuple(out)


def _mm_inputs(value: object) -> tuple[tuple[str, tuple[InputSpec, ...]], ...]:
    """[[modality, [[name, dims, dtype], ...]], ...], validated."""
    out: list[tuple[str, tuple[InputSpec, ...]]] = []
    for item in _modality_items("mm_encoder_inputs", value):
        if len(item) != 2:
            raise ConfigError(f"mm_encoder_inputs: expected [modality, inputs], got "
                              f"{excerpt(item)}")
        out.append((item[0], mm_input_specs(item[1], item[0])))
    return tuple(out)


def token_counts(name: str, value: object) -> tuple[int, ...] | None:
    """A `List[int]` of token counts, sorted and unique. Unlike capture sizes any integer and
    the empty list are accepted (TensorRT-LLM's field is a plain List[int]; its filter drops
    counts outside (0, max_num_tokens], and an empty list captures nothing)."""
    items = int_list(name, value)
    return None if items is None else tuple(sorted(set(items)))


__all__ = ["AUTO_QUANTIZATIONS", "CP_TYPES", "GRAPH_MODES", "PREFILL_BACKENDS", "TrtllmOptions",
           "token_counts"]
