"""The class a quantized checkpoint's MoE backend builds without ConfigurableMoE, in the
one-sided all-to-all workspace line, against the restated engine (issue 23, s68t;
tests/oracle/trtllm_reference.py):

* `get_moe_cls` tests the quant config's modes (`ref.cite_fact("moe_legacy_cls")`): TRTLLM
  builds TRTLLMGenFusedMoE for NVFP4, the MXFP4 algorithms and W4A8_NVFP4_FP8 (bare, it
  selects and sizes as CutlassFusedMoE, `ref.cite_fact("moe_trtllm_gen_select")`, and raises
  on SM 120 and later, `ref.cite_fact("moe_trtllm_gen_sm")`: s69h), CUTEDSL CuteDslFusedMoE
  for NVFP4 (wrapped even here, `ref.cite_fact("moe_legacy_wrap")`), DENSEGEMM
  DenseGEMMFusedMoE for NVFP4 on SM 100 / 103, which builds no all-to-all
  (`ref.cite_fact("moe_densegemm_no_a2a")`); every other case, per-tensor FP8 and W4A8_AWQ
  included, is a bare CutlassFusedMoE that sizes the workspace;
* what algorithm a checkpoint sets: an mxfp4 quant_method one of the MXFP4 algorithms
  (`ref.cite_fact("moe_mxfp4_algo")`), nvfp4 NVFP4, a dynamic fp8 one none
  (`ref.cite_fact("moe_auto_quant_methods")`), llm-compressor NVFP4 / per-channel FP8
  (`ref.cite_fact("moe_auto_compressed_algo")`), a ModelOpt config its quant_algo.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle import trtllm_reference as ref
from tests.oracle.measure_trtllm_moe_auto import (
    COMPRESSED_CHANNEL,
    COMPRESSED_NVFP4,
    QUANTS,
    hf_file,
)
from tests.oracle.test_trtllm_moe_auto_gpu_reference import a2a
from tests.oracle.test_trtllm_moe_auto_reference import _line, _total, checkpoint
from tests.oracle.test_trtllm_moe_config_reference import TOKENS, line

LEGACY = {"ENABLE_CONFIGURABLE_MOE": "0"}
WHY = (ref.cite_fact("moe_legacy_cls"), ref.cite_fact("moe_densegemm_no_a2a"))
WANT = ref.moe_a2a_workspace_size(4, 8, TOKENS, 4096, 2)


def _modelopt(algo: str) -> dict[str, Any]:
    return {"quant_method": "modelopt", "quant_algo": algo}


# (quantization, backend, GPU or None, sized, words the line names)
CASES: list[tuple[Any, str, str | None, bool, str]] = [
    (_modelopt("FP8"), "TRTLLM", None, True, "TRTLLM_FORCE_ALLTOALL_METHOD is unset"),
    ("file-fp8", "CUTEDSL", None, True, "TRTLLM_FORCE_ALLTOALL_METHOD is unset"),
    (_modelopt("W4A8_AWQ"), "TRTLLM", None, True, "aux"),
    ("file-w4a8-awq", "DENSEGEMM", None, True, "aux"),
    (COMPRESSED_CHANNEL, "TRTLLM", None, True, "aux"),  # FP8_PER_CHANNEL_PER_TOKEN
    (_modelopt("NVFP4"), "TRTLLM", None, True, "TRTLLMGenFusedMoE (get_moe_cls's class"),
    (_modelopt("NVFP4"), "CUTEDSL", None, True, "TRTLLM_FORCE_COMM_METHOD is unset"),
    (COMPRESSED_NVFP4, "CUTEDSL", None, True, "TRTLLM_FORCE_COMM_METHOD is unset"),
    ({"quant_method": "nvfp4"}, "DENSEGEMM", None, False, "the GPU is not named"),
    ({"quant_method": "nvfp4"}, "DENSEGEMM", "B200", False, "NotEnabled"),
    ({"quant_method": "nvfp4"}, "DENSEGEMM", "GB300", False, "NotEnabled"),
    ({"quant_method": "nvfp4"}, "DENSEGEMM", "H100", True, "aux"),
    ({"quant_method": "nvfp4"}, "DENSEGEMM", "RTX5090", True, "aux"),
    ({"quant_method": "mxfp4"}, "TRTLLM", None, True, "on SM 120 and later"),
    ({"quant_method": "mxfp4"}, "CUTEDSL", None, True, "TRTLLM_FORCE_ALLTOALL_METHOD is unset"),
    ({"quant_method": "mxfp4"}, "DENSEGEMM", "B200", True, "aux"),
    (_modelopt("W4A16_MXFP4"), "CUTEDSL", None, True, "aux"),
    (_modelopt("W4A8_NVFP4_FP8"), "TRTLLM", None, True, "TRTLLM_FORCE_ALLTOALL_METHOD is unset"),
    # s69h: a bare TRTLLMGenFusedMoE selects as CutlassFusedMoE does, and raises on SM 120+
    (_modelopt("NVFP4"), "TRTLLM", "B200", True, "TRTLLM_FORCE_ALLTOALL_METHOD is unset"),
    (_modelopt("FP8_BLOCK_SCALES"), "TRTLLM", "H100", True, "aux"),
    (_modelopt("NVFP4"), "TRTLLM", "RTX5090", False, "NotImplementedError"),
    ({"quant_method": "mxfp4"}, "TRTLLM", "RTX5090", False, "SM120 and above"),
    (_modelopt("W4A8_NVFP4_FP8"), "CUTEDSL", None, True,  # no NVFP4 flag: bare Cutlass
     "TRTLLM_FORCE_ALLTOALL_METHOD is unset"),
    (_modelopt("MXFP8"), "TRTLLM", None, False, "not modelled"),
    ("file-mixed", "CUTEDSL", None, False, "not modelled"),  # per-layer configs
    (_modelopt("NOT_AN_ALGO"), "TRTLLM", None, False, "not modelled"),  # ValueError
]


def _got(folder: Path, quant: Any, backend: str, gpu: str | None
         ) -> tuple[dict[str, Any], str]:
    if gpu is None:
        data, got = _line(folder, "MixtralForCausalLM", quant, backend, LEGACY)
        return data, str(got)
    return a2a(folder, "MixtralForCausalLM", quant, backend, gpu, LEGACY)


def _sized(backend: str, data: dict[str, Any], quant: Any, gpu: str | None) -> bool:
    if gpu is None:
        return bool(ref.moe_a2a_auto_sized(backend, "0", data, hf_file(quant, ref)))
    return bool(ref.moe_a2a_auto_sized_on(backend, "0", data, hf_file(quant, ref),
                                          ref.GPU_SM[gpu]))


def test_fixed_cases(tmp_path: Path) -> None:
    """Each case's line against the reference and its expected words."""
    for quant, backend, gpu, sized, words in CASES:
        data, got = _got(tmp_path, quant, backend, gpu)
        assert _sized(backend, data, quant, gpu) is sized, (quant, backend, gpu, WHY)
        assert words in got, (quant, backend, gpu, got, WHY)
        assert (_total(got) == WANT) if sized else (_total(got) is None), (quant, gpu, got)


