"""The expert-parallel / EPLB flags (`--enable-eplb`, `--ep-num-redundant-experts`,
`--init-expert-location`, `--ep-size`, `--elastic-ep-join-mode`, `--ep-dispatch-algorithm`,
`--moe-dp-size`, and elastic EP's `--elastic-ep-backend`, `--node-rank`,
`--elastic-ep-join-rank-offset`, `--max-ep-size`, `--elastic-ep-initial-size`,
`--eplb-algorithm`, `--enable-waterfill`, `--dwdp-size`, and, for the AITER all-reduce fusion
clause of the context-parallel checks, `--enable-aiter-allreduce-fusion`,
`--enable-deterministic-inference`, `--rl-on-policy-target`),
read for the rules graphfit restates from them: Nemotron-H's model override, which refuses
some MoE runners under a remap and picks flashinfer_trtllm_routed from auto
(model_overrides/nemotron_h.py:57-98, 152-180; graphfit.planner.engines.sglang_class_picks),
and EPLB's start-up checks (`handle_eplb_and_dispatch`, arg_groups/parallel_hook.py:750-791;
graphfit.planner.engines.sglang_eplb_checks), and the expert-parallel rules of
graphfit.planner.engines.sglang_ep_rules (`--moe-dp-size`, GPT-OSS's Triton kernel runner,
the PD role switch) and graphfit.planner.engines.sglang_elastic_ep (elastic EP before
scale-up, parallel_hook.py:519-581). SGLang's other `--ep-size` rules (elastic scale-up's,
parallel_hook.py:582-745) and EPLB's runtime rebalancing are not restated: each flag says so
in a note."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graphfit.inputs.keys import Handler
from graphfit.inputs.settings import Setting
from graphfit.inputs.values import as_bool, as_int, as_str
from graphfit.planner.core.enums import CUDAGraphMode, Engine
from graphfit.planner.core.limits import MAX_INT

SG = Engine.SGLANG
NOTE = ("read only for Nemotron-H's MoE runner rules (model_overrides/nemotron_h.py:57-98, "
        "152-180) and EPLB's start-up checks (parallel_hook.py:750-791); other rules on it "
        "are not modelled")
EP_NOTE = ("read for EPLB's start-up checks (parallel_hook.py:750-791), the MoE runners' "
           "(moe_hook.py:89-105, 161-167; model_hook.py:568-571), --moe-dp-size's "
           "(parallel_hook.py:170-183) and the PD role switch's (pd_disaggregation_hook.py:"
           "168-169); elastic EP's rules on it are not modelled")
JOIN_NOTE = ("read for EPLB's ep_size check (parallel_hook.py:790-791) and elastic EP's start-up "
             "checks (parallel_hook.py:546-559); scale-up's (:582-745) are not modelled")
ELASTIC_NOTE = ("read only for elastic EP's start-up checks (parallel_hook.py:519-581); a line "
                "under scale-up (--max-ep-size above --tp-size, :582-745) is not modelled")
DISPATCH_NOTE = "read for its a2a check (parallel_hook.py:762-788)"
WATERFILL_NOTE = ("read for the a2a backend it forces (deepep unless deepep / megamoe, "
                  "overrides.py:1595-1607) where SGLang's later hooks read it; its shared-expert "
                  "fusion (overrides.py:1559-1564) and runtime balancing are not modelled")
DWDP_NOTE = ("read for DWDP's start-up asserts (parallel_hook.py:433-457) and, above 1, the "
             "line it declares (:466-508): attention DP, ep_size and the DP LM head at its "
             "size, moe_dp_size 1, a2a none, CUDA graphs off; its remote expert prefetch is "
             "not modelled (no graph captures it)")
AITER_NOTE = ("read only for whether AITER all-reduce fusion stays on (deterministic inference "
              "clears it, attention_hook.py:585-607) for the context-parallel / --moe-dp-size "
              "checks (parallel_hook.py:166-168, 185-187); its other effects are not modelled")
MOE_DP_NOTE = ("read only for its start-up checks with the tp / ep / attention-CP / PP sizes "
               "(parallel_hook.py:170-193); the MoE's data-parallel groups are not modelled "
               "(no buffer graphfit plans is sized by them)")


def _make(field: str, read: Callable[[str, Any], Any], note: str = NOTE) -> Handler:
    """A handler setting `field` and noting what of the flag graphfit models."""
    def handle(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
        if value is None:
            return [Setting("engine", SG, origin, layer)], []
        parsed = read(origin, value)
        return ([Setting(field, parsed, origin, layer), Setting("engine", SG, origin, layer)],
                [f"{origin}: {note}"])
    return handle


def _count(origin: str, value: Any) -> int:
    return as_int(origin, value, minimum=0)


def _size(origin: str, value: Any) -> int:
    return as_int(origin, value, minimum=1)


def _dwdp(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """`--dwdp-size`: above 1, DWDP declares `disable_cuda_graph` (parallel_hook.py:
    503-507), the legacy switch of the lowest precedence (cuda_graph_hook.py:54-57, 68-71),
    set here at that precedence as `--disable-cuda-graph` is; its other declarations and its
    asserts are graphfit.planner.engines.sglang_dwdp's."""
    settings, notes = _make("dwdp_size", _any_int, DWDP_NOTE)(origin, value, layer)
    if value is not None and _any_int(origin, value) > 1:
        settings += [Setting("cudagraph_mode", CUDAGraphMode.NONE, origin, layer, priority=0),
                     Setting("cuda_graph_backend_prefill", "disabled", origin, layer,
                             priority=0)]
    return settings, notes


