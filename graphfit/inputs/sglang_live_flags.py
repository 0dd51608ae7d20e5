"""Flags of a live SGLang 0.5.23 ServerArgs that the ServerArgs-only reader
(graphfit.planner.engines.sglang_native.fields_from_sglang) leaves out, read for the live check
(graphfit.integrations.sglang.from_sglang) through the pasted line's own handlers
(graphfit.inputs.sglang.FILE_KEYS), so a live check plans what a pasted line with the same
flags plans:

- `max_mamba_cache_size` (the mamba state pool's cap, memory_hook / pool_configurator;
  graphfit.inputs.sglang's handler and the planner's mamba sizing);
- the expert-parallel / EPLB fields (`enable_eplb`, `ep_num_redundant_experts`,
  `init_expert_location`, `ep_size`, `ep_join_mode`, `ep_dispatch_algorithm`:
  graphfit.inputs.sglang_eplb; EPLB's start-up checks, arg_groups/parallel_hook.py:750-791,
  and Nemotron-H's runner rules, model_overrides/nemotron_h.py:57-98, 152-180);
- DeepSeek-V4's KV pool flags (`swa_full_tokens_ratio`, `swa_prefix_tails`,
  `disaggregation_decode_extra_slots`, `disaggregation_decode_enable_radix_cache`:
  graphfit.inputs.sglang_dsv4, read by graphfit.planner.engines.sglang_dsv4_plan);
- Inkling's FULL prefill default (`apply_inkling_prefill_cuda_graph_default`, arg_groups/
  cuda_graph_hook.py:349-372) through the pasted line's rule (graphfit.inputs.
  sglang_inkling_prefill.settle). The hook declares its answer into `_resolved_overrides`
  (arg_groups/overrides.py:110-134), never into the fields, so a ServerArgs reads the same
  whether the hook has run or not; the rule matters where `disable_cuda_graph` alone turned the
  prefill backend off (the per-phase declaration outranks it, cuda_graph_hook.py:54-71).

- a hybrid mamba model's strategy flags and `--attention-backend` as given, for the state
  cache's strategy and the no_buffer check (`mamba_strategy`, arg_groups/mamba_hook.py:
  156-163; issue 23 s44m).
- `check_server_args`' serving flags (graphfit.inputs.sglang_server_serving_sources.live;
  issue 23 s68h).
- HiCache under DSA DCP (graphfit.inputs.sglang_dsa_dcp_hicache, s69r): a Python caller's
  record is unresolved until SGLang launches it (`ServerArgs.__post_init__` leaves it so,
  server_args.py:241-242), and resolution's `_dsa_dcp_overrides` refuses it then
  (arg_groups/model_overrides/deepseek_v2.py:18-22); a resolved record never holds it
  (issue 23 s70g).

SGLang's own field defaults (fields/exec_.py:914-922, 970; fields/schedule.py:216) equal
graphfit's, so a field at its default plans as an absent flag.
"""

from __future__ import annotations

from typing import Any

from graphfit.inputs import (
    sglang_dsa_dcp_hicache,
    sglang_dsv4,
    sglang_eplb,
    sglang_inkling_prefill,
    sglang_kv_dtype,
    sglang_server_serving_sources,
)
from graphfit.inputs.settings import COMMAND_LINE, Setting, merge
from graphfit.inputs.sglang_live_post_capture import field_value, flag_settings

KEYS = ("max_mamba_cache_size", *sglang_eplb.KEYS, *sglang_dsv4.KEYS)
# what the Inkling rule reads: the prefill flags and the JSON phase that outranks the default
PREFILL_KEYS = ("disable_cuda_graph", "disable_prefill_cuda_graph",
                "cuda_graph_backend_prefill", "cuda_graph_config")
LINE_KEYS = ("model_path", "cuda_graph_backend_prefill", "disable_prefill_cuda_graph")
LEGACY_ORIGIN = "server_args.disable_cuda_graph"
# a hybrid mamba model's strategy flags (`mamba_strategy`; issue 23 s44m)
MAMBA_KEYS = ("disable_radix_cache", "mamba_radix_cache_strategy", "disable_overlap_schedule",
              "page_size", "linear_attn_backend")
# what the HiCache-under-DSA-DCP check reads (issue 23 s70g)
HICACHE_KEYS = ("dcp_size", "model_path", *sglang_dsa_dcp_hicache.KEYS)


def inkling_prefill(server_args: Any, architecture: str | None) -> dict[str, Any]:
    """`cuda_graph_backend_prefill: full` where the pasted line's rule declares Inkling's
    default over the ServerArgs' flags (`architecture`: the live reading of the model's
    config.json); empty otherwise (the ServerArgs-only reader's answer stands)."""
    found = flag_settings(server_args, PREFILL_KEYS)
    if architecture is not None:
        found.append(Setting("architecture", architecture, "model", COMMAND_LINE))
    line = {key: field_value(server_args, key) for key in LINE_KEYS}
    settled = sglang_inkling_prefill.settle(line, merge(found), LEGACY_ORIGIN)
    field = sglang_inkling_prefill.FIELD
    if settled.origins.get(field) != sglang_inkling_prefill.ORIGIN:
        return {}
    return {field: settled.values[field]}


def mamba_strategy(server_args: Any, architecture: str | None) -> dict[str, Any]:
    """For a hybrid mamba model, the flags the state cache's strategy and its checks read
    (graphfit.planner.engines.sglang_mamba_pool.MambaCache: MAMBA_KEYS) and `--attention-
    backend` as given for the no_buffer check (mamba_hook.py:161-163; issue 23 s44m). A
    ServerArgs' fields are the flags as given (resolution declares into
    `_resolved_overrides`, overrides.py:110-134), which is what the check reads; a ServerArgs
    SGLang already resolved never holds a combination it refuses."""
    from graphfit.inputs.sglang_mamba_flags import attention_flag
    from graphfit.planner.engines.sglang_mamba_pool import is_hybrid_mamba

    if not is_hybrid_mamba(architecture, ()):
        return {}
    found = flag_settings(server_args, MAMBA_KEYS)
    found += attention_flag({"attention_backend": field_value(server_args, "attention_backend")})
    return {k: v for k, v in merge(found).values.items() if k != "engine"}


def settings(server_args: Any, architecture: str | None) -> dict[str, Any]:
    """EngineConfig fields from the ServerArgs' mamba cap, EPLB and KV-cache dtype fields, Inkling's
    prefill default and a hybrid mamba model's strategy flags; ConfigError with the pasted
    line's reason where a value is refused."""
    found = flag_settings(server_args, KEYS)
    kv_dtype = field_value(server_args, sglang_kv_dtype.FIELD)  # issue 23 s48k
    if kv_dtype is not None:  # the pasted line's handler, not FILE_KEYS (vLLM's files
        found += sglang_kv_dtype.kv_cache_dtype(  # ignore their own kv_cache_dtype)
            f"server_args.{sglang_kv_dtype.FIELD}", kv_dtype, COMMAND_LINE)[0]
    values = merge(found).values
    out = {k: v for k, v in values.items() if k != "engine"}
    # HiCache under DSA DCP, as on a pasted line (issue 23 s70g)
    sglang_dsa_dcp_hicache.check({k: field_value(server_args, k) for k in HICACHE_KEYS})
    return {**out, **inkling_prefill(server_args, architecture),
            **mamba_strategy(server_args, architecture),
            # check_server_args' serving flags, as on a pasted line (issue 23 s68h)
            **sglang_server_serving_sources.live(server_args)}


__all__ = ["KEYS", "MAMBA_KEYS", "inkling_prefill", "mamba_strategy", "settings"]
