"""SGLang 0.5.23's DFLASH and DSPARK under attention DP against graphfit
(graphfit.planner.engines.sglang_spec_dp), with SGLang's own argument pipeline and runners on
CPU (tests/oracle/sglang_spec_dp_compare.py: acceptance, ladders, padding, components,
buffers, fills, and per rank the runners' gather requirements, `global_num_tokens` counts and
every rank's graph key and padded batch).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_dflash_compare as dc  # noqa: E402
from tests.oracle import sglang_dspark_compare as kc  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_spec_dp_compare as dp  # noqa: E402

DP = ("--tp-size", "4", "--attn-dp-size", "2", "--enable-dp-lm-head")


def _dflash(*extra: str) -> tuple[str, ...]:
    return tuple(dc.with_draft(["--speculative-algorithm", "DFLASH",
                                "--speculative-num-draft-tokens", "8", *extra]))


def _dspark(*extra: str) -> tuple[str, ...]:
    return kc.dspark("--speculative-num-draft-tokens", "8", *extra)


def _no_head(algorithm: str) -> tuple[str, ...]:
    return (_dflash if algorithm == "DFLASH" else _dspark)("--tp-size", "2", "--attn-dp-size",
                                                          "2")


CP_DSPARK = _dspark(*DP, "--attn-cp-size", "2", "--tp-size", "8")
TP8_LIST = _dspark("--tp-size", "8", "--attn-dp-size", "2", "--enable-dp-lm-head",
                   "--cuda-graph-bs-decode", "1", "2", "3", "4", "6", "8", "12")

EDGE: list[tuple[tuple[str, ...], str]] = [
    (_dflash(*DP), "no_runner"),  # the draft runs eager (dflash_worker_v2.py:718-725)
    (_dflash(*DP, "--max-running-requests", "40", "--enable-two-batch-overlap"), "no_runner"),
    (_no_head("DFLASH"), "rejected"),  # speculative_hook.py:307
    (_dflash(*DP, "--attn-cp-size", "2", "--tp-size", "8"), "rejected"),  # :310-313
    (_dspark(*DP), "runner"),
    (_dspark(*DP, "--max-running-requests", "40"), "runner"),
    (_dspark(*DP, "--enable-two-batch-overlap"), "runner"),
    # attention TP 4: the target captures multiples of 4, the dense draft every size
    (TP8_LIST, "runner"),
    (_dspark("--tp-size", "4", "--attn-dp-size", "4", "--enable-dp-lm-head",
             "--max-running-requests", "7", "--disable-cuda-graph-padding"), "runner"),
    # no padding: a rank replays only when the largest rank's batch is captured (found by
    # the generated lines: the oracle padded it)
    ((*kc.dspark("--max-running-requests", "417", "--disable-cuda-graph-padding",
                 "--enable-two-batch-overlap", "--tp-size", "4", "--attn-dp-size", "4",
                 "--enable-dp-lm-head", draft=False),
      dc.DRAFT, kc.draft_dir("dspark_block_size", 3, True)), "runner"),
    (_no_head("DSPARK"), "rejected"),  # :674-676
    (CP_DSPARK, "rejected"),  # :697-701
    (_dspark(*DP, "--disable-cuda-graph"), "no_runner"),
    # --enable-dp-lm-head without attention DP: SGLang turns it off (overrides.py:1366-1370)
    (_dspark("--enable-dp-lm-head"), "runner"),
    (_dflash("--enable-dp-lm-head"), "runner"),
    # replicas without attention DP: SGLang asserts (overrides.py:1421-1427)
    (_dspark("--dp-size", "2", "--enable-dp-lm-head"), "rejected"),
]


def _id(argv: tuple[str, ...]) -> str:
    return " ".join(a for a in argv[1:] if "graphfit-" not in a)


@pytest.mark.parametrize(("argv", "outcome"), EDGE, ids=[_id(a) for a, _ in EDGE])
def test_attention_dp_edge_lines(argv: tuple[str, ...], outcome: str) -> None:
    assert dp.compare_line(argv) == (outcome, [])


def test_dense_dspark_draft_keys_by_its_own_batch() -> None:
    """SGLang's own runners: the target gathers the MLP input (keyed by the largest rank's
    batch, one count per DP rank), the dense DSPARK draft does not (its own batch, one
    count). With attention TP 4 the target's 8 tokens per request align every size; the
    draft's 7 would keep only multiples of 4 were it gathered, and keeps them all."""
    argv = TP8_LIST
    sg = kc.bd.sglang(argv, 80)
    assert sg.runners is not None
    assert dp.sglang_gathers(sg, "DSPARK") == {"target": (True, False),
                                                "dspark_draft": (False, False)}
    every = (1, 2, 3, 4, 6, 8, 12)
    assert (tuple(sg.runners["target"].capture_bs), sg.runners["target"].width) == (every, 8)
    assert (tuple(sg.runners["dspark_draft"].capture_bs),
            sg.runners["dspark_draft"].width) == (every, 7)
    assert (dp.sglang_global_tokens(sg, True), dp.sglang_global_tokens(sg, False)) == (2, 1)
    target, draft = sg.runners["target"], sg.runners["dspark_draft"]
    assert dp.sglang_padded(target, True, 1, (1, 9)) == 12  # the largest rank's 9
    assert dp.sglang_padded(draft, False, 1, (1, 9)) == 1  # its own
    assert dp.compare_line(argv) == ("runner", [])


