"""SGLang 0.5.23 on data-parallel replicas beside attention DP (issue 23, s70o; not a test;
graphfit.planner.engines.sglang_dp_replicas): `handle_data_parallelism` refuses
`dp_size > 1` with `attn_dp_size > 1` (arg_groups/parallel_hook.py:287-292). Each drawn case
is given in one of graphfit's three forms, and SGLang sees the same values:

* a pasted `sglang serve` line: SGLang resolves it on the fake H100 and runs its whole
  `check_server_args` (tests.oracle.sglang_server_args_oracle.compare);
* graphfit's config file beside `sglang serve --model-path T --tp-size 2`: SGLang builds a
  Python caller's `ServerArgs(model_path=T, tp_size=2, **mapping)`
  (tests.oracle.sglang_file_dp_attention_oracle.compare);
* a live ServerArgs record not launched yet, planned by `from_sglang`
  (tests.oracle.sglang_live_dsa_hicache_oracle's `records` / `graphfit_live`).

Where both refuse and SGLang's reason is the replicas one, graphfit must give it (its first
words), so a later check taking its place (the TP / attention-DP assert, :326) reads "other".
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from tests.oracle import sglang_live_dsa_hicache_oracle as ldo
from tests.oracle import sglang_lora_runner_oracle as lro
from tests.oracle import sglang_server_args_oracle as sao

WORDS = "data-parallel replicas combined with attention data parallelism"
FORMS = ("line", "line", "file", "live")


def draw(rng: random.Random) -> tuple[str, dict[str, Any]]:
    """(form, values): replicas and attention-DP widths, the deprecated flag now and then; the
    line form also draws `--tp-size` (file and live: 2) and `--pp-size`."""
    form = rng.choice(FORMS)
    data: dict[str, Any] = {"dp_size": rng.choice((1, 2, 2, 3, 4)),
                            "attn_dp_size": rng.choice((1, 2, 2, 4))}
    if rng.random() < 0.25:
        data["enable_dp_attention"] = True
    if form == "line":
        data["tp_size"] = rng.choice((2, 4, 4, 3))
        if rng.random() < 0.2:
            data["pp_size"] = 2
    return form, data


def argv(data: dict[str, Any]) -> tuple[str, ...]:
    """The pasted line's flags after `--model-path` for `data`."""
    out: list[str] = []
    for key, value in data.items():
        flag = "--" + key.replace("_", "-")
        out += [flag] if value is True else [flag, str(value)]
    return tuple(out)


def _words(verdict: str, theirs: str | None, said: str) -> str:
    if verdict == "agree" and theirs is not None and WORDS in theirs and WORDS not in said:
        return "other"
    return verdict


def compare(targets: dict[str, Path], form: str, data: dict[str, Any]) -> tuple[str, str]:
    """(verdict, a one-line account) of one drawn case on the dense target."""
    target = targets["dense"]
    if form == "line":
        theirs, at_check = lro.sglang(target, argv(data), {})
        code, said = sao.graphfit(target, argv(data), {})
    elif form == "file":
        theirs, at_check = lro.sglang_file(target, data)
        code, said = lro.graphfit_file(target, data)
    else:
        raw, theirs = ldo.records(target, data)
        at_check = False
        code, said = ldo.graphfit_live(raw)
    verdict = _words(sao.verdict(theirs, at_check, code, said), theirs, said)
    return verdict, (f"{form} {json.dumps(data)}: SGLang {theirs and theirs[:80]}; graphfit "
                     f"{code} {said[:120]}")


__all__ = ["WORDS", "argv", "compare", "draw"]
