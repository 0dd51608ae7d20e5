"""The prefill graph runner's mamba tracking inputs, graphfit vs SGLang 0.5.23's own code.

With the hybrid-mamba radix cache's extra buffer (the radix cache on, strategy extra_buffer /
extra_buffer_lazy), SGLang's prefill runner turns tracking on (`_is_mamba_track_enabled`,
prefill_cuda_graph_runner.py:427, 705-708; no speculation test) and `PrefillInputBuffers.create`
allocates `mamba_track_indices` int64, `mamba_track_mask` bool and `mamba_track_seqlens` int32,
one row per request slot (runner_utils/buffers.py:309-321); the registry copies the real rows
(cuda_graph_buffer_registry.py:989-992, FOREACH_COPY) and the full backend zeroes the mask and
indices past them (prefill_cuda_graph_runner.py:2106-2112). Per generated line the plan's
prefill component must equal SGLang's runner (tests/oracle/sglang_plan_prefill.compare: every
buffer by name, shape and dtype, and the padding of every registry slot the oracle reads,
these three included), and the tracking inputs as a set. Kept small (a few seconds beyond the
shared SGLang import); the grid runs in `python -m tests.oracle.measure_sglang_mamba_track_prefill`.
"""

from __future__ import annotations

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_mamba_track_prefill as mp  # noqa: E402
from tests.oracle import sglang_prefill_oracle as po  # noqa: E402

LINES = mp.generate(5, 3)
# hand-picked: the radix cache off tracks nothing, even with the extra-buffer strategy given
# (on both targets, under an explicit backend of the other kind); the full backend on the
# breakable-by-default target tracks with zeroed mask and indices
FIXED: list[mp.Case] = [
    (("--max-running-requests", "48", "--disable-radix-cache"), mp.QNEXT),
    (("--max-running-requests", "48", "--mamba-radix-cache-strategy", "extra_buffer",
      "--disable-radix-cache", "--cuda-graph-backend-prefill", "breakable"), mp.INKLING),
    (("--max-running-requests", "48", "--cuda-graph-backend-prefill", "full"), mp.QNEXT),
]


def test_lines_agree() -> None:
    """spp.compare's buffers aspect is an equality of the whole set (a tracking input planned
    on one side only differs) and its fills aspect covers the three tracking slots."""
    tracked: dict[str, int] = {}
    untracked = []
    for case in [*LINES, *FIXED]:
        out = mp.compare(case)
        if out.sglang_rejects:
            continue
        assert not out.graphfit_refuses, (case, out.graphfit_refuses)
        assert not out.diffs, (case, out.diffs)
        if not out.prefill_on:
            continue
        theirs = mp.sglang_tracks(case)
        if theirs:
            backend = next(fill for name, (_, _, fill) in theirs.items()
                           if name == "mamba_track_mask")
            tracked[backend] = tracked.get(backend, 0) + 1
        else:
            untracked.append(case)
    # not vacuous: both paddings (breakable: copied rows, full: zeroed tail) tracked, and
    # served prefill lines without tracking, the two hand-picked ones among them
    assert set(tracked) == {"foreach_copy", "zero"}, tracked
    assert FIXED[0] in untracked and FIXED[1] in untracked, untracked


def test_oracle_reads_the_full_backends_zeroed_slots() -> None:
    """The oracle itself: the loop it reads from SGLang's runner names the two tracking
    slots, and a full-backend line's fills carry them as zero (seqlens kept)."""
    assert set(po.full_tail_zeroed(po._runner_module())) == {"mamba_track_mask",
                                                             "mamba_track_indices"}
    tracks = mp.sglang_tracks(FIXED[2])
    assert {n: t[2] for n, t in tracks.items()} == {
        "mamba_track_indices": "zero", "mamba_track_mask": "zero",
        "mamba_track_seqlens": "foreach_copy"}


STRATEGY_LINES = [("--max-running-requests", "48", "--mamba-radix-cache-strategy", s, *more)
                  for s in ("extra_buffer", "extra_buffer_lazy", "no_buffer")
                  for more in ((), ("--disable-radix-cache",),
                               ("--disaggregation-mode", "decode"),
                               ("--disaggregation-mode", "prefill"))]


def test_extra_buffer_on_a_model_without_mamba_state() -> None:
    """The oracle's Llama model: SGLang refuses an explicit extra-buffer strategy with the
    radix cache on (model_hook.py:1059-1066; a PD decode server has it off) and graphfit must
    refuse the same lines with SGLang's sentence, and plan the others."""
    from graphfit.planner.core.errors import ConfigError
    from tests.oracle import sglang_oracle as so
    from tests.oracle import sglang_plan_prefill as spp

    refused = 0
    for argv in STRATEGY_LINES:
        r = so.resolve(argv, gpu_mem_gb=80)
        theirs = r.text if isinstance(r, so.Rejected) else None
        try:
            spp.graphfit_plan(argv, 80)
            ours = None
        except ConfigError as exc:
            ours = str(exc)
        if theirs is None:
            assert ours is None, (argv, ours)
        else:
            refused += 1
            sentence = theirs.removeprefix("ValueError: ")
            assert ours is not None and ours.startswith(sentence), (argv, theirs, ours)
    assert refused == 4, refused  # both extra-buffer strategies, radix on: no PD / PD prefill
