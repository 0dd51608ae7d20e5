"""A local draft config.json without the entry SGLang 0.5.23's draft build reads for its one
layer, or with one it cannot read (issue 23, s67d).

Why refused here: SGLang reads these entries unguarded, so such a draft never starts, whatever
the line's a2a backend (graphfit.inputs.sglang_draft_a2a reads the same entries, but only to
pick the draft's MoE class under `--speculative-moe-a2a-backend`, and read a missing one as a
dense layer). Paths are under `sglang/srt/`:

* Step-3.5 / 3.7 (`Step3p5MTP`, configs/model_config.py:1097-1098, 1115-1120): its MTP block
  is decoder layer 45 (models/step3p5_mtp.py:77-87), whose `_is_moe_layer` runs
  `{int(x) for x in config.moe_layers_enum.split(",")}` (models/step3p5.py:543-545). Without
  the key, SGLang's Step3p5Config keeps its default, a tuple (configs/step3p5.py:32, 95): an
  AttributeError; any other non-string likewise; a piece `int` refuses, a ValueError. Before
  that, at the config's load: SGLang's `get_config` parses a `step3p5` / `step3p7` config with
  transformers' class first (utils/hf_transformers/common.py:276-287: its own registration is
  refused as already registered; config.py:228), and transformers 5.25's Step3p7TextConfig
  reads the legacy key where no `mlp_layer_types` is given: `items = enum.split(",")` for a
  string, else the value itself, then `int(i)` of each non-blank item
  (configuration_step3p7.py:212-218). So a non-iterable value is a TypeError and a bad item a
  ValueError already there, which the speculative hook's draft read reaches in resolution
  (arg_groups/speculative_hook.py:152-159, 93); blank pieces ("3,,4") pass there and fail the
  build.
* Exaone-MoE (`ExaoneMoEForCausalLMMTP`, configs/model_config.py:1183-1188): its one layer
  (`num_hidden_layers = 1`, models/exaone_moe_mtp.py:47) reads `config.is_moe_layer[0]`
  (models/exaone_moe.py:497-502), a key neither transformers' config class nor SGLang's
  defines: absent, an AttributeError; an empty list, an IndexError; null or a number, a
  TypeError.
* InternS2-Mobius (configs/model_config.py:1167-1179): the draft ModelConfig copies the text
  config's `mtp_num_experts` and `mtp_num_experts_per_tok` into its expert counts, keys
  SGLang's InternS2MobiusTextConfig does not default (configs/interns2_mobius.py:17-31): absent,
  an AttributeError before any layer is built.

The Mobius read is the draft ModelConfig's, made by every worker that reads a draft path
(graphfit.inputs.sglang_draft_load.ALGORITHMS); the layer reads are restated for the EAGLE
family's draft model (EAGLE, EAGLE3, NEXTN, STANDALONE), which the oracle builds.

Where the draft is the target's own checkpoint, Step-3.5's and Exaone-MoE's target layers read
the same entry first (models/step3p5.py:475-476, exaone_moe.py:466): the line is refused all the
same, the message says so. Only a local draft directory is read (the line's
`--speculative-draft-model-path`, else the one SGLang fills in, graphfit.inputs.
sglang_draft_path), with the line's `--json-model-override-args`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from graphfit.inputs import model_config
from graphfit.inputs.reading import shown_path
from graphfit.inputs.settings import FILE, Setting
from graphfit.inputs.sglang_draft_path import EAGLE_FAMILY, draft_config
from graphfit.inputs.sglang_draft_quant import ALGORITHMS as QUANT_ALGORITHMS
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines.sglang_draft_moe_classes import MOE_LAYER_KEYS

# the workers that build a draft ModelConfig (graphfit.inputs.sglang_draft_load.ALGORITHMS,
# which calls this module)
ALGORITHMS = QUANT_ALGORITHMS | {"FROZEN_KV_MTP"}
_SITES = {"ids": "models/step3p5.py:543-545",
          "flags": "models/exaone_moe.py:497-502"}
# where a load fails: transformers' Step-3.5 config (first in SGLang's get_config, reached in
# resolution by speculative_hook.py:152-159, 93)
_LOAD_SITE = "transformers configuration_step3p7.py:212-218"
# InternS2-Mobius's draft ModelConfig, made by the draft worker after the target's build
_MOBIUS_SITE = "configs/model_config.py:1175-1179"
# the model types whose config transformers' Step3p7TextConfig parses first
_STEP_TYPES = frozenset({"step3p5", "step3p7"})
# InternS2-Mobius: the text config keys the draft ModelConfig reads, in its order
_MOBIUS = "InternS2MobiusForConditionalGeneration"
_MOBIUS_KEYS = ("mtp_num_experts", "mtp_num_experts_per_tok")


def _type(value: Any) -> str:
    """Python's name for a JSON value's type, as SGLang's exception names it."""
    return type(value).__name__


