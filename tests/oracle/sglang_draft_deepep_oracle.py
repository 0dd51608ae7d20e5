"""SGLang 0.5.23's answer on a MoE draft's DeepEPMoE assert (issue 23, s61e), shared by
tests/oracle/test_sglang_draft_deepep_oracle.py and measure_sglang_draft_deepep (not a test).

SGLang: its own resolution of an EAGLE line on a Qwen3-MoE target (tests.oracle.sglang_oracle
.resolve, the target's own build step only), then, where that starts, the target's MoE block
(models/qwen3_moe.py:235-280, get_moe_impl_class) and after it the draft model its loader
picks for the draft checkpoint (tests.oracle.sglang_draft_build.build_draft: inside the
worker's runner and a2a contexts, speculative/eagle_worker_v2.py:215-221, where the worker it
picks enters them), both on the meta device under the published layout, with JIT DeepGEMM as
the line sets it, and the quantization config the draft's loader makes where the line sets
--quantization (the draft inherits it). graphfit: its CLI on the pasted line.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from tests.oracle import sglang_draft_build as sdb
from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_stubs
from tests.oracle import test_sglang_deepep_class_oracle as dc

SITE = "ep_moe/layer.py"  # what SGLang's assert and graphfit's reason name


def dirs(root: Path, nextn: tuple[str, ...] = ()) -> dict[str, Path]:
    """The Qwen3-MoE target, a Qwen3-MoE draft and a dense Llama draft under `root`; s63d:
    and the named NextN / MTP drafts (tests.oracle.sglang_draft_build.NEXTN_DRAFTS)."""
    return {"target": sglang_stubs.write_moe_model_dir(root / "target"),
            "qwen3": sglang_stubs.write_moe_model_dir(root / "qwen3-draft"),
            "llama": sglang_stubs.write_model_dir(root / "llama-draft"),
            **sdb.write_nextn_drafts(root, nextn)}


def argv(draft: Path, backend: str, target_a2a: str, mode: str, runner: str,
         *extra: str) -> tuple[str, ...]:
    """An EAGLE line with the draft checkpoint `draft` and the given MoE flags."""
    return ("--tp-size", "2", "--ep-size", "2", "--speculative-algorithm", "EAGLE",
            "--speculative-num-steps", "2", "--speculative-eagle-topk", "1",
            "--speculative-num-draft-tokens", "3", "--speculative-draft-model-path", str(draft),
            "--moe-a2a-backend", target_a2a, "--speculative-moe-a2a-backend", backend,
            "--deepep-mode", mode, "--moe-runner-backend", runner, *extra)


def draw(rng: random.Random, paths: dict[str, Path], drafts: tuple[str, ...] = ("qwen3",),
         draft_runners: tuple[str, ...] = ()) -> tuple[tuple[str, ...], bool]:
    """One drawn line and whether JIT DeepGEMM is on; the MoE draft one of `drafts` and, half
    the time, a `--speculative-moe-runner-backend` of `draft_runners` (s63d; defaults:
    s61e's draws unchanged)."""
    extra: list[str] = []
    if rng.random() < 0.2:
        extra += ["--dtype", "float16"]
    if rng.random() < 0.3:  # pplx needs attention DP (moe_hook.py:589-595)
        extra += ["--enable-dp-attention", "--dp-size", "2"]
    if rng.random() < 0.15:
        extra.append("--enable-multi-layer-eagle")
    if rng.random() < 0.25:  # the draft inherits it (arg_groups/serving_hook.py:676-708)
        extra += ["--quantization", "fp8"]
    if draft_runners and rng.random() < 0.5:
        extra += ["--speculative-moe-runner-backend", rng.choice(draft_runners)]
    dense = rng.random() < 0.15
    line = argv(paths["llama" if dense else drafts[0] if len(drafts) == 1 else rng.choice(drafts)],
                rng.choice(("deepep", "deepep", "pplx", "mooncake", "none")),
                rng.choice(("none", "none", "deepep", "mooncake", "pplx")),
                rng.choice(("auto", "low_latency", "low_latency", "normal")),
                rng.choice(("auto", "triton", "deep_gemm", "deep_gemm", "lora_triton")),
                *extra)
    return line, rng.random() < 0.3


def answers(paths: dict[str, Path], line: tuple[str, ...], jit: bool, gpu: str = "80",
            dense: bool = False) -> tuple[str | None, tuple[int, str]]:
    """(SGLang's refusal or None, graphfit's (exit status, error line)) for one line; `gpu`
    graphfit's --gpu-memory-gb (s68i: "H100", the oracle's SM90, where JIT DeepGEMM matters);
    s69l: `dense`, the dense Llama (paths["llama"]) as the target, which has no MoE block to
    build (`sglang_oracle.published` seeds no MoE flag for it, as the scheduler)."""
    target = paths["llama" if dense else "target"]
    draft = line[line.index("--speculative-draft-model-path") + 1]
    with dc._own_build_only():  # resolution alone: which worker SGLang picks
        r = so.resolve(line, model=str(target))
    record = getattr(r, "record", None)
    context = isinstance(r, so.Resolved) and sdb.enters_context(record)

    def block(config: Any, quant: Any) -> None:
        from sglang.srt.runtime_context import get_parallel

        if not dense:
            dc._qwen3_block(config, quant)  # the target's model first
        sdb.build_draft(record, draft, context, get_parallel().moe_ep_size, jit,
                        "--quantization" in line)

    theirs = dc.sglang(target, line, jit, block=block, shared_build=False)
    return theirs, dc.graphfit(target, line, jit, gpu)


def agree(theirs: str | None, code: int, said: str) -> bool:
    """Both refuse (graphfit naming DeepEPMoE's file where SGLang's assert is there), or both
    start."""
    if (theirs is None) != (code == 0):
        return False
    return theirs is None or SITE not in theirs or SITE in said


__all__ = ["SITE", "agree", "answers", "argv", "dirs", "draw"]
