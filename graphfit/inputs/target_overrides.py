"""`--json-model-override-args` on the TARGET model's config.json, as SGLang 0.5.23 applies it.

SGLang never reads the target's config.json raw: every hook and runner reads
`ModelConfig.hf_config` (`model_config_of(server_args)`, e.g. cuda_graph_hook.py:188-199,
attention_hook.py:624-625), built by `get_config(model_path, model_override_args=
json.loads(json_model_override_args))` (configs/model_config.py:612-626). `get_config` applies
the overrides after loading (utils/hf_transformers/config.py:405-424), key by key, in the
order the JSON object gives them (a DeepSeek-V4.1 config's object flattened first, as the
config itself is: graphfit.inputs.deepseek_v41):

* a dict given for a key whose current value is a sub-config (a `PretrainedConfig`:
  `text_config`, `vision_config`, `audio_config` of a composite config, and the other
  sub-configs of the classes in CLASS_SUB_CONFIGS: Qwen-Omni's thinker / talker, the
  `llm_config` of Bailing-MM, InternVL and Nemotron-H Nano VL, DeepSeek-VL2's
  `language_config`) updates it key by key (`PretrainedConfig.update`: a shallow setattr of
  each key);
* a dict given for `rope_scaling` / `rope_parameters` whose current value is a dict is
  merged into it (`{**current, **value}`);
* any other value replaces the key, and a key the config lacks is added: so a dict-valued
  key that is not a sub-config of its class (`quantization_config`, `linear_attn_config`,
  ... and any key of a class not listed) is replaced whole.

An empty or other falsy JSON value (`{}`, `null`, `[]`, `0`, `false`) is no override
(`if model_override_args:`); a truthy non-object crashes `get_config` on `.items()`; text
that is not JSON crashes `json.loads`. graphfit refuses both with one error line.

graphfit's readers of the target's config.json (graphfit.inputs.model_config, mamba_state,
sglang_post_capture, sglang_draft_default, sglang_a2a, sglang_model_impl, sglang_uno_moe,
sglang_dspark) all load it through `graphfit.inputs.model_config.load_config` /
`local_config`; while a pasted SGLang line (or a live ServerArgs) is read, `applied` tells
those loaders which file is the target's and what to apply, so every reader sees the
overridden config, exactly once, without each signature carrying the overrides. A draft
read from the same directory gets them too, as SGLang's draft ModelConfig does
(model_config.py:950-975).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphfit.inputs import deepseek_v41
from graphfit.planner.core.errors import ConfigError, excerpt

FLAG = "--json-model-override-args"
# keys that HF's composite configs hold as PretrainedConfig sub-configs (merged, not replaced)
SUB_CONFIGS = frozenset({"text_config", "vision_config", "audio_config"})
# model_type -> its class's other sub-configs (held as PretrainedConfig, so merged):
# transformers 5.25's Qwen2.5-Omni / Qwen3-Omni `sub_configs`, SGLang's BailingMM2Config,
# DeepseekVL2Config, InternVLChatConfig (configs/internvl.py:315-319) and
# NemotronH_Nano_VL_V2 (configs/nano_nemotron_vl.py:82-92)
CLASS_SUB_CONFIGS: Mapping[str, frozenset[str]] = {
    "qwen3_omni_moe": frozenset({"thinker_config", "talker_config", "code2wav_config"}),
    "qwen2_5_omni": frozenset({"thinker_config", "talker_config", "token2wav_config"}),
    "bailingmm_moe_v2_lite": frozenset({"llm_config"}),
    "internvl_chat": frozenset({"llm_config"}),
    "NemotronH_Nano_VL_V2": frozenset({"llm_config"}),
    "deepseek_vl_v2": frozenset({"language_config", "projector_config"}),
    # Janus builds a LlamaConfig (configs/janus_pro.py:152-156; issue 23, s42c)
    "multi_modality": frozenset({"language_config"}),
}
# model_type -> sub-configs its loaded config holds as plain dicts, so an override dict
# replaces them whole (`isinstance(current, PretrainedConfig)` fails, config.py:413): the
# text_config of MiniMax-M3-VL (measured through the oracle: issue 23, s41c / s42c), and of
# SGLang's own Qwen3NextConfig (configs/qwen3_next.py), whose parsed config keeps a written
# text_config as a dict (measured through the oracle: issue 23, s64c)
PLAIN_SUB_CONFIGS: Mapping[str, frozenset[str]] = {"minimax_m3_vl": frozenset({"text_config"}),
                                                   "qwen3_next": frozenset({"text_config"}),
                                                   # issue 23 s67c: SGLang's own
                                                   # KimiLinearConfig / BailingHybridConfig
                                                   # (measured through the oracle)
                                                   "kimi_linear": frozenset({"text_config"}),
                                                   "bailing_hybrid": frozenset({"text_config"})}
# dict-valued keys merged into a dict they replace (hf_transformers/config.py:415-422)
MERGED_DICTS = frozenset({"rope_scaling", "rope_parameters"})
WHERE = "utils/hf_transformers/config.py:405-424"


def parse(value: object) -> dict[str, Any]:
    """The flag's value as `json.loads` + get_config's truth test read it: {} for SGLang's
    default "{}" and any falsy JSON; ConfigError (one line) for text that is not JSON or a
    truthy value that is not an object (both crash SGLang's start-up)."""
    if value is None:
        return {}
    if isinstance(value, Mapping):
        return dict(value)
    if not isinstance(value, str):
        raise ConfigError(f"{FLAG}: expected JSON text, got {excerpt(value)}")
    try:
        parsed = json.loads(value)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{FLAG}: not JSON ({exc.msg[:60]}, char {exc.pos}): SGLang's "
                          f"json.loads fails (configs/model_config.py:612)") from None
    if not parsed:
        return {}
    if not isinstance(parsed, dict):
        raise ConfigError(f"{FLAG}: expected a JSON object, got {excerpt(parsed)}: SGLang's "
                          f"get_config crashes on it ({WHERE})")
    return parsed


