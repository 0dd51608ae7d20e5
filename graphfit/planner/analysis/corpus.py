"""The bug corpus: each case file replays one real bug and checks graphfit's safe plan.

A case (YAML or JSON) states a config, the buggy sizing (capacity formulas), padding (fills)
or ladder property, the counterexamples the bug must produce, and what graphfit's own plan
gives instead. `check_case` returns the mismatches (empty: the case holds), so a test can run
every file of tests/corpus/ and an engine's CI can add its own cases.

Case layout::

    id, title, reference, summary
    version: the engine version whose behaviour the buggy run replays, e.g. "vLLM 0.33.0" or
             "vLLM before PR #50488 (ladder vllm-legacy)"
    config: {EngineConfig fields}
    buggy:                      # at least one of capacities / fills / property
      config: {overrides}       # optional: the buggy variant (e.g. ladder: vllm-legacy)
      capacities: {component.buffer: formula}   # see graphfit.planner.analysis.capexpr
      fills: {component.buffer: keep|zero|sentinel|copy-real-rows}
      property: {name: ..., stage: runtime|config}   # see graphfit.planner.analysis.properties
    expect:
      violations: [{buffer, first, last, count?, padded?, capacity?}]   # one per buffer
      fill_violations: [{buffer, first, last, count?}]
      counterexamples: [ints] or {first, last, count}
    safe:
      config: {overrides}       # optional: graphfit's recommended config
      capacities: {component.buffer: rows}   # optional: graphfit's capacities there
      property: {name, stage}   # optional: checked instead of buggy.property
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from graphfit.planner.analysis.capexpr import capacities_for
from graphfit.planner.analysis.properties import PROPERTIES, counterexamples
from graphfit.planner.config import EngineConfig
from graphfit.planner.core.errors import ConfigError, listed
from graphfit.planner.plan import Plan, plan

CASE_KEYS = {"id", "title", "reference", "summary", "engine", "version", "config", "buggy",
             "expect", "safe"}


@dataclass(frozen=True)
class Case:
    """One corpus case, validated on load (unknown keys are errors, not ignored)."""

    id: str
    title: str
    reference: str
    config: Mapping[str, Any]
    buggy: Mapping[str, Any]
    expect: Mapping[str, Any]
    safe: Mapping[str, Any] = field(default_factory=dict)
    summary: str = ""
    path: str = ""
    version: str = ""

    def buggy_config(self) -> EngineConfig:
        return EngineConfig.from_dict({**self.config, **self.buggy.get("config", {})})

    def safe_config(self) -> EngineConfig:
        return EngineConfig.from_dict({**self.config, **self.safe.get("config", {})})


def _mapping(where: str, value: Any) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: expected a mapping, got {type(value).__name__}")
    return value


def case_from_data(data: Any, name: str, path: str = "") -> Case:
    """Validate one parsed case (reading the file, bounded and strict, is the inputs layer's
    job: graphfit.inputs.cases.load_case); `name` is how messages call it."""
    if not isinstance(data, dict):
        raise ConfigError(f"{name}: a case is a mapping")
    unknown = sorted(map(str, set(data) - CASE_KEYS))
    if unknown:
        raise ConfigError(f"{name}: unknown key(s) {listed(unknown)}")
    for key in ("id", "title", "reference", "config", "buggy", "expect"):
        if key not in data:
            raise ConfigError(f"{name}: {key} missing")
    buggy = _mapping(f"{name}: buggy", data["buggy"])
    extra = sorted(map(str, set(buggy) - {"config", "capacities", "fills", "property"}))
    if extra or not set(buggy) & {"capacities", "fills", "property"}:
        raise ConfigError(f"{name}: buggy needs capacities, fills or property "
                          f"(unknown: {listed(extra) or '-'})")
    for part in ("config", "capacities", "fills"):
        _mapping(f"{name}: buggy.{part}", buggy.get(part))
    safe = _mapping(f"{name}: safe", data.get("safe"))
    for part in ("config", "capacities"):
        _mapping(f"{name}: safe.{part}", safe.get(part))
    return Case(str(data["id"]), str(data["title"]), str(data["reference"]),
                _mapping(f"{name}: config", data["config"]), buggy,
                _mapping(f"{name}: expect", data["expect"]), safe,
                str(data.get("summary", "")).strip(), path,
                str(data.get("version", "")).strip())


@dataclass(frozen=True)
class Outcome:
    """What one run (buggy or safe) produced: per-buffer violation summaries, properties."""

    violations: dict[str, dict[str, int]]
    fill_violations: dict[str, dict[str, int]]
    counterexamples: list[int] | None
    ok: bool


def _summaries(ranges: list[tuple[str, int, int, int, int, int]]) -> dict[str, dict[str, int]]:
    """(buffer, first, last, count, rows, capacity) per range -> {buffer: first, last, count,
    padded, capacity}, without expanding the ranges batch by batch.

    `padded` is the most rows any counterexample needed.
    """
    out: dict[str, dict[str, int]] = {}
    for key, first, last, count, rows, capacity in ranges:
        s = out.setdefault(key, {"first": first, "last": last, "count": 0, "padded": rows,
                                 "capacity": capacity})
        s["first"], s["last"] = min(s["first"], first), max(s["last"], last)
        s["count"] += count
        s["padded"] = max(s["padded"], rows)
    return out


def run(p: Plan, buggy: Mapping[str, Any]) -> Outcome:
    """Audit one plan with a case's buggy capacities, fills and property."""
    caps = capacities_for(p, buggy.get("capacities") or {})
    fills = buggy.get("fills") or {}
    result = p.verify(caps, fills)
    prop = buggy.get("property")
    found = None
    if prop is not None:
        if not isinstance(prop, dict) or prop.get("name") not in PROPERTIES:
            raise ConfigError(f"property: expected {{name, stage}}, name one of "
                              f"{', '.join(PROPERTIES)}")
        found = counterexamples(p, prop["name"], prop.get("stage", "runtime"))
    fill_items = [(r.key, r.first, r.last, r.last - r.first + 1, r.padded, 0)
                  for r in result.fill_ranges]
    items = [(r.key, r.first, r.last, r.count, r.needed, r.capacity) for r in result.ranges()]
    return Outcome(_summaries(items), _summaries(fill_items), found, result.ok and not found)


