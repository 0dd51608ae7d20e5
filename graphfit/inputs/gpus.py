"""GPU names as their memory: what `--gpu-memory-gb H100` means.

SGLang picks its default decode max_bs from the memory `nvidia-smi` reports (MiB) divided by
1024 (memory_hook.py:78-180), so the table holds that figure in GiB, not the marketing size:
an "80 GB" H100 reports 81559 MiB = 79.6 GiB. Only the class the figure falls in matters
(< 20, < 35, < 60, < 90, < 160, larger), so nearby values give the same plan.
"""

from __future__ import annotations

import re

from graphfit.planner.core.errors import ConfigError

# name -> GiB as nvidia-smi / rocm-smi report it
GPU_MEMORY_GB: dict[str, float] = {
    "T4": 15.0, "A10": 22.5, "A10G": 22.5, "L4": 22.5, "RTX4090": 24.0, "RTX5090": 31.8,
    "A100-40GB": 40.0, "L40": 45.0, "L40S": 45.0, "A100": 80.0, "A100-80GB": 80.0,
    "H100": 79.6, "H100-NVL": 93.6, "H20": 95.6, "H200": 140.4, "B200": 179.1,
    "GB200": 184.0, "MI300X": 192.0, "MI325X": 256.0,
    # issue 23 s60k: 284672 MiB, the memory NVIDIA's mock NVML profile of a GB300 NVL reports
    # (NVIDIA/k8s-test-infra, nvml-mock profile gb300: 298500227072 bytes); not read off a
    # real GB300's nvidia-smi. It only moves SGLang's default mem_fraction_static
    # (memory_hook.py:314-336); the max_bs tier (>= 160 GiB) is the B200's.
    "GB300": 278.0,
}


# name -> CUDA compute capability major of the NVIDIA names above (the AMD ones run ROCm, where
# SGLang's CUDA probes answer False, utils/common.py:274-285)
GPU_CAPABILITY_MAJOR: dict[str, int] = {
    "T4": 7, "A10": 8, "A10G": 8, "L4": 8, "RTX4090": 8, "RTX5090": 12, "A100-40GB": 8,
    "L40": 8, "L40S": 8, "A100": 8, "A100-80GB": 8, "H100": 9, "H100-NVL": 9, "H20": 9,
    "H200": 9, "B200": 10, "GB200": 10, "GB300": 10,
}


# name -> CUDA compute capability as major * 10 + minor (the figure SGLang's quantization
# overrides compare, e.g. marlin_utils.py:73-79: T4 7.5, A10 / A10G 8.6, L4 / L40 / L40S /
# RTX 4090 8.9, RTX 5090 12.0)
GPU_CAPABILITY: dict[str, int] = {
    "T4": 75, "A10": 86, "A10G": 86, "L4": 89, "RTX4090": 89, "RTX5090": 120, "A100-40GB": 80,
    "L40": 89, "L40S": 89, "A100": 80, "A100-80GB": 80, "H100": 90, "H100-NVL": 90, "H20": 90,
    "H200": 90, "B200": 100, "GB200": 100, "GB300": 103,  # Blackwell Ultra: SM103
}


def gpu_capability(value: object) -> int | None:
    """SglangOptions.gpu_capability for a named NVIDIA GPU; None for a figure in GiB or an
    AMD name (the capability is unknown, or not CUDA's)."""
    name = gpu_name(value)
    return GPU_CAPABILITY.get(name) if name else None


def gpu_sm90(value: object) -> bool | None:
    """SGLang's `is_sm90_supported()` (utils/common.py:274-285, 331-335: capability major 9
    and CUDA >= 12.3) for a named GPU: True for a Hopper name (CUDA >= 12.3 assumed: a Hopper
    under an older CUDA build is set with `sm90: false` in a config file), False for the other
    names; None for a figure in GiB (the generation is unknown)."""
    name = gpu_name(value)
    if not name:
        return None
    return GPU_CAPABILITY_MAJOR.get(name) == 9


