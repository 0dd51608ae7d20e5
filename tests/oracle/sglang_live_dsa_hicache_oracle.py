"""SGLang 0.5.23 on HiCache under DSA DCP given by a live ServerArgs a Python caller built and
has not launched yet (issue 23, s70g; not a test; graphfit.inputs.sglang_live_flags'
HiCache check): SGLang resolves `ServerArgs(model_path=T, tp_size=2, **fields)` on the fake
H100 (resolution's `_dsa_dcp_overrides`, arg_groups/model_overrides/deepseek_v2.py:18-34,
refuses there) and runs its whole `check_server_args`; graphfit plans `from_sglang` on a copy
of the same record taken before resolution (`ServerArgs.__post_init__` leaves it unresolved,
server_args.py:241-242), on the H100.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import random
from pathlib import Path
from typing import Any

from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_stubs

NAMES = ("v32", "v32", "glm", "mla")  # the DSA family, and a plain MLA checkpoint


def draw(rng: random.Random) -> tuple[str, dict[str, Any]]:
    """(target name, fields): `dcp_size` 1 or 2, HiCache on oftener than off."""
    fields: dict[str, Any] = {"dcp_size": rng.choice((2, 2, 1))}
    if rng.random() < 0.7:
        fields["enable_hierarchical_cache"] = True
    return rng.choice(NAMES), fields


def records(target: Path, fields: dict[str, Any]) -> tuple[Any, str | None]:
    """(the record before resolution, SGLang's refusal of it or None)."""
    o = so.oracle()
    with sglang_stubs.fake_cuda(80 * so.MIB_PER_GB, capability=(9, 0)), \
            contextlib.redirect_stderr(io.StringIO()):
        record = o.server_args.ServerArgs(model_path=str(target), tp_size=2, **fields)
        raw = copy.deepcopy(record)
        try:
            record.resolve_once()
        except Exception as exc:  # resolution's refusal (the DSA DCP override's)
            return raw, f"{type(exc).__name__}: {exc}"
        return raw, so.check_refusal(record)


def graphfit_live(record: Any) -> tuple[int, str]:
    """(0, "") where graphfit plans the unresolved record on the H100, else (2, its error)."""
    import graphfit
    from graphfit.integrations.sglang import from_sglang

    try:
        graphfit.plan(from_sglang(record, environ={}, gpu_memory_gb="H100", max_num_seqs=64))
    except graphfit.GraphfitError as exc:
        return 2, f"error: {exc}"
    except Exception as exc:  # a crash is counted, not raised
        return 1, f"crash: {type(exc).__name__}: {exc}"
    return 0, ""


def compare(targets: dict[str, Path], name: str, fields: dict[str, Any]) -> tuple[str, str]:
    """(verdict, account): differ where one refuses; where both do, agree only where
    graphfit's error line holds SGLang's words (the first 25 characters of its message)."""
    raw, theirs = records(targets[name], fields)
    code, said = graphfit_live(raw)
    if (theirs is None) != (code == 0):
        verdict = "differ"
    elif theirs is None or theirs.split(": ", 1)[-1][:25] in said:
        verdict = "agree"
    else:
        verdict = "other"
    return (verdict,
            f"live {name} {json.dumps(fields)}: SGLang {theirs and theirs[:80]}; graphfit "
            f"{code} {said[:140]}")
