"""SGLang's flags and variable read only for `check_server_args`'s start-up checks
(arg_groups/validation_hook.py:172-381; graphfit.planner.engines.sglang_server_checks;
issue 23, s67b): `--nnodes` (its node-count asserts, :177-181, 199-202; before, graphfit read it
only beside `--dcp-size`), `--enable-torch-compile` (with `--disable-cuda-graph-padding`,
:188-194; before, ignored) and SGLANG_ENABLE_PP_SPEC (the pipeline-parallel speculative checks,
:119-170; an EnvBool, off, environ.py:1557). Fields: arg_groups/fields/parallel.py,
fields/exec_.py."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs.keys import Handler, field_key
from graphfit.inputs.settings import COMMAND_LINE, Setting
from graphfit.inputs.values import as_bool, as_int
from graphfit.planner.core.enums import Engine

SG = Engine.SGLANG
PP_SPEC = "SGLANG_ENABLE_PP_SPEC"
_TRUE, _FALSE = ("true", "1", "yes", "y"), ("false", "0", "no", "n")  # environ.py:143-150


def _nodes(origin: str, value: Any) -> int:
    """argparse's `type=int`; SglangOptions refuses a count below one."""
    return as_int(origin, value)


KEYS: dict[str, Handler] = {
    "nnodes": field_key("nnodes", _nodes, SG),
    "enable_torch_compile": field_key("enable_torch_compile", as_bool, SG),
}


def environment(environ: Mapping[str, str]) -> list[Setting]:
    """SGLANG_ENABLE_PP_SPEC as SGLang's EnvBool parses it; a value it cannot parse keeps the
    default, off (environ.py:67-86), so no setting."""
    raw = environ.get(PP_SPEC)
    if raw is None or raw.lower() not in (*_TRUE, *_FALSE):
        return []
    return [Setting("pp_spec", raw.lower() in _TRUE, f"{PP_SPEC}={raw}", COMMAND_LINE)]


__all__ = ["KEYS", "PP_SPEC", "environment"]
