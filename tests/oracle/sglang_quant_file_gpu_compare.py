"""The comparison behind test_sglang_quant_file_gpu_oracle.py and
measure_sglang_quant_file_gpu.py: a graphfit config file naming its GPU by name
(`gpu_memory_gb: T4`) must give SGLang 0.5.23's reason for a found quantize_config.json under
`--quantization awq_marlin` / `moe_wna16`, as the `--gpu-memory-gb T4` flag does
(tests.oracle.sglang_quant_class_gpu_compare.compare): below Marlin's SM80 bar AWQMarlinConfig
refuses in `__init__` (awq/awq.py:282-284 with marlin_utils.py:78-79).

SGLang's side: its real ModelConfig + `_get_quantization_config` on the named GPU's
capability. graphfit's: `graphfit plan --config FILE`, the file holding `engine`,
`model_path`, `quantization` and `gpu_memory_gb: GPU` and no other GPU key. It imports no
graphfit module this work added, so the measure scores an older tree too."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from graphfit.inputs.gpus import gpu_capability
from tests.oracle import sglang_compare as sc
from tests.oracle import sglang_quant_class_gpu_compare as cg
from tests.oracle.sglang_quant_capability_compare import llama_dir


def planned_named(folder: str, flag: str, gpu: str) -> tuple[int, str]:
    """graphfit's (exit code, last error line) on `graphfit plan --config FILE`, the file
    naming the GPU in its own `gpu_memory_gb` key."""
    content = {"engine": "sglang", "model_path": folder, "quantization": flag,
               "gpu_memory_gb": gpu}
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as handle:
        handle.write(json.dumps(content))  # JSON is YAML
    code, _, output = sc.run_graphfit(["plan", "--config", handle.name])
    Path(handle.name).unlink()
    errors = [ln for ln in output.splitlines() if ln.startswith("error:")]
    return code, (errors[-1] if errors else "")


def compare_named(flag: str, content: dict[str, Any], gpu: str) -> tuple[str, str | None]:
    """(SGLang's reason, a disagreement or None) for one found file, the GPU named by the
    config file's `gpu_memory_gb`."""
    folder = llama_dir("graphfit-quant-file-gpu-", None)
    (Path(folder) / "quantize_config.json").write_text(json.dumps(content))
    cap = gpu_capability(gpu)
    assert cap is not None
    theirs = cg.sglang_reason(flag, folder, cap)
    code, said = planned_named(folder, flag, gpu)
    ours = cg.reason(said, sglang=False) if code == 2 else "passed"
    if theirs == "crash" or theirs == ours:
        return theirs, None
    return theirs, (f"config file gpu_memory_gb {gpu}: quantization {flag} on "
                    f"{json.dumps(content)[:90]}: SGLang {theirs}, graphfit {code} {said[:160]}")
