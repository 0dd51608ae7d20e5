"""SGLang 0.5.23 on the deprecated `enable_dp_attention` beside `dp_size` / `attn_dp_size`, given
through graphfit's config file (issue 23, s70g; not a test; graphfit.inputs.
sglang_file_dp_attention): SGLang builds a Python caller's `ServerArgs(model_path=T, tp_size=2,
**mapping)`, resolves it on the fake device (its first hook, `handle_deprecated_dp_attention`,
arg_groups/parallel_hook.py:39-62) and runs its whole `check_server_args`
(tests.oracle.sglang_lora_runner_oracle.sglang_file); graphfit plans `plan --config` on an
`engine: sglang` JSON file of the same mapping beside `sglang serve --model-path T --tp-size 2`.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from tests.oracle import sglang_lora_runner_oracle as lro
from tests.oracle import sglang_server_args_oracle as sao

# attn_dp_size above 1 beside replicas: SGLang's refusal at parallel_hook.py:287-292, which
# graphfit restates on every route since issue 23 s70o (graphfit.planner.engines.
# sglang_dp_replicas), so it is drawn too
ENABLE: tuple[object, ...] = (True, True, False, "absent")
DP: tuple[object, ...] = (1, 2, 2, 3, 4, "absent")
ATTN: tuple[object, ...] = (1, 2, "absent", "absent")


def draw(rng: random.Random) -> dict[str, Any]:
    """One file of the deprecated spelling, or its neighbours (absent keys left out)."""
    data = {"enable_dp_attention": rng.choice(ENABLE), "dp_size": rng.choice(DP),
            "attn_dp_size": rng.choice(ATTN)}
    return {k: v for k, v in data.items() if v != "absent"}


def compare(target: Path, data: dict[str, Any]) -> tuple[str, str]:
    """(verdict, a one-line account) of graphfit's file against SGLang's record."""
    theirs, at_check = lro.sglang_file(target, data)
    code, said = lro.graphfit_file(target, data)
    return (sao.verdict(theirs, at_check, code, said),
            f"file {json.dumps(data)}: SGLang {theirs and theirs[:90]}; graphfit {code} "
            f"{said[:140]}")
