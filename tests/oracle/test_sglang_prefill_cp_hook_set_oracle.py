"""The backend set SGLang's attention hook checks on a prefill-CP line (issue 23 s68p): the
model override's pick (Kimi-K3's trtllm_mla pair, Beam's and MiniMax-M3's trtllm_mha, Gemma 4's
fill), the nvfp4 hook's written pair and refusals (kv_cache_hook.py:34-99, pipeline.py:241)
and the KV4 checks after the hook (kv_cache_hook.py:112-318, pipeline.py:254), all before the
DP refusal (:274) and the CP hook (:278). SGLang resolves each line on its fake GPU
(sglang_prefill_cp_hook_set_oracle); graphfit reads it as a pasted line and as its own config
file."""

from __future__ import annotations

import re

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_prefill_cp_hook_set_oracle as hs  # noqa: E402

CP = ("--enable-prefill-cp", "--max-running-requests", "24", "--tp-size", "2")
ZIG, INTER = ("--cp-strategy", "zigzag"), ("--cp-strategy", "interleave")
E5M2, E4M3 = ("--kv-cache-dtype", "fp8_e5m2"), ("--kv-cache-dtype", "fp8_e4m3")
NV, DQ = ("--kv-cache-dtype", "nvfp4"), "--prefill-kv-cache-dequant-dtype"
DP = ("--dp-size", "2", "--attn-dp-size", "2")
KIMI = hs.dc.KIMI
CASES: list[tuple[hs.Case, str]] = [
    # Kimi-K3's trtllm_mla pair on SM100 (kimi_k3.py:146-149) with an fp8_e5m2 KV cache
    # (overrides.py:1214-1217): before the strategy check, the "not modelled" of Kimi-K3's
    # own CP resolution, and the DP refusal
    (((*CP, *E5M2), "B200", KIMI), "same refusal"),
    (((*CP, *ZIG, *E5M2), "B200", KIMI), "same refusal"),
    (((*CP, *INTER, *E5M2, *DP), "B200", KIMI), "same refusal"),
    (((*CP, *ZIG, *E4M3), "B200", KIMI), "served"),
    # Beam's trtllm_mha (beam.py:27-31): FMHAv2's fp8_e4m3 prefill on SM120
    (((*CP, *ZIG, *E4M3), "RTX5090", "beam_full"), "same refusal"),
    # the nvfp4 hook (kv_cache_hook.py:34-99): its writes served, its refusals first
    (((*CP, *ZIG, *NV), "B200", "llama"), "served"),
    (((*CP, *ZIG, *NV), "RTX5090", "llama"), "served"),
    (((*CP, *NV, DQ, "nvfp4"), "RTX5090", "llama"), "same refusal"),  # before the strategy
    (((*CP, *ZIG, *NV, "--decode-attention-backend", "triton"), "B200", "llama"),
     "same refusal"),
    (((*CP, *ZIG, DQ, "fp8_e4m3"), "B200", "llama"), "same refusal"),
    (((*CP, *NV, *DP), "MI300X", "gptoss"), "same refusal"),  # GPT-OSS's aiter on ROCm
    # the KV4 checks after the attention hook (kv_cache_hook.py:124-131, 132-137, 266-316)
    (((*CP, *NV, "--prefill-attention-backend", "flashinfer"), "H100", "llama"),
     "same refusal"),
    (((*CP, *NV, DQ, "nvfp4"), "B200", "mla"), "same refusal"),
    (((*CP, *NV, "--enable-unified-memory"), "B200", "gemma4"), "same refusal"),
    (((*CP, *ZIG, *NV), "B200", "minimax"), "same refusal"),
    (((*CP, *ZIG, *E4M3), "B200", "minimax"), "served"),
    # Gemma 4's fill on SM100 is trtllm_mha (gemma4.py:30-44): the model hook's sentence
    (((*CP, *ZIG, "--prefill-attention-backend", "flashinfer"), "B200", "gemma4"),
     "same refusal"),
]


