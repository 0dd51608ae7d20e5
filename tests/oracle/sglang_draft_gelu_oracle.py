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

s69l: lines with no --speculative-moe-a2a-backend (the draft inherits the target's backend
and runner), and lines on a dense target (no MoE flag seeded: the draft's runner is auto).
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


def line(draft: str, a2a: str, mode: str, runner: str, jit: bool, *extra: str,
         inherited: bool = False, dense: bool = False) -> tuple[str, ...]:
    """A line, its first word the JIT DeepGEMM marker `jit=1` / `jit=0`, `,dense` added for
    a dense target (`verdict` strips it); pplx gets the attention DP it needs
    (moe_hook.py:589-595). s69l: `inherited`, the line names no --speculative-moe-a2a-backend
    and `a2a` is the TARGET's backend, which the draft inherits (layers/moe/utils.py:
    463-468); `dense`, the target is the dense Llama (ddo.answers)."""
    dp = ("--enable-dp-attention", "--dp-size", "2") if a2a == "pplx" else ()
    argv = list(ddo.argv(paths()[draft], a2a, "none", mode, runner, *dp, *extra))
    if inherited:
        at = argv.index("--speculative-moe-a2a-backend")
        del argv[at:at + 2]
        argv[argv.index("--moe-a2a-backend") + 1] = a2a
    return (f"jit={int(jit)}{',dense' if dense else ''}", *argv)


def draw(rng: random.Random) -> tuple[str, ...]:
    """One drawn line: the unified draft (dense one time in six), the draft's a2a backend,
    --deepep-mode, the runner, FP8, JIT DeepGEMM and, a quarter of the time, a draft runner;
    s69l: half the lines name no draft backend (the draft inherits the target's, `line`), a
    sixth of all lines on a dense target."""
    extra: list[str] = []
    if rng.random() < 0.4:
        extra += ["--quantization", "fp8"]
    if rng.random() < 0.25:
        extra += ["--speculative-moe-runner-backend", rng.choice(RUNNERS)]
    return line("unified_dense" if rng.random() < 1 / 6 else "unified", rng.choice(A2AS),
                rng.choice(("low_latency", "low_latency", "auto")), rng.choice(RUNNERS),
                rng.random() < 0.5, *extra, inherited=rng.random() < 0.5,
                dense=rng.random() < 1 / 6)


def agree(theirs: str | None, code: int, said: str) -> bool:
    """Both start, or both refuse with graphfit naming SGLang's file (`SITES`)."""
    if (theirs is None) != (code == 0):
        return False
    return theirs is None or all(name in said for site, name in SITES.items() if site in theirs)


def answers(drawn: tuple[str, ...]) -> tuple[str | None, tuple[int, str]]:
    """ddo.answers for a `line` (its marker word read and stripped)."""
    marks = drawn[0].split(",")
    return ddo.answers(paths(), drawn[1:], "jit=1" in marks, "H100", dense="dense" in marks)


def verdict(drawn: tuple[str, ...]) -> tuple[str, str | None]:
    """("agree" / "differ" / "not modelled", the detail of a difference) for one line."""
    theirs, (code, said) = answers(drawn)
    if code != 0 and "not modelled" in said:
        return "not modelled", None
    if agree(theirs, code, said):
        return "agree", None
    return "differ", f"SGLang {theirs and theirs[-100:]}; graphfit {code} {said[:160]}"


__all__ = ["A2AS", "RUNNERS", "SITES", "agree", "answers", "draw", "line", "paths", "verdict"]
