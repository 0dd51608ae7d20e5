"""graphfit == SGLang 0.5.23 on the live path: `from_sglang`'s `live_overrides` runs the found
quantization file's class checks a pasted line gets (graphfit.inputs.sglang_quant_live), on
the GPU standing for the server's: a found quantize_config.json under `--quantization
awq_marlin` gets AWQMarlinConfig's own reasons (awq/awq.py:274-284, marlin_utils.py:78-79) or
loads, as SGLang's real ModelConfig and loader answer on that GPU
(tests.oracle.sglang_quant_class_gpu_compare.sglang_reason)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.inputs.gpus import gpu_capability  # noqa: E402
from graphfit.integrations import sglang as gs  # noqa: E402
from graphfit.planner.core.errors import ConfigError  # noqa: E402
from tests.oracle import sglang_quant_class_gpu_compare as cg  # noqa: E402
from tests.oracle.sglang_quant_capability_compare import llama_dir  # noqa: E402

_AWQ = {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True}


def _live(content: dict[str, Any], gpu: str) -> tuple[str, str]:
    """(SGLang's reason, graphfit's live reason) for one found file on a named GPU."""
    folder = llama_dir("graphfit-quant-live-", None)
    (Path(folder) / "quantize_config.json").write_text(json.dumps(content))
    cap = gpu_capability(gpu)
    assert cap is not None
    theirs = cg.sglang_reason("awq_marlin", folder, cap)
    try:
        gs.live_overrides({"model_path": folder, "quantization": "awq_marlin"},
                          {"gpu_memory_gb": gpu}, environ={})
    except ConfigError as exc:
        return theirs, cg.reason(str(exc), sglang=False)
    return theirs, "passed"


def test_live_found_file_checks_give_sglangs_reason() -> None:
    """Marlin's no-type sentence on a T4, a 3-bit file's class refusal on an A100, a good
    file loading on the A100."""
    seen = []
    for content, gpu in ((_AWQ, "T4"), ({**_AWQ, "bits": 3}, "A100"), (_AWQ, "A100")):
        theirs, ours = _live(content, gpu)
        assert theirs == ours, (content, gpu, theirs, ours)
        seen.append(theirs)
    assert seen == ["marlin", "class", "passed"]  # not vacuous
