"""IQuest Q1 targets with an MTP draft: SGLang 0.5.23's `_handle_iquest_q1_mtp_draft`
(arg_groups/speculative_hook.py:1014-1058) and its IQuestQ1MTPConfig (configs/iquest_q1.py:
168-216), run by its own argument pipeline, against `graphfit plan` of the same pasted line
(tests/oracle/sglang_iquest_mtp). Larger counts:
`python -m tests.oracle.measure_sglang_iquest_mtp 200`.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_iquest_mtp as iq  # noqa: E402

ALGO = ("--speculative-algorithm", "EAGLE", "--speculative-draft-model-path")
SPEC = ("--speculative-num-steps", "3", "--speculative-eagle-topk", "1",
        "--speculative-num-draft-tokens", "4")
# (line, SGLang's verdict: its settled (steps, topk, draft tokens) or the words it refuses with)
LINES: list[tuple[tuple[str, ...], object]] = [
    ((*ALGO, iq.draft()), (7, 1, 8)),  # steps from num_draft_slots' default
    ((*ALGO, iq.draft(num_draft_slots=2)), (2, 1, 3)),
    (("--speculative-algorithm", "NEXTN", "--speculative-draft-model-path",
      iq.draft(target_config={"num_hidden_layers": iq.LAYERS}, num_target_layers=None)),
     (7, 1, 8)),
    ((*ALGO, iq.draft(), *SPEC), (3, 1, 4)),
    ((*ALGO, iq.draft(model_type="llama")), "independent MTP draft checkpoint"),
    ((*ALGO, iq.draft(vocab_size=None)), "hidden size and vocabulary must match"),
    ((*ALGO, iq.draft(num_target_layers=88)), "target layer count must match"),
    ((*ALGO, iq.draft(num_hidden_layers=2)), "one physical draft layer"),
    ((*ALGO, iq.draft(num_draft_slots=0)), "num_draft_slots must be positive"),
    ((*ALGO, iq.draft(), "--speculative-token-map", "hot.pt"), "full-vocabulary embedding"),
    ((*ALGO, iq.draft(), "--speculative-num-steps", "3", "--speculative-eagle-topk", "2",
      "--speculative-num-draft-tokens", "4"), "topk 1"),
    ((*ALGO, iq.draft(), "--speculative-num-steps", "3", "--speculative-eagle-topk", "1",
      "--speculative-num-draft-tokens", "3"), "steps + 1"),
]


@pytest.mark.parametrize(("argv", "verdict"), LINES, ids=[str(i) for i in range(len(LINES))])
def test_iquest_mtp_lines(argv: tuple[str, ...], verdict: object) -> None:
    got, detail = iq.compare(argv)
    assert got != "differs", detail
    ours = iq.sglang(argv)
    if isinstance(verdict, tuple):  # the expectation is SGLang's, read off its pipeline
        assert ours == ("planned", verdict)
    else:
        assert ours[0] == "refused" and str(verdict) in str(ours[1])


@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(iq.lines())
def test_generated_iquest_mtp_lines(argv: tuple[str, ...]) -> None:
    got, detail = iq.compare(argv)
    assert got != "differs", detail


def test_planted_errors_show(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the rules (main's reading) graphfit plans SGLang's refusals and its own
    speculation defaults; a wrong default slot count shows too."""
    from graphfit.inputs import sglang_iquest_mtp as rules

    monkeypatch.setattr(rules, "line", lambda values: ([], []))
    assert iq.compare(LINES[0][0])[0] == "differs"  # 3/1/4 (auto) where SGLang takes 7/1/8
    assert iq.compare(LINES[5][0])[0] == "differs"  # planned where SGLang refuses
    monkeypatch.undo()
    monkeypatch.setattr(rules, "DEFAULT_SLOTS", 3)
    assert iq.compare(LINES[0][0])[0] == "differs"


# issue 23, s47r: a hub-id draft. SGLang is never run on the hub id (it would download);
# the rule is that what follows the config checks does not read the draft when the line
# gives the steps, so SGLang runs on several local drafts that pass those checks (slots
# default / 2 / 9) and must answer alike, and graphfit's hub-id answer must be that answer.
HUB = "iquest/IQuest-Q1-MTP"
HUB_LINES = [
    ("--speculative-num-steps", "2"),
    ("--speculative-num-steps", "4", "--speculative-num-draft-tokens", "5"),
    ("--speculative-num-steps", "2", "--speculative-num-draft-tokens", "5"),
    ("--speculative-num-steps", "3", "--speculative-token-map", "hot.pt"),
    ("--speculative-token-map", "hot.pt"),
]


def _hub_verdict(extra: tuple[str, ...]) -> tuple[str, object]:
    answers = {iq.sglang((*ALGO, iq.draft(**slots), *extra))
               for slots in ({}, {"num_draft_slots": 2}, {"num_draft_slots": 9})}
    assert len(answers) == 1, answers  # the premise: the draft's config does not decide
    return answers.pop()


@pytest.mark.parametrize("extra", HUB_LINES, ids=[" ".join(x) for x in HUB_LINES])
def test_hub_draft_lines(extra: tuple[str, ...]) -> None:
    theirs, ours = _hub_verdict(extra), iq.graphfit((*ALGO, HUB, *extra))
    assert theirs[0] == ours[0], (theirs, ours)
    if theirs[0] == "refused":
        assert str(theirs[1]).removeprefix("ValueError: ").rstrip(".") in str(ours[1]), ours
    else:
        assert theirs[1] == ours[1], (theirs, ours)


def test_hub_draft_planted(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hub-id draft only noted (main before s47r): the refusals are planned."""
    from graphfit.inputs import sglang_iquest_mtp as rules

    monkeypatch.setattr(rules, "_hub", lambda values, draft: ([], []))
    differ = [extra for extra in HUB_LINES
              if iq.graphfit((*ALGO, HUB, *extra))[0] != _hub_verdict(extra)[0]]
    assert len(differ) >= 3, differ
