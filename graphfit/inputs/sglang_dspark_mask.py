"""DSPARK's mask token id when the target is a hub id: why graphfit cannot check it, said once.

SGLang's DSPARK worker refuses a draft whose mask token id is at or past the TARGET's
embedding rows: the target text config's `padded_vocab_size`, else its `vocab_size`
(dspark_worker_v2.py:250-265 -> `resolve_runtime_config`, dspark_config.py:123-128).
graphfit restates the check when the target's config.json is local
(graphfit.inputs.sglang_dspark `target_vocab`). For a hub id SGLang downloads that config;
graphfit downloads nothing, and no other input carries the bound: graphfit's own
`--vocab-size` is the logits width (the plain vocabulary), which may sit below the padded
rows the worker compares against (a target padding its embedding, e.g. Inkling: vocab 200058,
padded 201024, mask 200064, dspark_worker_v2.py:246-249), so a refusal on it could refuse a
server that starts. The line is planned and a note names the id and SGLang's bound.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs import sglang_dspark_parse
from graphfit.inputs.model_config import config_path
from graphfit.inputs.reading import load_json, shown_path
from graphfit.inputs.sglang_draft import overridden, override_args
from graphfit.planner.core.errors import brief


def unchecked_note(values: Mapping[str, Any]) -> list[str]:
    """The note for a DSPARK line whose draft is local and names a mask id while its target
    is not local; [] otherwise (the check runs, or there is nothing to say)."""
    if str(values.get("speculative_algorithm") or "").upper() != "DSPARK":
        return []
    target, draft = values.get("model_path"), values.get("speculative_draft_model_path")
    if not isinstance(target, str) or config_path(target) is not None:
        return []
    path = config_path(str(draft)) if isinstance(draft, str) else None
    if path is None:
        return []
    data = load_json(path, "DSPARK draft config")
    if not isinstance(data, dict):
        return []  # refused by graphfit.inputs.sglang_dspark, which reads it first
    overrides = override_args(values.get("json_model_override_args"))
    mask = sglang_dspark_parse.parse(overridden(data, overrides) if overrides else data
                                     ).mask_token_id
    if mask is None:
        return []  # refused by the worker check, which needs no target
    return [f"{shown_path(path)}: DSPARK mask_token_id {mask} not checked: the target "
            f"{brief(target)} has no local config.json; SGLang refuses it unless it is below "
            f"the target's padded_vocab_size, else vocab_size (dspark_worker_v2.py:250-265, "
            f"dspark_config.py:123-128)"]
