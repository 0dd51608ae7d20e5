"""graphfit == SGLang 0.5.23 on the `from_config` / `__init__` refusals of
CompressedTensorsConfig (its `linear_fp8_config` built as an Fp8Config) and W4AFp8Config
(restated by graphfit.inputs.sglang_quant_weight_classes), on config.json's own quantization
config (tests.oracle.sglang_quant_weight_class_ct_compare).

Judged: where one of these classes refuses the dict, graphfit refuses citing the class's
lines; where the loader gets past it, graphfit cites none.
Larger counts: `python -m tests.oracle.measure_sglang_quant_weight_class_ct 200 52` ."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.inputs import sglang_quant_weight_classes as wq  # noqa: E402
from tests.oracle import sglang_quant_weight_class_ct_compare as cc  # noqa: E402
from tests.oracle.agreement import agreed  # noqa: E402


def test_fixed_layouts_agree() -> None:
    """Each fixed compressed-tensors / w4afp8 config.json layout, with and without the flag."""
    verdicts = agreed(cc.FIXED.values(), cc.compare)
    assert verdicts.count("class") >= 5 and verdicts.count("built") >= 5, verdicts


def test_generated_layouts_agree() -> None:
    """A few generated linear_fp8_config sections / w4afp8 dicts."""
    verdicts = agreed(cc.generated_lines(12, 52), cc.compare)
    assert verdicts.count("class") >= 4 and "built" in verdicts, verdicts


@pytest.mark.parametrize(("method", "layout"), [("compressed-tensors", "ct_fp8_3d"),
                                                ("w4afp8", "w4_no_method")])
def test_a_planted_class_error_is_caught(method: str, layout: str,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Each class's check switched off: a line SGLang refuses plans, and the compare says so."""
    assert cc.compare(*cc.FIXED[layout]) == ("class", None)
    monkeypatch.setitem(wq.CHECKS, method, lambda method, spec: None)
    verdict, bad = cc.compare(*cc.FIXED[layout])
    assert verdict == "class" and bad is not None
