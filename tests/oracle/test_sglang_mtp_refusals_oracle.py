"""SGLang 0.5.23 refuses some multi-layer EAGLE lines because of the attention backend it
picked ITSELF (a model override or its generic default): trtllm_mha with topk > 1, topk > 1 on
a paged non-tree backend, trtllm_mla with an fp8_e5m2 KV cache, a model hook's backend list.
graphfit used to plan those lines. Here SGLang's own resolve + draft-extend factory +
`_capture_cuda_graphs` (tests/oracle/sglang_mtp_oracle.py) and graphfit's pasted-line plan
must both refuse them, graphfit citing the place of SGLang's own message
(graphfit.planner.engines.sglang_backend_checks, sglang_arch_overrides.line_refusals); a
planted error per rule shows the comparison fails (a rule another one backs up, trtllm_mha's
topk 1 behind the page-tree check, is caught by the reason).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.inputs import sglang_draft_default as dd  # noqa: E402
from graphfit.planner.engines import sglang_arch_overrides as ao  # noqa: E402
from graphfit.planner.engines import sglang_backend_checks as bc  # noqa: E402
from tests.oracle import sglang_mtp_oracle as mo  # noqa: E402
from tests.oracle.test_sglang_mtp_oracle import (  # noqa: E402
    _OVERRIDES,
    _SHAPES,
    SHAPES,
    _graphfit_default,
    _override_line,
    default_verdict,
)

MODELS = {**{s: _SHAPES[s] for s in SHAPES}, **_OVERRIDES}
GPUS = (*mo.CAPABILITIES, *mo.PLATFORMS)
EXTRAS: tuple[tuple[str, ...], ...] = (
    (), ("--page-size", "16"), ("--kv-cache-dtype", "fp8_e5m2"),
    ("--kv-cache-dtype", "fp8_e4m3"), ("--decode-attention-backend", "flashinfer"),
    ("--prefill-attention-backend", "triton"), ("--speculative-attention-mode", "decode"))

# one line per rule: (gpu, model shape, topk, what the line adds, the verdict)
EDGES: dict[str, tuple[str, str, int, tuple[str, ...], str]] = {
    "trtllm_mha topk, override": ("H100", "BeamForCausalLM", 2, (), "refused"),
    "trtllm_mha topk, Olmo2 default": ("B200", "olmo2", 2, (), "refused"),
    "page tree, override page 128": ("B200", "MiniMaxM3SparseForCausalLM", 2, (), "refused"),
    "page tree, aiter on ROCm": ("MI300X", "llama", 2, ("--page-size", "16"), "refused"),
    "page tree, QSA page 64": ("MI300X", "qwen4_exp_qsa", 2, (), "refused"),
    "trtllm_mla KV dtype, override": ("B200", "KimiK3ForConditionalGeneration", 1,
                                      ("--kv-cache-dtype", "fp8_e5m2"), "refused"),
    "trtllm_mla KV dtype, DeepSeek": ("B200", "mla", 1, ("--kv-cache-dtype", "fp8_e5m2"),
                                      "refused"),
    "trtllm_mha prefill off Hopper": ("A100", "llama", 1, (
        "--speculative-attention-mode", "decode", "--prefill-attention-backend",
        "trtllm_mha"), "refused"),
    "FMHAv2 fp8_e4m3 on SM120": ("RTX5090", "BeamForCausalLM", 1,
                                 ("--kv-cache-dtype", "fp8_e4m3"), "refused"),
    "model hook, Gemma 4": ("A100", "Gemma4ForCausalLM", 1,
                            ("--decode-attention-backend", "flashinfer"), "refused"),
    "model hook, GPT-OSS": ("H100", "GptOssForCausalLM", 1,
                            ("--decode-attention-backend", "flashinfer"), "refused"),
    "line: GPT-OSS": ("B200", "GptOssForCausalLM", 1,
                      ("--prefill-attention-backend", "triton"), "refused"),
    "line: IQuest-Q1": ("H100", "IQuestQ1ForCausalLM", 1,
                        ("--prefill-attention-backend", "fa3"), "refused"),
    "line: Moss-VL": ("H100", "MossVLForConditionalGeneration", 1,
                      ("--prefill-attention-backend", "triton"), "refused"),
    "DeepSeek trtllm_mla only with no flag": ("B200", "mla", 1, (
        "--decode-attention-backend", "flashinfer"), "agree"),
}


# SGLang's words -> the place graphfit's refusal must cite for them (the same reason)
REASONS = {
    "trtllm_mha backend only supports topk = 1": "speculative_hook.py:1176-1180",
    "is only supported on ('flashinfer', 'fa3', 'triton')": "speculative_hook.py:1267-1282",
    "TensorRT-LLM MLA backend only supports kv-cache-dtype": "overrides.py:1214-1217",
    "TRTLLM MHA backend for prefill requires": "attention_hook.py:199-206",
    "TRTLLM FMHAv2 prefill on SM120": "attention_hook.py:207-221",
    "Gemma4 only supports": "model_hook.py:636-660",
    "GptOssForCausalLM requires one of": "model_hook.py:515-543",
    "IQuest": "iquest_q1.py",
    "MossVLForConditionalGeneration requires flashinfer": "moss_vl.py",
}


def _verdict(name: str) -> str:
    gpu, shape, topk, extra, _ = EDGES[name]
    return default_verdict(_override_line(topk, extra), gpu, MODELS[shape], None)


def _same_reason(name: str) -> bool:
    """Both refuse, and graphfit's error cites the SGLang place whose words SGLang gave."""
    gpu, shape, topk, extra, _ = EDGES[name]
    argv, model = _override_line(topk, extra), MODELS[shape]
    sglang = mo.default_case(argv, gpu, model, None)
    ours = _graphfit_default(argv, gpu, model, None)
    if not (isinstance(sglang, str) and isinstance(ours, str)):
        return False
    sites = [site for words, site in REASONS.items() if words in sglang]
    return len(sites) == 1 and sites[0] in ours


