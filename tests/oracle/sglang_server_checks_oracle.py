"""SGLang 0.5.23's own start-up checks graphfit restates from `check_server_args` on drawn
lines (issue 23, s66b; not a test): the line resolved by SGLang (tests.oracle.sglang_oracle.
resolve, its check left out) on a Qwen3-MoE target or the dense Llama one, then its own
`check_server_args` (arg_groups/validation_hook.py:172-381: `check_two_batch_overlap`,
:756-772, at :346; the speculative mixed-chunk assert at :224-238, which the speculative hook
keeps from firing), beside graphfit's CLI on the pasted line
(graphfit.planner.engines.sglang_server_checks)."""

from __future__ import annotations

import random
from pathlib import Path

from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_stubs
from tests.oracle import test_sglang_deepep_class_oracle as dc

TBO = "--enable-two-batch-overlap"
MIXED = "--enable-mixed-chunk"
SPECS: tuple[tuple[str, ...], ...] = (
    ("--speculative-algorithm", "NGRAM"),
    ("--speculative-algorithm", "EAGLE", "--speculative-num-steps", "2",
     "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "3"))
# (flags, weight): the a2a choices a line draws; mooncake / nixl in low-latency mode only
# (their dispatchers refuse the normal mode at the build, token_dispatcher/mooncake.py:343-344)
A2AS: tuple[tuple[str, ...], ...] = (
    (), (), ("--moe-a2a-backend", "none"), ("--moe-a2a-backend", "ascend_tp"),
    ("--moe-a2a-backend", "deepep"), ("--moe-a2a-backend", "deepep"),
    ("--moe-a2a-backend", "mooncake", "--deepep-mode", "low_latency"),
    ("--moe-a2a-backend", "megamoe"), ("--moe-runner-backend", "megamoe"),
    ("--enable-waterfill",))


def targets(root: Path) -> dict[str, Path]:
    """The two targets: a small Qwen3-MoE and the oracle's dense Llama."""
    o = so.oracle()
    return {"moe": sglang_stubs.write_moe_model_dir(root / "tbo-moe"), "dense": o.model_dir}


def draw(rng: random.Random) -> tuple[str, tuple[str, ...]]:
    """(target name, one drawn line after --model-path); the dense target draws every a2a
    choice too (its runners see none, the checks read the resolved argument: s68m)."""
    name = rng.choice(("moe", "moe", "dense"))
    tp = rng.choice((1, 2, 2, 4))
    out = ["--tp-size", str(tp), *rng.choice(A2AS)]
    if tp > 1 and rng.random() < 0.35:
        out += ["--attn-dp-size", str(rng.choice([d for d in (2, 4) if tp % d == 0]))]
    if rng.random() < 0.7:
        out.append(TBO)
    if rng.random() < 0.3:
        out += [*rng.choice(SPECS), MIXED]
    return name, tuple(out)


def sglang(target: Path, argv: tuple[str, ...]) -> tuple[str | None, bool]:
    """(SGLang's refusal or None, whether its `check_server_args` raised it): the LoRA
    oracle's resolution then SGLang's whole `check_server_args`."""
    from tests.oracle import sglang_lora_runner_oracle

    return sglang_lora_runner_oracle.sglang(target, argv)


def verdict(theirs: str | None, at_check: bool, code: int, said: str) -> str:
    """agree (both plan, or both refuse and, where SGLang's `check_server_args` refused,
    graphfit cites it: its LoRA checks, lora_hook.py, or those after, validation_hook.py, or
    HiSparse's, hisparse_hook.py, run at :312), differ (one refuses), or other (both refuse,
    graphfit for another reason)."""
    if (theirs is None) != (code == 0):
        return "differ"
    if (theirs is None or not at_check or "validation_hook.py" in said or "lora_hook" in said
            or "hisparse_hook.py" in said):
        return "agree"
    return "other"


def compare(target: Path, argv: tuple[str, ...]) -> tuple[str, str]:
    """(verdict, a one-line account)."""
    theirs, at_check = sglang(target, argv)
    # the GPU named as the oracle's fake device is (a Hopper): megamoe's GPU check reads it
    code, said = dc.graphfit(target, argv, True, "H100")
    return (verdict(theirs, at_check, code, said),
            f"{' '.join(argv)}: SGLang {theirs and theirs[:90]}; graphfit {code} {said[:110]}")
