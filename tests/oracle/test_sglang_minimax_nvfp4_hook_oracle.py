"""MiniMax-M3 served as `minimax_m3_nvfp4` with no speculation (issue 23 s51n), against
SGLang's own override hook and pool price (tests/oracle/measure_sglang_minimax_nvfp4_hook:
SGLang resolves each line on an NVFP4-expert checkpoint on the fake device of its GPU, then
prices it with `_compute_cell_size`). graphfit once refused every such line; now it refuses
exactly where the hook raises (minimax_m3.py:56-58, 92-93, 103-111, 116-119), with the hook's
sentence, and plans the others with SGLang's per-token price and page size.

Each hook rule is drawn one way and the neighbouring way on each GPU it binds on; the
generated counts are in `python -m tests.oracle.measure_sglang_minimax_nvfp4_hook`.
"""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import measure_sglang_minimax_nvfp4_hook as m  # noqa: E402

CASES: tuple[tuple[str, int, tuple[str, ...]], ...] = (
    # no flags: fa3 / page 128 / marlin on Hopper, trtllm_mha / fp8 KV / megamoe on B200
    ("H100", 2, ()), ("B200", 1, ()),
    # speculation outside DSPARK / DFLASH (:56-58)
    ("H100", 1, ("--speculative-algorithm", "EAGLE")),
    # the page size (:92-93): 64 refused, 128 kept; a backend given keeps page 128 on Hopper
    ("B200", 2, ("--page-size", "64")), ("H100", 1, ("--attention-backend", "triton")),
    # KV dtype (:116-119): bf16 refused on Blackwell, allowed on Hopper
    ("B200", 1, ("--kv-cache-dtype", "bf16")), ("H100", 2, ("--kv-cache-dtype", "bf16")),
    # the a2a backend (:103-111): deepep refused on Blackwell, megamoe kept
    ("B200", 1, ("--moe-a2a-backend", "deepep")),
    ("B200", 2, ("--moe-a2a-backend", "megamoe", "--kv-cache-dtype", "fp8_e4m3")),
)


@pytest.mark.parametrize(("gpu", "tp", "flags"), CASES)
def test_nvfp4_hook_matches_sglang(gpu: str, tp: int, flags: tuple[str, ...]) -> None:
    outcome, detail = m.verdict(m.target(), gpu, tp, flags)
    assert outcome == "agree", detail


def test_vl_wrapper_matches_sglang() -> None:
    """The VL wrapper's checkpoint (quantization_config at the top, text under text_config)."""
    outcome, detail = m.verdict(m.target(nested=True), "B200", 1, ())
    assert outcome == "agree", detail
