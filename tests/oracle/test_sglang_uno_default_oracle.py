"""SGLang 0.5.23's UNO lines that name no attention backend, on architectures with a model
override (arg_groups/model_overrides/): SGLang's own argument pipeline on fake devices
(tests/oracle/sglang_oracle.py) against graphfit's plan of the same pasted line
(tests/oracle/measure_sglang_backend_checks.py).

SGLang runs the model override (the model hook, arg_groups/pipeline.py:225), then the
attention default (pipeline.py:242, overrides.py:1126-1140) and the fp8_e5m2 fallback
(overrides.py:1262-1270), and only then `_handle_uno`'s FA3 rule (pipeline.py:306,
speculative_hook.py:606-611) on `attention_backends_of` (model_override_base.py:138-152).
graphfit restates that pair (graphfit.inputs.sglang_uno_default.override_sides): both plan
the same lines, and a refused line carries SGLang's reason: the same prefill / decode pair
for the FA3 rule, Moss-VL's own message where its override's assert fires first
(moss_vl.py:18-30). A planted error per rule shows the comparison fails.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.inputs import sglang_uno as gu  # noqa: E402
from graphfit.planner.engines.sglang_attn_default import DefaultBackend  # noqa: E402
from tests.oracle import measure_sglang_backend_checks as m  # noqa: E402

(UNO,) = m.other_spec("UNO")
MODELS = {shape: model for _, shape, model, _ in m.grid((UNO,))}
EXTRAS = {"none": (), "fp8_e5m2": ("--kv-cache-dtype", "fp8_e5m2"),
          "decode flashinfer": ("--decode-attention-backend", "flashinfer"),
          "page 16": ("--page-size", "16"), "named triton": ("--attention-backend", "triton")}
# one line per rule: (gpu, model shape, extra) -> SGLang's verdict graphfit must share
EDGES: dict[str, tuple[str, str, str, str]] = {
    "override fa3 on Hopper plans": ("H100", "GptOssForCausalLM", "none", "plan"),
    "override leaves Hopper to the MHA default": ("H100", "Qwen3NextForCausalLM", "none",
                                                  "plan"),
    "Kimi-K3 off SM100: MLA default": ("H100", "KimiK3ForConditionalGeneration", "none",
                                       "plan"),
    "override trtllm_mha on SM100": ("B200", "GptOssForCausalLM", "none", "refused"),
    "Moss-VL prefill flashinfer pair": ("H100", "MossVLForConditionalGeneration", "none",
                                        "refused"),
    "Moss-VL's assert, a side named": ("H100", "MossVLForConditionalGeneration",
                                       "decode flashinfer", "refused"),
    "Moss-VL's assert before UNO's": ("H100", "MossVLForConditionalGeneration",
                                      "named triton", "refused"),
    "Qwen3-VL large Hopper decode flashinfer": ("H100", "vl", "none", "refused"),
    "fp8_e5m2 after the override": ("H100", "GptOssForCausalLM", "fp8_e5m2", "refused"),
}


def _argv(extra: str) -> tuple[str, ...]:
    return ("--max-running-requests", "33", *UNO, *EXTRAS[extra])


def reason(text: str) -> tuple[str, ...]:
    """The rule a refusal names: UNO's FA3 rule with its (prefill, decode) pair (SGLang:
    "got prefill='x', decode='y'", graphfit: "got x / y"), Moss-VL's prefill assert, or
    another rule (compared as refused only)."""
    found = (re.search(r"prefill='?([\w.]+)'?, decode='?([\w.]+)'?", text)
             or re.search(r"FA3 prefill and decode attention, got ([\w.]+) / ([\w.]+)", text))
    if "UNO" in text and found:
        return ("uno_fa3", found.group(1), found.group(2))
    if "requires flashinfer prefill" in text:
        return ("moss_vl_prefill",)
    return ("other",)


def compared(gpu: str, shape: str, argv: tuple[str, ...]) -> tuple[str, str]:
    """(SGLang's verdict and reason, graphfit's) for one line."""
    sglang = m._sglang(argv, gpu, MODELS[shape])
    ours = m._graphfit(argv, gpu, MODELS[shape])
    return (("plan" if sglang is None else f"refused {reason(sglang)}"),
            ("plan" if ours is None else f"refused {reason(ours)}"))


@pytest.mark.parametrize("edge", sorted(EDGES))
def test_uno_default_after_the_override_follows_sglang(edge: str) -> None:
    gpu, shape, extra, verdict = EDGES[edge]
    sglang, ours = compared(gpu, shape, _argv(extra))
    assert sglang.split(" ", 1)[0] == verdict, (edge, sglang)
    assert ours == sglang, (edge, sglang, ours)


PLANTED = {
    # graphfit back to refusing an override's default as not restated (before s32u)
    "override fa3 on Hopper plans": lambda mp: mp.setattr(
        gu, "override_sides", lambda values, gpu: None),
    # the override's own split side dropped: the pair is the generic default on both sides
    "Moss-VL prefill flashinfer pair": lambda mp: mp.setattr(
        gu, "override_sides", lambda values, gpu: (DefaultBackend("fa3", "planted"),) * 2),
    # UNO's FA3 rule on a named pair checked before the model hook's asserts (before s32u)
    "Moss-VL's assert before UNO's": lambda mp: mp.setattr(
        gu, "every_line_checks", lambda values, gpu: None),
}


@pytest.mark.parametrize("edge", sorted(PLANTED))
def test_planted_error_is_caught(edge: str, monkeypatch: pytest.MonkeyPatch) -> None:
    gpu, shape, extra, _ = EDGES[edge]
    PLANTED[edge](monkeypatch)
    sglang, ours = compared(gpu, shape, _argv(extra))
    assert ours != sglang, (edge, sglang, ours)


CASES = sorted({(gpu, shape) for gpu, shape, _, _ in m.grid((UNO,))})


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(CASES), st.sampled_from(sorted(EXTRAS)))
def test_generated_uno_lines_without_a_backend(case: tuple[str, str], extra: str) -> None:
    """Generated UNO lines naming no backend (every model shape and override architecture of
    the backend-checks grid, 6 GPUs, a KV dtype, a split flag, a page size): SGLang and
    graphfit plan the same lines and refuse the others for the same rule and pair."""
    gpu, shape = case
    sglang, ours = compared(gpu, shape, _argv(extra))
    assert ours == sglang, (gpu, shape, extra, sglang, ours)
