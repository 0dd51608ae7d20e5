"""graphfit's DeepSeek-V4 pool restatement on its own: invariants and refusals (the figures
themselves are compared with SGLang's configurator in
tests/oracle/test_sglang_dsv4_pool_oracle.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import ConfigError
from graphfit.planner.engines import sglang_dsv4_pool as dp

GIB = 1 << 30
FLASH = (0, 0) + (4, 128) * 20 + (4,)


def _shape(ratios: tuple[int, ...] = FLASH, sources: tuple[int, ...] = ()) -> dp.Dsv4Shape:
    return dp.Dsv4Shape(448, 64, 128, ratios, sources, 128, 1048576)


@settings(max_examples=30, deadline=None)
@given(st.integers(16, 200), st.integers(16, 200), st.booleans())
def test_more_budget_never_fewer_tokens(a: int, b: int, v41: bool) -> None:
    line = dp.resolved_inputs(max_running_requests=None,
                              model_type="deepseek_v41" if v41 else None)
    pool = dp.Dsv4Pool(_shape(), line)
    low, high = sorted((a, b))
    small, large = pool.pools(low * GIB), pool.pools(high * GIB)
    assert small.full_tokens <= large.full_tokens
    for pools, budget in ((small, low * GIB), (large, high * GIB)):
        assert pools.full_tokens % line.page_size == 0
        assert pools.c4_tokens == pools.full_tokens // 4
        assert pools.c128_tokens == pools.full_tokens // 128
        # everything the budget pays for fits in it, and one more page would not
        used = pools.full_tokens * pools.bytes_per_full_token + pools.fixed_bytes
        assert used <= budget
        assert used + line.page_size * pools.bytes_per_full_token > budget


def test_cap_mode_only_without_the_overrides_ratio() -> None:
    assert dp.operator_swa_ratio(None, "deepseek_v4") == dp.DEFAULT_SWA_RATIO
    assert dp.operator_swa_ratio(None, "deepseek_v41") is None
    assert dp.operator_swa_ratio(0.3, "deepseek_v41") == 0.3
    v41 = dp.Dsv4Pool(_shape(), dp.resolved_inputs(max_running_requests=None,
                                                    model_type="deepseek_v41"))
    v4 = dp.Dsv4Pool(_shape(), dp.resolved_inputs(max_running_requests=None))
    assert v41.swa_cap_tokens() is not None and v4.swa_cap_tokens() is None


@pytest.mark.parametrize("make", [
    lambda: dp.Dsv4Shape(448, 64, 128, (0, 3), (), 128, 4096),  # ratio 3
    lambda: dp.Dsv4Shape(448, 64, 128, (), (), 128, 4096),
    lambda: dp.Dsv4PoolInputs(page_size=64),  # not a multiple of 128
    lambda: dp.Dsv4PoolInputs(page_size=256, state_dtype="float16"),
    lambda: dp.Dsv4Pool(_shape(), dp.resolved_inputs(max_running_requests=None,
                                                     draft_tokens=11, spec_steps=10)),
    lambda: dp.budget_bytes(79.0, 0.9, 80.0),
    lambda: dp.Dsv4Pool(_shape(), dp.resolved_inputs(max_running_requests=None)).pools(
        GIB // 8),
])
def test_refusals_are_config_errors(make: object) -> None:
    with pytest.raises(ConfigError):
        make()  # type: ignore[operator]


def test_shape_from_config_refuses_what_sglang_cannot_read() -> None:
    with pytest.raises(ConfigError):
        dp.Dsv4Shape.of({"compress_ratios": "4", "head_dim": 512}, 4096)
    with pytest.raises(ConfigError):  # no head_dim: SGLang's ModelConfig fails
        dp.Dsv4Shape.of({"compress_ratios": [0, 4]}, 4096)


def test_not_modelled_names_each_path() -> None:
    assert dp.not_modelled({}) is None
    assert dp.not_modelled({"SGLANG_DSV4_KV_LAYOUT": "auto"}, capability=(9, 0)) is None
    said = [dp.not_modelled({"SGLANG_OPT_USE_ONLINE_COMPRESS": "1"}),
            dp.not_modelled({"SGLANG_DSV4_KV_LAYOUT": "v41"}),
            dp.not_modelled({}, capability=(10, 0)),
            dp.not_modelled({}, dsv4_attn_backend="trtllm"),
            dp.not_modelled({}, pp_size=2), dp.not_modelled({}, hisparse=True),
            dp.not_modelled({}, encoder_replay=True)]
    assert all(said) and len(set(said)) == len(said)


def test_draft_ring_layers_only_beside_replay_and_a_draft() -> None:
    """A DSPARK draft's ring layers (issue 23, s51k) are a count for a draft under encoder
    replay; replay with draft tokens needs them, and they need both."""
    line = {"page_size": 256, "max_running_requests": 8, "chunked_prefill_size": 8192}
    assert dp.Dsv4PoolInputs(**line, encoder_replay=True, draft_tokens=8,  # type: ignore[arg-type]
                             draft_ring_layers=2).draft_ring_layers == 2
    for bad in ({"draft_ring_layers": 2}, {"draft_ring_layers": 2, "draft_tokens": 8},
                {"draft_ring_layers": 2, "encoder_replay": True},
                {"draft_tokens": 8, "encoder_replay": True},
                {"draft_ring_layers": -1, "draft_tokens": 8, "encoder_replay": True}):
        with pytest.raises(ConfigError):
            dp.Dsv4PoolInputs(**line, **bad)  # type: ignore[arg-type]
