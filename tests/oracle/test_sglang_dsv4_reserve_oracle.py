"""DeepSeek-V4's default memory reserve: SGLang 0.5.23 turns a DeepSeek-V4 target's breakable
prefill graphs off unless the backend is given (`disable_breakable_cudagraph_if_incompatible`,
arg_groups/cuda_graph_hook.py:193-202), so its memory hook reserves nothing for them
(`reserve_for_graph_mb`, memory_hook.py:380-389). graphfit's default mem_fraction_static and
its prefill plan vs SGLang's own pipeline, on a DeepSeek-V4 model directory
(tests/oracle/sglang_post_capture_oracle.SPARSE), over a grid and generated lines that vary TP,
DP attention, page size, KV dtype, GPU size, the speculative algorithm, the PD role and
SGLANG_ENABLE_POST_CAPTURE_KV_SIZING (tests/oracle/sglang_dsv4_reserve_oracle.py).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")

from tests.oracle.sglang_dsv4_reserve_oracle import (  # noqa: E402
    DSV4,
    EAGLE,
    S,
    compare,
    generate,
    sglang_side,
)

# the shapes of the six lines issue 23's new grid left (s32k), and their neighbours
GRID = [
    ((*S, "--tp", "4", "--enable-dynamic-chunking", "--max-prefill-tokens", "16384"), 80, None),
    (("--chunked-prefill-size", "16384", "--max-prefill-tokens", "2048"), 48, "on"),
    ((*S, "--disable-decode-cuda-graph"), 141, "No"),
    ((*S, "--chunked-prefill-size", "8192", "--disable-decode-cuda-graph",
      "--max-prefill-tokens", "32768"), 141, "0"),
    (("--disaggregation-mode", "prefill", "--disable-decode-cuda-graph",
      "--max-prefill-tokens", "16384"), 141, "0"),
    (("--chunked-prefill-size", "256", "--disaggregation-mode", "prefill",
      "--disable-decode-cuda-graph", "--tp", "4"), 24, "false"),
    ((), 24, None), (("--tp", "2"), 48, None), ((), 80, "1"),
    # a given backend is locked: no compatibility rule turns it off (cuda_graph_hook.py:143-144)
    (("--cuda-graph-backend-prefill", "breakable"), 24, None),
    (("--cuda-graph-backend-prefill", "breakable", "--tp", "2"), 48, "0"),
    (("--cuda-graph-backend-prefill", "full"), 48, None),
    # pipeline parallelism turns breakable off first (:150-162)
    (("--pp-size", "2"), 48, None),
    (("--enable-dp-attention", "--dp", "2", "--tp", "2"), 24, None),
    (("--disaggregation-mode", "decode", *EAGLE, "--speculative-num-steps", "3",
      "--speculative-num-draft-tokens", "4"), 24, None),
]


@pytest.mark.parametrize(("argv", "gb", "value"), GRID,
                         ids=[f"{v}:{' '.join(a)}@{g}" for a, g, v in GRID])
def test_dsv4_grid_equals_sglang(argv: tuple[str, ...], gb: float, value: str | None) -> None:
    assert compare(argv, gb, value) is None


def test_the_rule_is_not_vacuous() -> None:
    """SGLang keeps breakable prefill graphs on a Llama class of the same line and turns them
    off on DeepSeek-V4; the fractions differ, and graphfit follows both."""
    argv = (*S, "--tp", "4")
    llama, dsv4 = sglang_side(argv, 80, "llama", None), sglang_side(argv, 80, DSV4, None)
    assert llama is not None and dsv4 is not None
    assert (llama[1], dsv4[1]) == ("breakable", "disabled")
    assert llama[0] != dsv4[0]
    assert compare(argv, 80, name="llama") is None and compare(argv, 80) is None


@settings(max_examples=30)
@given(st.integers(0, 2**32 - 1))
def test_generated_dsv4_lines_equal_sglang(seed: int) -> None:
    argv, gb, value = generate(random.Random(seed))
    assert compare(argv, gb, value) is None


RAW = [(a, g) for a, g, v in GRID if v is None] + [((*S, "--tp", "2"), 48), (S, 24)]


@pytest.mark.parametrize(("argv", "gb"), RAW, ids=[f"{' '.join(a)}@{g}" for a, g in RAW])
def test_the_raw_server_args_path_equals_sglang(argv: tuple[str, ...], gb: float) -> None:
    """`sglang_native.memory_inputs_from_sglang` (a raw ServerArgs, the live path) applies the
    same rule: SGLang's fraction from the arguments as given, the architecture from the caller."""
    from graphfit.planner.engines.sglang_memory import mem_fraction_static
    from graphfit.planner.engines.sglang_native import memory_inputs_from_sglang
    from tests.oracle import sglang_oracle as so
    from tests.oracle import sglang_post_capture_oracle as pc
    from tests.oracle import sglang_prefill_oracle as po

    with pc.environment(None):
        sg = po.mem_fraction.__wrapped__(argv, gb, pc.model_dir(DSV4), pc.AMPERE)
    assert not isinstance(sg, so.Rejected)
    raw, theirs = sg
    ours = mem_fraction_static(memory_inputs_from_sglang(
        raw, gb, architecture="DeepseekV4ForCausalLM"))
    assert ours == theirs
