"""graphfit == SGLang 0.5.23 on a DFLASH / DSPARK draft whose config.json writes no
`num_hidden_layers` (graphfit.inputs.sglang_draft_layer_default; issue 23, s60d).

SGLang: the draft config its `get_config` loads (the model type's class, with its defaults),
read by `parse_dflash_draft_config(...).require_num_layers()` and by the target runner's
`_resolve_dflash_aux_hidden_state` (tests.oracle.sglang_dflash_layers.sglang_refusal with
`loaded`). graphfit: the restated class defaults, its `refusal` on the same pairs, and a
pasted DFLASH line.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.inputs import sglang_dflash_layers, sglang_draft_layer_default  # noqa: E402
from graphfit.inputs.sglang_draft_layer_default import (  # noqa: E402
    CLASS_LAYERS,
    TEXT_CLASS_LAYERS,
)
from graphfit.inputs.sglang_dspark import draft_layers, target_layers  # noqa: E402
from tests.oracle import sglang_dflash_layers as dl  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle.config_dirs import content_dir  # noqa: E402


def _draft(model_type: str, **extra: object) -> dict[str, object]:
    return {"architectures": ["DFlashDraftModel"], "model_type": model_type,
            "block_size": 4, **extra}


def test_class_defaults_are_sglangs() -> None:
    """Each restated default is the layer count SGLang's DFLASH parse reads off the config
    its loader builds from a config.json that writes none."""
    so.oracle()
    with so.sglang_stubs.imports():
        from sglang.srt.speculative.dflash_utils import parse_dflash_draft_config
        from sglang.srt.utils.hf_transformers.config import get_config
    wrong = []
    for model_type, layers in CLASS_LAYERS.items():
        directory = content_dir(dl._root(), json.dumps(_draft(model_type)))
        loaded = get_config(directory, trust_remote_code=False)
        theirs = parse_dflash_draft_config(draft_hf_config=loaded).require_num_layers()
        if theirs != layers:
            wrong.append(f"{model_type}: SGLang {theirs}, graphfit {layers}")
    assert not wrong, wrong


def _sglang_layers(draft: dict[str, object]) -> int | str:
    """The draft layer count SGLang's DFLASH parse reads off the config its loader builds
    from `draft` as config.json, or the error's class name."""
    with so.sglang_stubs.imports():
        from sglang.srt.speculative.dflash_utils import parse_dflash_draft_config
        from sglang.srt.utils.hf_transformers.config import get_config
    try:
        loaded = get_config(content_dir(dl._root(), json.dumps(draft)), trust_remote_code=False)
        return parse_dflash_draft_config(draft_hf_config=loaded).require_num_layers()
    except Exception as error:  # compared by kind
        return type(error).__name__


def test_composite_defaults_are_sglangs() -> None:
    """s62d: a composite (multimodal) class's text-config layer count, as graphfit reads it
    (sglang_dspark.draft_layers), is SGLang's for a file with no text config, a top-level
    count beside none, an empty text config, and a written text-config count."""
    so.oracle()
    wrong = []
    for model_type in TEXT_CLASS_LAYERS:
        for extra in ({}, {"num_hidden_layers": 5}, {"text_config": {}},
                      {"num_hidden_layers": 5, "text_config": {"num_hidden_layers": 3}},
                      # s63c: a null text config, with and without a top-level count
                      {"text_config": None}, {"num_hidden_layers": 5, "text_config": None}):
            draft = _draft(model_type, **extra)
            theirs, ours = _sglang_layers(draft), draft_layers(draft, "d")
            if theirs != ours:
                wrong.append(f"{model_type} {extra}: SGLang {theirs}, graphfit {ours}")
    assert not wrong, wrong


def test_plain_class_given_a_text_config_is_not_defaulted() -> None:
    """A plain class given a text_config dict fails SGLang's load (not this rule's words):
    graphfit restates no default for it; a written top-level count stays the file's."""
    assert not isinstance(_sglang_layers(_draft("qwen3", text_config={})), int)
    assert sglang_draft_layer_default.class_default(_draft("qwen3", text_config={})) is None
    assert sglang_draft_layer_default.composite_layers(_draft("phi3")) is None
    assert _sglang_layers(_draft("deepseek_vl_v2")) == "ValueError"  # no class default
    assert draft_layers(_draft("qwen2_5_vl", num_hidden_layers=5), "d") == 5
    assert draft_layers(_draft("gemma3", num_hidden_layers=5), "d") == 26


