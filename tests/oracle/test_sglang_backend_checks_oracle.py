"""SGLang 0.5.23 runs its checks of the attention backend it resolves on EVERY line
(arg_groups/pipeline.py:225-306), not only on multi-layer EAGLE: trtllm_mha with topk > 1
(speculative_hook.py:1176-1180), topk > 1 on a paged non-tree backend (:1267-1282), trtllm_mla
off Blackwell or with an fp8_e5m2 KV cache (overrides.py:1203-1219), trtllm_mha's GPUs and
SM120 fp8_e4m3 prefill (attention_hook.py:198-227), the model hook's backend lists
(model_hook.py:515-722). Here single-layer EAGLE / NEXTN lines, lines without speculation
and (s31b) DFLASH / DSPARK / NGRAM / FROZEN_KV_MTP / UNO lines (no EAGLE topk rules; NGRAM's
own page rule, speculative_hook.py:1356-1366):
SGLang's own resolve on CPU (tests/oracle/sglang_oracle.py) and graphfit's plan of the same
pasted line (tests/oracle/measure_sglang_backend_checks.py) must both refuse, graphfit
citing the place of SGLang's message (graphfit.inputs.sglang_draft_default.every_line_checks);
a planted error per rule shows the comparison fails.
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
from graphfit.planner.engines import sglang_arch_overrides as sao  # noqa: E402
from graphfit.planner.engines import sglang_backend_checks as bc  # noqa: E402
from tests.oracle import measure_sglang_backend_checks as m  # noqa: E402
from tests.oracle.test_sglang_mtp_refusals_oracle import ANY, MODELS, REASONS  # noqa: E402

NONE, EAGLE1, EAGLE2, NEXTN2, EAGLE_AUTO = m.SPEC
# algorithms outside the EAGLE family (s31b): SGLang's checks without the EAGLE topk rules
(DFLASH,), (DSPARK,), (NGRAM1, NGRAM2), (FROZEN,), (UNO,) = (
    m.other_spec(a) for a in m.OTHER)
# before REASONS' catch-all "IQuest" (its multi-layer refusal)
EXTRA_REASONS = {"independent draft model path": "speculative_hook.py:1014-1023",
                  "requires --speculative-eagle-topk 1": "iquest_q1.py:31-34",
                  "with topk == 1 is supported for": "deepseek_v4_hook.py:148-158",
                  "Only EAGLE and DSPARK speculative": "deepseek_v4_hook.py:148-158",
                  "serial EAGLE or NEXTN drafting": "iquest_q1.py:24-26",
                  "supported for the 'flashinfer' backend": "speculative_hook.py:1356-1366"}

# one line per rule: (gpu, model shape, the line, SGLang's verdict graphfit must share)
EDGES: dict[str, tuple[str, str, tuple[str, ...], str]] = {
    "trtllm_mha topk, override, EAGLE": ("H100", "BeamForCausalLM", EAGLE2, "refused"),
    "trtllm_mha topk, override, NEXTN": ("B200", "BeamForCausalLM", NEXTN2, "refused"),
    "trtllm_mha topk 1 plans": ("H100", "BeamForCausalLM", EAGLE1, "plan"),
    "page tree, aiter on ROCm": ("MI300X", "llama", (*EAGLE2, "--page-size", "16"),
                                 "refused"),
    "page tree, page 1 plans": ("MI300X", "llama", EAGLE2, "plan"),
    "page tree, Llama's automatic topk 4": ("MI300X", "llama", (*EAGLE_AUTO, "--page-size", "16"),
                                            "refused"),
    "trtllm_mla KV dtype, override, no spec": (
        "B200", "KimiK3ForConditionalGeneration", ("--kv-cache-dtype", "fp8_e5m2"),
        "refused"),
    "trtllm_mla KV dtype, DeepSeek, no spec": ("B200", "mla", ("--kv-cache-dtype", "fp8_e5m2"),
                                               "refused"),
    "trtllm_mha prefill off Hopper, no spec": ("A100", "llama", (
        "--prefill-attention-backend", "trtllm_mha", "--decode-attention-backend", "triton"),
        "refused"),
    "FMHAv2 fp8_e4m3 on SM120, no spec": ("RTX5090", "BeamForCausalLM",
                                          ("--kv-cache-dtype", "fp8_e4m3"), "refused"),
    "model hook, Gemma 4, no spec": ("A100", "Gemma4ForCausalLM",
                                     ("--decode-attention-backend", "flashinfer"), "refused"),
    "model hook, GPT-OSS, EAGLE": ("H100", "GptOssForCausalLM",
                                   (*EAGLE1, "--decode-attention-backend", "flashinfer"),
                                   "refused"),
    "Moss-VL prefill, no spec": ("H100", "MossVLForConditionalGeneration",
                                 ("--prefill-attention-backend", "triton"), "refused"),
    "trtllm_mha, no spec plans": ("B200", "BeamForCausalLM", NONE, "plan"),
    "DeepSeek-V4 EAGLE, automatic topk": ("H100", "DeepseekV4ForCausalLM", EAGLE_AUTO,
                                          "refused"),
    "IQuest-Q1 EAGLE, no draft model": ("H100", "IQuestQ1ForCausalLM", EAGLE1, "refused"),
    "IQuest-Q1 topk 2, NEXTN": ("H100", "IQuestQ1ForCausalLM", NEXTN2, "refused"),
    "IQuest-Q1, no spec plans": ("A100", "IQuestQ1ForCausalLM", NONE, "plan"),
    # s31b: DFLASH, DSPARK, NGRAM, FROZEN_KV_MTP, UNO lines
    "NGRAM page tree, triton page 16": ("H100", "llama", (
        *NGRAM1, "--attention-backend", "triton", "--page-size", "16"), "refused"),
    "NGRAM breadth 1, page 16 plans": ("H100", "llama", (
        *NGRAM1, "--page-size", "16", "--speculative-ngram-max-bfs-breadth", "1"), "plan"),
    "NGRAM page 1 plans": ("H100", "llama", NGRAM2, "plan"),
    "DFLASH, model hook Gemma 4": ("A100", "Gemma4ForCausalLM", (
        *DFLASH, "--decode-attention-backend", "flashinfer"), "refused"),
    "DFLASH topk 2 on trtllm_mha plans": ("H100", "BeamForCausalLM", (
        *DFLASH, "--speculative-eagle-topk", "2"), "plan"),
    "DSPARK, trtllm_mla KV dtype": ("B200", "mla", (*DSPARK, "--kv-cache-dtype", "fp8_e5m2"),
                                    "refused"),
    "FROZEN_KV_MTP, trtllm_mha off Hopper": ("A100", "llama", (
        *FROZEN, "--prefill-attention-backend", "trtllm_mha", "--decode-attention-backend",
        "triton"), "refused"),
    "DeepSeek-V4 NGRAM": ("H100", "DeepseekV4ForCausalLM", NGRAM1, "refused"),
    "IQuest-Q1 DFLASH": ("H100", "IQuestQ1ForCausalLM", DFLASH, "refused"),
    "UNO on fa3 plans": ("H100", "llama", UNO, "plan"),
}


def _line(name: str) -> tuple[str, str, tuple[str, ...]]:
    gpu, shape, spec, _ = EDGES[name]
    return gpu, MODELS[shape], ("--max-running-requests", "33", *spec)


def _verdict(name: str) -> str:
    gpu, model, argv = _line(name)
    return m.verdict(argv, gpu, model)


def _same_reason(name: str) -> bool:
    """Both refuse, and graphfit's error cites the SGLang place whose words SGLang gave."""
    gpu, model, argv = _line(name)
    sglang, ours = m._sglang(argv, gpu, model), m._graphfit(argv, gpu, model)
    if sglang is None or ours is None:
        return False
    sites = [site for words, site in EXTRA_REASONS.items() if words in sglang] or [
        site for words, site in REASONS.items() if words in sglang]
    return len(sites) == 1 and sites[0] in ours


