"""How graphfit and SGLang 0.5.23 treat lines whose --model-path is on the `instance://`
connector: SGLang's resolution of each drawn line (its failing frame), graphfit's answer to
the same pasted line with graphfit's own `--architecture InklingForConditionalGeneration`
(the class the config pull would have read): refused with SGLang's reason, or planned (and
then whether with the FULL prefill graphs Inkling's hook skips for such a path,
arg_groups/cuda_graph_hook.py:357-362).

    python -m tests.oracle.measure_sglang_instance [N] [SEED]   # default 40, 23
"""

from __future__ import annotations

import random
import sys
from collections import Counter

from graphfit import ConfigError
from tests.oracle.test_sglang_instance_oracle import (
    FLAG_POOL,
    INKLING,
    INSTANCE,
    _sglang_frame,
)


def _graphfit(argv: list[str]) -> str:
    """'refused (SGLang's reason)', 'refused (other)', 'planned, prefill BACKEND'."""
    import graphfit
    from graphfit.cli.options import resolve_values
    from graphfit.inputs import commandline

    line = ["python", "-m", "sglang.launch_server", *argv]
    try:
        config = resolve_values({"gpu_memory_gb": 80.0, "architecture": INKLING}, environ={},
                                pasted=commandline.read(line)).config()
        plan = graphfit.plan(config)
    except ConfigError as exc:
        return ("refused (SGLang's reason)" if "remote_instance.py:19" in str(exc)
                else "refused (other)")
    from graphfit.planner.engines.sglang_prefill_plan import prefill_graphs

    return f"planned, prefill {prefill_graphs(plan.config).backend}"


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 23)
    sglang: Counter[str] = Counter()
    ours: Counter[str] = Counter()
    for _ in range(n):
        flags = rng.sample(FLAG_POOL, rng.randint(0, 4))
        argv = ["--model-path", INSTANCE, "--max-running-requests", "48",
                *[w for flag in flags for w in flag]]
        sglang[_sglang_frame(argv) or "resolved"] += 1
        ours[_graphfit(argv)] += 1
    print(f"{n} instance:// lines\n\nSGLang: " + ", ".join(f"{k}: {v}" for k, v in
                                                        sorted(sglang.items())))
    print("graphfit: " + ", ".join(f"{k}: {v}" for k, v in sorted(ours.items())))


if __name__ == "__main__":
    main()
