"""pplx's dispatch assert at decode-graph capture against SGLang 0.5.23 (issue 23, s66k;
graphfit.planner.engines.sglang_pplx_capture).

SGLang's side: its argument pipeline and decode runners, then its own
`_PplxDispatcherImpl.dispatch_a` assert (token_dispatcher/pplx.py:290-295) on every captured
target batch (tests.oracle.sglang_pplx_capture_oracle). A positive budget below a captured
batch's tokens passes SGLang's start-up check where the check is skipped (a decode instance,
moe_hook.py:614) or counts requests, not tokens (a verify graph): the capture asserts, and
graphfit refuses naming the batch.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.planner.engines import sglang_pplx_capture as rule  # noqa: E402
from tests.helpers import quiet_logging  # noqa: E402
from tests.oracle import measure_sglang_pplx_capture as measure  # noqa: E402
from tests.oracle import sglang_moe_a2a_compare as mc  # noqa: E402
from tests.oracle import sglang_pplx_capture_oracle as po  # noqa: E402

PPLX = ("--moe-a2a-backend", "pplx", "--tp-size", "2", "--attn-dp-size", "2")


@pytest.fixture(autouse=True)
def _quiet_logs() -> Iterator[None]:
    """SGLang's pipeline logs at INFO; quiet it here and give the process its logging back."""
    with quiet_logging():
        yield


def test_sglangs_assert_is_rows_against_the_budget() -> None:
    """The oracle's own check: SGLang's dispatch asserts exactly past the budget."""
    assert po.dispatch_asserts(17, 16) and not po.dispatch_asserts(16, 16)


def test_a_decode_instance_skips_the_check_and_fails_at_capture() -> None:
    """moe_hook.py:614 skips the check on a decode instance: SGLang starts its pipeline and
    runners, its capture asserts on the largest batch, and graphfit names that batch; with a
    budget above every batch both plan."""
    line = (f"{po.PPLX_ENV}=16", *PPLX, "--disaggregation-mode", "decode")
    refused, batch = po.sglang(line)
    assert refused is None and batch is not None
    assert measure.verdict(line) == ("agree", None)
    ours = mc.graphfit_cli(line).rejected
    assert ours is not None and len(ours) <= 200 and f"{po.PPLX_ENV}=16" in ours
    assert ours.startswith("error: ") and " ... " not in ours  # one whole CLI line
    roomy = (f"{po.PPLX_ENV}=4096", *line[1:])
    assert po.sglang(roomy) == (None, None) and mc.graphfit_cli(roomy).rejected is None


def test_a_verify_graph_passes_the_check_and_fails_at_capture() -> None:
    """Chunked prefill on: the check compares the budget with the decode max batch in
    requests (moe_hook.py:840-846), but EAGLE's verify graph dispatches 4 tokens per request."""
    line = (f"{po.PPLX_ENV}=64", *PPLX, "--chunked-prefill-size", "128",
            "--speculative-algorithm", "EAGLE", "--speculative-num-steps", "3",
            "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4",
            "--speculative-draft-model-path", mc.model_dir())
    refused, batch = po.sglang(line)
    assert refused is None and batch is not None and batch * 4 > 64 >= batch, batch
    assert measure.verdict(line) == ("agree", None)


def _config(**given: object) -> SimpleNamespace:
    fields: dict[str, object] = {
        "architecture": "Qwen3MoeForCausalLM", "moe_a2a_backend": "pplx",
        "enable_waterfill": False, "pplx_dispatch_tokens_per_rank": 16,
        "uniform_query_len": 1, "tp_size": 2, "attn_dp_size": 2}
    return SimpleNamespace(**{**fields, **given})


def test_who_reaches_the_assert() -> None:
    """The target's backend after Waterfill (pplx becomes deepep), a class with a dispatcher,
    a positive budget (0 or below is sglang_budget_floor's), captured graphs; wider attention
    groups are not modelled."""
    problem = rule.problem
    said = problem(_config(), (8, 16, 24))  # type: ignore[arg-type]
    assert said and "decode batch 24 x 1 = 24" in said and "at capture" in said
    assert problem(_config(), (8, 16)) is None  # type: ignore[arg-type]
    assert problem(_config(), ()) is None  # type: ignore[arg-type]
    said = problem(_config(uniform_query_len=4), (4, 8))  # type: ignore[arg-type]
    assert said and "decode batch 8 x 4 = 32" in said
    for other in ({"enable_waterfill": True}, {"moe_a2a_backend": "deepep"},
                  {"architecture": "DbrxForCausalLM"}, {"pplx_dispatch_tokens_per_rank": 0}):
        assert problem(_config(**other), (64,)) is None, other  # type: ignore[arg-type]
    said = problem(_config(tp_size=4), (64,))  # type: ignore[arg-type]
    assert said and "not modelled" in said


@settings(max_examples=1, deadline=None)
@given(st.randoms(use_true_random=False))
def test_generated_lines_agree_or_are_not_modelled(rng: object) -> None:
    """measure_sglang_pplx_capture's lines."""
    line = measure.draw(rng)
    assert measure.verdict(line)[0] != "differ", line


# a MoE draft under pplx (issue 23 s67m): EAGLE, 3 steps, chain of 4 draft tokens, the
# oracle's Qwen3-MoE model as its own MTP draft; the draft's pplx needs low_latency
# (token_dispatcher/pplx.py:442-445, sglang_draft_dispatch.pplx_problem)
DRAFT_PPLX = ("--speculative-moe-a2a-backend", "pplx", "--deepep-mode", "low_latency",
              "--tp-size", "2", "--attn-dp-size", "2")


