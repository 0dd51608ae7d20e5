"""graphfit.planner.engines.sglang_uno_moe: SGLang's UNO refuses an adapter on a MoE model's
experts (gate_up_proj and down_proj, or a shorthand), and accepts every other list of
targets; properties of the rule, not its table (the engine's own code: tests/oracle/
test_sglang_uno_moe_oracle.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit import ConfigError
from graphfit.planner.engines.sglang_uno_moe import (
    adapter_targets,
    check_adapter,
    targets_experts,
)

LEAVES = ("q_proj", "k_proj", "v_proj", "o_proj", "qkv_proj", "gate_proj", "up_proj",
          "gate_up_proj", "down_proj", "w1", "w2", "w3", "lm_head", "embed_tokens")
PREFIXES = ("", "mlp.", "model.layers.3.mlp.", "self_attn.", "block_sparse_moe.experts.")

names = st.lists(st.sampled_from(LEAVES), max_size=8)


@given(names, st.lists(st.sampled_from(PREFIXES), min_size=8, max_size=8))
def test_only_the_last_component_counts(targets: list[str], prefixes: list[str]) -> None:
    prefixed = [p + t for p, t in zip(prefixes, targets, strict=False)]
    assert adapter_targets(prefixed) == adapter_targets(targets)


@given(names, st.randoms(use_true_random=False))
def test_order_and_repeats_do_not_matter(targets: list[str], rnd: object) -> None:
    shuffled = [*targets, *targets]
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    for moe in (False, True):
        assert targets_experts(shuffled, moe) == targets_experts(targets, moe)


@given(names, names)
def test_more_targets_never_lift_a_refusal(targets: list[str], more: list[str]) -> None:
    if targets_experts(targets, True):
        assert targets_experts(targets + more, True)


@given(names)
def test_a_dense_model_is_never_refused(targets: list[str]) -> None:
    check_adapter(targets, False)


@given(names)
def test_refused_exactly_when_both_expert_projections_are_targeted(targets: list[str]) -> None:
    """The expert pair: a gate or up projection (merged by SGLang) and the down one."""
    gate = bool({"gate_proj", "up_proj", "gate_up_proj"} & set(targets))
    assert targets_experts(targets, True) == (gate and "down_proj" in targets)


@pytest.mark.parametrize("shorthand", ["all", "all-linear"])
def test_a_shorthand_reaches_the_experts_of_a_moe_model(shorthand: str) -> None:
    assert targets_experts(shorthand, True) and not targets_experts(shorthand, False)
    with pytest.raises(ConfigError, match=r"uno_cublas_backend\.py:100-120"):
        check_adapter(shorthand, True)


@pytest.mark.parametrize("bad", ["attention", {"q_proj": 1}, ["q_proj", 3], None])
def test_forms_sglang_cannot_read_are_refused(bad: object) -> None:
    with pytest.raises(ConfigError, match="target_modules"):
        check_adapter(bad, False)
