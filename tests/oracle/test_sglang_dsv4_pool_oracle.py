"""DeepSeek-V4's KV pools from a byte budget: graphfit's restatement
(graphfit.planner.engines.sglang_dsv4_pool) vs SGLang 0.5.23's own `DSV4PoolConfigurator`
(model_executor/pool_configurator.py:1067-1712) run on CPU after its argument pipeline resolved
the line (tests/oracle/sglang_dsv4_pool_oracle.py): the full, SWA, c4 / c128 token counts, the
compress-state pools and the request pool, over a grid and generated V4 / V4.1 shapes, lines
and budgets. A draw one side refuses must be refused by the other.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")

from tests.oracle.sglang_dsv4_pool_oracle import (  # noqa: E402
    GIB,
    Case,
    _sglang_cached,
    compare,
    generate,
)

V4 = dict(nope=448, rope=64, index=128, window=128, context=1048576, page=256)
# DeepSeek-V4-Flash-like: 43 layers, SWA-only first two, then c4 / c128 alternating
FLASH = (0, 0) + (4, 128) * 20 + (4,)
GRID = [
    Case(**V4, ratios=FLASH, sources=(), budget=40 * GIB),  # the override's ratio 0.1
    Case(**V4, ratios=FLASH, sources=(), budget=40 * GIB, v41=True),  # cap mode, 256 requests
    Case(**V4, ratios=FLASH, sources=(), budget=40 * GIB, v41=True, requests=64, dp=4),
    Case(**V4, ratios=FLASH, sources=(), budget=40 * GIB, v41=True, mode="decode",
         requests=32),  # decode: extra slots 2 x 32, radix off
    Case(**V4, ratios=FLASH, sources=(), budget=20 * GIB, drafts=4),  # EAGLE: (L+1)/L
    Case(**V4, ratios=FLASH, sources=(), budget=20 * GIB, drafts=11),  # past the c4 ring
    Case(**V4, ratios=FLASH, sources=(), budget=20 * GIB, swa_ratio=0.5,
         state_dtype="bfloat16"),
    Case(**V4, ratios=(1, 2, 4, 128, 0, 2), sources=(0, 1, 5), budget=8 * GIB, v41=True),
    Case(**V4, ratios=FLASH, sources=(), budget=GIB // 8),  # SWA pool below one request
    Case(**V4, ratios=FLASH, sources=(), budget=GIB // 4, v41=True),  # cap leaves nothing
    Case(**V4, ratios=FLASH, sources=(), budget=40 * GIB, v41=True, tails=0,
         chunk=16384, dp=2),
    # decode with the radix cache kept (prefix tails 4 x requests) / extra slots given
    Case(**V4, ratios=FLASH, sources=(), budget=40 * GIB, v41=True, mode="decode",
         requests=32, decode_radix=True),
    Case(**V4, ratios=FLASH, sources=(), budget=40 * GIB, v41=True, mode="decode",
         requests=32, extra_slots=8),
    # a --gpu-memory-gb line: each side's own fraction and budget; one whose weights leave none
    Case(**V4, ratios=FLASH, sources=(), budget=0, v41=True, gpu_gb=141.0, weights_gb=70.0),
    Case(**V4, ratios=FLASH, sources=(), budget=0, gpu_gb=80.0, weights_gb=76.0),
]


@pytest.mark.parametrize("case", GRID, ids=[str(i) for i in range(len(GRID))])
def test_grid(case: Case) -> None:
    assert compare(case) is None


def test_grid_covers_both_modes_and_refusals() -> None:
    """The grid reaches ratio and cap mode and SGLang's refusals (not vacuous)."""
    results = [_sglang_cached(c) for c in GRID]
    sized = [r for r in results if isinstance(r, dict)]
    refused = [r for r in results if isinstance(r, str)]
    ratio = [r for r in sized if r["swa"] == int(r["full"] * 0.1) // 256 * 256]
    assert ratio and len(ratio) < len(sized)  # ratio mode, and cap mode for the rest
    assert {r.split(":")[0] for r in refused} >= {"AssertionError", "ValueError",
                                                  "RuntimeError"}
    # the decode variants differ from each other and from the plain decode line
    decode = [_sglang_cached(c) for c in GRID[3:4] + GRID[11:13]]
    assert len({str(r) for r in decode}) == 3


@settings(max_examples=12, deadline=None, derandomize=True)
@given(st.integers(0, 2**31))
def test_generated(seed: int) -> None:
    case = generate(random.Random(seed))
    assert not str(_sglang_cached(case)).startswith("rejected"), case
    assert compare(case) is None, case
