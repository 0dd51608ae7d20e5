"""The MoE all-to-all oracle puts back what SGLang writes to `os.environ` (issue 23, s65x).

SGLang's FlashInfer A2A hook sets `SGLANG_MOE_NVFP4_DISPATCH=True` itself on an NVFP4 line
without a dispatch type (arg_groups/moe_hook.py:497-507). Left in the process, the next line
with `--flashinfer-a2a-dispatch-type` was refused by SGLang ("cannot be set together",
moe_hook.py:480-484 on the variable being set) although it starts when run on its own, and
graphfit's side, which reads `os.environ`, saw the variable too.
"""

from __future__ import annotations

import logging
import os

import pytest

from tests.oracle.environ_patch import SGLANG_WRITES, sglang_environ
from tests.oracle.paths import require

require("sglang")

NVFP4_DISPATCH = "SGLANG_MOE_NVFP4_DISPATCH"


def test_sglang_environ_puts_back_the_prefixed_names_and_the_lines() -> None:
    keep = {"SGLANG_S65X_KEPT": "1", "USE_ROCM_S65X_KEPT": "a"}
    for name in ("SGLANG_S65X_NEW", "USE_ROCM_S65X_NEW", "S65X_LINE"):
        os.environ.pop(name, None)
    os.environ.update(keep)
    try:
        with pytest.raises(RuntimeError), sglang_environ({"S65X_LINE": "x",
                                                          "SGLANG_S65X_KEPT": "2"}):
            assert os.environ["S65X_LINE"] == "x" and os.environ["SGLANG_S65X_KEPT"] == "2"
            os.environ.update({"SGLANG_S65X_NEW": "1", "USE_ROCM_S65X_NEW": "1",
                               "USE_ROCM_S65X_KEPT": "b"})
            raise RuntimeError  # put back on the way out of a raising call too
        assert {k: os.environ.get(k) for k in (*keep, "SGLANG_S65X_NEW", "USE_ROCM_S65X_NEW",
                                                "S65X_LINE")} == {
            **keep, "SGLANG_S65X_NEW": None, "USE_ROCM_S65X_NEW": None, "S65X_LINE": None}
        assert SGLANG_WRITES == ("SGLANG_", "USE_ROCM_")
    finally:
        for name in keep:
            os.environ.pop(name, None)


def test_an_nvfp4_flashinfer_line_leaves_no_variable_for_the_next() -> None:
    from tests.oracle import sglang_moe_a2a_compare as mc

    logging.disable(logging.WARNING)
    try:
        model = mc.quantized_model_dir("NVFP4")
        writes = ("--model-path", model, "--moe-a2a-backend", "flashinfer", "--tp-size", "4",
                  "--ep-size", "4", "--attn-dp-size", "4", "--enable-dp-attention",
                  "--quantization", "modelopt_fp4", "--moe-runner-backend",
                  "flashinfer_cutlass", "--gpu-memory-gb", "B200")
        typed = (*writes, "--flashinfer-a2a-dispatch-type", "bf16")
        os.environ.pop(NVFP4_DISPATCH, None)
        seen = {k: v for k, v in os.environ.items() if k.startswith(SGLANG_WRITES)}
        first = mc.sglang.__wrapped__(writes)  # uncached: SGLang's hook runs here
        assert first.rejected is None, first.rejected
        assert {k: v for k, v in os.environ.items() if k.startswith(SGLANG_WRITES)} == seen
        typed_sg, typed_gf = mc.sglang.__wrapped__(typed), mc.graphfit_cli.__wrapped__(typed)
        assert typed_sg.rejected is None, typed_sg.rejected
        assert typed_gf.rejected is None, typed_gf.rejected
    finally:
        logging.disable(logging.NOTSET)


def test_the_prefill_comparison_leaves_no_variable_for_the_next() -> None:
    """The prefill component runs SGLang again (sglang_plan_prefill): what it writes (the
    serving hook's defaults, arg_groups/serving_hook.py:940, ...) is put back too."""
    from tests.oracle import sglang_moe_a2a_compare as mc

    logging.disable(logging.WARNING)
    try:
        line = ("--moe-a2a-backend", "deepep", "--max-running-requests", "56",
                "--cuda-graph-max-bs-prefill", "36", "--tp-size", "2")
        mc.sglang(line)
        seen = {k: v for k, v in os.environ.items() if k.startswith(SGLANG_WRITES)}
        assert mc._prefill(line, 80) == []  # both plan it alike
        assert {k: v for k, v in os.environ.items() if k.startswith(SGLANG_WRITES)} == seen
    finally:
        logging.disable(logging.NOTSET)
