"""A plain class's config.json whose text values SGLang reads off a picked sub-config
(issue 23, s68e): `thinker_config`, `llm_config` or `language_config` (a dict, or a null
thinker_config / language_config: the top level), with or without a `text_config` beside it
whose values differ. SGLang side: its own ModelConfig for the line
(tests.oracle.sglang_context_length_oracle's `so.resolve`) read back as (hidden_size,
num_hidden_layers, vocab_size, context_len, dtype), or its refusal. graphfit side: the
pasted line (graphfit.inputs.commandline.read) refused, else its reader's values
(graphfit.inputs.model_config.read_model: hidden_size, num_hidden_layers, vocab_size,
sglang_context_length) and the line's dtype setting. Used by test_sglang_text_values_oracle
and measure_sglang_text_values.

s69f: the draw also writes dtypes in the sub-configs and at the top level (and a gemma
model_type in the sub-config: float32's bfloat16 rule), and RoPE dicts SGLang's bare
sub-config refuses (`BAD_ROPES`: missing keys, lengths not written, `rope_theta` beside a
`rope_scaling`) in the picked dict or in a `text_config` beside it.
"""

from __future__ import annotations

import inspect
import json
import random
import tempfile
from pathlib import Path
from typing import Any

from tests.oracle import sglang_context_length_oracle as t
from tests.oracle import sglang_oracle as so

PICKED = ("thinker_config", "llm_config", "language_config")
NULLABLE = ("thinker_config", "language_config")  # null: the top level (common.py:612-613)
TYPES = {"llama": "LlamaForCausalLM", "qwen2": "Qwen2ForCausalLM"}
# the picked dict's values: all differ from t.BASE's top level and from TEXT's
SUB = {"hidden_size": 3072, "num_hidden_layers": 12, "num_attention_heads": 24,
       "vocab_size": 64000, "max_position_embeddings": 16384}
TEXT = {"hidden_size": 2048, "num_hidden_layers": 8, "num_attention_heads": 16,
        "vocab_size": 32000, "max_position_embeddings": 4096}
DROPPABLE = ("hidden_size", "num_hidden_layers", "vocab_size", "max_position_embeddings")
Values = tuple[int, int, int, int, str] | str
DTYPES = ("bfloat16", "float16", "float32")
# RoPE dicts a bare PretrainedConfig refuses (with the sub-config's written length) or loads
BAD_ROPES: tuple[dict[str, Any], ...] = (
    {"rope_type": "yarn", "factor": 4.0},
    {"type": "yarn", "factor": 2.0},
    {"rope_type": "linear"},
    {"rope_type": "dynamic"},
    {"rope_type": "llama3", "factor": 4.0, "original_max_position_embeddings": 8192,
     "low_freq_factor": 1.0, "high_freq_factor": 4.0},
    {"rope_type": "longrope", "factor": 2.0},
    {"rope_type": "proportional"},
    {"rope_type": "default"},
    {"rope_type": "unknown_kind", "factor": 2.0},
    {"rope_type": "llama3", "factor": 4.0, "original_max_position_embeddings": 8192,
     "low_freq_factor": 1.0, "high_freq_factor": 4.0, "rope_theta": 10000.0},
)
_ROOT = tempfile.mkdtemp(prefix="graphfit-text-values-")


def rope(rng: random.Random) -> dict[str, Any]:
    """A RoPE scaling dict that changes the context length."""
    kind = rng.choice(("linear", "dynamic", "yarn"))
    found: dict[str, Any] = {"rope_type": kind, "factor": rng.choice((2.0, 4.0))}
    if kind == "yarn":  # without it SGLang's bare sub-config refuses (not judged: Left)
        found["original_max_position_embeddings"] = 8192
    return found


def config(model_type: str, key: str, value: Any, text: Any = None,
           with_text: bool = False) -> dict[str, Any]:
    """t.BASE under `model_type` with `key` written `value` (and `text_config` `text`)."""
    found = dict(t.BASE, model_type=model_type, architectures=[TYPES[model_type]])
    found[key] = value
    if with_text:
        found["text_config"] = text
    return found


