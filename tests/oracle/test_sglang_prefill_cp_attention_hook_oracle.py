"""The attention hook's other refusals before the CP hook's (issue 23 s66p): on the GPU the
line names, SGLang 0.5.23's attention hook (pipeline.py:242) refuses trtllm_mla, cutedsl_mla,
trtllm_mha and FMHAv2's fp8_e4m3 prefill before the DP refusal (:274), LongCat's boundary check
and the CP hook (:278, its HIP sentence on ROCm); DeepSeek-V4's model hook refuses split flags
other than dsv4 on HIP before all of them (deepseek_v4_hook.py:177-186). SGLang resolves each
line on its fake GPU (sglang_prefill_cp_attention_hook_oracle); graphfit reads it as a pasted
line and as its own config file."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_prefill_cp_attention_hook_oracle as ah  # noqa: E402

CP = ("--enable-prefill-cp", "--max-running-requests", "24", "--tp-size", "2")
ZIG, INTER = ("--cp-strategy", "zigzag"), ("--cp-strategy", "interleave")
DP = ("--dp-size", "2", "--attn-dp-size", "2")
MI300X = "MI300X"
CASES: list[tuple[ah.Case, str]] = [
    # ROCm: before the HIP sentence (parallel_hook.py:114-121)
    (((*CP, *ZIG, "--attention-backend", "trtllm_mla"), MI300X, "llama"), "same refusal"),
    (((*CP, *ZIG, "--decode-attention-backend", "cutedsl_mla"), MI300X, "mla"), "same refusal"),
    (((*CP, *ZIG, "--prefill-attention-backend", "cutedsl_mla"), MI300X, "mla"),
     "same refusal"),  # the decode-only assert (overrides.py:1241-1243)
    # trtllm_mla for prefill only: the hook reads the base and decode fields: the HIP sentence
    (((*CP, *ZIG, "--prefill-attention-backend", "trtllm_mla"), MI300X, "mla"), "same refusal"),
    # before the DP refusal (pipeline.py:274) and LongCat's (parallel_hook.py:78-81)
    (((*CP, *ZIG, "--attention-backend", "trtllm_mla", *DP), MI300X, "llama"), "same refusal"),
    (((*CP, *INTER, "--attention-backend", "cutedsl_mla"), MI300X, "longcat"), "same refusal"),
    # DeepSeek-V4 on HIP: its own check of the split flags (deepseek_v4_hook.py:177-186)
    (((*CP, *INTER, "--prefill-attention-backend", "trtllm_mha"), MI300X, "dsv4"),
     "same refusal"),
    (((*CP, *INTER, "--decode-attention-backend", "triton"), MI300X, "dsv4"), "same refusal"),
    (((*CP, *INTER, "--prefill-attention-backend", "compressed"), MI300X, "dsv4"), "served"),
    # ... after its KV dtype check (overrides.py:907-910), on any GPU
    (((*CP, *ZIG, "--kv-cache-dtype", "bf16", "--prefill-attention-backend", "triton"),
      MI300X, "dsv4"), "same refusal"),
    # CUDA: before the DP refusal, LongCat's and the CP hook's strategy check (:151-154)
    (((*CP, *ZIG, "--attention-backend", "trtllm_mla", *DP), "H100", "llama"), "same refusal"),
    (((*CP, *ZIG, "--attention-backend", "trtllm_mha", "--kv-cache-dtype", "fp8_e4m3", *DP),
      "RTX5090", "llama"), "same refusal"),  # FMHAv2 (attention_hook.py:207-221)
    (((*CP, "--attention-backend", "trtllm_mla", "--kv-cache-dtype", "fp8_e5m2"), "B200",
      "llama"), "same refusal"),  # overrides.py:1214-1217, not :151-154
    (((*CP, *INTER, "--decode-attention-backend", "cutedsl_mla", "--kv-cache-dtype",
       "fp8_e5m2"), "B200", "longcat"), "same refusal"),  # overrides.py:1248-1256
    # LongCat's CP width is its override's (TP 2), so trtllm_mha prefill off SM100 is refused
    # by the hook's CP check (attention_hook.py:228-237) before LongCat's own
    (((*CP, *INTER, "--prefill-attention-backend", "trtllm_mha"), "RTX5090", "longcat"),
     "same refusal"),
    # a line graphfit plans: the deprecated tokenspeed_mla is cutedsl_mla (serving_hook.py:304)
    (((*CP[:3], *ZIG, "--attention-backend", "tokenspeed_mla"), "H100", "llama"),
     "same refusal"),
    # ... with an fp8_e4m3 KV cache (:324-330): on SM100 the KV check passes, the CP hook's
    # strategy check (parallel_hook.py:151-154) answers
    (((*CP, "--attention-backend", "tokenspeed_mla", "--kv-cache-dtype", "fp8_e5m2"), "B200",
      "llama"), "same refusal"),
    # ... and trtllm_mla as the prefill backend (:321-323), which the hook does not read:
    # the HIP sentence
    (((*CP, *ZIG, "--prefill-attention-backend", "tokenspeed_mla"), MI300X, "mla"),
     "same refusal"),
]


def _id(case: tuple[ah.Case, str]) -> str:
    (argv, gpu, model), _ = case
    return f"{gpu}-{model}-{'-'.join(a.lstrip('-') for a in argv[5:])}"


@pytest.mark.parametrize(("case", "expected"), CASES, ids=[_id(c) for c in CASES])
def test_attention_hook_order(case: ah.Case, expected: str) -> None:
    for file in (False, True):  # the pasted line, graphfit's own config file
        outcome, diffs = ah.compare(case, file)
        assert outcome == expected, (file, diffs)


def test_generated_lines() -> None:
    for case in ah.generate(4, 66):
        outcome, diffs = ah.compare(case)
        assert outcome in ("same refusal", "served", "not modelled"), (case, diffs)


def test_cli_refusal_is_one_line() -> None:
    """The DeepSeek-V4 refusal through the CLI: one whole `error:` line, exit 2."""
    from tests.helpers import run_cli
    from tests.oracle import sglang_prefill_cp_oracle as cp

    code, _, err = run_cli(["plan", "--gpu-memory-gb", MI300X, "--", "sglang", "serve",
                            "--model-path", cp.model_dir("dsv4"), *CASES[6][0][0]])
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and len(lines[0]) <= 200, err
    assert lines[0].startswith("error:") and "deepseek_v4_hook.py:177-186)" in lines[0], err


# plants: each rule taken out, a line above is no longer answered as SGLang answers it
def test_plant_attention_hook_after_the_cp_hook(monkeypatch: pytest.MonkeyPatch) -> None:
    from graphfit.inputs import sglang_prefill_cp_platform as pl

    monkeypatch.setattr(pl, "attention_first", lambda *a: None)
    assert ah.compare(CASES[0][0], True)[0] != "same refusal"
    assert ah.compare(CASES[10][0])[0] != "same refusal"


def test_plant_mla_checks_left_out(monkeypatch: pytest.MonkeyPatch) -> None:
    from graphfit.planner.engines import sglang_backend_checks as bc

    monkeypatch.setattr(bc, "attention_hook", lambda gpu, base, pre, dec, kv, *skip:
                        bc.trtllm_mha_gpu(gpu, pre or base, dec or base))
    assert ah.compare(CASES[4][0])[0] != "same refusal"
    assert ah.compare(CASES[13][0], True)[0] != "same refusal"


def test_plant_v4_check_left_out(monkeypatch: pytest.MonkeyPatch) -> None:
    from graphfit.inputs import sglang_prefill_cp_platform as pl

    monkeypatch.setattr(pl, "v4_hip", lambda values: None)
    assert ah.compare(CASES[6][0])[0] != "same refusal"


def test_plant_no_aliases(monkeypatch: pytest.MonkeyPatch) -> None:
    # the first pass's renames live in sglang_prefill_cp_hook_line since s68p
    from graphfit.inputs import sglang_prefill_cp_hook_line as pl

    monkeypatch.setattr(pl, "ALIASES", {})
    assert ah.compare(CASES[15][0])[0] != "same refusal"
    assert ah.compare(CASES[8][0])[0] != "served"


def test_plant_tokenspeed_prefill_as_cutedsl(monkeypatch: pytest.MonkeyPatch) -> None:
    # the first pass's renames live in sglang_prefill_cp_hook_line since s68p
    from graphfit.inputs import sglang_prefill_cp_hook_line as pl

    monkeypatch.setattr(pl, "TOKENSPEED", "none")  # the prefill rename and the KV dtype gone
    assert ah.compare(CASES[17][0])[0] != "same refusal"
    assert ah.compare(CASES[16][0], True)[0] != "same refusal"
