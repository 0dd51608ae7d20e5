"""SGLang's compact ragged verify dispatch (graphfit.planner.engines.sglang_dspark_compact):
every reachable batch that replays a graph fits its buffers (padded <= capacity), pads to
the smallest captured tier and keeps every request; the refusals. SGLang's own runner
methods are compared in tests/oracle/test_sglang_dspark_oracle.py."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.keyed import prove_keyed, reachable_keys
from graphfit.planner.engines.sglang_dspark_compact import (
    CompactVerify,
    check_compact_features,
    compact_dispatch,
)

LADDERS = st.lists(st.integers(1, 24), min_size=1, max_size=6)


@given(LADDERS, st.integers(1, 5), st.integers(0, 6))
def test_every_replayed_batch_fits(ladder: list[int], width: int, beyond: int) -> None:
    verify = CompactVerify(tuple(ladder), width)
    dispatch = compact_dispatch(verify, ("seq_lens",))
    # batches beyond the runner's bounds are reachable too: they must run eagerly
    max_requests, max_tokens = verify.max_bs + beyond, verify.max_num_token + beyond
    violations, checked, replayed = prove_keyed(dispatch, verify.max_num_token,
                                                max_requests, max_tokens, width)
    assert violations == () and checked >= replayed > 0
    for batch in reachable_keys(max_requests, max_tokens, width):
        requests, tokens, _ = batch
        tier = dispatch.lookup(batch)
        fitting = [t for t in verify.tiers if t >= tokens and requests <= min(t, verify.max_bs)]
        if tier is None:
            # eager only where the smallest tier holding the tokens lacks request slots
            smallest = [t for t in verify.tiers if t >= tokens]
            assert not smallest or requests > min(smallest[0], verify.max_bs)
            continue
        assert tier == min(t for t in verify.tiers if t >= tokens) and tier in fitting
        assert tokens <= tier <= verify.max_num_token  # tokens: padded <= capacity
        slots = dispatch.rows_of(tier, "seq_lens")
        assert requests <= slots <= verify.max_bs  # requests: padded <= capacity
    # every captured tier is reached by the uniform full batch it was built from
    for bs in verify.capture_bs:
        assert dispatch.lookup((bs, bs * width, width)) == bs * width


def test_tiers_and_slots_example() -> None:
    verify = CompactVerify((1, 2, 4, 8), 4)
    assert verify.tiers == (4, 8, 16, 32) and verify.max_num_token == 32
    assert [verify.slots(t) for t in verify.tiers] == [4, 8, 8, 8]
    assert verify.tier_of(5, 5) == 8 and verify.tier_of(8, 9) == 16
    assert verify.tier_of(1, 33) is None


def test_refusals() -> None:
    with pytest.raises(ConfigError, match="411-421"):
        check_compact_features(two_batch_overlap=False, lora=True, disable_padding=False)
    check_compact_features(two_batch_overlap=False, lora=False, disable_padding=False)
    with pytest.raises(ConfigError):
        CompactVerify((), 4)
    with pytest.raises(ConfigError):
        CompactVerify((0, 2), 4)
