"""SGLang UNO's runners (graphfit.planner.engines.sglang_uno): start-up checks, widths,
variants, ladders and buffers; SGLang's own code is the oracle in
tests/oracle/test_sglang_uno_oracle.py."""

from __future__ import annotations

import bisect

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit import ConfigError, EngineConfig
from graphfit.planner.core.buffers import Axis
from graphfit.planner.engines import sglang as engine
from graphfit.planner.engines.sglang_uno import (
    MAX_FRONTIER,
    MAX_TREE_VERIFY,
    TARGET,
    TREE_DRAFT,
    UnoLine,
    UnoShape,
    graph_count,
    resolve_uno,
    tree_capacity,
    uno_batch_runners,
    uno_runners,
)

LORA = "/adapters/uno"


def test_linear_and_tree_runners() -> None:
    linear = resolve_uno(UnoLine(4, lora_path=LORA))
    assert (linear.forward_width, linear.verify_width, linear.topk, linear.steps) == (4, 4, 1, 1)
    assert [(r.name, r.width, r.variants) for r in uno_runners(linear)] == [
        (TARGET, 4, ("lora", "nolora"))]
    one = resolve_uno(UnoLine(1, lora_path=LORA))
    assert uno_runners(one)[0].variants == (None,)  # F = 1: base-only, one graph a size
    tree = resolve_uno(UnoLine(8, topk=4, steps=3, lora_path=LORA))
    assert [(r.name, r.width, r.variants) for r in uno_runners(tree)] == [
        (TARGET, 8, (None,)), (TREE_DRAFT, 4, (None,))]


@pytest.mark.parametrize(("line", "reason"), [
    (UnoLine(4), "--uno-lora-path"),
    (UnoLine(None, lora_path=LORA), "positive width"),
    (UnoLine(4, topk=0, lora_path=LORA), "topk must be >= 1"),
    (UnoLine(8, topk=4, lora_path=LORA), "needs --speculative-num-steps"),
    (UnoLine(3, topk=4, steps=3, lora_path=LORA), "Q >= F"),
    (UnoLine(129, topk=2, steps=7, lora_path=LORA), "at most Q=128"),
    (UnoLine(4, topk=2, steps=1, lora_path=LORA), "tree capacity"),
    (UnoLine(12, topk=2, steps=3, lora_path=LORA), "parent-list ABI"),
    (UnoLine(8, topk=4, steps=3, lora_path=LORA, two_batch_overlap=True), "two-batch"),
    (UnoLine(4, lora_path=LORA, tp_size=2), "TP = PP = 1"),
    (UnoLine(4, lora_path=LORA, attn_dp_size=2), "DP attention"),
    (UnoLine(4, lora_path=LORA, attention=("fa3", "triton")), "FA3"),
    (UnoLine(4, lora_path=LORA, draft_model_path="d"), "reuses the target model"),
])
def test_sglangs_checks_as_errors(line: UnoLine, reason: str) -> None:
    with pytest.raises(ConfigError, match=reason) as exc:
        resolve_uno(line)
    assert "speculative_hook.py:" in str(exc.value) and len(str(exc.value)) <= 200


@given(st.integers(1, 140), st.one_of(st.none(), st.integers(1, 9)),
       st.one_of(st.none(), st.integers(1, 9)), st.booleans())
def test_accepted_shapes_satisfy_sglangs_limits(q: int, topk: int | None, steps: int | None,
                                                tbo: bool) -> None:
    line = UnoLine(q, topk=topk, steps=steps, lora_path=LORA, two_batch_overlap=tbo)
    try:
        shape = resolve_uno(line)
    except ConfigError:
        return
    if shape.tree:
        assert shape.forward_width == shape.steps + 1 <= shape.verify_width <= MAX_TREE_VERIFY
        assert shape.verify_width * shape.topk <= MAX_FRONTIER and not tbo
        assert shape.verify_width <= tree_capacity(shape.steps, shape.topk, q)
        assert shape.verify_width - 1 <= shape.topk * (shape.steps - 1) + 1
    else:
        assert (shape.forward_width, shape.verify_width, shape.steps) == (q, q, 1)


@given(st.sampled_from([UnoLine(4, lora_path=LORA), UnoLine(1, lora_path=LORA),
                        UnoLine(8, topk=4, steps=3, lora_path=LORA),
                        UnoLine(5, topk=2, steps=4, lora_path=LORA)]),
       st.integers(1, 96), st.integers(1, 96))
def test_every_batch_pads_within_its_runners_buffers(line: UnoLine, requests: int,
                                                     bs: int) -> None:
    """Each runner's padded batch (bisect to its next captured size) fits its buffers."""
    shape = resolve_uno(line)
    config = EngineConfig.from_dict({"engine": "sglang", "max_num_seqs": requests,
                                     "hidden_size": 64, "vocab_size": 128})
    sizes = engine.sglang_sizes(min(requests, 256), speculative=True)
    runners = uno_batch_runners(
        shape, requests, lambda name, width: engine.runner_sizes(name, sizes, width, config),
        lambda name, width, top: engine.target_buffers(config, width, top))
    assert [r.name for r in runners] == [r.name for r in uno_runners(shape)]
    assert graph_count(shape, runners) == sum(
        len(r.sizes) * len(u.variants) for r, u in zip(runners, uno_runners(shape)))
    bs = min(bs, requests)
    for runner in runners:
        i = bisect.bisect_left(runner.sizes, bs)
        if i == len(runner.sizes):
            continue  # eager
        padded = runner.sizes[i]
        for buf in runner.buffers:
            scale = buf.demands[0].scale if buf.demands else 1
            if buf.axis is Axis.REQUESTS:
                assert padded * scale <= buf.reference_capacity, (runner.name, buf.name)
            elif buf.axis is Axis.TOKENS:
                assert padded * runner.width * scale <= buf.reference_capacity


def test_no_tree_draft_graphs_without_target_graphs() -> None:
    shape = UnoShape(4, 8, 4, 3)
    runners = uno_batch_runners(shape, 8, lambda name, width: (),
                                lambda name, width, top: ())
    assert [r.name for r in runners] == [TARGET] and not runners[0].sizes