def _compare(kind: str, expected: Any, actual: dict[str, dict[str, int]]) -> list[str]:
    problems: list[str] = []
    listed = {}
    for entry in expected or []:
        if not isinstance(entry, dict) or "buffer" not in entry:
            return [f"expect.{kind}: entries need a buffer"]
        listed[entry["buffer"]] = entry
    for key, entry in listed.items():
        got = actual.get(key)
        if got is None:
            problems.append(f"{kind}: expected a counterexample on {key}, found none")
            continue
        for name, value in entry.items():
            if name != "buffer" and name in got and got[name] != value:
                problems.append(f"{kind}: {key} {name} is {got[name]}, expected {value}")
    for key in sorted(set(actual) - set(listed)):
        problems.append(f"{kind}: unexpected counterexamples on {key}: {actual[key]}")
    return problems


def _compare_counterexamples(expected: Any, found: list[int] | None) -> list[str]:
    if expected is None:
        return [] if not found else [f"property: unexpected counterexamples {found}"]
    if found is None:
        return ["property: expected counterexamples but the case checks no property"]
    if isinstance(expected, list):
        return [] if list(expected) == found else [
            f"property: counterexamples {found}, expected {expected}"]
    summary = {"first": min(found), "last": max(found), "count": len(found)} if found else {}
    bad = [f"{k} {summary.get(k)} (expected {v})" for k, v in expected.items()
           if summary.get(k) != v]
    return [f"property: counterexamples {', '.join(bad)}"] if bad else []


def check_case(case: Case) -> list[str]:
    """Mismatches between the case and graphfit (empty when the case holds).

    The buggy run must produce exactly the expected counterexamples; graphfit's own plan of
    the safe config must verify, satisfy the property and have the listed capacities.
    """
    buggy = run(plan(case.buggy_config()), case.buggy)
    problems = _compare("violations", case.expect.get("violations"), buggy.violations)
    problems += _compare("fill_violations", case.expect.get("fill_violations"),
                         buggy.fill_violations)
    problems += _compare_counterexamples(case.expect.get("counterexamples"),
                                         buggy.counterexamples)
    if buggy.ok:
        problems.append("buggy: the bug's sizing/ladder produced no counterexample")
    safe_plan = plan(case.safe_config())
    verification = safe_plan.verify()
    if not verification.ok:
        problems.append(f"safe: graphfit's plan fails verification: "
                        f"{[r.describe() for r in verification.ranges()][:3]}")
    prop = case.safe.get("property", case.buggy.get("property"))
    if prop is not None:
        found = counterexamples(safe_plan, prop["name"], prop.get("stage", "runtime"))
        if found:
            problems.append(f"safe: property {prop['name']} still fails: {found[:8]}")
    for key, rows in (case.safe.get("capacities") or {}).items():
        got = safe_plan.buffer(key).capacity
        if got != rows:
            problems.append(f"safe: {key} capacity is {got}, expected {rows}")
    return problems
