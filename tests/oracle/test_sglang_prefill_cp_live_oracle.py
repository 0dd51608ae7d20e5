"""Prefill context parallelism on the live check and in config files (issue 23 s52c): SGLang
0.5.23 resolves an `--enable-prefill-cp` line on CPU, and graphfit reads (1) its resolved
ServerArgs record through `graphfit.integrations.sglang.from_sglang`, (2) the line's flags
as graphfit's own `--config` file, (3) the line with its prefill-CP flags in an SGLang
`--config` YAML (tests/oracle/sglang_prefill_cp_oracle: live_compare, file_compare,
yaml_case). Each must give what the pasted line gives: SGLang's refusal sentence, the plan
the s51c oracle holds to SGLang's runners (with SGLang's resolved fraction and prefill
backend on the live path), or "not modelled" where the pasted line says so. The generated
counts are in measure_sglang_prefill_cp_live."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_prefill_cp_oracle as cp  # noqa: E402

CP = ("--enable-prefill-cp", "--max-running-requests", "24")
ZIG, INTER = ("--cp-strategy", "zigzag"), ("--cp-strategy", "interleave")
# (line, the live check's outcome, the files' outcome)
LINES: list[tuple[cp.Case, str, str]] = [
    (((*CP, "--tp-size", "4", *ZIG), cp.GPU, "llama"), "agree", "agree"),
    (((*CP, "--tp-size", "4", *INTER, "--attn-cp-size", "2"), cp.GPU, "llama"), "agree",
     "agree"),
    # attn_cp == tp: CP's own breakable prefill graphs, planned as the pasted line plans them
    # since s55g (here on Hopper's fa3: none captured, prefill graphs off)
    (((*CP, "--tp-size", "2", *ZIG, "--attn-cp-size", "2"), cp.GPU, "llama"), "agree",
     "agree"),
    (((*CP, "--tp-size", "2", *ZIG), cp.GPU, "mimo"), "not modelled", "not modelled"),
    # a DeepSeek-family line: planned on a pasted line (its SGLang YAML too) and in graphfit's
    # file since s60p, on the live check since s62p
    (((*CP, "--tp-size", "4", *ZIG), cp.GPU, "mla"), "agree", "agree"),
    # ... and with the DP LM head under attention DP since s68p (the override's
    # moe_dense_tp_size 1: one global_num_tokens row, utils/common.py:4090-4128)
    (((*CP, "--tp-size", "4", *ZIG, "--attn-dp-size", "2", "--enable-dp-lm-head"), cp.GPU,
      "mla"), "agree", "agree"),
    (((*CP, "--tp-size", "4"), cp.GPU, "llama"), "sglang refuses", "same refusal"),
    (((*CP, "--tp-size", "2", *INTER), cp.GPU, "hyv4"), "sglang refuses", "same refusal"),
    (((*CP, "--tp-size", "4", *ZIG, "--dcp-size", "2"), cp.GPU, "llama"), "sglang refuses",
     "same refusal"),
]
IDS = [f"{c[2]}-{' '.join(c[0][3:])}" for c, _, _ in LINES]


@pytest.mark.parametrize(("case", "live", "_"), LINES, ids=IDS)
def test_live_check_reads_sglangs_resolution(case: cp.Case, live: str, _: str) -> None:
    outcome, diffs = cp.live_compare(case)
    assert outcome == live, diffs


@pytest.mark.parametrize(("case", "_", "expected"), LINES, ids=IDS)
def test_graphfit_config_file_as_the_line(case: cp.Case, _: str, expected: str) -> None:
    outcome, diffs = cp.file_compare(case)
    assert outcome == expected, diffs


@pytest.mark.parametrize(("case", "_", "expected"), LINES, ids=IDS)
def test_sglang_config_yaml_as_the_line(case: cp.Case, _: str, expected: str) -> None:
    outcome, diffs = cp.compare(cp.yaml_case(case))
    assert outcome == expected, diffs


def test_generated_lines_never_differ() -> None:
    cases = cp.generate(6, 52)
    found = [(case, *cp.live_compare(case), *cp.file_compare(case)) for case in cases]
    assert not [f for f in found if "differs" in (f[1], f[3])], found
