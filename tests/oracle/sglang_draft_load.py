"""SGLang 0.5.23's answer on a plain text class whose config.json writes a `text_config`
(issue 23, s64c): its own `ModelConfig` built on the directory with the line's override args
(configs/model_config.py:573-636: `get_config`, whose parser asserts on the text config,
utils/hf_transformers/config.py:258 and common.py:602-605, then `_derive_model_shapes`'
reads), on the fake CUDA device. graphfit's answer is
`graphfit.inputs.model_config.plain_text_config_failure` on the file with the overrides
applied (graphfit.inputs.target_overrides.apply) and as written.
"""

from __future__ import annotations

import json
import random
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_stubs
from tests.oracle.config_dirs import content_dir

# what a text_config dict may write (values of a small Llama)
KEYS = {"num_attention_heads": 16, "hidden_size": 1024, "num_hidden_layers": 2,
        "vocab_size": 128256, "num_key_value_heads": 4, "head_dim": 64}
_LLAMA = {"architectures": ["LlamaForCausalLM"], "hidden_size": 1024,
          "intermediate_size": 2816, "num_hidden_layers": 4, "num_attention_heads": 16,
          "num_key_value_heads": 4, "vocab_size": 128256, "max_position_embeddings": 131072,
          "torch_dtype": "bfloat16"}
# issue 23 s65c: plain types given an MLA architecture (configs/model_config.py:1366-1400
# reads the latent sizes off the text config), and what their text_config may also write
MLA_TYPES = {"deepseek_v3": "DeepseekV3ForCausalLM", "deepseek_v2": "DeepseekV2ForCausalLM",
             # issue 23 s67c: SGLang's own classes keeping a text_config dict
             # (graphfit.inputs.sglang_mla_reads.OWN_TEXT_DICT_CLASSES)
             "kimi_linear": "KimiLinearForCausalLM", "bailing_hybrid": "BailingMoeV2_5ForCausalLM"}
OWN_TYPES = ("kimi_linear", "bailing_hybrid")
# s67c: SGLang's own VL classes whose language_config dict wins over their text config
# (graphfit.inputs.model_config.LANGUAGE_CONFIG_CLASSES)
LANGUAGE_KINDS = ("kimi_vl/KimiVLForConditionalGeneration/language_config",
                  "bailing_moe_v3_vl/BailingMoeV3VLForConditionalGeneration/language_config")
MLA_KEYS = {"kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
            "v_head_dim": 128}
# issue 23 s66c: the classes a drawn case may name instead (written as "TYPE/CLASS"): the other
# MLA branches' (configs/model_config.py:1443-1517, graphfit.inputs.sglang_mla_reads), a
# first-branch one, and classes a draft's ModelConfig renames into another branch
# (:1063-1064, :1121-1127)
BRANCH_CLASSES = ("MiniCPM3ForCausalLM", "DeepseekVL2ForCausalLM",
                  "KimiVLForConditionalGeneration", "KimiLinearForCausalLM",
                  "KimiK3LinearForCausalLM", "KimiK3ForConditionalGeneration",
                  "BailingMoeV2_5ForCausalLM", "BailingMoeForCausalLMNextN",
                  "BailingMoeV3ForCausalLM", "BailingMoeV3VLForConditionalGeneration",
                  "SarvamMLAForCausalLM", "PixtralForConditionalGeneration",
                  "DeepseekV3ForCausalLM", "BailingMoeV2ForCausalLM", "Glm4MoeForCausalLM")
# the branch conditions' switches a text config may write (:1448-1450, :1497-1499)
SWITCHES = {"use_mla": False, "use_mla_nope": True}
# issue 23 s67c: DeepSeek-V4's top-level reads (:1423-1429), written at the top (override
# args) or in the text config (copied up, utils/hf_transformers/config.py:258-267); a case's
# keys are null at `NULL` each (the sums that use them, :1347, :1424, :1504, :1510, :1613); a
# config.json writing no text_config at all (s67c: SGLang's own classes, `OWN_TYPES`; s68c: the
# plain classes too) is drawn with `ABSENT` as its text config
V4_KEYS = {"qk_rope_head_dim": 64, "head_dim": 192, "sliding_window": 128, "index_head_dim": 128,
           "compress_ratios": [1, 4]}
