"""A humming draft (`--speculative-draft-model-quantization humming`, or the target's
`--quantization humming` inherited) against SGLang 0.5.23's own draft ModelConfig and loader
with the humming-kernels package stood in (tests/oracle/sglang_draft_humming.py; issue 23,
s54d): unquantized and quantized draft checkpoints, the loader's GPU (SM 7.5) and dtype
(bfloat16 / float16) checks (humming.py:484-489; model_loader/loader.py:253-270)."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.inputs import sglang_draft_quant  # noqa: E402
from tests.oracle import sglang_draft_humming as hm  # noqa: E402
from tests.oracle import sglang_draft_quant as dq  # noqa: E402
from tests.oracle import test_sglang_draft_quant_oracle as base  # noqa: E402

D = base.DRAFT
F32 = ("--dtype", "float32")
# (case, draft, flags, GPU, SGLang starts)
CASES = [
    ("bfloat16 draft on T4", base._bf16, (D, "humming"), "T4", True),
    ("inherited from --quantization", base._bf16, ("--quantization", "humming"), "H100", True),
    ("AWQ draft: humming's override", lambda: base._quantized("awq"), (D, "humming"), "A100",
     True),
    ("GPTQ draft: humming, not the unknown gptq", lambda: base._quantized("gptq"),
     (D, "humming"), "H100", True),
    ("float32 draft refused", base._bf16, (D, "humming", *F32), "H100", False),
    ("FP8 draft, float32 refused", lambda: base._quantized("fp8"), (D, "humming", *F32),
     "H100", False),
]


def _compare(case: tuple[object, ...]) -> tuple[str, str, bool | None]:
    _label, draft, flags, gpu, _starts = case
    with hm.installed():
        return dq.compare(base._line(draft(), *flags), gpu)  # type: ignore[operator, arg-type]


@pytest.mark.parametrize("case", CASES, ids=[case[0] for case in CASES])
def test_humming_drafts_agree(case: tuple[object, ...]) -> None:
    theirs, ours, agree = _compare(case)
    assert agree is True, (theirs, ours)
    assert (theirs == "starts") is case[4], theirs
    if not case[4]:
        assert "not supported for quantization method humming" in theirs
        assert "humming" in ours and "float32" in ours


def test_humming_unrestated_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """humming left unchecked on a draft (main before s54d): the refused lines differ."""
    monkeypatch.setattr(sglang_draft_quant, "NOT_RESTATED",
                        frozenset({"humming", "quark_int4fp8_moe"}))
    refusing = [case for case in CASES if not case[4]]
    assert base._caught(refusing, _compare) == [case[0] for case in refusing]
