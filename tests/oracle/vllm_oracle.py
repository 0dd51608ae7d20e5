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
- V1 drafter dispatch: a `CudagraphDispatcher(vllm_config)` as `SpecDecodeBaseProposer.__init__`
  builds it (v1/spec_decode/llm_base_proposer.py:181), keyed by
  `SpecDecodeBaseProposer.initialize_cudagraph_keys` (:420-435) or
  `ExtractHiddenStatesProposer.initialize_cudagraph_keys` (v1/spec_decode/
  extract_hidden_states.py:243), dispatched as `_determine_batch_execution_and_padding`
  (:1773-1781).
- V2 target: `resolve_cudagraph_mode_and_sizes(use_v2_model_runner=True)`
  (v1/worker/gpu/model_runner.py:756), `CudaGraphManager.__init__` / `_init_candidates` /
  `dispatch` (v1/worker/gpu/cudagraph_utils.py:149, 274, 523).
- V2 DFlash drafter: `DFlashSpeculator.init_cudagraph_manager` (v1/worker/gpu/spec_decode/
  dflash/speculator.py:143-167) -> `DFlashCudaGraphManager`, dispatched with
  `uniform_token_count=q` as `propose` does (:565-574).
- V1 DFlash buffers: `DFlashProposer.__init__` (v1/spec_decode/dflash.py:24-87) run on CPU.
- block-table width: `get_block_table_width` (v1/worker/block_table.py:29-41), as
  `MultiGroupBlockTable` applies it (:236-245).

Stubs (tests/oracle/vllm_stubs.py): the grammar engines, the platform (capability, pinned
memory) and, here, `get_pp_group` for `CudaGraphManager` (no process group on CPU).
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace as NS
from typing import Any

from tests.oracle import vllm_stubs
from tests.oracle.paths import require

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

    `support` is the attention backends' minimum cudagraph support (AttentionCGSupport) the
    target runner sees; `draft_support` the DFlash draft attention's (V2), default `support`.
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
    drafter: Any = field(default=None, repr=False)
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
        """V2 DFlash query of r requests x q tokens (None: no DFlash V2 manager)."""
        if self.drafter is None or self.runner != "v2":
            return None
        desc = self.drafter.dispatch(r, r * self.q, self.q, 0)
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
    from vllm.config import CompilationConfig, SchedulerConfig, SpeculativeConfig, VllmConfig
    from vllm.config.compilation import CompilationMode, CUDAGraphMode
    from vllm.v1.attention.backend import AttentionCGSupport
    from vllm.v1.cudagraph_dispatcher import CudagraphDispatcher
    from vllm.v1.spec_decode.dflash import DFlashProposer
    from vllm.v1.spec_decode.extract_hidden_states import ExtractHiddenStatesProposer
    from vllm.v1.spec_decode.llm_base_proposer import SpecDecodeBaseProposer
    from vllm.v1.worker.block_table import get_block_table_width
    from vllm.v1.worker.gpu.spec_decode.dflash.speculator import DFlashSpeculator

    # CudaGraphManager.__init__ asks the pipeline-parallel group whether it is the first /
    # last rank (cudagraph_utils.py:165-166); no process group exists on CPU: one rank.
    cg_utils.get_pp_group = lambda: NS(is_first_rank=True, is_last_rank=True)
    logging.getLogger("vllm").setLevel(logging.ERROR)  # downgrade/rounding warnings: noise
    return NS(CompilationConfig=CompilationConfig, SchedulerConfig=SchedulerConfig,
              SpeculativeConfig=SpeculativeConfig, VllmConfig=VllmConfig,
              CompilationMode=CompilationMode, CUDAGraphMode=CUDAGraphMode,
              AttentionCGSupport=AttentionCGSupport, CudagraphDispatcher=CudagraphDispatcher,
              CudaGraphManager=cg_utils.CudaGraphManager, DFlashProposer=DFlashProposer,
              DFlashSpeculator=DFlashSpeculator, SpecDecodeBaseProposer=SpecDecodeBaseProposer,
              ExtractHiddenStatesProposer=ExtractHiddenStatesProposer,
              get_block_table_width=get_block_table_width)


