"""SGLang: batch-size ladders, bisect_left padding on requests, width per runner, fills."""

from __future__ import annotations

import bisect

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit import (
    Axis,
    ConfigError,
    CUDAGraphMode,
    Demand,
    EngineConfig,
    FillKind,
    FillPolicy,
    LadderPolicy,
    Stream,
    plan,
)
from graphfit.planner.core.buffers import BufferSpec
from graphfit.planner.engines.sglang import sglang_sizes
from graphfit.testing import sglang_configs


def sg(**kw: object) -> EngineConfig:
    return EngineConfig.from_dict({"engine": "sglang", **kw})


def test_decode_list_matches_sglang() -> None:
    sizes = sglang_sizes(512, speculative=False)
    assert sizes[:8] == [1, 2, 4, 8, 12, 16, 24, 32]
    assert 256 in sizes and 264 not in sizes and 272 in sizes and 496 in sizes
    assert sizes[-2:] == [496, 512]
    assert sglang_sizes(600, speculative=False)[-3:] == [544, 576, 600]  # max appended


def test_speculative_list_matches_sglang() -> None:
    sizes = sglang_sizes(300, speculative=True)
    assert sizes[:12] == [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16]
    assert [s for s in sizes if 32 <= s <= 72] == [32, 40, 44, 48, 52, 56, 60, 64, 72]
    assert sizes[-3:] == [272, 288, 300]


def test_default_policy_follows_speculation() -> None:
    assert sg(max_num_seqs=64).ladder is LadderPolicy.SGLANG
    spec = sg(max_num_seqs=64, spec_method="eagle", num_speculative_tokens=3)
    assert spec.ladder is LadderPolicy.SGLANG_SPEC
    assert (spec.speculative_eagle_topk, spec.speculative_num_draft_tokens) == (1, 4)


@pytest.mark.parametrize(("kw", "needle"), [
    ({"max_num_seqs": 8, "ladder": "vllm"}, "vllm is a vllm ladder"),
    ({"max_num_seqs": 8, "speculative_eagle_topk": 2}, "needs a speculative method"),
    ({"max_num_seqs": 8, "spec_method": "eagle", "num_speculative_tokens": 3,
      "speculative_eagle_topk": 4}, "required when speculative_eagle_topk > 1"),
    ({"max_num_seqs": 8, "spec_method": "eagle", "num_speculative_tokens": 3,
      "speculative_num_draft_tokens": 6}, r"num_steps \+ 1 = 4"),
    ({"max_num_seqs": 8, "cudagraph_mode": "PIECEWISE"}, "use FULL or NONE"),
    ({"max_num_seqs": 8, "runner": "v2"}, "runner: v2"),
    ({"max_num_seqs": 8, "spec_method": "dflash", "num_speculative_tokens": 3}, "dflash"),
])
def test_invalid_sglang_configs(kw: dict[str, object], needle: str) -> None:
    with pytest.raises(ConfigError, match=needle):
        sg(**kw)


def test_sglang_fields_are_rejected_for_vllm() -> None:
    with pytest.raises(ConfigError, match="SGLang-only"):
        EngineConfig(max_num_seqs=8, spec_method="eagle", num_speculative_tokens=2,
                     speculative_eagle_topk=2)


def test_ladder_caps_at_the_request_pool() -> None:
    p = plan(sg(max_num_seqs=20))
    assert p.capture_sizes == (1, 2, 4, 8, 12, 16, 20)
    listed = plan(sg(max_num_seqs=20, cudagraph_capture_sizes=[1, 4, 64]))
    assert listed.capture_sizes == (1, 4, 20) and listed.warnings
    exact = plan(sg(max_num_seqs=6, cuda_graph_padding=False))
    assert exact.capture_sizes == (1, 2, 3, 4, 5, 6)


def test_width_per_runner() -> None:
    p = plan(sg(max_num_seqs=48, max_cudagraph_capture_size=32, spec_method="eagle",
                num_speculative_tokens=3, speculative_eagle_topk=4,
                speculative_num_draft_tokens=8))
    assert p.buffer("target.input_ids").shape == (32 * 8,)  # verify: num_draft_tokens
    assert p.buffer("target.seq_lens").shape == (32,)
    assert p.buffer("drafter.positions").shape == (32 * 4,)  # draft decode: topk
    assert p.buffer("drafter.out_cache_loc").shape == (32 * 4, 3)  # one slot per step
    assert p.buffer("drafter.topk_index").shape == (32, 4)
    plain = plan(sg(max_num_seqs=48, max_cudagraph_capture_size=32))
    assert plain.buffer("target.input_ids").shape == (32,) and "drafter" not in plain.components


