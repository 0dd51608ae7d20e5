"""SGLang 0.5.23: batch-size ladders, bisect_left padding on requests, width per runner, fills.

(tests/oracle/test_sglang_oracle.py compares all of it with SGLang's own code.)"""

from __future__ import annotations

import bisect

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit import (
    Axis,
    ConfigError,
    CUDAGraphMode,
    EngineConfig,
    FillKind,
    FillPolicy,
    LadderPolicy,
    plan,
)
from graphfit.planner import Demand, Stream
from graphfit.planner.core.buffers import BufferSpec
from graphfit.planner.core.ladder import round_up
from graphfit.planner.engines.sglang import (
    batch_alignment,
    default_decode_max_bs,
    request_pool,
    sglang_sizes,
)
from graphfit.testing import sglang_configs
from tests.planner.block_draft_checks import assert_uniform_batch_within_buffers

EAGLE = {"spec_method": "eagle", "num_speculative_tokens": 3, "speculative_eagle_topk": 1}


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
    spec = sg(max_num_seqs=64, spec_method="eagle", num_speculative_tokens=3,
              speculative_eagle_topk=1, speculative_num_draft_tokens=7)
    assert spec.ladder is LadderPolicy.SGLANG_SPEC
    # topk 1: SGLang resets the draft tokens to steps + 1 (speculative_hook.py:1255-1266)
    assert (spec.speculative_eagle_topk, spec.speculative_num_draft_tokens) == (1, 4)


def test_speculative_defaults_as_sglang_fills_them() -> None:
    llama = sg(spec_method="eagle", architecture="LlamaForCausalLM")
    assert (llama.max_num_seqs, llama.num_speculative_tokens, llama.speculative_eagle_topk,
            llama.speculative_num_draft_tokens) == (48, 5, 4, 8)
    other = sg(spec_method="eagle3", architecture="Qwen2ForCausalLM")
    assert (other.num_speculative_tokens, other.speculative_eagle_topk,
            other.uniform_query_len) == (3, 1, 4)
    ngram = sg(spec_method="ngram")
    assert (ngram.speculative_eagle_topk, ngram.speculative_num_draft_tokens,
            ngram.num_speculative_tokens) == (10, 12, 1)
    # NGRAM drafts on the CPU: no draft runner (the prefill runner is SGLang's default)
    assert set(plan(ngram).components) == {"target", "prefill"}
    plain = sg()  # no S: the pool SGLang sizes from the KV cache holds >= 2048 requests
    assert plain.max_num_seqs == 2048 and plan(plain).capture_sizes[-1] == 160


def test_default_decode_max_bs_from_gpu_memory_and_tp() -> None:
    assert default_decode_max_bs(None, 1)[0] == 160
    assert [default_decode_max_bs(gb, 1)[0] for gb in (16, 30, 50, 79.6, 140, 192)] == \
        [8, 48, 32, 256, 256, 512]
    assert [default_decode_max_bs(gb, 4)[0] for gb in (16, 30, 50, 79.6, 140, 192)] == \
        [8, 160, 160, 512, 512, 512]
    p = plan(sg(max_num_seqs=1023, gpu_memory_gb=192))
    assert p.capture_sizes[-1] == 512 and any("512" in w for w in p.warnings)