# -- building the config objects --------------------------------------------------------

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
    try:
        compilation = v.CompilationConfig(mode=v.CompilationMode.VLLM_COMPILE,
                                          cudagraph_mode=case.mode, **user)
    except Exception as exc:
        raise _Rejected(_err("CompilationConfig", exc)) from None
    spec = None
    if case.method is not None:
        hf_config = NS(model_type=case.method, dflash_config={"mask_token_id": 0},
                       num_hidden_layers=1, hidden_size=8)
        if case.method == "dspark" and case.dspark_fill_in:
            hf_config.sample_from_anchor = False
        draft_model = NS(hf_config=hf_config, get_hidden_size=lambda: 8,
                         get_inputs_embeds_size=lambda: 8, uses_mrope=False, use_mla=False)
        spec = _new(v.SpeculativeConfig, method=case.method, num_speculative_tokens=case.k,
                    num_speculative_tokens_per_batch_size=None, enforce_eager=False,
                    draft_model_config=draft_model, parallel_drafting=case.method == "dflash",
                    use_local_argmax_reduction=False, use_heterogeneous_vocab=False,
                    rejection_sample_method="standard", draft_sample_method="greedy",
                    disable_padded_drafter_batch=False)
    import torch

    model = NS(enforce_eager=case.enforce_eager, dtype=torch.float32,
               max_model_len=case.max_model_len, use_fp64_gumbel=False,
               get_vocab_size=lambda: 32, supports_multimodal_inputs=False, uses_mrope=False)
    config = _new(v.VllmConfig, speculative_config=spec, scheduler_config=scheduler,
                  compilation_config=compilation, model_config=model,
                  performance_mode=case.performance_mode, diffusion_config=None,
                  lora_config=None,
                  parallel_config=NS(data_parallel_rank=0, data_parallel_size=1,
                                     tensor_parallel_size=1),
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
    return built, ConfigResult(
        None, tuple(compilation.cudagraph_capture_sizes),
        compilation.max_cudagraph_capture_size, compilation.cudagraph_mode.name,
        config.num_lookahead_tokens, built.scheduler.max_num_active_seqs)


@functools.lru_cache(maxsize=4096)
def config_ladder(case: Case) -> ConfigResult:
    """The config's capture sizes and max (what a drafter's `__init__` sees), or the error."""
    return _configure(case)[1]


def _support(name: str) -> Any:
    return vllm().AttentionCGSupport[name]


@functools.lru_cache(maxsize=512)
def runner(case: Case, which: str = "v1") -> RunnerResult:
    """Resolve the mode for the V1 or V2 runner and build its dispatchers (target, drafter)."""
    v = vllm()
    built, cfg = _configure(case)
    if built is None:
        return RunnerResult(which, cfg.error)
    config, compilation = built.config, built.compilation
    q = config.uniform_decode_query_len
    try:
        compilation.set_splitting_ops_for_v1(all2all_backend="allgather_reducescatter")
        mode = compilation.resolve_cudagraph_mode_and_sizes(
            _support(case.support), "oracle", q, use_v2_model_runner=which == "v2",
            kv_cache_config=None, max_num_reqs=case.S, is_profiling=False,
            piecewise_capture_available=True)
    except Exception as exc:
        return RunnerResult(which, _err("resolve_cudagraph_mode_and_sizes", exc))
    out = RunnerResult(which, None, mode.name, tuple(compilation.cudagraph_capture_sizes or ()),
                       compilation.max_cudagraph_capture_size or 0, S=case.S, q=q)
    method = case.method
    try:
        if which == "v1":
            out.target = v.CudagraphDispatcher(config)
            out.target.initialize_cudagraph_keys(mode, q)
            if method in V1_DRAFTER_METHODS:
                drafter = NS(vllm_config=config, speculative_config=built.spec,
                             cudagraph_dispatcher=v.CudagraphDispatcher(config))
                cls = (v.ExtractHiddenStatesProposer if method == "extract_hidden_states"
                       else v.SpecDecodeBaseProposer)
                cls.initialize_cudagraph_keys(drafter, mode)
                out.drafter = drafter.cudagraph_dispatcher
                out.drafter_mode = out.drafter.cudagraph_mode.name
        else:
            import torch

            out.target = v.CudaGraphManager(config, torch.device("cpu"), mode, q)
            out.target._graphs_captured = True  # capture needs a GPU; dispatch reads this flag
            if method == "dflash":
                draft_support = _support(case.draft_support or case.support)
                speculator = NS(vllm_config=config, device=torch.device("cpu"),
                                num_query_per_req=q, _speculator_name="DFlash",
                                attn_cg_support=NS(min_cg_support=draft_support,
                                                   min_cg_attn_backend="oracle"))
                v.DFlashSpeculator.init_cudagraph_manager(speculator, mode)
                out.drafter = speculator.query_cudagraph_manager
                out.drafter._graphs_captured = True
                out.drafter_mode = out.drafter.cudagraph_mode.name
    except Exception as exc:
        out.error = _err(f"{which} dispatcher", exc)
    return out


# -- buffers ------------------------------------------------------------------------------

@functools.lru_cache(maxsize=256)
def dflash_v1_buffers(case: Case) -> dict[str, int] | str:
    """Rows of the V1 DFlash proposer's buffers, from `DFlashProposer.__init__` run on CPU.

    The proposer is built after the config ladder and before the runner's rounding
    (gpu_model_runner.py:646 then 6786), so it sees the config's max capture size.
    """
    assert case.method == "dflash"
    v = vllm()
    built, cfg = _configure(case)
    if built is None:
        return str(cfg.error)
    import torch

    built.compilation.set_splitting_ops_for_v1(all2all_backend="allgather_reducescatter")
    proposer = object.__new__(v.DFlashProposer)
    proposer.block_size = 16  # set by the attention backend init; only a warmup key here
    try:
        v.DFlashProposer.__init__(proposer, built.config, torch.device("cpu"))
    except Exception as exc:
        return _err("DFlashProposer.__init__", exc)
    rows = {name: int(getattr(proposer, attr).shape[0]) for name, attr in (
        ("input_ids", "input_ids"), ("positions", "positions"),
        ("slot_mapping_buffer", "_slot_mapping_buffer"), ("arange", "arange"),
        ("hidden_states", "hidden_states"), ("context_positions", "_context_positions_buffer"),
        ("context_slot_mapping", "_context_slot_mapping_buffer"),
        ("inputs_embeds", "inputs_embeds"))}
    rows["backup_next_token_ids"] = int(proposer.backup_next_token_ids.gpu.shape[0])
    rows["max_query_tokens"] = proposer.max_query_tokens
    rows["max_padded_query_tokens"] = proposer.max_padded_query_tokens
    return rows


def block_table_width(max_model_len: int, block_size: int) -> int:
    """Columns of the V1 block table: cdiv(max_model_len, block_size) (gpu_model_runner.py:
    707) aligned to 128 tokens by `get_block_table_width` (block_table.py:29-41, 236-245)."""
    return vllm().get_block_table_width(-(-max_model_len // block_size), block_size)
