"""The expert-parallel / EPLB flags (`--enable-eplb`, `--ep-num-redundant-experts`,
`--init-expert-location`, `--ep-size`, `--elastic-ep-join-mode`, `--ep-dispatch-algorithm`),
read for the rules graphfit restates from them: Nemotron-H's model override, which refuses
some MoE runners under a remap and picks flashinfer_trtllm_routed from auto
(model_overrides/nemotron_h.py:57-98, 152-180; graphfit.planner.engines.sglang_class_picks),
and EPLB's start-up checks (`handle_eplb_and_dispatch`, arg_groups/parallel_hook.py:750-791;
graphfit.planner.engines.sglang_eplb_checks). SGLang's other `--ep-size` rules (e.g. the
Cutlass / Triton MoE runners' ep_size == 1, moe_hook.py:161, model_hook.py:569) and EPLB's
runtime rebalancing are not restated: each flag says so in a note."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graphfit.inputs.keys import Handler
from graphfit.inputs.settings import Setting
from graphfit.inputs.values import as_bool, as_int, as_str
from graphfit.planner.core.enums import Engine

SG = Engine.SGLANG
NOTE = ("read only for Nemotron-H's MoE runner rules (model_overrides/nemotron_h.py:57-98, "
        "152-180) and EPLB's start-up checks (parallel_hook.py:750-791); other rules on it "
        "are not modelled")
EP_NOTE = ("read for EPLB's start-up checks (parallel_hook.py:750-791) and the MoE runners' "
           "(moe_hook.py:89-105, 161-167); other rules on it (e.g. model_hook.py:569) are not "
           "modelled")
JOIN_NOTE = ("read only for EPLB's ep_size check (parallel_hook.py:790-791); elastic EP's own "
             "start-up rules (parallel_hook.py:566-745) are not modelled")
DISPATCH_NOTE = "read for its a2a check (parallel_hook.py:762-788)"


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


KEYS: dict[str, Handler] = {
    "enable_eplb": _make("enable_eplb", as_bool),
    "ep_num_redundant_experts": _make("ep_num_redundant_experts", _count),
    "init_expert_location": _make("init_expert_location", as_str),
    "ep_size": _make("ep_size", _size, EP_NOTE),
    "ep_join_mode": _make("ep_join_mode", as_str, JOIN_NOTE),
    "ep_dispatch_algorithm": _make("ep_dispatch_algorithm", as_str, DISPATCH_NOTE),
}

__all__ = ["DISPATCH_NOTE", "EP_NOTE", "JOIN_NOTE", "KEYS", "NOTE"]
