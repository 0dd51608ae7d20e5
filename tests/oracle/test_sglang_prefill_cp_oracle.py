"""Prefill context parallelism (issue 23 s51c): SGLang 0.5.23's own resolution and runners on
`--enable-prefill-cp` lines vs graphfit's reading of the same pasted line
(tests/oracle/sglang_prefill_cp_oracle.py): each of SGLang's refusals restated in
graphfit.inputs.sglang_prefill_cp is met with SGLang's sentence; a line SGLang serves is
planned as SGLang builds its runners (ladders, padding, buffers, prefill backend) or refused
as not modelled. The large generated count is in measure_sglang_prefill_cp."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_prefill_cp_oracle as cp  # noqa: E402

CP = ("--enable-prefill-cp", "--max-running-requests", "24")
ZIG, INTER = ("--cp-strategy", "zigzag"), ("--cp-strategy", "interleave")
REFUSED: list[cp.Case] = [
    ((*CP, "--tp-size", "4"), cp.GPU, "llama"),  # parallel_hook.py:151-154
    ((*CP, "--tp-size", "4", *ZIG, "--dcp-size", "2"), cp.GPU, "llama"),  # :249-250
    ((*CP, "--tp-size", "2", *INTER), cp.GPU, "hyv4"),  # deepseek_v2.py:60-68
    ((*CP, "--tp-size", "2"), cp.GPU, "dsv4"),  # deepseek_v4_hook.py:167-170
    ((*CP, "--tp-size", "2", *ZIG), cp.GPU, "dsv4"),  # :172-176
    ((*CP, "--tp-size", "2", *ZIG), cp.GPU, "longcat"),  # parallel_hook.py:78-81
    ((*CP, "--tp-size", "4", *ZIG), cp.GPU, "v32"),  # :123-130
    ((*CP, "--tp-size", "2", *INTER), cp.GPU, "mimo"),  # :132-140
]
SERVED: list[tuple[cp.Case, str]] = [
    (((*CP, "--tp-size", "4", *ZIG), cp.GPU, "llama"), "agree"),
    (((*CP, "--tp-size", "2", *INTER, "--attn-cp-size", "1", "--attention-backend", "fa3"),
      cp.GPU, "llama"), "agree"),
    (((*CP, "--tp-size", "4", *INTER, "--attn-cp-size", "2"), cp.GPU, "llama"), "agree"),
    # attn_cp == tp on Hopper (fa3): no CP breakable prefill graphs, prefill graphs off
    # (planned since issue 23 s54g; the CP graphs themselves: test_sglang_prefill_cp_bcg_oracle)
    (((*CP, "--tp-size", "2", *ZIG, "--attn-cp-size", "2"), cp.GPU, "llama"), "agree"),
    (((*CP, "--tp-size", "2", *ZIG), cp.GPU, "mimo"), "not modelled"),
]


@pytest.mark.parametrize("case", REFUSED, ids=lambda c: f"{c[2]}-{' '.join(c[0][3:])}")
def test_refused_with_sglang_sentence(case: cp.Case) -> None:
    outcome, diffs = cp.compare(case)
    assert outcome == "same refusal", diffs


@pytest.mark.parametrize(("case", "expected"), SERVED,
                         ids=lambda c: f"{c[2]}-{' '.join(c[0][3:])}" if isinstance(c, tuple)
                         else c)
def test_served_planned_or_not_modelled(case: cp.Case, expected: str) -> None:
    outcome, diffs = cp.compare(case)
    assert outcome == expected, diffs


def test_generated_lines_never_differ() -> None:
    results = [(case, *cp.compare(case)) for case in cp.generate(10, 23)]
    assert not [r for r in results if r[1] == "differs"], results
