"""Lines for a mamba hybrid (Qwen3-Next) that reach SGLang's no_buffer check on the attention
backend (issue 23 s43m): `validate_mamba_no_buffer` asserts `view.attention_backend !=
"trtllm_mha"` (arg_groups/mamba_hook.py:161-163). It runs from
`handle_model_specific_adjustments` (model_hook.py:225 / 737, pipeline.py:225), before the
backend default is filled (pipeline.py:242), so it reads `--attention-backend` as given, not
the phase flags. The strategy is no_buffer when named, or when "auto" cannot have the extra
buffer (overrides.py:476-486: no overlap and no paging, or a linear-attention backend other
than triton, :438-450). SGLang's own pipeline vs graphfit's plan for the pasted line
(shared by tests/oracle/test_sglang_mamba_attention_oracle.py)."""

from __future__ import annotations

import random

from tests.oracle import sglang_unified_page_major_oracle as pm

# Hopper and SM100: trtllm_mha's own GPU check (attention_hook.py:199-206) passes there; on
# an A100 SGLang's mamba check comes first (pipeline.py:225 before :242) while graphfit's
# reader refuses for the GPU first: both refuse, for different reasons (issue-23-s43m notes)
GPUS = ("H100", "B200")
BACKENDS = ("trtllm_mha", "trtllm_mha", "trtllm_mha", "fa3", "flashinfer", "triton")
ATTENTION = (None, "--attention-backend", "--attention-backend", "--attention-backend",
             "--decode-attention-backend", "--prefill-attention-backend", "both")
SGLANG_WORDS = "no_buffer do not support trtllm_mha"
GRAPHFIT_WORDS = "mamba_hook.py:161"
Case = tuple[tuple[str, ...], str]  # argv, GPU


def _attention(rng: random.Random) -> tuple[str, ...]:
    flag, name = rng.choice(ATTENTION), rng.choice(BACKENDS)
    if flag is None:
        return ()
    if flag == "both":
        return ("--prefill-attention-backend", name, "--decode-attention-backend", name)
    return (flag, name)


def generate(count: int, seed: int) -> list[Case]:
    """`count` Qwen3-Next lines: an attention flag (the base one, a phase one, both phases or
    none), a linear-attention backend, a mamba strategy, the overlap schedule, the radix
    cache and the page size drawn, on an H100 or B200 (GPUS)."""
    rng = random.Random(seed)
    out: list[Case] = []
    for _ in range(count):
        argv: tuple[str, ...] = ("--max-running-requests", "48", *_attention(rng))
        gpu = rng.choice(GPUS)
        if rng.random() < 0.5:
            # not flashinfer on SM100: its bf16-state and CUDA 13 checks (attention_hook.py:
            # 334-395) are not restated (issue 23 s42u's notes)
            argv += ("--linear-attn-backend",
                     "triton" if gpu == "B200" else rng.choice(("triton", "flashinfer")))
        if rng.random() < 0.5:
            argv += ("--mamba-radix-cache-strategy",
                     rng.choice(("auto", "no_buffer", "extra_buffer")))
        if rng.random() < 0.4:
            argv += ("--disable-overlap-schedule",)
        if rng.random() < 0.15:
            argv += ("--disable-radix-cache",)
        if rng.random() < 0.15:
            argv += ("--page-size", "64")
        out.append((argv, gpu))
    return out


def compare(case: Case) -> tuple[bool, bool, str | None]:
    """(SGLang refuses with the no_buffer / trtllm_mha assertion, graphfit refuses with
    mamba_hook.py:161, the disagreement on the outcome or None). The outcome is compared as
    tests/oracle/sglang_unified_backends_oracle.verdict compares (refused, or the same prefill
    graphs and fraction)."""
    from tests.oracle import sglang_unified_backends_oracle as ub

    argv, gpu = case
    theirs, text = pm.sglang_side(argv, "qnext", gpu)
    ours = pm.graphfit_side(argv, "qnext", gpu)
    return (SGLANG_WORDS in text, isinstance(ours, str) and GRAPHFIT_WORDS in ours,
            ub.verdict(theirs, ours))
