"""DWDP (`--dwdp-size`, distributed weight data parallelism) in SGLang 0.5.23's `handle_dwdp`
(arg_groups/parallel_hook.py:433-518, run at arg_groups/pipeline.py:189), restated as far
as graphfit can: its start-up asserts with SGLang's reasons, then a refusal as not modelled.

* DWDP is on above 1 only (:435-436; 1 or less returns at once).
* It must equal `--tp-size` (:441-443), run with `--disaggregation-mode` null or prefill
  (:444-447), without EPLB (:448-450), speculative decoding (:451-453), PP (:454) or
  two-batch overlap (:455-457).
* A line that passes is rewritten (:466-508): attention DP = dwdp_size, dp_size 1, the DP
  LM head on, ep_size = dwdp_size, moe_dp_size 1, the a2a backend none, and CUDA graphs off
  (`disable_cuda_graph=True`). Expert weights are prefetched from remote ranks each step, a
  buffer graphfit has no model of; so such a line is refused as not modelled rather than
  planned with graphs SGLang does not capture. (Its moe_dp_size = 1 is why SGLang's later
  `--moe-dp-size` checks, parallel_hook.py:170-192, never see a DWDP line's own value.)
"""

from __future__ import annotations

from graphfit.planner.core.enums import SpecMethod
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings

HOOK = "arg_groups/parallel_hook.py"


def check_dwdp(dwdp: int, tp: int, mode: str, eplb: bool, speculative: bool, pp: int,
               tbo: bool) -> None:
    """`handle_dwdp`'s asserts in SGLang's order, then "not modelled" for a DWDP line."""
    if dwdp <= 1:
        return
    for bad, reason, lines in (
            (dwdp != tp, f"dwdp_size ({dwdp}) must equal tp_size ({tp})", "441-443"),
            (mode not in ("null", "prefill"),
             "DWDP requires --disaggregation-mode null or prefill", "444-447"),
            (eplb, "EPLB dynamic migration conflicts with static DWDP partitioning", "448-450"),
            (speculative, "DWDP does not support speculative decoding (MTP/draft workers)",
             "451-453"),
            (pp != 1, "DWDP requires pp_size == 1", "454"),
            (tbo, "DWDP's prefetch event protocol does not support two-batch overlap",
             "455-457")):
        if bad:
            raise ConfigError(f"--dwdp-size {dwdp}: {reason}: SGLang asserts ({HOOK}:{lines})")
    raise ConfigError(f"--dwdp-size {dwdp} rewrites attention DP, ep_size, the a2a backend and "
                      f"turns CUDA graphs off, prefetching expert weights ({HOOK}:466-508): "
                      f"not modelled")


def check(config: EngineSettings) -> None:
    """DWDP's start-up checks on one line."""
    check_dwdp(config.dwdp_size, config.tp_size, config.disaggregation_mode, config.enable_eplb,
               config.spec_method is not SpecMethod.NONE, config.pp_size,
               config.two_batch_overlap)


__all__ = ["check", "check_dwdp"]
