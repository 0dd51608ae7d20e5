"""A local draft checkpoint SGLang 0.5.23 cannot load (issue 23, s64c).

Every draft worker is a TpModelWorker built with `is_draft_worker=True`
(speculative/draft_worker_common.py:91-96, frozen_kv_mtp_worker_v2.py:149-154), whose
ModelConfig is the draft's (managers/tp_worker.py:465-482); the DFLASH and EAGLE target
runners build the same draft ModelConfig first
(model_executor/model_runner_components/spec_aux_hidden_state.py:148-156, 209-217). That
ModelConfig loads the draft's config.json through `get_config` with the line's
`--json-model-override-args` (configs/model_config.py:612-636, 950-975) and reads its text
config with `get_hf_text_config` (:636). So the target's load failures
(graphfit.inputs.model_config.sglang_load_failure: a plain class's `text_config` null or
without num_attention_heads, utils/hf_transformers/common.py:602-605; an Inkling property
at the top level) stop the draft too, before any draft layer count is read.

Only a local draft directory is read (the line's `--speculative-draft-model-path`, else the
one SGLang fills in: graphfit.inputs.sglang_draft_path). A draft that is the target's own
checkpoint is left to the target's rule, which says it first.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from graphfit.inputs import (
    model_config,
    sglang_draft_layer_entries,
    sglang_mla_reads,
    target_overrides,
)
from graphfit.inputs.reading import shown_path
from graphfit.inputs.sglang_draft_path import draft_path
from graphfit.planner.core.errors import ConfigError

# the algorithms whose draft worker builds a ModelConfig of the draft path: those the draft
# quantization rule reads, and FROZEN_KV_MTP (frozen_kv_mtp_worker_v2.py:149-154)
ALGORITHMS = sglang_draft_layer_entries.ALGORITHMS


def failure(values: Mapping[str, Any]) -> str | None:
    """Why SGLang's draft ModelConfig fails to load the line's local draft (module
    docstring), as one error line; None: it loads, or graphfit does not read it."""
    if str(values.get("speculative_algorithm") or "").upper() not in ALGORITHMS:
        return None
    draft = draft_path(values)
    path = model_config.config_path(draft) if isinstance(draft, str) else None
    if path is None:
        return None
    model = values.get("model_path")
    target = model_config.config_path(model) if isinstance(model, str) else None
    if target is not None and Path(target).resolve() == Path(path).resolve():
        return None  # the target's own checkpoint: the target's rule
    written = model_config.load_config(path)
    data = target_overrides.apply(written, target_overrides.parse(
        values.get("json_model_override_args")))
    # the draft's ModelConfig renames some classes before its MLA reads (issue 23 s66c)
    why = model_config.sglang_load_failure(sglang_mla_reads.draft_renamed(data), written)
    if why is None:
        return None
    return f"the draft {path.parent.name or shown_path(path.parent)}: {why}"[:200]


def check(values: Mapping[str, Any]) -> None:
    """ConfigError with `failure`'s line where the draft does not load; then (s67d) where its
    config's load fails on the entry its one layer reads (graphfit.inputs.
    sglang_draft_layer_entries.check; its build failures go to the planner)."""
    why = failure(values)
    if why is not None:
        raise ConfigError(why)
    sglang_draft_layer_entries.check(values)


__all__ = ["ALGORITHMS", "check", "failure"]