def _id(case: tuple[hs.Case, str]) -> str:
    (argv, gpu, model), _ = case
    return f"{gpu}-{model}-{'-'.join(a.lstrip('-') for a in argv[5:])}"


@pytest.mark.parametrize(("case", "expected"), CASES, ids=[_id(c) for c in CASES])
def test_hook_set_order(case: hs.Case, expected: str) -> None:
    for file in (False, True):  # the pasted line, graphfit's own config file
        outcome, diffs = hs.compare(case, file)
        assert outcome == expected, (file, diffs)


def test_generated_lines() -> None:
    for case in hs.generate(6, 68):
        for file in (False, True):
            outcome, diffs = hs.compare(case, file)
            assert outcome in ("same refusal", "served"), (case, file, diffs)


PAIR = re.compile(r"prefill=(\w+), decode=(\w+)")


@pytest.mark.parametrize("gpu", ["B200", "H100", "MI300X"])
def test_gemma4_fill_named_as_sglang_names_it(gpu: str) -> None:
    """The pair in graphfit's sentence is SGLang's (trtllm_mha on SM100, triton elsewhere),
    on the pasted line and the config file, through the CLI's GPU."""
    from tests.oracle import sglang_prefill_cp_attention_hook_oracle as ah
    from tests.oracle import sglang_prefill_cp_oracle as cp
    from tests.oracle import sglang_prefill_cp_platform_oracle as po

    case = ((*CP, *ZIG, "--prefill-attention-backend", "flashinfer"), gpu, "gemma4")
    hs.model_dir("gemma4")
    theirs = PAIR.search(ah.sglang_refusal(case) or "")
    assert theirs is not None
    words = f"prefill {theirs[1]}, decode {theirs[2]}"
    for ours in (po.graphfit_answer(case).rejected, cp.file_plan(case)[1]):
        assert ours is not None and words in ours, (theirs[0], ours)


def test_cli_refusal_is_one_line() -> None:
    """Kimi-K3's trtllm_mha refusal through the CLI: one whole `error:` line, exit 2."""
    from tests.helpers import run_cli

    code, _, err = run_cli(["plan", "--gpu-memory-gb", "B200", "--", "sglang", "serve",
                            "--model-path", hs.model_dir(KIMI), *CASES[1][0][0]])
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and len(lines[0]) <= 200, err
    assert lines[0].startswith("error:") and "overrides.py:1214-1217" in lines[0], err


# plants: each rule taken out, a line above is no longer answered as SGLang answers it
def test_plant_no_override_pick(monkeypatch: pytest.MonkeyPatch) -> None:
    from graphfit.inputs import sglang_prefill_cp_hook_set as mod

    real = mod.hook_set
    monkeypatch.setattr(mod, "hook_set", lambda hook, gpu: real(
        hook, gpu) if hook.reads and "kimi" not in str(dict(hook.reads).get("model_path"))
        else mod.HookSet(hook.base, hook.prefill, hook.decode))
    assert hs.compare(CASES[1][0])[0] != "same refusal"
    assert hs.compare(CASES[0][0], True)[0] != "same refusal"


def test_plant_no_nvfp4_phases(monkeypatch: pytest.MonkeyPatch) -> None:
    from graphfit.planner.engines import sglang_arch_overrides as ao
    from graphfit.planner.engines import sglang_backend_checks as bc

    for module in (bc, ao):  # the generic path's and the overrides' (`settled`)
        monkeypatch.setattr(module, "nvfp4_phases", lambda gpu, kv, explicit, prefill,
                            decode, requested=None: (prefill, decode))
    assert hs.compare(CASES[7][0])[0] != "same refusal"
    assert hs.compare(CASES[10][0], True)[0] != "same refusal"


def test_plant_no_kv4_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    from graphfit.inputs import sglang_prefill_cp_hook_set as mod

    monkeypatch.setattr(mod, "kv4_checks", lambda gpu, found, kv: None)
    assert hs.compare(CASES[11][0])[0] != "same refusal"
    assert hs.compare(CASES[13][0], True)[0] != "same refusal"
