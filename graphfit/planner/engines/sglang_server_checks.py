"""SGLang 0.5.23's `check_server_args` after its LoRA checks, where graphfit reads the flags
(issue 23, s66b).

`check_server_args` (arg_groups/validation_hook.py:172-381) runs once the resolution hooks have
resolved the line (entrypoints/engine.py:1153-1165). Its LoRA checks (:222) are
graphfit.planner.engines.sglang_lora_runner; after them, restated here in SGLang's order:

* two-batch overlap (`check_two_batch_overlap`, :756-772, called at :346): with
  `--enable-two-batch-overlap`, a resolved `moe_a2a_backend` of "none" needs attention DP
  (`attn_dp_enabled_of`, runtime_context.py:191-199: `--attn-dp-size` > 1 or an elastic-EP
  scale joiner, model_override_base.py:250-252). The resolved backend is the one the hooks
  leave: the megamoe alias (mega_moe_hook.py:259-276, applied when graphfit reads the
  options), the MiniMax-M3 NVFP4 override's megamoe (model_overrides/minimax_m3.py:103-114),
  Waterfill's deepep (overrides.py:1595-1607) and ascend_tp's none (moe_hook.py:463-470);
  the prefill-CP family override's deepep (model_overrides/deepseek_v2.py:115-118, 200-202)
  and DWDP's none (parallel_hook.py:495-499) are already in the line graphfit plans.

The other checks of `check_server_args` read flags graphfit does not take, are restated
elsewhere, or cannot fire on a resolved line (the speculative mixed-chunk assert, :224-238:
the speculative hook has already turned `--enable-mixed-chunk` off for every algorithm that
lacks it, speculative_hook.py:596-601, 1002-1007, 1108-1116, 1305-1308):
docs/engines/sglang-coverage.md, "Two-batch overlap's start-up check" lists them.
"""

from __future__ import annotations

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.sglang_minimax_kv import hook_writes_megamoe
from graphfit.planner.engines.sglang_moe_a2a import live_backend, runtime_backend

HOOK = "arg_groups/validation_hook.py"


def resolved_a2a(config: EngineSettings) -> str:
    """The target's `moe_a2a_backend` as `check_server_args` reads it (module docstring)."""
    if hook_writes_megamoe(config):
        return "megamoe"
    return live_backend(runtime_backend(config))


def attn_dp_enabled(config: EngineSettings) -> bool:
    """`attn_dp_enabled_of` (runtime_context.py:191-199)."""
    return config.attn_dp_size > 1 or config.ep_join_mode == "scale"


def tbo_problem(config: EngineSettings) -> str | None:
    """`check_two_batch_overlap` (validation_hook.py:756-772) on a resolved line."""
    if (config.two_batch_overlap and resolved_a2a(config) == "none"
            and not attn_dp_enabled(config)):
        return ("When enabling two batch overlap without an EP a2a backend "
                "(moe_a2a_backend='none'), attention DP (--attn-dp-size) is required "
                f"(ValueError, {HOOK}:756-772)")
    return None


def problem(config: EngineSettings) -> str | None:
    """The first refusal of `check_server_args` after its LoRA checks that graphfit restates
    (module docstring), or None."""
    return tbo_problem(config)


def check(config: EngineSettings) -> None:
    said = problem(config)
    if said:
        raise ConfigError(said)


__all__ = ["attn_dp_enabled", "check", "problem", "resolved_a2a", "tbo_problem"]
