"""graphfit against SGLang 0.5.23 for DFLASH / DSPARK targets whose text settings sit in a
`thinker_config` / `llm_config` / `language_config` (or a Llava*ForCausalLM's top level):
SGLang's own get_config + get_hf_text_config (utils/hf_transformers/common.py:547-613) and
`_resolve_dflash_aux_hidden_state` (spec_aux_hidden_state.py:199-283) on generated and
fixed target config.json objects, graphfit's `sglang_dflash_layers.refusal` on the same
(issue 23, s54d); then pasted lines naming such targets."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.inputs.sglang_dflash_layers import refusal  # noqa: E402
from tests.oracle import sglang_dflash_layers as dl  # noqa: E402
from tests.oracle import sglang_dflash_text_config as tc  # noqa: E402

TWO = {"num_hidden_layers": 2}  # a 2-layer draft naming no ids: needs >= 4 target layers
HEADS = {"num_attention_heads": 4}
FIXED: list[dict[str, Any]] = [
    {"model_type": "qwen2_5_omni", "architectures": ["Qwen2_5OmniModel"],
     "thinker_config": {"text_config": {"num_hidden_layers": 3, **HEADS}}},
    {"model_type": "qwen3_omni_moe", "architectures": ["Qwen3OmniMoeForConditionalGeneration"],
     "num_hidden_layers": 2, "thinker_config": {"text_config": {"num_hidden_layers": 6}}},
    {"model_type": "internvl_chat", "architectures": ["InternVLChatModel"],
     "num_hidden_layers": 8,
     "llm_config": {"architectures": ["Qwen2ForCausalLM"], "num_hidden_layers": 2}},
    {"model_type": "deepseek_vl_v2", "architectures": ["DeepseekVL2ForCausalLM"],
     "language_config": {"num_hidden_layers": 3}},
    {"model_type": "bailingmm_moe_v2_lite", "architectures": ["BailingMoeV2ForCausalLM"],
     "llm_config": {"num_hidden_layers": None}},
    {"model_type": "llava", "architectures": ["LlavaForCausalLM"],
     "text_config": {"model_type": "llama", "num_hidden_layers": 8}},
    {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "num_hidden_layers": 8,
     "language_config": {"num_hidden_layers": 2, "num_loops": 2}},
    # thinker_config before language_config (common.py:589-603)
    {"model_type": "llama", "architectures": ["LlamaForCausalLM"],
     "thinker_config": {"num_hidden_layers": 2, **HEADS},
     "language_config": {"num_hidden_layers": 6}},
]
# targets SGLang fails to load (not this rule's words): a thinker's nested text_config on a
# plain class (common.py:593-597), a null layer count in transformers' typed class
UNLOADED: list[dict[str, Any]] = [
    {"model_type": "llama", "architectures": ["LlamaForCausalLM"],
     "thinker_config": {"text_config": {"num_hidden_layers": 2, **HEADS}}},
    {"model_type": "qwen2_5_omni", "architectures": ["Qwen2_5OmniModel"],
     "thinker_config": {"text_config": {"num_hidden_layers": None, **HEADS}}},
]


@settings(max_examples=20, deadline=None)
@given(target=tc.targets(), draft=tc.drafts())
def test_generated_targets_are_judged_as_sglang_loads_them(target: dict[str, Any],
                                                          draft: dict[str, Any]) -> None:
    """Where SGLang loads the target, graphfit gives its answer; where SGLang's load fails
    (a typed class refusing a null, a thinker's nested dict on a plain class), this rule
    stays silent (not its words)."""
    theirs = tc.loaded_refusal(target, draft)
    if theirs is not None and theirs.startswith("load:"):
        assert refusal(target, draft) is None, theirs
    else:
        assert refusal(target, draft) == theirs


def test_fixed_sub_config_targets_agree_and_are_not_vacuous() -> None:
    """Each fixed target agrees with SGLang beside a 2-layer draft; SGLang refuses most of
    them (a sub-config of fewer than 4 layers, or a None layer count, while the top level
    says otherwise), which a rule reading the top level or skipping sub-configs misses."""
    answers = [tc.loaded_refusal(t, TWO) for t in FIXED]
    assert [refusal(t, TWO) for t in FIXED] == answers
    said = [a for a in answers if a]
    assert len(said) == 6 and None in answers
    assert not any(a.startswith("load:") for a in said)
    assert sum("requires target num_hidden_layers" in a for a in said) == 2
    assert sum("num_target_layers >= 4" in a for a in said) == 4


def test_targets_sglang_cannot_load_are_left_to_other_checks() -> None:
    """SGLang fails loading these; the layer rule gives no sentence of its own for them."""
    for target in UNLOADED:
        assert (tc.loaded_refusal(target, TWO) or "").startswith("load:")
        assert refusal(target, TWO) is None


@pytest.mark.parametrize(("sub", "layers"), [("language_config", 3), ("language_config", 4),
                                             ("thinker_config", 3)])
def test_pasted_lines_follow_sglang(sub: str, layers: int) -> None:
    """A pasted DFLASH line whose target (the oracle's Llama config.json) carries a plain
    sub-config of `layers` layers: refused with SGLang's sentence exactly when SGLang's
    loading + resolution of that very file raises."""
    target = dl.model_dir({sub: {"num_hidden_layers": layers, **HEADS}})
    draft = dl.model_dir({**TWO, "block_size": 4})
    with open(f"{target}/config.json") as handle:
        written = json.load(handle)
    expected = tc.loaded_refusal(written, TWO)
    dl.check_pasted_layers(target, "DFLASH", draft, expected, layers)
