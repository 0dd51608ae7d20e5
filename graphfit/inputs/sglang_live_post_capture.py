"""Post-capture KV sizing's inputs read from a live SGLang 0.5.23 ServerArgs, for the live
check (graphfit.integrations.sglang.from_sglang): the same handlers a pasted line's flags go
through (graphfit.inputs.sglang.FILE_KEYS, graphfit.inputs.sglang_post_capture), fed from the
ServerArgs' fields, so a live check decides `post_capture_kv_sizing_planned`
(arg_groups/overrides.py:1791-1862) from what a pasted line with the same flags decides it.

A ServerArgs' own fields hold what the caller asked for: resolution writes its answers into
`_resolved_overrides`, not the fields (arg_groups/pipeline.py:29-38, overrides.py:174-191), so
`getattr` reads the raw flags a pasted line has. The predicate's inputs read here:

- `device` (CUDA only; another device refused as not modelled, serving_hook.py:650-660,
  overrides.py:1805), `disaggregation_transfer_backend` with MOONCAKE_PROTOCOL (the process
  environment, read by graphfit.integrations.sglang.environment_overrides; :1817-1822),
  `enable_dynamic_chunking`, `max_prefill_tokens` and `pp_size` (`max_prefill_buffer_tokens`,
  :1865-1883), `enable_unified_memory` with the model's hybrid-SWA layout (:1826-1836;
  configs/model_config.py:2651-2697, from the local config.json);
- what else the predicate reads that the ServerArgs-only reader (graphfit.planner.engines.
  sglang_native.fields_from_sglang) leaves out: the PD role, the chunked prefill size, the
  prefill graphs' flags (cuda_graph_hook.py:54-99) with the JSON config's prefill phase and
  --max-total-tokens, which set the prefill sizes the graph reserve counts (memory_hook.py:
  380-387; issue 23 s45l), the switches that decline it (:1799-1800, 1811-1814) and the
  model's architecture (its Muse Spark default, MLA, the sparse classes it refuses:
  :1823-1862, muse_spark_hook.py:50-54) and, for the reserve the answer feeds, a
  multimodal model's vision encoder size (memory_hook.py:417-462).

A value the ServerArgs leave at None (unset) gives nothing: the option's default is SGLang's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from graphfit.inputs import model_config, sglang_post_capture
from graphfit.inputs.settings import COMMAND_LINE, Setting, merge

# ServerArgs fields -> the pasted line's handler of the flag (graphfit.inputs.sglang.FILE_KEYS)
KEYS = ("device", "disaggregation_transfer_backend", "enable_dynamic_chunking",
        "max_prefill_tokens", "pp_size", "enable_unified_memory", "disaggregation_mode",
        "chunked_prefill_size", "disable_cuda_graph", "disable_prefill_cuda_graph",
        "cuda_graph_backend_prefill", "cuda_graph_max_bs_prefill", "cuda_graph_bs_prefill",
        "enable_kv_cache_sharding", "enable_memory_saver", "prefill_only_disable_kv_cache",
        "max_total_tokens")
# the model's facts the predicate and the reserve it decides read (the pasted line's
# graphfit.inputs.sglang.model_path reads them from the same config.json): the class, and a
# multimodal model's vision encoder (`adjust_mem_fraction_for_vlm`, memory_hook.py:417-462)
MODEL_FIELDS = frozenset({"architecture", "multimodal", "vision_layers", "vision_hidden_size"})
# the flags the ServerArgs-only reader already plans (fields_from_sglang): their settings here
# would only repeat it (the JSON config's decode phase among them: sglang_native._decode_phase)
_READ_ELSEWHERE = frozenset({"engine", "cudagraph_mode", "max_cudagraph_capture_size",
                            "cudagraph_capture_sizes"})


def field_value(server_args: Any, key: str) -> Any:
    if isinstance(server_args, Mapping):
        return server_args.get(key)
    return getattr(server_args, key, None)


def flag_settings(server_args: Any, keys: Iterable[str]) -> list[Setting]:
    """The settings the pasted line's handlers (graphfit.inputs.sglang.FILE_KEYS) give for
    the ServerArgs' `keys` that are set, each named `server_args.<key>`; ConfigError with
    the pasted line's reason where a value is refused."""
    from graphfit.inputs.sglang import FILE_KEYS

    found: list[Setting] = []
    for key in keys:
        value = field_value(server_args, key)
        if value is None:
            continue
        got, _ = FILE_KEYS[key](f"server_args.{key}", value, COMMAND_LINE)
        found += got
    return found


def _json_phases(server_args: Any) -> list[Setting]:
    """The JSON `--cuda-graph-config` as the pasted line reads it (its prefill phase wins over
    the per-phase flags, cuda_graph_hook.py:86-94), where the ServerArgs hold it as SGLang's
    argparse type leaves it: a dict (`parse_cuda_graph_config_arg`, model_executor/
    cuda_graph_config.py:246-283) or JSON text. A built CudaGraphConfig object is left to
    the ServerArgs-only reader, as before."""
    value = field_value(server_args, "cuda_graph_config")
    if not isinstance(value, (str, Mapping)):
        return []
    return flag_settings({"cuda_graph_config": dict(value) if isinstance(value, Mapping)
                          else value}, ("cuda_graph_config",))


def settings(server_args: Any) -> dict[str, Any]:
    """EngineConfig fields for post-capture sizing from the ServerArgs (and the local model
    directory it names); ConfigError with the pasted line's reason where a flag is refused
    (another device than CUDA among them)."""
    found = flag_settings(server_args, KEYS) + _json_phases(server_args)
    model = field_value(server_args, "model_path")
    if isinstance(model, str):
        found += sglang_post_capture.hybrid_swa_settings(model)
        facts, _ = model_config.model_settings(model, "model", sglang=True)
        found += [s for s in facts if s.field in MODEL_FIELDS]
        found += [s for s in model_config.vision_settings(model) if s.field in MODEL_FIELDS]
    values = merge(found).values
    return {k: v for k, v in values.items() if k not in _READ_ELSEWHERE}


__all__ = ["KEYS", "field_value", "flag_settings", "settings"]
