"""SGLang 0.5.23's no_buffer check on the attention backend for a mamba hybrid (issue 23 s43m),
SGLang's own resolution vs graphfit's plan for the same pasted Qwen3-Next line:
`validate_mamba_no_buffer` asserts `--attention-backend` is not trtllm_mha
(arg_groups/mamba_hook.py:161-163), reading the flag as given (model_hook.py:225 / 737 run
before the backend default, pipeline.py:225, 242), with or without --enable-unified-memory.
graphfit had the rule (sglang_mamba_pool.MambaCache) but fed it vLLM's attention_backend
field, None on every SGLang line, so it never fired."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_mamba_attention_oracle as ma  # noqa: E402
from tests.oracle import sglang_unified_page_major_oracle as pm  # noqa: E402

MRR = ("--max-running-requests", "48")
TRT = ("--attention-backend", "trtllm_mha")
FI = ("--linear-attn-backend", "flashinfer")
NO_BUFFER = ("--mamba-radix-cache-strategy", "no_buffer", "--disable-overlap-schedule")
UNIFIED = ("--enable-unified-memory", "--cuda-graph-backend-prefill", "full")
# (argv, GPU), then whether SGLang refuses it with the no_buffer / trtllm_mha assertion
GRID: list[tuple[ma.Case, bool]] = [
    ((MRR + TRT + FI, "H100"), True),  # auto: no extra buffer on flashinfer (overrides.py:449)
    ((UNIFIED + MRR + TRT + FI + ("--mamba-ssm-dtype", "float32"), "H100"), True),  # s42u's
    ((MRR + TRT + NO_BUFFER, "H100"), True),
    ((MRR + TRT + NO_BUFFER, "B200"), True),
    ((MRR + TRT, "H100"), False),  # auto with overlap on triton: extra_buffer
    ((MRR + TRT + FI + ("--disable-radix-cache",), "H100"), False),  # no strategy resolved
    # the phase flags are not the field the assertion reads
    (((*MRR, "--decode-attention-backend", "trtllm_mha", *FI), "H100"), False),
    (((*MRR, "--prefill-attention-backend", "trtllm_mha", "--decode-attention-backend",
       "trtllm_mha", *FI), "H100"), False),
    (((*MRR, "--attention-backend", "fa3", *FI), "H100"), False),
]


@pytest.mark.parametrize(("case", "refused"), GRID)
def test_grid_matches_sglang(case: ma.Case, refused: bool) -> None:
    theirs, ours, differ = ma.compare(case)
    assert theirs is refused, f"grid line's premise: SGLang no_buffer / trtllm_mha {theirs}"
    assert ours is refused, f"graphfit's mamba_hook.py:161 refusal {ours} for {case}"
    assert differ is None, differ


def test_generated_lines_match_sglang() -> None:
    """Generated lines: graphfit refuses with mamba_hook.py:161 exactly where SGLang refuses
    with that assertion, and the outcomes agree; the rule is seen firing and not firing."""
    seen = set()
    for case in ma.generate(24, 43):
        theirs, ours, differ = ma.compare(case)
        assert theirs == ours, f"the no_buffer / trtllm_mha rule: SGLang {theirs}, " \
                               f"graphfit {ours} for {case}"
        assert differ is None, f"{case}: {differ}"
        seen.add(theirs)
    assert seen == {True, False}, f"the draw must reach both sides of the rule: {seen}"


def test_registered_model_is_a_mamba_hybrid() -> None:
    """The directory the lines name is Qwen3-Next's (pm.register)."""
    pm.register()
    from pathlib import Path

    from tests.oracle import sglang_post_capture_oracle as pc

    assert "Qwen3Next" in Path(pc.model_dir("qnext"), "config.json").read_text()


# Qwen3-Next's default attention backend under --enable-unified-memory with FULL prefill graphs
# (kv_cache_hook.py:701-716 keeps them only on fa3 / fa4): its override writes nothing off
# SM100 or with --attention-backend (model_overrides/qwen3_5.py:26-27), so SGLang's generic
# default decides (overrides.py:1126-1140). (argv, GPU), then whether graphfit plans it
DEFAULT_GRID: list[tuple[ma.Case, bool]] = [
    ((UNIFIED + MRR, "H100"), True),
    ((UNIFIED + MRR, "A100"), True),
    ((UNIFIED + MRR + ("--decode-attention-backend", "fa3"), "H100"), True),
    ((UNIFIED + MRR + ("--prefill-attention-backend", "fa4"), "A100"), True),
    ((UNIFIED + MRR + ("--linear-attn-backend", "triton"), "H100"), True),
    # SM100 without --attention-backend: triton, or trtllm_mha with an extra-buffer strategy
    # given, the radix cache off or speculation (qwen3_5.py:28-48; restated by s44m, its
    # phases compared in tests/oracle/test_sglang_linear_sm100_oracle.py)
    ((UNIFIED + MRR, "B200"), True),
    ((UNIFIED + MRR + ("--disable-radix-cache",), "B200"), True),
]


@pytest.mark.parametrize(("case", "planned"), DEFAULT_GRID)
def test_unified_default_backend_matches_sglang(case: ma.Case, planned: bool) -> None:
    argv, gpu = case
    from tests.oracle import sglang_unified_backends_oracle as ub

    theirs, _ = pm.sglang_side(argv, "qnext", gpu)
    ours = pm.graphfit_side(argv, "qnext", gpu)
    assert theirs is not None, f"grid line's premise: SGLang serves {case}"
    assert isinstance(ours, tuple) is planned, f"graphfit: {ours}"
    assert ub.verdict(theirs, ours) is None, ub.verdict(theirs, ours)
