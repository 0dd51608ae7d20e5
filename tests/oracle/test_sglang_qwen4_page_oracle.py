"""Qwen4-Exp's page size (model_overrides/qwen4_exp.py:57-71 on SM100, :89-96 for a
compressed QSA indexer), SGLang 0.5.23's own pipeline vs graphfit's resolution of the same
pasted line (issue 23 s45m; tests/oracle/sglang_qwen4_page_oracle.py)."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_qwen4_page_oracle as qp  # noqa: E402

MRR = qp.MRR
# lines whose page size SGLang's override changes (premise checked against SGLang: it is not
# the line's own page size), and lines it keeps
GRID: list[tuple[qp.Case, bool]] = [
    (((*MRR, "--disable-radix-cache"), "qwen4", "B200"), True),  # trtllm_mha: 64
    (((*MRR, "--mamba-radix-cache-strategy", "extra_buffer"), "qwen4", "B200"), True),
    (((*MRR, "--page-size", "16"), "qwen4", "B200"), True),  # triton: 1 over 16
    (((*MRR, "--page-size", "16"), "qwen4", "H100"), False),  # off SM100: the line's
    (((*MRR, "--page-size", "16", "--attention-backend", "triton"), "qwen4", "B200"), False),
    (((*MRR, "--page-size", "16"), "qwen4_qsa", "H100"), True),  # QSA: 64 on any GPU
    (((*MRR, "--attention-backend", "triton"), "qwen4_qsa", "B200"), True),
]


@pytest.mark.parametrize(("case", "changed"), GRID)
def test_grid_matches_sglang(case: qp.Case, changed: bool) -> None:
    theirs = qp.sglang_page(case)
    assert isinstance(theirs, int), theirs
    argv = case[0]
    given = int(argv[argv.index("--page-size") + 1]) if "--page-size" in argv else 1
    assert (theirs != given) == changed, f"premise: SGLang's page size {theirs}"
    assert qp.verdict(case) is None, qp.verdict(case)


@pytest.mark.parametrize("seed", [3, 45])
def test_generated_lines_match_sglang(seed: int) -> None:
    differ = [(case, why) for case in qp.generate(8, seed)
              if (why := qp.verdict(case)) is not None]
    assert not differ, differ[:3]
