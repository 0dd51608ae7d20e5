"""TensorRT-LLM: CudaGraphConfig batch sizes, the token-budget cut (#5076), shared buffers."""

from __future__ import annotations

import pytest
from hypothesis import given

from graphfit import ConfigError, CUDAGraphMode, EngineConfig, LadderPolicy, plan
from graphfit.planner.analysis.properties import counterexamples
from graphfit.planner.engines.trtllm import trtllm_filter, trtllm_sizes
from graphfit.testing import trtllm_configs


def trt(**kw: object) -> EngineConfig:
    return EngineConfig.from_dict({"engine": "trtllm", **kw})


def test_padded_sizes_match_cuda_graph_config() -> None:
    assert trtllm_sizes(128, padding=True) == [1, 2, 4, *range(8, 129, 8)]
    assert trtllm_sizes(320, padding=True)[-4:] == [128, 192, 256, 320]
    assert trtllm_sizes(330, padding=True)[-3:] == [256, 320, 330]  # max appended
    assert trtllm_sizes(20, padding=True) == [1, 2, 4, 8, 16, 20]


def test_unpadded_sizes_match_cuda_graph_config() -> None:
    assert trtllm_sizes(128, padding=False) == [*range(1, 33), 64, 128]
    assert trtllm_sizes(1024, padding=False)[-4:] == [128, 256, 512, 1024]


def test_token_budget_cut() -> None:
    sizes = trtllm_sizes(128, padding=True)
    assert trtllm_filter(sizes, 256, 256, 4, padding=True)[-1] == 64
    assert trtllm_filter(sizes, 256, 260, 4, padding=True)[-2:] == [64, 65]  # limit appended
    assert trtllm_filter(sizes, 256, 260, 4, padding=False)[-1] == 64
    assert trtllm_filter(sizes, 256, 256, 1, padding=True)[-1] == 128  # before #5076


def test_defaults_follow_trtllm() -> None:
    c = trt(max_num_seqs=256, max_num_batched_tokens=8192)
    assert (c.ladder, c.cuda_graph_padding) == (LadderPolicy.TRTLLM, False)
    assert plan(c).capture_sizes == (*range(1, 33), 64, 128)  # default max batch size 128


def test_explicit_list_and_max_must_agree() -> None:
    with pytest.raises(ConfigError, match="must equal max"):
        plan(trt(max_num_seqs=64, cudagraph_capture_sizes=[1, 2, 4],
                 max_cudagraph_capture_size=8))



def test_no_graph_fits_is_an_eager_plan() -> None:
    """filter_cuda_graph_batch_sizes returns []: every batch runs eagerly, no error."""
    p = plan(trt(max_num_seqs=2, max_num_batched_tokens=3, spec_method="eagle",
                 num_speculative_tokens=3))
    assert p.capture_sizes == () and p.max_capture_size == 0
    assert any("no CUDA graph fits" in w for w in p.warnings)
    assert p.pad(4, uniform_decode=True).mode is CUDAGraphMode.NONE and p.verify().ok
    assert "graph_input_ids" not in {b.name for b in p.components["target"].buffers}


def test_llm_api_defaults_and_token_budget_warning() -> None:
    c = trt()
    assert (c.max_num_seqs, c.max_num_batched_tokens) == (2048, 8192)
    p = plan(trt(max_num_seqs=256, max_num_batched_tokens=128))
    assert p.capture_sizes[-1] == 128 and any("above max_num_tokens" in w for w in p.warnings)


def test_tree_speculation_sets_tokens_per_request() -> None:
    """1 + max_total_draft_tokens tokens per request (a 6-node eagle_choices tree: 7)."""
    p = plan(trt(max_num_seqs=256, max_num_batched_tokens=256, spec_method="eagle3",
                 num_speculative_tokens=2, speculative_num_draft_tokens=7,
                 cuda_graph_padding=True))
    assert p.config.uniform_query_len == 7 and p.capture_sizes[-1] == 256 // 7
    assert p.buffer("target.draft_tokens").shape == (256 * 6,)  # flat, as draft_tokens_cuda
    dynamic = trt(max_num_seqs=8, spec_method="eagle3", num_speculative_tokens=3,
                  speculative_eagle_topk=4)
    assert dynamic.uniform_query_len == 13  # max_total defaults to topK * max_draft_len
    assert plan(dynamic).buffer("target.draft_tokens").shape == (8 * 12,)
    with pytest.raises(ConfigError, match=r"in \[3, 12\]"):
        trt(max_num_seqs=8, spec_method="mtp", num_speculative_tokens=3,
            speculative_eagle_topk=4, speculative_num_draft_tokens=14)
    with pytest.raises(ConfigError, match=r"max_draft_len \+ 1"):
        trt(max_num_seqs=8, spec_method="ngram", num_speculative_tokens=3,
            speculative_num_draft_tokens=6)


