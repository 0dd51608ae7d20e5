"""SGLang's default attention backend (graphfit.planner.engines.sglang_attn_default): rule
properties. The values themselves are compared with SGLang's own resolve in
tests/oracle/test_sglang_mtp_oracle.py (GPU x model shape grid)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines import sglang_attn_default as ad
from graphfit.planner.engines.sglang_mtp_graphs import DRAFT_EXTEND_BACKENDS

ARCHS = ("LlamaForCausalLM", "Qwen3MoeForCausalLM", "DeepseekV3ForCausalLM",
         "GptOssForCausalLM", "Qwen3NextForCausalLM", "WhisperForConditionalGeneration",
         "Gemma3ForCausalLM")


@st.composite
def inputs(draw: st.DrawFn) -> ad.AttentionDefaultInputs:
    arch = draw(st.sampled_from(ARCHS))
    return ad.AttentionDefaultInputs(
        gpu=draw(st.sampled_from(ad.GPU_KINDS)), architecture=arch,
        mla=arch in ad.MLA_ARCHITECTURES, dsa=arch in ad.DSA_ARCHITECTURES and draw(
            st.booleans()),
        attention_sinks=draw(st.booleans()), asymmetric_kv=draw(st.booleans()),
        kv_heads=draw(st.sampled_from((None, 1, 16, 128))),
        speculative_algorithm=draw(st.sampled_from((None, "EAGLE", "EAGLE3", "DFLASH"))),
        topk=draw(st.sampled_from((None, 1, 2, 4))), page_size=draw(st.sampled_from(
            (None, 1, 16, 64))),
        kv_cache_dtype=draw(st.sampled_from((None, "auto", "fp8_e4m3", "fp8_e5m2"))),
        deterministic=draw(st.booleans()))


@given(inputs())
def test_default_is_a_draft_extend_backend_or_unknown(inp: ad.AttentionDefaultInputs) -> None:
    """Every default graphfit restates is one SGLang's draft-extend factory builds
    (draft_utils.py:126-144); it is left unknown only for an architecture whose override
    picks its own; fa3 never survives fp8_e5m2 KV; deterministic inference refuses a backend
    an override named outside SGLang's deterministic list (overrides.py:1117-1122)."""
    try:
        found = ad.default_attention_backend(inp)
    except ConfigError:
        assert inp.deterministic
        return
    assert found.why
    if found.name is None:
        assert inp.architecture in ad.OWN_BACKEND
        return
    assert found.name in DRAFT_EXTEND_BACKENDS
    assert not (found.name == "fa3" and inp.kv_cache_dtype == "fp8_e5m2")


@given(inputs())
def test_generation_rules(inp: ad.AttentionDefaultInputs) -> None:
    """Hopper MHA without speculation is fa3; MLA off Hopper/SM100/ROCm is triton; an SM100
    MHA default is trtllm_mha or fa4 only (model_override_base.py:277-352)."""
    try:
        found = ad.default_attention_backend(inp)
    except ConfigError:
        return
    if (found.name is None or inp.architecture in ad.DEEPSEEK_FAMILY
            or inp.architecture == "WhisperForConditionalGeneration"):
        return
    if inp.deterministic:  # overrides.py:1087-1123
        assert found.name in ad.DETERMINISTIC_CHOICES
        return
    if not inp.mla and inp.gpu == "hopper" and inp.topk is None and (
            inp.kv_cache_dtype != "fp8_e5m2"):
        assert found.name == "fa3"
    if inp.mla and inp.gpu in ("turing", "ampere", "ada", "sm120"):
        assert found.name == "triton"
    if not inp.mla and inp.gpu == "sm100" and found.name not in ("flashinfer", "triton"):
        assert found.name in ("trtllm_mha", "fa4")
        assert found.name == ("fa4" if inp.asymmetric_kv else "trtllm_mha")


@pytest.mark.parametrize("bad", [{"gpu": "volta"}, {"topk": 0}, {"page_size": True},
                                 {"kv_heads": -1}])
def test_bad_inputs_are_config_errors(bad: dict[str, object]) -> None:
    fields: dict[str, object] = {"gpu": "hopper", "architecture": "LlamaForCausalLM", **bad}
    with pytest.raises(ConfigError):
        ad.AttentionDefaultInputs(**fields)  # type: ignore[arg-type]
