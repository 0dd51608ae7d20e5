"""DWDP (`--dwdp-size`, distributed weight data parallelism) in SGLang 0.5.23's `handle_dwdp`
(arg_groups/parallel_hook.py:433-518, run at arg_groups/pipeline.py:189), restated: its
start-up asserts with SGLang's reasons, then the rewrite it declares, which graphfit plans.

* DWDP is on above 1 only (:435-436; 1 or less returns at once).
* It must equal `--tp-size` (:441-443), run with `--disaggregation-mode` null or prefill
  (:444-447), without EPLB (:448-450), speculative decoding (:451-453), PP (:454) or
  two-batch overlap (:455-457).
* A line that passes is rewritten by declarations (:466-508), which win over the values
  given on the line (the last declaration wins, model_override_base.py:100-113, 125-130):
  attention DP = dwdp_size, dp_size 1, the DP LM head on, moe_dense_tp_size 1,
  ep_size = dwdp_size, moe_dp_size 1, the a2a backend none, and `disable_cuda_graph`.
  Every hook after :189 reads the rewritten line; so graphfit resolves the rest of the line
  on a view of it (`Rewritten`) and returns the rewritten fields with its changes. Checked
  on SGLang's own resolution: `--tp-size 2 --dwdp-size 2` resolves as `--tp-size 2
  --attn-dp-size 2 --ep-size 2 --enable-dp-lm-head --disable-cuda-graph` (both
  mem_fraction_static 0.822, both graph phases disabled).
* `disable_cuda_graph` is the legacy switch of the lowest precedence (cuda_graph_hook.py:
  54-57; an explicit `--cuda-graph-backend-decode/-prefill` wins, :68-71): graphfit's reader
  sets it at that precedence (graphfit.inputs.sglang_eplb), so the view does not touch it.
* Hooks before :189 read the line as given: the PD role switch's ep_size clause
  (pd_disaggregation_hook.py:165-169, at pipeline.py:147) reads `given_ep_size`.
* Not modelled: the remote expert-weight prefetch buffers (no graph captures them: graphs
  are off) and `moe_dense_tp_size` / `SGLANG_SCHEDULER_SKIP_ALL_GATHER`, which shape no
  buffer graphfit plans once graphs are off.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

from graphfit.planner.core.enums import SpecMethod
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings

HOOK = "arg_groups/parallel_hook.py"


def check_dwdp(dwdp: int, tp: int, mode: str, eplb: bool, speculative: bool, pp: int,
               tbo: bool) -> bool:
    """`handle_dwdp`'s asserts in SGLang's order; whether DWDP is on (and so rewrites)."""
    if dwdp <= 1:
        return False
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
    return True


def rewrite(config: EngineSettings) -> dict[str, object]:
    """The fields DWDP declares (parallel_hook.py:466-508) on a line that passes its asserts;
    empty when DWDP is off. (moe_dense_tp_size 1: no field graphfit plans; dp_size 1 is
    `dp_replicas`, which the replicas refusal after it reads, issue 23 s70o.)"""
    size = config.dwdp_size
    if not check_dwdp(size, config.tp_size, config.disaggregation_mode, config.enable_eplb,
                      config.spec_method is not SpecMethod.NONE, config.pp_size,
                      config.two_batch_overlap):
        return {}
    return {"attn_dp_size": size, "enable_dp_lm_head": True, "ep_size": size,
            "moe_dp_size": 1, "moe_a2a_backend": "none", "dp_replicas": 1}


class Rewritten:
    """A read-only view of a line with DWDP's declarations over it (the resolved view SGLang's
    hooks after pipeline.py:189 read); every other field is the line's own."""

    __slots__ = ("_base", "_fields")

    def __init__(self, base: EngineSettings, fields: Mapping[str, object]) -> None:
        object.__setattr__(self, "_base", base)
        object.__setattr__(self, "_fields", dict(fields))

    def __getattr__(self, name: str) -> object:
        fields = object.__getattribute__(self, "_fields")
        if name in fields:
            return fields[name]
        return getattr(object.__getattribute__(self, "_base"), name)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{name}: a DWDP view is read-only")


def view(config: EngineSettings, fields: Mapping[str, object]) -> EngineSettings:
    """`config` as SGLang's hooks after DWDP read it."""
    return cast("EngineSettings", Rewritten(config, fields))


def given_ep_size(config: EngineSettings) -> int:
    """`--ep-size` as the hooks before DWDP (pipeline.py:147) read it."""
    if isinstance(config, Rewritten):
        return cast("EngineSettings", object.__getattribute__(config, "_base")).ep_size
    return config.ep_size


__all__ = ["Rewritten", "check_dwdp", "given_ep_size", "rewrite", "view"]
