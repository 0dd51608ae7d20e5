"""FlashInfer A2A's MoE runner as `_moe_runner_backend_quant_constraints` settles it by GPU
(arg_groups/overrides.py:1449-1522): nvfp4_online's auto runner becomes flashinfer_trtllm
(:1462-1465; off SM100 SGLang refuses, :1457-1461), modelopt_fp4's auto runner becomes
flashinfer_cutlass on SM110 / SM120 (:1513-1522) and stays auto elsewhere, which FlashInfer
A2A's runner assert refuses (moe_hook.py:531-540); a picked flashinfer_cutlass meets its
expert-parallel assert (moe_hook.py:89-92). graphfit called all of these "not modelled"
before issue 23 s67m (`sglang_flashinfer_a2a.gpu_runner`). Compared with SGLang's own argument
pipeline and graph runners (tests/oracle/sglang_moe_a2a_compare.compare).
`python -m tests.oracle.measure_sglang_flashinfer_a2a_gpu_runner` draws more lines.
"""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_moe_a2a_compare as m  # noqa: E402
from tests.oracle.measure_sglang_flashinfer_a2a_copy import (  # noqa: E402
    differences,
    line,
    model_dir,
)
from tests.oracle.measure_sglang_flashinfer_a2a_gpu_runner import draws  # noqa: E402

QWEN, GLM = "Qwen3MoeForCausalLM", "Glm4MoeForCausalLM"
# (class, config.json's quantization_config, runner, GPU, given flag)
CASES = {
    "nvfp4-online-auto-B200": (QWEN, "none", "auto", "B200", "nvfp4_online"),
    "nvfp4-online-cutedsl-B200": (QWEN, "none", "flashinfer_cutedsl", "B200", "nvfp4_online"),
    "nvfp4-online-auto-H100": (QWEN, "none", "auto", "H100", "nvfp4_online"),
    "fp4-auto-RTX5090": (QWEN, "modelopt-nvfp4", "auto", "RTX5090", "modelopt_fp4"),
    "glm-fp4-auto-RTX5090": (GLM, "modelopt-nvfp4", "auto", "RTX5090", "modelopt_fp4"),
    "fp4-auto-A100": (QWEN, "modelopt-nvfp4", "auto", "A100", "modelopt_fp4"),
    "fp4-auto-H100": (QWEN, "modelopt-nvfp4", "auto", "H100", "modelopt_fp4"),
}
STARTS = {"nvfp4-online-auto-B200", "nvfp4-online-cutedsl-B200", "fp4-auto-RTX5090",
          "glm-fp4-auto-RTX5090"}
GENERATED = draws(6, 67)


def ep_two() -> tuple[str, ...]:
    """modelopt_fp4's picked flashinfer_cutlass on an RTX 5090 with --ep-size 2 of TP 4."""
    return ("--tp-size", "4", "--attn-dp-size", "4", "--ep-size", "2", "--moe-a2a-backend",
            "flashinfer", "--moe-runner-backend", "auto", "--quantization", "modelopt_fp4",
            "--model-path", model_dir("modelopt-nvfp4", QWEN), "--gpu-memory-gb", "RTX5090")


def starts(argv: tuple[str, ...]) -> bool:
    sg = m.sglang(argv)
    return sg.rejected is None and sg.runners is not None


@pytest.mark.parametrize("name", list(CASES))
def test_fixed_lines_agree_with_sglang(name: str) -> None:
    found = differences(line(*CASES[name]))
    assert not found, found


@pytest.mark.parametrize("drawn", GENERATED, ids=[str(i) for i in range(len(GENERATED))])
def test_drawn_lines_agree_with_sglang(drawn: tuple[str, str, str, str, str | None]) -> None:
    found = differences(line(*drawn))
    assert not found, found


def test_a_picked_cutlass_meets_its_expert_parallel_assert() -> None:
    found = differences(ep_two())
    assert not found, found
    assert "expert parallel size" in str(m.sglang(ep_two()).rejected)


def test_the_cases_are_not_vacuous() -> None:
    """SGLang starts the SM100 / SM120 lines and refuses the others."""
    assert {n for n, case in CASES.items() if starts(line(*case))} == STARTS


def test_an_unknown_gpu_is_not_modelled() -> None:
    """Off a named GPU the pick depends on the device: graphfit says so in one line."""
    gf = m.graphfit_cli(line(QWEN, "modelopt-nvfp4", "auto", "80", "modelopt_fp4"))
    assert gf.rejected is not None and "SM110 / SM120" in gf.rejected, gf.rejected
    assert gf.rejected.endswith("not modelled"), gf.rejected


def _fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """graphfit's side is cached per line: plant on fresh caches."""
    monkeypatch.setattr(m, "graphfit_cli", m.graphfit_cli.__wrapped__)


def test_dropping_nvfp4_online_s_pick_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    from graphfit.planner.engines import sglang_flashinfer_a2a as fi

    _fresh(monkeypatch)
    kept = fi.quant_runner
    monkeypatch.setattr(fi, "quant_runner", lambda runner, quant: (
        runner if quant == "nvfp4_online" else kept(runner, quant)))
    assert differences(line(*CASES["nvfp4-online-auto-B200"]))


def test_dropping_the_sm120_pick_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    from graphfit.planner.engines import sglang_flashinfer_a2a as fi

    _fresh(monkeypatch)
    monkeypatch.setattr(fi, "CUTLASS_FP4_MAJORS", ())
    assert differences(line(*CASES["fp4-auto-RTX5090"]))


def test_dropping_the_expert_parallel_assert_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    from graphfit.planner.engines import sglang_flashinfer_a2a as fi

    _fresh(monkeypatch)
    monkeypatch.setattr(fi, "check_runner_ep", lambda *args: None)
    assert differences(ep_two())
