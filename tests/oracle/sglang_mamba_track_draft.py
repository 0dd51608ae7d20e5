"""Shared by the draft-extend mamba-tracking oracle and its measure script (issue 23, s48l).

Lines on two hybrid-mamba targets with EAGLE drafts, compared as
tests/oracle/sglang_dcp_oracle.compare does (SGLang's own runners, buffers and fills vs
graphfit's plan): Kimi-K3 (sglang_dcp_oracle.KIMI: the MLA stand-in under
KimiK3ForConditionalGeneration, on a B200) and the 4-layer Qwen3-Next-shaped model of
tests/oracle/sglang_mamba_oracle (hybrid GDN, on an H100). The draws vary what SGLang's
`enable_mamba_extra_buffer` reads (exec_.py:474-478 -> model_override_base.py:260-265): the
radix-cache strategy, the radix cache and the overlap schedule, and the draft-extend runner
(single-layer EAGLE / NEXTN, or multi-layer EAGLE).
"""

from __future__ import annotations

import random

from tests.oracle import sglang_dcp_oracle as dc
from tests.oracle import sglang_mamba_oracle as mo
from tests.oracle import sglang_post_capture_oracle as pc

QNEXT = "qnext"
TARGETS = ((dc.KIMI, "B200"), (QNEXT, "H100"))
STRATEGIES = ("auto", "extra_buffer", "extra_buffer_lazy", "no_buffer")
DRAFTS = (dc.DRAFTS[0], dc.DRAFTS[1], dc.DRAFTS[2], dc.DRAFTS[5])  # EAGLE x2, NEXTN, multi-layer
RUNNERS = ("draft_extend", "mtp_draft_extend")
NAME = "mamba_track_indices"


def register_models() -> None:
    """pc.model_dir's table learns the Qwen3-Next-shaped directory (dc.model_path makes the
    Kimi-K3 one on first use)."""
    pc._MODELS.setdefault(QNEXT, mo.model_dir())


def tracking_argv(rng: random.Random, overlap_off: float) -> tuple[str, ...]:
    """The flags the mamba-tracking switch reads (model_override_base.py:260-265: the
    radix-cache strategy and the radix cache), with the TP size, the request pool and the
    overlap schedule (off with probability `overlap_off`); shared with
    tests/oracle/sglang_mamba_track_prefill, whose draws keep their order."""
    argv: tuple[str, ...] = ("--tp-size", str(rng.choice((1, 2, 4))),
                             "--max-running-requests", str(rng.randint(1, 200)))
    strategy = rng.choice(STRATEGIES)
    argv += () if strategy == "auto" else ("--mamba-radix-cache-strategy", strategy)
    argv += ("--disable-radix-cache",) if rng.random() < 0.25 else ()
    argv += ("--disable-overlap-schedule",) if rng.random() < overlap_off else ()
    return argv


def generate(count: int, seed: int) -> list[dc.Case]:
    register_models()
    rng = random.Random(seed)
    out: list[dc.Case] = []
    for _ in range(count):
        model, gpu = rng.choice(TARGETS)
        argv = tracking_argv(rng, 0.5) + rng.choice(DRAFTS)
        out.append((argv, gpu, model))
    return out


def sglang_tracks(case: dc.Case) -> dict[str, int]:
    """The draft-extend runners SGLang builds with a `mamba_track_indices`, and its rows."""
    sg = dc.sglang_answer(case)
    return {name: run.buffers[NAME].shape[0] for name, run in (sg.runners or {}).items()
            if name in RUNNERS and NAME in run.buffers}


def configurator_refusal(case: dc.Case) -> str | None:
    """Glue: SGLang's server start sizes the mamba state cache, whose ratio asserts the lazy
    extra buffer has the overlap schedule (`_calculate_mamba_ratio`,
    kv_cache_configurator.py:3062-3076); dc.sglang_answer stops before it, so SGLang's own
    method is run here on the published record (it reads only the published bags)."""
    import types

    from tests.oracle import sglang_oracle as so
    from tests.oracle import sglang_stubs

    r = dc.sglang_answer(case).resolved
    if not isinstance(r, so.Resolved):
        return None
    with sglang_stubs.imports():
        from sglang.srt.mem_cache.kv_cache_configurator import KVCacheConfigurator
    with so.published(r):
        try:
            KVCacheConfigurator._calculate_mamba_ratio(types.SimpleNamespace())
        except AssertionError as exc:
            return f"AssertionError: {exc}"
    return None


def compare(case: dc.Case) -> tuple[str, list[str]]:
    """dc.compare, with SGLang's start-time refusal above counted as SGLang's."""
    outcome, diffs = dc.compare(case)
    gf, _ = dc.graphfit_answer(case)
    if gf.rejected is not None and configurator_refusal(case) is not None:
        return "both refuse", [gf.rejected]
    if outcome == "agree" and configurator_refusal(case) is not None:
        return "differs", ["SGLang refuses at start (mamba ratio); graphfit plans"]
    return outcome, diffs


def graphfit_tracks(case: dc.Case) -> dict[str, int] | None:
    """The draft-extend components graphfit plans a `mamba_track_indices` in, and its rows
    (None where graphfit refuses). The shared comparison reports a buffer graphfit lacks, not
    one it plans beyond SGLang's, so the tests compare this set as well."""
    gf, _ = dc.graphfit_answer(case)
    if gf.plan is None:
        return None
    return {name: b.shape[0] for name in RUNNERS if name in gf.plan.components
            for b in gf.plan.components[name].buffers if b.name == NAME}
