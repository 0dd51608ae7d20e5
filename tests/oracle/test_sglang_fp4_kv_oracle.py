"""(s37a) An FP4 KV cache's backend rules in SGLang 0.5.23, differentially against its own
argument pipeline on CPU (tests/oracle/sglang_oracle.py) for the same pasted line:

* `handle_nvfp4_prefill_kv_dequant_dtype` (arg_groups/kv_cache_hook.py:34-99) reads the
  backend a MODEL OVERRIDE or deterministic inference named before it (pipeline.py:225-241):
  the DeepSeek V3 family's SM100 trtllm_mla (model_overrides/deepseek_v2.py:176-187), Olmo2's
  fa3 (olmo2.py:24-30), IQuest-Q1's fa3 (iquest_q1.py:41-48), deterministic inference's pick
  (overrides.py:1092-1115) are refused (:47-56);
* `--prefill-kv-cache-dequant-dtype` (read by that hook alone) picks the prefill workspace,
  is refused without nvfp4 (:39-45) and native off SM100 (:59-63);
* `handle_kv4_compatibility` (:112-318): an MLA model's native pair (base trtllm_mha) is
  refused by the KV4 MLA list (:266-316) while SM120's mixed pair plans; the SM100 native
  pair's algorithm and draft-backend rules (:165-230); fp4_mx_block16's lists and its
  refusal off CUDA (:317-318);
* the EAGLE family's trtllm_mha topk rule (speculative_hook.py:1176-1180) on the pair the
  nvfp4 hook rewrote.

* (s39a) the KV4 FA4 lists (:276-295), which only fp4_mx_block16 reaches, on MHA and MLA
  models; SM100's mixed pair rewriting `--speculative-attention-mode` to decode (:232-249),
  which leaves multi-layer EAGLE's draft-extend backend and graph count as they were.

Graphfit must give SGLang's verdict and cite SGLang's place; each rule planted away is caught.
The whole grid: `python -m tests.oracle.measure_sglang_backend_checks --nvfp4`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.inputs import sglang_draft_default as dd  # noqa: E402
from graphfit.planner.engines import sglang_backend_checks as bc  # noqa: E402
from tests.oracle import measure_sglang_backend_checks as m  # noqa: E402
from tests.oracle.test_sglang_mtp_refusals_oracle import MODELS  # noqa: E402

ALL = {**MODELS, **m.mla_v2()}
NONE, EAGLE1, EAGLE2, NEXTN2, EAGLE_AUTO = m.SPEC
(DFLASH,), (FROZEN,), (UNO,) = (m.other_spec(a) for a in ("DFLASH", "FROZEN_KV_MTP", "UNO"))
NVFP4, DEQUANT = m.NVFP4, m.DEQUANT
FP4MX = ("--kv-cache-dtype", "fp4_mx_block16")
DRAFT = "--speculative-draft-attention-backend"
HOOK = "kv_cache_hook.py"
FA4, FA4_PRE = ("--attention-backend", "fa4"), ("--prefill-attention-backend", "fa4")
DECODE = "--decode-attention-backend"

# SGLang's words -> the place graphfit must cite
REASONS = {
    "applies only with --kv-cache-dtype=nvfp4": f"{HOOK}:39-45",
    "provides neither": f"{HOOK}:47-56",
    "Native NVFP4 prefill currently requires SM100": f"{HOOK}:59-63",
    "requires prefill backend": f"{HOOK}:65-76",
    "NVFP4 decode requires": f"{HOOK}:78-84",
    "requires Blackwell SM100 or SM120": f"{HOOK}:124-131",
    "does not yet support DFLASH": f"{HOOK}:165-175",
    "does not yet support DSPARK": f"{HOOK}:165-175",
    "does not yet support --enable-unified-memory": f"{HOOK}:132-137",
    "does not yet support PD": f"{HOOK}:251-256",
    "hierarchical KV cache or LMCache": f"{HOOK}:257-263",
    "breadth-1 NGRAM; got": f"{HOOK}:176-188",
    "--speculative-ngram-max-bfs-breadth=1": f"{HOOK}:189-203",
    "--speculative-draft-attention-backend=trtllm_mha": f"{HOOK}:225-230",
    "KV4 MLA expects": f"{HOOK}:266-316",
    "KV4 MHA expects": f"{HOOK}:266-316",
    "KV4 FA4": f"{HOOK}:266-316",
    "not tested on non-CUDA": f"{HOOK}:317-318",
    "trtllm_mha backend only supports topk = 1": "speculative_hook.py:1176-1180",
    "TensorRT-LLM MLA backend only supports kv-cache-dtype": "overrides.py:1214-1217",
}

# one line per rule: (gpu, model shape, the line, SGLang's verdict graphfit must share)
EDGES: dict[str, tuple[str, str, tuple[str, ...], str]] = {
    "DeepSeek V3 SM100 override trtllm_mla": ("B200", "mla", NVFP4, "refused"),
    "DeepSeek V3 on SM120 plans (mixed pair)": ("RTX5090", "mla", NVFP4, "plan"),
    "MLA native pair, DeepSeek V2": ("B200", "mla_v2", NVFP4, "refused"),
    "MLA native pair, EAGLE": ("B200", "mla_v2", (*EAGLE1, *NVFP4), "refused"),
    "MLA mixed pair on SM120 plans": ("RTX5090", "mla_v2", NVFP4, "plan"),
    "MLA flashinfer base on SM100 plans": ("B200", "mla_v2", (
        *NVFP4, "--attention-backend", "flashinfer"), "plan"),
    "MLA native dequant on SM100": ("B200", "mla", (*NVFP4, DEQUANT, "nvfp4"), "refused"),
    "DeepSeek V3 fp8 workspace keeps trtllm_mla": ("B200", "mla", (
        *NVFP4, DEQUANT, "fp8_e4m3"), "refused"),
    "Olmo2 fa3 on SM120": ("RTX5090", "olmo2", NVFP4, "refused"),
    "deterministic triton on SM120 (DeepSeek-shaped)": ("RTX5090", "mla", (
        *NVFP4, "--enable-deterministic-inference"), "refused"),
    "IQuest-Q1 fa3": ("B200", "IQuestQ1ForCausalLM", NVFP4, "refused"),
    "dequant without nvfp4": ("B200", "llama", (DEQUANT, "fp8_e4m3"), "refused"),
    "dequant nvfp4 on SM120": ("RTX5090", "llama", (*NVFP4, DEQUANT, "nvfp4"), "refused"),
    "dequant fp8_e4m3 on SM100 plans": ("B200", "llama", (*NVFP4, DEQUANT, "fp8_e4m3"),
                                        "plan"),
    "dequant fp8_e4m3 over a trtllm_mha base plans": ("B200", "llama", (
        *NVFP4, DEQUANT, "fp8_e4m3", "--attention-backend", "trtllm_mha"), "plan"),
    "dequant fp8_e4m3 over a triton base plans": ("B200", "llama", (
        *NVFP4, DEQUANT, "fp8_e4m3", "--attention-backend", "triton"), "plan"),
    "DFLASH on the SM100 native pair": ("B200", "llama", (*DFLASH, *NVFP4), "refused"),
    "DFLASH on SM100's fp8 workspace": ("B200", "llama", (
        *DFLASH, *NVFP4, DEQUANT, "fp8_e4m3"), "refused"),
    "UNO on the SM100 native pair": ("B200", "llama", (*UNO, *NVFP4), "refused"),
    "DFLASH on SM120 plans (mixed pair)": ("RTX5090", "llama", (*DFLASH, *NVFP4), "plan"),
    "EAGLE draft triton on the SM100 native pair": ("B200", "llama", (
        *EAGLE1, *NVFP4, DRAFT, "triton"), "refused"),
    "EAGLE draft triton on SM120 plans": ("RTX5090", "llama", (
        *EAGLE1, *NVFP4, DRAFT, "triton"), "plan"),
    "EAGLE topk 2 on the rewritten pair, SM120": ("RTX5090", "llama", (*EAGLE2, *NVFP4),
                                                  "refused"),
    "EAGLE automatic topk, Llama, SM100": ("B200", "llama", (*EAGLE_AUTO, *NVFP4), "refused"),
    "EAGLE topk 1 on SM100 plans": ("B200", "llama", (*EAGLE1, *NVFP4), "plan"),
    "fp4_mx_block16 on Hopper's fa3": ("H100", "llama", FP4MX, "refused"),
    "fp4_mx_block16 on SM100's trtllm_mha plans": ("B200", "llama", FP4MX, "plan"),
    "fp4_mx_block16 off CUDA": ("MI300X", "llama", FP4MX, "refused"),
    "fp4_mx_block16 on IQuest-Q1's fa3": ("B200", "IQuestQ1ForCausalLM", FP4MX, "refused"),
    "unified memory": ("RTX5090", "llama", (*NVFP4, "--enable-unified-memory"), "refused"),
    "PD disaggregation on the SM100 native pair": ("B200", "llama", (
        *NVFP4, "--disaggregation-mode", "prefill"), "refused"),
    "LMCache on the SM100 native pair": ("B200", "llama", (*NVFP4, "--enable-lmcache"),
                                         "refused"),
    "hierarchical cache on SM120 plans": ("RTX5090", "llama", (
        *NVFP4, "--enable-hierarchical-cache"), "plan"),
    # (s39a) the KV4 FA4 lists (kv_cache_hook.py:276-295): fp4_mx_block16 naming fa4
    "fp4_mx_block16, fa4 for both, MHA": ("B200", "llama", (*FP4MX, *FA4), "refused"),
    "fp4_mx_block16, fa4 for both, MLA": ("B200", "mla_v2", (*FP4MX, *FA4), "refused"),
    "fp4_mx_block16, fa4 prefill + triton, MHA plans": ("B200", "llama", (
        *FP4MX, *FA4_PRE, DECODE, "triton"), "plan"),
    "fp4_mx_block16, fa4 prefill + triton, MLA": ("B200", "mla_v2", (
        *FP4MX, *FA4_PRE, DECODE, "triton"), "refused"),
    "fp4_mx_block16, fa4 prefill + flashinfer, MHA": ("RTX5090", "llama", (
        *FP4MX, *FA4_PRE, DECODE, "flashinfer"), "refused"),
    "fp4_mx_block16, fa4 prefill + flashinfer, MLA plans": ("B200", "mla_v2", (
        *FP4MX, *FA4_PRE, DECODE, "flashinfer"), "plan"),
    "fp4_mx_block16, fa4 prefill over SM100's trtllm_mha": ("B200", "llama", (
        *FP4MX, *FA4_PRE), "refused"),
}


def _line(name: str) -> tuple[str, str, tuple[str, ...]]:
    gpu, shape, spec, _ = EDGES[name]
    return gpu, ALL[shape], ("--max-running-requests", "33", *spec)


def _verdict(name: str) -> str:
    gpu, model, argv = _line(name)
    return m.verdict(argv, gpu, model)


def _same_reason(name: str) -> bool:
    """Both refuse, and graphfit's error cites the place of SGLang's words."""
    gpu, model, argv = _line(name)
    sglang, ours = m._sglang(argv, gpu, model), m._graphfit(argv, gpu, model)
    if sglang is None or ours is None:
        return False
    sites = [site for words, site in REASONS.items() if words in sglang]
    return len(set(sites)) == 1 and sites[0] in ours


@pytest.mark.parametrize("name", sorted(EDGES))
def test_fp4_kv_edges(name: str) -> None:
    """Each rule's line: SGLang's verdict; a refusal cites SGLang's place."""
    assert _verdict(name).split(":", 1)[0] == EDGES[name][3], _verdict(name)
    if EDGES[name][3] == "refused":
        gpu, model, argv = _line(name)
        assert _same_reason(name), (m._sglang(argv, gpu, model), m._graphfit(argv, gpu, model))


