"""graphfit == SGLang 0.5.23 on the live check of a quantized MoE checkpoint (issue 23,
s64c): Qwen3-MoE and DeepSeek-V3 config.json files with the quantization layouts of
tests.oracle.sglang_live_quant, each flag, on an H100 and a B200; SGLang's own class
overrides, ModelConfig and model loader against graphfit's live check on a ServerArgs-like
record (tests.oracle.sglang_live_moe_quant)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.planner.engines import sglang_model_quant as smq  # noqa: E402
from tests.oracle import sglang_live_moe_quant as lm  # noqa: E402

# the class overrides at work: the SM100 copy of the checkpoint's method (passed, or refused
# by the loader's dtype check / the ModelConfig after the copy: the plant's cases), the
# opt-out, a flag clash, the loader's capability and config-file stops, the copied upper-case
# method (arguments)
FIXED: list[lm.Case] = [
    ("Qwen3MoeForCausalLM", "modelopt_nvfp4", None, "B200"),
    ("Qwen3MoeForCausalLM", "modelopt_nvfp4", "unquant", "B200"),
    ("DeepseekV3ForCausalLM", "fp8_block", None, "B200"),
    ("Qwen3MoeForCausalLM", "awq_4bit", None, "B200"),
    ("Qwen3MoeForCausalLM", "gptq_4bit", None, "B200"),
    ("DeepseekV3ForCausalLM", "awq_4bit", None, "B200"),
    ("DeepseekV3ForCausalLM", "gptq_4bit", None, "B200"),
    ("DeepseekV3ForCausalLM", "awq_4bit", "fp8", "H100"),
    ("Qwen3MoeForCausalLM", None, "mxfp8", "H100"),
    ("Qwen3MoeForCausalLM", "modelopt_mxfp8", "unquant", "H100"),
    ("Qwen3MoeForCausalLM", None, "modelopt_fp8", "B200"),
    ("DeepseekV3ForCausalLM", "upper_fp8", None, "B200"),
]


def _wrong(found: list[lm.Case]) -> list[str]:
    out = []
    for case in found:
        theirs = lm.sglang(case)
        if theirs == lm.WEIGHTS:
            continue
        ours = lm.live(case)
        if not lm.agree(theirs, ours):
            out.append(f"{case}: SGLang {theirs}; graphfit {ours[:120]}")
    return out


def test_fixed_moe_cases_as_sglang() -> None:
    wrong = _wrong(FIXED)
    assert not wrong, wrong
    refused = sum(lm.sglang(case).startswith("refused") for case in FIXED)
    assert 2 <= refused <= len(FIXED) - 2, refused  # both answers come up


@settings(max_examples=12)
@given(st.sampled_from(lm.ARCHS), st.sampled_from(lm.LAYOUTS), st.sampled_from(lm.FLAGS),
       st.sampled_from(lm.GPUS))
def test_drawn_moe_cases_as_sglang(arch: str, layout: str | None, flag: str | None,
                                   gpu: str) -> None:
    wrong = _wrong([(arch, layout, flag, gpu)])
    assert not wrong, wrong


def test_planted_no_class_override(monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted: the class overrides not restated (the flag kept as given) differ from
    SGLang on the fixed cases."""
    monkeypatch.setattr(smq, "flag_after_overrides",
                        lambda arch, flag, *args, **kwargs: (True, flag))
    assert _wrong(FIXED)