def test_eager_lilicorr_draft_keeps_its_head(tmp_path: Path) -> None:
    """DFLASH's LiLiCorr draft under attention DP: no draft graphs and no folded sampler (its
    token table included), but the head's weight-sized buffers SGLang's own head holds from
    its load, by name, shape and dtype."""
    head = {**dc.LILICORR, "lilicorr_candidate_topk": 4, "lilicorr_hidden_size": 256}
    argv = ("--speculative-algorithm", "DFLASH", "--speculative-num-draft-tokens", "8",
            *DP, dc.DRAFT, dc.draft_dir(dc.with_head({}, head)))
    assert dp.compare_line(argv) == ("no_runner", [])
    r = so.resolve(argv)
    assert isinstance(r, so.Resolved)
    found = so._dflash_lilicorr(r)
    assert found is not None
    held = {name: (tuple(t.shape), str(t.dtype).removeprefix("torch."))
            for name, t in so.lilicorr_head_tensors(found[2]).items()}
    gf = kc.bd.pasted(argv, 80)
    assert gf.plan is not None
    component = gf.plan.components["dflash_draft"]
    planned = {b.name: (tuple(b.shape), b.dtype) for b in component.buffers}
    assert planned == held
    assert gf.plan.graph_sizes("dflash_draft") == ()
    (tmp_path / "seen.json").write_text(json.dumps(sorted(planned)))


def test_sglangs_refusal_reasons_are_graphfits() -> None:
    """The refusals graphfit restates carry SGLang's own sentence."""
    for argv, words in ((_no_head("DFLASH"), "requires --enable-dp-lm-head"),
                        (_no_head("DSPARK"), "requires --enable-dp-lm-head"),
                        (CP_DSPARK, "does not support context parallel")):
        sg, gf = kc.bd.sglang(argv, 80), kc.bd.pasted(argv, 80)
        assert sg.rejected is not None and words in sg.rejected
        assert gf.rejected is not None and words in gf.rejected


@settings(max_examples=8, deadline=None)
@given(dp.dp_lines())
def test_generated_attention_dp_lines(case: tuple[tuple[str, ...], float | None]) -> None:
    outcome, diffs = dp.compare_line(*case)
    assert diffs == [], "\n".join(str(d) for d in diffs[:8])
    assert outcome in ("runner", "no_runner", "rejected")


@pytest.mark.parametrize(("tp", "words"), [("2", "not modelled"), ("4", "attn_tp == 1")])
def test_deepseek_v4_dspark_draft_is_refused(tp: str, words: str) -> None:
    """A DeepSeek-V4 DSPARK draft under attention DP: SGLang's own runner keeps the DP-global
    path for it (its `_forward_is_dp_local` reads the draft's architecture), which graphfit
    does not plan; with attention TP > 1 SGLang's worker refuses it (dspark_worker_v2.py:
    211-222), and graphfit says so with SGLang's reason."""
    draft = dc.draft_dir({"architectures": ["DeepseekV4ForCausalLM"], **dict(kc.WORKER_FIELDS),
                          **dict(kc.MLA_READ_FIELDS)})  # s68c: the keys V4's reads need
    argv = ("--speculative-algorithm", "DSPARK", "--speculative-num-draft-tokens", "8",
            "--tp-size", tp, "--attn-dp-size", "2", "--enable-dp-lm-head", dc.DRAFT, draft)
    sg = kc.bd.sglang(argv, 80)
    assert sg.runners is not None
    assert dp.sglang_gathers(sg, "DSPARK")["dspark_draft"][0] is True  # DP-global keys
    gf = kc.bd.pasted(argv, 80)
    assert gf.rejected is not None and words in gf.rejected


