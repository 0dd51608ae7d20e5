"""Which written sub-config SGLang 0.5.23 takes as a config's text config, or where its
parser fails on one (issue 23, s68c).

`get_hf_text_config` (utils/hf_transformers/common.py:547-613) first turns a dict under
`text_config`, `llm_config`, `language_config` or `thinker_config` into a bare
PretrainedConfig (:566-571); any other value that is not null meets `_sub.dtype = ...` where
the top level has a dtype (a written `torch_dtype` / `dtype`: :572-580), an AttributeError
(`BAD_DTYPE`). It then takes the first of these the config has, null included
(`hasattr`, :582-608):

- `thinker_config` (:583-593): a dict writing `text_config` fails setting that value's
  dtype (:587, a dict or null has none); another dict is the text config, with no
  `num_attention_heads` assert; null: the top level is (:612-613); any other value fails in
  `_patch_text_config` (:541, setting an attribute on it);
- `llm_config` (:594-597): asserts `num_attention_heads` on it (null, a value that is not a
  dict, or a dict without the key fail);
- `language_config` (:598-599): as `thinker_config` without the nested case;
- `text_config` (:600-605): the `num_attention_heads` assert;
- none: the top level is its own text config.

s69f: each written dict is turned into a bare PretrainedConfig in that loop's order
(:566-571; measured on the plain classes, Kimi-Linear, Bailing-hybrid, and Kimi-VL /
Bailing-V3-VL's language_config / llm_config), whose RoPE check fails on some dicts
(graphfit.inputs.sglang_bare_rope): `pick(..., bare=True)` judges them, picked or not, in
the loop's order with the dtype failure.

Measured through the oracle (tests.oracle.test_sglang_draft_load_oracle) on plain classes
(Llama, Qwen2, DeepSeek-V3), SGLang's own Kimi-Linear and its Kimi-VL / Bailing-V3-VL. graphfit
judges the classes whose sub-configs stay written dicts (graphfit.inputs.model_config's
`plain_text_config_failure`); the reads off the picked text config are
graphfit.inputs.sglang_mla_reads'.

s69s: this module is the one statement of the pick's order (`PRIORITY`, `first_key`) and of
the sub-configs whose heads are asserted (`ASSERTED`); graphfit.inputs.sglang_hf_text_config
(the DFLASH layer read) and graphfit.inputs.sglang_processor_path (`hf_config is not
hf_text_config`) call them instead of holding their own copies, each keeping its own
judgement of the picked value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphfit.inputs import sglang_bare_dtype, sglang_bare_rope

# the priority of `get_hf_text_config` (:582-605)
PRIORITY = ("thinker_config", "llm_config", "language_config", "text_config")
# the order of the dict conversion loop (:566)
CONVERTED = ("text_config", "llm_config", "language_config", "thinker_config")
SUB_CONFIGS = frozenset(PRIORITY)
# the sub-configs whose `num_attention_heads` the parser asserts (:597, :605)
ASSERTED = frozenset({"llm_config", "text_config"})
BAD_DTYPE = "580"
_COMMON = "utils/hf_transformers/common.py"


@dataclass(frozen=True)
class Pick:
    """The key of the written sub-config SGLang takes as the text config (None: the top
    level), or `failure`: why its parser fails there (then `key` names the value it fails
    on)."""

    key: str | None
    failure: str | None = None

    def __post_init__(self) -> None:
        if self.key is not None and self.key not in SUB_CONFIGS:
            raise ValueError(f"not a sub-config SGLang picks: {self.key!r}")
        if self.failure is not None and self.key is None:
            raise ValueError("a failure names the sub-config it fails on")


def first_key(written: Mapping[str, Any]) -> str | None:
    """The key `get_hf_text_config` takes (:582-608): the first of PRIORITY the config has,
    null included (`hasattr`); None where it has none. One order for every caller, so that
    the pick's priority is stated once (s69s)."""
    return next((key for key in PRIORITY if key in written), None)


def said(value: Any) -> str:
    """How a bad sub-config value is named in a refusal."""
    return ("null" if value is None else "without num_attention_heads"
            if isinstance(value, dict) else f"as a JSON {type(value).__name__}")


def _fails(key: str, value: Any, how: str, lines: str, kind: str) -> Pick:
    """The parser's failure on `key`'s value (s63c's words for text_config's assert; the
    others' shorter, so that the site fits the 200-character error line)."""
    if key == "text_config" and how == "AssertionError":
        return Pick(key, f"text_config {said(value)} on a {kind} config: SGLang fails to load "
                         f"it (AssertionError, {_COMMON}:602-605)")
    return Pick(key, f"{key} {said(value)} ({kind}): SGLang fails to load it "
                     f"({how}, {_COMMON}:{lines})")


def pick(written: Mapping[str, Any], kind: str, *, bare: bool = False) -> Pick:
    """The sub-config SGLang's parser takes as the text config of the config.json
    `written` (as written: the parser runs before the override args), or its failure
    (module docstring); `kind`: the model type, for the words. `bare` (s69f: `written`
    holds the sub-configs left as dicts): each dict's RoPE dict is judged where the loop
    turns it into a bare PretrainedConfig (:569, graphfit.inputs.sglang_bare_rope), in the
    loop's order with the dtype failure."""
    dtype = any(written.get(key) is not None for key in ("torch_dtype", "dtype"))
    for each in CONVERTED:  # the conversion loop (:566-580)
        sub = written.get(each)
        if isinstance(sub, dict):
            # s70e: the dtype string converted first (graphfit.inputs.sglang_bare_dtype)
            why = (sglang_bare_dtype.failure(sub) or sglang_bare_rope.failure(sub)) if bare \
                else None
            if why is not None:
                return Pick(each, f"{each}: {why}; SGLang fails to load it "
                                  "(hf_transformers/common.py:569)")
        elif sub is not None and dtype:
            return _fails(each, sub, "AttributeError", BAD_DTYPE, kind)
    key = first_key(written)
    if key is None:
        return Pick(None)
    value = written[key]
    if key in ASSERTED:  # the heads assert (:597, :605)
        if isinstance(value, dict) and "num_attention_heads" in value:
            return Pick(key)
        return _fails(key, value, "AssertionError", "597", kind)
    if value is None:  # the top level is the text config (:612-613)
        return Pick(None)
    if not isinstance(value, dict):  # `_patch_text_config` sets attributes on it
        return _fails(key, value, "AttributeError", "541", kind)
    if key == "thinker_config" and "text_config" in value:  # its dtype set (:587)
        return Pick(key, f"thinker_config writes text_config ({kind}): SGLang fails to load "
                         f"it (AttributeError, {_COMMON}:587)")
    return Pick(key)


__all__ = ["ASSERTED", "BAD_DTYPE", "CONVERTED", "PRIORITY", "SUB_CONFIGS", "Pick", "first_key",
           "pick", "said"]