@settings(max_examples=25, deadline=None)
@given(quant=st.sampled_from(QUANTS), backend=st.sampled_from(["TRTLLM", "CUTEDSL",
                                                               "DENSEGEMM", "CUTLASS"]),
       gpu=st.sampled_from([None, "H100", "B200", "GB300", "RTX5090", "A100"]))
def test_drawn_lines_are_the_engines(tmp_path_factory: Any, quant: Any, backend: str,
                                     gpu: str | None) -> None:
    """The exact total where the restated class builds the restated workspace, else no
    bytes."""
    data, got = _got(Path(tmp_path_factory.mktemp("legacy")), quant, backend, gpu)
    if _sized(backend, data, quant, gpu):
        assert _total(got) == WANT, (quant, backend, gpu, got, WHY)
    else:
        assert _total(got) is None, (quant, backend, gpu, got, WHY)


def test_every_algorithm_builds_the_engines_class() -> None:
    """graphfit's class (graphfit.planner.engines.trtllm_moe_cls, over the quantization its
    ModelOpt reader gives each QuantAlgo) is the reference's `get_moe_cls` answer for every
    backend, algorithm and GPU; None where the reference does not model it."""
    from graphfit.inputs.trtllm_a2a import modelopt_quantization
    from graphfit.planner.engines.trtllm_moe_cls import moe_class

    for algo in [*sorted(ref.QUANT_ALGOS), None]:
        quant = "none" if algo is None else modelopt_quantization(
            {"quant_method": "modelopt", "quant_algo": algo})
        assert quant is not None, algo
        for backend in ("TRTLLM", "CUTEDSL", "DENSEGEMM", "CUTLASS"):
            for sm in (None, 80, 90, 100, 103, 120):
                try:
                    want: str | None = ref.moe_get_cls(backend, algo, "MixtralForCausalLM", sm)
                except ref.NotModelled:
                    want = None
                assert moe_class(backend, quant, sm) == want, (algo, backend, sm, WHY)


