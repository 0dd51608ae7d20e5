"""Planted errors in graphfit's DeepSeek-V4 pool sizes, each run over the test's grid and
generated draws against SGLang 0.5.23's own `DSV4PoolConfigurator`: every plant must make some
draws differ (or be refused by one side only), the unplanted code none. Patched in this
process only; SGLang's answers are computed once.

    PYTHONPATH=. python -m tests.oracle.plant_sglang_dsv4_pool [DRAWS] [SEED]
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from typing import Any
from unittest import mock

from graphfit.planner.engines import sglang_dsv4_pool as dp
from tests.oracle import sglang_dsv4_pool_oracle as po
from tests.oracle.test_sglang_dsv4_pool_oracle import GRID

ORIGINAL_COMPRESSED = dp.Dsv4Pool.compressed_bytes
ORIGINAL_RESOLVED = dp.resolved_inputs


def _c4_fp4_indexer(self: dp.Dsv4Pool, ratio: int) -> float:
    # the c4 indexer priced at the fp4 width the low-ratio pools use
    if ratio == 4:
        return 1 / 4 * dp.paged_bytes_per_token(self.line.page_size, 4) + 1 / 4 * (
            dp.indexer_bytes(self.shape.index_head_dim, fp4=True))
    return ORIGINAL_COMPRESSED(self, ratio)


def _chunk_not_split(**kwargs: Any) -> dp.Dsv4PoolInputs:
    line = ORIGINAL_RESOLVED(**kwargs)
    return dp.Dsv4PoolInputs(**{**line.__dict__,
                                "chunked_prefill_size": kwargs.get("chunked_prefill_size")})


PLANTS: dict[str, Callable[[], Any]] = {
    "no page padding (584-byte rows)": lambda: mock.patch.object(dp, "V4_PAGE_ALIGN", 584),
    "no speculative inflation": lambda: mock.patch.object(
        dp.Dsv4Pool, "inflation", property(lambda self: 1.0)),
    "override's SWA ratio ignored (cap mode on V4)": lambda: mock.patch.object(
        dp, "operator_swa_ratio", lambda given, model_type: given),
    "decode extra slots 0": lambda: mock.patch.object(
        dp, "decode_extra_slots", lambda given, requests, dp_size: given or 0),
    "c4 indexer at fp4": lambda: mock.patch.object(
        dp.Dsv4Pool, "compressed_bytes", _c4_fp4_indexer),
    "no reserved low-ratio pages": lambda: mock.patch.object(
        dp.Dsv4Pool, "padding_bytes", lambda self, full: 0.0),
    "chunk not split by attention DP": lambda: mock.patch.object(
        dp, "resolved_inputs", _chunk_not_split),
    "speculative rings at their plain size": lambda: mock.patch.object(
        dp, "ring_size", lambda ratio, drafts: {2: 2, 4: 8, 128: 128}[ratio]),
    "prefix tails not 4 x requests": lambda: mock.patch.object(
        dp.Dsv4Pool, "prefix_tails", lambda self: 0 if self.line.swa_prefix_tails is None
        else self.line.swa_prefix_tails),
    "state dtype always float32": lambda: mock.patch.dict(
        dp.STATE_DTYPE_BYTES, {"bfloat16": 4}),
    "budget without the slack": lambda: mock.patch.object(
        dp, "budget_bytes", lambda weights, fraction, preload: int(
            (preload - weights) * (1 << 30))),
}


def _differ(cases: list[po.Case]) -> int:
    return sum(po.compare(c) is not None for c in cases)


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 11)
    cases = list(GRID) + [po.generate(rng) for _ in range(count)]
    print(f"unplanted: {_differ(cases)} of {len(cases)} differ")
    for label, plant in PLANTS.items():
        with plant():
            print(f"{label}: {_differ(cases)} of {len(cases)} differ")


if __name__ == "__main__":
    main()
