"""`dtype` in a config file naming `engine: sglang`: SGLang 0.5.23's `--dtype`, not vLLM's.

SGLang's `--config` file is merged into its argument list (a file key is the flag of that
name), so a file's `dtype` is the server's `--dtype`: one of the choices of
arg_groups/fields/model.py:160-176 (argparse refuses any other), and, when explicit, the dtype
of every ModelConfig the server builds: the target's (configs/model_config.py:881,
`_get_and_verify_dtype` :2284-2345, where an explicit --dtype wins over the config.json) and
the draft's, which is built from the same server arguments (graphfit.inputs.sglang_dtype).
`auto` leaves each model its own config's dtype (graphfit.inputs.model_config for the target,
graphfit.inputs.sglang_draft_shape for a pasted line's draft).

A pasted line's own `--dtype` wins over the file's (flags win), as SGLang's command-line
flags win over its config file; the draft reader gives that flag's draft dtype on the
command-line layer for that reason.
"""

from __future__ import annotations

from typing import Any

from graphfit.inputs.settings import Setting
from graphfit.inputs.sglang_dtype import flag_dtype
from graphfit.inputs.values import as_str
from graphfit.planner.core.enums import Engine
from graphfit.planner.core.errors import ConfigError, brief

# arg_groups/fields/model.py:173, in SGLang's order (argparse lists them so)
CHOICES = ("auto", "half", "float16", "bfloat16", "float", "float32")


def file_dtype(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """The file's `dtype` as SGLang's --dtype (module docstring): the target's and the
    draft's dtype when explicit; nothing but the engine for `auto`."""
    text = as_str(origin, value)
    if text not in CHOICES:  # argparse's refusal (case-sensitive, as SGLang's parser)
        shown = ", ".join(repr(c) for c in CHOICES)
        raise ConfigError(f"{origin}: SGLang 0.5.23 refuses it: argument --dtype: invalid "
                          f"choice: {brief(repr(text), 40)} (choose from {shown})")
    engine = Setting("engine", Engine.SGLANG, origin, layer)
    dtype = flag_dtype(text)
    if dtype is None:  # auto: each ModelConfig's own config.json rule
        return [engine], []
    return [Setting("dtype", dtype, origin, layer),
            Setting("draft_dtype", dtype, f"{origin} (the draft's ModelConfig too)", layer),
            engine], []
