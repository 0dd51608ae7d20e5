"""Oracle glue: SGLang 0.5.23's default `mem_fraction_static` against graphfit's on lines whose
attention backend is torch_native or flex_attention.

SGLang's memory hook (arg_groups/pipeline.py:218) runs before the attention rule that turns
both phases' graphs off (attention_hook.py:122-160, pipeline.py:242), so the reserve it
subtracts (memory_hook.py:295-328) still counts the graphs the flags ask for
(`reserve_for_graph_mb`, :357-399). Both sides run on the same drawn line: SGLang's resolution
on CPU (tests/oracle/sglang_oracle) and `graphfit plan` of the pasted line.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from graphfit.planner.core.errors import ConfigError
from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_plan_prefill as spp
from tests.oracle import sglang_post_capture_oracle as pc
from tests.oracle import sglang_prefill_oracle as po
from tests.oracle.measure_sglang_plan_prefill import draw

GRAPHLESS = ("torch_native", "flex_attention")


@dataclass(frozen=True)
class Outcome:
    """One line's two fractions (None: that side rejected / refused it)."""

    argv: tuple[str, ...]
    gb: float
    sglang: float | None
    graphfit: float | str | None
    rejected: bool = False
    refused: bool = False

    @property
    def difference(self) -> str | None:
        if self.sglang is None or self.rejected or self.refused:
            return None
        return pc.disagreement(self.sglang, self.graphfit)


def draw_graphless(rng: random.Random) -> tuple[tuple[str, ...], float]:
    """measure_sglang_plan_prefill's line (prefill / decode graph flags, TP, attention DP / CP,
    PP, PD roles...) with a graph-less attention backend in place of its own choice."""
    argv, gb, _ = draw(rng)
    out = list(argv)
    if "--attention-backend" in out:
        i = out.index("--attention-backend")
        del out[i:i + 2]
    return (*out, "--attention-backend", rng.choice(GRAPHLESS)), gb


def compare(argv: tuple[str, ...], gb: float) -> Outcome:
    theirs = po.mem_fraction(argv, gb)
    if isinstance(theirs, so.Rejected):
        return Outcome(argv, gb, None, None, rejected=True)
    try:
        ours = spp.graphfit_plan(argv, gb).config.mem_fraction_static
    except ConfigError as exc:
        return Outcome(argv, gb, theirs[1], str(exc), refused="not modelled" in str(exc))
    return Outcome(argv, gb, theirs[1], ours)
