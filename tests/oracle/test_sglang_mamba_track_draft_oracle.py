"""The draft-extend runners' `mamba_track_indices` on hybrid-mamba targets with EAGLE drafts
(issue 23, s48l): SGLang's EAGLE draft-extend runner (eagle_draft_extend_cuda_graph_runner.py:
273-277) and the multi-layer EAGLE composite (multi_layer_eagle_draft_extend_cuda_graph_runner
.py:742-746) allocate it whenever the mamba extra buffer is on, speculation or not; graphfit
plans it (graphfit/planner/engines/sglang_mamba_buffers.py). Generated lines are compared as
tests/oracle/sglang_dcp_oracle.compare does, and the padded tail SGLang's own replay helper
leaves is observed by running it."""

from __future__ import annotations

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_dcp_oracle as dc  # noqa: E402
from tests.oracle import sglang_mamba_track_draft as mt  # noqa: E402

COUNT, SEED = 24, 23  # more: python -m tests.oracle.measure_sglang_mamba_track_draft


def test_generated_lines_agree() -> None:
    outcomes = {case: mt.compare(case) for case in mt.generate(COUNT, SEED)}
    bad = {case[0]: diffs for case, (outcome, diffs) in outcomes.items()
           if outcome not in ("agree", "both refuse")}
    assert not bad, bad
    extra = {case[0]: (mt.graphfit_tracks(case), mt.sglang_tracks(case))
             for case, (outcome, _) in outcomes.items()
             if outcome == "agree" and mt.graphfit_tracks(case) != mt.sglang_tracks(case)}
    assert not extra, extra
    # not vacuous: served lines where SGLang tracks, in each runner, and where it does not
    served = [case for case, (outcome, _) in outcomes.items() if outcome == "agree"]
    tracked = [mt.sglang_tracks(case) for case in served]
    assert any("draft_extend" in t for t in tracked), tracked
    assert any("mtp_draft_extend" in t for t in tracked), tracked
    assert any(not t for t in tracked), tracked


def test_kimi_k3_eagle_line_of_s47d() -> None:
    """The line s47d's DCP oracle found short (issue-23-s47d.md, "Found, not my lane")."""
    case = (("--tp-size", "4", "--max-running-requests", "24", *dc.DRAFTS[0]), "B200", dc.KIMI)
    assert mt.sglang_tracks(case) == {"draft_extend": 24} == mt.graphfit_tracks(case)
    assert mt.compare(case) == ("agree", [])


def test_radix_cache_off_tracks_nothing() -> None:
    """An explicit extra-buffer strategy without the radix cache: `mamba_extra_buffer_of`
    (model_override_base.py:260-265) is off, so no draft-extend runner tracks (both sides)."""
    mt.register_models()
    for model, gpu in mt.TARGETS:
        for strategy in ("extra_buffer", "extra_buffer_lazy"):
            for draft in (dc.DRAFTS[0], dc.DRAFTS[5]):
                case = (("--tp-size", "2", "--max-running-requests", "30",
                         "--mamba-radix-cache-strategy", strategy, "--disable-radix-cache",
                         *draft), gpu, model)
                assert mt.sglang_tracks(case) == {} == mt.graphfit_tracks(case), case
                assert mt.compare(case) == ("agree", []), case


def _observed_tail(copy_grouped: bool) -> set[int]:
    """The padded rows [raw_bs, bs) after SGLang's `refresh_track_indices`
    (speculative/draft_checkpoint.py:10-27) over a buffer holding a previous replay's
    indices, as the single-layer runner (grouped copy) and the multi-layer one call it."""
    import torch

    from tests.oracle import sglang_oracle as so

    so.oracle()  # SGLang's tree on the path, its stubs installed
    from sglang.srt.speculative.draft_checkpoint import refresh_track_indices

    raw_bs, bs = 3, 8
    buffer = torch.full((16,), 77, dtype=torch.int64)
    src = torch.arange(raw_bs, dtype=torch.int64) + 5
    dsts: list[torch.Tensor] = []
    srcs: list[torch.Tensor] = []
    if copy_grouped:
        refresh_track_indices(buffer, src, raw_bs=raw_bs, bs=bs, copy_dsts=dsts,
                              copy_srcs=srcs)
        for d, s in zip(dsts, srcs, strict=True):
            d.copy_(s)
    else:
        refresh_track_indices(buffer, src, raw_bs=raw_bs, bs=bs)
    assert buffer[:raw_bs].tolist() == src.tolist()
    return set(buffer[raw_bs:bs].tolist())


def test_padded_tail_matches_sglang_replay() -> None:
    observed = {_observed_tail(True) == {0}, _observed_tail(False) == {0}}
    theirs = "zero" if observed == {True} else "other"
    mt.register_models()
    for case in ((("--tp-size", "2", "--max-running-requests", "40", *dc.DRAFTS[0]), "H100",
                  mt.QNEXT),
                 (("--tp-size", "2", "--max-running-requests", "40", *dc.DRAFTS[5]), "H100",
                  mt.QNEXT)):
        gf, _ = dc.graphfit_answer(case)
        assert gf.plan is not None, gf.rejected
        planned = [b for component in mt.RUNNERS if component in gf.plan.components
                   for b in gf.plan.components[component].buffers if b.name == mt.NAME]
        assert len(planned) == 1, case
        assert planned[0].fill.kind.value == theirs, (case, planned[0].fill.describe())