def _loaded(where: Mapping[str, Any]) -> str | None:
    """transformers 5.25's parse of Step-3.5's legacy `moe_layers_enum` (module docstring):
    its exception, or None."""
    value = where.get("moe_layers_enum")
    if where.get("mlp_layer_types") is not None or value is None:
        return None
    items = value.split(",") if isinstance(value, str) else value
    try:
        for item in items:  # transformers' `{int(i) for i in items if str(i).strip()}`
            if str(item).strip():
                int(item)
    except (TypeError, ValueError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def entry_failure(first: str, data: Mapping[str, Any]) -> tuple[str, str, str] | None:
    """(the entry's name, where it fails: "load" or "build", the exception) where SGLang
    cannot make the draft of architecture `first` with config `data` on the entry its one
    layer reads (module docstring); else None. A text config that is no dict is another
    rule's (graphfit.inputs.sglang_draft_load)."""
    if first == _MOBIUS:
        text = data.get("text_config")
        if not isinstance(text, Mapping):
            return None
        for key in _MOBIUS_KEYS:
            if key not in text:
                return key, "build", f"AttributeError: no attribute {key!r}"
        return None
    entry = MOE_LAYER_KEYS.get(first)
    if entry is None:
        return None
    key, layer, in_text, form = entry
    where = data.get("text_config") if in_text else data
    if not isinstance(where, Mapping):
        return None
    if form == "ids":
        if data.get("model_type") in _STEP_TYPES:
            said = _loaded(where)
            if said is not None:
                return key, "load", said
        # SGLang's Step3p5Config default is a tuple (configs/step3p5.py:32)
        value = where.get(key, ())
        if not isinstance(value, str):
            return key, "build", f"AttributeError: {_type(value)!r} object has no attribute " \
                                 f"'split'"
        for piece in value.split(","):  # SGLang's `int(x)` on each piece
            try:
                int(piece)
            except ValueError as exc:
                return key, "build", f"ValueError: {exc}"
        return None
    if key not in where:
        return key, "build", f"AttributeError: no attribute {key!r}"
    try:
        where[key][layer]
    except (IndexError, KeyError, TypeError) as exc:
        return key, "build", f"{type(exc).__name__}: {exc}"
    return None


def failure(values: Mapping[str, Any]) -> tuple[str, str] | None:
    """(where: "load" or "build", why as one error line) where SGLang cannot load or build
    the line's local draft on its layer entry; None where it can, or graphfit does not read
    the draft."""
    method = str(values.get("speculative_algorithm") or "").upper()
    if method not in ALGORITHMS:
        return None
    found = draft_config(values)
    if found is None:
        return None
    path, data, first = found
    said = entry_failure(first, data) if first is not None else None
    if said is None:
        return None
    key, stage, why = said
    if first != _MOBIUS and stage == "build" and method not in EAGLE_FAMILY:
        return None
    site = (_MOBIUS_SITE if first == _MOBIUS else _LOAD_SITE if stage == "load"
            else _SITES[MOE_LAYER_KEYS[str(first)][3]])
    model = values.get("model_path")
    target = model_config.config_path(model) if isinstance(model, str) else None
    same = (target is not None and first != _MOBIUS
            and Path(target).resolve() == Path(path).resolve())
    who = "the target (and draft)" if same else "the draft"
    name = (path.parent.name or shown_path(path.parent))[:40]
    when = "its config load" if stage == "load" else "the draft build"
    return stage, f"{who} {name}: {key!r} fails {when} ({why[:70]}; {site})"[:193]


def check(values: Mapping[str, Any]) -> None:
    """ConfigError where the draft's config fails its load (transformers' parse, reached in
    SGLang's resolution): refused with the line's other reading errors."""
    said = failure(values)
    if said is not None and said[0] == "load":
        raise ConfigError(said[1])


def settings(values: Mapping[str, Any]) -> list[Setting]:
    """`draft_build_failure` where the draft's build fails on its entry: the planner raises it
    at the draft's build, after the target's (SGLang builds the draft model after the
    target's, speculative/eagle_worker_v2.py:178-231)."""
    said = failure(values)
    if said is None or said[0] != "build":
        return []
    return [Setting("draft_build_failure", said[1], "the draft's config.json (as SGLang's "
                    "draft build reads it)", FILE)]


__all__ = ["ALGORITHMS", "check", "entry_failure", "failure", "settings"]
