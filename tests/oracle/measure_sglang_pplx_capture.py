"""pplx's dispatch assert at decode-graph capture (issue 23, s66k;
graphfit.planner.engines.sglang_pplx_capture) over drawn pplx lines: a line of
`sglang_moe_a2a_compare.draw(rng, "pplx")` with the pplx budget set to a drawn positive value
and, on some lines, a decode instance or chunked prefill on at 128 tokens per rank (where the
start-up check runs) under EAGLE (a verify graph of several tokens per request).

SGLang: tests.oracle.sglang_pplx_capture_oracle.sglang (its pipeline, runners, then its own
pplx assert on every captured target batch). graphfit: its CLI on the pasted line. A line
agrees when both refuse at start-up, both start with no batch past the budget, or SGLang's
capture asserts and graphfit names the same largest batch; graphfit's "not modelled" is
counted apart, and so is "other rule": SGLang's pipeline and runners start, no batch asserts,
and graphfit refuses without naming the pplx budget (a model-build rule this oracle does not
run, e.g. a mooncake draft in auto mode, token_dispatcher/mooncake.py:343-344).

    python -m tests.oracle.measure_sglang_pplx_capture [COUNT] [SEED] [BEFORE_ROOT]

BEFORE_ROOT (default /work/main): the same draw scored with that checkout's graphfit."""

from __future__ import annotations

import sys
from typing import Any

from tests.oracle.measure_root import main_with_before, tally_verdicts

BUDGETS = ("16", "32", "64", "100", "128", "256", "512", "1024")


def draw(rng: Any) -> tuple[str, ...]:
    """One line (module docstring)."""
    from tests.oracle import sglang_moe_a2a_compare as mc
    from tests.oracle import sglang_pplx_capture_oracle as po

    argv = [w for w in mc.draw(rng, "pplx") if not w.startswith(f"{po.PPLX_ENV}=")]
    if rng.random() < 0.5 and "--disaggregation-mode" not in argv:
        argv += ["--disaggregation-mode", "decode"]
    return (f"{po.PPLX_ENV}={rng.choice(BUDGETS)}", *argv)


def verdict(line: tuple[str, ...]) -> tuple[str, str | None]:
    """("agree" / "differ" / "not modelled", the detail of a difference)."""
    from tests.oracle import sglang_moe_a2a_compare as mc
    from tests.oracle import sglang_pplx_capture_oracle as po

    refused, batch = po.sglang(line)
    ours = mc.graphfit_cli(line).rejected
    if ours is not None and "not modelled" in ours:
        return "not modelled", None
    if refused is not None:
        return ("agree", None) if ours is not None else ("differ", f"SGLang refuses: {refused}")
    if batch is None:
        if ours is not None and po.PPLX_ENV not in ours:  # a model-build rule past the runners
            return "other rule", f"SGLang's pipeline starts; {ours}"
        return ("agree", None) if ours is None else ("differ", f"SGLang starts; {ours}")
    if ours is not None and f"decode batch {batch} x" in ours and "at capture" in ours:
        return "agree", None
    return "differ", f"SGLang's capture asserts at batch {batch}; graphfit: {ours}"


def measure(count: int, seed: int) -> dict[str, int]:
    return tally_verdicts(count, seed, draw, verdict)


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_pplx_capture", measure, sys.argv[1:], 40,
                                      "pplx lines"))