def test_null_text_config_kimi_vl_and_deepseek_vl2() -> None:
    """s63c: a null text config reads as an absent one (the class default, Qwen2-VL's handed-on
    top-level count); Kimi-VL's default is SGLang's DeepseekV2Config's 30; DeepSeek-VL2 has
    none: SGLang reads the file's top-level count and raises without one, which graphfit's
    unread count (None) stands for."""
    cases = [(_draft("gemma3", text_config=None), 26),
             (_draft("qwen2_vl", text_config=None, num_hidden_layers=2), 2),
             (_draft("kimi_vl"), 30), (_draft("kimi_vl", text_config=None), 30),
             (_draft("deepseek_vl_v2", text_config=None), None),
             (_draft("deepseek_vl_v2", text_config=None, num_hidden_layers=5), 5)]
    for draft, layers in cases:
        theirs = _sglang_layers(draft)
        assert theirs == (layers if layers is not None else "ValueError"), draft
        assert draft_layers(draft, "d") == layers, draft


def test_null_text_config_planted(monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted: the null text config read as the file's (s62d's reading) differs from SGLang
    on a gemma3 draft; Kimi-VL dropped from the table differs too."""
    plain = dict(TEXT_CLASS_LAYERS)
    del plain["kimi_vl"]
    monkeypatch.setattr(sglang_draft_layer_default, "TEXT_CLASS_LAYERS", plain)
    assert draft_layers(_draft("kimi_vl"), "d") != _sglang_layers(_draft("kimi_vl"))
    real = sglang_draft_layer_default.composite_layers

    def s62d(data: dict[str, object]) -> int | None:  # a null text config not judged
        return None if "text_config" in data and data["text_config"] is None else real(data)

    monkeypatch.setattr(sglang_draft_layer_default, "composite_layers", s62d)
    draft = _draft("gemma3", text_config=None, num_hidden_layers=5)
    assert draft_layers(draft, "d") != _sglang_layers(draft)


TARGETS = ({"num_hidden_layers": 3}, {"num_hidden_layers": 4}, {"num_hidden_layers": 40},
           {"num_hidden_layers": 64})
DRAFTS = (_draft("qwen3"), _draft("llama", target_layer_ids=[1, 35]),
          _draft("qwen3_moe", dflash_config={"target_layer_ids": [2]}),
          _draft("deepseek_v3"), _draft("minimax_m2", num_hidden_layers=2),
          _draft("gpt_oss", target_layer_ids=[0, 2, 3]),
          # s62d: plain and composite classes beyond s60d's
          _draft("gemma2"), _draft("gemma3", num_hidden_layers=2), _draft("mistral3",
                                                                          text_config={}),
          _draft("qwen2_5_vl", num_hidden_layers=1))


def test_pairs_follow_sglang() -> None:
    """SGLang's target-layer resolution with the loaded draft config: graphfit refuses with
    its sentence exactly where it raises (class-default drafts of 24-61 layers beside small
    and large targets, ids in and out of range, a written count; a null count fails at load,
    transformers' typed field, and is not this rule's)."""
    wrong, said = [], []
    for target in TARGETS:
        for draft in DRAFTS:
            theirs = dl.sglang_refusal(target, draft, loaded=True)
            ours = sglang_dflash_layers.refusal(target, draft)
            said.append(theirs)
            if theirs != ours:
                wrong.append(f"{target} {draft}: SGLang {theirs}; graphfit {ours}")
    assert not wrong, "\n".join(wrong)
    # not vacuous: the class defaults pass a large target and refuse a small one
    assert None in said and any(s and "num_target_layers >= 4" in s for s in said)
    assert any(s and "out-of-range" in s for s in said)


def test_dspark_reads_the_default() -> None:
    """DSPARK's draft / captured layer counts take the class default as SGLang's parse does;
    a text config or an unrestated model type stays unread."""
    assert draft_layers(_draft("qwen3"), "d") == 32
    assert target_layers(_draft("deepseek_v3"), "d")[0] == 61  # type: ignore[index]
    assert target_layers(_draft("mistral3", text_config={}), "d")[0] == 32  # type: ignore[index]
    assert draft_layers(_draft("qwen3", num_hidden_layers=3), "d") == 3
    assert draft_layers(_draft("deepseek_vl_v2"), "d") is None  # s62d: phi3 restated now
    assert sglang_draft_layer_default.class_default(
        {"model_type": "qwen3", "text_config": {"model_type": "qwen3"}}) is None


def test_a_pasted_dflash_line_is_planned() -> None:
    """A DFLASH draft directory with no layer count beside a 40-layer target: SGLang resolves
    the ids with the class default (32 layers, qwen3); graphfit plans the line."""
    base = json.loads((so.oracle().model_dir / "config.json").read_text())
    draft = {k: v for k, v in base.items() if k != "num_hidden_layers"}
    draft.update(_draft("qwen3"))
    assert dl.sglang_refusal({"num_hidden_layers": 40}, draft, loaded=True) is None
    directory = content_dir(dl._root(), json.dumps(draft, sort_keys=True))
    assert "num_hidden_layers" not in json.loads((Path(directory) / "config.json").read_text())
    error = dl.pasted(dl.model_dir({"num_hidden_layers": 40}), "--speculative-algorithm",
                      "DFLASH", "--speculative-draft-model-path", directory)
    assert error is None or "num_hidden_layers" not in error, error


FORMS = (None, {}, {"num_hidden_layers": 3}, {"num_attention_heads": 8, "num_hidden_layers": 2})


def _load_fails(data: dict[str, object]) -> bool:
    """Whether SGLang's get_config fails on `data` as config.json with an AssertionError."""
    with so.sglang_stubs.imports():
        from sglang.srt.utils.hf_transformers.config import get_config
    try:
        get_config(content_dir(dl._root(), json.dumps(data)), trust_remote_code=False)
    except AssertionError:
        return True
    return False