@pytest.mark.parametrize(("kw", "needle"), [
    ({"max_num_seqs": 8, "ladder": "vllm"}, "vllm is a vllm ladder"),
    ({"max_num_seqs": 8, "spec_method": "eagle", "num_speculative_tokens": 3},
     "required with --speculative-num-steps"),
    ({"max_num_seqs": 8, "spec_method": "eagle", "num_speculative_tokens": 3,
      "speculative_eagle_topk": 4}, "required when speculative_eagle_topk > 1"),
    ({"max_num_seqs": 8, "spec_method": "eagle"}, "from the model class"),
    ({"max_num_seqs": 8, "spec_method": "eagle", "speculative_eagle_topk": 2},
     "give --speculative-num-steps too"),
    ({"max_num_seqs": 8, "spec_method": "ngram", "tp_size": 2, "attn_dp_size": 2},
     "does not support DP attention"),
    ({"max_num_seqs": 8, "tp_size": 4, "attn_dp_size": 3}, "attn_tp x attn_dp_size"),
    ({"max_num_seqs": 8, "cudagraph_mode": "PIECEWISE"}, "use FULL or NONE"),
    ({"max_num_seqs": 8, "runner": "v2"}, "runner: v2"),
    ({"max_num_seqs": 8, "spec_method": "dflash", "num_speculative_tokens": 3}, "dflash"),
    ({"cudagraph_capture_sizes": [4096]}, "pass --max-running-requests"),
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


def test_alignment_filter_and_ceil_aligned_pool() -> None:
    """base_cuda_graph_runner.py:83-104: two-batch overlap keeps even sizes; the pool is
    ceil-aligned, so SGLang captures a graph above max_running_requests. (Two-batch overlap
    needs an a2a backend or attention DP, validation_hook.py:756-772.)"""
    tbo = plan(sg(max_num_seqs=47, cudagraph_capture_sizes=[189], two_batch_overlap=True,
                  moe_a2a_backend="deepep"))
    assert tbo.capture_sizes == (48,) and tbo.buffer("target.seq_lens").capacity == 48
    assert tbo.pad(47, uniform_decode=True).num_reqs == 48
    dp = sg(max_num_seqs=33, tp_size=4, attn_dp_size=2)  # attn_tp 2, pool 33 // 2 = 16
    assert (batch_alignment(dp), request_pool(dp)) == (2, 16)
    assert plan(dp).capture_sizes == (2, 4, 8, 12, 16)
    assert batch_alignment(sg(max_num_seqs=33, tp_size=4)) == 1  # no gathered buffer
    assert batch_alignment(sg(max_num_seqs=33, tp_size=2, attn_cp_size=2)) == 2
    with pytest.raises(ConfigError, match="asserts"):
        plan(sg(max_num_seqs=100, cudagraph_capture_sizes=[3], two_batch_overlap=True,
                moe_a2a_backend="deepep"))


def test_width_per_runner() -> None:
    p = plan(sg(max_num_seqs=48, max_cudagraph_capture_size=32, spec_method="eagle3",
                num_speculative_tokens=3, speculative_eagle_topk=4,
                speculative_num_draft_tokens=8))
    assert p.buffer("target.input_ids").shape == (32 * 8,)  # verify: num_draft_tokens
    assert p.buffer("target.seq_lens").shape == (32,) and p.buffer("target.seq_lens").dtype \
        == "int64"
    assert p.buffer("target.mrope_positions").shape == (3, 32 * 8)
    assert p.buffer("drafter.positions").shape == (32 * 4,)  # draft decode: topk
    assert p.buffer("drafter.out_cache_loc").shape == (32 * 4 * 3,)  # flat: a slot per step
    assert p.buffer("drafter.topk_index").shape == (32, 4)
    assert p.buffer("draft_extend.input_ids").shape == (32 * 8,)  # accepted tokens
    assert p.buffer("draft_extend.hidden_states").shape == (32 * 8, 3 * 4096)  # EAGLE3 aux
    plain = plan(sg(max_num_seqs=48, max_cudagraph_capture_size=32))
    assert plain.buffer("target.input_ids").shape == (32,) and set(plain.components) == \
        {"target", "prefill"}
    one_step = plan(sg(max_num_seqs=8, spec_method="eagle", num_speculative_tokens=1,
                       speculative_eagle_topk=1))
    # eagle_worker_v2.py:507: no draft-decode runner for one step
    assert set(one_step.components) == {"target", "draft_extend", "prefill"}


def test_padding_is_bisect_left_on_requests() -> None:
    p = plan(sg(max_num_seqs=64, **EAGLE))
    sizes, q = p.capture_sizes, p.config.uniform_query_len
    for bs in range(1, 65):
        d = p.pad(bs * q, uniform_decode=True)
        padded = sizes[bisect.bisect_left(sizes, bs)]
        assert (d.mode, d.num_reqs, d.padded) == (CUDAGraphMode.FULL, padded, padded * q)
    assert p.pad(100, component="target").mode is CUDAGraphMode.NONE  # extend: eager


@given(sglang_configs(max_seqs=96))
def test_dispatch_rules(config: EngineConfig) -> None:
    p = plan(config)
    graphs = config.cudagraph_mode is not CUDAGraphMode.NONE
    for name, comp in p.components.items():
        if name == "prefill":  # token-keyed: test_engines_sglang_prefill.py
            continue
        width = comp.tables.uniform_query_len
        sizes = tuple(t // width for t in comp.tables.sizes)
        exact = set(sizes)
        for bs in range(1, request_pool(config) + 1):
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
    if config.cudagraph_mode is CUDAGraphMode.NONE:
        assert sizes == ()
        return
    align = batch_alignment(config)
    pool = round_up(request_pool(config), align)
    assert list(sizes) == sorted(set(sizes)) and sizes[-1] <= pool
    width = 1 if config.two_batch_overlap else config.uniform_query_len
    assert all(s * width % align == 0 for s in sizes)


@given(sglang_configs(max_seqs=96))
def test_own_plan_verifies_and_is_tight(config: EngineConfig) -> None:
    p = plan(config)
    assert p.verify().ok
    # SGLang's own allocation never goes short for the batches it can see
    assert p.verify({b.key: b.reference_capacity for c in p.components.values()
                     for b in c.buffers}).ok
    for comp in p.components.values():
        for b in comp.buffers:
            if not b.shared:
                short = p.verify({b.key: b.capacity - 1})
                assert not short.ok, b.key  # one row less is always a counterexample
    for sb in p.shared.values():  # one tensor SGLang's runners share: one row less of it
        assert not p.verify({u.key: sb.capacity - 1 for u in sb.users}).ok, sb.name


@given(sglang_configs(max_seqs=64), st.sampled_from(["positions", "seq_lens",
                                                     "req_pool_indices", "out_cache_loc"]))
def test_stale_rows_are_caught_exactly_when_a_batch_is_padded(config: EngineConfig,
                                                             name: str) -> None:
    p = plan(config)
    if not p.components["target"].buffers:
        return  # --disable-cuda-graph: no graph inputs at all
    result = p.verify(fills={f"target.{name}": "keep"})
    width = config.uniform_query_len
    padded = [bs for bs in range(1, request_pool(config) + 1)
              if (d := p.pad(bs * width, uniform_decode=True)).num_reqs not in (None, bs)
              and d.mode is not CUDAGraphMode.NONE]
    assert sorted({v.batch for v in result.fill_violations}) == padded
    assert result.ok == (not padded)


def test_fill_violation_reads_well() -> None:
    p = plan(sg(max_num_seqs=16, **EAGLE))
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


ML = {"spec_method": "eagle", "num_speculative_tokens": 3, "speculative_eagle_topk": 1,
      "multi_layer_eagle": True}


def test_multi_layer_eagle_runner() -> None:
    """multi_layer_eagle_worker_v2.py:417-458: no draft-decode runner, one composite
    draft-extend runner of width num_draft_tokens sharing one buffer set."""
    p = plan(sg(max_num_seqs=33, **ML))
    assert set(p.components) == {"target", "mtp_draft_extend", "prefill"}
    assert p.components["mtp_draft_extend"].tables.uniform_query_len == 4
    assert p.buffer("mtp_draft_extend.input_ids").shape == (33 * 4,)
    assert p.buffer("mtp_draft_extend.seq_lens").dtype == "int32"
    assert p.buffer("mtp_draft_extend.next_token_logits_buffer").shape == (33, 128256)
    assert p.buffer("mtp_draft_extend.num_accept_tokens").fill == FillPolicy(
        FillKind.SENTINEL, -1)
    assert p.verify().ok
    # attention DP gathers: one logits row per token and the global token counts
    dp = plan(sg(max_num_seqs=33, tp_size=4, attn_dp_size=2, **ML))
    assert dp.buffer("mtp_draft_extend.next_token_logits_buffer").axis is Axis.TOKENS
    assert dp.buffer("mtp_draft_extend.global_num_tokens_gpu").shape == (2,)


def test_multi_layer_eagle_switch_follows_sglang() -> None:
    """spec_info.py:354: STANDALONE ignores it; the MiMoV2 / GigaChat 3.5 / Step3p5 model
    overrides turn it on for EAGLE (model_overrides/mimo_v2.py:20-25)."""
    standalone = plan(sg(max_num_seqs=8, **{**ML, "spec_method": "draft_model"}))
    assert not standalone.config.multi_layer_eagle and "draft_extend" in standalone.components
    auto = plan(sg(max_num_seqs=8, architecture="MiMoV2ForCausalLM",
                   **{**ML, "multi_layer_eagle": False}))
    assert auto.config.multi_layer_eagle and "mtp_draft_extend" in auto.components
    frozen = plan(sg(max_num_seqs=8, architecture="MiMoV2ForCausalLM", spec_method="mtp",
                     frozen_kv_mtp=True, num_speculative_tokens=3, speculative_eagle_topk=1,
                     speculative_num_draft_tokens=4, multi_layer_eagle=True))
    assert not frozen.config.multi_layer_eagle and "frozen_drafter" in frozen.components


@given(sglang_configs(max_seqs=64), st.integers(1, 64))
def test_multi_layer_eagle_pads_within_its_buffers(config: EngineConfig, bs: int) -> None:
    """Every draft-extend batch of the multi-layer runner pads to a captured size whose rows
    the shared buffers hold (or runs eagerly)."""
    p = plan(config.replace(multi_layer_eagle=True))
    comp = p.components.get("mtp_draft_extend")
    if comp is None or not comp.buffers:
        return
    width = comp.tables.uniform_query_len
    assert width == p.config.speculative_num_draft_tokens
    assert_uniform_batch_within_buffers(p, "mtp_draft_extend", bs, width)


FROZEN = {"spec_method": "mtp", "frozen_kv_mtp": True, "num_speculative_tokens": 3,
          "speculative_eagle_topk": 2, "speculative_num_draft_tokens": 6}


def test_frozen_kv_mtp_runner() -> None:
    """frozen_kv_mtp_worker_v2.py:179-183, 380-399: the draft loop only (width topk, its
    rows expanded per branch), no draft-extend runner; no steps + 1 adjustment for topk 1."""
    p = plan(sg(max_num_seqs=33, **FROZEN))
    assert set(p.components) == {"target", "frozen_drafter", "prefill"}
    assert p.components["frozen_drafter"].tables.uniform_query_len == 2
    assert p.buffer("frozen_drafter.seq_lens").shape == (33 * 2,)
    assert p.buffer("frozen_drafter.hidden_states").shape == (33, 4096)
    assert p.verify().ok
    one = plan(sg(max_num_seqs=8, **{**FROZEN, "speculative_eagle_topk": 1,
                                     "speculative_num_draft_tokens": 7}))
    assert one.config.uniform_query_len == 7  # SGLang keeps 7 (no _handle_eagle_family)
    with pytest.raises(ConfigError, match="fills no default"):
        plan(sg(max_num_seqs=8, spec_method="mtp", frozen_kv_mtp=True))
    with pytest.raises(ConfigError, match="MTP draft"):
        plan(sg(max_num_seqs=8, **{**FROZEN, "spec_method": "eagle"}))
    with pytest.raises(ConfigError, match="not modelled"):
        plan(sg(max_num_seqs=8, cudagraph_mode="NONE", **FROZEN))


@given(sglang_configs(max_seqs=64, methods=("mtp",)), st.integers(1, 64))
def test_frozen_kv_mtp_pads_within_its_buffers(config: EngineConfig, bs: int) -> None:
    """Every draft-loop batch pads to a captured size whose expanded rows the buffers hold."""
    try:
        p = plan(config.replace(frozen_kv_mtp=True))
    except ConfigError:
        return  # steps / topk / draft tokens left to SGLang's defaults: it has none
    comp = p.components.get("frozen_drafter")
    if comp is None or not comp.buffers:
        return
    width = comp.tables.uniform_query_len
    assert width == (p.config.speculative_eagle_topk or 1)
    assert_uniform_batch_within_buffers(p, "frozen_drafter", bs, width)
