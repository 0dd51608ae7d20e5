"""`attention_backend` in a config file read as SGLang's: a name outside SGLang's choices.

SGLang merges its `--config` file into the argument list before parsing (a key becomes the
flag of that spelling, utils/server_args_config_parser.py:164-181), so a value outside
`--attention-backend`'s choices (ATTENTION_BACKEND_CHOICES, arg_groups/choices.py:69-99; the
field at arg_groups/fields/exec_.py:207-213) is refused by argparse, with argparse's message,
before any server code runs. graphfit checks the file's value with the standard library's
argparse over the same choices in SGLang's order (the snapshot flags/sglang.json holds them
sorted, so its message would list them differently), so the refusal carries SGLang's own
words, case-sensitive as SGLang's parser is. A pasted line's flags already go through the
snapshot's parser (graphfit.inputs.sglang_cli).
"""

from __future__ import annotations

from functools import cache

from graphfit.inputs import flagtable
from graphfit.planner.core.errors import ConfigError, fitted

OPTION = "--attention-backend"
# arg_groups/choices.py:69-99, in SGLang's order (argparse lists them so)
ATTENTION_BACKENDS = (
    "triton", "torch_native", "flex_attention", "dsa", "nsa", "qsa", "dsv4", "compressed",
    "fa3", "fa4", "flashinfer", "llada2_cfg_flashinfer", "flashmla", "trtllm_mla",
    "cutedsl_mla", "tokenspeed_mla", "trtllm_mha", "hpc_ops", "minicpm_flashattn",
    "minicpm_flashinfer", "aiter", "wave", "intel_amx", "ascend", "intel_xpu")


@cache
def _parser() -> flagtable.Parser:
    """argparse holding SGLang's one `--attention-backend` action (its choices)."""
    parser = flagtable.Parser(prog="launch_server")
    parser.add_argument(OPTION, choices=ATTENTION_BACKENDS)
    return parser


def check(origin: str, text: str) -> None:
    """Refuse `text` as SGLang's parser does (module docstring)."""
    try:
        _parser().parse_args([OPTION, text])
    except flagtable.Refused as exc:
        raise ConfigError(fitted(f"{origin}: SGLang 0.5.23 refuses it: ", str(exc))) from None