def apply(data: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """The config.json object with the overrides applied as `get_config` applies them
    (module docstring); `data` is not changed."""
    out = dict(data)
    kind = data.get("model_type")
    name = kind if isinstance(kind, str) else ""
    subs = (SUB_CONFIGS | CLASS_SUB_CONFIGS.get(name, frozenset())) - PLAIN_SUB_CONFIGS.get(
        name, frozenset())
    for key, value in overrides.items():
        current = out.get(key)
        if isinstance(value, dict) and isinstance(current, dict) and (
                key in subs or key in MERGED_DICTS):
            out[key] = {**current, **value}
        else:
            out[key] = value
        if key in DTYPE_ALIASES and DTYPE_ALIASES[key] in out:
            # transformers keeps one attribute: `torch_dtype` is an alias of `dtype`, so an
            # override of either replaces the other as written (issue 23, s44r; measured
            # by tests/oracle/measure_sglang_target_dtype)
            out[DTYPE_ALIASES[key]] = value
    return out


DTYPE_ALIASES = {"torch_dtype": "dtype", "dtype": "torch_dtype"}


@dataclass(frozen=True)
class Target:
    """The target's config.json (resolved path) and the overrides SGLang applies to it."""

    path: Path
    overrides: Mapping[str, Any] = field(default_factory=dict)


_TARGET: ContextVar[Target | None] = ContextVar("graphfit_sglang_target", default=None)


def _resolved(path: Path) -> Path:
    try:
        return path.expanduser().resolve()
    except (OSError, RuntimeError):  # a looping link: compared as written
        return path


@contextlib.contextmanager
def applied(config: Path | None, value: object) -> Iterator[None]:
    """While reading one SGLang line: the target config.json `config` (None: no local file)
    is loaded with `value` (the flag's text) applied. Bad JSON is refused here, before any
    reader runs."""
    overrides = parse(value)
    if config is None or not overrides:
        yield
        return
    token = _TARGET.set(Target(_resolved(config), overrides))
    try:
        yield
    finally:
        _TARGET.reset(token)


def on_load(path: Path, data: Any) -> Any:
    """A loaded config.json object as SGLang sees it: a DeepSeek-V4.1 config flattened as its
    config class does (graphfit.inputs.deepseek_v41), then overridden when `path` is the
    target's of the line being read, the override object flattened first for V4.1
    (utils/hf_transformers/config.py:406-407); else as written."""
    v41 = deepseek_v41.is_v41(data)
    if v41:
        data = deepseek_v41.normalize(data, str(path))
    target = _TARGET.get()
    if target is None or not isinstance(data, dict) or _resolved(path) != target.path:
        return data
    overrides = target.overrides
    if v41:
        overrides = deepseek_v41.normalize(overrides, f"{path} ({FLAG})")
    return apply(data, overrides)


def shown(path: Path, origin: str) -> str:
    """An error origin naming `path`: with the override args said when they apply to it, so a
    bad value they set is not blamed on the file alone."""
    target = _TARGET.get()
    if target is None or _resolved(path) != target.path:
        return origin
    return f"{origin} (with {FLAG})"


def overrides_for(path: Path) -> Mapping[str, Any]:
    """The override args applied to `path` while the current line is read ({}: none), for a
    reader that must apply them after its own normalization of the written file
    (graphfit.inputs.sglang_context_length: transformers standardizes the written RoPE dict
    before get_config sets the overrides)."""
    target = _TARGET.get()
    if target is None or _resolved(path) != target.path:
        return {}
    return target.overrides
