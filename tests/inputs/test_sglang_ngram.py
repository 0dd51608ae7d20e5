"""graphfit.inputs.sglang_ngram: a pasted NGRAM line's topk is its BFS breadth (SGLang's
`_handle_ngram`, speculative_hook.py:1309-1313); the oracle comparison is
tests/oracle/test_sglang_ngram_oracle.py."""

from __future__ import annotations

import pytest

from graphfit.inputs import sglang_ngram as sn
from graphfit.inputs.settings import Setting
from graphfit.planner.core.errors import ConfigError

LINE_TOPK = Setting("speculative_eagle_topk", 2, "--speculative-eagle-topk")


def _topk(values: dict[str, object]) -> tuple[list[int], list[str]]:
    notes: list[str] = []
    out = sn.line(values, [LINE_TOPK], notes)
    return [s.value for s in out if s.field == "speculative_eagle_topk"], notes


def test_ngram_topk_is_the_breadth_not_the_line_topk() -> None:
    values = {"speculative_algorithm": "NGRAM", "speculative_eagle_topk": 2}
    assert _topk(values)[0] == [sn.BFS_BREADTH_DEFAULT]
    assert "--speculative-eagle-topk 2" in _topk(values)[1][0]
    given = {**values, "speculative_ngram_max_bfs_breadth": 3}
    assert _topk(given)[0] == [3]


def test_breadth_equal_to_the_line_topk_needs_no_note() -> None:
    values = {"speculative_algorithm": "ngram", "speculative_eagle_topk": 2,
              "speculative_ngram_max_bfs_breadth": 2}
    assert _topk(values) == ([2], [])


def test_other_algorithms_keep_the_line_topk() -> None:
    for algorithm in ("EAGLE", "DFLASH", None):
        values = {"speculative_algorithm": algorithm, "speculative_ngram_max_bfs_breadth": 3}
        assert _topk(values) == ([2], [])


@pytest.mark.parametrize("bad", [0, -1, True, "3"])
def test_breadth_below_one_is_refused(bad: object) -> None:
    with pytest.raises(ConfigError, match="max-bfs-breadth"):
        sn.line({"speculative_algorithm": "NGRAM", "speculative_ngram_max_bfs_breadth": bad},
                [], [])
