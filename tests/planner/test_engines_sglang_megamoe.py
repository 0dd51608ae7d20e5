"""SGLang's megamoe start-up rules (graphfit.planner.engines.sglang_megamoe) as invariants:
the per-rank budgets are what one rank really forwards (never less), the class / NVFP4 rule,
and the plan of a started megamoe line (the decode ladder aligned like any live backend)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import graphfit
from graphfit import EngineConfig
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines import sglang_megamoe as mm

parallel = st.sampled_from([(1, 1), (2, 1), (4, 1), (8, 1), (4, 2), (4, 4), (8, 2), (8, 8)])


@given(parallel, st.integers(1, 1 << 16))
def test_prefill_share_covers_each_rank(tp_dp: tuple[int, int], chunk: int) -> None:
    """Each rank's share is at least its chunk of tokens, a multiple of the attention-TP
    width, and the smallest such multiple."""
    tp, dp = tp_dp
    local = chunk // dp if dp > 1 else chunk
    if local <= 0:
        with pytest.raises(ConfigError, match="positive"):
            mm.prefill_tokens_per_rank(chunk, tp, dp, 1)
        return
    need, _ = mm.prefill_tokens_per_rank(chunk, tp, dp, 1)
    width = tp // dp
    assert need >= local and need % width == 0 and need - width < local


@given(parallel, st.integers(1, 1024), st.none() | st.integers(1, 4096), st.integers(1, 8))
def test_decode_tokens_bound_the_largest_forward(tp_dp: tuple[int, int], max_bs: int,
                                                 requests: int | None, per: int) -> None:
    tp, dp = tp_dp
    tokens = mm.decode_tokens_per_rank(max_bs, requests, tp, dp, per)
    assert tokens % per == 0 and tokens <= max_bs * per
    if requests is not None:  # no more than the per-rank pool, aligned to attention TP
        width = tp // dp
        assert tokens // per <= -(-(requests // dp) // width) * width


@given(st.sampled_from([*sorted(mm.NO_FALLBACK_ARCHS), "Glm4MoeForCausalLM",
                        "DeepseekV3ForCausalLM"]),
       st.sampled_from([None, "FP8", "NVFP4", "W4A16_NVFP4", "nvfp4", "MXFP8"]),
       st.sampled_from([None, "fp8", "modelopt_fp4", "minimax_m3_nvfp4"]))
def test_budget_applies_to_no_fallback_classes_and_nvfp4(arch: str, algo: str | None,
                                                         method: str | None) -> None:
    nvfp4 = method in ("modelopt_fp4", "minimax_m3_nvfp4") or "FP4" in (algo or "")
    assert mm.needs_token_budget(arch, algo, method) == (arch in mm.NO_FALLBACK_ARCHS or nvfp4)


def _config(**options: object) -> EngineConfig:
    base: dict[str, object] = {"moe_a2a_backend": "megamoe", "gpu_memory_gb": 79.6,
                               "sm90": True, "tp_size": 4}
    base.update(options)
    return EngineConfig(engine="sglang", architecture="Qwen3MoeForCausalLM",
                        max_num_seqs=64, options=base)


@settings(max_examples=20, deadline=None)
@given(st.sampled_from([1, 2, 4]), st.integers(4, 64))
def test_a_started_megamoe_plan_is_aligned_and_proved(dp: int, requests: int) -> None:
    """megamoe gathers like any live backend: captured sizes are multiples of the attention
    TP width unless every attention group is one rank; every batch pads within capacity."""
    config = EngineConfig(engine="sglang", architecture="Qwen3MoeForCausalLM",
                          max_num_seqs=requests * dp,
                          options={"moe_a2a_backend": "megamoe", "gpu_memory_gb": 79.6,
                                   "sm90": True, "tp_size": 4, "attn_dp_size": dp})
    plan = graphfit.plan(config)
    assert plan.verify().ok
    width = 4 // dp
    sizes = list(plan.capture_sizes)
    assert sizes and all(size % width == 0 for size in sizes)
    for bs in range(1, min(requests, max(sizes)) + 1):
        padded = plan.pad(bs, uniform_decode=True, component="target").padded
        assert padded == min(s for s in sizes if s >= bs)


def test_megamoe_refusals_name_the_rule() -> None:
    with pytest.raises(ConfigError, match="SM90 or SM100"):
        graphfit.plan(_config(sm90=None))
    with pytest.raises(ConfigError, match="SGLang refuses this one"):
        graphfit.plan(_config(sm90=False, sm100=False))
    with pytest.raises(ConfigError, match="two-batch"):
        graphfit.plan(_config(two_batch_overlap=True))
    with pytest.raises(ConfigError, match="8192 prefill tokens per rank"):
        graphfit.plan(_config(megamoe_tokens_per_rank=8191))
    with pytest.raises(ConfigError, match="64 decode / verify tokens"):
        graphfit.plan(_config(megamoe_tokens_per_rank=63))
    graphfit.plan(_config(sm90=False, sm100=True))  # a Blackwell starts it
    # a fallback class needs no budget; NVFP4 experts do
    fallback = EngineConfig(engine="sglang", architecture="Glm4MoeForCausalLM",
                            max_num_seqs=64, options={"moe_a2a_backend": "megamoe",
                                                      "gpu_memory_gb": 79.6, "sm90": True,
                                                      "tp_size": 4,
                                                      "megamoe_tokens_per_rank": 1})
    graphfit.plan(fallback)
    with pytest.raises(ConfigError, match="decode / verify"):
        graphfit.plan(fallback.replace(quant_algo="NVFP4"))


def test_the_runner_alias_is_the_backend() -> None:
    config = EngineConfig(engine="sglang", architecture="Qwen3MoeForCausalLM",
                          max_num_seqs=64, options={"moe_runner_backend": "megamoe",
                                                    "moe_a2a_backend": "deepep", "sm90": True})
    assert config.moe_a2a_backend == "megamoe" and config.moe_runner_backend == "auto"
