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

The MoE runners' own expert-parallel rules (`handle_moe_kernel_config`, moe_hook.py:70-167),
on the runner the kernel sees (after mxfp8's swap) and `--ep-size` as given (that hook runs
before `handle_a2a_moe` declares a spanning backend's ep_size, arg_groups/pipeline.py:294-295):
* the FlashInfer Cutlass and CuteDSL runners take ep_size 1 or the tensor-parallel size
  (moe_hook.py:89-92, 102-105);
* the Cutlass runner under fp8 / mxfp8 takes ep_size 1 only (moe_hook.py:161-167).
"""

from __future__ import annotations

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.sglang_waterfill import resolved_a2a

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


EP_ONE_OR_TP = ("flashinfer_cutlass", "flashinfer_cutedsl")  # moe_hook.py:80, 94
CUTLASS_EP_ONE = ("fp8", "mxfp8")  # moe_hook.py:161-164


def check_runner_ep(runner: str, quant: str | None, ep_size: int, tp_size: int,
                    a2a: str) -> None:
    """The MoE runner's expert-parallel asserts (moe_hook.py:89-92, 102-105, 161-167), on
    `--ep-size` AS GIVEN whatever the a2a backend `a2a`: `handle_moe_kernel_config` runs
    before `handle_a2a_moe` (arg_groups/pipeline.py:294-295), the first to declare a
    spanning backend's ep_size = tp_size (moe_hook.py:292-293)."""
    del a2a  # the spanning ep_size is declared after these asserts
    if runner in EP_ONE_OR_TP and ep_size not in (1, tp_size):
        raise ConfigError(f"the {runner} MoE runner takes an expert-parallel size of 1 or "
                          f"the tensor-parallel size {tp_size}, got {ep_size}: SGLang "
                          f"asserts (arg_groups/moe_hook.py:89-92, 102-105)")
    if runner == "cutlass" and quant in CUTLASS_EP_ONE and ep_size != 1:
        raise ConfigError(f"the cutlass MoE runner with {quant} takes an expert-parallel size "
                          f"of 1 only, got {ep_size}: SGLang asserts "
                          f"(arg_groups/moe_hook.py:161-167)")


def check(config: EngineSettings) -> None:
    """EPLB's start-up checks on one line, on the a2a backend `handle_a2a_moe` resolved
    (pipeline.py:295 before :297; Waterfill's forced deepep, sglang_waterfill)."""
    a2a = resolved_a2a(config.moe_a2a_backend or "none", config.enable_waterfill)
    check_eplb(config.enable_eplb, config.ep_join_mode, config.ep_dispatch_algorithm,
               config.ep_size, config.tp_size, a2a)


__all__ = ["CUTLASS_EP_ONE", "EP_ONE_OR_TP", "NOT_SPANNING", "check", "check_eplb",
           "check_runner_ep", "resolved_ep_size"]
