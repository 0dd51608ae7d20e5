"""A static (non-adaptive) speculative line's shared tensors: SGLang 0.5.23's own runners,
built under its GraphSharedOutput and process-wide input pool, against graphfit's shared
buffers of the same pasted line (tests/oracle/sglang_static_sharing.py).

Before issue 23 / s45r graphfit shared buffers only on adaptive lines, so a static EAGLE line
counted the draft-extend runner's logits view of the target's vocabulary (and every pooled
input) apart: the planted test shows that counting is caught."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_dflash_compare as dc  # noqa: E402
from tests.oracle import sglang_draft_shape as ds  # noqa: E402
from tests.oracle import sglang_dspark_compare as kc  # noqa: E402
from tests.oracle import sglang_static_sharing as ss  # noqa: E402


def _eagle(**extra: Any) -> str:
    return ds.draft("LlamaForCausalLMEagle", **extra)


FIXED = [
    # the draft's vocabulary is the target's: one logits tensor for target and draft-extend
    ds.line("EAGLE", _eagle()),
    ds.line("EAGLE", _eagle(), steps=2, topk=4, drafts=6, max_running=8),
    ds.line("NEXTN", _eagle(), steps=1, drafts=2, max_running=48),
    ds.line("STANDALONE", ds.draft("LlamaForCausalLM")),
    # a vocabulary of its own: its own (max_rows, vocab) tensor, the pooled inputs still one
    ds.line("EAGLE", _eagle(vocab_size=32000)),
]


def _agree(argv: tuple[str, ...]) -> dict[str, int]:
    got = ss.compare(argv)
    assert got is not None, argv
    diffs, figures, _ = got
    assert not diffs, (argv, diffs)
    assert figures["sglang_bytes"] == figures["graphfit_bytes"], (argv, figures)
    return figures


@pytest.mark.parametrize("argv", FIXED)
def test_static_line_shares_like_sglang(argv: tuple[str, ...]) -> None:
    figures = _agree(argv)
    assert figures["shared_tensors"] >= 5  # logits or pooled inputs: SGLang shares some


@settings(max_examples=6, deadline=None)
@given(st.sampled_from(["EAGLE", "NEXTN"]), ds.VOCABS, st.sampled_from([8, 24, 48]),
       st.sampled_from([(3, 1, 4), (2, 1, 3), (1, 1, 2), (2, 4, 6)]))
def test_generated_static_lines_share_like_sglang(algo: str, vocab: int, running: int,
                                                  shape: tuple[int, int, int]) -> None:
    steps, topk, drafts = shape
    _agree(ds.line(algo, _eagle(vocab_size=vocab), steps=steps, topk=topk, drafts=drafts,
                   max_running=running))


def test_static_sharing_planted(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sharing only on adaptive lines (main before s45r), or the draft-extend logits kept
    apart, is caught: SGLang makes one tensor graphfit counts twice."""
    from graphfit.planner.engines import sglang, sglang_shared

    argv = FIXED[0]
    monkeypatch.setattr(sglang, "share_like_sglang", lambda comps: comps)
    got = ss.compare(argv)
    assert got is not None
    diffs, figures, _ = got
    assert any("next_token_logits_buffer" in d and "only SGLang" in d for d in diffs), diffs
    assert figures["graphfit_bytes"] > figures["sglang_bytes"]
    monkeypatch.undo()
    monkeypatch.setattr(sglang_shared, "LOGITS_RUNNERS", frozenset({"target"}))
    diffs = ss.compare(argv)[0]  # type: ignore[index]
    assert any("next_token_logits_buffer" in d and "only SGLang" in d for d in diffs), diffs


def _dflash(drafts: int, running: int, **draft: Any) -> tuple[str, ...]:
    return ("--max-running-requests", str(running), "--speculative-algorithm", "DFLASH",
            "--speculative-num-draft-tokens", str(drafts), dc.DRAFT,
            dc.draft_dir({"block_size": drafts, **draft}))


DFLASH = [
    # DFLASH's draft DecodeCudaGraphRunner calls the same share_buffers() as the target
    # (decode_cuda_graph_runner.py:505-509) and views the same GraphSharedOutput (:466-477)
    _dflash(8, 24),
    _dflash(4, 8, vocab_size=32000),  # its own vocabulary: its own logits tensor
]


@pytest.mark.parametrize("argv", DFLASH)
def test_dflash_draft_shares_like_sglang(argv: tuple[str, ...]) -> None:
    """issue 23, s47r: the DFLASH draft runner's inputs are the target's tensors."""
    figures = _agree(argv)
    assert figures["shared_tensors"] >= 10, figures


def test_multi_layer_composite_shares_nothing() -> None:
    """The multi-layer EAGLE composite allocates its one buffer set itself, outside the
    pool and GraphSharedOutput (multi_layer_eagle_draft_extend_cuda_graph_runner.py:
    624-627, 658-760): SGLang makes no tensor of two runners' buffers, nor does graphfit."""
    figures = _agree(ds.line("EAGLE", _eagle(), "--enable-multi-layer-eagle"))
    assert figures["shared_tensors"] == 0, figures


def _dspark(running: int, anchor: bool = True, gamma: int = 8) -> tuple[str, ...]:
    return ("--max-running-requests", str(running), "--speculative-algorithm", "DSPARK",
            kc.DRAFT, kc.draft_dir("block_size", gamma, anchor))


DSPARK = [
    # DSPARK's draft is the same plain DecodeCudaGraphRunner (dspark_worker_v2.py:581-621):
    # the same share_buffers() call (decode_cuda_graph_runner.py:505-509) and GraphSharedOutput
    # view (:466-477) as the target's; gamma rows a request against the target's gamma + 1,
    # so only the request-axis inputs (and the logits) coalesce
    _dspark(48),
    _dspark(8, anchor=False),  # gamma + 1 rows a request: the token-axis inputs coalesce too
    _dspark(24, gamma=3),  # a short block: 3 rows a request against the target's 4
]


@pytest.mark.parametrize("argv", DSPARK)
def test_dspark_draft_shares_like_sglang(argv: tuple[str, ...]) -> None:
    """issue 23, s48r: the DSPARK draft runner's request-axis inputs and logits view are the
    target's tensors (s47r pinned this as a known gap)."""
    figures = _agree(argv)
    assert figures["shared_tensors"] >= 5, figures


@pytest.mark.parametrize("runner, argv, input_name", [
    ("dflash_draft", DFLASH[0], "input_ids"),  # main before s47r
    ("dspark_draft", DSPARK[0], "seq_lens"),  # main before s48r
])
def test_draft_sharing_planted(monkeypatch: pytest.MonkeyPatch, runner: str,
                               argv: tuple[str, ...], input_name: str) -> None:
    """A draft runner left out of the pooled runners, or out of the logits runners, is caught:
    SGLang makes one tensor graphfit counts twice."""
    from graphfit.planner.engines import sglang_shared

    pooled = {k: v for k, v in sglang_shared.POOLED.items() if k != runner}
    monkeypatch.setattr(sglang_shared, "POOLED", pooled)
    diffs, figures, _ = ss.compare(argv)  # type: ignore[misc]
    assert any(f"'{input_name}'" in d and "only SGLang" in d for d in diffs), diffs
    assert figures["graphfit_bytes"] > figures["sglang_bytes"]
    monkeypatch.undo()
    monkeypatch.setattr(sglang_shared, "LOGITS_RUNNERS", sglang_shared.LOGITS_RUNNERS - {runner})
    diffs = ss.compare(argv)[0]  # type: ignore[index]
    assert any("next_token_logits_buffer" in d and "only SGLang" in d for d in diffs), diffs
