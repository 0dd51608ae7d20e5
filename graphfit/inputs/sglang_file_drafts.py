"""A DFLASH / DSPARK draft named in graphfit's own `--config` file, read as on a pasted line
(issue 23 s60m).

SGLang's speculative hook reads the draft's config.json at argument resolution: DFLASH's
block size when the line gives none (arg_groups/speculative_hook.py:388-423), DSPARK's gamma
when --speculative-dspark-block-size is not given (:807-840). A pasted line's reader
(graphfit.inputs.sglang_cli.finish: graphfit.inputs.sglang.dflash_line,
graphfit.inputs.sglang_dspark.line) did this; a config file with SGLang's `model_path`
spelling read no draft, so a line SGLang starts was refused for want of
`speculative_num_draft_tokens`. `settings` now runs the same readers on the file's keys
(its `speculative_draft_model_path`, or for DSPARK the draft SGLang fills in from a local
target, speculative_hook.py:720-745), and the pasted line's readers of what the plan sizes
from the draft: its hidden size, vocabulary and dtype (graphfit.inputs.model_config.
draft_settings, graphfit.inputs.sglang_draft_shape: the draft runner's logits and
embeddings) and, for a MiniMax-M3 target, the sparse KV pool's shape with the draft's own
KV (graphfit.inputs.sglang_minimax_kv, whose NVFP4 fields also bring the megamoe token budget
the hook's megamoe implies, mega_moe_hook.py:67-91; read for any file naming a MiniMax-M3
`model_path`). A MiniMax draft's refusal on a MiniMax-M3 NVFP4 target
waits, as on a pasted line, for `settle` (graphfit.inputs.sglang_minimax_draft), which runs
after the hook's GPU-bound checks (graphfit.inputs.sglang_minimax_target.settle_file) and
graphfit's restatement of SGLang's argument resolution.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs import (
    model_config,
    sglang_draft_load,
    sglang_draft_shape,
    sglang_dspark,
    sglang_minimax_draft,
    sglang_minimax_kv,
)
from graphfit.inputs.settings import Resolved, Setting

ALGORITHMS = ("DFLASH", "DSPARK")


def values_of(keys: Mapping[str, Any]) -> dict[str, Any] | None:
    """The file's normalized keys as a pasted line's parsed values, DSPARK's filled-in draft
    included (`sglang_dspark.fill`); None for a file naming neither algorithm."""
    if str(keys.get("speculative_algorithm") or "").upper() not in ALGORITHMS:
        return None
    values = dict(keys)
    sglang_dspark.fill(values)
    return values


def settings(keys: Mapping[str, Any], found: list[Setting], notes: list[str]
             ) -> list[Setting]:
    """`found` with what the draft's config.json gives (module docstring); the DFLASH reader's
    notes appended to `notes`."""
    from graphfit.inputs import sglang as sglang_args

    values = values_of(keys)
    sglang_draft_load.check(keys if values is None else values)  # its load failure (s64c)
    if values is None:
        return found + sglang_minimax_kv.settings(keys)
    found = sglang_args.dflash_line(values, found, notes)
    found = sglang_dspark.line(values, found)
    shape, said = sglang_draft_shape.settings(values)
    notes += said
    draft = values.get("speculative_draft_model_path")
    if isinstance(draft, str):  # its hidden size (commandline.read's draft reader)
        hidden, more = model_config.draft_settings(draft, "draft model", sglang=True)
        shape += hidden
        notes += more
    return found + shape + sglang_minimax_kv.settings(values)


def reads_draft(keys: Mapping[str, Any]) -> bool:
    """Whether `settings` reads the file's `speculative_draft_model_path` (not listed as
    ignored then): a DFLASH / DSPARK file with a target (its `model_path`, or graphfit's
    `--model-path` flag: config_file.with_target, issue 23 s62c)."""
    return "model_path" in keys and values_of(keys) is not None


def settle(keys: Mapping[str, Any], resolved: Resolved) -> None:
    """The MiniMax draft's deferred refusal on an NVFP4 target (module docstring)."""
    values = values_of(keys)
    if values is not None:
        sglang_minimax_draft.settle(values, resolved)


__all__ = ["reads_draft", "settings", "settle", "values_of"]