@pytest.mark.parametrize("name", sorted(EDGES))
def test_resolved_backend_checked_on_every_line(name: str) -> None:
    """Each rule's line off multi-layer EAGLE: SGLang's verdict, and graphfit's refusal cites
    SGLang's reason (the "plan" edges: both plan, the rule stays within its bounds)."""
    assert _verdict(name).split(":", 1)[0] == EDGES[name][3], _verdict(name)
    if EDGES[name][3] == "refused":
        assert _same_reason(name), name


ORIGINAL, ORIGINAL_EVERY = dd._line_refusals, dd.every_line_checks


def _set(monkeypatch: pytest.MonkeyPatch, module: Any, name: str, value: Any) -> None:
    monkeypatch.setattr(module, name, value)


PLANTED: tuple[tuple[str, Callable[[pytest.MonkeyPatch], None]], ...] = (
    ("trtllm_mha topk, override, EAGLE", lambda p: _set(p, bc, "TOPK_ONE_BACKENDS", ())),
    ("page tree, aiter on ROCm", lambda p: _set(p, bc, "PAGE_TREE_BACKENDS", ANY)),
    ("page tree, Llama's automatic topk 4", lambda p: _set(
        p, dd, "EAGLE_TREE_DEFAULTS", (5, 1, 8))),
    ("trtllm_mla KV dtype, override, no spec", lambda p: _set(
        p, bc, "MLA_KV_DTYPES", frozenset({*bc.MLA_KV_DTYPES, "fp8_e5m2"}))),
    ("trtllm_mha prefill off Hopper, no spec", lambda p: _set(
        p, bc, "TRTLLM_MHA_GPUS", frozenset({*bc.TRTLLM_MHA_GPUS, "ampere"}))),
    ("FMHAv2 fp8_e4m3 on SM120, no spec", lambda p: _set(
        p, bc, "FP8_E4M3_PREFILL_REFUSED", frozenset())),
    ("model hook, Gemma 4, no spec", lambda p: _set(
        p, bc, "GEMMA4_BACKENDS", (*bc.GEMMA4_BACKENDS, "flashinfer"))),
    # the whole extension off: graphfit back to checking multi-layer EAGLE only
    ("trtllm_mha topk, override, NEXTN", lambda p: _set(
        p, dd, "every_line_checks", lambda *a, **k: None)),
    ("trtllm_mla KV dtype, DeepSeek, no spec", lambda p: _set(
        p, dd, "every_line_checks", lambda *a, **k: None)),
    # IQuest's checks off multi-layer EAGLE: its multi-layer refusal on every line instead
    ("IQuest-Q1 EAGLE, no draft model", lambda p: _set(
        p, dd, "every_line_checks", lambda line, gpu, hint=dd.LINE_HINT: dd._line_refusals(
            line, gpu, hint))),
    ("IQuest-Q1, no spec plans", lambda p: _set(
        p, dd, "every_line_checks", lambda line, gpu, hint=dd.LINE_HINT: dd._line_refusals(
            line, gpu, hint))),
    # the topk rules run without speculation too: graphfit refuses what SGLang plans
    ("trtllm_mha, no spec plans", lambda p: _set(
        p, dd, "every_line_checks", lambda line, gpu, hint=dd.LINE_HINT: dd._line_refusals(
            {**line, "speculative_eagle_topk": 2}, gpu, hint, multi_layer=False))),
)


