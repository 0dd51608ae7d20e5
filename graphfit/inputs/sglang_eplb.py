"""The expert-remap flags (`--enable-eplb`, `--ep-num-redundant-experts`,
`--init-expert-location`), read for the one rule graphfit restates from them: Nemotron-H's
model override, which refuses some MoE runners under a remap and picks
flashinfer_trtllm_routed from auto (model_overrides/nemotron_h.py:57-98, 152-180;
graphfit.planner.engines.sglang_class_picks). EPLB's other start-up rules (e.g. an expert
parallel size above 1, arg_groups/parallel_hook.py:790-791) are not restated: each flag
says so in a note, as before it was read."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graphfit.inputs.keys import Handler
from graphfit.inputs.settings import Setting
from graphfit.inputs.values import as_bool, as_int, as_str
from graphfit.planner.core.enums import Engine

SG = Engine.SGLANG
NOTE = ("read only for Nemotron-H's MoE runner rules (model_overrides/nemotron_h.py:57-98, "
        "152-180); EPLB's other start-up rules are not modelled")


def _make(field: str, read: Callable[[str, Any], Any]) -> Handler:
    """A handler setting `field` and noting what of the flag graphfit models."""
    def handle(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
        if value is None:
            return [Setting("engine", SG, origin, layer)], []
        parsed = read(origin, value)
        return ([Setting(field, parsed, origin, layer), Setting("engine", SG, origin, layer)],
                [f"{origin}: {NOTE}"])
    return handle


def _count(origin: str, value: Any) -> int:
    return as_int(origin, value, minimum=0)


KEYS: dict[str, Handler] = {
    "enable_eplb": _make("enable_eplb", as_bool),
    "ep_num_redundant_experts": _make("ep_num_redundant_experts", _count),
    "init_expert_location": _make("init_expert_location", as_str),
}

__all__ = ["KEYS", "NOTE"]
