"""The plan as a JSON document (schema graphfit.plan/3).

/3 writes the engine's own options as one object, `config.options` (VllmOptions,
SglangOptions, TrtllmOptions fields; {} for an engine without options), where /2 wrote every
engine's fields flat in `config`. /2 (issue 20) added the config's `engine_version` (the
release modelled). graphfit.plan/1 and /2 documents are still read (inputs.plan_file upgrades
them).
A plan with buffers shared between components (`Plan.shared`) adds, still as /3, a
`"shared": name` to each user's buffer entry and a top-level `shared_buffers` list (name,
users, shape, capacity, bytes, counted once in `total_bytes`); a plan without them writes
exactly the /3 document it wrote before, so no reader of /3 sees a change it cannot skip.
A plan with host buffers (`BufferSpec.placement`, pinned host staging tensors) adds, still
as /3, `"placement": "host"` to those buffers' entries and `host_bytes` /
`host_reference_bytes` beside the `total_bytes` / `reference_bytes` (device figures) of the
plan and of each component holding one; an entry without `placement` is a device buffer, so
a plan without host buffers writes what it wrote before. A host staging copy also carries
`"stages": "<device buffer>"`; an entry without it stages nothing. A host buffer the engine
pins (`BufferSpec.pinned`) carries `"pinned": true`; an entry without it is pageable host
memory (a plan file written before the field reads its host buffers as pageable, so a
TensorRT-LLM encoder plan file written before is refused by `check --plan`, naming the field).
Likewise a plan with keyed components (`Plan.keyed`: TensorRT-LLM's encoder graphs keyed on
(requests, tokens, longest request), SGLang's vision-encoder graphs keyed on an image layout)
adds a top-level `keyed_components` object, and only then (`keyed_document` says how a
component keyed on anything else extends its entry).
A plan whose engine raises on some reachable batches (`Plan.refusals`: TensorRT-LLM's fixed
encoder slots without padding) adds, still as /3, a `refusals` list to that keyed
component's entry and to the engine's verification; a plan without them writes exactly what
it wrote before, and a plan file written before them is still read
(graphfit.cli.planning.read_plan compares it with the document without them).

Reading one back is the inputs layer's job (graphfit.inputs.plan_file): a plan file is
accepted only when it is exactly the document graphfit writes for its config.
"""

from __future__ import annotations

from typing import Any

from graphfit.planner.analysis.summary import plan_padding
from graphfit.planner.core.verify import EngineRefusal, Verification
from graphfit.planner.engines.base import Scenario
from graphfit.planner.keyed_plan import KeyedComponentPlan
from graphfit.planner.plan import BufferPlan, ComponentPlan, Plan

PLAN_SCHEMA = "graphfit.plan/3"
# the older ones are upgraded on reading (graphfit.inputs.plan_file)
PLAN_SCHEMAS_READ = ("graphfit.plan/1", "graphfit.plan/2", PLAN_SCHEMA)


def scenario_document(scenario: Scenario) -> dict[str, Any]:
    """One way the engine resolves the config: the unknown inputs' values, mode, sizes."""
    return {**dict(scenario.settings), "cudagraph_mode": scenario.mode.value,
            "capture_sizes": list(scenario.sizes)}


def plan_document(plan: Plan, verification: Verification, *, refusals: bool = True
                  ) -> dict[str, Any]:
    """The `--json` document (schema graphfit.plan/3): engine version, config (its engine's
    options as one object), resolved mode
    and the scenarios covered, ladders, buffers (capacity, the engine's rows and allocation),
    verdict. `refusals=False`: the document as written before the engine's refusals were
    reported (what an older plan file holds)."""
    return {
        "schema": PLAN_SCHEMA,
        "engine_version": plan.engine_version,
        "config": plan.config.to_dict(),
        "cudagraph_mode": plan.cudagraph_mode.value,
        "assumed": scenario_document(plan.assumed) if plan.assumed is not None else None,
        "covered": [scenario_document(s) for s in plan.covered],
        "ladder": {
            "config_capture_sizes": list(plan.config_capture_sizes),
            "capture_sizes": list(plan.capture_sizes),
            "max_capture_size": plan.max_capture_size,
            "num_graphs": len(plan.capture_sizes),
        },
        "warnings": list(plan.warnings),
        "components": {
            name: {
                "layout": comp.layout,
                "graph_sizes": list(plan.graph_sizes(name)),
                "alignment": comp.alignment,
                "total_bytes": comp.total_bytes,
                "reference_bytes": comp.reference_bytes,
                **_host_totals(comp),
                "buffers": [
                    {
                        "name": b.name, "dtype": b.dtype, "axis": b.axis.value,
                        "shape": list(b.shape), "capacity": b.capacity,
                        "engine_rows": b.engine_rows,
                        "reference_capacity": b.reference_capacity, "bytes": b.bytes,
                        "reference_bytes": b.reference_bytes, "offset": b.offset,
                        "fill": {"kind": b.fill.kind.value, "value": b.fill.value},
                        "streams": [d.stream.value for d in b.demands],
                        **({"shared": b.shared} if b.shared else {}),
                        **_placement(b),
                    }
                    for b in comp.buffers
                ],
                # an engine that captures more than one graph per size (SGLang's multi-layer
                # EAGLE draft-extend steps): the count, as it captures them
                **({"graphs_per_size": comp.graphs_per_size,
                    "num_graphs": len(plan.graph_sizes(name)) * comp.graphs_per_size}
                   if comp.graphs_per_size > 1 else {}),
            }
            for name, comp in plan.components.items()
        },
        "padding": [
            {"label": s.label, "batches": s.batches, "real_tokens": s.real_tokens,
             "padded_tokens": s.padded_tokens, "waste_fraction": round(s.waste_fraction, 6),
             "worst_waste": s.worst_waste, "modes": dict(s.modes)}
            for s in plan_padding(plan)
        ],
        **({"shared_buffers": [
            {"name": sb.name, "users": list(sb.keys), "dtype": sb.dtype,
             "shape": list(sb.shape), "capacity": sb.capacity, "engine_rows": sb.engine_rows,
             "reference_capacity": sb.reference_capacity, "bytes": sb.bytes,
             "reference_bytes": sb.reference_bytes}
            for sb in plan.shared.values()]} if plan.shared else {}),
        **({"keyed_components": {
            name: keyed_document(comp, refusals=refusals)
            for name, comp in plan.keyed.items()}}
           if plan.keyed else {}),
        "total_bytes": plan.total_bytes,
        "reference_bytes": plan.reference_bytes,
        **_host_totals(plan),
        "verification": verification_document(verification),
    }