PLANTED += (
    # s31b: NGRAM's page rule widened to fa3 / triton, or NGRAM given the EAGLE rules
    ("NGRAM page tree, triton page 16", lambda p: _set(p, bc, "NGRAM_PAGE_TREE_BACKEND",
                                                       "triton")),
    ("NGRAM page tree, triton page 16", lambda p: _set(
        p, dd, "_line_refusals", lambda line, gpu, hint, **k: ORIGINAL(
            line, gpu, hint, **{**k, "ngram": False}))),
    # the checks see the line's topk on a DFLASH line (SGLang forces 1): over
    ("DFLASH topk 2 on trtllm_mha plans", lambda p: _set(
        p, dd, "_line_refusals", lambda line, gpu, hint, **k: ORIGINAL(
            line, gpu, hint, **{**k, "checked_topk": None}))),
    # every_line_checks back to the EAGLE family only (s30b)
    ("DSPARK, trtllm_mla KV dtype", lambda p: _set(
        p, dd, "every_line_checks", lambda line, gpu, hint=dd.LINE_HINT: None if str(
            line.get("speculative_algorithm") or "EAGLE").upper() not in dd.EAGLE_FAMILY
        else ORIGINAL_EVERY(line, gpu, hint))),
    ("FROZEN_KV_MTP, trtllm_mha off Hopper", lambda p: _set(
        p, dd, "every_line_checks", lambda line, gpu, hint=dd.LINE_HINT: None)),
    # IQuest's algorithm rule off: SGLang's other message wins (or graphfit plans)
    ("IQuest-Q1 DFLASH", lambda p: _set(p, sao, "IQUEST", frozenset())),
)


