"""DSPARK lines on a Qwen3-MoE target against SGLang 0.5.23's own code (issue 23, s69k).

* The oracle sizes the target's runner by the line's own model (sglang_oracle._target_sizes:
  SGLang's ModelConfig of its --model-path), not the oracle model's 4096 / 128256: the
  Qwen3-MoE fixture's own 2048 / 151936 now agree on every aspect the block-draft oracle
  compares (s68l had to resize the fixture to the oracle model's sizes).
* The block drafts' target gather (`sglang_spec_dp.target_gather`) with
  `--moe-dense-tp-size`: under attention DP with the DP LM head, megamoe (which DSPARK allows
  under attention DP, speculative_hook.py:677-682) and a dense TP size of 1 (<= tp // dp),
  SGLang's target runner does not gather the MLP input (utils/common.py:4090-4130); s69c's
  plant of that reading went uncaught for want of such a line.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_block_drafts as bd  # noqa: E402
from tests.oracle import sglang_dspark_compare as kc  # noqa: E402
from tests.oracle import sglang_dspark_targets as dt  # noqa: E402
from tests.oracle import sglang_moe_a2a_compare as mc  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402

COMPACT = "SGLANG_RAGGED_VERIFY_MODE=compact"
DP = ("--max-running-requests", "16", "--tp-size", "4", "--attn-dp-size", "2",
      "--enable-dp-lm-head", "--moe-a2a-backend", "megamoe")


def _moe(*flags: str, env: tuple[str, ...] = ()) -> tuple[str, ...]:
    """A DSPARK line on the Qwen3-MoE fixture, pasted after the oracle's own --model-path."""
    return (*env, "--model-path", mc.model_dir(), *flags, *dt.spec())


QWEN3 = (
    _moe("--max-running-requests", "8"),
    _moe("--max-running-requests", "8", "--tp-size", "2", "--ep-size", "2",
         "--moe-a2a-backend", "deepep", "--disable-attn-tp-gather"),
    _moe("--max-running-requests", "8", env=(COMPACT,)),
)


@pytest.mark.parametrize("argv", QWEN3, ids=["tp1", "deepep-tp2", "compact"])
def test_qwen3_moe_dspark_lines_agree(argv: tuple[str, ...]) -> None:
    outcome, diffs = kc.compare_line(argv)
    assert outcome == "runner" and not diffs, (outcome, [d.detail for d in diffs])


def test_target_sized_by_the_lines_model() -> None:
    """Not vacuous: SGLang's target runner holds the fixture's own hidden size and
    vocabulary (its config.json), which are not the oracle model's."""
    config = json.loads((Path(mc.model_dir()) / "config.json").read_text())
    assert (config["hidden_size"], config["vocab_size"]) != (so.DEFAULT_HIDDEN,
                                                             so.DEFAULT_VOCAB)
    sg = bd.sglang(QWEN3[0], 80)
    assert sg.runners is not None
    buffers = sg.runners["target"].buffers
    assert buffers["input_embeds"].shape[-1] == config["hidden_size"]
    assert buffers["next_token_logits_buffer"].shape[-1] == config["vocab_size"]


# (flags, SGLang's and graphfit's target (mlp, attn) gathers): 1 <= tp // dp turns the MLP
# gather off; unset or tp keeps it
GATHER_LINES = (
    ((*DP, "--moe-dense-tp-size", "1"), (False, True)),
    (DP, (True, True)),
    ((*DP, "--moe-dense-tp-size", "4"), (True, True)),
)


@pytest.mark.parametrize(("flags", "target"), GATHER_LINES, ids=["1", "unset", "tp"])
def test_block_draft_target_gather_reads_dense_tp(flags: tuple[str, ...],
                                                  target: tuple[bool, bool]) -> None:
    argv = (*flags, *dt.spec())
    ours, theirs = dt.gathers(argv)
    assert ours == theirs and ours["target"] == target, (ours, theirs)
    outcome, diffs = dt.compare(argv)
    assert outcome == "runner" and not diffs, (outcome, [d.detail for d in diffs])


def test_target_gather_planted(monkeypatch: pytest.MonkeyPatch) -> None:
    """`target_gather` back to attention DP alone (s69c's uncaught plant P8) is caught."""
    from graphfit.planner.engines import sglang_spec_dp as sp

    monkeypatch.setattr(sp, "target_gather", lambda config: sp.Gather(
        sp.attention_dp(config), sp.attn_tp_gather(config)))
    outcome, diffs = dt.compare((*GATHER_LINES[0][0], *dt.spec()))
    assert outcome == "differs" and any(d.aspect == "gather" for d in diffs), diffs
