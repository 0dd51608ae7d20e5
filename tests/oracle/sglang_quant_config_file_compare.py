"""The comparison behind test_sglang_quant_config_file_oracle.py and
measure_sglang_quant_config_file.py: `--quantization` on a local Llama directory whose
config.json declares no quantization, holding a drawn set of JSON files, read whole by
graphfit and run through SGLang's argument checks, ModelConfig and loader with that directory
as model_path (tests.oracle.sglang_quant_capability_oracle). It imports no module this rule
added, so the measure runs on an older graphfit tree too."""

from __future__ import annotations

import functools
import json
import tempfile
from pathlib import Path
from typing import Any

from tests.oracle import sglang_quant_capability_oracle as co
from tests.oracle.sglang_quant_capability_compare import _LLAMA, FLAGS, planned

MODELOPT_FP8 = {"producer": {"name": "modelopt", "version": "0.19"},
                "quantization": {"quant_algo": "FP8", "kv_cache_quant_algo": None}}
MODELOPT_FP4 = {"producer": {"name": "modelopt", "version": "0.19"},
                "quantization": {"quant_algo": "NVFP4", "group_size": 16,
                                 "kv_cache_quant_algo": None}}
AWQ = {"bits": 4, "group_size": 128, "zero_point": True, "quant_method": "awq"}
AUTO_ROUND = {"bits": 4, "group_size": 128, "sym": True, "quant_method": "auto-round"}
FILES: dict[str, dict[str, Any]] = {
    "none": {},
    "modelopt_fp8": {"hf_quant_config.json": MODELOPT_FP8},
    "modelopt_fp4": {"hf_quant_config.json": MODELOPT_FP4},
    "quantize": {"quantize_config.json": AWQ},
    "quant": {"quant_config.json": AWQ},
    "auto_round": {"quantization_config.json": AUTO_ROUND},
    "two_awq": {"quantize_config.json": AWQ, "quant_config.json": AWQ},
    # a name that only ends with one SGLang looks for (it matches by ending, :379-381)
    "prefixed": {"awq_quantize_config.json": AWQ},
}
EXTRA_FLAGS = ("auto-round", "petit_nvfp4", "modelslim")
GPUS = (("H100", 90),)  # the file search does not hang on the GPU
CANNOT, SEVERAL = "Cannot find the config file", "Found multiple config files"


@functools.cache
def model_dir(files: str) -> str:
    root = Path(tempfile.mkdtemp(prefix="graphfit-quant-files-"))
    (root / "config.json").write_text(json.dumps(_LLAMA))
    for name, body in FILES[files].items():
        (root / name).write_text(json.dumps(body))
    return str(root)


def graphfit_line(flag: str, files: str, gpu: str) -> tuple[int, str]:
    return planned(model_dir(files), ("--quantization", flag), gpu)


def compare(flag: str, files: str, gpu: str, cap: int) -> tuple[str, str | None]:
    """(SGLang's verdict on the file search, a disagreement or None)."""
    theirs = co.load(flag, None, cap, model_dir(files))
    code, said = graphfit_line(flag, files, gpu)
    where = f"--quantization {flag} with {files} on {gpu}"
    if CANNOT in theirs.said or SEVERAL in theirs.said:
        site = "weight_utils.py:382-389" if CANNOT in theirs.said else "weight_utils.py:390-394"
        verdict = "cannot" if CANNOT in theirs.said else "several"
        if site not in said:
            return verdict, f"{where}: SGLang {theirs.said[:80]}; graphfit {code} {said}"
        return verdict, None
    if "weight_utils.py:375)" in said:  # s63c: a config class built bare fails
        if theirs.stage == "before" and theirs.said:
            return "bare", None
        return "bare", f"{where}: SGLang {theirs.stage} {theirs.said[:80]}; graphfit {said}"
    if "weight_utils.py:3" in said:
        return "other", f"{where}: SGLang {theirs.stage} {theirs.said[:80]}; graphfit {said}"
    return "other", None


def lines() -> list[tuple[str, str]]:
    """Every (flag, directory) pair the test and the measure compare."""
    flags = (*(f for f in FLAGS if f is not None), *EXTRA_FLAGS)
    return [(flag, files) for flag in flags for files in FILES]
