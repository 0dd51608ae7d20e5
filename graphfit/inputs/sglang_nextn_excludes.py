"""Whether a DeepSeek-V3 or GLM-5-Next NextN draft's checkpoint leaves the NextN layer
unquantized in SGLang 0.5.23 (issue 23, s70p). Paths under `sglang/srt/`.

Why read: both classes build their NextN layer with `_resolve_nextn_quant_config`, not the
loader's config as given. That function returns None, so the layer and its experts are built
unquantized, in two cases:

* GLM-5-Next first: the hf config's `quantization_config` (config.json's, the text config's
  winning, configs/glm5_next.py:301-337; hf_quant_config.json is not read here) has an
  `ignore` holding `model.layers.{n}.*`, n the text config's `num_hidden_layers` (default 45,
  :89). This drops any method's config (models/glm5_next_nextn.py:49-68).
* Both classes: the config is Quark and `should_ignore_layer` matches the NextN prefix
  (models/deepseek_nextn.py:265-275). The prefix is `model.layers.{n}` passed through the
  class's weight-name mapper. The match is against the Quark `exclude` list after the loader
  has passed that list through the same mapper (model_loader/loader.py:273-281,
  quark/quark.py:404-411): `WeightsMapper._map_name`, models/utils.py:71-102. Equality, or
  `re.match` for a `re:` entry (quark/utils.py:46-69, 112-141). An entry naming one expert
  does not count here: the prefix does not end in `.experts`.

The mappers:
* DeepSeek-V3's maps the substring `model.layers.61` (deepseek_nextn.py:254-259), whatever n
  is. n defaults to 61 (DeepseekV3Config).
* GLM-5-Next's maps `model.layers.{n}` and `model.language_model.layers.{n}` to
  `model.decoder`, after its target's rules (glm5_next_nextn.py:32-47, glm5_next.py:
  1232-1240).

graphfit used to take every GLM-5-Next draft, and every Quark DeepSeek-V3 one, as dropped.
So it planned lines that SGLang stops at the draft's build:
* a kept layer meets the quantized low-latency assert;
* a dropped one meets the unquantized assert
  (graphfit.planner.engines.sglang_draft_deepep).

Read from the line's local draft (as graphfit.inputs.sglang_mtp_quant reads it), where a
`--speculative-moe-a2a-backend` is given.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from graphfit.inputs.reading import shown_path
from graphfit.inputs.settings import FILE, Setting
from graphfit.inputs.sglang_draft_path import a2a_draft_config
from graphfit.inputs.sglang_mtp_quant import checkpoint_config
from graphfit.planner.engines.sglang_draft_moe_classes import MOE_DRAFTS

DEEPSEEK = "DeepseekV3ForCausalLMNextN"
GLM5_NEXT = "Glm5NextForConditionalGenerationNextN"
# the class -> its `num_hidden_layers` default (DeepseekV3Config; configs/glm5_next.py:89)
DEFAULT_LAYERS = {DEEPSEEK: 61, GLM5_NEXT: 45}
# (substring, prefix, suffix) rules of a WeightsMapper (models/utils.py:56-102)
Rules = tuple[dict[str, str], dict[str, str], dict[str, str]]


def _rules(name: str, layers: int) -> Rules:
    """The class's weight-name mapper for a text config of `layers` layers (module
    docstring)."""
    if name == DEEPSEEK:
        return {"model.layers.61": "model.decoder"}, {}, {}  # deepseek_nextn.py:254-259
    substr = {"model.visual": "visual"}  # glm5_next.py:1232-1240, then glm5_next_nextn.py:32-47
    for ckpt in (f"model.language_model.layers.{layers}", f"model.layers.{layers}"):
        for part in ("eh_proj", "enorm", "hnorm"):
            substr[f"{ckpt}.{part}"] = f"model.{part}"
        substr[ckpt] = "model.decoder"
    return substr, {"model.language_model.": "model."}, {".attn.qkv": ".attn.qkv_proj"}


def map_name(rules: Rules, key: str) -> str:
    """`WeightsMapper._map_name` (models/utils.py:71-102): the longest matching rule of each
    kind, once, substrings then prefixes then suffixes (no rule maps to None here)."""
    substr, prefix, suffix = rules
    for old, new in sorted(substr.items(), key=lambda item: len(item[0]), reverse=True):
        if old in key:
            key = key.replace(old, new, 1)
            break
    for old, new in sorted(prefix.items(), key=lambda item: len(item[0]), reverse=True):
        if key.startswith(old):
            key = key.replace(old, new, 1)
            break
    for old, new in sorted(suffix.items(), key=lambda item: len(item[0]), reverse=True):
        if key.endswith(old):
            key = new.join(key.rsplit(old, 1))
            break
    return key


def _matches(layer: str, target: str) -> bool:
    """`_is_equal_or_regex_match` (quark/utils.py:123-141): equal, or `re.match` for `re:`.
    A pattern Python cannot compile is taken as no match (SGLang raises re.error: Left)."""
    if target.startswith("re:"):
        try:
            return re.match(target[3:], layer) is not None
        except re.error:
            return False
    return target == layer


def quark_excludes(name: str, layers: int, excludes: list[Any]) -> bool:
    """Whether the Quark `exclude` list, mapped as the loader maps it (quark.py:404-411, the
    `language_model.` copies included), matches the class's mapped NextN prefix."""
    rules = _rules(name, layers)
    mapped: list[str] = []
    for entry in excludes:
        if not isinstance(entry, str):
            continue
        out = map_name(rules, entry)
        mapped.append(out)
        if out.startswith("language_model."):
            mapped.append(out.removeprefix("language_model."))
    prefix = map_name(rules, f"model.layers.{layers}")
    return any(_matches(prefix, target) for target in mapped)


