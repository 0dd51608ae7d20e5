"""The environment variables SGLang 0.5.23's mamba state cache memory solve reads, as a pasted
line's `VAR=value` prefix (or the shell) gives them: SGLANG_MAMBA_CONV_DTYPE,
SGLANG_PP_LAYER_PARTITION, SGLANG_VLM_CACHE_SIZE_MB and SGLANG_MM_FEATURE_CACHE_MB
(graphfit.planner.engines.sglang_mamba_memory uses them; SGLANG_MAMBA_SSM_DTYPE is read in
graphfit.inputs.environment).

- SGLANG_MAMBA_CONV_DTYPE, an EnvStr (environ.py:1628): `mamba2_state_dtype` looks it up in
  {float32, bfloat16, float16} exactly as written and takes bfloat16 for anything else,
  silently (configs/mamba_utils.py:63-68); every linear-attention state's conv part is
  priced in it (`mamba_cache_per_req`, :116-126).
- SGLANG_PP_LAYER_PARTITION, read with os.getenv by `get_pp_indices` (distributed/utils.py:
  118), which the solve calls for each stage (kv_cache_configurator.py:3238-3247): kept as
  written, parsed where the stage count is known (graphfit.planner.engines.
  sglang_pp_partition).
- SGLANG_VLM_CACHE_SIZE_MB and SGLANG_MM_FEATURE_CACHE_MB, EnvInts (environ.py:1598, 1622;
  `int(value)`, :153-158, a value it cannot parse keeps the default with a warning, :78-86):
  the multimodal reservation taken before the state cache is sized
  (`mm_runtime_reservation_gb`, kv_cache_configurator.py:202-219). A negative size (SGLang
  does not check it; it would hand memory back) is graphfit's ConfigError.
"""

from __future__ import annotations

from collections.abc import Mapping

from graphfit.inputs.settings import COMMAND_LINE, Setting
from graphfit.planner.core.errors import ConfigError

CONV_DTYPE = "SGLANG_MAMBA_CONV_DTYPE"
PP_PARTITION = "SGLANG_PP_LAYER_PARTITION"
MB_SIZES = {"SGLANG_VLM_CACHE_SIZE_MB": "vlm_cache_size_mb",
            "SGLANG_MM_FEATURE_CACHE_MB": "mm_feature_cache_mb"}
CONV_DTYPES = ("float32", "bfloat16", "float16")  # mamba_utils.py:63-67


def mamba_environment(environ: Mapping[str, str]) -> list[Setting]:
    """The settings these variables give (none for a variable unset, or one SGLang reads as
    its default)."""
    out: list[Setting] = []
    conv = environ.get(CONV_DTYPE)
    if conv in CONV_DTYPES:
        out.append(Setting("mamba_conv_dtype", conv, f"{CONV_DTYPE}={conv}", COMMAND_LINE))
    partition = environ.get(PP_PARTITION)
    if partition is not None:
        out.append(Setting("pp_layer_partition", partition, f"{PP_PARTITION}={partition}",
                           COMMAND_LINE))
    for name, field in MB_SIZES.items():
        raw = environ.get(name)
        if raw is None:
            continue
        try:
            value = int(raw)
        except ValueError:
            continue  # SGLang warns and keeps its default
        if value < 0:
            raise ConfigError(f"{name}={raw}: a negative size; graphfit models sizes >= 0 "
                              f"MiB (SGLang kv_cache_configurator.py:210-212 would add it)")
        out.append(Setting(field, value, f"{name}={raw}", COMMAND_LINE))
    return out


__all__ = ["mamba_environment"]