def gpu_sm100(value: object) -> bool | None:
    """SGLang's `is_sm100_supported()` (utils/common.py:309-313: capability major 10 and CUDA
    >= 12.8) for a named GPU: True for a datacenter Blackwell name (B200, GB200, GB300; CUDA >= 12.8
    assumed: set `sm100: false` in a config file otherwise), False for the other names (an
    RTX 5090 is SM120); None for a figure in GiB (the generation is unknown)."""
    name = gpu_name(value)
    if not name:
        return None
    return GPU_CAPABILITY_MAJOR.get(name) == 10


def gpu_mnnvl_fabric(value: object) -> bool | None:
    """SGLang's `is_mnnvl_fabric_device()` (utils/common.py:1038-1053) for a named GPU: True
    for a name with GB200 or GB300 in it (both in the table since issue 23 s60k), as SGLang's
    own name check (:1047-1049); None
    otherwise, where SGLang asks NVML whether the GPU completed NVLink fabric registration
    (`is_gpu_fabric_ready`, utils/cuda_vmm_utils.py:162-201), which no name tells (an HGX
    B200 may or may not report it). Only SM100's DCP fi_a2a reads it (issue 23 s55k)."""
    return True if any(tag in gpu_name(value) for tag in ("GB200", "GB300")) else None


# the AMD Instinct names of GPU_MEMORY_GB: ROCm builds of SGLang
ROCM_GPUS = frozenset({"MI300X", "MI325X"})


def gpu_rocm(value: object) -> bool | None:
    """SGLang's `get_platform().is_hip` for a named GPU: True for an AMD Instinct name
    (ROCM_GPUS: a ROCm build); None otherwise (a figure in GiB or an NVIDIA name is read as
    CUDA, as everywhere else). Read by LoRA's V2 modes check (lora_hook.py:20-30; issue 23
    s68l)."""
    return True if gpu_name(value) in ROCM_GPUS else None


def gpu_of_capability(capability: object, sm100: object = None) -> str:
    """A GPU name of the table standing for a compute capability given as SglangOptions.
    gpu_capability (major * 10 + minor, e.g. from the serving process's
    `torch.cuda.get_device_capability()`), or for `sm100=True` alone; "" where neither tells
    a generation the table holds. The live path (graphfit.integrations.sglang.live_overrides)
    runs the GPU-generation rules, which read only the name's capability, on it, as SGLang's
    probes read the device's capability (utils/common.py:274-313)."""
    if isinstance(capability, int) and not isinstance(capability, bool) and capability > 0:
        exact = [name for name, cap in GPU_CAPABILITY.items() if cap == capability]
        if exact:
            return exact[0]
        major = [name for name, cap in GPU_CAPABILITY.items()
                 if cap // 10 == capability // 10 and cap % 10 == 0]
        return major[0] if major else ""
    return "B200" if sm100 is True else ""


def _canonical(name: str) -> str:
    return re.sub(r"[\s_]+", "-", name.strip().upper()).replace("RTX-", "RTX")


def gpu_memory_gb(origin: str, value: object) -> float:
    """A number of GiB, or a GPU name of GPU_MEMORY_GB (case and separators ignored)."""
    if isinstance(value, bool):
        raise ConfigError(f"{origin}: expected GiB or a GPU name, got {value!r}")
    if isinstance(value, (int, float)):
        gb = float(value)
    elif isinstance(value, str):
        text = value.strip()
        try:
            gb = float(text)
        except ValueError:
            key = _canonical(text)
            if key not in GPU_MEMORY_GB:
                known = ", ".join(GPU_MEMORY_GB)
                raise ConfigError(f"{origin}: unknown GPU {value!r} (known: {known}; or give "
                                  f"its memory in GiB)") from None
            return GPU_MEMORY_GB[key]
    else:
        raise ConfigError(f"{origin}: expected GiB or a GPU name, got {value!r}")
    if not gb > 0:
        raise ConfigError(f"{origin}: must be > 0 GiB, got {value!r}")
    return gb


def gpu_name(value: object) -> str:
    """The GPU's name when `value` names one ("" for a figure in GiB or nothing): vLLM's
    batch defaults look at the name too (an A100 stays on the small tier,
    engine/arg_utils.py:2983-2987)."""
    if not isinstance(value, str):
        return ""
    text = value.strip()
    try:
        float(text)
    except ValueError:
        key = _canonical(text)
        return key if key in GPU_MEMORY_GB else ""
    return ""
