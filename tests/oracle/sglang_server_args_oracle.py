"""SGLang 0.5.23's `check_server_args` on the checks graphfit restates around its LoRA and
two-batch-overlap checks (issue 23, s67b; not a test): the node counts, torch.compile with
padding off, the pipeline-parallel speculative checks and data-parallel replicas
(arg_groups/validation_hook.py:119-202), chunked prefill against the page size and PD
multiplexing (:243-262), on drawn lines: SGLang's resolution then its whole `check_server_args`
(tests.oracle.sglang_server_checks_oracle.sglang, under the line's environment) beside
graphfit's CLI on the pasted line with the GPU named (an H100, the oracle's fake device), so
graphfit knows the page size the hooks leave (graphfit.planner.engines.sglang_server_chunk)."""

from __future__ import annotations

import contextlib
import io
import random
from collections.abc import Mapping
from pathlib import Path

from tests.oracle import sglang_lora_runner_oracle as lro
from tests.oracle import sglang_server_checks_oracle as sco

EAGLE = ("--speculative-algorithm", "EAGLE", "--speculative-num-steps", "2",
         "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "3")
NGRAM = ("--speculative-algorithm", "NGRAM")
PP_SPEC = {"SGLANG_ENABLE_PP_SPEC": "1"}


def targets(root: Path) -> dict[str, Path]:
    """The server-checks oracle's two targets (a small Qwen3-MoE and the dense Llama)."""
    return sco.targets(root)


def draw(rng: random.Random) -> tuple[str, dict[str, str], tuple[str, ...]]:
    """(target name, environment, one line after --model-path) mixing the flags the checks
    read: parallel widths and nodes, page and chunk sizes, attention backends that change
    the page, PD multiplexing, torch.compile, speculation under PP, disaggregation."""
    name = rng.choice(("dense", "dense", "moe"))
    tp = rng.choice((1, 2, 2, 4))
    out = ["--tp-size", str(tp)]
    if tp > 1 and rng.random() < 0.3:
        out += ["--attn-dp-size", str(rng.choice([d for d in (2, 4) if tp % d == 0]))]
    elif rng.random() < 0.15:
        out += ["--dp-size", "2"]
    if rng.random() < 0.3:
        out += ["--pp-size", "2"]
    if rng.random() < 0.3:
        out += ["--nnodes", str(rng.choice((2, 4, 8)))]
    if rng.random() < 0.5:
        out += ["--page-size", str(rng.choice((1, 16, 32, 64, 128)))]
    if rng.random() < 0.5:
        # -1 / 0: chunking off (issue 23 s68b), which PD multiplexing needs at exactly -1
        out += ["--chunked-prefill-size", str(rng.choice((96, 128, 192, 1000, 2048, 4096, -1,
                                                          0)))]
    if rng.random() < 0.2:
        out += ["--attention-backend", rng.choice(("triton", "flashinfer", "fa3"))]
    if rng.random() < 0.25:
        out.append("--enable-pdmux")
    if rng.random() < 0.3:
        out.append("--disable-overlap-schedule")
    if rng.random() < 0.2:
        out.append("--enable-torch-compile")
    if rng.random() < 0.2:
        out.append("--disable-cuda-graph-padding")
    if rng.random() < 0.3:
        out += list(rng.choice((EAGLE, NGRAM)))
    if rng.random() < 0.2:
        out += ["--disaggregation-mode", rng.choice(("prefill", "decode"))]
    env = dict(PP_SPEC) if rng.random() < 0.2 else {}
    return name, env, tuple(out)


def graphfit(target: Path, argv: tuple[str, ...], env: Mapping[str, str]) -> tuple[int, str]:
    """(exit status, the last `error:` line) of graphfit's CLI on the pasted line, `env`
    prefixed, the GPU named as the oracle's fake device is (an H100)."""
    from graphfit.cli.application import main

    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(["plan", "--gpu-memory-gb", "H100", "--",
                  *(f"{k}={v}" for k, v in env.items()),
                  "sglang", "serve", "--model-path", str(target), *argv])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    errors = [ln for ln in err.getvalue().splitlines() if ln.startswith("error:")]
    return code, errors[-1] if errors else ""


def verdict(theirs: str | None, at_check: bool, code: int, said: str) -> str:
    """sco.verdict, and where SGLang's `check_server_args` refused, graphfit names the same
    check: its error line opens with SGLang's own words ("other" otherwise)."""
    said_first = sco.verdict(theirs, at_check, code, said)
    if said_first != "agree" or theirs is None or not at_check:
        return said_first
    words = theirs.split(": ", 1)[-1][:25]
    return "agree" if words in said else "other"


def compare(target: Path, argv: tuple[str, ...], env: Mapping[str, str] | None = None
            ) -> tuple[str, str]:
    """(verdict, a one-line account) on SGLang's answer and graphfit's."""
    env = dict(env or {})
    theirs, at_check = lro.sglang(target, argv, env)
    code, said = graphfit(target, argv, env)
    prefix = " ".join(f"{k}={v}" for k, v in env.items())
    return (verdict(theirs, at_check, code, said),
            f"{prefix + ' ' if prefix else ''}{' '.join(argv)}: SGLang "
            f"{theirs and theirs[:90]}; graphfit {code} {said[:120]}")
