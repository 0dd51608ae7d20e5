"""graphfit == SGLang 0.5.23 on the loader's search for a quantization config file
(model_loader/weight_utils.py:342-394, restated by graphfit.inputs.sglang_quant_config_file).
Each line is a `--quantization` flag on a local Llama directory whose config.json declares no
quantization, holding a drawn set of JSON files (none, a ModelOpt hf_quant_config.json, an
AWQ quantize_config.json / quant_config.json, an auto-round quantization_config.json, two of
them). graphfit reads the pasted line whole; SGLang's argument checks, ModelConfig and loader
run with that directory as model_path (tests.oracle.sglang_quant_capability_oracle).

Judged: where SGLang cannot find the config file, or finds several, graphfit refuses citing
the same lines; on every other line graphfit does not cite them."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.inputs import sglang_quant_config_file as qf  # noqa: E402
from tests.oracle import sglang_quant_capability_oracle as co  # noqa: E402
from tests.oracle.agreement import agreed  # noqa: E402
from tests.oracle.sglang_quant_config_file_compare import (  # noqa: E402
    CANNOT,
    GPUS,
    compare,
    graphfit_line,
    lines,
    model_dir,
)


def test_every_flag_on_every_directory() -> None:
    """Each flag on each directory, on an H100."""
    gpu, cap = GPUS[0]
    verdicts = agreed(((flag, files, gpu, cap) for flag, files in lines()), compare)
    # not vacuous: SGLang refuses lines both ways
    assert verdicts.count("cannot") >= 5 and verdicts.count("several") >= 1


def test_modelopt_fp8_without_hf_quant_config_is_refused() -> None:
    """The line that opened this rule: modelopt_fp8 on a checkpoint with no ModelOpt file."""
    assert CANNOT in co.load("modelopt_fp8", None, 90, model_dir("none")).said
    code, said = graphfit_line("modelopt_fp8", "none", "H100")
    assert code == 2 and "weight_utils.py:382-389" in said
    assert graphfit_line("modelopt_fp8", "modelopt_fp8", "H100")[0] == 0


def test_a_planted_error_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """awq looking for quantize_config.json only (awq_marlin's list): graphfit refuses a
    directory holding quant_config.json, which SGLang's awq finds."""
    monkeypatch.setitem(qf.CONFIG_FILES, "awq", (("quantize_config.json",), "planted"))
    _, bad = compare("awq", "quant", "A100", 80)
    assert bad is not None and "cannot find the config file" in bad
