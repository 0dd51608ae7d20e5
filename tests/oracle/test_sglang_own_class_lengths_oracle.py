"""SGLang's OWN config classes (its `_CONFIG_REGISTRY`, utils/hf_transformers/common.py:117-180)
with no length key written, their attribute_map names, and drafts under them, against SGLang
0.5.23's own ModelConfig (issue 23, s39c): graphfit.inputs.sglang_class_lengths.OWN_CLASS_KEYS,
NO_LENGTH_CLASSES and ALIASES. SGLang loads config.json through the class
(utils/hf_transformers/config.py:228) and get_context_length reads the first length key the
loaded config holds, its class default included, times the RoPE factor, else 2048 unscaled
(common.py:677-700). Runs with SGLang's sources (tests/oracle/paths.require)."""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path
from typing import Any

import pytest

from graphfit.inputs.sglang_class_lengths import (
    NO_LENGTH_CLASSES,
    OWN_CLASS_KEYS,
    REWRITES_ROPE,
    TEXT_CLASS_KEYS,
)
from tests.oracle import sglang_context_length_oracle as t
from tests.oracle.paths import require

require("sglang")

_ROOT = tempfile.mkdtemp(prefix="graphfit-own-class-lengths-test-")
LINEAR = {"type": "linear", "factor": 2.0}  # Nanbeige's validator wants "type" (nanbeige.py)


def _model(**written: Any) -> str:
    directory = Path(tempfile.mkdtemp(dir=_ROOT))
    (directory / "config.json").write_text(json.dumps({**t.BASE, **written}))
    return str(directory)


@pytest.mark.parametrize("kind", sorted(OWN_CLASS_KEYS) + sorted(NO_LENGTH_CLASSES))
def test_own_class_default_is_sglangs(kind: str) -> None:
    """No length key, a linear factor 2 dict: SGLang's context length (the class default
    scaled, or 2048 unscaled for a class with none) is graphfit's; a class that rewrites
    its RoPE dict: without one, and graphfit asks when one is written."""
    model = _model(model_type=kind, **({} if kind in REWRITES_ROPE else {"rope_scaling": LINEAR}))
    sg = t.sglang_length(model, (), {})
    assert isinstance(sg, int), sg  # SGLang loads every listed class
    assert sg == t.graphfit_length(model, (), {}), kind
    assert t.graphfit_asks(model, (), {}) is None  # known: no question
    if kind in REWRITES_ROPE:
        assert t.verdict(_model(model_type=kind, rope_scaling=LINEAR), (), {}) in (
            "agree", "asked")


# a class defaulting an EARLIER key than the one the file writes takes that default
# (ChatGLM's seq_length, Step-3.5's max_seq_len); DBRX's max_position_embeddings IS its
# max_seq_len (attribute_map)
EARLIER: list[dict[str, Any]] = [
    {"model_type": "chatglm", "max_position_embeddings": 16384},
    {"model_type": "chatglm", "seq_length": 8192, "max_position_embeddings": 16384},
    {"model_type": "step3p5", "max_position_embeddings": 16384},
    {"model_type": "step3p5", "max_seq_len": 65536, "max_position_embeddings": 16384},
    {"model_type": "dbrx", "max_position_embeddings": 16384},
    {"model_type": "dbrx", "max_seq_len": 32768},
    {"model_type": "qwen3_next", "seq_length": 65536},
]


@pytest.mark.parametrize("written", EARLIER)
def test_earlier_class_key_wins(written: dict[str, Any]) -> None:
    model = _model(**written)
    sg = t.sglang_length(model, (), {})
    assert isinstance(sg, int), sg
    assert sg == t.graphfit_length(model, (), {}), written


# real config.json files of these classes write the class's own names
NATIVE: list[dict[str, Any]] = [
    {"model_type": "dbrx", "d_model": 2048, "n_layers": 12, "n_heads": 16, "max_seq_len": 32768},
    {"model_type": "chatglm", "num_layers": 12, "seq_length": 32768, "hidden_size": 3072},
    {"model_type": "exaone", "num_layers": 12, "hidden_size": 3072},
]
_DROPPED = ("hidden_size", "num_hidden_layers", "num_attention_heads")  # BASE's standard names


@pytest.mark.parametrize("written", NATIVE)
def test_own_class_names_read_as_sglang_reads_them(written: dict[str, Any]) -> None:
    """attribute_map names (dbrx.py:222-227, chatglm.py:14-16, exaone.py:142): SGLang's
    hidden size, layer count and context length (its ModelConfig) are graphfit's."""
    from graphfit.inputs.model_config import read_model

    t.so.oracle()
    from sglang.srt.arg_groups.model_override_base import model_config_of

    config = {k: v for k, v in t.BASE.items() if k not in _DROPPED}
    directory = Path(tempfile.mkdtemp(dir=_ROOT))
    (directory / "config.json").write_text(json.dumps({**config, **written}))
    r = t.so.resolve((), model=str(directory))
    assert isinstance(r, t.so.Resolved), r
    sg = model_config_of(r.record)
    info = read_model(directory / "config.json")
    assert (sg.hidden_size, sg.num_hidden_layers, sg.context_len) == (
        info.hidden_size, info.num_hidden_layers, info.sglang_context_length), written


