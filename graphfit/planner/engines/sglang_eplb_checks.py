"""EPLB's start-up checks in SGLang 0.5.23 (`handle_eplb_and_dispatch`,
arg_groups/parallel_hook.py:750-791), restated so graphfit refuses the lines SGLang stops on
before it plans their graphs.

* `--enable-eplb` needs an expert-parallel group: `assert resolved ep_size > 1` unless the
  process joins an elastic EP deployment with `--elastic-ep-join-mode scale` (:790-791).
  The resolved ep_size is the tensor-parallel size under every a2a backend that spans the TP
  group (`_a2a_ep_size`, arg_groups/overrides.py:1577-1620: all but none and ascend_tp),
  else `--ep-size` as given.
* Without an a2a backend every EP rank runs the MoE over the same tokens, so a per-rank
  replica pick (`--ep-dispatch-algorithm static` or `lp`) is refused (:762-788) -- with or
  without EPLB. An unset algorithm is filled (dynamic without an a2a backend, else static,
  :766-775), which refuses nothing.

The a2a backend is the line's (`--moe-a2a-backend`), as graphfit resolves it; backends a
model override or Waterfill forces (overrides.py:1595-1607) are not applied here. EPLB's
recorder (`expert_distribution_recorder_mode` stat, :752-760) and its buffers are runtime
state outside the CUDA graphs and memory pools graphfit plans.
"""

from __future__ import annotations

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings

NOT_SPANNING = ("none", "ascend_tp")  # the a2a backends absent from overrides.py:1578-1592
PER_RANK_PICKS = ("static", "lp")  # parallel_hook.py:778-781


def resolved_ep_size(ep_size: int, tp_size: int, a2a: str) -> int:
    """The ep_size SGLang's later hooks see (`_a2a_ep_size`, overrides.py:1611-1620)."""
    return ep_size if a2a in NOT_SPANNING else tp_size


def check_eplb(enable_eplb: bool, join_mode: str | None, dispatch: str | None,
               ep_size: int, tp_size: int, a2a: str) -> None:
    """`handle_eplb_and_dispatch`'s refusals (parallel_hook.py:762-791)."""
    if a2a == "none" and dispatch in PER_RANK_PICKS:
        raise ConfigError(f"--ep-dispatch-algorithm {dispatch} picks a different replica per "
                          f"rank, which needs an a2a backend: SGLang refuses without one "
                          f"(arg_groups/parallel_hook.py:778-788); use dynamic")
    resolved = resolved_ep_size(ep_size, tp_size, a2a)
    if enable_eplb and join_mode != "scale" and resolved <= 1:
        where = (f"--ep-size {ep_size}" if a2a in NOT_SPANNING
                 else f"--tp-size {tp_size} under --moe-a2a-backend {a2a}")
        raise ConfigError(f"--enable-eplb needs an expert-parallel size above 1, got "
                          f"{resolved} ({where}): SGLang asserts ep_size > 1 "
                          f"(arg_groups/parallel_hook.py:790-791)")


def check(config: EngineSettings) -> None:
    """EPLB's start-up checks on one line."""
    check_eplb(config.enable_eplb, config.ep_join_mode, config.ep_dispatch_algorithm,
               config.ep_size, config.tp_size, config.moe_a2a_backend or "none")


__all__ = ["NOT_SPANNING", "check", "check_eplb", "resolved_ep_size"]