@pytest.mark.parametrize(("edge", "plant"), PLANTED, ids=[e for e, _ in PLANTED])
def test_planted_error_is_caught(edge: str, plant: Callable[[pytest.MonkeyPatch], None],
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Each rule planted away: graphfit plans what SGLang refuses (skip), refuses what it
    plans (over), or refuses for another reason."""
    plant(monkeypatch)
    caught = _verdict(edge).startswith(("skip", "over")) or (
        EDGES[edge][3] == "refused" and not _same_reason(edge))
    assert caught, (edge, _verdict(edge))


PAIRS = [(gpu, shape) for gpu in m.GPUS for shape in sorted(MODELS)
         if not (shape == "vl" and gpu in m.mo.PLATFORMS)]


@settings(max_examples=25)
@given(st.sampled_from(PAIRS), st.sampled_from(m.SPEC), st.sampled_from(m.EXTRAS))
def test_generated_lines_refused_like_sglang(pair: tuple[str, str], spec: tuple[str, ...],
                                             extra: tuple[str, ...]) -> None:
    """Generated lines off multi-layer EAGLE (every model shape, 6 GPUs, no speculation /
    EAGLE topk 1, 2 / NEXTN topk 2 / EAGLE with SGLang's automatic topk, page size, KV
    dtype, a split flag): never a line SGLang refuses and graphfit plans, nor the reverse."""
    gpu, shape = pair
    argv = ("--max-running-requests", "33", *spec, *extra)
    said = m.verdict(argv, gpu, MODELS[shape])
    assert said.split(":", 1)[0] in ("plan", "refused"), (gpu, shape, argv, said)


# DFLASH and FROZEN_KV_MTP: no known gap left. NGRAM (the overrides' picks included) and
# Kimi-K3's DSPARK are drawn in tests/oracle/test_sglang_ngram_oracle.py (s32n); UNO on
# defaults graphfit does not restate is a known gap, measured by
# `measure_sglang_backend_checks --algorithms ...`
OTHER_SPECS = [*m.other_spec("DFLASH"), *m.other_spec("FROZEN_KV_MTP")]


@settings(max_examples=12)
@given(st.sampled_from(PAIRS), st.sampled_from(OTHER_SPECS), st.sampled_from(m.EXTRAS))
def test_generated_other_algorithms_refused_like_sglang(
        pair: tuple[str, str], spec: tuple[str, ...], extra: tuple[str, ...]) -> None:
    """Generated DFLASH / FROZEN_KV_MTP lines (s31b): never a line
    SGLang refuses and graphfit plans, nor the reverse."""
    gpu, shape = pair
    argv = ("--max-running-requests", "33", *spec, *extra)
    said = m.verdict(argv, gpu, MODELS[shape])
    assert said.split(":", 1)[0] in ("plan", "refused"), (gpu, shape, argv, said)
