"""SGLang 0.5.23's answer on a quantized MoE draft's low-latency DeepEPMoE assert
(ep_moe/layer.py:168-178) under a mori target, whose a2a hook rewrites `--deepep-mode`
(arg_groups/moe_hook.py:545-561: auto to normal, low_latency to normal under EPv2); shared by
tests/oracle/test_sglang_mori_mode_oracle.py and measure_sglang_mori_mode (not a test).
graphfit's side: graphfit.planner.engines.sglang_draft_deepep.quantized_problem and
sglang_draft_nextn_fp4.problem reading graphfit.planner.engines.sglang_mori_ep.deepep_mode
(issue 23, s70r).

SGLang's side resolves the line under the environment words, then builds the draft alone on
meta inside the speculative a2a context under its own loader's quantization config
(tests.oracle.sglang_draft_build.build_draft, as tests.oracle.sglang_mtp_quant_oracle.answers
does). Why the draft alone: a mori target's own build imports MoRI's ROCm-only package
(token_dispatcher/moriep.py:957-962), so on the CUDA lines the draft's assert is the reason
graphfit gives (s70j's draft-dispatcher lines do the same, tests.oracle.sglang_mori_ep).
"""

from __future__ import annotations

import contextlib
import io
import random
from pathlib import Path
from typing import Any

from tests.oracle import sglang_draft_deepep_oracle as ddo
from tests.oracle import sglang_draft_lowlat_oracle as lo
from tests.oracle import sglang_nextn_fp4_oracle as nf

EP_V2 = "SGLANG_MORI_EP_V2"
# the quantized drafts: kept FP8 / Quark / MIXED configs (the low-latency assert) and a
# DeepSeek NVFP4 NextN whose MoE becomes FP8 under SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE
DRAFTS = ("mtp_fp8", "dsv3_fp8_block", "dsv3_modelopt_fp8", "mtp_quark", "ds_nvfp4")


def dirs(root: Path) -> dict[str, Path]:
    """The Qwen3-MoE target and the drafts of `DRAFTS` under `root`."""
    table = {**lo.DRAFTS, **nf.DRAFTS}
    from tests.oracle import sglang_mtp_quant_oracle as mq

    return mq.dirs(root, DRAFTS, table)


def argv(draft: Path, backend: str, target: str, mode: str, *extra: str) -> tuple[str, ...]:
    """An EAGLE line with the quantized `draft`, the target's a2a `target` and the draft's
    `backend`, a triton target runner (so the draft's is triton unless given)."""
    line = ddo.argv(draft, backend, target, mode, "triton", *extra)
    if target == "mori":  # the mori hook's dispatch-token bound (moe_hook.py:563-573)
        line += ("--chunked-prefill-size", "2048")
    return line


def draw(rng: random.Random, paths: dict[str, Path]
         ) -> tuple[tuple[str, ...], tuple[str, ...], bool]:
    """One drawn line: the draft, the target's a2a (mori most of the time, else none /
    deepep), the draft's (deepep / mooncake / none), the mode, the EPv2 variable (unset / on /
    off / unparsable), the NVFP4 FP8 variable with a deep_gemm draft runner, attention DP;
    its environment words; whether JIT DeepGEMM is on."""
    env: list[str] = []
    extra: list[str] = []
    draft = rng.choice(DRAFTS)
    value = rng.choice((None, "1", "0", "yes", "maybe"))
    if value is not None:
        env.append(f"{EP_V2}={value}")
    if draft == "ds_nvfp4" or rng.random() < 0.3:
        if rng.random() < 0.7:
            env.append(f"{nf.ENV}=1")
        extra += ["--speculative-moe-runner-backend", "deep_gemm"]
    if rng.random() < 0.2:
        extra += ["--enable-dp-attention", "--dp-size", "2"]
    line = argv(paths[draft], rng.choice(("deepep", "deepep", "mooncake", "none")),
                rng.choice(("mori", "mori", "mori", "none", "deepep")),
                rng.choice(("auto", "low_latency", "low_latency", "normal")), *extra)
    return line, tuple(env), rng.random() < 0.15


def graphfit(model: Path, line: tuple[str, ...], env: tuple[str, ...], jit: bool
             ) -> tuple[int, str]:
    """(exit status, the last `error:` line) of graphfit's CLI on the pasted line, the
    environment words (and JIT DeepGEMM off where not `jit`) in front."""
    from graphfit.cli.application import main

    prefix = (*env, *(() if jit else ("SGLANG_ENABLE_JIT_DEEPGEMM=0",)))
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(["plan", "--gpu-memory-gb", "80", "--", *prefix, "sglang", "serve",
                  "--model-path", str(model), *line])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    errors = [ln for ln in err.getvalue().splitlines() if ln.startswith("error:")]
    return code, errors[-1] if errors else ""


def answers(paths: dict[str, Path], line: tuple[str, ...], env: tuple[str, ...], jit: bool
            ) -> tuple[str | None, tuple[int, str]]:
    """(SGLang's refusal or None, graphfit's (exit status, error line)) on the line under the
    environment words (module docstring)."""
    from tests.oracle import sglang_draft_build as build
    from tests.oracle import sglang_oracle as so
    from tests.oracle import test_sglang_deepep_class_oracle as dc
    from tests.oracle.environ_patch import sglang_environ

    draft = line[line.index("--speculative-draft-model-path") + 1]
    with sglang_environ(dict(word.split("=", 1) for word in env)):
        with dc._own_build_only():  # resolution alone: which worker SGLang picks
            r = so.resolve(line, model=str(paths["target"]))
        record = getattr(r, "record", None)
        context = isinstance(r, so.Resolved) and build.enters_context(record)

        def block(config: Any, quant: Any) -> None:
            from sglang.srt.runtime_context import get_parallel

            build.build_draft(record, draft, context, get_parallel().moe_ep_size, jit, True)

        theirs = dc.sglang(paths["target"], line, jit, block=block, shared_build=False)
    return theirs, graphfit(paths["target"], line, env, jit)


__all__ = ["DRAFTS", "EP_V2", "answers", "argv", "dirs", "draw", "graphfit"]