@pytest.mark.parametrize("name", sorted(EDGES))
def test_sglang_picks_refused_like_sglang(name: str) -> None:
    """Each rule's line: SGLang refuses it, and so does graphfit with SGLang's reason (or,
    for the DeepSeek flag rule, both pick flashinfer)."""
    assert _verdict(name).split(":", 1)[0] == EDGES[name][4], _verdict(name)
    if EDGES[name][4] == "refused":
        assert _same_reason(name), name


def _no_rule(monkeypatch: pytest.MonkeyPatch, module: Any, name: str, value: Any) -> None:
    monkeypatch.setattr(module, name, value)


def _deepseek_always(monkeypatch: pytest.MonkeyPatch) -> None:
    original = dd.default_attention_backend
    monkeypatch.setattr(dd, "default_attention_backend",
                        lambda inp: original(replace(inp, all_unset=True)))


ANY = ("flashinfer", "fa3", "triton", "fa4", "aiter", "trtllm_mla", "dsv4", None)
# (rule, the edge it breaks, the planted error)
PLANTED: tuple[tuple[str, str, Callable[[pytest.MonkeyPatch], None]], ...] = (
    ("trtllm_mha topk", "trtllm_mha topk, override",
     lambda m: _no_rule(m, bc, "TOPK_ONE_BACKENDS", ())),
    ("trtllm_mha topk", "trtllm_mha topk, Olmo2 default",
     lambda m: _no_rule(m, bc, "TOPK_ONE_BACKENDS", ())),
    ("page tree", "page tree, override page 128",
     lambda m: _no_rule(m, bc, "PAGE_TREE_BACKENDS", ANY)),
    ("page tree", "page tree, aiter on ROCm",
     lambda m: _no_rule(m, bc, "PAGE_TREE_BACKENDS", ANY)),
    ("override page sizes", "page tree, QSA page 64",
     lambda m: _no_rule(m, ao, "override_page", lambda inp, base: inp.default.page_size)),
    ("MLA KV dtypes", "trtllm_mla KV dtype, override",
     lambda m: _no_rule(m, bc, "MLA_KV_DTYPES", frozenset(
         {*bc.MLA_KV_DTYPES, "fp8_e5m2"}))),
    ("MLA KV dtypes", "trtllm_mla KV dtype, DeepSeek",
     lambda m: _no_rule(m, bc, "MLA_KV_DTYPES", frozenset(
         {*bc.MLA_KV_DTYPES, "fp8_e5m2"}))),
    ("trtllm_mha GPUs", "trtllm_mha prefill off Hopper",
     lambda m: _no_rule(m, bc, "TRTLLM_MHA_GPUS", frozenset(
         {*bc.TRTLLM_MHA_GPUS, "ampere"}))),
    ("FMHAv2 fp8", "FMHAv2 fp8_e4m3 on SM120",
     lambda m: _no_rule(m, bc, "FP8_E4M3_PREFILL_REFUSED", frozenset())),
    ("Gemma 4 list", "model hook, Gemma 4",
     lambda m: _no_rule(m, bc, "GEMMA4_BACKENDS", (*bc.GEMMA4_BACKENDS, "flashinfer"))),
    ("GPT-OSS list", "model hook, GPT-OSS",
     lambda m: _no_rule(m, bc, "GPT_OSS_BACKENDS", ANY)),
    ("line checks", "line: GPT-OSS",
     lambda m: _no_rule(m, dd, "_line_refusals", lambda *a, **k: None)),
    ("line checks", "line: IQuest-Q1",
     lambda m: _no_rule(m, dd, "_line_refusals", lambda *a, **k: None)),
    ("line checks", "line: Moss-VL",
     lambda m: _no_rule(m, dd, "_line_refusals", lambda *a, **k: None)),
    ("DeepSeek flag test", "DeepSeek trtllm_mla only with no flag", _deepseek_always),
)


