"""A pasted SGLang line's explicit `--dtype auto` over a config file's explicit dtype.

SGLang's command-line flags win over its `--config` file (the file's arguments are merged
before the line's, utils/server_args_config_parser.py:75-106), so `--dtype auto` on the line
leaves every ModelConfig its own config.json's dtype (`_get_and_verify_dtype`,
configs/model_config.py:2284-2345) whatever dtype the file names. In graphfit `auto` sets
nothing (graphfit.inputs.sglang._line_dtype), so a config file's explicit `dtype`
(graphfit.inputs.sglang_file_dtype, FILE layer) used to win; here the line's auto becomes the
target config's own SGLang dtype on the command-line layer (below graphfit's own `--dtype`
flag, which still wins as before). The draft's side is
graphfit.inputs.sglang_draft_shape (an explicit auto puts the draft config's dtype on the
command-line layer too). A target with no local config.json (a hub id) gets nothing: its
dtype is unknown to graphfit, so the file's stays (said in the coverage doc).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs import model_config
from graphfit.inputs.settings import COMMAND_LINE, Setting

# below every other command-line setting: graphfit's own --dtype flag still wins (as before
# s46f), the line's auto wins over the file's dtype only
BELOW = -1
ORIGIN = "--dtype auto (the target config's own dtype, SGLang's flags win over its file)"


def is_auto(flag: object) -> bool:
    """Whether the line names `--dtype auto` (argparse's choices are case-sensitive)."""
    return flag == "auto"


def line(values: Mapping[str, Any]) -> list[Setting]:
    """The target's dtype on the command-line layer for an explicit `--dtype auto`."""
    model = values.get("model_path")
    if not is_auto(values.get("dtype")) or not isinstance(model, str):
        return []
    found, _ = model_config.model_settings(model, "--model-path", sglang=True)
    return [Setting("dtype", s.value, f"{s.origin}; {ORIGIN}", COMMAND_LINE, priority=BELOW)
            for s in found if s.field == "dtype"]
