"""SGLang 0.5.23's platform refusal of prefill context parallelism on ROCm (issue 23 s55g).

`handle_context_parallelism` (arg_groups/parallel_hook.py:95-121) refuses `--enable-prefill-cp`
on a HIP platform for every architecture but DeepseekV4ForCausalLM: "Prefill CP on HIP is
only supported for DeepseekV4ForCausalLM, got '<arch>'." (:114-121). graphfit reads the
platform off the named GPU (an AMD Instinct name is ROCm, graphfit.inputs.sglang_draft_default.
ROCM), which it knows only once the GPU is settled (graphfit.inputs.line_defaults.settle; a
config file's settle in graphfit.cli.options), after the line's other prefill-CP reading
(graphfit.inputs.sglang_prefill_cp.line). So a line that reading refuses (SGLang meets the
V3.2 / MiMo-V2 / CP-TP sharing / strategy checks after this one, :123-154) or calls not
modelled keeps that answer on ROCm; a line it plans is refused here, as SGLang refuses it.

MUSA's refusal (`validate_prefill_cp_platform`, :819-826) is not restated: graphfit names no
MUSA GPU, so no line reaches it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs.model_config import local_config
from graphfit.planner.core.errors import ConfigError

DEEPSEEK_V4 = "DeepseekV4ForCausalLM"  # parallel_hook.py:117


def check(values: Mapping[str, Any], gpu_given: object) -> None:
    """SGLang's HIP refusal (module docstring) for a prefill-CP line on a named ROCm GPU whose
    local config.json names another architecture; nothing where graphfit cannot tell."""
    from graphfit.inputs.gpus import gpu_name
    from graphfit.inputs.sglang_draft_default import ROCM

    if values.get("enable_prefill_cp") is not True or gpu_name(gpu_given) not in ROCM:
        return
    model = values.get("model_path")
    data = local_config(model) if isinstance(model, str) else None
    found = data.get("architectures") if data is not None else None
    arch = found[0] if isinstance(found, list) and found and isinstance(found[0], str) else None
    if arch is None or arch == DEEPSEEK_V4:
        return
    raise ConfigError(f"--enable-prefill-cp: Prefill CP on HIP is only supported for "
                      f"{DEEPSEEK_V4}, got {arch!r}. (SGLang refuses, parallel_hook.py:114-121)")


__all__ = ["check"]
