"""Run vLLM 0.33's own ladder, mode-resolution, dispatch and buffer code on CPU.

Every answer here comes from calling vLLM's functions on vLLM's objects; the glue only builds
the inputs (real `SchedulerConfig` / `CompilationConfig`, a `VllmConfig` and
`SpeculativeConfig` made with `object.__new__` because their `__post_init__` needs a model from
the Hugging Face hub) and turns the results into plain tuples. What is called, with
vllm/... file:line of vLLM 0.33.0:

- T >= S, T >= max_model_len: `SchedulerConfig.__init__` -> `verify_max_model_len`
  (config/scheduler.py:317-343).
- lookahead check, DFlash/DSpark active-sequence cap:
  `VllmConfig._set_max_num_scheduled_tokens` (config/vllm.py:2341-2396).
- config ladder: `VllmConfig._set_cudagraph_sizes` (config/vllm.py:2398-2654).
- mode resolution and the V1 rounding: `CompilationConfig.set_splitting_ops_for_v1`
  (config/compilation.py:1162), `resolve_cudagraph_mode_and_sizes` (1376-1535) ->
  `adjust_cudagraph_sizes_for_spec_decode` (1537-1565).
- V1 target dispatch: `CudagraphDispatcher.__init__` / `initialize_cudagraph_keys` / `dispatch`
  (v1/cudagraph_dispatcher.py:34, 164, 244), `uniform_decode` as
  `GPUModelRunner._is_uniform_decode` decides it (v1/worker/gpu_model_runner.py:3620).
- runner checks: `VllmConfig._validate_v1_model_runner` / `_validate_v2_model_runner`
  (config/vllm.py:2092-2096, 3053-3151: dspark is V2-only, suffix V1-only...).
- the drafters, built before the mode is resolved as the runners build them: V1
  `EagleProposer` / `DraftModelProposer` / `DFlashProposer` / `ExtractHiddenStatesProposer`
  `__init__` (v1/worker/gpu_model_runner.py:598-662; v1/spec_decode/llm_base_proposer.py:73-300,
  dflash.py:24-87, extract_hidden_states.py:29-82), MRV2 `init_speculator`
  (v1/worker/gpu/spec_decode/__init__.py:14-94): their tensors are the drafter buffers.
- V1 drafter dispatch: the proposer's own `CudagraphDispatcher`
  (v1/spec_decode/llm_base_proposer.py:181), keyed by its `initialize_cudagraph_keys`
  (:420-435; extract_hidden_states.py:243), dispatched as
  `_determine_batch_execution_and_padding` (:1773-1781).
- V2 target: `resolve_cudagraph_mode_and_sizes(use_v2_model_runner=True)`
  (v1/worker/gpu/model_runner.py:756), `CudaGraphManager.__init__` / `_init_candidates` /
  `dispatch` (v1/worker/gpu/cudagraph_utils.py:149, 274, 523).
- V2 drafters: the speculator's `init_cudagraph_manager` (DFlash/DSpark: dflash/
  speculator.py:143-167 -> `DFlashCudaGraphManager`, dispatched with `uniform_token_count` =
  its query per request as `propose` does (:565-574); EAGLE/MTP: target_dependent_ar/
  speculator.py:89-107 -> the prefill `SpeculatorCudaGraphManager`, dispatched with the
  target's padded batch (:250-266)).
- block-table width: `get_block_table_width` (v1/worker/block_table.py:29-41), as
  `MultiGroupBlockTable` applies it (:236-245).
- attention backends' levels: each `AttentionBackendEnum` member's builder class
  (`_cudagraph_support`, and whether it overrides `get_cudagraph_support`).

Stubs (tests/oracle/vllm_stubs.py): the grammar engines, the platform (capability, pinned
memory); and, in `vllm()` below, `get_pp_group` for `CudaGraphManager` (no process group on
CPU), the target-model registry lookup of `DraftModelSpeculator` and Triton presence for
`NgramGPUSpeculator` (each with its reason).
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace as NS
from typing import Any

from tests.oracle import vllm_stubs
from tests.oracle.paths import require, version

VERSION = version("vllm")  # the release this process imports (GRAPHFIT_ORACLE_VLLM)

MODES = ("NONE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE")
SUPPORT_LEVELS = ("NEVER", "UNIFORM_SINGLE_TOKEN_DECODE", "UNIFORM_BATCH", "ALWAYS")
METHODS = ("ngram", "ngram_gpu", "suffix", "draft_model", "eagle", "eagle3", "mtp", "dflash",
           "dspark", "extract_hidden_states")
# methods whose V1 runner builds a drafter with its own CudagraphDispatcher
# (gpu_model_runner.py:6801-6815: use_eagle() or uses_draft_model() or extract_hidden_states)
V1_DRAFTER_METHODS = ("draft_model", "eagle", "eagle3", "mtp", "dflash", "dspark",
                      "extract_hidden_states")

Key = tuple[str, int, int | None]  # (runtime mode, padded num_tokens, num_reqs) ; NONE: None


@dataclass(frozen=True)
class Case:
    """One vLLM configuration, in vLLM's terms.

    `support` is the cudagraph support (AttentionCGSupport) of the target model's attention
    layers; `draft_support` the draft model's layers', default `support`. The runner resolves
    its mode with the minimum over ALL layers, the draft's included (`min_support`).
    `dspark_fill_in` models a DSpark draft whose hf_config says `sample_from_anchor=False`.
    """

    S: int
    T: int = 8192
    k: int = 0
    method: str | None = None
    mode: str = "FULL_AND_PIECEWISE"
    sizes: tuple[int, ...] | None = None
    max_size: int | None = None
    performance_mode: str = "balanced"
    blackwell: bool = False
    enforce_eager: bool = False
    support: str = "ALWAYS"
    draft_support: str | None = None
    dspark_fill_in: bool = False
    max_model_len: int = 8192
    # vLLM 0.34's split capture-size keys of CompilationConfig, as (key, value) pairs (lists
    # as tuples); graphfit's EngineConfig fields of the same names
    split: tuple[tuple[str, object], ...] = ()
    # how many target layers the draft config names for its aux hidden states
    # (eagle_aux_hidden_state_layer_ids); graphfit's draft_aux_layers (dflash/dspark)
    aux_layers: int = 1

    @property
    def q(self) -> int:
        return 1 + self.k


@dataclass
class ConfigResult:
    """`_set_max_num_scheduled_tokens` + `_set_cudagraph_sizes`, or the exception raised."""

    error: str | None
    sizes: tuple[int, ...] = ()
    max_size: int = 0
    mode: str = "NONE"
    num_lookahead_tokens: int = 0
    max_num_active_seqs: int | None = None
    # 0.34 and later (`_split_cudagraph_capture_sizes`, config/vllm.py:2558-2737): the
    # prefill graphs' token counts and the decode graphs' request counts; None before 0.34
    prefill_sizes: tuple[int, ...] | None = None
    decode_requests: tuple[int, ...] | None = None


@dataclass
class RunnerResult:
    """A runner after mode resolution: its dispatchers, or the exception raised."""

    runner: str
    error: str | None
    mode: str = "NONE"
    sizes: tuple[int, ...] = ()
    max_size: int = 0
    drafter_mode: str | None = None  # the mode the drafter's keys/manager were built with
    target: Any = field(default=None, repr=False)
    drafter: Any = field(default=None, repr=False)  # V1 dispatcher / V2 query or prefill
    drafter_decode: Any = field(default=None, repr=False)  # V2 EAGLE decode-step manager
    drafter_width: int = 0  # V2 DFlash/DSpark: query tokens per request
    # V2 draft prefill: tokens per request the drafter adds to the target's batch (0.34's
    # draft_model: a correction slot, standalone_ar/speculator.py:62-73, 367-388)
    drafter_expansion: int = 0
    drafter_buffers: dict[str, tuple[int, ...]] | None = None  # the real drafter's tensors
    config: Any = field(default=None, repr=False)  # the VllmConfig, mode and sizes resolved
    proposer: Any = field(default=None, repr=False)  # the real drafter (V1) / speculator (V2)
    S: int = 0
    q: int = 1

    # -- dispatch, as plain tuples -------------------------------------------------------
    def target_mixed(self, n: int) -> Key:
        """A batch of n tokens that is not a uniform decode."""
        if self.runner == "v1":
            mode, desc = self.target.dispatch(n, uniform_decode=False)
            return _key(mode, desc.num_tokens, desc.num_reqs)
        desc = self.target.dispatch(min(n, self.S), n, None, 0, max_query_len=None)
        return _key(desc.cg_mode, desc.num_tokens, desc.num_reqs)

    def target_uniform(self, r: int) -> Key:
        """r requests of q tokens each (what the runners classify as a uniform decode)."""
        n = r * self.q
        if self.runner == "v1":
            mode, desc = self.target.dispatch(n, uniform_decode=True)
            return _key(mode, desc.num_tokens, desc.num_reqs)
        desc = self.target.dispatch(r, n, self.q, 0, max_query_len=self.q)
        return _key(desc.cg_mode, desc.num_tokens, desc.num_reqs)

    def drafter_tokens(self, n: int) -> Key | None:
        """V1 drafter pass of n tokens (None: the runner builds no such dispatcher)."""
        if self.drafter is None or self.runner != "v1":
            return None
        mode, desc = self.drafter.dispatch(n)
        return _key(mode, desc.num_tokens, desc.num_reqs)

    def drafter_query(self, r: int) -> Key | None:
        """V2 DFlash/DSpark query of r requests x width tokens, dispatched as `propose` does
        (dflash/speculator.py:565-574); None: no such manager."""
        if self.drafter is None or self.runner != "v2" or not self.drafter_width:
            return None
        w = self.drafter_width
        desc = self.drafter.dispatch(r, r * w, w, 0)
        return _key(desc.cg_mode, desc.num_tokens, desc.num_reqs)

    def drafter_prefill(self, num_reqs: int, n: int, uniform: bool) -> Key | None:
        """V2 EAGLE/MTP draft prefill of the target's (padded) batch (target_dependent_ar/
        speculator.py:250-266); None: no prefill manager."""
        if self.drafter is None or self.runner != "v2" or self.drafter_width:
            return None
        e = self.drafter_expansion
        desc = self.drafter.dispatch(num_reqs, n + e * num_reqs,
                                     self.q + e if uniform else None, 0)
        return _key(desc.cg_mode, desc.num_tokens, desc.num_reqs)


def _key(mode: Any, padded: int, num_reqs: int | None) -> Key:
    name = mode.name
    return (name, padded, None if name == "NONE" else num_reqs)


def _err(where: str, exc: BaseException) -> str:
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    # pydantic wraps a validator's ValueError as "Value error, <message> [type=...]"
    wrapped = [ln.split("Value error, ", 1)[1].split(" [type=")[0] for ln in lines
               if "Value error, " in ln]
    text = wrapped[0] if wrapped else (lines or [""])[0]
    return f"{where}: {type(exc).__name__}: {text}"


class _Rejected(Exception):
    """A config object's constructor refused the input (the message says which)."""


