"""MiniMax-M3's hook copies config.json's quantization method into an unset `--quantization`
on any GPU (arg_groups/model_overrides/minimax_m3.py:18-34, 46-53; `get_quantization_config`,
utils/common.py:3849-3854, on the config as ModelConfig parsed it), and the MoE runner
asserts (arg_groups/moe_hook.py:80-147) read that copy: graphfit's `resolved_flag`
(graphfit.planner.engines.sglang_quantization._minimax_flag) against SGLang's own argument
pipeline and KV price on the line (tests/oracle/sglang_minimax_kv_oracle; issue 23 s64m).
`python -m tests.oracle.measure_sglang_minimax_copy_runner` draws more lines.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import test_sglang_minimax_kv_oracle as t  # noqa: E402
from tests.oracle.measure_sglang_minimax_copy_runner import CONFIGS  # noqa: E402


def line(config: str, runner: str, gpu: str, *more: str, a2a: str = "none"
         ) -> dict[str, Any]:
    """A MiniMax-M3 line on config.json's config CONFIGS[config] (FlashInfer A2A: TP 2 with
    attention DP 2 and EP 2, as moe_hook.py:471-488 asks)."""
    if a2a != "none":
        more = (*more, "--moe-a2a-backend", a2a, "--ep-size", "2")
    c = t.case([0, 1], index_dim=128, gpu=gpu, more=("--moe-runner-backend", runner, *more),
               tp=(2, 2) if a2a != "none" else (1, 1))
    c["fields"].update(num_experts_per_tok=2, num_local_experts=4)
    if CONFIGS[config] is not None:
        c["fields"]["quantization_config"] = CONFIGS[config]
    return c


# (config.json's config, runner, GPU, flags): SGLang's verdict either way
CASES = {
    # the copied fp8 is not one flashinfer_cutlass takes, on any GPU (moe_hook.py:80-91)
    "fp8-cutlass-H100": line("fp8", "flashinfer_cutlass", "H100"),
    "fp8-cutlass-B200": line("fp8", "flashinfer_cutlass", "B200"),
    "fp8-cutlass-A100": line("fp8", "flashinfer_cutlass", "A100"),
    # ModelOpt FP8 parsed to modelopt_fp8: not one the routed runner takes (:135-146)
    "modelopt-fp8-routed-B200": line("modelopt-fp8", "flashinfer_trtllm_routed", "B200"),
    "named-fp8-cutedsl-B200": line("named-modelopt_fp8", "flashinfer_cutedsl", "B200"),
    # the copied modelopt_fp4 is one flashinfer_cutedsl takes (:94-102): SGLang starts
    "modelopt-nvfp4-cutedsl-H100": line("modelopt-nvfp4", "flashinfer_cutedsl", "H100"),
    "named-fp4-cutedsl-A100": line("named-modelopt_fp4", "flashinfer_cutedsl", "A100"),
    # unchanged: the given flag wins, no config, a runner every copy passes
    "fp8-flag-cutlass-H100": line("fp8", "flashinfer_cutlass", "H100", "--quantization",
                                  "modelopt_fp8"),
    "none-cutlass-B200": line("none", "flashinfer_cutlass", "B200"),
    "fp8-trtllm-B200": line("fp8", "flashinfer_trtllm", "B200"),
    # the hook's runner picks (minimax_m3.py:169-172, 228-235) under FlashInfer A2A, which
    # takes deep_gemm / flashinfer_trtllm_routed but neither auto nor triton (:531-540)
    "mxfp8-auto-fi-B200": line("mxfp8", "auto", "B200", a2a="flashinfer"),
    "mixed-auto-fi-B200": line("modelopt-mixed", "auto", "B200", a2a="flashinfer"),
    "mixed-auto-fi-H100": line("modelopt-mixed", "auto", "H100", a2a="flashinfer"),
    "bf16-deep_gemm-fi-B200": line("none", "deep_gemm", "B200", a2a="flashinfer"),
    # FlashInfer A2A's own runner / quantization check reads the copy too
    # (graphfit.planner.engines.sglang_flashinfer_a2a; moe_hook.py:94-102)
    "nvfp4-cutedsl-fi-H100": line("modelopt-nvfp4", "flashinfer_cutedsl", "H100",
                                  a2a="flashinfer"),
}


def verdict(c: dict[str, Any]) -> tuple[bool, Any, Any]:
    """(SGLang and graphfit agree: both refuse, or the same price; SGLang's, graphfit's)."""
    theirs, ours = t.sglang_prices(c), t.graphfit_prices(c)
    if isinstance(theirs, str):
        return str(ours).startswith("refused"), theirs, ours
    return theirs == ours, theirs, ours


@pytest.mark.parametrize("name", list(CASES))
def test_runner_asserts_see_the_copy_as_sglang(name: str) -> None:
    agree, theirs, ours = verdict(CASES[name])
    assert agree, (theirs, ours)


def test_the_copy_binds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not vacuous: SGLang refuses one line and starts the other; graphfit without the
    copy (`_minimax_flag` planted away, main's reading) gets both wrong."""
    from graphfit.planner.engines import sglang_quantization

    refused, started = CASES["fp8-cutlass-H100"], CASES["modelopt-nvfp4-cutedsl-H100"]
    assert isinstance(t.sglang_prices(refused), str)
    assert not isinstance(t.sglang_prices(started), str)
    monkeypatch.setattr(sglang_quantization, "_minimax_flag", lambda config: None)
    assert not verdict(refused)[0] and not verdict(started)[0]
    # the copy on SM100 where graphfit knew no flag (B200: every check skipped)
    assert not verdict(CASES["modelopt-fp8-routed-B200"])[0]
    assert not verdict(CASES["nvfp4-cutedsl-fi-H100"])[0]  # FlashInfer A2A's check


def test_the_runner_picks_bind(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not vacuous: SGLang starts the mxfp8 / mixed lines and refuses the BF16 one; graphfit
    without the hook's picks (`minimax_runner` planted to keep the runner) gets the mixed and
    BF16 ones wrong. On the mxfp8 line an auto runner kept by the plant still becomes
    flashinfer_trtllm by mxfp8's own resolution (overrides.py:1485-1512, restated by
    sglang_flashinfer_a2a.quant_runner, issue 23 s66m), which FlashInfer A2A takes as it takes
    the hook's deep_gemm: that line no longer tells the plant apart."""
    from graphfit.planner.engines import sglang_model_quant

    names = ("mxfp8-auto-fi-B200", "mixed-auto-fi-B200", "bf16-deep_gemm-fi-B200")
    started = [not isinstance(t.sglang_prices(CASES[n]), str) for n in names]
    assert started == [True, True, False]
    monkeypatch.setattr(sglang_model_quant, "minimax_runner",
                        lambda runner, quant, sm100: (True, runner))
    assert [verdict(CASES[n])[0] for n in names] == [True, False, False]


def test_the_copy_refusal_names_the_runner() -> None:
    ours = str(t.graphfit_prices(CASES["fp8-cutlass-H100"]))
    assert ours.startswith("refused") and "fp8 is not one the flashinfer_cutlass" in ours, ours
