"""graphfit's default mem_fraction_static equals SGLang 0.5.23's on lines whose attention
backend is torch_native or flex_attention: SGLang's memory hook (pipeline.py:218) counts the
graphs the flags ask for, before the attention rule turns them off (attention_hook.py:122-160,
pipeline.py:242). Both sides run on each line (tests/oracle/sglang_graphless_fraction)."""

from __future__ import annotations

import random

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_graphless_fraction as gf  # noqa: E402

PINNED = (
    (("--attention-backend", "torch_native"), 80),  # the Llama line s41h found (0.842 / 0.830)
    (("--attention-backend", "flex_attention", "--cuda-graph-backend-prefill", "full"), 141),
    (("--attention-backend", "torch_native", "--disable-cuda-graph"), 80),  # no graph reserve
    (("--attention-backend", "torch_native", "--max-running-requests", "48",
      "--disaggregation-mode", "prefill"), 48),
    (("--attention-backend", "torch_native", "--tp", "4", "--attn-dp-size", "2"), 24),
)


@pytest.mark.parametrize(("argv", "gb"), PINNED)
def test_pinned_lines_agree(argv: tuple[str, ...], gb: float) -> None:
    out = gf.compare(argv, gb)
    assert not out.rejected and not out.refused, out
    assert out.difference is None, out


def test_drawn_lines_agree() -> None:
    rng = random.Random(4223)
    compared = 0
    for _ in range(12):
        out = gf.compare(*gf.draw_graphless(rng))
        if out.rejected or out.refused:
            continue
        compared += 1
        assert out.difference is None, out
    assert compared >= 8  # the draw is not mostly rejected lines
