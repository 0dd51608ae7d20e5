"""graphfit == SGLang 0.5.23 on the draft model's quantization (graphfit.inputs.
sglang_draft_quant, graphfit.planner.engines.sglang_draft_quant): SGLang's own argument
resolution, then the target's and the draft's ModelConfig and model loader
(tests.oracle.sglang_draft_quant), against `graphfit plan` of the same pasted line.

Each fixed case also asserts which side of SGLang's start it is (read off SGLang), so a case
that stops exercising its rule fails instead of passing quietly."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.inputs import sglang_cli  # noqa: E402
from graphfit.planner.engines import sglang as sglang_engine  # noqa: E402
from tests.oracle import sglang_draft_quant as dq  # noqa: E402
from tests.oracle import sglang_draft_shape as ds  # noqa: E402
from tests.oracle import sglang_quant_capability_compare as cc  # noqa: E402

DRAFT = "--speculative-draft-model-quantization"


def _line(draft: str, *extra: str) -> tuple[str, ...]:
    return ("--speculative-algorithm", "EAGLE", "--speculative-draft-model-path", draft,
            *extra)


def _bf16() -> str:
    return ds.draft("LlamaForCausalLMEagle", torch_dtype="bfloat16")


def _fp16() -> str:
    return ds.draft("LlamaForCausalLMEagle", torch_dtype="float16")


def _fp8_draft() -> str:  # a draft checkpoint with its own quantization_config
    return ds.draft("LlamaForCausalLMEagle", torch_dtype="bfloat16",
                    quantization_config={"quant_method": "fp8", "activation_scheme": "dynamic",
                                         "weight_block_size": [128, 128]})


# (case, draft, extra flags, GPU, target layout, SGLang starts, the stage or text it stops at)
CASES = [
    ("NVFP4 target, draft inherits modelopt", _bf16, ("--quantization", "modelopt"), "B200",
     "modelopt_nvfp4", False, "Cannot find the config file for modelopt"),
    ("AWQ target, draft inherits awq_marlin", _bf16, ("--quantization", "awq_marlin"),
     "A100", "awq_4bit", False, "Cannot find the config file for awq_marlin"),
    ("draft flag gptq", _bf16, (DRAFT, "gptq"), "H100", None, False,
     "Unknown quantization method"),
    ("mxfp8 below SM100", _bf16, (DRAFT, "mxfp8"), "H100", None, False,
     "Minimum capability: 100"),
    ("mxfp8 on SM100", _bf16, (DRAFT, "mxfp8"), "B200", None, True, ""),
    ("awq without its file", _bf16, (DRAFT, "awq"), "A100", None, False,
     "Cannot find the config file"),
    ("compressed-tensors built bare", _bf16, (DRAFT, "compressed-tensors"), "H100", None,
     False, "CompressedTensorsConfig"),
    ("w4afp8 on a float16 draft", _fp16, (DRAFT, "w4afp8"), "H100", None, False,
     "not supported for quantization method w4afp8"),
    ("w4afp8 on a bfloat16 draft", _bf16, (DRAFT, "w4afp8"), "H100", None, True, ""),
    ("draft unquant over --quantization fp8", _bf16,
     ("--quantization", "fp8", DRAFT, "unquant"), "H100", None, True, ""),
    ("a quantized draft keeps its own method", _fp8_draft, (DRAFT, "awq"), "H100", None,
     True, ""),
]
REFUSING = [case for case in CASES if not case[5]]

# quantized draft checkpoints (issue 23 s50r): the draft's ModelConfig takes the checkpoint's
# method where the flag clashes (configs/model_config.py:2122-2137), then its loader's checks
AWQ = {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True}
GPTQ = {"quant_method": "gptq", "bits": 4, "group_size": 128, "sym": True, "desc_act": False}
FP8 = {"quant_method": "fp8", "activation_scheme": "dynamic", "weight_block_size": [128, 128]}
NVFP4 = {"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16}
QUANTIZED = {"awq": AWQ, "gptq": GPTQ, "fp8": FP8, "nvfp4": NVFP4}


def _quantized(name: str, dtype: str = "bfloat16") -> str:
    return ds.draft("LlamaForCausalLMEagle", torch_dtype=dtype,
                    quantization_config=QUANTIZED[name])


QUANTIZED_CASES = [
    ("AWQ draft under fp8 keeps awq: bfloat16 refused", ("awq", "bfloat16"), (DRAFT, "fp8"),
     "A100", False, "not supported for quantization method awq", "awq"),
    ("AWQ draft under fp8 keeps awq: float16 starts", ("awq", "float16"), (DRAFT, "fp8"),
     "A100", True, "", "awq"),
    ("AWQ draft, no flag, SM80: awq_marlin", ("awq", "bfloat16"), (), "A100", True, "",
     "awq_marlin"),
    ("AWQ draft under awq_marlin below SM80: awq", ("awq", "bfloat16"),
     (DRAFT, "awq_marlin"), "T4", False, "not supported for quantization method awq", "awq"),
    ("GPTQ draft under fp8: gptq unknown", ("gptq", "bfloat16"), (DRAFT, "fp8"), "H100",
     False, "Unknown quantization method: gptq", None),
    ("FP8 draft under awq on SM75", ("fp8", "bfloat16"), (DRAFT, "awq"), "T4", False,
     "Minimum capability: 80", "fp8"),
    ("nvfp4_online kept over an NVFP4 draft on SM90", ("nvfp4", "bfloat16"),
     (DRAFT, "nvfp4_online"), "H100", False, "Minimum capability: 100", "nvfp4_online"),
]
QUANTIZED_REFUSING = [case for case in QUANTIZED_CASES if not case[4]]


def _compare_quantized(case: tuple[object, ...]) -> tuple[str, str, bool | None]:
    _label, (name, dtype), extra, gpu = case[:4]  # type: ignore[misc]
    return dq.compare(_line(_quantized(name, dtype), *extra), gpu)  # type: ignore[arg-type]


def _compare(case: tuple[object, ...]) -> tuple[str, str, bool | None]:
    _label, draft, extra, gpu, layout, _starts, _stop = case
    target = cc.model_dir(layout) if layout is not None else None  # type: ignore[arg-type]
    return dq.compare(_line(draft(), *extra), gpu, target)  # type: ignore[operator, arg-type]


def _caught(cases: list[Any], compare: Callable[[Any], tuple[str, str, bool | None]]
            ) -> list[str]:
    """The labels of the cases that differ (a planted error caught), with graphfit's answers
    computed afresh before and after (the monkeypatched rule must be the one answering)."""
    dq.planned.cache_clear()
    try:
        return [case[0] for case in cases if compare(case)[2] is False]
    finally:
        dq.planned.cache_clear()


@pytest.mark.parametrize("case", CASES, ids=[case[0] for case in CASES])
def test_fixed_lines_agree(case: tuple[object, ...]) -> None:
    theirs, ours, agree = _compare(case)
    starts, stop = case[5], case[6]
    assert (theirs == "starts") is starts, theirs  # the case exercises its rule
    assert stop in theirs, theirs
    # the draft's ModelConfig or loader decided, not the arguments nor the target
    assert not theirs.startswith(("refused: target", "refused: args")), theirs
    assert agree, f"SGLang: {theirs}\ngraphfit: {ours}"


@settings(max_examples=8)
@given(flag=st.sampled_from(["fp8", "mxfp8", "nvfp4_online", "modelopt_fp4", "w4afp8",
                             "w8a8_fp8", "bitsandbytes", "gguf", "mxfp4", "awq_marlin",
                             "modelopt_fp8", "quark", "mlx_q4", "unquant"]),
       gpu=st.sampled_from(["T4", "A100", "L4", "H100", "B200"]),
       dtype=st.sampled_from([(), ("--dtype", "float16"), ("--dtype", "bfloat16")]),
       half_draft=st.booleans(), inherited=st.booleans())
def test_generated_lines_agree(flag: str, gpu: str, dtype: tuple[str, ...],
                               half_draft: bool, inherited: bool) -> None:
    """Generated unquantized-draft lines: the draft flag, or (when the target starts with
    it) the target's flag inherited; a GPU on each side of the bars; the draft's dtype."""
    draft = _fp16() if half_draft else _bf16()
    given_flag = ("--quantization", flag) if inherited else (DRAFT, flag)
    theirs, ours, agree = dq.compare(_line(draft, *given_flag, *dtype), gpu)
    assert agree is not False, f"SGLang: {theirs}\ngraphfit: {ours}"


def test_rule_off_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted: the input rule and the planner check switched off (main's behaviour): every
    refusing case then differs."""
    monkeypatch.setattr(sglang_cli.sglang_draft_quant, "settings", lambda values: [])
    monkeypatch.setattr(sglang_engine.sglang_draft_quant, "check", lambda config: None)
    assert _caught(REFUSING, _compare) == [case[0] for case in REFUSING]