def _layers(name: str, data: Mapping[str, Any]) -> int | None:
    """The text config's `num_hidden_layers` (GLM-5-Next's text config wins over the top
    level, configs/glm5_next.py:301-309), its default where absent; None where not an int."""
    text = data.get("text_config") if name == GLM5_NEXT else None
    source = text if isinstance(text, Mapping) and "num_hidden_layers" in text else data
    value = source.get("num_hidden_layers", DEFAULT_LAYERS[name])
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _raw_quant(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """GLM-5-Next's hf `quantization_config`: the text config's, else the top level's
    (configs/glm5_next.py:301-337)."""
    text = data.get("text_config")
    if isinstance(text, Mapping) and isinstance(text.get("quantization_config"), Mapping):
        return text["quantization_config"]  # type: ignore[no-any-return]
    raw = data.get("quantization_config")
    return raw if isinstance(raw, Mapping) else {}


def reason(name: str, path: Path, data: Mapping[str, Any]) -> str | None:
    """"ignore" or "quark" where the class builds its NextN layer with no config (module
    docstring), else None."""
    layers = _layers(name, data)
    if layers is None:
        return None
    if name == GLM5_NEXT:
        ignored = _raw_quant(data).get("ignore", [])
        if isinstance(ignored, (list, tuple, str, Mapping)) and \
                f"model.layers.{layers}.*" in ignored:
            return "ignore"
    cfg = checkpoint_config(path, data)
    method = cfg.get("quant_method") if cfg is not None else None
    if cfg is None or not isinstance(method, str) or method.lower() != "quark":
        return None
    excludes = cfg.get("exclude", [])
    if isinstance(excludes, list) and quark_excludes(name, layers, excludes):
        return "quark"
    return None


def settings(values: Mapping[str, Any]) -> list[Setting]:
    """`draft_nextn_unquantized` for the line's local DeepSeek-V3 / GLM-5-Next NextN draft,
    else nothing."""
    found = a2a_draft_config(values)
    if found is None:
        return []
    path, data, first = found
    built = MOE_DRAFTS.get(first) if first is not None else None
    if built is None or built[0] not in DEFAULT_LAYERS:
        return []
    why = reason(built[0], path, data)
    if why is None:
        return []
    site = "glm5_next_nextn.py:49-68" if why == "ignore" else "deepseek_nextn.py:265-275"
    return [Setting("draft_nextn_unquantized", why,
                    f"{shown_path(path)}: the NextN layer is built unquantized ({why}, {site})",
                    FILE)]


__all__ = ["DEEPSEEK", "DEFAULT_LAYERS", "GLM5_NEXT", "map_name", "quark_excludes", "reason",
           "settings"]
