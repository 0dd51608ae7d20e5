"""SGLANG_OPT_DSV41_TARGET_METADATA_EARLY on static DSPARK lines: SGLang 0.5.23's runners built
with the variable set (its own `_wants_early_verify_metadata` choosing the `share_buffers`
exclusion, decode_cuda_graph_runner.py:505-509, 1814-1827) against graphfit's shared buffers
of the same pasted line with the variable in front (issue 23, s54d;
tests/oracle/sglang_dspark_early.py)."""

from __future__ import annotations

import json
import os
import types
from unittest import mock

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_dspark_compare as kc  # noqa: E402
from tests.oracle import sglang_dspark_early as de  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_stubs  # noqa: E402


def _dspark(running: int, anchor: bool, *extra: str) -> tuple[str, ...]:
    return ("--max-running-requests", str(running), *extra, "--speculative-algorithm",
            "DSPARK", kc.DRAFT, kc.draft_dir("block_size", 8, anchor))


# gamma rows a request (anchor): only the request-axis inputs coalesce with the draft's;
# gamma + 1 (no anchor): the token-axis ones too
ANCHOR, WIDE = _dspark(48, True), _dspark(8, False)
# two-batch overlap fails the predicate, but on this dense target SGLang refuses it at
# start-up without attention DP (validation_hook.py:756-772), and graphfit with it
TBO = _dspark(8, False, "--enable-two-batch-overlap")
# attention DP fails the predicate before two-batch overlap (s67l: the line s66b dropped; its
# `global_num_tokens` difference was the oracle's target runner built with one DP rank)
DP_TBO = _dspark(8, False, "--tp-size", "2", "--attn-dp-size", "2", "--enable-dp-lm-head",
                 "--enable-two-batch-overlap")


def _agree(flags: tuple[str, ...], value: str | None) -> dict[str, int]:
    got = de.compare(flags, value)
    assert got is not None, flags
    diffs, figures, _, _ = got
    assert not diffs, (flags, value, diffs)
    assert figures["sglang_bytes"] == figures["graphfit_bytes"], figures
    return figures


@pytest.mark.parametrize(("flags", "kept"), [(ANCHOR, 2), (WIDE, 4), (DP_TBO, 0)])
def test_staged_inputs_leave_the_pool_as_in_sglang(flags: tuple[str, ...], kept: int) -> None:
    """On (SGLang's "Y" spelling) the target keeps its staged inputs: `kept` fewer shared
    tensors than with the variable off ("0") -- both sides agreeing at each."""
    on, off = _agree(flags, "Y"), _agree(flags, "0")
    assert off["shared_tensors"] - on["shared_tensors"] == kept, (on, off)


def test_two_batch_overlap_is_refused_on_both_sides() -> None:
    assert de.compare(TBO, "Y") is None  # SGLang refuses it
    assert de.dc.pasted(TBO, 80).plan is None  # graphfit too


def test_early_metadata_planted(monkeypatch: pytest.MonkeyPatch) -> None:
    """graphfit sharing the staged inputs anyway (main before s54d) is caught."""
    from graphfit.planner.engines import sglang

    monkeypatch.setattr(sglang, "private_inputs", lambda config: {})
    got = de.compare(WIDE, "1")
    assert got is not None
    diffs = got[0]
    assert sum("only graphfit" in d or "only SGLang" in d for d in diffs) == 4, diffs


def _sglang_staged(flags: tuple[str, ...]) -> frozenset[str]:
    """The slots SGLang's own `_wants_early_verify_metadata` keeps private on the resolved
    line with the variable on: its own gather requirements of the target verify runner
    (decode_cuda_graph_runner.py:765-773) under the line's published layout."""
    r = so.resolve(flags)
    assert isinstance(r, so.Resolved), getattr(r, "text", r)
    with so.published(r):
        from sglang.srt.model_executor.runner.decode_cuda_graph_runner import (
            DecodeCudaGraphRunner,
        )
        from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

        mr = types.SimpleNamespace(is_draft_worker=False,
                                   spec_algorithm=SpeculativeAlgorithm.from_string("DSPARK"))
        mlp, attn = DecodeCudaGraphRunner.decode_graph_gather_requirements(mr)
        with mock.patch.dict(os.environ, {de.ENV: "1"}):
            return de.staged_exclude(mr, mlp or attn)


