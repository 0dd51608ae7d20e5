"""graphfit == SGLang 0.5.23 on the model loader's dtype check (model_loader/loader.py:
263-270, restated by graphfit.planner.engines.sglang_quant_dtype). The lines are generated
(--quantization, config.json quantization_config, --dtype, checkpoint torch_dtype, named GPU)
tuples. graphfit reads each one whole; SGLang's ModelConfig dtype rule
(`_get_and_verify_dtype`), ModelConfig and loader run on the same tuple
(tests.oracle.sglang_quant_capability_oracle).

Only lines that reach SGLang's dtype check are judged: where SGLang refuses there, graphfit
must refuse on the dtype; where it passes, graphfit must not refuse on the dtype."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.planner.engines import sglang_quant_dtype as loader_dtype  # noqa: E402
from tests.oracle.sglang_quant_dtype_compare import (  # noqa: E402
    CHECKPOINT_DTYPES,
    DTYPES,
    FLAGS,
    GPUS,
    LAYOUTS,
    LOADER,
    compare,
    graphfit_line,
)


def test_every_flag_with_every_dtype_flag() -> None:
    """Each flag alone (no quantization_config, a bfloat16 checkpoint) with each --dtype on
    an H100: every config class the flags build meets every model dtype."""
    wrong, stages = [], []
    for flag, dtype in itertools.product(FLAGS, DTYPES):
        stage, bad = compare(flag, None, dtype, "bfloat16", "H100")
        stages.append(stage)
        if bad:
            wrong.append(bad)
    assert not wrong, "\n".join(wrong[:8])
    # not vacuous: float32 refused for most classes, float16 for w4afp8; others pass
    assert stages.count("dtype") >= 10 and stages.count("passed") >= 20


def test_checkpoint_dtypes_with_auto() -> None:
    """--dtype auto on each checkpoint dtype (float32 and a missing one become float16):
    w4afp8 (bfloat16 only) and AWQ checkpoints (float16 only) meet both refusals."""
    wrong, stages = [], []
    for flag, layout, written in itertools.product(("w4afp8", "awq", "fp8", None),
                                                   (None, "awq_4bit"), CHECKPOINT_DTYPES):
        stage, bad = compare(flag, layout, "auto", written, "H100")
        stages.append(stage)
        if bad:
            wrong.append(bad)
    assert not wrong, "\n".join(wrong[:8])
    assert stages.count("dtype") >= 4 and stages.count("passed") >= 4


@given(st.sampled_from(FLAGS), st.sampled_from((None, *LAYOUTS)), st.sampled_from(DTYPES),
       st.sampled_from(CHECKPOINT_DTYPES), st.sampled_from(GPUS))
def test_generated_lines_agree(flag: str | None, layout: str | None, dtype: str,
                               written: str | None, gpu: str) -> None:
    """A drawn tuple: the same verdict on the loader's dtype check."""
    _, bad = compare(flag, layout, dtype, written, gpu)
    assert bad is None, bad


def test_awq_on_a_bfloat16_checkpoint_is_refused_as_sglang_does() -> None:
    """--quantization awq on an AWQ checkpoint saved in bfloat16 with --dtype auto: SGLang's
    AWQConfig takes float16 only on CUDA; --dtype float16 loads. (Without the flag SGLang
    picks awq_marlin, which takes both.)"""
    code, said = graphfit_line("awq", "awq_4bit", "auto", "bfloat16", "H100")
    assert code == 2 and LOADER in said and "awq/awq.py:105-106" in said and "bfloat16" in said
    assert graphfit_line("awq", "awq_4bit", "float16", "bfloat16", "H100") == (0, "")
    assert graphfit_line(None, "awq_4bit", "auto", "bfloat16", "H100") == (0, "")


def test_a_planted_error_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """fp8 given bitsandbytes' list (float32 included): graphfit plans a float32 line SGLang
    refuses, and the comparison says so."""
    monkeypatch.setitem(loader_dtype.SUPPORTED_DTYPES, "fp8",
                        (("float32", "float16", "bfloat16"), "planted"))
    stage, bad = compare("fp8", None, "float32", "bfloat16", "H100")
    assert stage == "dtype" and bad is not None and "graphfit 0" in bad
