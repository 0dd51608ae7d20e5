"""Which written dict graphfit reads a plain class's text values from (width, layers,
vocabulary, length keys, RoPE dict, mrope), as SGLang 0.5.23 does (issue 23, s68e).

SGLang's config parser takes the text config with `get_hf_text_config`
(utils/hf_transformers/common.py:547-613): `thinker_config`, then `llm_config`, then
`language_config`, then `text_config` (graphfit.inputs.sglang_text_pick), a written dict
turned into a bare PretrainedConfig (:566-571), kept on the loaded config. The ModelConfig
takes the same object again as its `hf_text_config` (configs/model_config.py:636) and reads
`hidden_size`, `num_hidden_layers` and `vocab_size` off it (:1347, :1566-1605), and
`get_context_length` its length keys and RoPE dict (common.py:677-694). So on a plain class
(graphfit.inputs.sglang_draft_layer_default.CLASS_LAYERS: its transformers class builds no
text sub-config) a picked `thinker_config` / `llm_config` / `language_config` dict is where
the values come from, not a `text_config` beside it (neither read nor asserted, :582-608),
and a null `thinker_config` / `language_config` leaves the top level as the text config
(:612-613), a `text_config` beside it unread. graphfit read `text_config` there until s68e.

The pick is made on the file as written (the parser runs before the override args,
utils/hf_transformers/config.py:258 vs 405-424); the value is read from the config with the
override args applied, as graphfit reads `text_config`. Where the parser fails on the file
(`Pick.failure`), graphfit.inputs.model_config refuses first; here the old reading stays.
SGLang's own config classes (their sub-configs built by the class) are judged elsewhere
(graphfit.inputs.sglang_sub_configs, sglang_class_lengths).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphfit.inputs import sglang_text_pick
from graphfit.inputs.sglang_draft_layer_default import CLASS_LAYERS

TEXT_CONFIG = "text_config"


@dataclass(frozen=True)
class TextSource:
    """The key of the dict graphfit reads the text values from (None: the top level) and
    that dict's value in the config (None where the top level is read)."""

    key: str | None
    value: Any = None

    def __post_init__(self) -> None:
        if self.key is not None and self.key not in sglang_text_pick.SUB_CONFIGS:
            raise ValueError(f"not a sub-config SGLang reads: {self.key!r}")
        if self.key is None and self.value is not None:
            raise ValueError("the top level carries no sub-config value")

    @property
    def prefix(self) -> str:
        """How the error lines name a key read there ("thinker_config.hidden_size")."""
        return "" if self.key is None else f"{self.key}."

    @property
    def picked(self) -> bool:
        """A picked thinker_config / llm_config / language_config dict: SGLang reads the
        values off it alone (a top-level key is not copied down; a length key it does not
        write is get_context_length's 2048, common.py:694, a bare PretrainedConfig having no
        class default)."""
        return self.key not in (None, TEXT_CONFIG)


def text_source(data: Mapping[str, Any], written: Mapping[str, Any], *,
                sglang: bool = True) -> TextSource:
    """Where a config's text values are read: the picked sub-config on a plain class, else
    `text_config` (the reading graphfit had for every class, and keeps for vLLM, whose
    transformers `get_text_config` names `text_config` alone: `sglang` False). `data`: the
    config with the override args; `written`: as written."""
    old = TextSource(TEXT_CONFIG, data.get(TEXT_CONFIG))
    kind = data.get("model_type")
    if not sglang or not isinstance(kind, str) or kind not in CLASS_LAYERS:
        return old
    chosen = sglang_text_pick.pick(written, kind)
    if chosen.failure is not None or chosen.key == TEXT_CONFIG:
        return old
    if chosen.key is None:  # none written, or a null thinker_config / language_config
        return TextSource(None)
    return TextSource(chosen.key, data.get(chosen.key))


__all__ = ["TextSource", "text_source"]