@pytest.mark.parametrize(("rule", "edge", "plant"), PLANTED,
                         ids=[f"{r}: {e}" for r, e, _ in PLANTED])
def test_planted_error_is_caught(rule: str, edge: str,
                                 plant: Callable[[pytest.MonkeyPatch], None],
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Each rule planted away (graphfit then plans what SGLang refuses, or picks another
    backend): the comparison no longer agrees."""
    plant(monkeypatch)
    caught = _verdict(edge).startswith(("skip", "differ")) or (
        EDGES[edge][4] == "refused" and not _same_reason(edge))
    assert caught, (rule, _verdict(edge))


LINE_EDGES = ("line: GPT-OSS", "line: IQuest-Q1", "line: Moss-VL")


@pytest.mark.parametrize("plant", [False, True])
@pytest.mark.parametrize("name", LINE_EDGES)
def test_line_refusals_need_no_gpu(name: str, plant: bool,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The line-level refusals hold on every GPU (SGLang refuses the edge on its GPU:
    `test_sglang_picks_refused_like_sglang`), so graphfit refuses the line with the GPU
    given in GiB too (no generation known); planted away (`line_refusals` a no-op), it
    plans the line, which the test catches."""
    _, shape, topk, extra, _ = EDGES[name]
    if plant:
        monkeypatch.setattr(dd, "line_refusals", lambda *a, **k: None)
    ours = _graphfit_default(_override_line(topk, extra), "80", MODELS[shape], None)
    assert isinstance(ours, str) != plant, ours


# the fake ROCm platform reaches only what goes through `get_platform()`: Qwen3-VL's
# multimodal transport check still sees CUDA probes there (test_rocm_grid leaves it out too)
PAIRS = [(gpu, shape) for gpu in GPUS for shape in sorted(MODELS)
         if not (shape == "vl" and gpu in mo.PLATFORMS)]


@settings(max_examples=25)
@given(st.sampled_from(PAIRS), st.sampled_from((1, 2)),
       st.lists(st.sampled_from(EXTRAS), max_size=2, unique=True))
def test_generated_lines_never_planned_where_sglang_refuses(
        pair: tuple[str, str], topk: int, extras: list[tuple[str, ...]]) -> None:
    """Generated lines (every model shape, 6 GPUs, topk 1 / 2, page size, KV dtype, split
    flags, attention mode): never a line SGLang refuses and graphfit plans, never a
    different backend or count."""
    gpu, shape = pair
    argv = _override_line(topk, tuple(x for extra in extras for x in extra))
    verdict = default_verdict(argv, gpu, MODELS[shape], None)
    assert not verdict.startswith(("differ", "skip")), (gpu, shape, argv, verdict)


QSA_LINES = ((), ("--attention-backend", "fa3"), ("--prefill-attention-backend", "triton"))


@pytest.mark.parametrize("extra", QSA_LINES)
@pytest.mark.parametrize("gpu", ["A100", "H100", "B200", "RTX5090", "MI300X"])
def test_qwen4_exp_qsa_counts_per_step_like_sglang(gpu: str, extra: tuple[str, ...]) -> None:
    """A compressed-QSA Qwen4-Exp: SGLang's factory builds its QwenSparseAttnBackend for the
    draft-extend steps whatever the line names (given the model's QSA profile as the worker
    does) and captures one graph per step; graphfit names no backend and counts per step, the
    same count (a line's fa3 used to give one graph: fewer than SGLang captures)."""
    argv = _override_line(1, extra)
    sglang = mo.default_case(argv, gpu, MODELS["qwen4_exp_qsa"], None)
    assert not isinstance(sglang, str) and sglang[:2] == (3, "qsa"), sglang
    assert _graphfit_default(argv, gpu, MODELS["qwen4_exp_qsa"], None) == (3, None)


def test_qwen4_exp_qsa_planted_error_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted: the line's backend kept on a QSA model (`_qsa_model` always False): a line's
    fa3 counts one graph where SGLang captures one per step."""
    monkeypatch.setattr(dd, "_qsa_model", lambda line: False)
    argv = _override_line(1, ("--attention-backend", "fa3"))
    verdict = default_verdict(argv, "H100", MODELS["qwen4_exp_qsa"], None)
    assert verdict.startswith("differ"), verdict
