"""HiCache under DSA DCP, on a pasted line or in graphfit's config file (issue 23, s69r).

Why: SGLang's DeepSeek-family override `_dsa_dcp_overrides`
(arg_groups/model_overrides/deepseek_v2.py:18-22) refuses `--enable-hierarchical-cache` (or its
`--enable-hicache` spelling) with `--dcp-size` above 1 on a DSA checkpoint. The planner's rule
(graphfit.planner.engines.sglang_dsa_dcp) reads HiSparse from the settings, but HiCache is not
one of graphfit's settings: it is a cache switch that changes no graph, so this reader refuses
it where the flags and the model's config.json are at hand, with the same guards (a family DSA
architecture, HYV4 aside, config.json's `index_topk`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs.model_config import local_config
from graphfit.inputs.sglang_hisparse_class import dsa_checkpoint
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines.sglang_attn_default import DSA_ARCHITECTURES
from graphfit.planner.engines.sglang_dsa_dcp import HYV4, WHERE
from graphfit.planner.engines.sglang_hisparse_dsa import FAMILY

KEYS = ("enable_hierarchical_cache", "enable_hicache")


def check(values: Mapping[str, Any]) -> None:
    """ConfigError where `values` (a pasted line's or a file's normalized keys, `model_path`
    the target) set HiCache and `dcp_size` above 1 on a local DSA family checkpoint."""
    dcp = values.get("dcp_size")
    wide = str(dcp).isdigit() and int(str(dcp)) > 1
    model = values.get("model_path")
    if not (wide and any(values.get(k) is True for k in KEYS) and isinstance(model, str)):
        return
    data = local_config(model)
    if not isinstance(data, dict):
        return
    arch = (data.get("architectures") or [None])[0]
    if (arch in FAMILY and arch in DSA_ARCHITECTURES and arch not in HYV4
            and dsa_checkpoint(data)):
        raise ConfigError(f"DSA DCP does not support HiSparse or HiCache; got "
                          f"--enable-hierarchical-cache (ValueError, {WHERE}:21-22)")


__all__ = ["check"]
