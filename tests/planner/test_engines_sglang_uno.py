"""SGLang UNO's runners (graphfit.planner.engines.sglang_uno): start-up checks, widths,
variants, ladders and buffers; SGLang's own code is the oracle in
tests/oracle/test_sglang_uno_oracle.py."""

from __future__ import annotations

import bisect

import pytest
from hypothesis import given
from hypothesis import strategies as st

import graphfit
from graphfit import ConfigError, EngineConfig, Plan
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
from graphfit.testing import sglang_configs

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


# --- planned: SpecMethod.UNO through EngineConfig / graphfit.plan (issue 23) ---------------

def _uno_plan(requests: int, q: int, topk: int | None = None, steps: int | None = None,
              **extra: object) -> Plan:
    data: dict[str, object] = {"engine": "sglang", "spec_method": "uno",
                               "speculative_num_draft_tokens": q, "max_num_seqs": requests,
                               "hidden_size": 64, "vocab_size": 128, **extra}
    if topk is not None:
        data["speculative_eagle_topk"] = topk
    if steps is not None:
        data["num_speculative_tokens"] = steps
    return graphfit.plan(EngineConfig.from_dict(data))


@st.composite
def planned_uno(draw: st.DrawFn) -> tuple[int, int, int | None, int | None]:
    """(requests, Q, topk, steps) of lines SGLang accepts: linear F 1..24 or a tree within
    every limit of `resolve_uno`."""
    requests = draw(st.integers(1, 300))
    if draw(st.booleans()):
        return requests, draw(st.integers(1, 24)), None, None
    topk, steps = draw(st.integers(2, 6)), draw(st.integers(1, 6))
    top = min(MAX_TREE_VERIFY, tree_capacity(steps, topk, MAX_TREE_VERIFY),
              topk * (steps - 1) + 2)
    if top < steps + 1:
        topk, steps, top = 2, 3, 6
    return requests, draw(st.integers(steps + 1, top)), topk, steps


@given(planned_uno())
def test_planned_uno_is_proven_and_holds_sglangs_lora_state(
        case: tuple[int, int, int | None, int | None]) -> None:
    """The plan proves padded <= capacity for every reachable batch of every UNO runner; the
    per-size segment state is held by the runner that captures the LoRA draft and holds
    2 * bs segments for EVERY captured size (each graph keeps its own copy); the decode batch
    info sits on the last-built runner, sized for its max_bs and width; linear F > 1 captures
    two graphs per size; UNO keeps the request pool given (no 48 default)."""
    requests, q, topk, steps = case
    plan = _uno_plan(requests, q, topk, steps)
    assert plan.verify().ok and plan.verify_engine().ok
    assert plan.config.max_num_seqs == requests
    shape = resolve_uno(UnoLine(q, topk=topk, steps=steps, lora_path=LORA))
    names = [n for n in plan.components if n != "prefill"]
    assert names == [r.name for r in uno_runners(shape)]
    drafts = TREE_DRAFT if shape.tree else (TARGET if shape.forward_width > 1 else None)
    for name in names:
        comp = plan.components[name]
        sizes = plan.graph_sizes(name)
        buffers = {b.name: b for b in comp.buffers}
        assert comp.graphs_per_size == (2 if name == TARGET and drafts == TARGET else 1)
        if name == drafts:
            assert buffers["uno_lora_seg_lens"].capacity == sum(2 * bs for bs in sizes)
            assert buffers["uno_lora_seg_indptr"].capacity == sum(2 * bs + 1 for bs in sizes)
            assert buffers["uno_lora_ranks"].capacity == 2 * len(sizes)
            assert all(2 * bs <= buffers["uno_lora_seg_lens"].capacity for bs in sizes)
        else:
            assert not any(n.startswith("uno_lora_") for n in buffers)
        if name == names[-1]:
            assert buffers["lora_seg_lens"].capacity == max(sizes)
            assert buffers["lora_sgemm_permutation"].capacity == max(sizes) * comp.tables.\
                uniform_query_len
        else:
            assert "lora_seg_lens" not in buffers


