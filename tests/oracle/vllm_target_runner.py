"""vLLM's own target model runners built on CPU: `GPUModelRunner.__init__` (MRV2, and V1
where the release has it) run as it is, with only what needs a GPU, a process group or a
checkpoint stood in for.

`GPUModelRunner.__init__` (0.34: v1/worker/gpu/model_runner.py:207-378, InputBuffers at
:338; 0.33: the same file from :200, InputBuffers at :327) allocates the target's persistent
input buffers with vLLM's own `InputBuffers` (0.34 input_batch.py:23-39: input_ids,
positions, is_padding, query_start_loc, seq_lens, dcp_local_seq_lens) and its
`RequestState`. What is stood in for holds none of the
buffers graphfit models:

- the device-to-host copy stream (a CUDA stream: 0.34 `new_d2h_stream`, 0.33
  `torch.cuda.Stream`), the pipeline-parallel group (one rank), the JIT warm-up registry,
  step timing, the EPLB controller, the draft-token handler, the encoder-cache connector,
  the offloader and the prefill-context-parallel manager: none of them allocates a buffer
  graphfit models;
- the speculator: `init_speculator` is replaced by the one tests/oracle/vllm_oracle.py built
  with vLLM's own `init_speculator` for the same config (its `replace(parallel_config)` needs
  vLLM's real ParallelConfig dataclass, which the oracle stands in for);
- config fields the oracle's duck-typed configs lack, set to vLLM's defaults for a
  single-rank, non-quantised, text-only generate model.

The V1 runner (0.33: v1/worker/gpu_model_runner.py:479-962) builds its drafter itself
(:598-662, vLLM's own proposer classes) and allocates its buffers as `CpuGpuBuffer`s and an
`InputBatch` whose host halves vLLM pins; CPU-only torch has no pinned allocator, so
`pin_memory=True` is dropped from torch's factories while it runs (same shapes and dtypes,
ordinary host memory). It also reads a few more config fields (set to vLLM's defaults below).

MRV2 builds the block table and slot mapping later, from the KV-cache config
(`initialize_kv_cache`); `initialize_kv_cache` below runs vLLM's own method with a real
`KVCacheConfig` as far as `BlockTables` (V1 has them from `__init__`, in its InputBatch).
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator
from types import SimpleNamespace as NS
from typing import Any

import pytest
import torch


class _Inert:
    """Stands in for a collaborator class that allocates no modelled buffer."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def activate(self) -> contextlib.AbstractContextManager[None]:
        """The JIT warm-up registry's scope (initialize_kv_cache enters it): nothing."""
        return contextlib.nullcontext()


_INERT_CLASSES = ("JitWarmupRegistry", "StepTimingCollector", "EPLBController",
                  "DraftTokensHandler")
_NONE_FUNCS = ("new_d2h_stream", "get_ec_connector", "set_offloader", "create_offloader")


@contextlib.contextmanager
def _cpu_stand_ins(module: Any, speculator: Any) -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(module, "get_pp_group", lambda: NS(is_first_rank=True, is_last_rank=True),
                   raising=False)
        if hasattr(module, "init_speculator"):
            mp.setattr(module, "init_speculator", lambda *args: speculator)
        if hasattr(module, "is_pin_memory_available"):
            mp.setattr(module, "is_pin_memory_available", lambda: False)
        for name in _INERT_CLASSES:
            if hasattr(module, name):
                mp.setattr(module, name, _Inert)
        for name in _NONE_FUNCS:
            if hasattr(module, name):
                mp.setattr(module, name, lambda *args, **kwargs: None)
        pcp = getattr(module, "pcp", None)
        if pcp is not None and hasattr(pcp, "maybe_build_pcp_manager"):
            mp.setattr(pcp, "maybe_build_pcp_manager", lambda *args, **kwargs: None)
        mp.setattr(torch.cuda, "Stream", lambda *args, **kwargs: None)  # 0.33's copy stream
        yield


def _completed(config: Any) -> Any:
    """A copy of the oracle's config with vLLM's defaults for the fields the runner's
    __init__ reads and the oracle's duck-typed configs lack (single rank, auto KV dtype,
    text-only generate model); the oracle's cached config is left as it is."""
    out = copy.copy(config)

    def extended(obj: Any, **defaults: Any) -> NS:
        return NS(**{**defaults, **vars(obj)})

    object.__setattr__(out, "cache_config", extended(config.cache_config, cache_dtype="auto"))
    object.__setattr__(out, "parallel_config", extended(config.parallel_config,
                                                        cp_kv_cache_interleave_size=1))
    object.__setattr__(out, "model_config", extended(
        config.model_config, is_encoder_decoder=False, enable_prompt_embeds=False,
        runner_type="generate", is_moe=False))
    for name in ("load_config", "observability_config", "offload_config"):
        if getattr(config, name, None) is None:
            object.__setattr__(out, name, NS())
    return out