V4_CLASSES = ("DeepseekV4ForCausalLM", "DeepseekV4ForCausalLMNextN")
NULL = 0.06
# the keys drawn null: not the width, layers or vocabulary, which SGLang's ModelConfig stores
# null (to fail later, in the model's build) where graphfit's reader refuses them
NULLABLE = frozenset({*MLA_KEYS, *V4_KEYS, "num_attention_heads"})
ABSENT = "(no text_config)"
# text_config values that are not dicts
OTHER = (None, "x", [1])
Case = tuple[str, Any, "dict[str, Any] | None"]  # (model_type, text_config, override args)


@cache
def root() -> Path:
    return Path(tempfile.mkdtemp(prefix="graphfit-draft-load-"))


def config(model_type: str, text: Any) -> dict[str, Any]:
    """The small Llama config.json under `model_type`, writing `text` as its text_config
    (`model_type` "TYPE/CLASS": that type, naming CLASS, issue 23 s66c)."""
    kind, _, named = model_type.partition("/")
    named, _, sub = named.partition("/")  # s67c: "TYPE/CLASS/KEY": `text` written under KEY
    architecture = named or MLA_TYPES.get(kind, "LlamaForCausalLM")
    written = {**_LLAMA, "architectures": [architecture], "model_type": kind}
    if "+" in sub:  # s68c: "KEY+KEY...": `text` lists their values ("-KEY": KEY dropped)
        for key, value in zip([k for k in sub.split("+") if k], text, strict=True):
            if key.startswith("-"):
                written.pop(key[1:], None)
            else:
                written[key] = value
        return written
    return written if text == ABSENT else {**written, sub or "text_config": text}


def folder(model_type: str, text: Any) -> str:
    return content_dir(root(), json.dumps(config(model_type, text), sort_keys=True))


def sglang(case: Case, path: str | None = None, draft: bool = False) -> str:
    """"loads", or the failure's exception class name and SGLang file:line (`path`: that
    model directory, with the case's override args, instead of the case's; `draft`: the
    draft worker's ModelConfig, which renames some classes first, configs/model_config.py:
    1011-1215)."""
    import traceback

    model_type, text, overrides = case
    so.oracle()
    with so.sglang_stubs.imports():
        from sglang.srt.configs.model_config import ModelConfig
    with sglang_stubs.fake_cuda(80 * 1024):
        try:
            ModelConfig(model_path=path or folder(model_type, text),
                        model_override_args=json.dumps(overrides or {}),
                        is_draft_model=draft)
        except Exception as exc:  # compared by whether it loads; the site is reported
            frames = [f for f in traceback.extract_tb(exc.__traceback__)
                      if "sglang" in f.filename]
            site = f"{frames[-1].filename.split('srt/')[-1]}:{frames[-1].lineno}" \
                if frames else "?"
            return f"{type(exc).__name__} {site}"
    return "loads"


def graphfit(case: Case, failure: Any = None, draft: bool = False) -> str | None:
    """graphfit's failure line for the case, or None (`failure`: another tree's
    plain_text_config_failure, called on the overridden config only, as main's takes one;
    `draft`: as the draft's, with its class renamed as graphfit.inputs.sglang_draft_load
    does, issue 23 s66c)."""
    from graphfit.inputs import target_overrides

    model_type, text, overrides = case
    written = config(model_type, text)
    data = target_overrides.apply(written, overrides or {})
    if failure is not None:
        return failure(data)
    from graphfit.inputs import sglang_mla_reads
    from graphfit.inputs.model_config import sglang_load_failure

    return sglang_load_failure(sglang_mla_reads.draft_renamed(data) if draft else data, written)


def types() -> list[str]:
    """The model types a case is drawn from: the plain classes, and (s67c) SGLang's own
    classes that keep a text_config dict."""
    from graphfit.inputs.sglang_draft_layer_default import CLASS_LAYERS

    return [*sorted(CLASS_LAYERS), *OWN_TYPES]


# issue 23 s68c: the sub-configs SGLang's parser picks before text_config
# (graphfit.inputs.sglang_text_pick), drawn one or two at a time, over a file with or without
# a top-level dtype (the conversion's AttributeError needs one)
SUB_KEYS = ("thinker_config", "llm_config", "language_config", "text_config")
LANGUAGE_TYPES = tuple(kind.rsplit("/", 1)[0] for kind in LANGUAGE_KINDS)


