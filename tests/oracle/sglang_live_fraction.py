"""The live check's default `mem_fraction_static` against SGLang 0.5.23's (issue 23 s45l):
SGLang resolves a line on CPU (tests/oracle/sglang_oracle) and its resolved ServerArgs record
-- the object the live check is handed -- goes to `graphfit.integrations.sglang.from_sglang`.
SGLang's figure is the memory hook's (memory_hook.py:295-341), read from its resolved view.

Where SGLang's figure is not positive, the server it resolved stops when it sizes the KV
cache (kv_cache_configurator.py:3007, 3038-3058); graphfit then leaves the fraction unset and
its plan's warning must name SGLang's figure (graphfit.planner.engines.sglang_reserve.
unfit_warning), on the live check and on the pasted line alike."""

from __future__ import annotations

import random
import re
from typing import Any

import graphfit
from graphfit.integrations.sglang import from_sglang
from graphfit.planner.core.errors import ConfigError
from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_plan_prefill as spp
from tests.oracle.measure_sglang_plan_prefill import draw

REJECTED = "rejected"  # SGLang rejects the line: not compared
_FIGURE = re.compile(r"default mem_fraction_static is (-?[0-9.]+(?:e-?[0-9]+)?) here")


def sglang_fraction(record: Any) -> float:
    from sglang.srt.arg_groups.overrides import resolving_view

    return float(resolving_view(record).mem_fraction_static)


def warned(plan: Any) -> float | None:
    """The figure an `unfit_warning` names, or None."""
    for text in plan.warnings:
        found = _FIGURE.search(text)
        if found:
            return float(found.group(1))
    return None


def _differs(plan: Any, theirs: float, where: str) -> str | None:
    ours = plan.config.mem_fraction_static
    if theirs <= 0:  # SGLang's server stops sizing the KV cache
        if ours is None and warned(plan) == theirs:
            return None
        return f"{where}: SGLang {theirs} (not positive), graphfit {ours}, warns {warned(plan)}"
    if ours is not None and abs(ours - theirs) < 1e-9:
        return None
    return f"{where}: SGLang {theirs}, graphfit {ours}"


def compare(argv: tuple[str, ...], gb: float, *, pasted: bool = True) -> str | None:
    """None where graphfit agrees with SGLang on the line (live check, and the pasted line
    when `pasted`), REJECTED where SGLang rejects it, else the first difference (a refusal
    by graphfit of a line SGLang resolves counts as one)."""
    resolved = so.resolve(argv, gpu_mem_gb=gb)
    if isinstance(resolved, so.Rejected):
        return REJECTED
    theirs = sglang_fraction(resolved.record)
    try:
        live = graphfit.plan(from_sglang(resolved.record, environ={}, gpu_memory_gb=gb))
    except ConfigError as exc:
        return f"live refuses: {exc}"
    found = _differs(live, theirs, "live")
    if found is not None or not pasted:
        return found
    try:
        line = spp.graphfit_plan(argv, gb)
    except ConfigError as exc:
        return f"pasted line refused: {exc}"
    return _differs(line, theirs, "pasted")


def drawn(count: int, seed: int, *, most_gb: float | None = None,
          need: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], float]]:
    """`count` lines of measure_sglang_plan_prefill's generator (prefill / decode graph flags,
    the JSON phase, --max-total-tokens, TP / attention DP / CP, PP, PD roles), each on a GPU of
    at most `most_gb` and with one of the flags in `need` where given."""
    rng = random.Random(seed)
    out: list[tuple[tuple[str, ...], float]] = []
    while len(out) < count:
        argv, gb, _ = draw(rng)
        if most_gb is not None and gb > most_gb:
            continue
        if need and not any(flag in argv for flag in need):
            continue
        out.append((argv, float(gb)))
    return out
