"""SGLang's checks of the attention backends it picks itself
(graphfit.planner.engines.sglang_backend_checks): properties. The refusals themselves are
compared with SGLang's own argument pipeline in
tests/oracle/test_sglang_mtp_refusals_oracle.py."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines import sglang_backend_checks as bc
from graphfit.planner.engines.sglang_attn_default import GPU_KINDS

NAMES = st.sampled_from((None, "fa3", "fa4", "flashinfer", "triton", "trtllm_mha",
                         "trtllm_mla", "cutedsl_mla", "flashmla", "aiter", "dsa", "dsv4"))
ARCHS = st.sampled_from(("GptOssForCausalLM", "Gemma4ForCausalLM", "Llama4ForCausalLM",
                         "Exaone4ForCausalLM", "Olmo2ForCausalLM", "Lfm2ForCausalLM",
                         "LlamaForCausalLM"))


@st.composite
def resolved(draw: st.DrawFn) -> bc.ResolvedAttention:
    base, prefill, decode = draw(NAMES), draw(NAMES), draw(NAMES)
    page = bc.resolved_page(draw(st.sampled_from((None, 1, 16, 128))), base, prefill, decode)
    return bc.ResolvedAttention(
        draw(st.sampled_from(GPU_KINDS)), base, prefill, decode,
        draw(st.integers(1, 4)), page,
        draw(st.sampled_from((None, "auto", "fp8_e4m3", "fp8_e5m2", "bf16"))))


@given(resolved())
def test_a_refusal_is_one_short_line_naming_sglangs_place(r: bc.ResolvedAttention) -> None:
    """Every refusal is one line of at most 190 characters (the CLI adds `error: `) that
    says SGLang refuses and cites the file:line."""
    try:
        bc.check_resolved(r)
    except ConfigError as exc:
        text = str(exc)
        assert text.startswith("SGLang refuses ") and len(text) <= 190, text
        assert ".py:" in text and "\n" not in text


@given(resolved())
def test_topk_one_meets_no_topk_rule(r: bc.ResolvedAttention) -> None:
    """With topk 1 neither topk rule (speculative_hook.py:1176-1180, 1267-1282) fires."""
    from dataclasses import replace

    try:
        bc.check_resolved(replace(r, topk=1))
    except ConfigError as exc:
        assert "topk" not in str(exc)


@given(ARCHS, NAMES, NAMES, NAMES, st.booleans())
def test_model_hook_refusals_are_short(arch: str, base: str | None, prefill: str | None,
                                       decode: str | None, swa: bool) -> None:
    try:
        bc.check_model_hook(arch, base, prefill, decode, swa_pattern=swa)
    except ConfigError as exc:
        assert str(exc).startswith("SGLang refuses ") and len(str(exc)) <= 190, str(exc)


@pytest.mark.parametrize(("names", "page", "expected"), [
    (("flashmla", None, None), None, 64), (("trtllm_mla", None, None), 32, 32),
    (("trtllm_mla", None, None), 16, 64), (("trtllm_mha", None, None), 128, 128),
    (("fa4", None, None), None, 1), (("fa4", None, None), 128, 128),
    ((None, "cutedsl_mla", None), None, 64)])
def test_resolved_page_follows_sglangs_snaps(names: tuple[str | None, ...], page: int | None,
                                             expected: int) -> None:
    """`_mla_backend_page_constraints` (overrides.py:1144-1187) and `_page_size_default`
    (:1341-1363), read off SGLang's source."""
    assert bc.resolved_page(page, *names) == expected


def test_bad_values_are_refused() -> None:
    with pytest.raises(ConfigError, match="topk"):
        bc.ResolvedAttention("hopper", "fa3", None, None, topk=0)
    with pytest.raises(ConfigError, match="page_size"):
        bc.ResolvedAttention("hopper", "fa3", None, None, page_size=True)


def test_fa4_page_only_on_sm100_mha_topk_one() -> None:
    """`_fa4_page_constraint` (overrides.py:1273-1297): 128 over any page where fa4 is one of
    the three backends, on SM100, without MLA, at topk <= 1 (DiffusionGemma: 1)."""
    fa4 = bc.fa4_page("sm100", False, None, "LlamaForCausalLM")
    assert fa4 == 128 and bc.resolved_page(16, "fa4", None, None, fa4) == 128
    assert bc.resolved_page(16, "triton", None, "fa4", fa4) == 128
    assert bc.resolved_page(16, "triton", None, None, fa4) == 16  # fa4 not used: no change
    assert bc.fa4_page("sm100", False, 1, "DiffusionGemmaForBlockDiffusion") == 1
    for args in (("hopper", False, 1), ("sm100", True, 1), ("sm100", False, 2)):
        assert bc.fa4_page(*args, "LlamaForCausalLM") is None
