"""DeepSeek-V4's KV pools from a byte budget: graphfit's restatement
(graphfit.planner.engines.sglang_dsv4_pool) vs SGLang 0.5.23's own `DSV4PoolConfigurator`
(model_executor/pool_configurator.py:1067-1712) run on CPU after its argument pipeline resolved
the line (tests/oracle/sglang_dsv4_pool_oracle.py): the full, SWA, c4 / c128 token counts, the
compress-state pools and the request pool, over a grid and generated V4 / V4.1 shapes, lines
and budgets. A draw one side refuses must be refused by the other.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

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


@pytest.mark.parametrize("fields", [
    {},  # the oracle directory's own DeepSeek-V4 fields, SGLang's DeepSeekV4Config
    {"qk_nope_head_dim": 128, "window_size": 64, "compress_ratios": [0, 4, 128, 4, 128]},
    {"sliding_window": 256, "window_size": 64, "index_head_dim": 64, "head_dim": 256,
     "qk_rope_head_dim": 32, "kv_source_layer_ids": [1, 2]},
    {"model_type": "deepseek_v41", "kv_source_layer_ids": [0, 3],
     "compress_ratios": [1, 4, 128, 2, 0]},
])
def test_shape_is_what_sglangs_model_config_reads(fields: dict[str, object],
                                                  tmp_path: Path) -> None:
    """`Dsv4Shape.of(config.json)` vs SGLang's own ModelConfig (configs/model_config.py:
    1418-1429) and the configurator's stage slice, for the same directory."""
    from tests.oracle import sglang_oracle as so
    from tests.oracle import sglang_post_capture_oracle as pc
    from tests.oracle import sglang_stubs

    root = tmp_path / "dsv4"
    shutil.copytree(pc.model_dir("dsv4"), root)
    data = {**json.loads((root / "config.json").read_text()), "model_type": "deepseek_v4",
            **fields}
    (root / "config.json").write_text(json.dumps(data))
    with pc.environment(None):
        r = so.resolve((), gpu_mem_gb=80, model=str(root), capability=(9, 0))
        assert not isinstance(r, so.Rejected), r
        with so.published(r), sglang_stubs.stubbed():
            from sglang.srt.arg_groups.model_override_base import model_config_of

            mc = model_config_of(r.record)
            theirs = (mc.qk_nope_head_dim, mc.qk_rope_head_dim, mc.index_head_dim,
                      tuple(mc.compress_ratios[:mc.num_hidden_layers]),
                      tuple(mc.hf_config.kv_source_layer_ids), mc.sliding_window_size)
    from graphfit.planner.engines.sglang_dsv4_pool import Dsv4Shape

    ours = Dsv4Shape.of(data, 4096)
    assert (ours.qk_nope_head_dim, ours.qk_rope_head_dim, ours.index_head_dim,
            ours.compress_ratios, ours.kv_source_layer_ids, ours.window_size) == theirs
