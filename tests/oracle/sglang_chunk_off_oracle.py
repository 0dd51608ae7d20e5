"""Chunked prefill off (`--chunked-prefill-size` <= 0) on drawn lines (issue 23, s68b; not a
test): SGLang 0.5.23's own resolution (tests.oracle.sglang_prefill_oracle: its pipeline, the
prefill runner it builds, its `mem_fraction_static`) beside `graphfit plan` of the same
pasted line. SGLang keeps a given chunk of any sign (memory_hook.py:93-177 fill only None),
so the prefill graphs' default max is that chunk and leaves no capture size
(memory_hook.py:233-237, cuda_graph_hook.py:480-497), attention DP's `//` keeps it <= 0
(parallel_hook.py:326-332) and the memory reserve counts --max-prefill-tokens instead
(memory_hook.py:305-308). PD multiplexing (`--enable-pdmux`), which needs exactly -1
(validation_hook.py:253-255), is drawn beside it."""

from __future__ import annotations

import random
from dataclasses import dataclass

from graphfit.planner.core.errors import ConfigError
from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_plan_prefill as spp
from tests.oracle import sglang_post_capture_oracle as pc
from tests.oracle import sglang_prefill_oracle as po
from tests.oracle.measure_sglang_plan_prefill import draw as draw_prefill

OFF = ("-1", "-1", "0", "-2")
CHUNK = "--chunked-prefill-size"


def draw(rng: random.Random) -> tuple[tuple[str, ...], float]:
    """measure_sglang_plan_prefill's line (prefill / decode graph flags, TP, attention DP / CP,
    PP, PD roles...) with chunking off in place of its chunk, now and then a
    --max-prefill-tokens (the reserve's tokens then) and PD multiplexing with the overlap
    schedule off (the line SGLang starts only with chunking off)."""
    argv, gb, _ = draw_prefill(rng)
    out = list(argv)
    if CHUNK in out:
        i = out.index(CHUNK)
        del out[i:i + 2]
    out += [CHUNK, rng.choice(OFF)]
    if rng.random() < 0.3:
        out += ["--max-prefill-tokens", str(rng.randint(512, 40000))]
    if rng.random() < 0.3:
        out += ["--enable-pdmux", "--disable-overlap-schedule"]
    return tuple(out), gb


@dataclass(frozen=True)
class Outcome:
    """One line: SGLang rejects it, graphfit refuses it (and whether as "not modelled"), or
    both plan it and these aspects differ."""

    argv: tuple[str, ...]
    gb: float
    rejected: bool = False
    refused: str = ""
    diffs: tuple[str, ...] = ()

    @property
    def verdict(self) -> str:
        if self.rejected:
            return "both refuse" if self.refused else "differ"
        if self.refused:
            return "not modelled" if "not modelled" in self.refused else "differ"
        return "differ" if self.diffs else "agree"


def compare(argv: tuple[str, ...], gb: float) -> Outcome:
    """The prefill plan's aspects (tests.oracle.sglang_plan_prefill.compare: backend, ladder,
    dispatch, buffers, fills, proof, decode) and the default `mem_fraction_static`."""
    fraction = po.mem_fraction(argv, gb)
    if isinstance(fraction, so.Rejected):
        try:
            spp.graphfit_plan(argv, gb)
        except ConfigError as exc:
            return Outcome(argv, gb, rejected=True, refused=str(exc))
        return Outcome(argv, gb, rejected=True)
    try:
        ours = spp.graphfit_plan(argv, gb).config.mem_fraction_static
    except ConfigError as exc:
        return Outcome(argv, gb, refused=str(exc))
    out = spp.compare(argv, gb)
    diffs = [f"{aspect}: {said[0]}" for aspect, said in out.diffs.items()]
    said = pc.disagreement(fraction[1], ours)
    if said is not None:
        diffs.append(f"mem_fraction_static: {said}")
    return Outcome(argv, gb, diffs=tuple(diffs))
