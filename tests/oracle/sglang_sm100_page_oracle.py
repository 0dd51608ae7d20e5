"""Chunked prefill against the page size on SM100 with the backend flags naming both phases
(issue 23, s68b; not a test; graphfit.planner.engines.sglang_server_chunk.sm100_flagged):
SGLang 0.5.23's resolution on a fake SM100 device (capability 10.0) and its whole
`check_server_args` (arg_groups/validation_hook.py:243-246), beside graphfit's CLI with a B200
named, on the oracle's dense Llama and small Qwen3-MoE (no model override writes their backend
or page). Also on SM103 (GB300) and SM120 (RTX 5090), `draw_blackwell` (issue 23, s68j;
sglang_server_chunk.SM100_CAPS, sm120_plain)."""

from __future__ import annotations

import contextlib
import io
import random
from pathlib import Path

from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_server_checks_oracle as sco

SM100 = (10, 0)
# graphfit's GPU name -> the fake device's capability (graphfit/inputs/gpus.py GPU_CAPABILITY):
# B200 is SM100, GB300 SM103 (Blackwell Ultra), RTX 5090 SM120 (issue 23, s68j)
GPUS: dict[str, tuple[int, int]] = {"B200": SM100, "GB300": (10, 3), "RTX5090": (12, 0)}
BACKENDS: tuple[tuple[str, ...], ...] = (
    ("--attention-backend", "triton"), ("--attention-backend", "flashinfer"),
    ("--attention-backend", "trtllm_mha"), ("--attention-backend", "fa4"),
    ("--attention-backend", "triton", "--decode-attention-backend", "flashinfer"),
    ("--attention-backend", "triton", "--prefill-attention-backend", "fa4"),
    ("--attention-backend", "flashinfer", "--decode-attention-backend", "trtllm_mha"))


def draw(rng: random.Random) -> tuple[str, tuple[str, ...]]:
    """(target name, line): a backend pair, a page, a chunk, now and then attention DP."""
    out = [*rng.choice(BACKENDS)]
    if rng.random() < 0.7:
        out += ["--page-size", str(rng.choice((1, 16, 32, 64, 128)))]
    out += ["--chunked-prefill-size", str(rng.choice((48, 96, 100, 128, 192, 256, 4096, -1)))]
    if rng.random() < 0.25:
        out += ["--tp-size", "2", "--attn-dp-size", "2"]
    return rng.choice(("dense", "moe")), tuple(out)


def sglang(target: Path, argv: tuple[str, ...], gpu: str = "B200") -> tuple[str | None, bool]:
    """(SGLang's refusal or None, whether its `check_server_args` raised it) on the fake
    device of `gpu`'s capability (GPUS)."""
    r = so.resolve(argv, model=str(target), checks=False, capability=GPUS[gpu])
    if isinstance(r, so.Rejected):
        return r.text, False
    said = so.check_refusal(r.record)
    return said, said is not None


def graphfit(target: Path, argv: tuple[str, ...], gpu: str = "B200") -> tuple[int, str]:
    """(exit status, the last `error:` line) of graphfit's CLI with `gpu` named."""
    from graphfit.cli.application import main

    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(["plan", "--gpu-memory-gb", gpu, "--", "sglang", "serve", "--model-path",
                  str(target), *argv])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    errors = [ln for ln in err.getvalue().splitlines() if ln.startswith("error:")]
    return code, errors[-1] if errors else ""


def compare(target: Path, argv: tuple[str, ...], gpu: str = "B200") -> tuple[str, str]:
    """(verdict as sglang_server_checks_oracle.verdict, a one-line account) on `gpu`."""
    theirs, at_check = sglang(target, argv, gpu)
    code, said = graphfit(target, argv, gpu)
    return (sco.verdict(theirs, at_check, code, said),
            f"{' '.join(argv)}: SGLang {theirs and theirs[:80]}; graphfit {code} {said[:110]}")


# the phase flags alone, and no flag (issue 23, s68j): SM120's default backend for these
# architectures is flashinfer or triton, which keep the page (model_override_base.py:330-334);
# on SM103, as on SM100, they leave the base backend to trtllm_mha / fa4: drawn on SM120 only
SM120_BACKENDS: tuple[tuple[str, ...], ...] = (
    *BACKENDS, (), ("--decode-attention-backend", "trtllm_mha"),
    ("--prefill-attention-backend", "triton", "--decode-attention-backend", "flashinfer"))


def draw_blackwell(rng: random.Random) -> tuple[str, str, tuple[str, ...]]:
    """(GPU name, target name, line) on SM103 or SM120 (issue 23, s68j): a backend pair (on
    SM120 also the phases' flags alone, or none), a page, a chunk, now and then attention DP."""
    gpu = rng.choice(("GB300", "RTX5090"))
    out = [*rng.choice(SM120_BACKENDS if gpu == "RTX5090" else BACKENDS)]
    if rng.random() < 0.7:
        out += ["--page-size", str(rng.choice((1, 16, 32, 64, 128)))]
    out += ["--chunked-prefill-size", str(rng.choice((48, 96, 100, 128, 192, 256, 4096, -1)))]
    if rng.random() < 0.25:
        out += ["--tp-size", "2", "--attn-dp-size", "2"]
    return gpu, rng.choice(("dense", "moe")), tuple(out)