# a float32 checkpoint (s68t): (quantization, backend, ENABLE_CONFIGURABLE_MOE, the class it
# builds, its quant algorithm for the reference)
FLOAT32_CASES: list[tuple[Any, str | None, str | None, str, str | None]] = [
    (None, None, None, "CutlassFusedMoE", None),
    (None, "TRTLLM", "0", "CutlassFusedMoE", None),
    (_modelopt("NVFP4"), "TRTLLM", None, "TRTLLMGenFusedMoE", "NVFP4"),  # wrapped, sized
    (COMPRESSED_NVFP4, "CUTEDSL", "0", "CuteDslFusedMoE", "NVFP4"),
    (_modelopt("FP8"), "TRTLLM", "0", "CutlassFusedMoE", "FP8"),  # quantized runner: not read
    (None, "DEEPGEMM", None, "DeepGemmFusedMoE", None),
]


def test_float32_names_the_class_it_builds(tmp_path: Path) -> None:
    """A float32 line keeps its four-byte total and names what the class it builds does with
    float32 tokens where the reference restates it (`ref.moe_float32_fails`:
    `ref.cite_fact("moe_cutlass_dtypes")`, `ref.cite_fact("moe_trtllm_gen_bf16")`), else says
    it was not read."""
    import json

    want = ref.moe_a2a_workspace_size(4, 8, TOKENS, 4096, 4)
    for quant, backend, configurable, cls, algo in FLOAT32_CASES:
        environ = {} if configurable is None else {"ENABLE_CONFIGURABLE_MOE": configurable}
        data = checkpoint(tmp_path, "MixtralForCausalLM", quant)
        (tmp_path / "ckpt" / "config.json").write_text(
            json.dumps({**data, "torch_dtype": "float32"}))
        got = str(line(tmp_path, str(tmp_path / "ckpt"), 4, True,
                       None if backend is None else {"backend": backend}, environ))
        assert _total(got) == want, (quant, backend, got)
        assert ref.moe_get_cls(backend or "CUTLASS", algo, "MixtralForCausalLM") == cls
        try:
            known = ref.moe_float32_fails(cls, algo)
        except ref.NotModelled:
            assert f"whether {cls} runs float32 activations was not read" in got, got
        else:
            assert known and cls in got and "first run" in got, (quant, backend, got)