@pytest.fixture(scope="module")
def moe_lines(tmp_path_factory: pytest.TempPathFactory) -> tuple[tuple[str, ...], ...]:
    """s68l: DSPARK lines on a Qwen3-MoE target under deepep at TP 2 with
    `--disable-attn-tp-gather` (graphfit models it: no attention-TP gather,
    utils/common.py:4142-4143), without and with two-batch overlap, which SGLang starts
    with an a2a backend (validation_hook.py:756-772). The target has the oracle model's
    hidden size and vocabulary, the sizes the oracle's runners are built with
    (tests.oracle.sglang_oracle.runners), so every shared tensor is compared."""
    so.oracle()
    moe = sglang_stubs.write_moe_model_dir(tmp_path_factory.mktemp("moe"))
    config = json.loads((moe / "config.json").read_text())
    config.update(hidden_size=so.DEFAULT_HIDDEN, vocab_size=128256)
    (moe / "config.json").write_text(json.dumps(config))
    base = ("--model-path", str(moe), "--max-running-requests", "8", "--tp-size", "2",
            "--ep-size", "2", "--moe-a2a-backend", "deepep", "--disable-attn-tp-gather")
    spec = ("--speculative-algorithm", "DSPARK", kc.DRAFT, kc.draft_dir("block_size", 8, False))
    return (*base, *spec), (*base, "--enable-two-batch-overlap", *spec)


def test_two_batch_overlap_clause_decides_on_a_line_both_sides_plan(
        moe_lines: tuple[tuple[str, ...], ...]) -> None:
    """The predicate's two-batch-overlap clause decides only where nothing before it does:
    SGLang starts TBO without attention DP only with an a2a backend, which gathers the
    attention input (`require_attn_tp_gather`, utils/common.py:4133-4156) unless
    `--disable-attn-tp-gather`. On those lines SGLang's own predicate stages the four slots
    without TBO and none with it, and graphfit shares exactly the tensors SGLang shares on
    both (s67l pinned that graphfit refused the flag as not modelled; s68l models it)."""
    plain, tbo = moe_lines
    assert len(_sglang_staged(plain)) == 4  # the clause is reached ...
    assert not _sglang_staged(tbo)  # ... and decides
    for flags, kept in ((plain, 4), (tbo, 0)):
        on, off = _agree(flags, "Y"), _agree(flags, "0")
        assert off["shared_tensors"] - on["shared_tensors"] == kept, (flags, on, off)


def test_two_batch_overlap_clause_planted(moe_lines: tuple[tuple[str, ...], ...],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """graphfit dropping the clause (staging the slots under TBO) is caught on the TBO line;
    graphfit still gathering under `--disable-attn-tp-gather` is caught on the plain one."""
    from graphfit.planner.engines import sglang_dspark_early, sglang_moe_a2a

    tbo = moe_lines[1]
    with monkeypatch.context() as m:
        m.setattr(sglang_dspark_early, "staged", lambda config: bool(
            config.dspark_early_verify_metadata and config.attn_dp_size == 1))
        got = de.compare(tbo, "Y")
    assert got is not None and got[0], got
    with monkeypatch.context() as m:
        m.setattr(sglang_moe_a2a, "_gathers",
                  lambda live, tp, dp, disabled=False, dense_tp=None:  # s69c
                  live != "none" and (dp == 1 or dp < tp))
        got = de.compare(moe_lines[0], "Y")
    assert got is None or got[0], got
