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


# s34a: the GPU given in GiB on an override architecture. SGLang's answer on each GPU of the
# grid with that memory: where every one gives the same verdict and reason, graphfit gives it
# too (graphfit.inputs.sglang_uno_default.every_gpu_sides); elsewhere it asks for the name.
ASKS = "needs the GPU's name"
OTHER = ("other",)


def by_gib(shape: str, extra: str, gib: float) -> tuple[set[str], str]:
    """(SGLang's answers over the grid's GPUs with `gib` GiB, graphfit's with the GiB)."""
    from graphfit.inputs.gpus import gpu_name
    from tests.oracle import sglang_oracle as so

    so.oracle()
    argv = _argv(extra)
    answers = set()
    for gpu in m.GPUS:
        assert gpu_name(gpu), gpu
        with m.mo._restored_environ(), m.mo._platform(gpu):
            r = so.resolve(argv, gpu_mem_gb=gib, model=MODELS[shape],
                           capability=m.mo.CAPABILITIES.get(gpu, (9, 4)))
        answers.add("plan" if isinstance(r, so.Resolved) else f"refused {reason(r.text)}")
    ours = m._graphfit(argv, str(gib), MODELS[shape])
    return answers, ("plan" if ours is None else
                     "asks" if ASKS in ours else f"refused {reason(ours)}")


def gib_differences(shape: str, extra: str, gib: float) -> list[str]:
    answers, ours = by_gib(shape, extra, gib)
    if len(answers) > 1:  # the name decides: graphfit must not answer for it
        return [] if ours == "asks" or (ours.startswith("refused") and all(
            a.startswith("refused") for a in answers)) else [f"answers {answers}, ours {ours}"]
    (answer,) = answers
    if answer.startswith("refused") and ours == f"refused {OTHER}":
        return []  # graphfit's reason names no pair (never_fa3's fp8_e5m2 rule): verdict only
    return [] if ours in (answer, "asks") else [f"SGLang {answer} on every GPU, ours {ours}"]


GIB_EDGES = {  # (shape, extra, GiB) -> graphfit answers (not "asks")
    "IQuest-Q1 without its draft, every GPU": ("IQuestQ1ForCausalLM", "none", 80.0),
    "Moss-VL's assert, every GPU": ("MossVLForConditionalGeneration", "named triton", 80.0),
    "GPT-OSS named triton, every GPU": ("GptOssForCausalLM", "named triton", 141.0),
}


@pytest.mark.parametrize("edge", sorted(GIB_EDGES))
def test_gib_override_answers_like_sglang(edge: str) -> None:
    shape, extra, gib = GIB_EDGES[edge]
    answers, ours = by_gib(shape, extra, gib)
    assert len(answers) == 1 and ours == next(iter(answers)), (edge, answers, ours)


def test_gib_override_planted(monkeypatch: pytest.MonkeyPatch) -> None:
    """every_gpu_sides answering from one GPU (the B200's pair) though the GPUs differ."""
    from graphfit.inputs import sglang_uno_default as ud

    original = ud.override_sides
    monkeypatch.setattr(gu, "every_gpu_sides", lambda values, gpu: original(
        values, "B200", float(gpu)))
    assert gib_differences("GptOssForCausalLM", "none", 80.0)


GIB_SHAPES = sorted(s for s in MODELS if not s.islower())  # the override architectures


@settings(max_examples=12, deadline=None)
@given(st.sampled_from(GIB_SHAPES), st.sampled_from(sorted(EXTRAS)),
       st.sampled_from((24.0, 80.0, 141.0)))
def test_generated_gib_override_lines(shape: str, extra: str, gib: float) -> None:
    """Override architectures with the GPU in GiB: graphfit answers only SGLang's answer on
    every GPU, else asks for the GPU's name."""
    assert not gib_differences(shape, extra, gib), (shape, extra, gib)