def _set(p: pytest.MonkeyPatch, module: Any, name: str, value: Any) -> None:
    p.setattr(module, name, value)


PLANTED: tuple[tuple[str, Callable[[pytest.MonkeyPatch], None]], ...] = (
    # the override's pick no longer seen by the nvfp4 hook (graphfit before s37a)
    ("DeepSeek V3 SM100 override trtllm_mla", lambda p: _set(
        p, dd, "named_before_default", lambda inputs: None)),
    ("Olmo2 fa3 on SM120", lambda p: _set(p, dd, "named_before_default", lambda inputs: None)),
    ("deterministic triton on SM120 (DeepSeek-shaped)", lambda p: _set(
        p, dd, "named_before_default", lambda inputs: None)),
    ("IQuest-Q1 fa3", lambda p: _set(p, dd, "_iquest_nvfp4", lambda *a: None)),
    ("fp4_mx_block16 on IQuest-Q1's fa3", lambda p: _set(p, dd, "FP4_KV", frozenset())),
    # the MLA list widened to trtllm_mha
    ("MLA native pair, DeepSeek V2", lambda p: _set(p, bc, "KV4_LISTS", {
        **bc.KV4_LISTS, (False, True): (*bc.KV4_LISTS[(False, True)], "trtllm_mha")})),
    # the MLA list applied to the mixed pair too
    ("MLA mixed pair on SM120 plans", lambda p: _set(
        p, bc, "_kv4_lists", lambda r, pre, dec: None if not r.mla else (_ for _ in ()).throw(
            bc.ConfigError("planted")))),
    # the dequant flag ignored (taken as auto, graphfit before s37a)
    ("dequant without nvfp4", lambda p: _set(p, bc, "DEQUANT_AUTO", "fp8_e4m3")),
    ("dequant nvfp4 on SM120", lambda p: _set(p, dd, "DEQUANT", "no_such_flag")),
    ("dequant fp8_e4m3 over a triton base plans", lambda p: _set(
        p, dd, "DEQUANT", "no_such_flag")),
    # the algorithm rules off, or DFLASH let through
    ("DFLASH on the SM100 native pair", lambda p: _set(p, bc, "PREFIX_WRITERS", frozenset())),
    ("UNO on the SM100 native pair", lambda p: _set(
        p, bc, "NATIVE_SPEC", frozenset({*bc.NATIVE_SPEC, "UNO"}))),
    ("EAGLE draft triton on the SM100 native pair", lambda p: _set(
        p, bc, "_native_spec", lambda r, native: None)),
    # the topk rule on the line's pair, not the rewritten one
    ("EAGLE topk 2 on the rewritten pair, SM120", lambda p: _set(
        p, bc, "TOPK_ONE_BACKENDS", ())),
    # fp4_mx_block16 outside the KV4 rules
    ("fp4_mx_block16 on Hopper's fa3", lambda p: _set(p, bc, "FP4_KV", frozenset({"nvfp4"}))),
    ("fp4_mx_block16 off CUDA", lambda p: _set(p, bc, "FP4_KV", frozenset({"nvfp4"}))),
    # the pool flags not read from the line
    ("unified memory", lambda p: _set(p, dd, "pool_flags", lambda line: {})),
    ("PD disaggregation on the SM100 native pair", lambda p: _set(
        p, dd, "pool_flags", lambda line: {})),
    ("LMCache on the SM100 native pair", lambda p: _set(p, dd, "pool_flags", lambda line: {})),
    # (s39a) the KV4 FA4 lists: widened, swapped, or an fa4 prefill taken as a split pair
    ("fp4_mx_block16, fa4 for both, MHA", lambda p: _set(p, bc, "KV4_LISTS", {
        **bc.KV4_LISTS, (True, False): (*bc.KV4_LISTS[(True, False)], "fa4")})),
    ("fp4_mx_block16, fa4 prefill + triton, MLA", lambda p: _set(p, bc, "KV4_LISTS", {
        **bc.KV4_LISTS, (True, True): (*bc.KV4_LISTS[(True, True)], "triton")})),
    ("fp4_mx_block16, fa4 prefill + flashinfer, MHA", lambda p: _set(p, bc, "FA4", "no_fa4")),
    ("fp4_mx_block16, fa4 prefill + flashinfer, MLA plans", lambda p: _set(p, bc, "KV4_LISTS", {
        **bc.KV4_LISTS, (True, True): bc.KV4_LISTS[(True, False)]})),
)


