"""SGLANG_OPT_DSV41_TARGET_METADATA_EARLY, read as SGLang 0.5.23's EnvBool reads it.

The variable (EnvBool, off, environ.py:1897; parsed as environ.py:143-150, a value it cannot
parse keeps the default, :67-86) switches on the DSPARK target verify runner's early verify
metadata (model_executor/runner/early_verify_metadata.py), which keeps four of the runner's
inputs out of the process-wide input pool (decode_cuda_graph_runner.py:505-509, 1814-1827):
graphfit.planner.engines.sglang_dspark_early plans that (issue 23, s54d).
"""

from __future__ import annotations

from collections.abc import Mapping

from graphfit.inputs.settings import COMMAND_LINE, Setting

ENV = "SGLANG_OPT_DSV41_TARGET_METADATA_EARLY"
_TRUE = ("true", "1", "yes", "y")  # EnvBool (environ.py:143-150)
_FALSE = ("false", "0", "no", "n")


def environment(environ: Mapping[str, str]) -> list[Setting]:
    """The setting the variable gives (none where unset or unparsable: SGLang's default)."""
    raw = environ.get(ENV)
    if raw is None or raw.lower() not in (*_TRUE, *_FALSE):
        return []
    return [Setting("dspark_early_verify_metadata", raw.lower() in _TRUE,
                    f"{ENV}={raw}", COMMAND_LINE)]
