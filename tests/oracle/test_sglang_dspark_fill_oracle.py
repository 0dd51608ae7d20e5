"""DSPARK lines with no --speculative-draft-model-path: graphfit fills the draft in from the
target as SGLang 0.5.23's `_handle_dspark` does (speculative_hook.py:720-755) and then plans
that draft, compared with SGLang's own resolution and runners (tests.oracle.
sglang_dspark_fill; the measure script: python -m tests.oracle.measure_sglang_dspark_fill)."""

from __future__ import annotations

from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings

from graphfit.inputs import sglang_dspark
from tests.helpers import run_cli
from tests.oracle import sglang_dspark_compare as dc
from tests.oracle import sglang_dspark_fill as df

# a draft naming no gamma (SGLang's default 7), and one whose prefixed dspark_block_size 4
# marks a bundled target by itself (dspark_config.py:166-174, 220-262)
PLAIN = dc.draft_dir(None, None, None)
PREFIXED = dc.draft_dir("dspark_block_size", 4, False)
# a draft with its own vocabulary and dtype (the draft runner's logits, input_embeds and
# sampler step logits are the draft ModelConfig's, issue 23 s49d), and one in float16 only
SHAPED = dc.draft_dir(None, None, None, '{"torch_dtype": "float16", "vocab_size": 64000}')
HALF = dc.draft_dir(None, None, None, '{"torch_dtype": "float16"}')
CASES = (
    (PLAIN, "subfolder", ()),
    (SHAPED, "subfolder", ()),
    (HALF, "bundled", ()),
    (PLAIN, "bundled", ()),
    (PREFIXED, "bundled", ("--max-running-requests", "24")),
    (PREFIXED, "both", ()),
    (PLAIN, "subfolder", ("--speculative-dspark-block-size", "3", "--cuda-graph-max-bs-decode",
                          "40")),
)


def _case(draft: str, place: str, extra: tuple[str, ...]) -> tuple[tuple[str, ...], str]:
    return df.moved(("--speculative-algorithm", "DSPARK", *extra, dc.DRAFT, draft), place)


@pytest.mark.parametrize(("draft", "place", "extra"), CASES,
                         ids=[f"{i}-{case[1]}" for i, case in enumerate(CASES)])
def test_filled_drafts_agree(draft: str, place: str, extra: tuple[str, ...]) -> None:
    """SGLang builds the DSPARK draft runner on the draft it filled in, and graphfit's plan of
    the pasted line agrees on every compared aspect (not just on starting)."""
    argv, target = _case(draft, place, extra)
    outcome, diffs = df.compare_line(argv, target)
    assert outcome == "runner", (outcome, diffs)


def test_no_draft_is_refused_with_sglangs_words() -> None:
    """A local target with neither a bundled draft nor a dspark/ folder: SGLang refuses
    (speculative_hook.py:751-755), and graphfit says SGLang's sentence."""
    argv, target = _case(PLAIN, "none", ())
    sg = df.sglang(argv, target, 80)
    gf = df.pasted(argv, target, 80)
    assert sg.rejected is not None and sg.rejected.startswith("ValueError: ")
    assert gf.rejected is not None and sg.rejected.removeprefix("ValueError: ") in gf.rejected


def test_the_filled_drafts_mask_token_is_checked() -> None:
    """A dspark/ draft whose mask token id is past the target's embedding rows: SGLang's
    worker refuses it (dspark_config.py:94-128), and graphfit refuses the filled draft for
    that reason (not for a missing draft path)."""
    bad = dc.draft_dir(None, None, None, '{"mask_token_id": 128256}')
    argv, target = _case(bad, "subfolder", ())
    sg, gf = df.sglang(argv, target, 80), df.pasted(argv, target, 80)
    assert sg.rejected is not None and "mask" in sg.rejected
    assert gf.rejected is not None and "mask" in gf.rejected \
        and sglang_dspark.NO_DRAFT not in gf.rejected


def test_a_hub_target_is_still_not_modelled() -> None:
    """A hub-id target: SGLang downloads its dspark/ folder (speculative_hook.py:640-663),
    graphfit reads nothing from the hub and says so, in one error line (no SGLang needed)."""
    code, _, text = run_cli(["plan", "--gpu-memory-gb", "80", "--", "python", "-m",
                             "sglang.launch_server", "--model-path", "org/some-dspark-model",
                             "--speculative-algorithm", "DSPARK"])
    errors = [ln for ln in text.splitlines() if ln.startswith("error:")]
    assert code == 2 and len(errors) == 1 and "does not download" in errors[0]


@settings(max_examples=5, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(df.filled_lines())
def test_generated_filled_lines_agree(case: tuple[tuple[str, ...], str, float | None]) -> None:
    argv, target, gb = case
    outcome, diffs = df.compare_line(argv, target, gb)
    assert outcome != "differs", diffs


def test_fill_off_is_caught() -> None:
    """The planted error (main's behaviour: no fill) makes every filled case differ."""
    df.pasted.cache_clear()
    try:
        with mock.patch.object(sglang_dspark, "fill", lambda values: None):
            outcomes = [df.compare_line(*_case(*case))[0] for case in CASES]
    finally:
        df.pasted.cache_clear()
    assert outcomes == ["differs"] * len(CASES)
