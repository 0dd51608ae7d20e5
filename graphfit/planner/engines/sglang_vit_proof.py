"""The proof of a `VitPlan` as `graphfit plan` reports it: every reachable key's buffers within
capacity, and each capacity tight (one row less, a reachable key goes short).

SGLang's ViT runners do not pad (graphfit.planner.engines.sglang_vit): a key's graph reads
exactly its own rows, so the capacity of a buffer is the most rows any reachable key reads
and the proof is a comparison per (key, buffer). Tightness is not assumed from how the plan
was sized: it is checked by auditing each buffer at one row less and keeping the first key
that then goes short (its witness, a call of the workload that reaches it).
"""

from __future__ import annotations

from dataclasses import dataclass

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines.sglang_vit import Grid, VitPlan, VitViolation, key_buffers


@dataclass(frozen=True)
class VitTight:
    """Buffer `buffer` at `rows - 1`: the first reachable key that goes short, and a call of
    the workload that reaches that key."""

    buffer: str
    rows: int
    violation: VitViolation
    call: tuple[Grid, ...]


@dataclass(frozen=True)
class VitProof:
    """`checks` (key, buffer) comparisons at the plan's capacities, the `violations` found
    (none for a plan graphfit sized) and, per buffer of at least one row, its `tight`
    witness."""

    keys: int
    checks: int
    violations: tuple[VitViolation, ...]
    tight: tuple[VitTight, ...]
    buffers: int

    def __post_init__(self) -> None:
        if self.keys < 0 or self.checks < 0 or self.buffers < 0:
            raise ConfigError("vit proof: counts must be >= 0")

    @property
    def ok(self) -> bool:
        """Every key within capacity and every sized buffer tight."""
        return not self.violations and len(self.tight) == self.buffers


def prove_vit(plan: VitPlan) -> VitProof:
    """The plan's proof (module docstring)."""
    checks = sum(len(key_buffers(plan.geometry, k)) for k in plan.keys)
    violations = plan.verify()
    calls = dict(zip(plan.keys, plan.calls, strict=True))
    tight: list[VitTight] = []
    sized = [b for b in plan.buffers if b.rows > 0]
    for buf in sized:
        short = plan.verify({buf.name: buf.rows - 1})
        if short:
            tight.append(VitTight(buf.name, buf.rows, short[0], calls[short[0].key]))
    return VitProof(len(plan.keys), checks, violations, tuple(tight), len(sized))


__all__ = ["VitProof", "VitTight", "prove_vit"]
