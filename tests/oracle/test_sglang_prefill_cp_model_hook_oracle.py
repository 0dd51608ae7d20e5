"""The model hook and SGLang's default backend before the attention hook's and the CP hook's
refusals (issue 23 s67p): SGLang 0.5.23's model hook (pipeline.py:225) asserts GPT-OSS's,
Llama 4's, Gemma 4's and Olmo2's backend lists (model_hook.py:515-692) before the attention
hook (:242), which checks the base SGLang's default (or the model override) wrote where the
line names none (overrides.py:1126-1140; DeepSeek-V3's trtllm_mla on SM100,
model_overrides/deepseek_v2.py:178-187), before the DP refusal (:274) and the CP hook (:278).
The hook also reads the KV dtype the model resolved (Muse Spark's and a DSA target's `auto`,
overrides.py:309-320, 490-547). SGLang resolves each line on its fake GPU
(sglang_prefill_cp_model_hook_oracle); graphfit reads it as a pasted line and as its own config
file."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_prefill_cp_model_hook_oracle as mh  # noqa: E402

CP = ("--enable-prefill-cp", "--max-running-requests", "24", "--tp-size", "2")
ZIG, INTER = ("--cp-strategy", "zigzag"), ("--cp-strategy", "interleave")
DP = ("--dp-size", "2", "--attn-dp-size", "2")
E5M2 = ("--kv-cache-dtype", "fp8_e5m2")
CASES: list[tuple[mh.Case, str]] = [
    # the model hook before the attention hook's trtllm_mla check and the strategy check
    (((*CP, "--attention-backend", "trtllm_mla"), "H100", "gptoss"), "same refusal"),
    # ... before the HIP sentence (parallel_hook.py:114-121)
    (((*CP, *ZIG, "--attention-backend", "flashinfer"), "MI300X", "gptoss"), "same refusal"),
    # ... Llama 4's base list, before the attention hook and the DP refusal
    (((*CP, *ZIG, "--attention-backend", "trtllm_mla", *DP), "H100", "llama4"),
     "same refusal"),
    # ... Gemma 4 on a line graphfit's config file planned
    (((*CP, *ZIG, "--attention-backend", "flashinfer"), "B200", "gemma4"), "same refusal"),
    # ... before the attention hook's cutedsl_mla prefill assert (overrides.py:1241-1243)
    (((*CP, *ZIG, "--prefill-attention-backend", "cutedsl_mla"), "MI300X", "gemma4"),
     "same refusal"),
    # GPT-OSS's override writes no base beside a split flag: decode None is off its list
    (((*CP, *ZIG, "--prefill-attention-backend", "triton"), "H100", "gptoss"), "same refusal"),
    # Olmo2's flashinfer, before the DP refusal (pipeline.py:274)
    (((*CP, *ZIG, "--attention-backend", "flashinfer", *DP), "RTX5090", "olmo2"),
     "same refusal"),
    (((*CP, *ZIG), "B200", "gptoss"), "served"),  # the override's trtllm_mha on SM100
    # DeepSeek-V3's trtllm_mla on SM100 with an fp8_e5m2 KV cache (overrides.py:1214-1217),
    # before the strategy check (parallel_hook.py:151-154), the DP refusal, and on a line
    # graphfit's config file planned
    (((*CP, *E5M2), "B200", "mla"), "same refusal"),
    (((*CP, *INTER, *E5M2, *DP), "B200", "mla"), "same refusal"),
    (((*CP, *ZIG, *E5M2), "B200", "mla"), "same refusal"),
    # split flags: no override pick, the generic MLA default (flashinfer) passes
    (((*CP, *ZIG, *E5M2, "--prefill-attention-backend", "triton",
       "--decode-attention-backend", "flashinfer"), "B200", "mla"), "served"),
    # the model's `auto` KV dtype (overrides.py:309-320, 490-547): fp8_e4m3 for FMHAv2 on
    # SM120 (attention_hook.py:207-221), before the CP check (:228-237) and on a planned line
    (((*CP, "--prefill-attention-backend", "trtllm_mha"), "RTX5090", "dsa"), "same refusal"),
    (((*CP, *ZIG, "--prefill-attention-backend", "trtllm_mha"), "RTX5090", "muse"),
     "same refusal"),
    # a DSA target's bf16 becomes bfloat16, off trtllm_mla's list (overrides.py:1214-1217)
    (((*CP, *INTER, "--attention-backend", "trtllm_mla", "--kv-cache-dtype", "bf16"), "B200",
      "dsa"), "same refusal"),
    # ... and refuses another dtype (overrides.py:541-544), on a line graphfit planned
    (((*CP[:3], "--tp-size", "8", *INTER, "--attn-cp-size", "4", "--attention-backend",
       "flashinfer", *E5M2), "H100", "dsa"), "same refusal"),
]


def _id(case: tuple[mh.Case, str]) -> str:
    (argv, gpu, model), _ = case
    return f"{gpu}-{model}-{'-'.join(a.lstrip('-') for a in argv[5:])}"


@pytest.mark.parametrize(("case", "expected"), CASES, ids=[_id(c) for c in CASES])
def test_model_hook_and_default_order(case: mh.Case, expected: str) -> None:
    for file in (False, True):  # the pasted line, graphfit's own config file
        outcome, diffs = mh.compare(case, file)
        assert outcome == expected, (file, diffs)


def test_generated_lines() -> None:
    for case in mh.generate(3, 67):
        for file in (False, True):
            outcome, diffs = mh.compare(case, file)
            assert outcome in ("same refusal", "served", "not modelled"), (case, file, diffs)


def test_dsa_lines_with_backend_flags() -> None:
    """DeepSeek-family lines with backend flags, KV dtypes and GPUs drawn
    (sglang_prefill_cp_dsa_backends_oracle), as a pasted line and a config file."""
    from tests.oracle import sglang_prefill_cp_dsa_backends_oracle as db

    for case in db.generate(3, 67):
        for file in (False, True):
            outcome, diffs = db.compare(case, file)
            assert outcome in ("same refusal", "agree", "served", "not modelled"), (case, diffs)


def test_cli_refusal_is_one_line() -> None:
    """The model hook's refusal through the CLI: one whole `error:` line, exit 2."""
    from tests.helpers import run_cli

    code, _, err = run_cli(["plan", "--gpu-memory-gb", "H100", "--", "sglang", "serve",
                            "--model-path", mh.model_dir("gptoss"), *CASES[0][0][0]])
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and len(lines[0]) <= 200, err
    assert lines[0].startswith("error:") and "model_hook.py:515-543)" in lines[0], err


