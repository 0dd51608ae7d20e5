"""Qwen4-Exp's own CP-TP group sharing refusals (issue 23 s60r): the Qwen4-Exp-only flags
(cp_tp_group_sharing_hook.py:73-83) and the linear-attention heads' divisibility by TP
(:107-120), SGLang 0.5.23 resolving each line on the mamba-memory oracle's Qwen4-Exp target
(sglang_prefill_cp_dsa_oracle.compare) against graphfit.inputs.sglang_prefill_cp_hooks."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_prefill_cp_dsa_oracle as dsa  # noqa: E402

CP = ("--enable-prefill-cp", "--max-running-requests", "24", "--cp-strategy", "zigzag")
TP2 = (*CP, "--tp-size", "2", "--attn-cp-size", "2")
LINES: list[tuple[tuple[str, ...], str]] = [
    ((*TP2, "--ep-size", "2"), "same refusal"),
    ((*TP2, "--enable-waterfill"), "same refusal"),
    ((*TP2, "--pp-size", "2"), "same refusal"),
    ((*TP2, "--disaggregation-mode", "decode"), "same refusal"),
    ((*TP2, "--moe-a2a-backend", "deepep"), "same refusal"),
    # 16 linear key heads over TP 32
    ((*CP, "--tp-size", "32", "--attn-cp-size", "32"), "same refusal"),
    # SGLang serves it: planned since issue 23 s63p (test_sglang_prefill_cp_sharing_oracle)
    (TP2, "agree"),
]


@pytest.mark.parametrize(("argv", "expected"), LINES, ids=[" ".join(a[5:]) for a, _ in LINES])
def test_qwen4_exp_sharing_refusals_are_sglangs(argv: tuple[str, ...], expected: str) -> None:
    outcome, diffs = dsa.compare((argv, dsa.GPU, "qwen4"))
    assert outcome == expected, diffs
