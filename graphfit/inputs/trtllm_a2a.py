"""What TensorRT-LLM's one-sided MoE all-to-all workspace reads beyond the LLM API: the
environment's `TRTLLM_MOE_A2A_WORKSPACE_MB` and the served checkpoint's token size
(issue 23, s54t).

* `TRTLLM_MOE_A2A_WORKSPACE_MB`: `MoeAlltoAll.__init__` reads it with `os.environ.get` and,
  when the value is non-empty (a truth test), replaces the computed size with
  `int(value) * 1024 * 1024`
  (tensorrt_llm/_torch/distributed/moe_alltoall.py@97317b1d7b:143-151). The value is kept
  as written (`moe_a2a_workspace_mb`): whether int() accepts it matters only on lines that
  build the one-sided method, which the planner decides
  (graphfit.planner.engines.trtllm_moe_a2a.shown), so reading it never refuses a line.
* `TRTLLM_FORCE_ALLTOALL_METHOD` (issue 23, s60t): `select_alltoall_method_type` reads it with
  `os.environ.get` and tests `is not None`, so any set value, an empty one too, is looked up as
  a method name
  (tensorrt_llm/_torch/modules/fused_moe/fused_moe_cutlass.py@97317b1d7b:254-263). It is
  kept as written (`moe_a2a_force_method`); what it makes the module build is the planner's
  (graphfit.planner.engines.trtllm_moe_a2a.forced), and reading it never refuses a line: the
  engine reads it only where it selects a method.
* `ENABLE_CONFIGURABLE_MOE` (s60t): `create_moe` reads it with a default of "1" and wraps a
  CUTLASS backend in ConfigurableMoE when it is "1"
  (tensorrt_llm/_torch/modules/fused_moe/create_moe.py@01f8de52fe:385-390); kept as written
  (`moe_configurable`): only set to another value does the backend select its own
  all-to-all, and so read TRTLLM_FORCE_ALLTOALL_METHOD.
* `TRTLLM_FORCE_COMM_METHOD` (s60t): ConfigurableMoE's CommunicationFactory reads it
  (`is not None`) where it selects a strategy
  (tensorrt_llm/_torch/modules/fused_moe/communication/communication_factory.py@03c36d6222:146-165);
  kept as written (`moe_comm_force_method`, graphfit.planner.engines.trtllm_moe_a2a.forced_comm).
* `TRTLLM_MOE_DISABLE_ALLTOALLV` and `TRTLLM_CAN_USE_DEEP_EP` (issue 23, s69o): WideEPMoE's
  `select_alltoall_method_type` reads each with `os.environ.get(name, "0") == "1"`, unforced
  and with attention DP at TP > 1: the first returns NotEnabled before the top-k test, the
  second, where MNNVL is not supported, lets it pick DeepEP / DeepEPLowLatency
  (tensorrt_llm/_torch/modules/fused_moe/fused_moe_wide_ep.py@99bca89296:292-293, :301-306).
  Each is kept as written (`moe_disable_alltoallv`, `moe_can_use_deep_ep`): the comparison is
  exact, so " 1" or "true" is not "1"; what they select is the planner's
  (graphfit.planner.engines.trtllm_moe_wide_ep), and reading them never refuses a line.
  ConfigurableMoE's CommunicationFactory reads TRTLLM_CAN_USE_DEEP_EP too, with a default of
  "1", but only after NVLinkOneSided fails to build (it tries that first,
  tensorrt_llm/_torch/modules/fused_moe/communication/communication_factory.py@03c36d6222:170-192,
  and DeepEP after NVLinkTwoSided and NCCL EP), which the one-sided line does not model.
* `moe_config` (an LLM-API key of the YAML, s60t): its `backend` (kept upper-cased, as
  `get_moe_cls` compares `moe_backend.upper()`,
  tensorrt_llm/_torch/modules/fused_moe/create_moe.py@01f8de52fe:25-85) as `trtllm_moe_backend`
  and whether `load_balancer` is given (not null) as `moe_load_balancer`. What they change in
  the all-to-all is the planner's (graphfit.planner.engines.trtllm_moe_a2a.shown); reading
  them never refuses a line, and the key's other fields are left to TensorRT-LLM.
* The token size: `calculate_required_workspace_size(ep_size, top_k, max_num_tokens,
  hidden_size, dtype, ...)`
  (tensorrt_llm/_torch/distributed/moe_alltoall.py@97317b1d7b:54-88) takes the MoE
  layer's hidden size, its top-k and the dtype's itemsize; CutlassFusedMoE passes its own
  hidden size and `self.dtype or torch.float16`
  (tensorrt_llm/_torch/modules/fused_moe/fused_moe_cutlass.py@97317b1d7b:160-184).
  graphfit reads them from a local config.json: hidden_size, num_experts_per_tok and
  torch_dtype (or transformers' newer `dtype`), at the top level or, when the top level has
  no num_experts_per_tok, under text_config. bfloat16 and float16 are read (itemsize 2), and
  so is an untyped checkpoint (no dtype key, or null: s61t): transformers leaves its
  torch_dtype None, the model class passes that on as the MoE module's dtype
  (tensorrt_llm/_torch/models/modeling_mixtral.py@b35ac1b643:54,
  tensorrt_llm/_torch/models/modeling_qwen3_moe.py@a678b91aaf:116), CutlassFusedMoE sizes with
  `self.dtype or torch.float16`, and ConfigurableMoE's factory with ModelConfig.torch_dtype,
  `pretrained_config.torch_dtype or torch.bfloat16`
  (tensorrt_llm/_torch/model_config.py@1a0dc5f700:204-210): two bytes on either route.
  A float32 checkpoint (issue 23, s66t) is four: `ModelConfig.from_pretrained` copies the
  config's dtype into its torch_dtype
  (tensorrt_llm/_torch/model_config.py@008e0af898:1187-1195), the PyTorch loader's
  `_load_and_validate_config` passes no dtype of the LLM API to it
  (tensorrt_llm/_torch/pyexecutor/model_loader.py@b51992a331:1167-1210, the keywords at
  1171-1203; counted in s68t) and `load` builds the model on that config (:406-439,
  `AutoModelForCausalLM.from_config` at :431 and :438), and the
  model classes above pass config.torch_dtype on to `create_moe`; so both routes size the
  workspace with float32 tokens. Whether the MoE backend's kernels then run float32 was not
  read: a line whose layer cannot be built does not load, and has no workspace.
* The expert count under EPLB (s61t, `moe_eplb_experts`): the `num_experts` the model class
  passes to `create_moe`, config.json's num_local_experts for MixtralForCausalLM
  (tensorrt_llm/_torch/models/modeling_mixtral.py@b35ac1b643:35) and num_experts for
  Qwen3MoeForCausalLM (tensorrt_llm/_torch/models/modeling_qwen3_moe.py@a678b91aaf:93) and
  n_routed_experts for DeepseekV3ForCausalLM (s62t: its decoder layer's num_experts,
  tensorrt_llm/_torch/models/modeling_deepseekv3.py@000561df0b:619, passed to Deepseekv3MoE
  and on to `create_moe`, :658-669 and :451-468) and num_experts for Qwen2MoeForCausalLM
  (s62t: tensorrt_llm/_torch/models/modeling_qwen_moe.py@6a5351c32c:39, passed to
  `create_moe` at :52-61) and num_local_experts for GptOssForCausalLM (s63t: MLPBlock's
  moe_params, tensorrt_llm/_torch/models/modeling_gpt_oss.py@7924c7f1d3:176, with
  dtype=pretrained_config.torch_dtype at :179, passed to `create_moe` at :174-189) and
  num_experts for Qwen3NextForCausalLM (s63t: Qwen3NextSparseMoeBlock's num_experts,
  tensorrt_llm/_torch/models/modeling_qwen3_next.py@b93e14ca09:384, passed with
  dtype=config.torch_dtype to `create_moe` at :401-411) and text_config's num_local_experts
  for Llama4ForConditionalGeneration (s63t: its `__init__` builds the language model on
  the checkpoint's text_config,
  tensorrt_llm/_torch/models/modeling_llama.py@3a5901cd0d:1255-1259, whose MoE decoder
  layers build Llama4MoE(num_experts=config.num_local_experts, ..., dtype=config.torch_dtype)
  (:427-436), passed on to `create_moe` (:284-295); a text_config that is not a mapping
  reads no count) and n_routed_experts for DeepseekV4ForCausalLM (s64t: every
  DeepseekV4DecoderLayer sets num_experts from it,
  tensorrt_llm/_torch/models/modeling_deepseekv4.py@02586bf0b0:1773, and builds
  DeepseekV4MoE(num_experts=..., dtype=config.torch_dtype) (:1843-1854), which passes both
  to `create_moe` (:1554-1574)); other
  architectures' keys are not read
  (`EXPERT_KEYS`). Nor is
  the hidden size of an MXFP4 checkpoint (quantization_config's quant_method mxfp4) that is
  not a multiple of 128 read: under a W4A16 MXFP4 layer quant mode CutlassFusedMoE pads it
  to one before sizing the workspace
  (tensorrt_llm/_torch/modules/fused_moe/fused_moe_cutlass.py@97317b1d7b:104-108), and
  which MXFP4 mode a line runs is not read.
* What resolves `moe_config.backend` AUTO (s64t, `moe_auto_checkpoint`):
  `ModelConfig.from_pretrained` takes config.json's first architecture ("" when it lists
  none) and the quant config it builds from the checkpoint directory's hf_quant_config.json
  (modelopt, first), else config.json's quantization_config, else dtypes.json, and passes
  both to `resolve_moe_backend`
  (tensorrt_llm/_torch/model_config.py@008e0af898:1250-1315). Of the quant config only
  two algorithms matter there, W4A16_NVFP4 and FP8_BLOCK_SCALES (:459-483): graphfit
  reads "none" or "other" (s67t, below) for neither, "fp8_block", "w4a16_nvfp4", or
  "unknown" where the algorithm is not read. Without an hf_quant_config.json (and
  dtypes.json gives MXFP4 or nothing): no quantization_config is "none"; a quant_method
  "fp8" one with a weight_block_size or a static activation_scheme is "fp8_block"
  (`load_hf_quant_config`, :615-618); mxfp4,
  mxfp8 and nvfp4 set neither algorithm (:636-688), "other", and a method that none of its
  branches names sets no algorithm at all, "none"; a dynamic fp8 one sets FP8, "other".
  compressed-tensors (:673-675) calls
  `update_quant_config_from_compressed_tensors`
  (tensorrt_llm/models/quant_config_utils.py@2a26169d0b:22-76, s66t): FP8_BLOCK_SCALES
  when config_groups' group_0 has 8-bit weights of strategy "block", input activations of
  strategy "group" and a group_size of 128 (its :35-49, "fp8_block"); anything else sets
  FP8_PER_CHANNEL_PER_TOKEN or NVFP4, or raises (the model does not load): "other". A
  ModelOpt config (issue 23, s66t: `is_modelopt_quant_config`, a quant_method starting
  with "modelopt" or producer.name "modelopt",
  tensorrt_llm/quantization/modelopt_config.py@2edf354d4b:100-112, pinned in s67t; the reader
  there is `parse_modelopt_quant_config`, :146-173) goes to the modelopt builder
  instead (:604-607), as an hf_quant_config.json always does (:1260-1277):
  `read_modelopt_quant_config` takes the `quantization` object of the legacy shape, or the
  flat config itself, and spells the alias fp8_pb_wo FP8_BLOCK_SCALES (the pinned copy: that
  spelling only, :169-172; an uncommitted stored copy: any case, which graphfit follows); the
  builder sets the global algorithm to `QuantAlgo(quant_algo)` when the key is not null
  (:509-511). So "W4A16_NVFP4" is "w4a16_nvfp4", "FP8_BLOCK_SCALES" or the alias is
  "fp8_block", any other value "other" (another QuantAlgo, MIXED_PRECISION included, whose
  per-layer algorithms resolve_moe_backend does not read, or a ValueError: then the model
  does not load and no backend is built). A null or missing quant_algo in the file hands over
  to config.json's quantization_config, read as above, when that sets an algorithm
  (:1278-1298). A file that is not a ModelOpt config, or not JSON, is "unknown" (the reader
  raises; graphfit does not refuse the line for it).
* "none" and "other" (issue 23, s67t): AUTO treats both alike, but without ConfigurableMoE
  `get_moe_cls` picks the class by the quant config's modes
  (tensorrt_llm/_torch/modules/fused_moe/create_moe.py@01f8de52fe:25-85; graphfit.planner.
  engines.trtllm_moe_a2a.legacy_class), so "none" now means that no algorithm is set (no
  quant config, a null one, a method no branch names) and "other" that some other algorithm
  is, or may be: mxfp4, mxfp8, nvfp4 and a per-tensor fp8 config, compressed-tensors other
  than block FP8, another ModelOpt algorithm, and a dtypes.json beside a config.json without
  a quantization_config (read after both, :1307-1309: it may set MXFP4).
* The algorithms `get_moe_cls` tells apart (issue 23, s68t; graphfit.planner.engines.
  trtllm_moe_cls): "other" is split where the algorithm is known. quant_method nvfp4 is
  NVFP4 ("nvfp4") and mxfp4 one of the three MXFP4 algorithms ("mxfp4": `get_mxfp4_quant_algo`,
  tensorrt_llm/_torch/model_config.py@008e0af898:585-596, picks by the GPU, the backend
  hint and OVERRIDE_QUANT_ALGO, which names only those three); mxfp8 stays "other" (MXFP8 is
  in no QuantMode table read). A quant_method "fp8" config without a block size or a static
  activation scheme matches no branch of `load_hf_quant_config` (:599-688) and sets no
  algorithm: "none" (s67t read it as FP8). llm-compressor's NVFP4 shape (4-bit float
  tensor_group weights of group size 16, tensor_group inputs) is "nvfp4" and its channel /
  token 8-bit shape (FP8_PER_CHANNEL_PER_TOKEN) "modeless"
  (tensorrt_llm/models/quant_config_utils.py@2a26169d0b:35-71). A ModelOpt quant_algo keeps
  its family (`ALGO_QUANTIZATIONS`): NVFP4, the MXFP4 algorithms, W4A8_NVFP4_FP8, FP8 (per
  tensor), W4A8_AWQ, and "modeless" for the QuantAlgo members whose QuantMode sets none of
  the six modes `get_moe_cls` tests; MIXED_PRECISION, INT8, MXFP8 and unknown names stay
  "other". To `resolve_moe_backend` each of these is neither of its two algorithms.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from graphfit.inputs.model_config import config_path, load_config
from graphfit.inputs.reading import load_json, shown_path
from graphfit.inputs.settings import COMMAND_LINE, FILE, Setting
from graphfit.planner.core.enums import Engine
from graphfit.planner.core.errors import ConfigError, excerpt

ENV_A2A_WORKSPACE_MB = "TRTLLM_MOE_A2A_WORKSPACE_MB"
ENV_FORCE_METHOD = "TRTLLM_FORCE_ALLTOALL_METHOD"
ENV_CONFIGURABLE_MOE = "ENABLE_CONFIGURABLE_MOE"
ENV_FORCE_COMM = "TRTLLM_FORCE_COMM_METHOD"
# WideEPMoE's two switches (module doc, s69o) -> the TrtllmOptions field each sets
ENV_WIDE_EP = {"TRTLLM_MOE_DISABLE_ALLTOALLV": "moe_disable_alltoallv",
               "TRTLLM_CAN_USE_DEEP_EP": "moe_can_use_deep_ep"}
# the checkpoint dtypes whose itemsize the workspace is sized with (module doc; float32: s66t)
DTYPE_ITEMSIZE = {"bfloat16": 2, "float16": 2, "float32": 4}
# the config.json key whose value the architecture's MoE class passes as num_experts (module doc)
EXPERT_KEYS = {"MixtralForCausalLM": "num_local_experts", "Qwen3MoeForCausalLM": "num_experts",
               "DeepseekV3ForCausalLM": "n_routed_experts", "Qwen2MoeForCausalLM": "num_experts",
               "GptOssForCausalLM": "num_local_experts", "Qwen3NextForCausalLM": "num_experts",
               "Llama4ForConditionalGeneration": "num_local_experts",
               "DeepseekV4ForCausalLM": "n_routed_experts"}
# the architectures whose MoE layers read the count from config.json's text_config (module doc)
TEXT_CONFIG_EXPERTS = frozenset({"Llama4ForConditionalGeneration"})


def environment(environ: Mapping[str, str]) -> list[Setting]:
    """`moe_a2a_workspace_mb` when the variable is non-empty (the engine's truth test);
    `moe_a2a_force_method` when TRTLLM_FORCE_ALLTOALL_METHOD is set at all (`is not None`);
    `moe_configurable` when ENABLE_CONFIGURABLE_MOE is set; `moe_comm_force_method` when
    TRTLLM_FORCE_COMM_METHOD is set; `moe_disable_alltoallv` / `moe_can_use_deep_ep` when
    TRTLLM_MOE_DISABLE_ALLTOALLV / TRTLLM_CAN_USE_DEEP_EP is set (s69o)."""
    out = []
    raw = environ.get(ENV_A2A_WORKSPACE_MB)
    if raw:
        out.append(Setting("moe_a2a_workspace_mb", raw, f"{ENV_A2A_WORKSPACE_MB}={raw}",
                           COMMAND_LINE))
    force = environ.get(ENV_FORCE_METHOD)
    if force is not None:
        out.append(Setting("moe_a2a_force_method", force, f"{ENV_FORCE_METHOD}={force}",
                           COMMAND_LINE))
    comm = environ.get(ENV_FORCE_COMM)
    if comm is not None:
        out.append(Setting("moe_comm_force_method", comm, f"{ENV_FORCE_COMM}={comm}",
                           COMMAND_LINE))
    configurable = environ.get(ENV_CONFIGURABLE_MOE)
    if configurable is not None:
        out.append(Setting("moe_configurable", configurable,
                           f"{ENV_CONFIGURABLE_MOE}={configurable}", COMMAND_LINE))
    for name, field in ENV_WIDE_EP.items():  # s69o
        raw = environ.get(name)
        if raw is not None:
            out.append(Setting(field, raw, f"{name}={raw}", COMMAND_LINE))
    return out


def moe_config(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """`moe_config`: its backend and whether a load balancer is given (module doc); null is
    TensorRT-LLM's default (no key read)."""
    out = [Setting("engine", Engine.TRTLLM, origin, layer)]
    if value is None:
        return out, []
    if not isinstance(value, Mapping):
        raise ConfigError(f"{origin}: expected a mapping (backend, load_balancer, ...), got "
                          f"{excerpt(value)}")
    if "backend" in value:  # a Literal field: TensorRT-LLM's validation refuses null too
        backend = value["backend"]
        if not isinstance(backend, str) or not backend.strip():
            raise ConfigError(f"{origin}: backend: expected a backend name, got "
                              f"{excerpt(backend)}")
        out.append(Setting("trtllm_moe_backend", backend.upper(), f"{origin}.backend", layer))
    if value.get("load_balancer") is not None:
        out.append(Setting("moe_load_balancer", True, f"{origin}.load_balancer", layer))
    return out, []


def _size(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 1 \
        else None


def token_size(data: Mapping[str, Any]) -> tuple[int, int, int] | None:
    """(hidden_size, top_k, itemsize) of a MoE checkpoint's config.json (module doc); None
    when a size is missing or the dtype is not one graphfit reads."""
    text = data
    if "num_experts_per_tok" not in data and isinstance(data.get("text_config"), dict):
        text = data["text_config"]
    hidden, top_k = _size(text.get("hidden_size")), _size(text.get("num_experts_per_tok"))
    dtype = text.get("torch_dtype", text.get("dtype"))
    if isinstance(dtype, str):
        dtype = dtype.removeprefix("torch.")
    if hidden is None or top_k is None or (
            dtype is not None and (not isinstance(dtype, str) or dtype not in DTYPE_ITEMSIZE)):
        return None
    quant = data.get("quantization_config")
    method = quant.get("quant_method") if isinstance(quant, dict) else None
    if isinstance(method, str) and method.lower() == "mxfp4" and hidden % 128:
        return None  # W4A16 MXFP4 may pad it (module doc)
    return hidden, top_k, 2 if dtype is None else DTYPE_ITEMSIZE[dtype]


def dtype_name(data: Mapping[str, Any]) -> str | None:
    """The dtype name of a checkpoint `token_size` reads ("untyped": no dtype key, or null),
    kept apart from its itemsize because WideEPMoE picks a DeepEP method only for bfloat16,
    and float16 has the same itemsize (graphfit.planner.engines.trtllm_moe_deep_ep, issue 23,
    s70f); None where `token_size` reads none."""
    if token_size(data) is None:
        return None
    text = data
    if "num_experts_per_tok" not in data and isinstance(data.get("text_config"), dict):
        text = data["text_config"]
    dtype = text.get("torch_dtype", text.get("dtype"))
    return "untyped" if dtype is None else str(dtype).removeprefix("torch.")


def eplb_experts(data: Mapping[str, Any]) -> tuple[str, int] | None:
    """(key, count): the expert count the first architecture's MoE class passes as
    num_experts (module doc); None for another architecture or a missing count."""
    names = data.get("architectures")
    if not isinstance(names, list) or not names or not isinstance(names[0], str) \
            or names[0] not in EXPERT_KEYS:
        return None
    key, source = EXPERT_KEYS[names[0]], data.get("text_config")
    if names[0] not in TEXT_CONFIG_EXPERTS:
        source = data
    elif not isinstance(source, Mapping):
        return None
    count = _size(source.get(key))
    if count is None:
        return None
    return (f"text_config.{key}" if source is not data else key), count


# quant_method values whose `load_hf_quant_config` branch sets neither W4A16_NVFP4 nor
# FP8_BLOCK_SCALES (module doc); "fp8" sets FP8_BLOCK_SCALES only with a block size or a
# static activation scheme (and no algorithm otherwise: no branch names it, s68t), COMPRESSED
# with block-scaled 8-bit weights
NEITHER_METHODS = ("mxfp4", "mxfp8", "nvfp4")
# what those branches set, as `moe_auto_checkpoint` names it (s68t): mxfp4 an MXFP4 algorithm
# (`get_mxfp4_quant_algo`), nvfp4 NVFP4; MXFP8 is not a QuantAlgo of the pinned mode table
METHOD_QUANTIZATIONS = {"mxfp4": "mxfp4", "mxfp8": "other", "nvfp4": "nvfp4"}
# QuantAlgo values (module doc, s68t) by what `get_moe_cls`'s quant-mode tests tell apart:
# NVFP4; the MXFP4 algorithms; W4A8_NVFP4_FP8; per-tensor FP8 (FP8_QDQ); W4A8_AWQ; and the
# algorithms whose QuantMode sets none of the six modes those tests read ("modeless")
ALGO_QUANTIZATIONS = {
    "NVFP4": "nvfp4", "W4A16_MXFP4": "mxfp4", "W4A8_MXFP4_FP8": "mxfp4",
    "W4A8_MXFP4_MXFP8": "mxfp4", "W4A8_NVFP4_FP8": "w4a8_nvfp4_fp8", "FP8": "fp8",
    "W4A8_AWQ": "w4a8_awq",
    **{algo: "modeless" for algo in (
        "W8A16", "W4A16", "W4A16_AWQ", "W8A16_GPTQ", "W4A16_GPTQ", "W8A8_SQ_PER_CHANNEL",
        "W8A8_SQ_PER_TENSOR_PLUGIN", "W8A8_SQ_PER_CHANNEL_PER_TOKEN_PLUGIN",
        "W8A8_SQ_PER_CHANNEL_PER_TENSOR_PLUGIN", "W8A8_SQ_PER_TENSOR_PER_TOKEN_PLUGIN",
        "W4A8_QSERVE_PER_GROUP", "W4A8_QSERVE_PER_CHANNEL", "FP8_PER_CHANNEL_PER_TOKEN",
        "NO_QUANT")}}
COMPRESSED = "compressed-tensors"
HF_QUANT_CONFIG = "hf_quant_config.json"
DTYPES_JSON = "dtypes.json"


def is_modelopt(raw: object) -> bool:
    """`is_modelopt_quant_config`: a quant_method starting with "modelopt" (any case) or a
    producer named "modelopt" (module doc)."""
    if not isinstance(raw, Mapping):
        return False
    if str(raw.get("quant_method", "")).lower().startswith("modelopt"):
        return True
    producer = raw.get("producer") or {}
    return isinstance(producer, Mapping) and producer.get("name") == "modelopt"


def modelopt_quantization(raw: object) -> str | None:
    """The quantization a ModelOpt config's global quant_algo gives (module doc): None when
    it sets none (null or missing), "unknown" when `read_modelopt_quant_config` raises; a
    QuantAlgo whose modes the legacy route's `get_moe_cls` tells apart by its own value
    (`ALGO_QUANTIZATIONS`, s68t)."""
    if not isinstance(raw, Mapping):
        return "unknown"
    if "quantization" in raw:
        inner = raw["quantization"]
    elif is_modelopt(raw):
        inner = raw
    else:
        return "unknown"
    if not isinstance(inner, Mapping):
        return "unknown"
    algo = inner.get("quant_algo")
    if algo is None:
        return None
    if algo == "W4A16_NVFP4":
        return "w4a16_nvfp4"
    if algo == "FP8_BLOCK_SCALES" or (isinstance(algo, str) and algo.lower() == "fp8_pb_wo"):
        return "fp8_block"
    return ALGO_QUANTIZATIONS.get(algo, "other") if isinstance(algo, str) else "other"


def inline_quantization(quant: object) -> str | None:
    """What `load_hf_quant_config` makes of config.json's quantization_config `quant`
    (module doc): None when it sets no algorithm."""
    if not isinstance(quant, Mapping):
        return "unknown"
    if is_modelopt(quant):
        return modelopt_quantization(quant)
    method = quant.get("quant_method")
    if method == COMPRESSED:
        return compressed_quantization(quant)
    if method == "fp8" and (quant.get("weight_block_size")
                            or quant.get("activation_scheme") == "static"):
        return "fp8_block"
    return METHOD_QUANTIZATIONS.get(method) if isinstance(method, str) else None


def _entry(value: object, *keys: str) -> object:
    """`value[key][key]...`, None where a level is not a mapping or lacks the key."""
    for key in keys:
        if not isinstance(value, Mapping) or key not in value:
            return None
        value = value[key]
    return value


def compressed_quantization(quant: Mapping[str, Any]) -> str:
    """What `update_quant_config_from_compressed_tensors` sets (module doc): "fp8_block" for
    block-scaled 8-bit weights with group inputs of group size 128; "modeless" for
    channel-scaled 8-bit weights with token inputs (FP8_PER_CHANNEL_PER_TOKEN) and "nvfp4"
    for 4-bit float tensor_group weights of group size 16 with tensor_group inputs (s68t);
    else "other" (it raises: the model does not load)."""
    group = ("config_groups", "group_0")
    bits = _entry(quant, *group, "weights", "num_bits")
    weights = _entry(quant, *group, "weights", "strategy")
    inputs = _entry(quant, *group, "input_activations", "strategy")
    if (bits == 8 and weights == "block" and inputs == "group"
            and _entry(quant, *group, "input_activations", "group_size") == 128):
        return "fp8_block"
    if bits == 8 and weights == "channel" and inputs == "token":
        return "modeless"
    if (bits == 4 and _entry(quant, *group, "weights", "type") == "float"
            and weights == "tensor_group" and inputs == "tensor_group"
            and _entry(quant, *group, "weights", "group_size") == 16):
        return "nvfp4"
    return "other"


def _file_quantization(path: Path) -> str | None:
    """hf_quant_config.json's ModelOpt quantization; "unknown" when it does not parse."""
    try:
        raw = load_json(path, "quant config")
    except ConfigError:
        return "unknown"
    return modelopt_quantization(raw)


def auto_checkpoint(path: Path, data: Mapping[str, Any]) -> tuple[str, str] | None:
    """(architecture, quantization) that resolve `moe_config.backend` AUTO (module doc);
    None when config.json's architectures is not a list of names."""
    names = data.get("architectures", [])
    if names is None:
        names = []
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        return None
    arch = names[0] if names else ""
    quant = data.get("quantization_config")
    found: str | None = None
    hf_file = path.parent / HF_QUANT_CONFIG
    if os.path.lexists(hf_file):
        found = _file_quantization(hf_file)
    if found is None and quant is not None:
        found = inline_quantization(quant)
    if found is None and quant is None and os.path.lexists(path.parent / DTYPES_JSON):
        found = "other"  # dtypes.json may set MXFP4 (module doc, s67t)
    return arch, found or "none"


def token_settings(model: str) -> list[Setting]:
    """`moe_a2a_token` and `moe_eplb_experts` from a local checkpoint (weak: `--config`
    overrides them)."""
    path = config_path(model)
    if path is None:
        return []
    data = load_config(path)
    out = []
    found = token_size(data)
    if found is not None:
        out.append(Setting("moe_a2a_token", list(found), f"{shown_path(path)}: hidden_size, "
                           f"num_experts_per_tok, torch_dtype", FILE, weak=True))
        out.append(Setting("moe_a2a_dtype", dtype_name(data), f"{shown_path(path)}: "
                           f"torch_dtype", FILE, weak=True))
    experts = eplb_experts(data)
    if experts is not None:
        out.append(Setting("moe_eplb_experts", experts[1], f"{shown_path(path)}: {experts[0]}",
                           FILE, weak=True))
    auto = auto_checkpoint(path, data)
    if auto is not None:
        out.append(Setting("moe_auto_checkpoint", list(auto), f"{shown_path(path)}: "
                           f"architectures, quantization", FILE, weak=True))
    return out


__all__ = ["ALGO_QUANTIZATIONS", "COMPRESSED", "DTYPES_JSON", "DTYPE_ITEMSIZE",
           "ENV_A2A_WORKSPACE_MB", "ENV_CONFIGURABLE_MOE", "ENV_FORCE_COMM", "ENV_FORCE_METHOD",
           "ENV_WIDE_EP",
           "EXPERT_KEYS", "HF_QUANT_CONFIG", "METHOD_QUANTIZATIONS", "NEITHER_METHODS",
           "TEXT_CONFIG_EXPERTS", "auto_checkpoint", "compressed_quantization", "eplb_experts",
           "dtype_name", "environment", "inline_quantization", "is_modelopt",
           "modelopt_quantization",
           "moe_config", "token_settings", "token_size"]
