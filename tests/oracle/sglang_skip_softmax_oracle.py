"""`SGLANG_SKIP_SOFTMAX_PREFILL_THRESHOLD_SCALE_FACTOR` on a pasted line (issue 23 s67p):
SGLang 0.5.23's attention hook refuses the trtllm_mha prefill backend on SM120 with the
variable above 0 (arg_groups/attention_hook.py:207-221; an EnvFloat, environ.py:1265), before
the DP refusal and the CP hook on a prefill-CP line. graphfit reads it off the line's
`VAR=value` prefix (graphfit.inputs.sglang_skip_softmax).

A case is (argv, gpu, model, value): `value` None leaves the variable unset. `compare(case)`:
SGLang resolves the line on its fake GPU with the variable in its process environment
(sglang_prefill_cp_attention_hook_oracle.sglang_refusal); graphfit reads the pasted line with
the prefix, as its CLI does (the GPU flag), and plans it; the verdict is
sglang_prefill_cp_platform_oracle.verdict's, SGLang's sentence held to its place
(sglang_prefill_cp_rocm_order_oracle.same_reason)."""

from __future__ import annotations

import os
import random

from tests.oracle import sglang_prefill_cp_attention_hook_oracle as ah
from tests.oracle import sglang_prefill_cp_oracle as cp
from tests.oracle import sglang_prefill_cp_platform_oracle as po
from tests.oracle import sglang_prefill_cp_rocm_order_oracle as ro

ENV = "SGLANG_SKIP_SOFTMAX_PREFILL_THRESHOLD_SCALE_FACTOR"
Case = tuple[tuple[str, ...], str, str, str | None]
# the values drawn: unset, above 0, 0, below 0, what float() cannot read, inf, nan
VALUES = (None, "0.5", "1e-3", "0", "-1", "abc", "inf", "nan")
# the backend flags drawn: trtllm_mha per phase (the hook's FMHAv2 check reads the prefill
# one), another backend, none (SGLang's default, trtllm_mha on SM100 for an MHA model)
BACKENDS: tuple[tuple[str, ...], ...] = (
    ("--attention-backend", "trtllm_mha"), ("--prefill-attention-backend", "trtllm_mha"),
    ("--attention-backend", "trtllm_mha"), ("--decode-attention-backend", "trtllm_mha"),
    ("--attention-backend", "triton"), ())
GPUS = ("RTX5090", "RTX5090", "RTX5090", "H100", "B200")


def sglang_refusal(case: Case) -> str | None:
    """SGLang's refusal of the line with the variable set (restored after), or None."""
    argv, gpu, model, value = case
    old = os.environ.get(ENV)
    if value is not None:
        os.environ[ENV] = value
    try:
        return ah.sglang_refusal((argv, gpu, model))
    finally:
        os.environ.pop(ENV, None)
        if old is not None:
            os.environ[ENV] = old


def graphfit_refusal(case: Case) -> str | None:
    """graphfit's refusal of the pasted line with the `VAR=value` prefix, or None (planned)."""
    import graphfit
    from graphfit import ConfigError
    from graphfit.cli.options import read_pasted, resolve_values
    from tests.oracle import sglang_post_capture_oracle as pc

    argv, gpu, model, value = case
    cp.model_dir(model)
    words = pc.graphfit_line(argv, model, None, extra=() if value is None else ((ENV, value),))
    flags = {"gpu_memory_gb": gpu}
    try:
        graphfit.plan(resolve_values(flags, environ={},
                                     pasted=read_pasted(words, flags)).config())
    except ConfigError as exc:
        return str(exc)
    return None


def compare(case: Case) -> tuple[str, list[str]]:
    return po.verdict(sglang_refusal(case), graphfit_refusal(case), same=ro.same_reason)


def generate(count: int, seed: int) -> list[Case]:
    """`count` lines on the Llama target: half prefill-CP lines (sglang_prefill_cp_oracle.
    generate's shapes, the strategy and the DP refusal drawn), half without prefill CP, each
    with a backend set of BACKENDS, an fp8_e4m3 KV cache now and then, on a GPU of GPUS, with
    a value of VALUES."""
    rng = random.Random(seed)
    out: list[Case] = []
    for argv, _gpu, _model in cp.generate(count, rng.randrange(1 << 30)):
        words = list(argv) if rng.random() < 0.5 else ["--max-running-requests", "24"]
        if "--attention-backend" in words:
            at = words.index("--attention-backend")
            del words[at:at + 2]
        words += rng.choice(BACKENDS)
        if rng.random() < 0.1:
            words += ["--kv-cache-dtype", "fp8_e4m3"]
        out.append((tuple(words), rng.choice(GPUS), "llama", rng.choice(VALUES)))
    return out
