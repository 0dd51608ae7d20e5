"""Side-by-side figures of two plans: graphs, expected padding waste, buffer bytes, safety.

"Expected" waste weights every reachable batch equally (no trace needed): uniform decodes of
1..max requests are comparable across engines (vLLM pads tokens, SGLang and TensorRT-LLM
pad requests); mixed batches are shown where the engine's model has mixed graphs (vLLM).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphfit.planner.analysis.summary import decode_stats, mixed_family
from graphfit.planner.analysis.waste import PaddingStats, family_stats
from graphfit.planner.config import KEYWORDS, LEGACY_KEYWORDS, EngineConfig, keyword_default
from graphfit.planner.core.enums import LadderPolicy
from graphfit.planner.core.errors import ConfigError, listed
from graphfit.planner.plan import Plan

_ENGINE_SPECIFIC = ("engine_version", "runner", "cuda_graph_padding", "speculative_eagle_topk",
                    "speculative_num_draft_tokens", "cudagraph_capture_sizes",
                    "max_cudagraph_capture_size", *LEGACY_KEYWORDS)


def apply_variant(base: EngineConfig, changes: Mapping[str, Any], label: str
                  ) -> tuple[EngineConfig, list[str]]:
    """One side of a comparison: `base` with field `changes` (graphfit.inputs.variants reads
    them from text: a ladder policy, a list of sizes or key=value overrides). A policy of
    another engine switches the engine and resets the engine-specific fields (their units
    differ), which is reported as a note."""
    notes: list[str] = []
    unknown = sorted(set(changes) - KEYWORDS)
    if unknown:
        raise ConfigError(f"compare: {label}: unknown field(s) {listed(unknown)}")
    changes = dict(changes)
    chosen = changes.get("engine", base.engine)
    engine = str(getattr(chosen, "value", chosen)).strip().lower()  # EngineConfig checks it
    if engine != base.engine.value:
        reset: dict[str, Any] = {name: keyword_default(name) for name in _ENGINE_SPECIFIC
                                 if name not in changes}
        reset.setdefault("ladder", LadderPolicy.AUTO)
        if any(getattr(base, name) is not None for name in ("cudagraph_capture_sizes",
                                                             "max_cudagraph_capture_size")):
            notes.append(f"{label}: capture sizes reset for engine {engine} "
                         "(other units)")
        changes = {**reset, **changes}
    return base.replace(**changes), notes


@dataclass(frozen=True)
class PlanFigures:
    """What `graphfit compare` shows for one side."""

    label: str
    engine: str
    ladder: str
    unit: str
    sizes: tuple[int, ...]
    decode: PaddingStats
    mixed: PaddingStats | None
    total_bytes: int
    reference_bytes: int
    safe: bool
    checked: int
    warnings: tuple[str, ...]
    engine_version: str = ""

    @property
    def graphs(self) -> int:
        return len(self.sizes)

    @property
    def decode_graph_share(self) -> float:
        """Share of decode batches that replay a graph (the rest run eagerly)."""
        graphed = sum(n for mode, n in self.decode.modes if mode != "NONE")
        return graphed / self.decode.batches if self.decode.batches else 0.0

    def to_dict(self) -> dict[str, Any]:
        def stats(s: PaddingStats | None) -> dict[str, Any] | None:
            if s is None:
                return None
            return {"label": s.label, "batches": s.batches, "real_tokens": s.real_tokens,
                    "padded_tokens": s.padded_tokens,
                    "waste_fraction": round(s.waste_fraction, 6),
                    "worst_waste": s.worst_waste, "modes": dict(s.modes)}

        return {"label": self.label, "engine": self.engine,
                "engine_version": self.engine_version, "ladder": self.ladder,
                "unit": self.unit, "graphs": self.graphs,
                "max_capture": self.sizes[-1] if self.sizes else 0,
                "sizes": list(self.sizes), "decode": stats(self.decode),
                "decode_graph_share": round(self.decode_graph_share, 6),
                "mixed": stats(self.mixed), "total_bytes": self.total_bytes,
                "reference_bytes": self.reference_bytes, "safe": self.safe,
                "checked": self.checked, "warnings": list(self.warnings)}


def mixed_span(*plans: Plan) -> int:
    """Tokens up to the largest mixed graph of the plans: the range where mixed batches pad."""
    spans = []
    for p in plans:
        family = mixed_family(p.component("target"))
        if family is not None:
            spans.append(min(family.last, p.component("target").tables.max_size))
    return max(spans, default=0)


def figures(label: str, p: Plan, mixed_tokens: int | None = None) -> PlanFigures:
    """Plan, verify and total up one side (mixed batches of 1..mixed_tokens where they pad)."""
    target = p.component("target")
    decode = decode_stats(p)
    mixed = None
    family = mixed_family(target)
    if family is not None:
        top = mixed_tokens or mixed_span(p)
        mixed = family_stats(f"mixed, 1..{top} tokens", family, target.tables, top)
    verification = p.verify()
    return PlanFigures(label, p.config.engine.value, p.config.ladder.value, p.unit.value,
                       p.capture_sizes, decode, mixed, p.total_bytes, p.reference_bytes,
                       verification.ok, verification.checked, p.warnings, p.engine_version)


def byte_deltas(left: Plan, right: Plan) -> Mapping[str, tuple[int | None, int | None]]:
    """Bytes per buffer key on each side (None where a side has no such buffer)."""
    keys: dict[str, tuple[int | None, int | None]] = {}
    lb = {b.key: b.bytes for comp in left.components.values() for b in comp.buffers}
    rb = {b.key: b.bytes for comp in right.components.values() for b in comp.buffers}
    for key in list(lb) + [k for k in rb if k not in lb]:
        keys[key] = (lb.get(key), rb.get(key))
    return keys