@pytest.mark.parametrize(("data", "reason"), [
    ({"tp_size": 2}, "TP = PP = 1"),
    ({"attn_cp_size": 2, "tp_size": 2}, "TP = PP = 1"),
    ({"speculative_eagle_topk": 4, "num_speculative_tokens": 3, "two_batch_overlap": True},
     "two-batch"),
])
def test_planned_uno_refuses_what_sglang_refuses(data: dict[str, object], reason: str) -> None:
    with pytest.raises(ConfigError, match=reason):
        _uno_plan(16, 8, **data)  # type: ignore[arg-type]


@pytest.mark.parametrize("engine_name", ["vllm", "trtllm"])
def test_other_engines_refuse_uno(engine_name: str) -> None:
    with pytest.raises(ConfigError, match="uno is SGLang's LoRA self-draft"):
        graphfit.plan(EngineConfig.from_dict({"engine": engine_name, "spec_method": "uno",
                                              "num_speculative_tokens": 2, "max_num_seqs": 8}))


def test_vllm_readers_do_not_take_uno() -> None:
    from graphfit.inputs.vllm import spec_method
    from graphfit.planner.engines.vllm.native import spec_method as native_method

    with pytest.raises(ConfigError, match="not modelled"):
        spec_method("--speculative-config", "uno")
    with pytest.raises(ConfigError, match="not modelled"):
        native_method("uno")


def test_no_graphs_no_lora_state() -> None:
    plan = _uno_plan(16, 4, cudagraph_mode="NONE")
    assert not any("lora" in b.name for c in plan.components.values() for b in c.buffers)


@given(sglang_configs(max_seqs=64, methods=("uno",)))
def test_generated_uno_configs_verify_and_are_tight(config: EngineConfig) -> None:
    """graphfit.testing's SGLang configs restricted to UNO (decode graph settings, pools,
    padding, two-batch overlap, prefill graphs, PD roles): the plan is proven, SGLang's own
    sizing never goes short, and one row less of any buffer (the LoRA state included) is a
    counterexample."""
    p = graphfit.plan(config)
    assert p.config.spec_method.value == "uno"
    assert p.verify().ok and p.verify_engine().ok
    for comp in p.components.values():
        for b in comp.buffers:
            assert not p.verify({b.key: b.capacity - 1}).ok, b.key


# an fp8_e5m2 KV cache turns a base fa3 into triton before `_handle_uno` (overrides.py:1262-1270)

_SIDES = st.sampled_from((None, "fa3", "triton", "flashinfer"))


@given(_SIDES, _SIDES, _SIDES, st.sampled_from((None, "auto", "fp8_e4m3", "fp8_e5m2")))
def test_an_fp8_e5m2_cache_only_ever_adds_refusals(base: str | None, prefill: str | None,
                                                   decode: str | None, kv: str | None) -> None:
    """Any named backends: the KV dtype never lets a line through that another dtype refuses;
    both split sides named fa3 are unaffected; the fp8 wording appears only with fp8_e5m2 and
    a named base fa3, and every refusal is one line of at most 200 characters."""
    from graphfit.planner.engines.sglang_uno import check_line

    def verdict(kv_dtype: str | None) -> str | None:
        values = {"speculative_num_draft_tokens": 4, "uno_lora_path": "/a",
                  "attention_backend": base, "prefill_attention_backend": prefill,
                  "decode_attention_backend": decode, "kv_cache_dtype": kv_dtype}
        if None in (prefill or base, decode or base):
            return "unnamed"  # left to SGLang's default: graphfit.inputs.sglang_uno
        try:
            check_line(values)
        except ConfigError as exc:
            assert len(str(exc)) <= 200 and "\n" not in str(exc)
            return str(exc)
        return None

    found, plain = verdict(kv), verdict(None)
    if plain is not None:
        assert found is not None
    if (prefill, decode) == ("fa3", "fa3"):
        assert found == plain
    if found is not None and "fp8_e5m2" in found:
        assert kv == "fp8_e5m2" and base == "fa3"