def test_wideep_builds_no_one_sided_workspace(tmp_path: Path) -> None:
    """WIDEEP builds WideEPMoE, bare on both routes, whose own methods are MNNVL (two-sided),
    DeepEP or none (`ref.cite_fact("moe_wideep_methods")`, `ref.cite_fact("moe_wideep_select")`):
    the line names it and gives no bytes, as the reference says."""
    assert not ref.moe_wideep_one_sided()
    for environ in ({}, LEGACY, {"ENABLE_CONFIGURABLE_MOE": "1"}):
        for quant in (None, _modelopt("NVFP4")):
            data, got = _line(tmp_path, "MixtralForCausalLM", quant, "WIDEEP", environ)
            assert not ref.moe_a2a_auto_sized("WIDEEP", environ.get("ENABLE_CONFIGURABLE_MOE"),
                                              data, hf_file(quant, ref))
            assert got is not None and "WideEPMoE" in got and "never" in got, got
            assert _total(got) is None, got


# the words a line names for each reason the reference gives (`ref.moe_legacy_unread`, s68k)
UNREAD_WORDS = {"table": "in no QuantMode table stored at a commit",
                "override": "MIXED_PRECISION (the experts take the layer's override_quant_config",
                "asserts": "INT8 (from_quant_algo asserts)",
                "name": "a name QuantAlgo lacks (ValueError)"}


def test_unread_algorithms_say_why(tmp_path: Path) -> None:
    """Where the reference's `get_moe_cls` is NotModelled for an algorithm (W4A16_NVFP4,
    MXFP8, MIXED_PRECISION, INT8, a name QuantAlgo lacks), the legacy line gives no bytes and
    names why (`ref.moe_legacy_unread`), for a named backend and for AUTO (issue 23, s68k)."""
    algos = [*sorted(a for a in ref.QUANT_ALGOS if a not in ref._LEGACY_MODES), "NOT_AN_ALGO"]
    assert {ref.moe_legacy_unread(algo) for algo in algos} == set(UNREAD_WORDS)
    for algo in algos:
        words = UNREAD_WORDS[ref.moe_legacy_unread(algo)]
        for backend in ("TRTLLM", "CUTEDSL", "DENSEGEMM"):
            for sm in (None, 100):
                try:
                    ref.moe_get_cls(backend, algo, "MixtralForCausalLM", sm)
                except ref.NotModelled:
                    pass
                else:
                    raise AssertionError((algo, backend, sm, WHY))
            data, got = _got(tmp_path, _modelopt(algo), backend, None)
            assert not _sized(backend, data, _modelopt(algo), None), (algo, backend)
            assert "which class get_moe_cls builds is not read" in got, (algo, got)
            assert words in got and _total(got) is None, (algo, backend, got)
    data, got = _got(tmp_path, _modelopt("W4A16_NVFP4"), "AUTO", None)
    assert not _sized("AUTO", data, _modelopt("W4A16_NVFP4"), None)
    assert UNREAD_WORDS["table"] in got and _total(got) is None, got


# what the line names for each outcome of the forced method (s69h)
FORCED_WORDS = {"NotEnabled": "no all-to-all is built", "NVLinkTwoSided": "two-sided",
                KeyError: "KeyError", NotImplementedError: "NotImplementedError"}


def test_trtllm_gen_reads_the_forced_method(tmp_path: Path) -> None:
    """A bare TRTLLMGenFusedMoE (TRTLLM over NVFP4 without ConfigurableMoE) reads
    TRTLLM_FORCE_ALLTOALL_METHOD as the reference's `moe_trtllm_gen_forced_method` does
    (`ref.cite_fact("moe_trtllm_gen_select")`): the one-sided method keeps the workspace,
    another method or an error gives no bytes and names it (issue 23, s69h)."""
    for value in (*ref.ALLTOALL_METHOD_TYPES, "nvlinkonesided", ""):
        _, got = _line(tmp_path, "MixtralForCausalLM", _modelopt("NVFP4"), "TRTLLM",
                       {**LEGACY, "TRTLLM_FORCE_ALLTOALL_METHOD": value})
        try:
            method = ref.moe_trtllm_gen_forced_method(value)
        except (KeyError, NotImplementedError) as error:
            words = FORCED_WORDS[type(error)]
        else:
            words = "" if method == "NVLinkOneSided" else FORCED_WORDS[method]
        if words:
            assert words in str(got) and _total(got or "") is None, (value, got)
        else:
            assert _total(got or "") == WANT and "TRTLLMGenFusedMoE" in str(got), (value, got)


