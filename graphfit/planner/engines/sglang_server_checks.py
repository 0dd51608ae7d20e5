"""SGLang 0.5.23's `check_server_args` around its LoRA checks, where graphfit reads the flags
(issue 23, s66b; s67b).

`check_server_args` (arg_groups/validation_hook.py:172-381) runs once the resolution hooks have
resolved the line (entrypoints/engine.py:1153-1165). In its order:

* before its LoRA checks (:177-202): the node counts, torch.compile with padding off and the
  pipeline-parallel checks (graphfit.planner.engines.sglang_server_nodes, s67b);
* its LoRA checks (:222): graphfit.planner.engines.sglang_lora_runner;
* the speculative mixed-chunk assert (:224-238) cannot fire on a resolved line: the
  speculative hook has already turned `--enable-mixed-chunk` off for every algorithm that
  lacks it (speculative_hook.py:596-601, 1002-1007, 1108-1116, 1305-1308);
* chunked prefill against the page size and PD multiplexing (:240-262):
  graphfit.planner.engines.sglang_server_chunk (s67b);
* HiSparse's validation at its slot (:296-300): graphfit.planner.engines.
  sglang_server_hisparse (s67b);
* two-batch overlap (`check_two_batch_overlap`, :756-772, called at :346): with
  `--enable-two-batch-overlap`, a resolved `moe_a2a_backend` of "none" needs attention DP
  (`attn_dp_enabled_of`, runtime_context.py:191-199: `--attn-dp-size` > 1 or an elastic-EP
  scale joiner, model_override_base.py:250-252). The resolved backend is the one the hooks
  leave: the megamoe alias (mega_moe_hook.py:259-276, applied when graphfit reads the
  options), the MiniMax-M3 NVFP4 override's megamoe (model_overrides/minimax_m3.py:103-114),
  Waterfill's deepep (overrides.py:1595-1607) and ascend_tp's none (moe_hook.py:463-470);
  the prefill-CP family override's deepep (model_overrides/deepseek_v2.py:115-118, 200-202)
  and DWDP's none (parallel_hook.py:495-499) are already in the line graphfit plans.

The other checks read flags graphfit does not take: docs/engines/sglang-coverage.md, "Two-batch
overlap's start-up check", lists them all.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines import (
    sglang_server_chunk,
    sglang_server_hisparse,
    sglang_server_nodes,
    sglang_waterfill,
)
from graphfit.planner.engines.sglang_minimax_kv import hook_writes_megamoe
from graphfit.planner.engines.sglang_moe_a2a import live_backend
from graphfit.planner.engines.sglang_server_nodes import attn_dp_enabled

HOOK = "arg_groups/validation_hook.py"


def resolved_a2a(config: EngineSettings) -> str:
    """The target's `moe_a2a_backend` as `check_server_args` reads it (module docstring):
    the resolved argument, so a dense model's backend counts (the runners' view,
    sglang_moe_a2a.runtime_backend, does not; issue 23 s68m)."""
    if hook_writes_megamoe(config):
        return "megamoe"
    waterfill = bool(getattr(config, "enable_waterfill", False))  # as runtime_backend
    return live_backend(sglang_waterfill.resolved_a2a(config.moe_a2a_backend, waterfill))


def tbo_problem(config: EngineSettings) -> str | None:
    """`check_two_batch_overlap` (validation_hook.py:756-772) on a resolved line."""
    if (config.two_batch_overlap and resolved_a2a(config) == "none"
            and not attn_dp_enabled(config)):
        return ("When enabling two batch overlap without an EP a2a backend "
                "(moe_a2a_backend='none'), attention DP (--attn-dp-size) is required "
                f"(ValueError, {HOOK}:756-772)")
    return None


def before_lora(config: EngineSettings, changes: Mapping[str, Any] | None = None
                ) -> str | None:
    """The first refusal of `check_server_args` before its LoRA checks (sglang_server_nodes),
    or None; `changes`: the engine model's resolved fields."""
    return sglang_server_nodes.problem(config, changes or {})


def flag_refusal(config: EngineSettings, slot: str) -> str | None:
    """The serving flags' first refusal in `slot` (graphfit.inputs.sglang_server_serving,
    issue 23 s68b), or None."""
    return dict(config.server_flag_refusals or ()).get(slot)


def problem(config: EngineSettings, changes: Mapping[str, Any] | None = None) -> str | None:
    """The first refusal of `check_server_args` after its LoRA checks that graphfit restates
    (module docstring), or None: chunk / page and PD multiplexing (:240-262), the workers,
    buckets and priority scheduling (:273-306), HiSparse (:312), the scheduling
    conservativeness and metrics (:314-343), two-batch overlap (:346), gRPC, GC and the KV
    canary (:359-378)."""
    return (sglang_server_chunk.problem(config, changes or {})
            or flag_refusal(config, "workers")
            or sglang_server_hisparse.problem(config, changes or {})
            or flag_refusal(config, "metrics") or tbo_problem(config)
            or flag_refusal(config, "ports"))


def check_before_lora(config: EngineSettings, changes: Mapping[str, Any] | None = None
                      ) -> None:
    said = before_lora(config, changes)
    if said:
        raise ConfigError(said)


def check(config: EngineSettings, changes: Mapping[str, Any] | None = None) -> None:
    said = problem(config, changes)
    if said:
        raise ConfigError(said)


__all__ = ["attn_dp_enabled", "before_lora", "check", "check_before_lora", "flag_refusal",
           "problem",
           "resolved_a2a", "tbo_problem"]