@pytest.mark.parametrize("seed", range(6))
def test_generated_draft_lines_with_class_defaults(seed: int) -> None:
    """STANDALONE lines whose draft writes no length key (t.DRAFT_TYPES, SGLang's own
    classes among them): agree, refused by both, or a draft class graphfit does not know
    (warned: "asked")."""
    rng = random.Random(3000 + seed)
    while True:
        model, draft, argv, env = t.draft_case(rng, _ROOT)
        if "max_position_embeddings" not in json.loads((Path(draft) / "config.json")
                                                       .read_text()):
            break
    assert t.draft_verdict(model, draft, argv, env) in ("agree", "refused", "asked"), argv


def test_unknown_draft_class_is_warned_in_one_line() -> None:
    """A draft under a class graphfit does not know, shorter than the target: SGLang
    refuses the line; graphfit cannot check it and says so in one warning."""
    target = _model(max_position_embeddings=131072)
    draft = _model(model_type="biogpt", num_hidden_layers=2)
    argv = ("--speculative-algorithm", "STANDALONE", "--speculative-draft-model-path", draft,
            "--speculative-num-steps", "2", "--speculative-eagle-topk", "1",
            "--speculative-num-draft-tokens", "3")
    assert isinstance(t.sglang_draft_length(target, draft, argv, {}), str)  # refused
    assert t.draft_asked(target, argv, {})
    known = _model(model_type="olmo3", num_hidden_layers=2)  # 2048: checked, refused by both
    argv_known = tuple(known if a == draft else a for a in argv)
    assert t.draft_verdict(target, known, argv_known, {}) == "refused"
    assert not t.draft_asked(target, argv_known, {})


# SGLang's own MULTIMODAL classes (issue 23, s40c): no length key written anywhere, the text
# keys top-level (a default text config built from nothing: a top-level RoPE dict does not
# reach it, except Qwen4-Exp's text-only form) or nested in text_config (its RoPE dict scales
# the text class's default)
_TEXT = {k: v for k, v in t.BASE.items() if k in t._TEXT_KEYS}
MULTIMODAL: list[tuple[str, bool]] = [(kind, nested) for kind in sorted(TEXT_CLASS_KEYS)
                                      for nested in (False, True)]


@pytest.mark.parametrize(("kind", "nested"), MULTIMODAL)
def test_multimodal_class_default_is_sglangs(kind: str, nested: bool) -> None:
    """SGLang's context length (its ModelConfig over the class's text sub-config) is
    graphfit's, and graphfit no longer asks, with a linear factor-2 dict written beside the
    text keys."""
    top = {k: v for k, v in t.BASE.items() if k not in _TEXT}
    text = {**_TEXT, "rope_scaling": LINEAR}
    model = _model(**(top | {"model_type": kind, "text_config": text} if nested
                      else top | text | {"model_type": kind}))
    sg = t.sglang_length(model, (), {})
    assert isinstance(sg, int), sg  # SGLang loads every listed class
    assert sg == t.graphfit_length(model, (), {}), (kind, nested)
    assert t.graphfit_asks(model, (), {}) is None


@pytest.mark.parametrize("seed", range(4))
def test_generated_multimodal_lines(seed: int) -> None:
    """Generated lines under the multimodal classes (t.MULTIMODAL_TYPES: length keys, RoPE
    dicts, override args, --context-length drawn): agree or refused by both."""
    rng = random.Random(4000 + seed)
    while True:
        model, argv, env = t.case(rng, _ROOT)
        kind = json.loads((Path(model) / "config.json").read_text()).get("model_type")
        if kind in t.MULTIMODAL_TYPES:
            break
    assert t.verdict(model, argv, env) in ("agree", "refused"), (kind, argv)


YARN = {"rope_type": "yarn", "factor": 2.0, "original_max_position_embeddings": 4096}


@pytest.mark.parametrize(("kind", "nested"), [("qwen3_5", False), ("kimi_vl", False),
                                              ("qwen4_exp", False),
                                              ("step3_vl", True), ("qwen4_exp", True),
                                              ("qwen3_5", True)])
def test_multimodal_rope_dict_load_failure(kind: str, nested: bool) -> None:
    """A yarn dict on a config object with no max_position_embeddings (the parent; Step3-VL's
    text config; Qwen4-Exp's parent taking the nested dict): SGLang fails to load it and
    graphfit refuses in one line; nested under Qwen3.5 it loads, and both agree."""
    top = {k: v for k, v in t.BASE.items() if k not in _TEXT}
    text = {**_TEXT, "rope_scaling": YARN}
    model = _model(**(top | {"model_type": kind, "text_config": text} if nested
                      else top | text | {"model_type": kind}))
    expected = "agree" if (kind, nested) == ("qwen3_5", True) else "refused"
    assert t.verdict(model, (), {}) == expected, t.sglang_length(model, (), {})
