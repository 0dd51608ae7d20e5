"""SGLang 0.5.23 DFLASH: graphfit against SGLang's own argument pipeline and runners.

SGLang's side: prepare_server_args + resolve_once (`_handle_dflash`, speculative_hook.py:
287-446), then the target runner and the draft's DecodeCudaGraphRunner + SGLang's own
`_DflashDraftSampler` built on CPU (tests/oracle/sglang_oracle.py `_dflash_runner`).
graphfit's side: the same line pasted into `graphfit plan`, and SGLang's resolved values
given to graphfit (tests/oracle/sglang_dflash_compare.py).
"""

from __future__ import annotations

import pytest
from hypothesis import given

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_dflash_compare as dc  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402


def dflash(*extra: str, draft: bool = True) -> tuple[str, ...]:
    argv = ["--speculative-algorithm", "DFLASH", *extra]
    return tuple(dc.with_draft(argv) if draft else argv)


def test_oracle_dflash_runners() -> None:
    """What SGLang builds for a DFLASH line: the target-verify runner and the draft's own
    runner, both `block` rows per request with the same filtered ladder, and the in-graph
    sampler's `out` of max(decode.bs) * (block - 1) tokens (dflash_worker_v2.py:156-158)."""
    r = so.resolve(dflash("--max-running-requests", "20", "--speculative-num-draft-tokens",
                          "8", "--cuda-graph-max-bs-decode", "16"))
    assert isinstance(r, so.Resolved)
    assert (r.speculative_num_steps, r.speculative_eagle_topk) == (1, 1)  # forced
    run = so.runners(r)
    assert set(run) == {"target", "dflash_draft"}
    draft = run["dflash_draft"]
    assert draft.width == run["target"].width == 8
    assert draft.capture_bs == run["target"].capture_bs and draft.capture_bs[-1] == 16
    assert draft.buffers["input_ids"].shape == (16 * 8,)
    assert draft.buffers["sampler_out"].shape == (16 * 7,)
    assert "sampler_local_max" not in draft.buffers  # TP 1: no all-gather buffers


def test_oracle_dflash_tp_sampler() -> None:
    run = so.runners(so.resolve(dflash("--speculative-dflash-block-size", "4", "--tp-size",
                                       "2", "--max-running-requests", "8")))
    b = run["dflash_draft"].buffers
    top = b["sampler_out"].shape[0]
    assert b["sampler_gathered_ids"].shape == (2 * top,)
    assert b["sampler_best_rank"].shape == (1, top)


EDGE: list[tuple[tuple[str, ...], str]] = [
    (dflash("--speculative-num-draft-tokens", "8"), "runner"),
    (dflash("--speculative-dflash-block-size", "4", "--speculative-num-steps", "3",
            "--speculative-eagle-topk", "4"), "runner"),  # steps / topk forced to 1
    (dflash("--speculative-num-draft-tokens", "16", "--max-running-requests", "7",
            "--disable-cuda-graph-padding"), "runner"),
    (dflash("--speculative-num-draft-tokens", "6", "--tp-size", "4", "--cuda-graph-bs-decode",
            "1", "3", "8"), "runner"),
    (dflash("--speculative-num-draft-tokens", "3", "--enable-two-batch-overlap",
            "--tp-size", "2"), "rejected"),  # TBO needs DP (validation_hook.py:756-772)
    (dflash("--speculative-num-draft-tokens", "8", "--disable-cuda-graph"), "no_runner"),
    (dflash("--speculative-num-draft-tokens", "8", "--speculative-dflash-block-size", "4"),
     "rejected"),  # speculative_hook.py:374-382
    (dflash("--speculative-num-draft-tokens", "8", draft=False), "rejected"),  # :324-327
    (dflash("--speculative-num-draft-tokens", "8", "--tp-size", "2", "--attn-dp-size", "2"),
     "rejected"),  # needs --enable-dp-lm-head (:303-309)
    (dflash("--speculative-num-draft-tokens", "8", "--speculative-draft-window-size", "4"),
     "rejected"),  # :427-434
    (dflash("--speculative-num-draft-tokens", "8", "--speculative-draft-window-size", "8"),
     "runner"),
]


@pytest.mark.parametrize(("prefix", "sampler"), [
    ((), True), (("SGLANG_DFLASH_EAGER_DRAFT_SAMPLER=1",), False),
    (("SGLANG_DFLASH_EAGER_DRAFT_SAMPLER=TRUE",), False),
    (("SGLANG_DFLASH_EAGER_DRAFT_SAMPLER=0",), True),
    (("SGLANG_DFLASH_EAGER_DRAFT_SAMPLER=on",), True),  # EnvBool cannot parse: default
])
def test_dflash_eager_draft_sampler(prefix: tuple[str, ...], sampler: bool) -> None:
    """SGLANG_DFLASH_EAGER_DRAFT_SAMPLER on a pasted line's prefix: SGLang (run under it)
    folds no sampler into the draft graph (dflash_worker_v2.py:890-891); graphfit reads the
    prefix and plans none (every aspect of compare_line, sampler names both ways)."""
    argv = (*prefix, *dflash("--speculative-num-draft-tokens", "6", "--tp-size", "2"))
    sg = dc.bd.sglang(argv, 80)
    assert sg.runners is not None
    built = {k for k in sg.runners["dflash_draft"].buffers if k.startswith("sampler_")}
    assert bool(built) == sampler
    assert dc.compare_line(argv) == ("runner", [])


@pytest.mark.parametrize(("argv", "outcome"), EDGE, ids=[" ".join(a[2:7]) for a, _ in EDGE])
def test_dflash_edge_lines(argv: tuple[str, ...], outcome: str) -> None:
    got, diffs = dc.compare_line(argv)
    assert (got, diffs) == (outcome, [])


def test_dflash_block_size_from_the_draft_config() -> None:
    """Without a block size on the line SGLang reads the draft's config.json (16 when it
    names none, speculative_hook.py:388-423); graphfit reads the same file and agrees."""
    sg = dc.sc.sglang(dflash(), 80)
    assert sg.rejected is None and sg.runners is not None
    assert sg.runners["dflash_draft"].width == 16
    assert dc.compare_line(dflash()) == ("runner", [])


def test_dflash_block_size_without_a_local_draft_is_refused() -> None:
    """A draft that is not a local directory (a hub id): SGLang downloads its config (and
    falls back to 16 when it cannot); graphfit reads nothing remote, so it refuses naming
    the flag to give, never plans another block (a documented disagreement)."""
    argv = ("--speculative-algorithm", "DFLASH", dc.DRAFT, "z-lab/Qwen3-8B-DFlash-b16")
    gf = dc.pasted(argv, 80)
    assert gf.rejected is not None
    assert "no local config.json" in gf.rejected
    assert "--speculative-dflash-block-size" in gf.rejected


@given(dc.dflash_lines())
def test_generated_dflash_lines(case: tuple[tuple[str, ...], float | None]) -> None:
    """Acceptance, then ladders, padding of every batch, components, buffers and fills."""
    outcome, diffs = dc.compare_line(*case)
    assert diffs == [], "\n".join(str(d) for d in diffs[:8])
    assert outcome in ("runner", "no_runner", "rejected")
