"""`dsa_prefill_backend` / `dsa_decode_backend` in graphfit's own config file (issue 23,
s69m), read as a pasted line reads `--dsa-prefill-backend` / `--dsa-decode-backend`
(graphfit.inputs.sglang_hisparse_class).

Why: SGLang checks the backends wherever they come from. Its resolution reads the record's
fields (`_dsa_split_backend_resolution`, arg_groups/overrides.py:600-742), whether argparse
filled them from a line or from a `--config` YAML, whose merger turns each key into its flag
(utils/server_args_config_parser.py:164-181, 208-210). graphfit's config file left these keys
"unknown, ignored", so a file naming triton on CUDA planned a line SGLang refuses. The file's
`model_path` (or graphfit's `--model-path` flag) gives `dsa_checkpoint` as on a pasted line,
which graphfit.planner.engines.sglang_dsa_backends (and, with `enable_hisparse`,
sglang_hisparse_dsa) reads.

A value must be one of the flags' choices (the same set SglangOptions.dsa_backends holds);
an SGLang file's values were already checked against its parser's choices with argparse's
words (graphfit.inputs.sglang_file_choices), so this check speaks for the other files.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs.model_config import local_config
from graphfit.inputs.settings import FILE, Setting
from graphfit.inputs.sglang_hisparse_class import dsa_checkpoint
from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.engines.sglang_hisparse_dsa import DSA_BACKENDS

KEYS = ("dsa_prefill_backend", "dsa_decode_backend")


def settings(keys: Mapping[str, Any], name: str) -> list[Setting]:
    """`dsa_backends` (and `dsa_checkpoint`, `dsa_learnable_sink` for a local target) from
    the file's normalized
    `keys` (its `model_path` filled in from graphfit's flag); none where the file names no
    backend, `dcp_size` is not above 1 and `enable_hisparse` is not true (s69r: HiSparse's
    DSA class assert reads the checkpoint, as on a pasted line). ConfigError where a value
    is not one of the flags' choices."""
    pair: list[str | None] = []
    for key in KEYS:
        value = keys.get(key)
        if value is not None and (not isinstance(value, str) or value not in DSA_BACKENDS):
            raise ConfigError(f"{name}: {key}: expected a --{key.replace('_', '-')} choice "
                              f"(e.g. flashmla_kv, fa3, trtllm), got {excerpt(value)}")
        pair.append(value)
    dcp = keys.get("dcp_size")  # DCP names trtllm for unset sides (sglang_dsa_backends.given)
    wide = str(dcp).isdigit() and int(str(dcp)) > 1
    hisparse = keys.get("enable_hisparse") is True
    if pair == [None, None] and not wide and not hisparse:
        return []
    found = ([Setting("dsa_backends", tuple(pair), f"{name}: {' / '.join(KEYS)}", FILE)]
             if pair != [None, None] else [])
    model = keys.get("model_path")
    data = local_config(model) if isinstance(model, str) else None
    if isinstance(data, dict):
        found += [Setting("dsa_checkpoint", dsa_checkpoint(data), f"{model}/config.json", FILE),
                  Setting("dsa_learnable_sink", bool(data.get("learnable_sink")),
                          f"{model}/config.json", FILE)]
    return found


def kv_asserts(keys: Mapping[str, Any]) -> None:
    """The DSA target's KV dtype asserts (`_dsa_kv_cache_dtype_default`, overrides.py:
    524-544) on the file's `kv_cache_dtype`, as a pasted line meets them (graphfit.inputs.
    sglang_kv_auto.on_line): a file naming fp8_e4m3 for a target with learnable sinks
    planned before (issue 23 s69m)."""
    from graphfit.inputs import sglang_kv_auto

    model = keys.get("model_path")
    data = local_config(model) if isinstance(model, str) else None
    archs = data.get("architectures") if isinstance(data, dict) else None
    arch = archs[0] if isinstance(archs, list) and archs and isinstance(archs[0], str) else None
    given = keys.get("kv_cache_dtype")
    kv = str(given).strip().lower() or None if given is not None else None
    sglang_kv_auto.dsa_asserts(kv, sglang_kv_auto.rule(data, arch))


__all__ = ["KEYS", "kv_asserts", "settings"]
