"""The zigzag capture check (issue 23 s62p): invariants of `check_capture`."""

from __future__ import annotations

import pytest

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines.sglang_prefill_cp_bcg import (
    capture_seq_lens,
    check_capture,
    cp_active,
)


@pytest.mark.parametrize("cp", [2, 4, 8])
@pytest.mark.parametrize("ctx", [None, 7, 16, 33, 100, 127, 1000])
def test_refuses_exactly_when_a_capture_request_is_short(cp: int, ctx: int | None) -> None:
    captured = tuple(b for b in (4, 8, 16, 32, 64, 128, 256, 384, 512) if b >= 2 * cp)
    short = [b for b in captured if min(capture_seq_lens(b, ctx)) < 2 * cp]
    if not short:
        check_capture(captured, "zigzag", cp, ctx)
        assert all(cp_active(cp, capture_seq_lens(b, ctx)) for b in captured)
        return
    with pytest.raises(ConfigError) as err:
        check_capture(captured, "zigzag", cp, ctx)
    # the largest failing bucket: SGLang captures largest first
    assert f"bucket {max(short)} at context length {ctx}" in str(err.value)
    assert len(f"error: {err.value}") <= 200


def test_interleave_is_not_checked() -> None:
    check_capture((4, 8), "interleave", 4, 5)
