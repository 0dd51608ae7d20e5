"""`python -m tests.oracle.measure_sglang_live_graphless N SEED`: N drawn lines with a
graph-less attention backend (tests/oracle/sglang_graphless_fraction.draw_graphless) resolved
by SGLang 0.5.23 on CPU; SGLang's resolved record goes to `from_sglang`. Prints how many live
plans agree with SGLang (default fraction, a not-positive one named by graphfit's warning, and
both graph phases), with the live graph-less reading (after) and without it (before:
graphfit.inputs.sglang_live_graphless off), in one run."""

from __future__ import annotations

import random
import sys
from unittest import mock

from tests.oracle.paths import require

require("sglang")

import graphfit  # noqa: E402
from graphfit.integrations.sglang import from_sglang  # noqa: E402
from graphfit.planner.core.enums import CUDAGraphMode  # noqa: E402
from graphfit.planner.core.errors import ConfigError  # noqa: E402
from tests.oracle import sglang_graphless_fraction as gf  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle.sglang_live_fraction import warned  # noqa: E402
from tests.oracle.test_sglang_live_graphless_oracle import _sglang  # noqa: E402


def _agrees(record: object, gb: float) -> bool | None:
    fraction, decode, prefill = _sglang(record)
    try:
        plan = graphfit.plan(from_sglang(record, environ={}, gpu_memory_gb=gb))
    except ConfigError:
        return None
    live = plan.config
    # not positive: graphfit leaves it unset and names SGLang's figure (issue 23 s45l)
    same = (live.mem_fraction_static is None and warned(plan) == fraction if fraction <= 0
            else abs((live.mem_fraction_static or 0) - fraction) < 1e-9)
    return (same
            and (live.cudagraph_mode is CUDAGraphMode.NONE) == (decode == "disabled")
            and (live.cuda_graph_backend_prefill == "disabled") == (prefill == "disabled"))


def main(count: int, seed: int) -> None:
    rng = random.Random(seed)
    before = after = refused = rejected = drawn = 0
    while drawn < count:
        argv, gb = gf.draw_graphless(rng)
        if "--max-running-requests" not in argv:
            continue
        drawn += 1
        resolved = so.resolve(argv, gpu_mem_gb=gb)
        if isinstance(resolved, so.Rejected):
            rejected += 1
            continue
        now = _agrees(resolved.record, gb)
        with mock.patch("graphfit.inputs.sglang_live_graphless.settings",
                        lambda *_: {}):
            old = _agrees(resolved.record, gb)
        refused += now is None
        after += now is True
        before += old is True
    print(f"{drawn} lines, {rejected} rejected by SGLang, {refused} refused by graphfit; "
          f"live plan agrees with SGLang: before {before}, after {after}")


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
