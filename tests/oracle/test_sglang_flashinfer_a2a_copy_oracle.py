"""FlashInfer A2A's runner / quantization check reads the `--quantization` SGLang settles, not
only the given flag: a class's override copies config.json's method on SM100 (Qwen3-MoE,
GLM-4 MoE: arg_groups/model_overrides/qwen3_moe.py:38-50, glm4_moe.py:15-33), then
`_moe_runner_backend_quant_constraints` resolves mxfp8's runner (arg_groups/overrides.py:
1485-1512) before FlashInfer A2A's runner assert (moe_hook.py:531-540). graphfit's
`sglang_flashinfer_a2a.settled_flag` / `quant_runner` against SGLang's own argument pipeline
and graph runners (tests/oracle/sglang_moe_a2a_compare.compare; issue 23 s66m).
`python -m tests.oracle.measure_sglang_flashinfer_a2a_copy` draws more lines.
"""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_moe_a2a_compare as m  # noqa: E402
from tests.oracle.measure_sglang_flashinfer_a2a_copy import differences, line  # noqa: E402

# (class, config.json's quantization_config, runner, GPU, given flag)
CASES = {
    # the copied mxfp8 makes auto flashinfer_trtllm, which FlashInfer A2A takes: SGLang starts
    "qwen3-mxfp8-auto-B200": ("Qwen3MoeForCausalLM", "mxfp8", "auto", "B200", None),
    "glm4-mxfp8-auto-B200": ("Glm4MoeForCausalLM", "mxfp8", "auto", "B200", None),
    # a given mxfp8 on a BF16 checkpoint, resolved the same way
    "qwen3-bf16-mxfp8-flag-auto-B200": ("Qwen3MoeForCausalLM", "none", "auto", "B200",
                                        "mxfp8"),
    # mxfp8 swaps triton (not one of its runners) for flashinfer_trtllm: SGLang starts
    "glm4-mxfp8-triton-B200": ("Glm4MoeForCausalLM", "mxfp8", "triton", "B200", None),
    # ... and flashinfer_cutlass, which takes no mxfp8, before the runner asserts
    "qwen3-mxfp8-cutlass-B200": ("Qwen3MoeForCausalLM", "mxfp8", "flashinfer_cutlass", "B200",
                                 None),
    # the copied fp8 is not one flashinfer_cutlass takes (moe_hook.py:80-91): SGLang refuses
    "qwen3-fp8-cutlass-B200": ("Qwen3MoeForCausalLM", "fp8", "flashinfer_cutlass", "B200",
                               None),
    # no copy off SM100: auto stays auto, which FlashInfer A2A refuses
    "qwen3-fp8-auto-H100": ("Qwen3MoeForCausalLM", "fp8", "auto", "H100", None),
}


def starts(name: str) -> bool:
    sg = m.sglang(line(*CASES[name]))
    return sg.rejected is None and sg.runners is not None


@pytest.mark.parametrize("name", list(CASES))
def test_flashinfer_a2a_reads_the_settled_flag_as_sglang(name: str) -> None:
    found = differences(line(*CASES[name]))
    assert not found, found


def test_the_cases_are_not_vacuous() -> None:
    """SGLang starts the mxfp8 lines and refuses the other two."""
    assert [starts(n) for n in CASES] == [True, True, True, True, True, False, False]


def _fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """graphfit's side is cached per line: plant on fresh caches."""
    monkeypatch.setattr(m, "graphfit_cli", m.graphfit_cli.__wrapped__)


def test_reading_only_the_given_flag_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Planting main's reading (the given flag) gets the copied mxfp8 lines wrong."""
    from graphfit.planner.engines import sglang_flashinfer_a2a as fi

    _fresh(monkeypatch)
    monkeypatch.setattr(fi, "settled_flag", lambda config: config.quant_method)
    for name in ("qwen3-mxfp8-auto-B200", "glm4-mxfp8-auto-B200"):
        assert differences(line(*CASES[name])), name


def test_dropping_the_mxfp8_resolution_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Planting the runner kept as given (no mxfp8 resolution) refuses lines SGLang starts."""
    from graphfit.planner.engines import sglang_flashinfer_a2a as fi

    _fresh(monkeypatch)
    monkeypatch.setattr(fi, "quant_runner", lambda runner, quant: runner)
    for name in ("qwen3-bf16-mxfp8-flag-auto-B200", "glm4-mxfp8-triton-B200"):
        assert differences(line(*CASES[name])), name


def test_checking_the_given_runner_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Planting the quantization check on the given runner (before mxfp8's swap) refuses
    the flashinfer_cutlass line SGLang starts."""
    from graphfit.planner.engines import sglang_flashinfer_a2a as fi

    _fresh(monkeypatch)
    monkeypatch.setattr(fi, "kernel_runner", lambda runner, quant: runner)
    assert differences(line(*CASES["qwen3-mxfp8-cutlass-B200"]))
