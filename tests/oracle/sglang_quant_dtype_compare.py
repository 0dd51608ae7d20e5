"""The comparison behind test_sglang_quant_dtype_oracle.py and measure_sglang_quant_dtype.py:
one (--quantization, config.json quantization_config, --dtype, checkpoint torch_dtype, named
GPU) line read whole by graphfit (`graphfit plan --gpu-memory-gb GPU -- python -m
sglang.launch_server --model-path DIR ...`) and run through SGLang's own checks up to and
including the model loader's dtype check (model_loader/loader.py:263-270;
tests.oracle.sglang_quant_capability_oracle, whose dtype is SGLang's
`_get_and_verify_dtype`). It imports no module this rule added, so the measure runs on an
older graphfit tree too."""

from __future__ import annotations

import functools
import json
import tempfile
from pathlib import Path
from typing import Any

from graphfit.inputs.gpus import gpu_capability
from tests.oracle import sglang_quant_capability_compare as cc
from tests.oracle import sglang_quant_capability_oracle as co
from tests.oracle import sglang_quantization_oracle as qo

# the flags of the capability comparison, plus the two whose classes take float32
FLAGS = (*cc.FLAGS, "bitsandbytes", "gguf", "blockwise_int8", "auto-round")
LAYOUTS = cc.LAYOUTS
DTYPES = ("auto", "float16", "half", "bfloat16", "float32", "float")  # --dtype
CHECKPOINT_DTYPES: tuple[str | None, ...] = ("bfloat16", "float16", "float32", None)
GPUS = ("A100", "H100", "B200")
LOADER = "model_loader/loader.py:263-270"


@functools.cache
def model_dir(layout: str | None, checkpoint_dtype: str | None) -> str:
    """A small Llama checkpoint directory: the layout's quantization_config and the
    torch_dtype (None: no torch_dtype key)."""
    root = Path(tempfile.mkdtemp(prefix="graphfit-quant-dtype-"))
    config: dict[str, Any] = {k: v for k, v in cc._LLAMA.items() if k != "torch_dtype"}
    if checkpoint_dtype is not None:
        config["torch_dtype"] = checkpoint_dtype
    if layout is not None:
        config["quantization_config"] = qo.LAYOUTS[layout]
    (root / "config.json").write_text(json.dumps(config))
    return str(root)


def graphfit_line(flag: str | None, layout: str | None, dtype: str,
                  checkpoint_dtype: str | None, gpu: str) -> tuple[int, str]:
    """graphfit's (exit code, last error line) on the pasted line."""
    quant = () if flag is None else ("--quantization", flag)
    given = () if dtype == "auto" else ("--dtype", dtype)
    return cc.planned(model_dir(layout, checkpoint_dtype), (*quant, *given), gpu)


def compare(flag: str | None, layout: str | None, dtype: str, checkpoint_dtype: str | None,
            gpu: str) -> tuple[str, str | None]:
    """(SGLang's verdict: "dtype" for the dtype refusal, else its stage; a disagreement or
    None). Judged: a dtype refusal must be graphfit's dtype refusal; a line that passes the
    loader's checks must not be refused on the dtype. Earlier stops are other rules'."""
    cap = gpu_capability(gpu)
    assert cap is not None
    theirs = co.load(flag, None if layout is None else qo.LAYOUTS[layout], cap,
                     model_dir(layout, checkpoint_dtype), dtype, checkpoint_dtype)
    code, said = graphfit_line(flag, layout, dtype, checkpoint_dtype, gpu)
    ours = LOADER in said
    where = (f"--quantization {flag} --dtype {dtype} on {layout} ({checkpoint_dtype}) "
             f"with {gpu}")
    if co.dtype_refused(theirs):
        if not ours or code != 2:
            return "dtype", f"{where}: SGLang {theirs.said[:110]}; graphfit {code} {said}"
        return "dtype", None
    if theirs.stage in ("passed", "none") and ours:
        return theirs.stage, f"{where}: SGLang passes ({theirs.method}); graphfit {said}"
    return theirs.stage, None