def test_graph_runner_static_inputs_and_schedule() -> None:
    p = plan(trt(max_num_seqs=64, max_num_batched_tokens=8192, spec_method="eagle3",
                 num_speculative_tokens=3, max_cudagraph_capture_size=32))
    static = p.buffer("target.graph_input_ids")
    assert static.capacity == static.reference_capacity == 32 * 4  # graphs only: no prefill
    assert p.buffer("target.input_ids").capacity == 8192  # shared with eager prefills
    sched = plan(trt(max_num_seqs=128, spec_method="eagle3", num_speculative_tokens=3,
                     draft_len_schedule=[4, 48, 100]))
    assert sched.config.cuda_graph_padding and {48, 100} <= set(sched.capture_sizes)


@given(trtllm_configs())
def test_captured_batches_fit_the_token_budget(config: EngineConfig) -> None:
    p = plan(config)
    q, T, S = config.uniform_query_len, config.max_num_batched_tokens, config.max_num_seqs
    assert all(bs * q <= T and bs <= S for bs in p.capture_sizes)
    assert counterexamples(p, "graph_tokens_within_budget") == []


@given(trtllm_configs())
def test_trtllm_own_sizing_is_safe_after_the_fix(config: EngineConfig) -> None:
    """With the fixed cut, TensorRT-LLM's [max_num_tokens]/[max_batch_size] buffers suffice."""
    p = plan(config)
    reference = {b.key: b.reference_capacity for comp in p.components.values()
                 for b in comp.buffers}
    assert p.verify().ok and p.verify(reference).ok


@given(trtllm_configs())
def test_padding_off_replays_exact_sizes_only(config: EngineConfig) -> None:
    p = plan(config)
    q = config.uniform_query_len
    exact = set(p.capture_sizes)
    for bs in range(1, min(config.max_num_seqs, config.max_num_batched_tokens // q) + 1):
        d = p.pad(bs * q, uniform_decode=True)
        if config.cudagraph_mode is CUDAGraphMode.NONE or bs > p.max_capture_size:
            assert d.mode is CUDAGraphMode.NONE
        elif not config.cuda_graph_padding:
            assert (d.mode is CUDAGraphMode.FULL) == (bs in exact)
        else:
            assert d.mode is CUDAGraphMode.FULL and d.num_reqs in exact and d.num_reqs >= bs


def test_eager_batches_share_the_buffers() -> None:
    p = plan(trt(max_num_seqs=8, max_num_batched_tokens=512, spec_method="eagle3",
                 num_speculative_tokens=3))
    assert p.buffer("target.input_ids").capacity == 512  # prefill of 512 tokens runs eager
    short = p.verify({"target.input_ids": 511})
    assert [r.describe() for r in short.ranges()] == [
        "target.input_ids: num_tokens 512 pad to 512 > capacity 511"]


def test_buggy_ladder_overflows_the_token_buffers() -> None:
    """#5076 replayed: the pre-fix cut kept batches of 72..128 requests x 4 tokens > 256."""
    p = plan(trt(max_num_seqs=256, max_num_batched_tokens=256, spec_method="eagle3",
                 num_speculative_tokens=3, cuda_graph_padding=True, ladder="explicit",
                 cudagraph_capture_sizes=trtllm_filter(trtllm_sizes(128, padding=True), 256,
                                                       256, 1, padding=True)))
    assert p.buffer("target.input_ids").capacity == 512  # graphfit sizes what capture needs
    result = p.verify({"target.input_ids": 256})
    assert {v.num_tokens for v in result.violations} == {bs * 4 for bs in range(72, 129, 8)}