def draw_sub(rng: random.Random, types: list[str]) -> Case:
    """A drawn case writing sub-configs beside or instead of text_config (s68c): a plain
    type, one of SGLang's own, or a Kimi-VL / Bailing-V3-VL class (sometimes naming
    another MLA branch's class), one or two of `SUB_KEYS`, each a dict (some keys left out
    or null; a thinker_config writing its own text_config), null or another value."""
    kind = rng.choice([*types, *LANGUAGE_TYPES])
    if "/" not in kind and rng.random() < 0.35:
        kind = f"{kind}/{rng.choice(BRANCH_CLASSES)}"
    keys = rng.sample(SUB_KEYS, rng.choice((1, 1, 2)))
    values: list[Any] = []
    for key in keys:
        if rng.random() < 0.3:
            values.append(None if rng.random() < 0.5 else rng.choice(OTHER[1:]))
            continue
        value = {k: None if k in NULLABLE and rng.random() < NULL else v
                 for k, v in {**KEYS, **MLA_KEYS}.items() if rng.random() < 0.8}
        if key == "thinker_config" and rng.random() < 0.15:
            value["text_config"] = dict(KEYS)
        values.append(value)
    if "/" not in kind:
        kind = f"{kind}/"
    if rng.random() < 0.3:
        keys, values = [*keys, "-torch_dtype"], [*values, None]
    return f"{kind}/{'+'.join([*keys, ''])}", values, None


def class_fields(kind: str) -> list[str]:
    """The fields transformers 5.25's config class of the plain type `kind` declares (s68c:
    graphfit.inputs.sglang_strict_nulls), read off the class itself."""
    from transformers import CONFIG_MAPPING

    fields: dict[str, object] = {}
    for klass in reversed(CONFIG_MAPPING[kind].__mro__):
        if klass.__module__.startswith("transformers.models"):
            fields.update(getattr(klass, "__annotations__", {}))
    return sorted(set(fields) - {"architectures", "model_type", "torch_dtype"})


def draw_strict(rng: random.Random, types: list[str]) -> Case:
    """A drawn case writing one or two of a plain type's class fields null at the top level
    of its config.json (s68c), on its own or another MLA branch's class."""
    from graphfit.inputs.sglang_draft_layer_default import CLASS_LAYERS

    kind = rng.choice(sorted(set(types) & set(CLASS_LAYERS)))
    keys = rng.sample(class_fields(kind), rng.choice((1, 1, 2)))
    named = rng.choice(("", *BRANCH_CLASSES)) if rng.random() < 0.3 else ""
    return f"{kind}/{named}/{'+'.join([*keys, ''])}", [None] * len(keys), None


def draw(rng: random.Random, types: list[str]) -> Case:
    """A drawn case: a plain type, a text_config (a subset of KEYS, some null, not a dict,
    or none at all), and on some an override of the text config (a subset of KEYS, or
    null) or of top-level keys."""
    if rng.random() < 0.12:  # s68c: sub-configs SGLang picks before text_config
        return draw_sub(rng, types)
    if rng.random() < 0.08:  # s68c: class fields written null
        return draw_strict(rng, types)
    if rng.random() < 0.08:  # s67c: a language_config dict, some keys null
        return rng.choice(LANGUAGE_KINDS), {
            k: None if k in NULLABLE and rng.random() < NULL else v
            for k, v in {**KEYS, **MLA_KEYS}.items() if rng.random() < 0.8}, None
    kind = rng.choice(types)
    keys = {**KEYS, **MLA_KEYS} if kind in MLA_TYPES else KEYS
    top: dict[str, Any] = {}
    if rng.random() < 0.35:  # s66c: another MLA branch's class, its switches, top-level sizes
        kind = f"{kind}/{rng.choice(BRANCH_CLASSES + V4_CLASSES)}"  # s67c: V4's
        keys = {**KEYS, **MLA_KEYS, **V4_KEYS,
                **{k: v for k, v in SWITCHES.items() if rng.random() < 0.2}}
        top = {k: None if rng.random() < NULL else v
               for k, v in {**MLA_KEYS, **V4_KEYS}.items() if rng.random() < 0.15}
    keys = {k: None if k in NULLABLE and rng.random() < NULL else v  # s67c: nulls
            for k, v in keys.items()}
    text: Any = (ABSENT if rng.random() < (0.3 if kind.partition("/")[0] in OWN_TYPES
                                           else 0.12)  # s68c: plain classes' too
                 else rng.choice(OTHER) if rng.random() < 0.15
                 else {k: v for k, v in keys.items() if rng.random() < 0.75})
    overrides: dict[str, Any] | None = None
    if rng.random() < 0.3:
        overrides = {"text_config": None if rng.random() < 0.15 else
                     {k: v for k, v in keys.items() if rng.random() < 0.4}}
    if top:
        overrides = {**(overrides or {}), **top}
    return kind, text, overrides
