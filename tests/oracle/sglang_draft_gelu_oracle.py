"""SGLang 0.5.23's answer on a Gemma 4 unified assistant MoE draft's build under the a2a and
runner flags (issue 23, s68i; graphfit.planner.engines.sglang_draft_gelu_runner and the
unified draft in sglang_draft_deepep.DEEPEP_DRAFTS), shared by
tests/oracle/test_sglang_draft_deepep_oracle.py and measure_sglang_draft_gelu (not a test).

SGLang: tests.oracle.sglang_draft_deepep_oracle.answers on an EAGLE line (promoted to
FROZEN_KV_MTP by the assistant draft, speculative_hook.py:81-118) whose draft is a unified
assistant with or without MoE blocks (tests.oracle.sglang_pplx_capture_oracle.unified_draft):
SGLang's own resolution, then its own target and draft builds on the meta device. graphfit:
its CLI on the pasted line with --gpu-memory-gb H100 (the oracle's device is SM90, which
JIT DeepGEMM reads). The two agree where both start, or both refuse with graphfit naming the
file SGLang's refusal comes from (`SITES`).
"""

from __future__ import annotations

import functools
import random
import tempfile
from pathlib import Path

from tests.oracle import sglang_draft_deepep_oracle as ddo
from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_pplx_capture_oracle as po

# the file SGLang's refusal names -> what graphfit's reason must name then
SITES = {"moe_runner/deep_gemm.py": "deep_gemm.py:352", "ep_moe/layer.py": "ep_moe/layer.py",
         "token_dispatcher/mooncake.py": "mooncake.py", "token_dispatcher/pplx.py": "pplx.py"}
A2AS = ("none", "deepep", "deepep", "mooncake", "pplx")
RUNNERS = ("deep_gemm", "triton", "auto")


@functools.cache
def paths() -> dict[str, Path]:
    """The Qwen3-MoE target and drafts (ddo.dirs) and the unified drafts, MoE and dense
    (the oracle's sources set up first)."""
    so.oracle()
    out = ddo.dirs(Path(tempfile.mkdtemp(prefix="graphfit-gelu-")))
    out["unified"] = Path(po.unified_draft(True))
    out["unified_dense"] = Path(po.unified_draft(False))
    return out


def line(draft: str, a2a: str, mode: str, runner: str, jit: bool, *extra: str
         ) -> tuple[str, ...]:
    """A line, its first word the JIT DeepGEMM marker `jit=1` / `jit=0` (`verdict` strips
    it); pplx gets the attention DP it needs (moe_hook.py:589-595)."""
    dp = ("--enable-dp-attention", "--dp-size", "2") if a2a == "pplx" else ()
    return (f"jit={int(jit)}", *ddo.argv(paths()[draft], a2a, "none", mode, runner, *dp,
                                         *extra))


def draw(rng: random.Random) -> tuple[str, ...]:
    """One drawn line: the unified draft (dense one time in six), the draft's a2a backend,
    --deepep-mode, the runner, FP8, JIT DeepGEMM and, a quarter of the time, a draft runner."""
    extra: list[str] = []
    if rng.random() < 0.4:
        extra += ["--quantization", "fp8"]
    if rng.random() < 0.25:
        extra += ["--speculative-moe-runner-backend", rng.choice(RUNNERS)]
    return line("unified_dense" if rng.random() < 1 / 6 else "unified", rng.choice(A2AS),
                rng.choice(("low_latency", "low_latency", "auto")), rng.choice(RUNNERS),
                rng.random() < 0.5, *extra)


def agree(theirs: str | None, code: int, said: str) -> bool:
    """Both start, or both refuse with graphfit naming SGLang's file (`SITES`)."""
    if (theirs is None) != (code == 0):
        return False
    return theirs is None or all(name in said for site, name in SITES.items() if site in theirs)


def verdict(drawn: tuple[str, ...]) -> tuple[str, str | None]:
    """("agree" / "differ" / "not modelled", the detail of a difference) for one line."""
    jit, argv = drawn[0] == "jit=1", drawn[1:]
    theirs, (code, said) = ddo.answers(paths(), argv, jit, "H100")
    if code != 0 and "not modelled" in said:
        return "not modelled", None
    if agree(theirs, code, said):
        return "agree", None
    return "differ", f"SGLang {theirs and theirs[-100:]}; graphfit {code} {said[:160]}"


__all__ = ["A2AS", "RUNNERS", "SITES", "agree", "draw", "line", "paths", "verdict"]
