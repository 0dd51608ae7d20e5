"""graphfit == SGLang 0.5.23 on the `from_config` / `__init__` refusals of AWQConfig,
AWQMarlinConfig, GPTQMarlinConfig, ModelOptMixedPrecisionConfig and MoeWNA16Config (restated by
graphfit.inputs.sglang_quant_weight_classes), reached from config.json's own quantization
config or from the one quantization file the loader's search finds
(tests.oracle.sglang_quant_weight_class_compare).

Judged: where one of these classes refuses the dict SGLang's loader hands it, graphfit
refuses citing the class's lines; where the loader gets past it, graphfit cites none.
Larger counts: `python -m tests.oracle.measure_sglang_quant_weight_class 200 50` ."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.inputs import sglang_quant_config_file as qf  # noqa: E402
from graphfit.inputs import sglang_quant_weight_classes as wq  # noqa: E402
from tests.oracle import sglang_quant_weight_class_compare as wc  # noqa: E402
from tests.oracle.agreement import agreed  # noqa: E402


def test_config_json_classes_agree() -> None:
    """No flag on each AWQ / mixed-precision config.json layout: ModelConfig's own method
    (awq, awq_marlin, modelopt_mixed, w4afp8) and the class the loader builds from it."""
    lines = [(None, layout) for layout in wc.CONFIG_LAYOUTS if not layout.startswith("gptq")]
    verdicts = agreed(lines, wc.compare_config)
    assert verdicts.count("class") >= 7 and verdicts.count("built") >= 8, verdicts


GPU_LINES = [("moe_wna16", layout) for layout in ("awq", "awq_no_zp", "awq_no_group",
                                                  "gptq_no_sym")]


def test_gpu_dependent_lines_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    """moe_wna16 on config.json AWQ / GPTQ layouts: the method hangs on the GPU (SM75 for
    AWQ), so the reader checks the class on each GPU's method. Planted: that check
    switched off, a line SGLang refuses plans."""
    verdicts = agreed(GPU_LINES, wc.compare_config)
    assert verdicts.count("class") >= 2 and "built" in verdicts, verdicts
    monkeypatch.setattr(qf, "_gpu_dependent_class_check", lambda *args, **kwargs: None)
    assert wc.compare_config("moe_wna16", "awq_no_zp")[1] is not None


def test_found_files_agree() -> None:
    """Each flag on the fixed quantization files of its family (quantize_config.json /
    quant_config.json for the AWQ / GPTQ flags, hf_quant_config.json for modelopt_mixed)."""
    lines = [(flag, body) for flag, body in wc.file_lines()
             if (flag == "modelopt_mixed") == body.startswith("hf_")]
    verdicts = agreed(lines, wc.compare_file)
    assert verdicts.count("class") >= 18 and verdicts.count("built") >= 4, verdicts


def test_generated_files_agree() -> None:
    """A few generated quantization files (keys present or absent, odd values)."""
    verdicts = agreed(wc.generated_lines(16, 50), wc.compare_generated)
    assert verdicts.count("class") >= 6, verdicts


@pytest.mark.parametrize(("method", "flag", "body"), [
    ("awq", "awq", "qc_awq_8bit"), ("awq_marlin", "awq_marlin", "qc_awq_group_100"),
    ("gptq_marlin", "gptq_marlin", "qc_gptq_asym"),
    ("modelopt_mixed", "modelopt_mixed", "hf_int4"),
    ("moe_wna16", "moe_wna16", "qc_wna16_no_sym")])
def test_a_planted_class_error_is_caught(method: str, flag: str, body: str,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Each class's check switched off: a line SGLang refuses plans, and the compare says so."""
    assert wc.compare_file(flag, body) == ("class", None)
    monkeypatch.setitem(wq.CHECKS, method, lambda method, spec: None)
    verdict, bad = wc.compare_file(flag, body)
    assert verdict == "class" and bad is not None