def _eagle() -> tuple[str, ...]:
    return ("--speculative-algorithm", "EAGLE", "--speculative-num-steps", "3",
            "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4",
            "--speculative-draft-model-path", mc.model_dir(), "--model-path", mc.model_dir())


NO_PPLX = ("--speculative-moe-a2a-backend", "none", "--tp-size", "2", "--attn-dp-size", "2")


@pytest.mark.parametrize(("budget", "a2a", "extra", "runner"), [
    (16, DRAFT_PPLX, (), "draft"), (16, DRAFT_PPLX, ("--disaggregation-mode", "decode"), "draft"),
    (24, DRAFT_PPLX, (), "draft_extend"), (200, DRAFT_PPLX, (), None), (16, NO_PPLX, (), None)])
def test_a_moe_draft_under_pplx_meets_the_assert_at_capture(
        budget: int, a2a: tuple[str, ...], extra: tuple[str, ...], runner: str | None) -> None:
    """Under a target without pplx no start-up hook checks the draft's budget: SGLang starts
    the pipeline and runners and the draft's first capture asserts (its draft-decode runner,
    24 x 1 tokens past 16; at 24 that one fits and the draft-extend runner's 24 x 4 does
    not); graphfit refuses naming that runner and batch. Without pplx anywhere both plan."""
    line = (f"{po.PPLX_ENV}={budget}", *a2a, *extra, *_eagle())
    assert mc.sglang(line).rejected is None
    assert po.draft_backend(line) == ("pplx" if a2a == DRAFT_PPLX else "none")
    found = po.sglang_draft(line)
    ours = mc.graphfit_cli(line).rejected
    if runner is None:
        assert found is None and ours is None, (found, ours)
        return
    assert found is not None and ours is not None, (found, ours)
    name, batch = found
    shown = {"draft": "drafter", "draft_extend": "draft_extend"}[name]
    assert name == runner and f"{shown} batch {batch} x " in ours, (found, ours)
    assert ours.startswith("error: ") and len(ours) <= 200 and " ... " not in ours


def test_an_inherited_pplx_draft_is_bounded_by_the_target() -> None:
    """The draft inherits the target's pplx (layers/moe/utils.py:463-468): its widths (top-k,
    steps + 1) are at most the target's verify width, so the target's rule answers first."""
    line = (f"{po.PPLX_ENV}=40", *PPLX, "--disaggregation-mode", "decode", *_eagle())
    assert po.draft_backend(line) == "pplx"
    refused, batch = po.sglang(line)
    assert refused is None and batch is not None
    ours = mc.graphfit_cli(line).rejected
    assert ours is not None and f"decode batch {batch} x 4 " in ours, ours


def test_dropping_the_draft_rule_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mc, "graphfit_cli", mc.graphfit_cli.__wrapped__)
    monkeypatch.setattr(rule, "draft_problem", lambda config, runners: None)
    line = (f"{po.PPLX_ENV}=16", *DRAFT_PPLX, *_eagle())
    assert po.sglang_draft(line) is not None and mc.graphfit_cli(line).rejected is None


@pytest.mark.parametrize("moe", [True, False])
def test_a_frozen_moe_draft_meets_the_assert_at_capture(moe: bool) -> None:
    """FROZEN_KV_MTP (EAGLE promoted for a Gemma 4 assistant, speculative_hook.py:109-116)
    captures its draft loop inside the draft's a2a context (frozen_kv_mtp_worker_v2.py:
    222-230): a unified assistant with MoE blocks dispatches each captured batch through the
    draft's pplx, 24 x 1 rows past 4; without MoE blocks it makes no dispatcher and SGLang
    starts (issue 23 s68m)."""
    line = (f"{po.PPLX_ENV}=4", *DRAFT_PPLX, "--speculative-algorithm", "EAGLE",
            "--speculative-num-steps", "2", "--speculative-eagle-topk", "1",
            "--speculative-num-draft-tokens", "3", "--speculative-draft-model-path",
            po.unified_draft(moe), "--model-path", mc.model_dir())
    answer = mc.sglang(line)
    assert answer.rejected is None and answer.runners is not None
    assert "frozen_drafter" in answer.runners and po.gemma4_draft_is_moe(line) is moe
    ours = mc.graphfit_cli(line).rejected
    if not moe:
        assert ours is None, ours
        return
    found = po.sglang_draft(line)
    assert found is not None and found[0] == "frozen_drafter", found
    assert ours is not None and f"frozen_drafter batch {found[1]} x 1 " in ours, ours


@pytest.mark.parametrize("moe", [True, False])
def test_a_frozen_moe_draft_builds_the_draft_backends_dispatcher(moe: bool) -> None:
    """The same draft under --speculative-moe-a2a-backend mooncake in auto mode: the
    oracle's draft build (tests.oracle.sglang_draft_build) meets Mooncake's normal-mode raise
    (token_dispatcher/mooncake.py:343-344) for the MoE blocks only; graphfit refuses that
    one naming the class, plans the dense one (issue 23 s68m)."""
    line = ("--speculative-moe-a2a-backend", "mooncake", "--tp-size", "2",
            "--speculative-algorithm", "EAGLE", "--speculative-num-steps", "2",
            "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "3",
            "--speculative-draft-model-path", po.unified_draft(moe), "--model-path",
            mc.model_dir())
    theirs, ours = mc.sglang(line).rejected, mc.graphfit_cli(line).rejected
    if not moe:
        assert theirs is None and ours is None, (theirs, ours)
        return
    assert theirs is not None and "mooncake.py:344" in str(theirs), theirs
    assert ours is not None and "Gemma4UnifiedAssistantForCausalLM" in ours, ours