def test_padding_is_bisect_left_on_requests() -> None:
    p = plan(sg(max_num_seqs=64, spec_method="eagle", num_speculative_tokens=3))
    sizes, q = p.capture_sizes, p.config.uniform_query_len
    for bs in range(1, 65):
        d = p.pad(bs * q, uniform_decode=True)
        padded = sizes[bisect.bisect_left(sizes, bs)]
        assert (d.mode, d.num_reqs, d.padded) == (CUDAGraphMode.FULL, padded, padded * q)
    assert p.pad(100, component="target").mode is CUDAGraphMode.NONE  # extend: eager


@given(sglang_configs(max_seqs=96))
def test_dispatch_rules(config: EngineConfig) -> None:
    p = plan(config)
    sizes, exact = p.capture_sizes, set(p.capture_sizes)
    graphs = config.cudagraph_mode is not CUDAGraphMode.NONE
    for name, comp in p.components.items():
        width = comp.tables.uniform_query_len
        for bs in range(1, config.max_num_seqs + 1):
            d = p.pad(bs * width, uniform_decode=True, component=name)
            if not graphs or bs > sizes[-1] or (not config.cuda_graph_padding
                                                and bs not in exact):
                assert (d.mode, d.padded) == (CUDAGraphMode.NONE, bs * width)  # eager
            else:
                assert d.num_reqs == sizes[bisect.bisect_left(sizes, bs)]
                assert d.padded == d.num_reqs * width


@given(sglang_configs(max_seqs=96))
def test_ladder_invariants(config: EngineConfig) -> None:
    sizes = plan(config).capture_sizes
    assert list(sizes) == sorted(set(sizes)) and sizes[-1] <= config.max_num_seqs
    if config.cudagraph_capture_sizes is None:
        top = min(config.max_cudagraph_capture_size or 256, config.max_num_seqs)
        assert sizes[-1] == top


@given(sglang_configs(max_seqs=96))
def test_own_plan_verifies_and_is_tight(config: EngineConfig) -> None:
    p = plan(config)
    assert p.verify().ok
    # SGLang's own allocation never goes short for the batches it can see
    assert p.verify({b.key: b.reference_capacity for c in p.components.values()
                     for b in c.buffers}).ok
    for comp in p.components.values():
        for b in comp.buffers:
            short = p.verify({b.key: b.capacity - 1})
            assert not short.ok, b.key  # one row less is always a counterexample


@given(sglang_configs(max_seqs=64), st.sampled_from(["positions", "seq_lens",
                                                     "req_pool_indices", "out_cache_loc"]))
def test_stale_rows_are_caught_exactly_when_a_batch_is_padded(config: EngineConfig,
                                                             name: str) -> None:
    p = plan(config)
    if not p.components["target"].buffers:
        return  # --disable-cuda-graph: no graph inputs at all
    result = p.verify(fills={f"target.{name}": "keep"})
    width = config.uniform_query_len
    padded = [bs for bs in range(1, config.max_num_seqs + 1)
              if (d := p.pad(bs * width, uniform_decode=True)).num_reqs not in (None, bs)
              and d.mode is not CUDAGraphMode.NONE]
    assert sorted({v.batch for v in result.fill_violations}) == padded
    assert result.ok == (not padded)


def test_fill_violation_reads_well() -> None:
    p = plan(sg(max_num_seqs=16, spec_method="eagle", num_speculative_tokens=3))
    v = p.verify(fills={"drafter.positions": "keep"}).fill_violations[0]
    assert v.describe() == ("drafter.positions: a batch of 9 padded to 10 leaves its padded "
                            "rows keep; only zero is safe there")
    with pytest.raises(ConfigError, match=r"fill: drafter\.positions: 'stale'"):
        p.verify(fills={"drafter.positions": "stale"})


def test_catalogue_rejects_its_own_unsafe_fill() -> None:
    with pytest.raises(ConfigError, match="not safe"):
        BufferSpec("seq_lens", "int32", Axis.REQUESTS, (Demand(Stream.TARGET_REQUESTS),), 8,
                   FillPolicy(FillKind.KEEP), safe_fills=frozenset({FillKind.SENTINEL}))


def test_disabled_graphs_have_no_graph_inputs() -> None:
    p = plan(sg(max_num_seqs=8, cudagraph_mode="NONE"))
    assert not p.components["target"].buffers and p.verify().ok
    assert p.pad(4, uniform_decode=True).mode is CUDAGraphMode.NONE