# plants: each rule taken out, a line above is no longer answered as SGLang answers it
def test_plant_model_hook_left_out(monkeypatch: pytest.MonkeyPatch) -> None:
    from graphfit.inputs import sglang_prefill_cp_model_hook as hook
    from graphfit.planner.engines import sglang_arch_overrides as ao

    monkeypatch.setattr(hook, "check", lambda values, data, arch: None)
    # the attention hook's set reaches the model hook's lists through the override (s68p)
    monkeypatch.setattr(ao, "check_model_hook", lambda *args, **kwargs: None)
    assert mh.compare(CASES[0][0])[0] != "same refusal"
    assert mh.compare(CASES[3][0], True)[0] != "same refusal"


def test_plant_kv_dtype_as_the_line_gives_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from graphfit.inputs import sglang_kv_auto

    monkeypatch.setattr(sglang_kv_auto, "resolved", lambda kv, found, gpu: kv)
    assert mh.compare(CASES[12][0])[0] != "same refusal"
    assert mh.compare(CASES[13][0], True)[0] != "same refusal"
    assert mh.compare(CASES[14][0])[0] != "same refusal"


def test_plant_no_default_base(monkeypatch: pytest.MonkeyPatch) -> None:
    from graphfit.inputs import sglang_prefill_cp_hook_line as pl

    monkeypatch.setattr(pl, "default_base", lambda hook, gpu: hook.base)
    assert mh.compare(CASES[8][0])[0] != "same refusal"
    assert mh.compare(CASES[10][0], True)[0] != "same refusal"
