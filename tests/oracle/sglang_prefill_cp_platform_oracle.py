"""Prefill context parallelism on ROCm (issue 23 s55g): SGLang 0.5.23 resolves a pasted
`--enable-prefill-cp` line on the fake MI300X platform (sglang_mtp_oracle._platform, HIP) and
refuses every architecture but DeepSeek-V4 (parallel_hook.py:114-121); graphfit plans the same
line with `--gpu-memory-gb MI300X` (graphfit.inputs.sglang_prefill_cp_platform).

`compare(case)`: "same refusal" (SGLang's sentence in graphfit's error), "other refusal" (both
refuse, graphfit with another sentence; none since s60r, which reads the line as the CLI does,
`read_pasted` with the GPU flag),
"served" (SGLang serves; not compared further here), "differs" (SGLang refuses, graphfit
plans, or graphfit refuses a line SGLang serves with no "not modelled")."""

from __future__ import annotations

import random
from collections.abc import Callable

from tests.oracle import sglang_compare as sc
from tests.oracle import sglang_dcp_oracle as dc
from tests.oracle import sglang_mtp_oracle as mtp
from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_prefill_cp_oracle as cp

Case = cp.Case
GPU = "MI300X"


def sglang_refusal(case: Case) -> str | None:
    """SGLang's refusal text of the line on the fake ROCm platform, or None where it serves."""
    from graphfit.inputs.gpus import GPU_MEMORY_GB

    argv, gpu, model = case
    so.oracle()
    with mtp._restored_environ(), mtp._platform(gpu):
        r = so.resolve(argv, gpu_mem_gb=GPU_MEMORY_GB[gpu], model=cp.model_dir(model),
                       capability=(9, 4))
    return None if isinstance(r, so.Resolved) else r.text


def graphfit_answer(case: Case) -> sc.GraphfitAnswer:
    """graphfit's answer as its CLI reads the line: `read_pasted` with the GPU flag, which
    gives SGLang's HIP refusal its place in the order (issue 23 s60r), then the plan."""
    import graphfit
    from graphfit import ConfigError
    from graphfit.cli.options import read_pasted, resolve_values
    from tests.oracle import sglang_post_capture_oracle as pc

    argv, gpu, model = case
    values = {"gpu_memory_gb": gpu}
    try:
        dc.model_path(model)
        words = pc.graphfit_line(argv, model, None)
        line = read_pasted(words, values)
        return sc.GraphfitAnswer(argv, None, graphfit.plan(resolve_values(
            values, environ={}, pasted=line).config()))
    except ConfigError as exc:
        return sc.GraphfitAnswer(argv, str(exc))


def verdict(theirs: str | None, ours: str | None, said: str = "graphfit",
            same: Callable[[str, str], bool] = lambda reason, ours: reason in ours
            ) -> tuple[str, list[str]]:
    """`compare`'s outcome from SGLang's refusal text `theirs` (None: it serves) and
    graphfit's error `ours` (None: it plans), named `said` in the notes; `same`: graphfit's
    error gives SGLang's reason (issue 23 s64p)."""
    if theirs is None:
        if ours is not None and dc.NOT_MODELLED not in ours:
            return "differs", [f"SGLang serves; {said}: {ours}"]
        return "served", []
    reason = cp.sglang_reason(theirs)
    if ours is None:
        return "differs", [f"SGLang refuses ({reason[:160]}); {said} plans"]
    return ("same refusal", []) if same(reason, ours) else (
        "other refusal", [f"SGLang: {reason[:120]}; {said}: {ours}"])


def compare(case: Case) -> tuple[str, list[str]]:
    return verdict(sglang_refusal(case), graphfit_answer(case).rejected)


def generate(count: int, seed: int) -> list[Case]:
    """`count` prefill-CP lines (sglang_prefill_cp_oracle.generate's) on the MI300X."""
    rng = random.Random(seed)
    return [(argv, GPU, model) for argv, _, model in cp.generate(count, rng.randrange(1 << 30))]


def file_compare(case: Case) -> tuple[str, list[str]]:
    """`compare` for the line's flags as graphfit's own `--config` file, the GPU named by
    graphfit's flag (sglang_prefill_cp_oracle.file_plan; issue 23 s60r)."""
    return verdict(sglang_refusal(case), cp.file_plan(case)[1], "graphfit's file")
