"""Ladder and dispatch properties whose violation is a bug even when no buffer goes short.

Each property maps a plan to its counterexamples (an empty list means it holds), using only
the plan's public API (`capture_sizes`, `config_capture_sizes`, `pad`). The bug corpus and
`graphfit.testing` use them to pin down ladder bugs such as vLLM #57355 (decodes of 97-100
requests ran PIECEWISE) or #28207 (capture sizes not divisible by q).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from graphfit.planner.analysis.summary import decode_family
from graphfit.planner.core.enums import CUDAGraphMode
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.limits import MAX_COUNTEREXAMPLES
from graphfit.planner.plan import Plan

STAGES = ("runtime", "config")


def _sizes(plan: Plan, stage: str) -> tuple[int, ...]:
    if stage not in STAGES:
        raise ConfigError(f"stage: {stage!r} is not one of {', '.join(STAGES)}")
    return plan.capture_sizes if stage == "runtime" else plan.config_capture_sizes


def decodes_not_full(plan: Plan, stage: str = "runtime") -> list[int]:
    """Request counts r whose uniform decode (r * q tokens) does not replay a FULL graph.

    Only the runtime ladder dispatches batches, so `stage` must be "runtime".
    """
    if stage != "runtime":
        raise ConfigError(f"stage: decodes_full checks the runtime dispatch, not {stage!r}")
    if not plan.cudagraph_mode.has_full_decode:
        return []  # nothing to replay FULL; not this property's concern
    target = plan.component("target")
    family = decode_family(target)
    if family is None:
        return []
    out: list[int] = []
    # segment by segment (each shares one dispatch): as fast for S = 10^12 as for S = 8
    for first, last, d in target.tables.segments(family.step, family.first, family.last,
                                                 uniform=True):
        if d is None or d.mode is not CUDAGraphMode.FULL:
            if len(out) + last - first + 1 > MAX_COUNTEREXAMPLES:
                raise ConfigError(f"property decodes_full: more than {MAX_COUNTEREXAMPLES:,} "
                                  "counterexamples, too many to list")
            out += range(first, last + 1)
    return out


def sizes_not_multiple_of_q(plan: Plan, stage: str = "runtime") -> list[int]:
    """Capture sizes (tokens) that are not a whole number of q-token requests."""
    q = plan.config.uniform_query_len
    return [s for s in _sizes(plan, stage) if s % q]


def widest_decode_padded(plan: Plan, stage: str = "runtime") -> list[int]:
    """[padded] when the widest decode S * q is padded (or runs eagerly) instead of captured."""
    c = plan.config
    widest = c.max_num_seqs * c.uniform_query_len
    return [] if widest in _sizes(plan, stage) else [widest]


def graph_tokens_over_budget(plan: Plan, stage: str = "runtime") -> list[int]:
    """Captured batch sizes bs (requests) whose bs * q tokens exceed max_num_batched_tokens."""
    c = plan.config
    return [bs for bs in _sizes(plan, stage)
            if bs * c.uniform_query_len > c.max_num_batched_tokens]


@dataclass(frozen=True)
class Property:
    name: str
    check: Callable[[Plan, str], list[int]]
    unit: str
    text: str


PROPERTIES: dict[str, Property] = {p.name: p for p in (
    Property("decodes_full", decodes_not_full, "requests",
             "every uniform decode of r <= S requests replays a FULL graph"),
    Property("sizes_multiple_of_q", sizes_not_multiple_of_q, "tokens",
             "every capture size is a multiple of q"),
    Property("widest_decode_captured", widest_decode_padded, "tokens",
             "the widest decode S * q is itself a capture size"),
    Property("graph_tokens_within_budget", graph_tokens_over_budget, "requests",
             "every captured batch of bs requests fits max_num_batched_tokens (bs * q <= T)"),
)}


def counterexamples(plan: Plan, name: str, stage: str = "runtime") -> list[int]:
    """The counterexamples of property `name` (see PROPERTIES) on one plan."""
    if name not in PROPERTIES:
        raise ConfigError(f"property: {name!r} is not one of {', '.join(PROPERTIES)}")
    return PROPERTIES[name].check(plan, stage)
