"""The live check on a quantized checkpoint against SGLang 0.5.23 (issue 23, s63c).

One case is (config.json quantization_config layout, `--quantization` flag, GPU). SGLang's
answer is its own ModelConfig `_verify_quantization` and the model loader's capability and
dtype checks on a small Llama directory carrying the layout
(tests.oracle.sglang_quant_capability_oracle.load, on a fake CUDA device of the GPU's
capability). `--quantization unquant` is handed to it as none, which is what
`_handle_missing_default_values` leaves before any ModelConfig is built
(arg_groups/serving_hook.py:692-703; `fixed_unquant` checks that on SGLang's own resolved
record). graphfit's answer is `graphfit.integrations.sglang.from_sglang` on a ServerArgs-like
record naming that directory and the flag as the record keeps it (raw: `unquant` stays),
planned, with the GPU named as the plugin names it.
"""

from __future__ import annotations

import functools
import random
import types
from collections.abc import Callable
from typing import Any

from graphfit.inputs.gpus import gpu_capability
from graphfit.planner.core.errors import GraphfitError
from tests.oracle import sglang_quant_capability_oracle as co
from tests.oracle import sglang_quantization_oracle as qo
from tests.oracle.sglang_quant_capability_compare import llama_dir

GPUS = ("A100", "L40S", "H100", "B200")
FLAGS = (None, "unquant", "fp8", "modelopt_fp4", "modelopt_fp8", "mxfp8", "awq_marlin", "quark",
         "w8a8_fp8", "compressed-tensors", "moe_wna16")
LAYOUTS = (None, *sorted(qo.LAYOUTS))
Case = tuple["str | None", "str | None", str]  # (layout, flag, GPU)


@functools.cache
def folder(layout: str | None) -> str:
    """A small Llama checkpoint directory whose config.json carries the layout."""
    return llama_dir("graphfit-live-quant-", None if layout is None else qo.LAYOUTS[layout])


def cases(count: int, seed: int) -> list[Case]:
    """`count` distinct drawn cases (every layout, flag and GPU may come up)."""
    rng = random.Random(seed)
    every = [(lay, flag, gpu) for lay in LAYOUTS for flag in FLAGS for gpu in GPUS]
    return rng.sample(every, min(count, len(every)))


def sglang(case: Case) -> str:
    """"passed" or "refused: <stage>" as SGLang answers the case."""
    layout, flag, gpu = case
    cap = gpu_capability(gpu)
    assert cap is not None
    given = None if flag == "unquant" else flag  # serving_hook.py:692-703
    answer = co.load(given, None if layout is None else qo.LAYOUTS[layout], cap,
                     folder(layout))
    if co.dtype_refused(answer):
        return "refused: dtype"
    return "passed" if answer.stage in ("passed", "none") else f"refused: {answer.stage}"


def record(case: Case) -> Any:
    """A ServerArgs-like record of the case (the fields the live check reads; the rest
    absent, as getattr gives None)."""
    layout, flag, _ = case
    return types.SimpleNamespace(model_path=folder(layout), quantization=flag,
                                 max_running_requests=16)


def live(case: Case, from_sglang: Callable[..., Any] | None = None,
         plan: Callable[[Any], Any] | None = None) -> str:
    """"passed" or "refused: <graphfit's error>" for the live check of the case
    (`from_sglang` / `plan`: another tree's functions, for the measurement's "before")."""
    if from_sglang is None or plan is None:
        from graphfit.integrations.sglang import from_sglang as ours
        from graphfit.planner.plan import plan as planned

        from_sglang, plan = ours, planned
    try:
        plan(from_sglang(record(case), environ={}, gpu_memory_gb=case[2]))
    except GraphfitError as exc:
        return f"refused: {exc}"[:200]
    except Exception as exc:  # another tree's exception class
        if type(exc).__name__ in ("ConfigError", "GraphfitError"):
            return f"refused: {exc}"[:200]
        raise
    return "passed"


def tally(found: list[tuple[Case, str, str]]) -> dict[str, int]:
    """Agreement counts over (case, SGLang's answer, graphfit's)."""
    out: dict[str, int] = {}
    for _case, theirs, ours in found:
        key = ("as SGLang" if theirs.startswith("refused") == ours.startswith("refused")
               else "plans where SGLang refuses" if theirs.startswith("refused")
               else "refuses where SGLang starts")
        out[key] = out.get(key, 0) + 1
    return dict(sorted(out.items()))