@pytest.mark.parametrize(("edge", "plant"), PLANTED, ids=[e for e, _ in PLANTED])
def test_planted_error_is_caught(edge: str, plant: Callable[[pytest.MonkeyPatch], None],
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Each rule planted away: graphfit plans what SGLang refuses, refuses what it plans,
    or refuses for another reason."""
    plant(monkeypatch)
    caught = _verdict(edge).startswith(("skip", "over")) or (
        EDGES[edge][3] == "refused" and not _same_reason(edge))
    assert caught, (edge, _verdict(edge))


SHAPES = ("llama", "mla", "mla_v2", "olmo2", "asym", "KimiK3ForConditionalGeneration",
          "IQuestQ1ForCausalLM", "BeamForCausalLM")


@settings(max_examples=16)
@given(st.sampled_from(m.NVFP4_GPUS), st.sampled_from(SHAPES),
       st.sampled_from(m.nvfp4_specs()), st.sampled_from(m.NVFP4_EXTRAS))
def test_generated_fp4_lines(gpu: str, shape: str, spec: tuple[str, ...],
                             extra: tuple[str, ...]) -> None:
    """Generated FP4 KV lines (MLA and MHA shapes, overrides, every speculation variant,
    the dequant flag, a named draft backend): never a line SGLang refuses and graphfit
    plans, nor the reverse."""
    argv = ("--max-running-requests", "33", *spec, *extra)
    said = m.verdict(argv, gpu, ALL[shape])
    assert said.split(":", 1)[0] in ("plan", "refused"), (gpu, shape, argv, said)


# Multi-layer EAGLE with an nvfp4 KV cache: the draft-extend backend and graph count SGLang's
# own resolve + runner decision give (tests/oracle/test_sglang_mtp_oracle.default_verdict)
MTP_SHAPES = ("llama", "asym", "sinks", "mla_v2", "olmo2")
MTP_EXTRAS: tuple[tuple[str, ...], ...] = (
    (), (DEQUANT, "fp8_e4m3"), ("--attention-backend", "flashinfer"),
    ("--speculative-attention-mode", "decode"))
MTP_EDGES = {
    "SM100, unequal K/V widths: trtllm_mha, not fa4": ("B200", "asym", ()),
    "SM100, a named flashinfer base: the draft runs trtllm_mha": (
        "B200", "llama", ("--attention-backend", "flashinfer")),
    "SM120, attention sinks: the fp8 workspace's flashinfer": ("RTX5090", "sinks", ()),
    "SM120, Olmo2's fa3 under a named workspace": ("RTX5090", "olmo2", (DEQUANT, "fp8_e4m3")),
}


def _mtp(gpu: str, shape: str, extra: tuple[str, ...]) -> str:
    from tests.oracle import test_sglang_mtp_oracle as t

    argv = (*t._default_line(3, 1, None, "nvfp4"), *extra)
    return t.default_verdict(argv, gpu, ALL.get(shape) or t._SHAPES[shape], None)


@pytest.mark.parametrize("name", sorted(MTP_EDGES))
def test_multi_layer_nvfp4_draft_backend(name: str) -> None:
    """The draft-extend backend and count equal SGLang's on each edge."""
    assert _mtp(*MTP_EDGES[name]) == "agree", _mtp(*MTP_EDGES[name])


def test_multi_layer_nvfp4_planted(monkeypatch: pytest.MonkeyPatch) -> None:
    """The nvfp4 pair ignored for the draft (graphfit before s37a): every edge differs."""
    monkeypatch.setattr(dd, "nvfp4_draft", lambda *a: None)
    for name, edge in MTP_EDGES.items():
        assert _mtp(*edge).startswith("differ"), name


@settings(max_examples=8)
@given(st.sampled_from(("B200", "RTX5090")), st.sampled_from(MTP_SHAPES),
       st.sampled_from(MTP_EXTRAS))
def test_multi_layer_nvfp4_generated(gpu: str, shape: str, extra: tuple[str, ...]) -> None:
    """Generated multi-layer EAGLE nvfp4 lines: agree, a bound, or both refuse."""
    said = _mtp(gpu, shape, extra)
    assert not said.startswith(("differ", "skip")), (gpu, shape, extra, said)


# (s39a) SM100's mixed nvfp4 pair (prefill flashinfer, decode trtllm_mha) with speculation:
# SGLang rewrites `--speculative-attention-mode prefill` to decode (kv_cache_hook.py:232-249).
# The mode picks the draft-extend phase only where no draft backend is set
# (draft_utils.py:47-66, 145-149), but SGLang sets trtllm_mha as the draft backend first on
# the same pair (:204-224), so the draft-extend backend and graph count stay trtllm_mha's.
MODE_EDGES = {
    "SM100 fp8 workspace, the mode left at prefill": ("B200", "llama", (DEQUANT, "fp8_e4m3")),
    "SM100 flashinfer base, unequal K/V widths": (
        "B200", "asym", ("--attention-backend", "flashinfer")),
    "SM100 fp8 workspace, attention sinks": ("B200", "sinks", (DEQUANT, "fp8_e4m3")),
}


def _sglang_mode(gpu: str, shape: str, extra: tuple[str, ...]) -> str | None:
    """The speculative attention mode SGLang's pipeline resolves for the multi-layer line."""
    from sglang.srt.arg_groups.overrides import resolving_view

    from graphfit.inputs.gpus import GPU_MEMORY_GB
    from tests.oracle import sglang_mtp_oracle as mo
    from tests.oracle import sglang_oracle as so
    from tests.oracle import test_sglang_mtp_oracle as t

    argv = (*t._default_line(3, 1, None, "nvfp4"), *extra)
    so.oracle()
    with mo._restored_environ(), mo._platform(gpu):
        r = so.resolve(argv, gpu_mem_gb=GPU_MEMORY_GB[gpu], model=ALL.get(shape)
                       or t._SHAPES[shape], capability=mo.CAPABILITIES[gpu])
    return str(resolving_view(r.record).speculative_attention_mode) if isinstance(
        r, so.Resolved) else None


@pytest.mark.parametrize("name", sorted(MODE_EDGES))
def test_sm100_mode_switch_keeps_the_draft_backend(name: str) -> None:
    """SGLang rewrites the mode on each edge (the switch is reached); graphfit's draft-extend
    backend and count equal SGLang's all the same."""
    assert _sglang_mode(*MODE_EDGES[name]) == "decode", name
    assert _mtp(*MODE_EDGES[name]) == "agree", _mtp(*MODE_EDGES[name])


def test_sm100_mode_switch_planted(monkeypatch: pytest.MonkeyPatch) -> None:
    """The draft backend SGLang sets on SM100 ignored, the rewritten mode's phase taken as on
    SM120 but from the LINE's mode (prefill: the fp8 workspace's flashinfer): every edge
    differs."""
    real = bc.nvfp4_draft
    monkeypatch.setattr(dd, "nvfp4_draft", lambda gpu, kv, decode_mode: real(
        "sm120" if gpu == "sm100" else gpu, kv, decode_mode))
    for name, edge in MODE_EDGES.items():
        assert _mtp(*edge).startswith("differ"), name