def test_planner_check_off_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted: only the planner's GPU / dtype check off: the capability and dtype cases
    differ, the input-side refusals still agree."""
    monkeypatch.setattr(sglang_engine.sglang_draft_quant, "check", lambda config: None)
    assert set(_caught(REFUSING, _compare)) == {"mxfp8 below SM100", "w4afp8 on a float16 draft"}


@pytest.mark.parametrize("case", QUANTIZED_CASES, ids=[case[0] for case in QUANTIZED_CASES])
def test_quantized_drafts_agree(case: tuple[object, ...]) -> None:
    """A quantized draft checkpoint: SGLang's method and outcome (each case asserts the side
    of the start and the method the draft's ModelConfig settled, read off SGLang), against
    graphfit's plan and graphfit's draft method for the same checkpoint, flag and GPU."""
    from graphfit.inputs.gpus import gpu_capability
    from graphfit.planner.engines.sglang_draft_quant import draft_method
    from graphfit.planner.engines.sglang_quantization import parsed_quantization_config

    _label, (name, dtype), extra, gpu, starts, stop, method = case  # type: ignore[misc]
    theirs, ours, agree = _compare_quantized(case)
    assert (theirs == "starts") is starts, theirs
    assert stop in theirs, theirs
    assert not theirs.startswith(("refused: target", "refused: args")), theirs
    assert agree, f"SGLang: {theirs}\ngraphfit: {ours}"
    capability = gpu_capability(gpu)
    answer = dq.answer(_line(_quantized(name, dtype), *extra), capability)
    assert answer.method == method, answer
    if method is not None:  # SGLang settled a method: graphfit's (on the config as its
        flag = extra[1] if extra else None  # reader parses it) is the same
        cfg = parsed_quantization_config(QUANTIZED[name])
        assert draft_method(flag, cfg, capability) == answer.method


@settings(max_examples=6)
@given(name=st.sampled_from(sorted(QUANTIZED)), half=st.booleans(),
       flag=st.sampled_from([None, "fp8", "awq", "awq_marlin", "gptq_marlin", "moe_wna16",
                             "nvfp4_online", "modelopt_fp4", "mxfp8", "w4afp8"]),
       gpu=st.sampled_from(["T4", "A100", "H100", "B200"]))
def test_generated_quantized_drafts_agree(name: str, half: bool, flag: str | None,
                                          gpu: str) -> None:
    """Generated quantized-draft lines: a checkpoint method, its dtype, the flag (None: the
    draft takes the checkpoint's method), a GPU on each side of the bars."""
    extra = () if flag is None else (DRAFT, flag)
    draft = _quantized(name, "float16" if half else "bfloat16")
    theirs, ours, agree = dq.compare(_line(draft, *extra), gpu)
    assert agree is not False, f"SGLang: {theirs}\ngraphfit: {ours}"


def test_quantized_rule_off_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted: the quantized-draft reading switched off (main's behaviour, nothing checked):
    every refusing quantized case then differs."""
    monkeypatch.setattr(sglang_cli.sglang_draft_quant, "_quantized",
                        lambda path, data, values: [])
    assert _caught(QUANTIZED_REFUSING, _compare_quantized) == [
        case[0] for case in QUANTIZED_REFUSING]


# NEXTN lines naming no draft path: SGLang loads the target's own checkpoint as the draft
# (speculative_hook.py:1120-1148), so the draft's quantization rules read the target's
FILLED_CASES = [
    ("NEXTN draft awq without its file", "Glm4MoeForCausalLM", None, "awq", "H100", False,
     "Cannot find the config file for awq"),
    ("NEXTN draft mxfp8 below SM100", "Glm4MoeForCausalLM", None, "mxfp8", "H100", False,
     "Minimum capability: 100"),
    ("NEXTN draft mxfp8 on SM100", "Glm4MoeForCausalLM", None, "mxfp8", "B200", True, ""),
    ("NEXTN draft gptq unknown", "Glm4MoeForCausalLM", None, "gptq", "H100", False,
     "Unknown quantization method"),
    ("NEXTN draft nvfp4_online kept over an NVFP4 target", "Glm4MoeForCausalLM", "NVFP4",
     "nvfp4_online", "H100", False, "Minimum capability: 100"),
    ("NEXTN draft fp8 on an NVFP4 target takes modelopt_fp4", "Glm4MoeForCausalLM", "NVFP4",
     "fp8", "B200", True, ""),
]
FILLED_REFUSING = [case for case in FILLED_CASES if not case[5]]


def _compare_filled(case: tuple[object, ...]) -> tuple[str, str, bool | None]:
    _label, arch, quant, flag, gpu = case[:5]
    target = dq.filled_target(arch, quant)  # type: ignore[arg-type]
    argv = ("--speculative-algorithm", "NEXTN", DRAFT, flag)
    return dq.compare(argv, gpu, target)  # type: ignore[arg-type]


@pytest.mark.parametrize("case", FILLED_CASES, ids=[case[0] for case in FILLED_CASES])
def test_filled_draft_paths_agree(case: tuple[object, ...]) -> None:
    """The draft SGLang fills in from the target: each case asserts SGLang's side of the
    start and that the draft (not the arguments nor the target) decided."""
    theirs, ours, agree = _compare_filled(case)
    starts, stop = case[5], case[6]
    assert (theirs == "starts") is starts, theirs
    assert stop in theirs, theirs
    assert not theirs.startswith(("refused: target", "refused: args")), theirs
    assert agree, f"SGLang: {theirs}\ngraphfit: {ours}"


def test_filled_path_off_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted: no draft path filled in (main's behaviour): every refusing case differs."""
    monkeypatch.setattr(sglang_cli.sglang_draft_quant, "draft_path",
                        lambda values: values.get("speculative_draft_model_path"))
    assert _caught(FILLED_REFUSING, _compare_filled) == [case[0] for case in FILLED_REFUSING]


# the live path (from_sglang / check_server_args on SGLang's resolved ServerArgs): the draft
# flag SGLang resolved and the draft path it filled in
LIVE_CASES = [(case[0], lambda case=case: _line(_quantized(*case[1]), *case[2]), None,
               case[3]) for case in QUANTIZED_CASES[:4]] + [
    (case[0], lambda case=case: ("--speculative-algorithm", "NEXTN", DRAFT, case[3]),
     case, case[4]) for case in FILLED_CASES[:3]]


def _live_pair(case: tuple[object, ...]) -> tuple[str, str]:
    _label, argv_of, filled, gpu = case
    target = None if filled is None else dq.filled_target(*filled[1:3])  # type: ignore[index]
    argv = argv_of()  # type: ignore[operator]
    theirs, _ours, _agree = dq.compare(argv, gpu, target)  # type: ignore[arg-type]
    return theirs, dq.live(argv, gpu, target)  # type: ignore[arg-type]


@pytest.mark.parametrize("case", LIVE_CASES, ids=[case[0] for case in LIVE_CASES])
def test_live_path_agrees(case: tuple[object, ...]) -> None:
    """The live check refuses where SGLang's draft worker stops and starts where it starts."""
    theirs, live = _live_pair(case)
    assert live != "args", case[0]
    assert (theirs == "starts") == (live == "starts"), f"SGLang: {theirs}\nlive: {live}"


def test_live_wiring_off_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted: the live path not reading the draft's quantization (main's behaviour)."""
    from graphfit.inputs import sglang_live

    monkeypatch.setattr(sglang_live.sglang_draft_quant, "settings", lambda values: [])
    caught = [case[0] for case in LIVE_CASES if (lambda pair: (pair[0] == "starts") != (
        pair[1] == "starts"))(_live_pair(case))]
    assert caught == [case[0] for case in LIVE_CASES if _live_pair(case)[0] != "starts"]


@pytest.mark.parametrize(("algorithm", "where"), [
    ("NEXTN", ("Glm4MoeForCausalLM",)), ("EAGLE", ("Glm4MoeForCausalLM",)),
    ("DSPARK", (False, True)), ("DSPARK", (True, False)), ("DSPARK", (True, True)),
])
def test_the_filled_draft_path_is_sglangs(algorithm: str, where: tuple[object, ...]) -> None:
    """graphfit's draft path (graphfit.inputs.sglang_draft_path) is the one SGLang's handlers
    fill in (speculative_hook.py:720-745, 1120-1148), read off SGLang's resolved ServerArgs:
    the target for a NEXTN-shipping class or a bundled DSPARK draft, else its dspark/."""
    target = (dq.filled_target(*where) if len(where) == 1  # type: ignore[arg-type]
              else dq.dspark_target(*where))  # type: ignore[arg-type]
    argv = ("--speculative-algorithm", algorithm, "--max-running-requests", "8")
    pair = dq.filled_path(argv, target)
    assert pair is not None, "SGLang's resolution refused the line"
    theirs, ours = pair
    assert theirs is not None  # SGLang filled one in: the case exercises the rule
    assert ours == theirs
