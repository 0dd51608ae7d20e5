"""Inkling + unified memory + SGLANG_ENABLE_POST_CAPTURE_KV_SIZING, graphfit vs SGLang 0.5.23.

With the variable on, unified memory and no --mem-fraction-static, SGLang's memory hook asks
`post_capture_kv_sizing_planned` (memory_hook.py:281-289), whose unified-memory branch
(overrides.py:1826-1830) reads Inkling's `mamba2_cache_params` through `mambaish_config`; its
`get_exec()` (configs/inkling.py:234) raises before anything is published, as SGLang's own
launcher resolves (launch_server.py:29). graphfit refuses those lines with that reason
(sglang_post_capture.inkling_unified_fails); a given fraction, the variable off, no unified
memory, a declining flag resolve on both, with the same prefill backend and fraction (at run
time the same call answers False: Inkling's conv state is mamba-like). Pinned lines plus a few
drawn ones (< 60 s); the grid is `python -m tests.oracle.measure_sglang_inkling_post_capture`.
"""

from __future__ import annotations

import random

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_inkling_post_capture as ipc  # noqa: E402

B = ("--max-running-requests", "48")
U = (*B, *ipc.UNIFIED)
LINES = [  # (argv, model, gpu, SGLANG_ENABLE_POST_CAPTURE_KV_SIZING, SGLang fails)
    (U, "inkling", "H100", "1", True),
    (U, "mtp", "A100", "1", True),
    (U, "defaults", "H100", "1", True),
    ((*U, "--disaggregation-mode", "prefill", "--disaggregation-transfer-backend", "mooncake"),
     "inkling", "H100", "1", True),
    ((*U, "--mem-fraction-static", "0.8"), "inkling", "H100", "1", False),  # never asked
    (U, "inkling", "H100", None, False),  # the switch off
    (B, "inkling", "H100", "1", False),  # no unified memory: the branch is not reached
    ((*U, "--enable-memory-saver"), "inkling", "H100", "1", False),  # declined before it
    # the MTP architecture served as the target is multimodal: its VLM-lowered fraction
    # (InklingVisionConfig's getattr fallbacks, memory_hook.py:440-441)
    (B, "mtp", "H100", None, False),
    ((*U, "--tp", "2"), "mtp", "A100", "0", False),
]


@pytest.mark.parametrize(("argv", "model", "gpu", "value", "fails"), LINES,
                         ids=[f"{m} {g} {v} {' '.join(a[2:])}" for a, m, g, v, _ in LINES])
def test_inkling_post_capture_line_equals_sglang(argv: tuple[str, ...], model: str, gpu: str,
                                                 value: str | None, fails: bool) -> None:
    verdict, theirs, ours = ipc.outcome((argv, model, gpu, value))
    assert (isinstance(theirs, str) and "configs/inkling.py:234" in theirs) is fails, theirs
    if fails:
        assert isinstance(ours, str) and "configs/inkling.py:234" in ours and len(ours) <= 200
    assert verdict in ("agree", "both fail"), (verdict, theirs, ours)


def test_drawn_inkling_post_capture_lines_equal_sglang() -> None:
    rng = random.Random(41)
    for _ in range(4):
        line = ipc.draw(rng)
        verdict, theirs, ours = ipc.outcome(line)
        assert verdict in ("agree", "both fail", "graphfit: not modelled"), (line, theirs, ours)


@pytest.mark.parametrize("unified", [True, False])
def test_run_time_answer_equals_sglang(unified: bool) -> None:
    """With a given fraction the line resolves; once published, SGLang's run-time
    `post_capture_kv_sizing_planned` (kv_pool_runtime.py:48) reads Inkling's conv state as
    mamba-like under unified memory (overrides.py:1826-1830): False, where graphfit's
    `sglang_reserve.post_capture` must say the same (and True without unified memory)."""
    from graphfit.cli.options import resolve_values
    from graphfit.inputs import commandline
    from graphfit.planner.engines.sglang_reserve import post_capture
    from tests.oracle import sglang_mamba_memory_oracle as mm
    from tests.oracle import sglang_oracle as so
    from tests.oracle import sglang_post_capture_oracle as pc

    argv = (*(U if unified else B), "--mem-fraction-static", "0.8")
    model = mm.model_dir(mm.INKLING)
    with pc.environment("1"):
        r = so.resolve(argv, gpu_mem_gb=79.6, model=model)  # a Hopper, as "H100" below
        assert isinstance(r, so.Resolved), r
        from sglang.srt.arg_groups.overrides import post_capture_kv_sizing_planned

        with so.published(r):
            theirs = bool(post_capture_kv_sizing_planned(r.record))
    line = [f"{pc.ENV}=1", "python", "-m", "sglang.launch_server", "--model-path", model, *argv]
    config = resolve_values({"gpu_memory_gb": "H100"}, environ={},
                            pasted=commandline.read(line)).config()
    assert theirs is (not unified)  # the oracle fact
    assert post_capture(config) is theirs