def draw(rng: random.Random) -> dict[str, Any]:
    """A drawn config: the picked key, its value (a dict, some keys left out, a RoPE dict at
    times; null now and then where the parser reads the top level), a text_config beside it
    half the time, a top-level RoPE dict at times."""
    key = rng.choice(PICKED)
    value: Any
    if key in NULLABLE and rng.random() < 0.2:
        value = None
    else:
        value = dict(SUB)
        for name in DROPPABLE:
            if rng.random() < 0.08:
                del value[name]
        if rng.random() < 0.5 and "max_position_embeddings" in value:  # yarn reads it
            value[rng.choice(("rope_scaling", "rope_parameters"))] = rope(rng)
    text = dict(TEXT)
    if rng.random() < 0.4:
        text["rope_scaling"] = rope(rng)
    found = config(rng.choice(sorted(TYPES)), key, value, text, rng.random() < 0.5)
    if rng.random() < 0.3:
        found["rope_scaling"] = rope(rng)
    for sub in (found.get(key), found.get("text_config")):  # s69f
        if isinstance(sub, dict):
            dtypes(rng, sub)
            if rng.random() < 0.15:
                bad_rope(rng, sub)
    top = rng.choice((*DTYPES, None))
    if top is None:
        del found["torch_dtype"]
    else:
        found["torch_dtype"] = top
    return found


def dtypes(rng: random.Random, sub: dict[str, Any]) -> None:
    """A sub-config's own dtype now and then (under `torch_dtype` or `dtype`), and a gemma
    model_type (its float32 becomes bfloat16, model_config.py:2305-2315)."""
    if rng.random() < 0.4:
        sub[rng.choice(("torch_dtype", "dtype"))] = rng.choice(DTYPES)
    if rng.random() < 0.15:
        sub["model_type"] = "gemma"


def bad_rope(rng: random.Random, sub: dict[str, Any]) -> None:
    """A RoPE dict from BAD_ROPES under rope_scaling or rope_parameters, at times with
    rope_theta beside it or without the sub-config's max_position_embeddings / width."""
    sub[rng.choice(("rope_scaling", "rope_parameters"))] = dict(rng.choice(BAD_ROPES))
    if rng.random() < 0.3:
        sub["rope_theta"] = 10000.0
    if rng.random() < 0.3:
        sub.pop(rng.choice(("max_position_embeddings", "hidden_size")), None)


def folder(data: dict[str, Any]) -> str:
    """A directory holding `data` as its config.json."""
    directory = Path(tempfile.mkdtemp(dir=_ROOT))
    (directory / "config.json").write_text(json.dumps(data))
    return str(directory)


def sglang(model: str) -> Values:
    """SGLang's ModelConfig values for the line on `model`, or its refusal."""
    so.oracle()
    resolved = so.resolve((), model=model)
    if not isinstance(resolved, so.Resolved):
        return resolved.text
    from sglang.srt.arg_groups.model_override_base import model_config_of

    found = model_config_of(resolved.record)
    return (int(found.hidden_size), int(found.num_hidden_layers), int(found.vocab_size),
            int(found.context_len), str(found.dtype).removeprefix("torch."))


def graphfit(model: str) -> Values:
    """graphfit's reader's values for the same line, or its refusal."""
    from graphfit.inputs import commandline
    from graphfit.inputs.model_config import read_model
    from graphfit.planner.core.errors import GraphfitError

    try:
        line = commandline.read(["python", "-m", "sglang.launch_server", "--model-path",
                                 model])
        # the measure's before tree (graphfit before s68e) has no `sglang` argument
        sglang_read = "sglang" in inspect.signature(read_model).parameters
        info = read_model(Path(model) / "config.json",
                          **({"sglang": True} if sglang_read else {}))
    except GraphfitError as exc:
        return str(exc)
    dtype = [str(s.value) for s in line.settings if s.field == "dtype"]
    return (info.hidden_size or 0, info.num_hidden_layers or 0, info.vocab_size or 0,
            info.sglang_context_length or 0, dtype[-1] if dtype else "")


def verdict(data: dict[str, Any]) -> str:
    """"agree" (the same values), "refused" (both refuse) or "differ: ..."."""
    model = folder(data)
    theirs, ours = sglang(model), graphfit(model)
    if isinstance(theirs, str) and isinstance(ours, str):
        return "refused"
    if theirs == ours:
        return "agree"
    return f"differ: SGLang {str(theirs)[:120]}; graphfit {str(ours)[:120]}"
