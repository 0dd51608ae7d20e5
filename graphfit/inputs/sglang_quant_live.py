"""The live path's found-file class checks (issue 23, s54q): `from_sglang` runs on a running
server's ServerArgs the quantization checks a pasted line gets on its `--model-path`
(graphfit.inputs.sglang_quant_config_file.check_model): SGLang's loader builds the config class
from the one quantization file it finds beside a config.json declaring none
(model_loader/weight_utils.py:396-438), and that class's `__init__` refuses some files, some
on the GPU's capability (awq/awq.py:282-284 with marlin_utils.py:78-79; moe_wna16.py:96-108),
before the loader's own GPU check (model_loader/loader.py:253-262).

The GPU is the caller's `gpu_capability`, else the named GPU standing for the server's
(graphfit.integrations.sglang._stand_in); with neither, the SM80+ wording a pasted line gets
with a GiB figure. The server's `json_model_override_args` apply to its config.json, as on a
pasted line (graphfit.inputs.target_overrides). The notes the pasted path prints (a hub id
not checked) have no channel here and are dropped."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs import model_config, target_overrides
from graphfit.inputs.sglang_quant_config_file import check_model


def _value(server_args: Any, key: str) -> Any:
    if isinstance(server_args, Mapping):
        return server_args.get(key)
    return getattr(server_args, key, None)


def check(server_args: Any, capability: object) -> None:
    """ConfigError with SGLang's reason where the server's model directory and
    `--quantization` would be refused at load; nothing for a hub id or no model."""
    model = _value(server_args, "model_path")
    if not isinstance(model, str):
        return
    cap = capability if isinstance(capability, int) and not isinstance(capability, bool) \
        else None
    with target_overrides.applied(model_config.config_path(model),
                                  _value(server_args, "json_model_override_args")):
        check_model(_value(server_args, "quantization"), model, cap)


__all__ = ["check"]
