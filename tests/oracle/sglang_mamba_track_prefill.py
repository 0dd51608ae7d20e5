"""Shared by the prefill mamba-tracking oracle test and its measure script (issue 23, s50m).

Lines on two hybrid-mamba targets, each compared as tests/oracle/sglang_plan_prefill.compare
does (SGLang's own pipeline, capture filter and `PrefillInputBuffers.create` /
`build_prefill_registry` with the runner's own `_is_mamba_track_enabled`, vs graphfit's plan's
"prefill" component): the 4-layer Qwen3-Next-shaped model of tests/oracle/sglang_mamba_oracle
(hybrid GDN, breakable by default) and the Inkling model of
tests/oracle/sglang_mamba_memory_oracle (full by default, cuda_graph_hook.py:349-372). The
draws vary what the runner's switch reads (prefill_cuda_graph_runner.py:705-708 ->
model_override_base.py:260-265: the radix-cache strategy and the radix cache), the prefill
backend (which decides the padded tail, :2106-2112), speculation (none, EAGLE, NEXTN, NGRAM:
the prefill switch does not read it), the request pool and the TP size.
"""

from __future__ import annotations

import random

from graphfit.planner.core.errors import ConfigError
from tests.oracle import sglang_dcp_oracle as dc
from tests.oracle import sglang_mamba_memory_oracle as mm
from tests.oracle import sglang_mamba_oracle as mo
from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_plan_prefill as spp
from tests.oracle import sglang_prefill_oracle as po
from tests.oracle.sglang_mamba_track_draft import tracking_argv

QNEXT, INKLING = "qnext", "inkling"
BACKENDS = ("default", "full", "breakable", "disabled")
# the prefill runner's switch has no speculation test (unlike the decode runner's,
# decode_cuda_graph_runner.py:458-461): none, EAGLE, NEXTN, NGRAM
DRAFTS: tuple[tuple[str, ...], ...] = ((), dc.DRAFTS[0], dc.DRAFTS[2], dc.DRAFTS[3])
PREFIX = po.TRACK_PREFIX

Case = tuple[tuple[str, ...], str]  # (argv, model key)


def model_path(key: str) -> str:
    return mo.model_dir() if key == QNEXT else mm.model_dir(mm.INKLING)


def generate(count: int, seed: int) -> list[Case]:
    rng = random.Random(seed)
    out: list[Case] = []
    for _ in range(count):
        argv = tracking_argv(rng, 0.3)
        backend = rng.choice(BACKENDS)
        argv += () if backend == "default" else ("--cuda-graph-backend-prefill", backend)
        argv += rng.choice(DRAFTS)
        out.append((argv, rng.choice((QNEXT, INKLING))))
    return out


def compare(case: Case) -> spp.Outcome:
    return spp.compare(case[0], 80, model_path(case[1]))


def sglang_tracks(case: Case) -> dict[str, tuple[tuple[int, ...], str, str]]:
    """SGLang's prefill tracking inputs: name -> (shape, dtype, padding as the oracle reads
    it); {} when it tracks nothing or builds no prefill runner."""
    sg = po.prefill(case[0], 80, model_path(case[1]))
    if isinstance(sg, so.Rejected):
        return {}
    return {name: (*sg.buffers[name], sg.fills.get(name, "")) for name in sg.buffers
            if name.startswith(PREFIX)}


def graphfit_tracks(case: Case) -> dict[str, tuple[tuple[int, ...], str, str]] | None:
    """graphfit's prefill tracking inputs in the same form (fill mapped back to SGLang's
    words), or None where graphfit refuses the line. spp.compare's buffer check is an
    equality of the whole set, so an extra planned input already differs; this form also
    shows the fill."""
    try:
        plan = spp.graphfit_plan(case[0], 80, model_path(case[1]))
    except ConfigError:
        return None
    comp = plan.components.get("prefill")
    if comp is None:
        return {}
    back = {"keep": "foreach_copy", "zero": "zero"}
    return {b.name: ((b.reference_capacity,), b.dtype, back.get(b.fill.kind.value, "?"))
            for b in comp.buffers if b.name.startswith(PREFIX)}
