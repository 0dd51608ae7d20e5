"""A draft model's context-length check on graphfit's own `--config` file (issue 23 s62c),
against SGLang's draft ModelConfig (tests/oracle/sglang_context_length_oracle.
sglang_draft_length: `ModelConfig.from_server_args(..., is_draft_model=True,
context_length=<the target's>)`, configs/model_config.py:1295-1316).

The generated STANDALONE line of `draft_case` is written as graphfit's JSON config file
(SGLang's key spelling); its target is the file's `model_path` or, with `flag=True`,
graphfit's own `--model-path` flag beside a file naming none (SGLang's `--model-path` beside
its `--config`). Before s62c a file's draft was not checked: graphfit planned lines SGLang
refuses."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from tests.oracle import sglang_context_length_oracle as t


def file_keys(model: str, argv: tuple[str, ...], flag: bool) -> dict[str, Any]:
    """The line's flags as file keys (an integer where the value is one)."""
    keys: dict[str, Any] = {"engine": "sglang"} if flag else {"model_path": model}
    words = list(argv)
    while words:
        name, value = words.pop(0)[2:].replace("-", "_"), words.pop(0)
        keys[name] = int(value) if value.isdigit() else value
    return keys


def graphfit_file(model: str, argv: tuple[str, ...], env: dict[str, str], flag: bool,
                  root: str) -> tuple[int | str, list[str]]:
    """graphfit's max_model_len (or its refusal) and notes on the line written as a file."""
    from graphfit.cli.options import resolve_values
    from graphfit.planner.core.errors import GraphfitError

    config = Path(tempfile.mkdtemp(dir=root)) / "serve.json"
    config.write_text(json.dumps(file_keys(model, argv, flag)))
    values: dict[str, Any] = {"gpu_memory_gb": "H100", "config_file": str(config)}
    if flag:
        values["model_path"] = model
    try:
        resolved = resolve_values(values, environ=env)
        return resolved.config().max_model_len, list(resolved.notes)
    except GraphfitError as exc:
        return str(exc), []


def verdict(model: str, draft: str, argv: tuple[str, ...], env: dict[str, str],
            flag: bool, root: str) -> str:
    """"refused" (both) / "agree" (both accept) / "asked" (graphfit warns it cannot check
    the target's or the draft's length) / "differ: ..."."""
    sg = t.sglang_draft_length(model, draft, argv, env)
    gf, notes = graphfit_file(model, argv, env, flag, root)
    if isinstance(sg, str) and isinstance(gf, str):
        return "refused"
    if isinstance(sg, int) and isinstance(gf, int):
        return "agree"
    if isinstance(sg, str) and any("class default" in n for n in notes):
        return "asked"
    return f"differ: SGLang {str(sg)[:100]}, graphfit {str(gf)[:100]}"