def test_trtllm_gen_raises_on_sm_120(tmp_path: Path) -> None:
    """On a named GPU of SM 120 or later TRTLLMGenFusedMoE's constructor raises
    (`ref.cite_fact("moe_trtllm_gen_sm")`), on both routes: the line gives no bytes and names
    the raise; below SM 120 the bare class is sized (issue 23, s69h)."""
    for gpu in ("RTX5090", "B200", "H100"):
        raises = ref.moe_trtllm_gen_raises(ref.GPU_SM[gpu])
        for environ in ({}, LEGACY):
            data, got = a2a(tmp_path, "MixtralForCausalLM", _modelopt("NVFP4"), "TRTLLM", gpu,
                            environ)
            sized = ref.moe_a2a_auto_sized_on("TRTLLM", environ.get("ENABLE_CONFIGURABLE_MOE"),
                                              data, None, ref.GPU_SM[gpu])
            assert sized is not raises, (gpu, environ)
            assert ("SM120 and above" in got) is raises, (gpu, environ, got)
            assert (_total(got) is None) if raises else (_total(got) == WANT), (gpu, got)


def test_wideep_selects_on_the_line(tmp_path: Path) -> None:
    """WideEPMoE's own selection on the line (`ref.cite_fact("moe_wideep_select")`, issue 23,
    s69h): a forced method in its own enum first (KeyError for another name, NVLinkOneSided
    included), then NotEnabled where the MoE EP size is at most top-k; otherwise the hardware
    decides and the line names the three outcomes. Never the one-sided workspace."""
    cases: list[tuple[str | None, int]] = [
        (None, 2), (None, 8), (None, 16), *[(value, 16) for value in (
            *ref.WIDEEP_METHODS, "NVLinkOneSided", "deepep", "")]]
    seen: set[str] = set()
    for forced, tp in cases:
        environ = {} if forced is None else {"TRTLLM_FORCE_ALLTOALL_METHOD": forced}
        for route in ({}, LEGACY):
            data = checkpoint(tmp_path, "MixtralForCausalLM", None)
            got = str(line(tmp_path, str(tmp_path / "ckpt"), tp, True, {"backend": "WIDEEP"},
                           {**route, **environ}))
            assert "WideEPMoE" in got and "never this one-sided" in got and _total(got) is None
            try:
                method = ref.moe_wideep_method(forced, True, tp, tp, data["num_experts_per_tok"])
            except KeyError:
                assert "KeyError" in got, (forced, got)
                continue
            seen.add(method)
            if method == "MNNVL|NotEnabled":  # s69o: no DeepEP without the switch
                assert "where MNNVL is supported, else NotEnabled" in got, (forced, tp, got)
            elif forced is None:
                assert "NotEnabled" in got, (tp, got)
            else:
                assert f"selects {method}" in got, (forced, got)
    assert seen == {"MNNVL|NotEnabled", *ref.WIDEEP_METHODS}, seen


# TRTLLM_MOE_DISABLE_ALLTOALLV / TRTLLM_CAN_USE_DEEP_EP values: unset, the one value each acts
# on, and spellings os.environ.get(name, "0") == "1" does not take (s69o)
SWITCHES = (None, "1", "0", "", " 1", "true")
WIDEEP_OUTCOMES = {  # what the line names for each outcome of ref.moe_wideep_method
    "NotEnabled": "so its method is NotEnabled",
    "MNNVL|NotEnabled": "where MNNVL is supported, else NotEnabled",
    "MNNVL|DeepEP": "where MNNVL is supported, else DeepEP"}


