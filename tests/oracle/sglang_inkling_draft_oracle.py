"""SGLang 0.5.23's Inkling MTP draft heads' conv caches, allocated on the meta device.

For a resolved line, the target's state cache is sized by SGLang's own code
(tests/oracle/sglang_mamba_memory_oracle.sized, which leaves `get_schedule().
max_mamba_cache_size` as SGLang sets it, kv_cache_configurator.py:3302-3394). Then, as the
multi-layer EAGLE draft worker does:

* the worker class is SGLang's choice (`is_eagle()` and `enable_multi_layer_eagle`,
  speculative/spec_info.py:352-358), one runner per step (managers/tp_worker.py:498,
  505-522: draft_model_idx 0 .. speculative_num_steps - 1);
* the draft ModelConfig is SGLang's `ModelConfig.from_server_args(..., model_path=
  speculative_draft_model_path, is_draft_model=True)` (tp_worker.py:465-478), its state
  parameters SGLang's `mambaish_config(...).mamba2_cache_params`;
* whether a runner clones the pool is SGLang's `resolve_layer_indices` (model_runner_components/
  layer_setup.py:140-185) on that config, given the one attribute it reads off the model
  class, `mtp_layer_id_is_depth = True` (models/inkling.py:1780; the class itself needs CUDA
  kernels to import);
* the clone is SGLang's own `HybridReqToTokenPool.clone_with_new_mamba` (mem_cache/
  memory_pool.py:1532-1565) with the arguments of kv_cache_configurator.py:756-766, on a
  stand-in target pool holding only what the clone reads (its request-to-token table's row
  count, the ping-pong width, the maps the clone then shares), on the meta device.

The bytes counted are every tensor the clone owns apart from what it shares with the target:
its mamba pool's, slot allocator's and side-state pools' tensors.
"""

from __future__ import annotations

import types
from typing import Any

from tests.oracle import sglang_mamba_memory_oracle as mm
from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_stubs

OWNED = ("mamba_pool", "mamba_allocator", "short_conv_pool", "ngram_pool", "mamba_ckpt_pool")


def _tensor_bytes(obj: Any, seen: set[int]) -> int:
    """The bytes of the tensors reachable from `obj` through SGLang objects, lists and
    dataclasses (each tensor once)."""
    import torch

    if obj is None or id(obj) in seen:
        return 0
    seen.add(id(obj))
    if isinstance(obj, torch.Tensor):
        return obj.nelement() * obj.element_size()
    if isinstance(obj, (list, tuple)):
        return sum(_tensor_bytes(x, seen) for x in obj)
    if hasattr(obj, "__dataclass_fields__"):
        return sum(_tensor_bytes(getattr(obj, f), seen) for f in obj.__dataclass_fields__)
    if hasattr(obj, "__dict__") and type(obj).__module__.startswith("sglang"):
        return sum(_tensor_bytes(v, seen) for v in vars(obj).values())
    return 0


def draft_bytes(r: so.Resolved, sized: mm.Sized) -> int | None:
    """The bytes SGLang's draft heads' own pools take on this rank; None when SGLang clones
    none (another worker, or no hybrid-SWA MTP draft)."""
    with sglang_stubs.imports():
        import torch
        from sglang.srt.configs.hybrid_arch import mambaish_config
        from sglang.srt.configs.model_config import ModelConfig
        from sglang.srt.mem_cache.memory_pool import HybridReqToTokenPool
        from sglang.srt.model_executor.model_runner_components.layer_setup import (
            resolve_layer_indices,
        )
        from sglang.srt.runtime_context import get_exec, get_spec
        from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    algorithm = SpeculativeAlgorithm.from_string(r.speculative_algorithm)
    if not (algorithm.is_eagle() and r.record.enable_multi_layer_eagle):
        return None
    world = types.SimpleNamespace(cpu_group=None)
    from sglang.srt.runtime_context import get_parallel

    with so.published(r), get_parallel().override(world_group=world):
        spec = get_spec()
        mc = ModelConfig.from_server_args(r.record, model_path=spec.speculative_draft_model_path,
                                          is_draft_model=True)
        params = mambaish_config(mc).mamba2_cache_params
        model = types.SimpleNamespace(mtp_layer_id_is_depth=(
            mc.hf_config.architectures[0] == "InklingForConditionalGenerationMTP"))
        target = object.__new__(HybridReqToTokenPool)
        target.enable_memory_saver = False
        target.req_to_token = torch.empty((sized.pool + 1, 1), dtype=torch.int32,
                                          device="meta")
        target.mamba_ping_pong_track_buffer_size = 2
        target.req_index_to_mamba_index_mapping = None
        target.req_index_to_mamba_ping_pong_track_buffer_mapping = None
        total, cloned = 0, False
        for idx in range(spec.speculative_num_steps):
            info = resolve_layer_indices(model=model, model_config=mc, is_draft_worker=True,
                                         draft_model_idx=idx)
            if not info.is_hybrid_swa_mtp_draft:
                continue
            cloned = True
            clone = target.clone_with_new_mamba(
                mamba_size=sized.cache_size, mamba_spec_state_size=sized.pool,
                cache_params=params, device="meta",
                enable_mamba_extra_buffer=get_exec().mamba.enable_mamba_extra_buffer,
                draft_model_idx=idx, speculative_eagle_topk=spec.speculative_eagle_topk)
            seen: set[int] = set()
            total += sum(_tensor_bytes(getattr(clone, name, None), seen) for name in OWNED)
        return total if cloned else None
