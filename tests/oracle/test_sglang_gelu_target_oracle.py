"""A Gemma 4 MoE target under the DeepGEMM MoE runner, graphfit against SGLang 0.5.23's own
Gemma4MoE build (issue 23, s69l; graphfit.planner.engines.sglang_gelu_target,
tests.oracle.sglang_gelu_target_oracle), and its DeepEPMoE asserts with JIT DeepGEMM off
(s69w; graphfit.planner.engines.sglang_deepep_class.GEMMA4_MOE)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

pytest.importorskip("torch")

from tests.oracle import sglang_gelu_target_oracle as gt

# (a2a, runner, jit, MoE blocks, extra, SGLang refuses)
CASES = (
    ("none", "deep_gemm", False, True, (), True),  # the runner's SiLU assert
    ("none", "deep_gemm", True, True, ("--quantization", "fp8"), True),  # FP8's deep_gemm
    ("deepep", "auto", True, True, ("--quantization", "fp8"), True),  # FP8 auto under deepep
    ("none", "auto", True, True, ("--quantization", "fp8"), False),  # auto without a2a
    ("none", "auto", False, True, ("--quantization", "fp8"), False),  # JIT off: triton
    ("none", "triton", False, True, (), False),
    ("none", "deep_gemm", False, False, (), False),  # no MoE block: nothing built
)


def test_gemma4_moe_target_lines_agree() -> None:
    wrong = []
    for a2a, runner, jit, moe, extra, refuses in CASES:
        drawn = gt.line(a2a, runner, jit, moe, *extra)
        theirs, (code, said) = gt.answers(drawn)
        whole = " ... " not in said  # one error line the CLI did not shorten
        if (theirs is not None) != refuses or not gt.agree(theirs, code, said) or not whole:
            wrong.append(f"{drawn}: SGLang {theirs and theirs[-100:]}; graphfit {code} {said}")
    rng = random.Random(69)
    for _ in range(4):
        said, detail = gt.verdict(gt.draw(rng))
        if said != "agree":
            wrong.append(f"drawn: {said} {detail}")
    assert not wrong, "\n".join(wrong)


# s69w: the target's own DeepEPMoE asserts, JIT DeepGEMM off
# (a2a, runner, jit, MoE blocks, mode, extra, SGLang refuses)
DEEPEP_CASES = (
    ("deepep", "auto", False, True, "low_latency", ("--quantization", "fp8"), True),
    ("nixl", "triton", False, True, "low_latency", ("--quantization", "fp8"), True),
    ("deepep", "auto", False, True, "normal", ("--quantization", "fp8"), False),  # no LL
    ("deepep", "auto", False, False, "low_latency", ("--quantization", "fp8"), False),  # dense
    # MoE fields, enable_moe_block false: no Gemma4MoE is built
    ("deepep", "auto", False, None, "low_latency", ("--quantization", "fp8"), False),
)


def test_gemma4_moe_target_deepep_lines_agree() -> None:
    wrong = []
    for a2a, runner, jit, moe, mode, extra, refuses in DEEPEP_CASES:
        drawn = gt.deepep_line(a2a, runner, jit, moe, mode, *extra)
        theirs, (code, said) = gt.answers(drawn)
        if (theirs is not None) != refuses or not gt.agree(theirs, code, said):
            wrong.append(f"{drawn}: SGLang {theirs and theirs[-100:]}; graphfit {code} {said}")
    rng = random.Random(70)
    for _ in range(2):
        said, detail = gt.verdict(gt.draw_deepep(rng))
        if said != "agree":
            wrong.append(f"drawn: {said} {detail}")
    assert not wrong, "\n".join(wrong)


def test_reader_reads_nested_text_config_and_overrides(tmp_path: Path) -> None:
    from graphfit.inputs import sglang_gelu_target

    model = tmp_path / "m"
    model.mkdir()
    (model / "config.json").write_text(json.dumps({
        "architectures": ["Gemma4ForConditionalGeneration"],
        "text_config": {"enable_moe_block": True}}))
    assert [s.field for s in sglang_gelu_target.settings({"model_path": str(model)})] == [
        "gelu_moe_target"]
    off = json.dumps({"text_config": {"enable_moe_block": False}})
    assert sglang_gelu_target.settings({"model_path": str(model),
                                        "json_model_override_args": off}) == []
    (model / "config.json").write_text(json.dumps({
        "architectures": ["Gemma4ForCausalLM"], "enable_moe_block": False}))
    assert sglang_gelu_target.settings({"model_path": str(model)}) == []


# s70h: pplx's auto -> deep_gemm, the LoRA runners, an override switching enable_moe_block
# (a2a, runner, jit, MoE blocks (None: the fields, the block off), extra, SGLang refuses)
ON, OFF = '{"enable_moe_block": true}', '{"enable_moe_block": false}'
RUNNER_CASES = (
    ("pplx", "auto", True, True, gt.PPLX, True),  # pplx resolves auto to deep_gemm
    ("pplx", "auto", False, True, (*gt.PPLX, "--quantization", "fp8"), True),  # before DeepEPMoE
    ("pplx", "auto", True, None, gt.PPLX, False),  # no Gemma4MoE built
    ("none", "lora_triton", True, True, gt.LORA, True),  # unquantized LoRA: DeepGEMM
    ("none", "lora_marlin", True, True, (*gt.LORA, "--quantization", "fp8"), False),  # FP8's
    ("none", "deep_gemm", True, None, (gt.OVERRIDE, ON), True),  # the override builds it
    ("none", "deep_gemm", True, True, (gt.OVERRIDE, OFF), False),  # the override drops it
)


def test_gemma4_moe_target_pplx_lora_override_lines_agree() -> None:
    wrong = []
    for a2a, runner, jit, moe, extra, refuses in RUNNER_CASES:
        drawn = gt.deepep_line(a2a, runner, jit, moe, "low_latency", *extra)
        theirs, (code, said) = gt.answers(drawn)
        if (theirs is not None) != refuses or not gt.agree(theirs, code, said):
            wrong.append(f"{drawn}: SGLang {theirs and theirs[-100:]}; graphfit {code} {said}")
    said, detail = gt.verdict(gt.draw_runner(random.Random(70)))
    if said != "agree":
        wrong.append(f"drawn: {said} {detail}")
    assert not wrong, "\n".join(wrong)