def _any_int(origin: str, value: Any) -> int:
    """Any integer: SGLang's own checks refuse the out-of-range ones (a negative join rank
    offset, a --max-ep-size of 0, parallel_hook.py:555-570), with their own reasons."""
    return as_int(origin, value, minimum=-MAX_INT)


KEYS: dict[str, Handler] = {
    "enable_eplb": _make("enable_eplb", as_bool),
    "ep_num_redundant_experts": _make("ep_num_redundant_experts", _count),
    "init_expert_location": _make("init_expert_location", as_str),
    "ep_size": _make("ep_size", _size, EP_NOTE),
    "ep_join_mode": _make("ep_join_mode", as_str, JOIN_NOTE),
    "ep_dispatch_algorithm": _make("ep_dispatch_algorithm", as_str, DISPATCH_NOTE),
    "moe_dp_size": _make("moe_dp_size", _size, MOE_DP_NOTE),
    "elastic_ep_backend": _make("elastic_ep_backend", as_str, ELASTIC_NOTE),
    "node_rank": _make("node_rank", _count, ELASTIC_NOTE),
    "ep_join_rank_offset": _make("ep_join_rank_offset", _any_int, ELASTIC_NOTE),
    "max_ep_size": _make("max_ep_size", _any_int, ELASTIC_NOTE),
    "elastic_ep_initial_size": _make("elastic_ep_initial_size", _any_int, ELASTIC_NOTE),
    "eplb_algorithm": _make("eplb_algorithm", as_str, ELASTIC_NOTE),
    "enable_waterfill": _make("enable_waterfill", as_bool, WATERFILL_NOTE),
    "dwdp_size": _dwdp,
    "enable_aiter_allreduce_fusion": _make("enable_aiter_allreduce_fusion", as_bool, AITER_NOTE),
    "enable_deterministic_inference": _make("enable_deterministic_inference", as_bool,
                                            AITER_NOTE),
    "rl_on_policy_target": _make("rl_on_policy_target", as_str, AITER_NOTE),
}

__all__ = ["DISPATCH_NOTE", "EP_NOTE", "JOIN_NOTE", "KEYS", "ELASTIC_NOTE", "MOE_DP_NOTE", "NOTE",
           "WATERFILL_NOTE", "DWDP_NOTE", "AITER_NOTE"]