_FACTORIES = ("zeros", "empty", "tensor", "ones", "full", "arange", "empty_strided",
              "zeros_like", "empty_like", "as_tensor")


@contextlib.contextmanager
def _unpinned() -> Iterator[None]:
    """torch's factories with `pin_memory` dropped (no pinned allocator without a GPU)."""
    with pytest.MonkeyPatch.context() as mp:
        for name in _FACTORIES:
            original = getattr(torch, name)

            def unpinned(*args: Any, _original: Any = original, **kwargs: Any) -> Any:
                kwargs.pop("pin_memory", None)
                return _original(*args, **kwargs)
            mp.setattr(torch, name, unpinned)
        mp.setattr(torch.Tensor, "pin_memory", lambda self, *args, **kwargs: self)
        yield


def _v1_completed(config: Any) -> Any:
    """The V1 runner's further config reads, at vLLM's defaults for a text-only model."""
    out = _completed(config)
    model, cache = out.model_config, out.cache_config
    defaults = {"is_multimodal_raw_input_only_model": False, "is_mm_prefix_lm": False,
                "is_multimodal_model": False, "logprobs_mode": "raw_logprobs",
                "logits_processors": None, "mrope_num_dims": None,
                "get_inputs_embeds_size": model.get_hidden_size}
    for name, value in defaults.items():
        if not hasattr(model, name):
            setattr(model, name, value)
    for name, value in (("block_size", None), ("use_replayssm", False),
                        ("kv_sharing_fast_prefill", False)):
        if not hasattr(cache, name):
            setattr(cache, name, value)
    return out


def build(run: Any) -> Any:
    """vLLM's target `GPUModelRunner` for an oracle run (`vllm_oracle.runner(case, which)`),
    its `__init__` run on CPU with the stand-ins above. MRV2: the oracle's speculator is
    attached; V1: the runner builds its drafter itself."""
    if run.runner == "v1":
        import vllm.v1.worker.gpu_model_runner as v1

        with _cpu_stand_ins(v1, run.proposer), _unpinned():
            return v1.GPUModelRunner(_v1_completed(run.config), torch.device("cpu"))
    import vllm.v1.worker.gpu.model_runner as module

    with _cpu_stand_ins(module, run.proposer):
        return module.GPUModelRunner(_completed(run.config), torch.device("cpu"))


class _StopAfterBlockTables(Exception):
    """Raised where initialize_kv_cache moves on to what needs a loaded model or a GPU."""


def initialize_kv_cache(runner: Any, *, block_size: int = 16, groups: int = 1) -> Any:
    """Run MRV2's own `initialize_kv_cache` with a real `KVCacheConfig` (`groups` full-
    attention groups of `block_size`-token blocks) up to and including `BlockTables`
    (0.34: v1/worker/gpu/model_runner.py:644-765; 0.33: :623-744), then stop: what follows
    (micro-batching, the mamba backend, the cudagraph resolution, the KV allocation) needs
    a loaded model. Stood in for: the attention backends' init (needs the model's layers; it
    allocates no buffer graphfit models) and what `load_model` sets (`model_state`, the
    speculator's draft layer names). Returns vLLM's `BlockTables`."""
    import vllm.v1.worker.gpu.model_runner as module
    from vllm.v1.kv_cache_interface import FullAttentionSpec, KVCacheConfig, KVCacheGroupSpec

    spec = FullAttentionSpec(block_size=block_size, num_kv_heads=2, head_size=64,
                             dtype=torch.bfloat16)
    config = KVCacheConfig(num_blocks=64, kv_cache_tensors=[], kv_cache_groups=[
        KVCacheGroupSpec([f"model.layers.{g}.self_attn"], spec) for g in range(groups)])

    class _Support:
        def narrow(self, *args: Any) -> _Support:
            return self

    def stop(*args: Any, **kwargs: Any) -> None:
        raise _StopAfterBlockTables

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(module, "init_attn_backend",
                   lambda *args, **kwargs: ([], _Support(), [block_size] * groups))
        mp.setattr(module, "maybe_build_ubatch_runner", stop)
        mp.setattr(runner, "model_state", NS(get_additional_cg_support=lambda: (),
                                             num_new_sampled_tokens_per_step=1),
                   raising=False)
        if runner.speculator is not None and not hasattr(runner.speculator,
                                                         "draft_attn_layer_names"):
            mp.setattr(runner.speculator, "draft_attn_layer_names", set(), raising=False)
        with contextlib.suppress(_StopAfterBlockTables):
            runner.initialize_kv_cache(config)
    return runner.block_tables
