"""The GPU of a TensorRT-LLM line (issue 23, s64g): `--gpu-memory-gb H100` (or
`gpu_memory_gb: H100` in a config file) names it as for an SGLang line, from the same table
(graphfit.inputs.gpus).

TensorRT-LLM reads the GPU's SM version, `get_sm_version()` (the device's compute capability
major * 10 + minor), where `resolve_moe_backend` resolves `moe_config.backend` AUTO
(tensorrt_llm/_torch/model_config.py@008e0af898:448-486); nothing graphfit plans for it reads
the GPU's memory. So on a TensorRT-LLM line the name's settings (memory, sm90 / sm100 /
gpu_capability / mnnvl_fabric, SglangOptions' fields) become one: TrtllmOptions.sm_version,
the name's capability. A figure in GiB or an AMD name tells no SM version (TensorRT-LLM runs
on NVIDIA GPUs): one `error:` line asks for an NVIDIA GPU's name.
"""

from __future__ import annotations

from graphfit.inputs.settings import Setting
from graphfit.planner.core.errors import ConfigError

# what `--gpu-memory-gb NAME` sets (graphfit.cli.options._gpu, graphfit.inputs.config_file)
GPU_FIELDS = ("gpu_memory_gb", "sm90", "sm100", "gpu_capability", "mnnvl_fabric", "gpu_rocm")
SM_FIELD = "sm_version"


def _key(setting: Setting) -> tuple[bool, int, int]:
    """The merge order of graphfit.inputs.settings.merge: strong over weak, then the later
    layer, then the higher priority."""
    return (not setting.weak, setting.layer, setting.priority)


def sm_settings(settings: list[Setting]) -> list[Setting]:
    """`settings` with the GPU's settings replaced by TrtllmOptions.sm_version: one for each
    `gpu_memory_gb` naming an NVIDIA GPU, its capability (merged as the memory would be);
    ConfigError where a winning one names none (a figure in GiB, an AMD GPU)."""
    memory = [s for s in settings if s.field == "gpu_memory_gb"]
    out = [s for s in settings if s.field not in GPU_FIELDS]
    best = max((_key(s) for s in memory), default=None)
    for given in memory:
        capability = [s.value for s in settings if s.field == "gpu_capability"
                      and s.origin == given.origin and s.layer == given.layer]
        if capability:
            out.append(Setting(SM_FIELD, capability[-1], given.origin, given.layer,
                               given.weak, given.priority))
        elif _key(given) == best:
            raise ConfigError(f"{given.origin}: a TensorRT-LLM line reads the GPU's SM "
                              f"version: name an NVIDIA GPU (A100, H100, B200, GB300, "
                              f"RTX5090 ...), not a figure in GiB or an AMD GPU")
    return out


__all__ = ["GPU_FIELDS", "SM_FIELD", "sm_settings"]