def test_plain_class_text_config_load_failure_is_sglangs() -> None:
    """s63c: a plain class's `text_config` null or without num_attention_heads fails SGLang's
    load (get_hf_text_config's assert); graphfit's `plain_text_config_failure` says so on
    exactly those, over every restated plain type, and a pasted target line is refused."""
    from graphfit.inputs.model_config import plain_text_config_failure

    so.oracle()
    wrong, failed = [], 0
    for model_type in CLASS_LAYERS:
        for form in FORMS[:2] if model_type not in ("llama", "qwen3") else FORMS:
            data = {"architectures": ["X"], "model_type": model_type, "text_config": form}
            theirs = _load_fails(data)
            failed += theirs
            ours = plain_text_config_failure(data)  # s64c: its ModelConfig reads more
            if theirs != (ours is not None and "AssertionError" in ours):
                wrong.append(f"{model_type} {form}: SGLang fails {theirs}")
    assert not wrong and failed >= 2 * len(CLASS_LAYERS), wrong
    assert plain_text_config_failure({"model_type": "llama"}) is None
    from graphfit.inputs import commandline
    from graphfit.planner.core.errors import ConfigError

    target = content_dir(dl._root(), json.dumps(
        {**json.loads((so.oracle().model_dir / "config.json").read_text()),
         "text_config": {}}))
    with pytest.raises(ConfigError, match="SGLang fails to load it"):
        commandline.read(["python", "-m", "sglang.launch_server", "--model-path", target,
                          "--max-running-requests", "16"])


def test_plain_class_text_config_planted(monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted: the rule off (no plain types) plans a target SGLang cannot load."""
    from graphfit.inputs import model_config

    data = {"architectures": ["X"], "model_type": "qwen3", "text_config": None}
    monkeypatch.setattr(model_config, "CLASS_LAYERS", {})
    assert _load_fails(data) and model_config.sglang_load_failure(data) is None