def _placement(buffer: BufferPlan) -> dict[str, Any]:
    """A host buffer's `"placement": "host"` (and `"stages"`, the device buffer it is the
    staging copy of, where it is one); nothing for a device buffer, so a buffer entry
    without the field (every plan file written before placements) reads as device."""
    if buffer.on_device:
        return {}
    # a staging copy names the device buffer it refills; absent: no staging (every plan
    # file written before the relation)
    return {"placement": buffer.placement.value,
            **({"stages": buffer.stages} if buffer.stages else {}),
            **({"pinned": True} if buffer.pinned else {})}


def _host_totals(part: Plan | ComponentPlan | KeyedComponentPlan) -> dict[str, Any]:
    """`host_bytes` / `host_reference_bytes` where host buffers are planned (their bytes are
    not in `total_bytes`, the device figure); nothing otherwise."""
    if not any(not b.on_device for b in _buffers_of(part)):
        return {}
    return {"host_bytes": part.host_bytes, "host_reference_bytes": part.host_reference_bytes}


def _buffers_of(part: Plan | ComponentPlan | KeyedComponentPlan) -> list[BufferPlan]:
    if isinstance(part, Plan):
        comps: list[ComponentPlan | KeyedComponentPlan] = [*part.components.values(),
                                                           *part.keyed.values()]
        return [b for c in comps for b in c.buffers]
    return list(part.buffers)


def refusals_document(refusals: tuple[EngineRefusal, ...]) -> list[dict[str, Any]]:
    """The engine's refusals: per graph its key, the batches refused, one of them, the
    error."""
    return [{"key": r.key, "batches": r.batches, "example": list(r.example), "error": r.error}
            for r in refusals]


def keyed_document(comp: KeyedComponentPlan, *, refusals: bool = True) -> dict[str, Any]:
    """One keyed component: its bounds, the engine's bucket lists, every captured key with the
    batch that replays it, and its buffers (as a component's).

    A component keyed on (requests, tokens, longest) with integer keys and one rows rule
    (TensorRT-LLM's encoder) writes what /3 always wrote for it. Any other adds, still as
    /3, `summary`, `bound_names` (when its bounds count other things than its key holds),
    each graph's key as the dispatch spells it (a text for an image layout) and its rows per
    buffer (an object) where buffers read different rows; `refusals` when the engine raises
    on some batch of its graphs."""
    per_buffer = bool(comp.dispatch.buffer_rows)
    return {
        **({"summary": comp.summary} if comp.summary else {}),
        "key": list(comp.key_names),
        "bounds": list(comp.bounds),
        **({"bound_names": list(comp.bound_names)}
           if comp.bound_names != comp.key_names else {}),
        "ladders": {name: list(values) for name, values in comp.ladders},
        "graphs": [{"key": comp.dispatch.key_json(key),
                    "rows": comp.rows(key) if per_buffer else comp.dispatch.rows(key),
                    "batch": comp.dispatch.batch_json(comp.witnesses[key])}
                   for key in comp.graph_keys],
        "layout": comp.layout,
        "alignment": comp.alignment,
        "total_bytes": comp.total_bytes,
        "reference_bytes": comp.reference_bytes,
        **_host_totals(comp),
        "buffers": [
            {"name": b.name, "dtype": b.dtype, "axis": b.axis.value, "shape": list(b.shape),
             "capacity": b.capacity, "engine_rows": b.engine_rows,
             "reference_capacity": b.reference_capacity, "bytes": b.bytes,
             "reference_bytes": b.reference_bytes, "offset": b.offset,
             "fill": {"kind": b.fill.kind.value, "value": b.fill.value},
             "streams": [d.stream.value for d in b.demands], **_placement(b)}
            for b in comp.buffers],
        **({"refusals": refusals_document(comp.refusals)}
           if refusals and comp.refusals else {}),
    }


def verification_document(verification: Verification) -> dict[str, Any]:
    return {
        "ok": verification.ok,
        "checked": verification.checked,
        "violations": len(verification.violations),
        "ranges": [
            {"buffer": f"{r.component}.{r.buffer}", "first": r.first, "last": r.last,
             "padded": r.padded, "needed": r.needed, "capacity": r.capacity,
             **({"fixed": True} if r.fixed else {}),
             **({"scenario": r.scenario} if r.scenario else {})}
            for r in verification.ranges()
        ],
        **({"refusals": refusals_document(verification.refusals)}
           if verification.refusals else {}),
    }