@settings(max_examples=24, deadline=None)
@given(disable=st.sampled_from(SWITCHES), deep_ep=st.sampled_from(SWITCHES),
       tp=st.sampled_from([4, 16]), legacy_route=st.booleans())
def test_wideep_switches_name_one_outcome(tmp_path_factory: Any, disable: str | None,
                                          deep_ep: str | None, tp: int,
                                          legacy_route: bool) -> None:
    """Unforced, WideEPMoE's method is NotEnabled under TRTLLM_MOE_DISABLE_ALLTOALLV "1" (before
    its top-k test) or at EP <= top-k; above top-k MNNVL where supported, else DeepEP with
    TRTLLM_CAN_USE_DEEP_EP "1" or NotEnabled (`ref.cite_fact("moe_wideep_select")`, s69o): the
    line names that one outcome and no other."""
    folder = tmp_path_factory.mktemp("wideep")
    data = checkpoint(folder, "MixtralForCausalLM", None)
    environ = {name: value for name, value in (("TRTLLM_MOE_DISABLE_ALLTOALLV", disable),
                                               ("TRTLLM_CAN_USE_DEEP_EP", deep_ep))
               if value is not None}
    got = str(line(folder, str(folder / "ckpt"), tp, True, {"backend": "WIDEEP"},
                   {**(LEGACY if legacy_route else {}), **environ}))
    method = ref.moe_wideep_method(None, True, tp, tp, data["num_experts_per_tok"], disable,
                                   deep_ep)
    assert WIDEEP_OUTCOMES[method] in got, (disable, deep_ep, tp, got)
    assert [words for words in WIDEEP_OUTCOMES.values() if words in got] == [
        WIDEEP_OUTCOMES[method]], (disable, deep_ep, tp, got)
    assert "never this one-sided" in got and _total(got) is None


def test_wideep_switches_fixed_lines(tmp_path: Path) -> None:
    """Fixed lines of the switches (s69o): DISABLE "1" wins over EP above top-k, a forced method
    wins over both, and only the exact "1" turns either on."""
    data = checkpoint(tmp_path, "MixtralForCausalLM", None)
    top_k = data["num_experts_per_tok"]
    cases: list[tuple[dict[str, str], int, str]] = [
        ({"TRTLLM_MOE_DISABLE_ALLTOALLV": "1", "TRTLLM_CAN_USE_DEEP_EP": "1"}, 16, "NotEnabled"),
        ({"TRTLLM_MOE_DISABLE_ALLTOALLV": "true"}, 16, "MNNVL|NotEnabled"),
        ({"TRTLLM_CAN_USE_DEEP_EP": "1"}, 16, "MNNVL|DeepEP"),
        ({"TRTLLM_CAN_USE_DEEP_EP": "1"}, 8, "NotEnabled"),  # EP 8 <= top-k 8
        ({"TRTLLM_CAN_USE_DEEP_EP": "yes"}, 16, "MNNVL|NotEnabled"),
        ({"TRTLLM_MOE_DISABLE_ALLTOALLV": "1", "TRTLLM_FORCE_ALLTOALL_METHOD": "DeepEP"}, 16,
         "DeepEP"),
    ]
    for environ, tp, want in cases:
        got = str(line(tmp_path, str(tmp_path / "ckpt"), tp, True, {"backend": "WIDEEP"},
                       environ))
        method = ref.moe_wideep_method(environ.get("TRTLLM_FORCE_ALLTOALL_METHOD"), True, tp,
                                       tp, top_k, environ.get("TRTLLM_MOE_DISABLE_ALLTOALLV"),
                                       environ.get("TRTLLM_CAN_USE_DEEP_EP"))
        assert method == want, (environ, tp, method)
        words = (f"selects {method}" if "TRTLLM_FORCE_ALLTOALL_METHOD" in environ
                 else WIDEEP_OUTCOMES[method])
        assert words in got, (environ, tp, got)