# -- import ----------------------------------------------------------------------------

@functools.cache
def vllm() -> NS:
    """Import vLLM's modules once (about 6 s); returns them in a namespace."""
    root: Path = require("vllm")
    vllm_stubs.install(root)
    import vllm.v1.worker.gpu.cudagraph_utils as cg_utils
    import vllm.v1.worker.gpu.spec_decode.ngram.speculator as ngram_speculator
    import vllm.v1.worker.gpu.spec_decode.speculator as speculator
    from vllm.config import CompilationConfig, SchedulerConfig, SpeculativeConfig, VllmConfig
    from vllm.config.compilation import CompilationMode, CUDAGraphMode
    from vllm.v1.attention.backend import AttentionCGSupport, AttentionMetadataBuilder
    from vllm.v1.attention.backends.registry import AttentionBackendEnum
    from vllm.v1.worker.gpu.spec_decode import init_speculator

    v1 = _v1_modules()

    # CudaGraphManager.__init__ asks the pipeline-parallel group whether it is the first /
    # last rank (cudagraph_utils.py:165-166); no process group exists on CPU: one rank.
    cg_utils.get_pp_group = lambda: NS(is_first_rank=True, is_last_rank=True)
    # DraftModelSpeculator.__init__ resolves the TARGET model class from the model registry
    # to see whether it feeds the drafter an HC residual (speculator.py:47-57, DeepSeek V4);
    # the oracle has no target checkpoint, and graphfit models no such target.
    speculator._target_feeds_hc_residual = lambda vllm_config: False
    # NgramGPUSpeculator refuses to start without Triton (ngram/speculator.py:163-164); its
    # buffers are plain tensors sized with vLLM's own cdiv, nothing else needs Triton.
    ngram_speculator.HAS_TRITON = True
    # ...and for short max_model_len it rounds a block to a power of two with triton's helper,
    # which vLLM's no-triton placeholder (vllm/triton_utils) lacks
    placeholder = ngram_speculator.triton
    if not hasattr(placeholder, "next_power_of_2"):
        placeholder.next_power_of_2 = lambda n: 1 << max(int(n) - 1, 0).bit_length()
    try:  # 0.34: suffix decoding runs on V2 and refuses to start without Triton too
        # (suffix/speculator.py:509-510); its tables are tensors sized with triton's helpers
        import vllm.v1.worker.gpu.spec_decode.suffix.speculator as suffix_speculator
    except ImportError:
        pass
    else:
        suffix_speculator.HAS_TRITON = True
        helpers = suffix_speculator.triton
        if not hasattr(helpers, "next_power_of_2"):
            helpers.next_power_of_2 = lambda n: 1 << max(int(n) - 1, 0).bit_length()
        if not hasattr(helpers, "cdiv"):
            helpers.cdiv = lambda a, b: -(-a // b)
    import vllm.config.vllm as config_module

    if hasattr(config_module, "HAS_TRITON"):
        # 0.32's `_validate_v2_model_runner` refuses to start without Triton (config/vllm.py:
        # 3187-3190); graphfit models CUDA GPUs, where Triton is present
        config_module.HAS_TRITON = True
    logging.getLogger("vllm").setLevel(logging.ERROR)  # downgrade/rounding warnings: noise
    return NS(CompilationConfig=CompilationConfig, SchedulerConfig=SchedulerConfig,
              SpeculativeConfig=SpeculativeConfig, VllmConfig=VllmConfig,
              CompilationMode=CompilationMode, CUDAGraphMode=CUDAGraphMode,
              AttentionCGSupport=AttentionCGSupport,
              AttentionMetadataBuilder=AttentionMetadataBuilder,
              AttentionBackendEnum=AttentionBackendEnum,
              CudaGraphManager=cg_utils.CudaGraphManager, init_speculator=init_speculator,
              cg_utils=cg_utils, version=VERSION, **v1)


def _v1_modules() -> dict[str, Any]:
    """The V1 runner's dispatcher and proposers, or None each where the release deleted them
    (0.34 removed `v1/cudagraph_dispatcher.py` and every V1 proposer under `v1/spec_decode/`;
    `block_table.py` went with the V1 runner too)."""
    names = {"CudagraphDispatcher": "vllm.v1.cudagraph_dispatcher",
             "DFlashProposer": "vllm.v1.spec_decode.dflash",
             "DraftModelProposer": "vllm.v1.spec_decode.draft_model",
             "EagleProposer": "vllm.v1.spec_decode.eagle",
             "ExtractHiddenStatesProposer": "vllm.v1.spec_decode.extract_hidden_states",
             "get_block_table_width": "vllm.v1.worker.block_table"}
    import importlib

    out: dict[str, Any] = {}
    for attr, module in names.items():
        try:
            out[attr] = getattr(importlib.import_module(module), attr)
        except ImportError:
            out[attr] = None
    return out


def has_v1() -> bool:
    """Whether this release still ships the V1 model runner (0.33 and earlier)."""
    return vllm().CudagraphDispatcher is not None


# -- building the config objects --------------------------------------------------------

@dataclass
class _Parallel:
    """One rank: the `ParallelConfig` fields the called code reads (a dataclass because the
    DFlash speculator `replace()`s it)."""

    data_parallel_rank: int = 0
    data_parallel_size: int = 1
    tensor_parallel_size: int = 1
    pipeline_parallel_size: int = 1
    prefill_context_parallel_size: int = 1
    decode_context_parallel_size: int = 1
    distributed_executor_backend: str = "mp"
    use_ubatching: bool = False
    enable_batch_sharded_sampling: bool = False
    rank: int = 0


def _new(cls: type, **attrs: Any) -> Any:
    """An instance without running `__init__`/`__post_init__`, carrying `attrs`."""
    obj = object.__new__(cls)
    for name, value in attrs.items():
        object.__setattr__(obj, name, value)
    return obj


def _build(case: Case) -> NS:
    """Fresh config objects for one case (the methods below mutate them)."""
    v = vllm()
    vllm_stubs.set_capability(case.blackwell)
    try:
        scheduler = v.SchedulerConfig(max_num_seqs=case.S, max_num_batched_tokens=case.T,
                                      max_model_len=case.max_model_len,
                                      is_encoder_decoder=False)
    except Exception as exc:  # pydantic ValidationError wrapping verify_max_model_len's
        raise _Rejected(_err("SchedulerConfig", exc)) from None
    user: dict[str, Any] = {}  # only what a user sets, as EngineArgs passes it
    if case.sizes is not None:
        user["cudagraph_capture_sizes"] = list(case.sizes)
    if case.max_size is not None:
        user["max_cudagraph_capture_size"] = case.max_size
    for key, value in case.split:
        user[key] = list(value) if isinstance(value, tuple) else value
    try:
        compilation = v.CompilationConfig(mode=v.CompilationMode.VLLM_COMPILE,
                                          cudagraph_mode=case.mode, **user)
    except Exception as exc:
        raise _Rejected(_err("CompilationConfig", exc)) from None
    spec = None
    if case.method is not None:
        # the draft checkpoint's config: only what the code paths below read
        hf_config = NS(model_type=case.method, dflash_config={"mask_token_id": 0},
                       num_hidden_layers=1, hidden_size=8, architectures=["OracleDraft"],
                       eagle_aux_hidden_state_layer_ids=list(range(1, case.aux_layers + 1)),
                       layer_types=None)
        if case.method == "dspark" and case.dspark_fill_in:
            hf_config.sample_from_anchor = False
        draft_model = NS(hf_config=hf_config, get_hidden_size=lambda: 8,
                         get_inputs_embeds_size=lambda: 8, get_vocab_size=lambda: 32,
                         uses_mrope=False, use_mla=False, architectures=["OracleDraft"],
                         max_model_len=case.max_model_len)
        one_rank = NS(tensor_parallel_size=1, rank=0)
        spec = _new(v.SpeculativeConfig, method=case.method, num_speculative_tokens=case.k,
                    num_speculative_tokens_per_batch_size=None, enforce_eager=False,
                    draft_model_config=draft_model,
                    # SpeculativeConfig.__post_init__ sets it for dflash and dspark (:1581)
                    parallel_drafting=case.method in ("dflash", "dspark"),
                    use_local_argmax_reduction=False, use_heterogeneous_vocab=False,
                    rejection_sample_method="standard", draft_sample_method="greedy",
                    disable_padded_drafter_batch=False, enable_adaptive_verification=False,
                    draft_lm_head_quantization=None, kv_cache_dtype=None,
                    target_parallel_config=one_rank, draft_parallel_config=one_rank,
                    prompt_lookup_min=2, prompt_lookup_max=4)
    import torch

    model = NS(enforce_eager=case.enforce_eager, dtype=torch.float32,
               max_model_len=case.max_model_len, use_fp64_gumbel=False,
               get_vocab_size=lambda: 32, get_hidden_size=lambda: 8,
               supports_multimodal_inputs=False, uses_mrope=False, is_diffusion=False,
               architecture="LlamaForCausalLM", architectures=["LlamaForCausalLM"])
    parallel = _Parallel()
    config = _new(v.VllmConfig, speculative_config=spec, scheduler_config=scheduler,
                  compilation_config=compilation, model_config=model,
                  performance_mode=case.performance_mode, diffusion_config=None,
                  lora_config=None, parallel_config=parallel,
                  attention_config=NS(use_non_causal=False, hisparse_config=None),
                  cache_config=NS(use_kda_recoverssm=False))
    return NS(config=config, compilation=compilation, scheduler=scheduler, spec=spec)


def _configure(case: Case) -> tuple[NS | None, ConfigResult]:
    """Run the config-time code; the objects are returned for the runners to continue."""
    v = vllm()
    try:
        built = _build(case)
    except _Rejected as exc:
        return None, ConfigResult(str(exc))
    config, compilation = built.config, built.compilation
    if case.enforce_eager:
        # VllmConfig.__post_init__ (config/vllm.py:1766-1768) turns graphs off before sizing
        compilation.cudagraph_mode = v.CUDAGraphMode.NONE
    try:
        v.VllmConfig._set_max_num_scheduled_tokens(config)
    except Exception as exc:
        return None, ConfigResult(_err("_set_max_num_scheduled_tokens", exc))
    try:
        v.VllmConfig._set_cudagraph_sizes(config)
    except Exception as exc:
        return None, ConfigResult(_err("_set_cudagraph_sizes", exc))
    split = getattr(compilation, "prefill_cudagraph_capture_token_sizes", None)
    return built, ConfigResult(
        None, tuple(compilation.cudagraph_capture_sizes),
        compilation.max_cudagraph_capture_size, compilation.cudagraph_mode.name,
        config.num_lookahead_tokens, built.scheduler.max_num_active_seqs,
        None if split is None else tuple(split),
        None if split is None else tuple(
            compilation.decode_cudagraph_capture_request_sizes or ()))


@functools.lru_cache(maxsize=4096)
def config_ladder(case: Case) -> ConfigResult:
    """The config's capture sizes and max (what a drafter's `__init__` sees), or the error."""
    return _configure(case)[1]


# the methods whose drafter is a model with attention layers in the runner's KV-cache groups
DRAFT_ATTENTION_METHODS = ("draft_model", "eagle", "eagle3", "mtp", "dflash", "dspark")


def min_support(case: Case) -> str:
    """The level the runner resolves its mode with: the minimum over every attention layer,
    the draft model's included (0.33 V1: `_check_and_update_cudagraph_mode` over every KV-cache
    group, gpu_model_runner.py:6710-6719, 6771-6795; MRV2: `get_attn_cg_support` over every
    attention group, attn_utils.py:314-338, called from model_runner.py:688-697)."""
    if case.method in DRAFT_ATTENTION_METHODS and case.draft_support is not None:
        return min(case.support, case.draft_support, key=SUPPORT_LEVELS.index)
    return case.support


def _support(name: str) -> Any:
    return vllm().AttentionCGSupport[name]


def _tensors(obj: Any) -> dict[str, tuple[int, ...]]:
    """Shapes of an object's device tensors (CPU staging copies of CpuGpuBuffers excluded:
    vLLM allocates those on the host, pinned)."""
    import torch

    out: dict[str, tuple[int, ...]] = {}
    for name, value in vars(obj).items():
        if isinstance(value, torch.Tensor) and value.dim() > 0:
            out[name] = tuple(value.shape)
        elif hasattr(value, "gpu") and isinstance(value.gpu, torch.Tensor):
            out[name] = tuple(value.gpu.shape)  # CpuGpuBuffer
    buffers = getattr(obj, "input_buffers", None)  # MRV2 speculators' own InputBuffers
    if buffers is not None:
        out.update({f"input_buffers.{n}": tuple(t.shape) for n, t in vars(buffers).items()
                    if isinstance(t, torch.Tensor)})
    return out


def _v1_drafter(case: Case, config: Any) -> Any:
    """The V1 runner's drafter as `GPUModelRunner.__init__` builds it (gpu_model_runner.py:
    598-662), before the mode is resolved; None for methods without one."""
    import torch

    v = vllm()
    cls = {"dflash": v.DFlashProposer, "draft_model": v.DraftModelProposer,
           "extract_hidden_states": v.ExtractHiddenStatesProposer}.get(
        case.method or "", v.EagleProposer if case.method in V1_DRAFTER_METHODS else None)
    if cls is None:
        return None
    proposer = object.__new__(cls)
    proposer.block_size = 16  # set by the attention backend init; only a warmup key here
    cls.__init__(proposer, config, torch.device("cpu"))
    return proposer


@functools.lru_cache(maxsize=512)
def runner(case: Case, which: str = "v1") -> RunnerResult:
    """Validate the config for the V1 or V2 runner, build its drafter, resolve the mode and
    build the dispatchers (target, drafter), as the runner does at start-up."""
    import torch

    v = vllm()
    built, cfg = _configure(case)
    if built is None:
        return RunnerResult(which, cfg.error)
    if which == "v1" and not has_v1():
        return RunnerResult(which, v1_removed())
    config, compilation = built.config, built.compilation
    q = config.uniform_decode_query_len
    validate = getattr(v.VllmConfig, f"_validate_{which}_model_runner", None)
    try:
        if validate is not None:  # 0.33: VllmConfig.__post_init__ (config/vllm.py:2092-2096)
            validate(config)
    except Exception as exc:
        return RunnerResult(which, _err(f"{which} runner", exc))
    compilation.set_splitting_ops_for_v1(all2all_backend="allgather_reducescatter")
    cpu = torch.device("cpu")
    drafter_obj: Any = None
    try:
        if which == "v1":
            drafter_obj = _v1_drafter(case, config)
        elif case.method is not None:
            drafter_obj = v.init_speculator(config, cpu, NS())
    except Exception as exc:
        return RunnerResult(which, _err(f"{which} drafter", exc))
    try:
        mode = compilation.resolve_cudagraph_mode_and_sizes(
            _support(min_support(case)), "oracle", q, kv_cache_config=None,
            max_num_reqs=case.S,
            is_profiling=False, piecewise_capture_available=True, **_runner_kw(which))
    except Exception as exc:
        return RunnerResult(which, _err("resolve_cudagraph_mode_and_sizes", exc))
    out = RunnerResult(which, None, mode.name, tuple(compilation.cudagraph_capture_sizes or ()),
                       compilation.max_cudagraph_capture_size or 0, S=case.S, q=q)
    out.config, out.proposer = config, drafter_obj
    if drafter_obj is not None:
        out.drafter_buffers = _tensors(drafter_obj)
    try:
        if which == "v1":
            out.target = v.CudagraphDispatcher(config)
            out.target.initialize_cudagraph_keys(mode, q)
            if isinstance(drafter_obj, (v.EagleProposer, v.DFlashProposer,
                                        v.DraftModelProposer, v.ExtractHiddenStatesProposer)):
                drafter_obj.initialize_cudagraph_keys(mode)
                out.drafter = drafter_obj.cudagraph_dispatcher
                out.drafter_mode = out.drafter.cudagraph_mode.name
        else:
            out.target = _v2_manager(config, cpu, mode, q)
            out.target._graphs_captured = True  # capture needs a GPU; dispatch reads this flag
            if drafter_obj is not None:
                draft_support = _support(case.draft_support or case.support)
                drafter_obj.attn_cg_support = NS(min_cg_support=draft_support,
                                                 min_cg_attn_backend="oracle")  # set_attn's
                drafter_obj.init_cudagraph_manager(mode)
                query = getattr(drafter_obj, "query_cudagraph_manager", None)
                manager = query or getattr(drafter_obj, "prefill_cudagraph_manager", None)
                if manager is not None:
                    manager._graphs_captured = True
                    out.drafter = manager
                    out.drafter_mode = manager.cudagraph_mode.name
                if query is not None:
                    out.drafter_width = query.decode_query_len
                elif manager is not None:
                    out.drafter_expansion = getattr(manager, "decode_query_len", q) - q
                decode = getattr(drafter_obj, "decode_cudagraph_manager", None)
                if decode is not None:
                    decode._graphs_captured = True
                    out.drafter_decode = decode
    except Exception as exc:
        out.error = _err(f"{which} dispatcher", exc)
    return out


def _runner_kw(which: str) -> dict[str, Any]:
    """0.33's `resolve_cudagraph_mode_and_sizes` takes the runner (the V1 one rounds the
    sizes, compilation.py:1529-1535); 0.34 has one runner and no such argument."""
    import inspect

    fn = vllm().CompilationConfig.resolve_cudagraph_mode_and_sizes
    if "use_v2_model_runner" in inspect.signature(fn).parameters:
        return {"use_v2_model_runner": which == "v2"}
    return {}


def _v2_manager(config: Any, device: Any, mode: Any, q: int) -> Any:
    """The target's `CudaGraphManager` as the V2 runner builds it: 0.33 passes the decode query
    length (model_runner.py:756-760); 0.34 a map query length -> most requests
    (`get_decode_cudagraph_query_lens`, model_runner.py:801-811)."""
    import inspect

    v = vllm()
    if "decode_query_lens" in inspect.signature(v.CudaGraphManager.__init__).parameters:
        return v.CudaGraphManager(config, device, mode,
                                  decode_query_lens=config.get_decode_cudagraph_query_lens(q))
    return v.CudaGraphManager(config, device, mode, q)


def v1_removed() -> str:
    """What a release without the V1 runner says to `VLLM_USE_V2_MODEL_RUNNER=0`: its own
    `Platform.validate_environ` (0.34: platforms/interface.py:1476-1491)."""
    import os

    from vllm.platforms.interface import Platform

    saved = os.environ.get("VLLM_USE_V2_MODEL_RUNNER")
    os.environ["VLLM_USE_V2_MODEL_RUNNER"] = "0"
    try:
        Platform.validate_environ(hard_fail=False)
    except ValueError as exc:
        return _err("v1 runner", exc)
    finally:
        if saved is None:
            del os.environ["VLLM_USE_V2_MODEL_RUNNER"]
        else:
            os.environ["VLLM_USE_V2_MODEL_RUNNER"] = saved
    return "v1 runner: accepted"


# -- buffers ------------------------------------------------------------------------------

@functools.lru_cache(maxsize=256)
def dflash_v1_buffers(case: Case) -> dict[str, int] | str:
    """Rows of the V1 DFlash proposer's buffers, from `DFlashProposer.__init__` run on CPU.

    The proposer is built after the config ladder and before the runner's rounding
    (gpu_model_runner.py:646 then 6786), so it sees the config's max capture size.
    """
    assert case.method == "dflash"
    run = runner(case, "v1")
    if run.error is not None or run.drafter_buffers is None:
        return str(run.error)
    shapes = run.drafter_buffers
    rows = {name: shapes[attr][0] for name, attr in (
        ("input_ids", "input_ids"), ("positions", "positions"),
        ("slot_mapping_buffer", "_slot_mapping_buffer"), ("arange", "arange"),
        ("hidden_states", "hidden_states"), ("context_positions", "_context_positions_buffer"),
        ("context_slot_mapping", "_context_slot_mapping_buffer"),
        ("inputs_embeds", "inputs_embeds"), ("backup_next_token_ids", "backup_next_token_ids"))}
    return rows


def backend_support(name: str) -> tuple[str, bool] | None:
    """The support level an attention backend's metadata builder declares, and whether its
    `get_cudagraph_support` is its own (the level may then depend on the GPU, the model or
    the KV dtype); None when the backend cannot be imported on CPU."""
    import importlib

    v = vllm()
    path = v.AttentionBackendEnum[name].value
    if not path:
        return None
    module, _, cls = path.rpartition(".")
    try:
        builder = getattr(importlib.import_module(module), cls).get_builder_cls()
    except Exception:  # CUDA-only kernels, optional packages (flashinfer, torchvision)
        return None
    own = (builder.get_cudagraph_support.__func__
           is not v.AttentionMetadataBuilder.get_cudagraph_support.__func__)
    return builder._cudagraph_support.name, own


def block_table_width(max_model_len: int, block_size: int) -> int:
    """Columns of the V1 block table: cdiv(max_model_len, block_size) (gpu_model_runner.py:
    707) aligned to 128 tokens by `get_block_table_width` (block_table.py:29-41, 236-245)."""
    return vllm().get_block_table_width(-(-max_model_len // block_size), block_size)
