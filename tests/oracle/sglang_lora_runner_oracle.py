"""SGLang 0.5.23's own LoRA start-up checks on drawn lines (issue 23, s65d; not a test): the
line resolved by SGLang (tests.oracle.sglang_oracle.resolve) on a Qwen3-MoE target, then its
own `check_server_args` (arg_groups/validation_hook.py:172-222, which runs
`check_lora_server_args`, arg_groups/lora_hook.py:33-237) on the resolved record, beside
graphfit's CLI on the pasted line (graphfit.planner.engines.sglang_lora_runner)."""

from __future__ import annotations

import random
from pathlib import Path

from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_stubs
from tests.oracle import test_sglang_deepep_class_oracle as dc

RUNNERS = ("lora_triton", "lora_marlin", "lora_cutedsl", "triton", "auto")
BACKENDS = (None, "triton_v2", "triton_v2", "csgmv")
QUANTS = (None, None, "fp8", "modelopt_fp4")
EXTRAS = ((), (), ("--attn-dp-size", "2", "--enable-dp-attention"),
          # TBO with an a2a backend (without one SGLang's TBO check refuses the line,
          # validation_hook.py:756-772, after the LoRA checks)
          ("--ep-size", "2", "--moe-a2a-backend", "deepep", "--enable-two-batch-overlap"),
          ("--ep-size", "2", "--moe-a2a-backend", "deepep"),
          ("--ep-size", "2", "--ep-num-redundant-experts", "2"),
          ("--ep-size", "2", "--enable-eplb"))


def model(root: Path) -> Path:
    so.oracle()
    return sglang_stubs.write_moe_model_dir(root / "lora-target")


def draw(rng: random.Random) -> tuple[str, ...]:
    """One drawn line (after --model-path)."""
    out = ["--tp-size", "2", "--moe-runner-backend", rng.choice(RUNNERS)]
    lora = rng.random()
    if lora < 0.2:
        out += ["--lora-paths", "a=/adapters/a"]
    elif lora < 0.8:
        out += ["--enable-lora"]
    if rng.random() < 0.7:
        out += ["--max-lora-rank", "8", "--lora-target-modules", "all"]
    backend, quant = rng.choice(BACKENDS), rng.choice(QUANTS)
    if backend:
        out += ["--lora-backend", backend]
    if quant:
        out += ["--quantization", quant]
    return (*out, *rng.choice(EXTRAS))


def sglang(target: Path, argv: tuple[str, ...]) -> tuple[str | None, bool]:
    """(SGLang's refusal or None, whether `check_server_args` raised it)."""
    r = so.resolve(argv, model=str(target), checks=False)
    if isinstance(r, so.Rejected):
        return r.text, False
    with sglang_stubs.imports():
        from sglang.srt.arg_groups.validation_hook import check_server_args
    try:
        check_server_args(r.record)
    except (ValueError, AssertionError) as exc:
        return f"{type(exc).__name__}: {exc}", True
    return None, False


def verdict(theirs: str | None, at_check: bool, code: int, said: str) -> str:
    """agree (both plan, or both refuse and, where SGLang's LoRA checks refused, graphfit
    cites lora_hook.py), differ (one refuses), or other (both refuse, graphfit for a reason
    SGLang checks later)."""
    if (theirs is None) != (code == 0):
        return "differ"
    if theirs is None or not at_check or "lora_hook" in said:
        return "agree"
    return "other"


def compare(target: Path, argv: tuple[str, ...]) -> tuple[str, str]:
    """(verdict, a one-line account)."""
    theirs, at_check = sglang(target, argv)
    code, said = dc.graphfit(target, argv, True)
    return (verdict(theirs, at_check, code, said),
            f"{' '.join(argv[2:])}: SGLang {theirs and theirs[:100]}; graphfit {code} "
            f"{said[:120]}")
