"""SGLANG_SKIP_SOFTMAX_PREFILL_THRESHOLD_SCALE_FACTOR on a pasted line (issue 23 s67p): SGLang
0.5.23's attention hook refuses trtllm_mha prefill on SM120 with the variable above 0
(arg_groups/attention_hook.py:207-221), before the DP refusal and the CP hook. SGLang resolves
each line with the variable in its environment (sglang_skip_softmax_oracle); graphfit reads the
line's `VAR=value` prefix (graphfit.inputs.sglang_skip_softmax)."""

from __future__ import annotations

import os

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_skip_softmax_oracle as ss  # noqa: E402

TRTLLM = ("--attention-backend", "trtllm_mha")
CP = ("--enable-prefill-cp", "--tp-size", "2", "--max-running-requests", "24")
ZIG = ("--cp-strategy", "zigzag")
CASES: list[tuple[ss.Case, str]] = [
    ((TRTLLM, "RTX5090", "llama", "0.5"), "same refusal"),
    ((("--prefill-attention-backend", "trtllm_mha"), "RTX5090", "llama", "inf"),
     "same refusal"),
    ((TRTLLM, "RTX5090", "llama", "0"), "served"),  # not above 0
    ((TRTLLM, "RTX5090", "llama", "abc"), "served"),  # SGLang keeps the default
    ((TRTLLM, "H100", "llama", "1"), "served"),  # SM120 only
    ((("--decode-attention-backend", "trtllm_mha"), "RTX5090", "llama", "1"), "served"),
    # before the CP hook's strategy check (parallel_hook.py:151-154) and the DP refusal
    (((*CP, *TRTLLM), "RTX5090", "llama", "1e-3"), "same refusal"),
    (((*CP, *ZIG, *TRTLLM, "--dp-size", "2", "--attn-dp-size", "2"), "RTX5090", "llama",
      "2"), "same refusal"),
    (((*CP, *ZIG, *TRTLLM), "RTX5090", "llama", None), "served"),
]


@pytest.mark.parametrize(("case", "expected"), CASES,
                         ids=[f"{c[1]}-{c[3]}-{'-'.join(c[0])}" for c, _ in CASES])
def test_skip_softmax(case: ss.Case, expected: str) -> None:
    outcome, diffs = ss.compare(case)
    assert outcome == expected, diffs


@pytest.mark.parametrize("value", ["0.5", "0", "-2", "abc", "inf", "-inf", "nan", "1e-9", ""])
def test_the_variable_read_as_sglang_reads_it(value: str) -> None:
    """graphfit's reading against SGLang's own EnvFloat (`envs.<ENV>.get() or 0.0`)."""
    import warnings

    from graphfit.inputs.sglang_skip_softmax import active
    from tests.oracle import sglang_oracle as so

    so.oracle()
    from sglang.srt.environ import envs

    old = os.environ.get(ss.ENV)
    os.environ[ss.ENV] = value
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = (envs.SGLANG_SKIP_SOFTMAX_PREFILL_THRESHOLD_SCALE_FACTOR.get() or 0.0) > 0
    finally:
        os.environ.pop(ss.ENV, None)
        if old is not None:
            os.environ[ss.ENV] = old
    assert active({ss.ENV: value}) is theirs


def test_generated_lines() -> None:
    for case in ss.generate(3, 67):
        outcome, diffs = ss.compare(case)
        assert outcome in ("same refusal", "served"), (case, diffs)


def test_cli_refusal_is_one_line() -> None:
    from tests.helpers import run_cli
    from tests.oracle import sglang_prefill_cp_oracle as cp

    code, _, err = run_cli(["plan", "--gpu-memory-gb", "RTX5090", "--", f"{ss.ENV}=1", "sglang",
                            "serve", "--model-path", cp.model_dir("llama"), *TRTLLM])
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and len(lines[0]) <= 200, err
    assert lines[0].startswith("error:") and "attention_hook.py:207-221)" in lines[0], err


def test_plant_variable_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    from graphfit.inputs import sglang_skip_softmax

    monkeypatch.setattr(sglang_skip_softmax, "active", lambda environ: False)
    assert ss.compare(CASES[0][0])[0] != "same refusal"
    assert ss.compare(CASES[6][0])[0] != "same refusal"
