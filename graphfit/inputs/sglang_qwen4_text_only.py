"""Qwen4-Exp's text-only checkpoints and a top-level RoPE dict (SGLang 0.5.23, transformers
5.25, measured through the oracle: tests/oracle/test_sglang_qwen4_text_only_oracle.py).

With no `text_config` and `hidden_size` / `num_hidden_layers` at the top level,
Qwen4ExpConfig builds its text config from the top-level keyword arguments
(configs/qwen4_exp.py:143-150, :161). `rope_parameters` is a named argument of that
`__init__` (:134), so it is not among them: the text config, which get_context_length reads
(utils/hf_transformers/common.py:547-612, :677-700), never sees a written
`rope_parameters` (a written `rope_scaling` is a plain kwarg and does reach it). The parent
keeps the written dict (:169-171) and standardizes it in `PreTrainedConfig.__init__`
(:172 -> configuration_utils.py:473 -> modeling_rope_utils.py:820), whose llama3 / yarn /
longrope branch reads `self.max_position_embeddings` (:860) before the parent has any
(the top-level keys are set after, configuration_utils.py:510-517): AttributeError, or a
KeyError first where the dict lacks a key transformers' check of its type needs (measured).

The override args then reach the parent only (utils/hf_transformers/config.py:411-424): a
`rope_scaling` is merged into the parent's dict (the text config's, or the written
`rope_parameters`) and set through transformers' setter, which standardizes it again
(configuration_utils.py:730-739): a merged llama3 / yarn / longrope type reads
`max_position_embeddings` (:860), which the parent has only where the file writes it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs import sglang_context_length

_READS_LENGTH = frozenset({"llama3", "yarn", "longrope"})  # modeling_rope_utils.py:852-860
_NEEDS = {"llama3": ("original_max_position_embeddings", "rope_theta"),  # :1088-1094
          "yarn": ("original_max_position_embeddings",),  # :990-994
          "longrope": ("original_max_position_embeddings",)}  # :1035-1040


def text_only(data: Mapping[str, Any]) -> bool:
    """Whether this is Qwen4-Exp's text-only form (qwen4_exp.py:143-150)."""
    return (data.get("model_type") == "qwen4_exp" and data.get("text_config") is None
            and "hidden_size" in data and "num_hidden_layers" in data)


def _type(rope: Mapping[str, Any]) -> object:
    return rope.get("rope_type", rope.get("type", "default"))


def text_rope(written: Mapping[str, Any]) -> object:
    """The RoPE dict on the text config: the top-level keys without `rope_parameters`,
    standardized as transformers' own text class does."""
    return sglang_context_length.standardized(
        {k: v for k, v in written.items() if k != "rope_parameters"})


def load_failure(written: Mapping[str, Any], overrides: Mapping[str, Any]) -> str | None:
    """Why SGLang fails to load the text-only form with these override args (module
    docstring); None: it loads, or not the text-only form."""
    if not text_only(written):
        return None
    where = "SGLang fails loading it: Qwen4-Exp's text-only parent config"
    rope = written.get("rope_parameters")
    if isinstance(rope, dict) and rope and _type(rope) in _READS_LENGTH:
        kind = str(_type(rope))
        missing = sorted(set(_NEEDS[kind]) - set(rope))
        if missing:
            return (f"{where} checks its {kind} rope_parameters, which needs "
                    f"{', '.join(missing)}: KeyError (modeling_rope_utils.py:1170)")
        return (f"{where} standardizes its {kind} rope_parameters before it has "
                "max_position_embeddings: AttributeError (qwen4_exp.py:172; "
                "modeling_rope_utils.py:860)")
    over = overrides.get("rope_scaling")
    if isinstance(over, dict) and over and "max_position_embeddings" not in written:
        current = rope if isinstance(rope, dict) and rope else text_rope(written)
        merged = {**current, **over} if isinstance(current, dict) else dict(over)
        if _type(merged) in _READS_LENGTH:
            return (f"{where} has no max_position_embeddings, which transformers reads "
                    f"standardizing the {_type(merged)} rope_scaling the override args set: "
                    "AttributeError (configuration_utils.py:739; modeling_rope_utils.py:860)")
    return None
