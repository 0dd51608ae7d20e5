"""The KV cache dtype the model hook resolves, on pasted lines without prefill CP (issue 23
s68p): a DSA target's `auto` / `bf16` and its refused dtypes (overrides.py:490-547), Muse
Spark's `auto` (overrides.py:309-320), then the attention hook's KV checks (overrides.py:
1214-1217, attention_hook.py:207-221). SGLang resolves each line on its fake GPU
(sglang_kv_auto_oracle); graphfit reads it as its CLI does."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_kv_auto_oracle as ka  # noqa: E402

BASE = ("--max-running-requests", "24", "--tp-size", "2")
KV = "--kv-cache-dtype"
CASES: list[tuple[ka.Case, str]] = [
    # a DSA target's fp8_e5m2 (overrides.py:541-544), before trtllm_mla's own KV check
    (((*BASE, KV, "fp8_e5m2"), "H100", "dsa"), "same refusal"),
    (((*BASE, KV, "fp8_e5m2", "--attention-backend", "trtllm_mla"), "B200", "dsa"),
     "same refusal"),
    # its bf16 becomes bfloat16, off trtllm_mla's list (overrides.py:1214-1217)
    (((*BASE, KV, "bf16", "--attention-backend", "trtllm_mla"), "B200", "dsa"),
     "same refusal"),
    (((*BASE, KV, "fp8_e4m3", "--attention-backend", "trtllm_mla"), "B200", "dsa"), "served"),
    # `auto` is fp8_e4m3 on SM120: FMHAv2's prefill refusal (attention_hook.py:207-221)
    (((*BASE, "--prefill-attention-backend", "trtllm_mha"), "RTX5090", "dsa"),
     "same refusal"),
    (((*BASE, "--prefill-attention-backend", "trtllm_mha"), "RTX5090", "muse"),
     "same refusal"),
    (((*BASE, KV, "bf16", "--prefill-attention-backend", "trtllm_mha"), "RTX5090", "muse"),
     "served"),
    # no rule: the line's own dtype
    (((*BASE, "--prefill-attention-backend", "trtllm_mha"), "RTX5090", "llama"), "served"),
]


def _id(case: tuple[ka.Case, str]) -> str:
    (argv, gpu, model), _ = case
    return f"{gpu}-{model}-{'-'.join(a.lstrip('-') for a in argv[4:])}"


@pytest.mark.parametrize(("case", "expected"), CASES, ids=[_id(c) for c in CASES])
def test_model_kv_dtype_on_every_line(case: ka.Case, expected: str) -> None:
    outcome, diffs = ka.compare(case)
    assert outcome == expected, diffs


def test_generated_lines() -> None:
    for case in ka.generate(12, 68):
        outcome, diffs = ka.compare(case)
        assert outcome in ("same refusal", "served"), (case, diffs)


def test_cli_refusal_is_one_line() -> None:
    """The DSA dtype refusal through the CLI: one whole `error:` line, exit 2."""
    from tests.helpers import run_cli

    code, _, err = run_cli(["plan", "--gpu-memory-gb", "H100", "--", "sglang", "serve",
                            "--model-path", ka.mh.model_dir("dsa"), *CASES[0][0][0]])
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and len(lines[0]) <= 200, err
    assert lines[0].startswith("error:") and "overrides.py:541-544" in lines[0], err


# plants: each rule taken out, a line above is no longer answered as SGLang answers it
def test_plant_line_dtype(monkeypatch: pytest.MonkeyPatch) -> None:
    from graphfit.inputs import sglang_kv_auto

    monkeypatch.setattr(sglang_kv_auto, "resolved", lambda kv, found, gpu: kv)
    assert ka.compare(CASES[2][0])[0] != "same refusal"
    assert ka.compare(CASES[5][0])[0] != "same refusal"


def test_plant_no_dsa_asserts(monkeypatch: pytest.MonkeyPatch) -> None:
    from graphfit.inputs import sglang_kv_auto

    monkeypatch.setattr(sglang_kv_auto, "dsa_asserts", lambda kv, found: None)
    assert ka.compare(CASES[0][0])[0] != "same refusal"
    assert ka.compare(CASES[1][0])[0] != "same refusal"