R = "SGLANG_RAGGED_VERIFY_MODE"
RAGGED_EDGE: list[tuple[tuple[str, ...], str]] = [
    # compact: token tiers per rank (a busy rank its own requests, an idle one the largest's)
    ((f"{R}=compact", *_dspark(*DP)), "runner"),
    ((f"{R}=compact", *_dspark(*DP, "--max-running-requests", "40")), "runner"),
    ((f"{R}=compact", *TP8_LIST), "runner"),  # attention TP 4, a declared list
    # four ranks: idle ranks among busy ones of different sizes
    ((f"{R}=compact", *_dspark("--tp-size", "4", "--attn-dp-size", "4",
                               "--enable-dp-lm-head", "--max-running-requests", "64")),
     "runner"),
    ((f"{R}=compact", *_dspark("--tp-size", "8", "--attn-dp-size", "8",
                               "--enable-dp-lm-head", "--max-running-requests", "9")),
     "runner"),
    # SGLang's runner refuses compact with two-batch overlap (decode_cuda_graph_runner.py:
    # 411-421)
    ((f"{R}=compact", *_dspark(*DP, "--enable-two-batch-overlap")), "rejected"),
    # cap-accept keeps the batch-size verify graphs, keyed by the largest rank's batch
    ((f"{R}=cap-accept", *_dspark(*DP)), "runner"),
    ((f"{R}=cap-accept", *_dspark(*DP, "--max-running-requests", "40",
                                  "--enable-two-batch-overlap")), "runner"),
    ((f"{R}=compact", *_no_head("DSPARK")), "rejected"),  # speculative_hook.py:674-676
]


@pytest.mark.parametrize(("argv", "outcome"), RAGGED_EDGE, ids=[_id(a) for a, _ in RAGGED_EDGE])
def test_ragged_verify_lines(argv: tuple[str, ...], outcome: str) -> None:
    """Compact / cap-accept ragged verify under attention DP, every aspect of the comparison
    (compact: the dispatch, the epilogue and every rank's tier, sglang_spec_dp_compare)."""
    assert dp.compare_line(argv) == (outcome, [])


def test_compact_tier_is_the_ranks_own_unless_idle() -> None:
    """SGLang's own worker and planner code: a busy rank's compact tier follows its own
    requests, not the largest rank's; an idle rank replays the largest rank's tier."""
    argv = (f"{R}=compact", *_dspark(*DP, "--max-running-requests", "40"))
    sg = kc.bd.sglang(argv, 80)
    assert sg.runners is not None
    width = sg.runners["target"].width
    own = dp.sglang_compact_tier(sg, width, 1, (1, 9))
    idle = dp.sglang_compact_tier(sg, width, 0, (0, 9))
    assert own == dp.sglang_compact_tier(sg, width, 1, (1,)) != dp.sglang_compact_tier(
        sg, width, 9, (9,))
    assert idle == dp.sglang_compact_tier(sg, width, 9, (9,))


C = "SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION"
COORDINATION_EDGE: list[tuple[tuple[str, ...], str]] = [
    ((f"{C}=1", *_dflash()), "rejected"),  # DFLASH, any parallelism (speculative_hook.py:252)
    ((f"{C}=true", *_dflash(*DP)), "rejected"),
    ((f"{C}=1", *_dspark(*DP)), "runner"),
    ((f"{C}=Y", *_dspark()), "runner"),
    ((f"{C}=0", *_dflash(*DP)), "no_runner"),
    ((f"{C}=maybe", *_dflash(*DP)), "no_runner"),  # unparsable: SGLang keeps it off
    ((f"{C}=1", "SGLANG_RAGGED_VERIFY_MODE=compact", *_dspark(*DP)), "rejected"),  # :683-696
]


@pytest.mark.parametrize(("argv", "outcome"), COORDINATION_EDGE,
                         ids=[_id(a) for a, _ in COORDINATION_EDGE])
def test_prefill_coordination_lines(argv: tuple[str, ...], outcome: str) -> None:
    """SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION on a pasted line's prefix, as SGLang runs
    under it: every aspect of the comparison."""
    assert dp.compare_line(argv) == (outcome, [])


EAGLE = ("--speculative-algorithm", "EAGLE", "--speculative-num-steps", "3",
         "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4")


@pytest.mark.parametrize(("argv", "refused"), [
    ((f"{C}=1", *dc.with_draft(list(EAGLE))), False),
    ((f"{C}=1", *dc.with_draft([*EAGLE, "--enable-multi-layer-eagle"])), True),
    ((f"{C}=1", "--max-running-requests", "8"), True),  # no speculation at all
    ((f"{C}=1", *dc.with_draft(["--speculative-algorithm", "STANDALONE",
                                "--speculative-num-steps", "3", "--speculative-eagle-topk",
                                "1", "--speculative-num-draft-tokens", "4"])), True),
])
def test_prefill_coordination_acceptance(argv: tuple[str, ...], refused: bool) -> None:
    """The other algorithms: SGLang's acceptance (single-layer EAGLE / EAGLE3 / DSPARK only,
    speculative_hook.py:252-258) is graphfit's, with SGLang's sentence."""
    sg, gf = kc.bd.sglang(argv, 80), kc.bd.pasted(argv, 80)
    assert (sg.rejected is not None, gf.rejected is not None) == (refused, refused), (
        sg.rejected, gf.rejected)
    if refused:
        assert sg.rejected is not None and "coordination requires" in sg.rejected
        assert gf.rejected is not None and "coordination requires" in gf.rejected
