"""The plan as a JSON document (schema graphfit.plan/1), and loading one back safely.

A loaded plan is never trusted: its config is re-planned and its capacities are audited
against every reachable batch, so a tampered file cannot smuggle in a short buffer.
"""

from __future__ import annotations

import json
from typing import Any

from graphfit.planner.analysis.summary import plan_padding
from graphfit.planner.config import EngineConfig
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.verify import Verification
from graphfit.planner.engines.base import Scenario
from graphfit.planner.plan import Plan, plan

PLAN_SCHEMA = "graphfit.plan/1"


def scenario_document(scenario: Scenario) -> dict[str, Any]:
    """One way the engine resolves the config: the unknown inputs' values, mode, sizes."""
    return {**dict(scenario.settings), "cudagraph_mode": scenario.mode.value,
            "capture_sizes": list(scenario.sizes)}


def plan_document(plan: Plan, verification: Verification) -> dict[str, Any]:
    """The `--json` document (schema graphfit.plan/1): engine version, config, resolved mode
    and the scenarios covered, ladders, buffers (capacity, the engine's rows and allocation),
    verdict."""
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
                "buffers": [
                    {
                        "name": b.name, "dtype": b.dtype, "axis": b.axis.value,
                        "shape": list(b.shape), "capacity": b.capacity,
                        "engine_rows": b.engine_rows,
                        "reference_capacity": b.reference_capacity, "bytes": b.bytes,
                        "reference_bytes": b.reference_bytes, "offset": b.offset,
                        "fill": {"kind": b.fill.kind.value, "value": b.fill.value},
                        "streams": [d.stream.value for d in b.demands],
                    }
                    for b in comp.buffers
                ],
            }
            for name, comp in plan.components.items()
        },
        "padding": [
            {"label": s.label, "batches": s.batches, "real_tokens": s.real_tokens,
             "padded_tokens": s.padded_tokens, "waste_fraction": round(s.waste_fraction, 6),
             "worst_waste": s.worst_waste, "modes": dict(s.modes)}
            for s in plan_padding(plan)
        ],
        "total_bytes": plan.total_bytes,
        "reference_bytes": plan.reference_bytes,
        "verification": verification_document(verification),
    }


def verification_document(verification: Verification) -> dict[str, Any]:
    return {
        "ok": verification.ok,
        "checked": verification.checked,
        "violations": len(verification.violations),
        "ranges": [
            {"buffer": f"{r.component}.{r.buffer}", "first": r.first, "last": r.last,
             "padded": r.padded, "needed": r.needed, "capacity": r.capacity,
             **({"scenario": r.scenario} if r.scenario else {})}
            for r in verification.ranges()
        ],
    }


def load_plan_document(text: str) -> tuple[Plan, dict[str, int]]:
    """Parse a plan document: (the plan its config gives, the capacities the file claims).

    Raises ConfigError for malformed JSON, a wrong schema, an unknown buffer or a ladder that
    does not follow from the config. Short capacities are not an error here: verify them.
    """
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"plan: malformed JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(doc, dict) or doc.get("schema") != PLAN_SCHEMA:
        raise ConfigError(f"plan: schema must be {PLAN_SCHEMA!r}")
    fresh = plan(EngineConfig.from_dict(_field(doc, "config", dict)))
    version = doc.get("engine_version", fresh.engine_version)
    if version != fresh.engine_version:
        raise ConfigError(f"plan: made for {version!r}; this graphfit models "
                          f"{fresh.engine_version!r} (re-plan it)")
    ladder = _field(doc, "ladder", dict)
    if ladder.get("capture_sizes") != list(fresh.capture_sizes):
        raise ConfigError("plan: ladder.capture_sizes does not follow from its config")
    capacities: dict[str, int] = {}
    components = _field(doc, "components", dict)
    for name, comp in components.items():
        if name not in fresh.components or not isinstance(comp, dict):
            raise ConfigError(f"plan: unknown component {name!r}")
        for buf in _field(comp, "buffers", list):
            if not isinstance(buf, dict):
                raise ConfigError(f"plan: {name} buffer entries must be objects")
            key = f"{name}.{buf.get('name')}"
            capacities[key] = _claimed_capacity(fresh, key, buf)
    missing = sorted(b.key for c in fresh.components.values() for b in c.buffers
                     if b.key not in capacities)
    if missing:
        raise ConfigError(f"plan: missing buffer(s) {', '.join(missing)}")
    return fresh, capacities


def _claimed_capacity(fresh: Plan, key: str, buf: dict[str, Any]) -> int:
    """The file's capacity for one buffer, after checking its shape, dtype and bytes agree.

    A consumer may allocate from `shape` or `bytes` rather than `capacity`, so all three must
    describe the same rows; the rows themselves are audited by `verify` afterwards.
    """
    expected = fresh.buffer(key)
    cap = buf.get("capacity")
    if isinstance(cap, bool) or not isinstance(cap, int) or cap < 0:
        raise ConfigError(f"plan: {key} capacity must be a non-negative integer")
    if buf.get("dtype") != expected.dtype:
        raise ConfigError(f"plan: {key} dtype {buf.get('dtype')!r} is not {expected.dtype!r}")
    shape = list(expected.shape)
    shape[expected.axis_dim] = cap
    if buf.get("shape") != shape:
        raise ConfigError(f"plan: {key} shape {buf.get('shape')!r} disagrees with capacity "
                          f"{cap} (expected {shape})")
    if buf.get("bytes") != expected.row_bytes * cap:
        raise ConfigError(f"plan: {key} bytes {buf.get('bytes')!r} disagree with capacity {cap}")
    return cap


def _field(doc: dict[str, Any], key: str, kind: type) -> Any:
    value = doc.get(key)
    if not isinstance(value, kind):
        raise ConfigError(f"plan: {key!r} must be a JSON {kind.__name__.replace('dict', 'object')}")
    return value
