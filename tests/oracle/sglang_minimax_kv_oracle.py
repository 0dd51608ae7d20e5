"""SGLang 0.5.23's own per-token price of the MiniMax-M3 sparse KV pool (the oracle side of
graphfit.planner.engines.sglang_minimax_kv).

A line is resolved by SGLang's argument pipeline on a MiniMax-M3 target directory of
tests/oracle/sglang_minimax_target_oracle (the model hook picks the backend, page size and,
for an NVFP4 checkpoint on Blackwell, the fp8 KV); then, on the fake CUDA device of the line's
capability with the resolved layout published, SGLang's `ModelConfig` of the directory,
SGLang's `configure_kv_cache_dtype` (mem_cache/kv_cache_dtype.py:34-88, given a stand-in
model holding the quantization config SGLang's loader builds for the directory, issue 23
s55n) and SGLang's `get_pp_indices` (distributed/utils.py:110-150) give a stand-in of the
KV-cache configurator, and SGLang's own `PoolConfigurator._compute_cell_size`
(model_executor/pool_configurator.py:340-489) prices one token on each pipeline stage.

Glue (not SGLang logic): the stand-in configurator carries only what the MiniMax branch reads
(model_config, kv_cache_dtype, model_dtype, server_args, layer_info, use_mla_backend False,
is_draft_worker False); `SGLANG_DISABLE_M3_FP8_ATTN_GEMM` is set in os.environ for the call
when the line's environment sets it.
"""

from __future__ import annotations

import types
from typing import Any

from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_stubs
from tests.oracle.environ_patch import patched_environ

KILL = "SGLANG_DISABLE_M3_FP8_ATTN_GEMM"


Priced = tuple[tuple[int, ...], int]


def cell_sizes(path: str, argv: tuple[str, ...], capability: tuple[int, int],
               env: tuple[tuple[str, str], ...] = (), gpu_mem_gb: float = 80,
               init: bool = False) -> Priced | str:
    """Each pipeline stage's `_compute_cell_size` for the line and the resolved page size, or
    SGLang's refusal ("Rejected: ..." at resolution, "Type: message" where the price
    itself raises); `gpu_mem_gb`: the fake device's memory (its defaults by memory tier);
    `init`: the cell size `DefaultPoolConfigurator.__init__` leaves instead (its EAGLE-family
    draft share added, pool_configurator.py:258-313; issue 23 s63m)."""
    with patched_environ(dict(env)):
        r = so.resolve(argv, gpu_mem_gb=gpu_mem_gb, model=path, capability=capability)
        if not isinstance(r, so.Resolved):
            return f"Rejected: {r.text}"
        return _price(r, path, capability, init)


def _model(config: Any) -> Any:
    """The loaded model as `configure_kv_cache_dtype` reads it: only its `quant_config`
    (minimax_m3.py:1992, minimax_m3_vl.py:90), built by SGLang's own loader step
    (`_get_quantization_config`, model_loader/loader.py:174-230) from the directory."""
    from sglang.srt.configs.load_config import LoadConfig
    from sglang.srt.model_loader.loader import _get_quantization_config

    return types.SimpleNamespace(quant_config=_get_quantization_config(config, LoadConfig()))


def _configured(kvc: Any, record: Any, config: Any) -> int:
    """SGLang's own `DefaultPoolConfigurator.__init__` (pool_configurator.py:218-338) on the
    stand-in, with the target's `SpecAuxHiddenStateConfig` as SGLang resolves it
    (`resolve_spec_aux_hidden_state_config`, spec_aux_hidden_state.py:52-81: the EAGLE draft's
    ModelConfig and layer count, :121-176). Glue: no fused draft placement (`fused_entry_bytes`
    None: that needs unified memory, off on these lines), the configurator's pp_size from the
    record."""
    from sglang.srt.model_executor.model_runner_components.spec_aux_hidden_state import (
        resolve_spec_aux_hidden_state_config,
    )
    from sglang.srt.model_executor.pool_configurator import DefaultPoolConfigurator
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    algorithm = SpeculativeAlgorithm.from_string(record.speculative_algorithm)
    kvc.spec_algorithm, kvc.pp_size = algorithm, record.pp_size
    kvc.kv_cache_dtype_str = record.kv_cache_dtype
    kvc.fused_entry_bytes = lambda kind: None
    kvc.spec_aux_config = resolve_spec_aux_hidden_state_config(
        server_args=record, model_config=config, spec_algorithm=algorithm,
        is_draft_worker=False)
    return int(DefaultPoolConfigurator(kvc)._cell_size)


def _price(r: so.Resolved, path: str, capability: tuple[int, int], init: bool = False
           ) -> Priced | str:
    with so.published(r), sglang_stubs.fake_cuda(r.gpu_mem_mib, capability=capability):
        from sglang.srt.configs.model_config import ModelConfig
        from sglang.srt.distributed.utils import get_pp_indices
        from sglang.srt.mem_cache.kv_cache_dtype import configure_kv_cache_dtype
        from sglang.srt.model_executor.pool_configurator import DefaultPoolConfigurator
        from sglang.srt.runtime_context import get_model

        record: Any = r.record
        try:
            config = ModelConfig.from_server_args(record, model_path=path)
            _, kv = configure_kv_cache_dtype(
                server_args_kv_cache_dtype=get_model().kv_cache_dtype, model=_model(config),
                model_dtype=config.dtype, is_draft_worker=False, is_dflash=False,
                speculative_draft_attention_backend=None)
            layers = config.num_hidden_layers
            out = []
            for rank in range(record.pp_size):
                start, end = get_pp_indices(layers, rank, record.pp_size)
                kvc = types.SimpleNamespace(
                    model_config=config, kv_cache_dtype=kv, model_dtype=config.dtype,
                    server_args=record, use_mla_backend=False, is_draft_worker=False,
                    layer_info=types.SimpleNamespace(start_layer=start, end_layer=end,
                                                     num_effective_layers=end - start))
                if init:
                    out.append(_configured(kvc, record, config))
                    continue
                configurator = object.__new__(DefaultPoolConfigurator)
                out.append(int(configurator._compute_cell_size(kvc, end - start)))
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            return f"{type(exc).__name__}: {exc}"
        from sglang.srt.arg_groups.model_override_base import resolving_view

        page = resolving_view(record).page_size  # the hook's page (minimax_m3.py:159-186)
    return tuple(out), int(page or 1)
