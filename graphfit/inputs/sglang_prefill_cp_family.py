"""Prefill context parallelism on DeepSeek-family targets, planned (issue 23 s60p).

graphfit.inputs.sglang_prefill_cp_dsa restates the widths SGLang 0.5.23's DeepSeek-family
override settles on a prefill-CP line (model_overrides/deepseek_v2.py:106-145, 191-210) and
the context-parallel hook's asserts on them (parallel_hook.py:156-192). This module hands
those widths to the planner as the line's own values, since the override declares them over
the flags (the last declaration wins, model_override_base.py:76-86, 125-135):

* `attn_dp_size`: `--attn-dp-size` x `--dp-size`, and the replicas 1 (`dp_size` 1,
  deepseek_v2.py:110-112, 193-195);
* `attn_cp_size`: the resolved CP width (deepseek_v2.py:129-134, 209);
* where the override forces them (zigzag on a DSA target, every MLA one: deepseek_v2.py:
  115-118, 200-202), `moe_a2a_backend` deepep and `ep_size` = `tp_size`.

The decode runners read prefill CP only through `enable_prefill_cp`
(`is_dsa_enable_prefill_cp() or is_mla_cp_enabled()`, decode_cuda_graph_runner.py:327), which
picks the fill of `num_token_non_padded` (the global count instead of the attention-TP local
one, :1139, cuda_graph_buffer_registry.py:731) and never a buffer's shape; the batch-size
alignment reads the widths above (`get_cuda_graph_batch_size_alignment`, utils/common.py:
4168-4181). The forced `moe_dense_tp_size` 1 reads only in `require_mlp_tp_gather` under
attention DP with the DP LM head (utils/common.py:4090-4128): it is handed to the planner too
(SglangOptions.moe_dense_tp_size; graphfit.planner.engines.sglang.mlp_tp_gather: the
runners' `global_num_tokens` buffers keep one row, buffers.py:212-217; issue 23 s68p). The
lines listed in `unplanned` stay "not modelled".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs.settings import Setting
from graphfit.inputs.sglang_prefill_cp_dsa import CpWidths

RESOLVED = 9  # the override's declarations win over every spelling of the widths
ORIGIN = "SGLang's DeepSeek-family prefill-CP override (model_overrides/deepseek_v2.py)"
SHARING_ORIGIN = "SGLang's CP-TP group sharing hook (arg_groups/cp_tp_group_sharing_hook.py)"


def _given(values: Mapping[str, Any]) -> tuple[int, int, int, int, str]:
    """SglangOptions.prefill_cp_given: the widths as the line gives them (what the memory
    hook reads, pipeline.py:218, before the override at :225)."""
    backend = values.get("moe_a2a_backend")
    return (_int(values.get("attn_dp_size"), 1), _int(values.get("dp_size"), 1),
            _int(values.get("attn_cp_size"), 1), _int(values.get("ep_size"), 1),
            backend if isinstance(backend, str) else "none")


def settings(values: Mapping[str, Any], found: CpWidths | None,
             arch: str | None = None) -> list[Setting]:
    """The widths SGLang settles (module docstring) as settings that win over the line's,
    the override's branch and the line's own widths; on a CP-TP group sharing target
    (`arch`) with a resolved CP width above 1, the sharing SGLang declares
    (cp_tp_group_sharing_hook.py:122-130; issue 23 s63p)."""
    if found is None:
        return []
    if arch in CP_TP_SHARING and found.attn_cp_size > 1:
        sharing = [Setting("cp_tp_group_sharing", True, SHARING_ORIGIN, priority=RESOLVED)]
    else:
        sharing = []
    out = [Setting("prefill_cp_family", found.layout, ORIGIN),
           Setting("prefill_cp_given", _given(values), "the line's widths"),
           Setting("attn_dp_size", found.attn_dp_size, ORIGIN, priority=RESOLVED),
           Setting("dp_replicas", 1, ORIGIN, priority=RESOLVED),
           Setting("attn_cp_size", found.attn_cp_size, ORIGIN, priority=RESOLVED)]
    if found.deepep:
        out += [Setting("moe_a2a_backend", "deepep", ORIGIN, priority=RESOLVED),
                Setting("ep_size", found.ep_size, ORIGIN, priority=RESOLVED),
                # read by `require_mlp_tp_gather` (graphfit.planner.engines.sglang.
                # mlp_tp_gather) under attention DP with the DP LM head (s68p)
                Setting("moe_dense_tp_size", 1, ORIGIN, priority=RESOLVED)]
    return out + sharing


def settled(values: Mapping[str, Any], found: list[Setting]) -> Mapping[str, Any]:
    """The line's values with the attention-DP width the family override declared (`found`,
    `settings`' output) and its replicas folded in: SGLang's later checks read those, e.g.
    the DP LM head's assert (overrides.py:1421-1427, a post-process pass after the model
    hook), which a line's `--dp-size 2 --enable-dp-lm-head` passes once the override made
    it attention DP 2 (deepseek_v2.py:110-112, 193-195; issue 23 s68p)."""
    width = next((s.value for s in found if s.field == "attn_dp_size"), None)
    if width is None:
        return values
    return {**values, "attn_dp_size": width, "dp_size": 1}


def _int(value: Any, default: int) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return default


# the architectures `handle_model_specific_adjustments` gives the DeepSeek treatment,
# model_hook.py:266-278 (LongCat-Flash's NextN class is in the override's list, not here)
MODEL_HOOK = frozenset({
    "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM", "KimiK25ForConditionalGeneration",
    "MistralLarge3ForCausalLM", "PixtralForConditionalGeneration", "GlmMoeDsaForCausalLM",
    "Glm5NextForConditionalGeneration", "HYV4ForCausalLM", "HYV4ForCausalLMNextN",
    "LongcatFlashForCausalLM", "Dots3NoteForCausalLM"})


# the architectures whose CP group is the TP group (cp_tp_group_sharing_hook.py:21-24)
CP_TP_SHARING = frozenset({"Glm5NextForConditionalGeneration",
                           "Qwen4ExpForConditionalGeneration"})


def unplanned(values: Mapping[str, Any], found: CpWidths, arch: str | None) -> str | None:
    """Why a line SGLang serves stays "not modelled", else None."""
    if arch not in MODEL_HOOK:
        return f"{arch} takes the override but not the model hook's prefill rule"
    return None
