"""graphfit's table of the target lm_head's group under attention DP with --enable-dp-lm-head
(graphfit.inputs.sglang_dspark_minimax_tp.lm_group, issue 23, s47s) against SGLang's own
target classes built on the meta device (tests/oracle/sglang_dspark_target_head.py): for every
class the oracle builds, tied or not, at several TP / attention-DP sizes, the group
(attention-TP or TP) and the lm_head's TP size SGLang's module has, which the DSPARK draft's
vocab-parallel gathers follow (models/dspark.py:213-218, 550-574). The MiniMax-M3 classes of
the same table are compared through whole DSPARK lines in test_sglang_dspark_minimax_oracle.py.
"""

from __future__ import annotations

import pytest

from graphfit.inputs.sglang_dspark_minimax_tp import DP_LM_HEAD_TARGETS, lm_group
from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_dspark_target_head as th  # noqa: E402

CASES = [(arch, tied, tp, dp) for arch in sorted(th.MODEL_TYPES) for tied in (False, True)
         for tp, dp in ((4, 2), (2, 2), (8, 2))]


def _agrees(arch: str, tied: bool, tp: int, dp: int, pp: int = 1) -> None:
    ours = lm_group(arch, tied, pp)
    head = th.lm_head(arch, tied, tp, dp, pp)
    if head is None:  # no vocab shard on this stage: graphfit does not plan it
        assert ours == "unknown", (arch, tied, tp, dp, pp, ours)
        return
    attn, size = head
    assert ours == ("attn_tp" if attn else "tp"), (arch, tied, tp, dp, pp, ours, attn)
    assert size == (tp // dp if ours == "attn_tp" else tp), (arch, tied, tp, dp, pp, size)


def test_the_oracle_builds_every_non_minimax_class_of_the_table() -> None:
    """Every class graphfit plans under attention DP is compared (MiniMax-M3 elsewhere)."""
    assert set(th.MODEL_TYPES) == {a for a in DP_LM_HEAD_TARGETS if "MiniMax" not in a}


@pytest.mark.parametrize(("arch", "tied", "tp", "dp"), CASES)
def test_the_target_lm_head_group_matches_sglang(arch: str, tied: bool, tp: int,
                                                 dp: int) -> None:
    _agrees(arch, tied, tp, dp)


@pytest.mark.parametrize("arch", sorted(th.MODEL_TYPES))
def test_a_tied_target_on_a_later_pipeline_stage(arch: str) -> None:
    """At PP > 1 (SGLang's DSPARK allows it on a PD prefill server, speculative_hook.py:
    713-717) the classes that tie only on one stage build a ParallelLMHead instead; a tied
    Llama's last stage holds a PPMissingLayer (not modelled)."""
    _agrees(arch, True, 4, 2, pp=2)
