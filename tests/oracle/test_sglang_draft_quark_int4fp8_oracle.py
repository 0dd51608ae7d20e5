"""graphfit == SGLang 0.5.23 on a draft under `--speculative-draft-model-quantization
quark_int4fp8_moe` (graphfit.inputs.sglang_draft_quant; issue 23, s60d).

SGLang: tests.oracle.sglang_draft_quant (the draft's ModelConfig and its loader's
`_get_quantization_config`, now with this process's TP rank stated, which the config class
names in its progress bar, quark_int4fp8_moe.py:75-84). graphfit: its CLI on the pasted line.
"""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.inputs import sglang_draft_quant  # noqa: E402
from tests.oracle import sglang_draft_quant as dq  # noqa: E402
from tests.oracle import sglang_draft_shape as ds  # noqa: E402

FLAG = ("--speculative-draft-model-quantization", "quark_int4fp8_moe")


def _lines() -> list[tuple[tuple[str, ...], str]]:
    base = ("--speculative-algorithm", "EAGLE", "--speculative-draft-model-path")
    plain = ds.draft("LlamaForCausalLMEagle", torch_dtype="bfloat16")
    fp8 = ds.draft("LlamaForCausalLMEagle", torch_dtype="bfloat16", quantization_config={
        "quant_method": "fp8", "activation_scheme": "dynamic", "weight_block_size": [128, 128]})
    awq = ds.draft("LlamaForCausalLMEagle", torch_dtype="bfloat16", quantization_config={
        "quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True})
    return [((*base, plain, *FLAG), "T4"),
            ((*base, plain, *FLAG, "--dtype", "float32"), "H100"),  # the loader's dtype check
            ((*base, plain, *FLAG, "--dtype", "float16"), "H100"),
            ((*base, fp8, *FLAG), "H100"),  # the checkpoint's method wins
            ((*base, awq, *FLAG), "H100")]  # awq's dtype check on bfloat16


def _answers() -> list[tuple[str, str, bool | None]]:
    dq.planned.cache_clear()
    return [dq.compare(argv, gpu) for argv, gpu in _lines()]


def test_quark_int4fp8_moe_drafts_agree() -> None:
    answers = _answers()
    wrong = [f"{argv[3:]} {gpu}: SGLang {theirs[:120]}; graphfit {ours[:120]}"
             for (argv, gpu), (theirs, ours, same) in zip(_lines(), answers, strict=True)
             if not same]
    assert not wrong, "\n".join(wrong)
    # not vacuous: both sides of the start
    assert [theirs == "starts" for theirs, _, _ in answers] == [True, False, True, True, False]


def test_unchecked_quark_int4fp8_moe_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The plant: the draft left unchecked (as before s60d) plans SGLang's refusals."""
    monkeypatch.setattr(sglang_draft_quant, "NOT_RESTATED", frozenset({"quark_int4fp8_moe"}))
    assert sum(same is False for _, _, same in _answers()) == 2
    dq.planned.cache_clear()
