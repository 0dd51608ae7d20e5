"""SGLang 0.5.23's answer on a ModelOpt NVFP4 DeepSeek-family NextN draft under a DeepEP / pplx
draft backend, with and without SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE (issue 23, s69d), shared by
tests/oracle/test_sglang_nextn_fp4_oracle.py and measure_sglang_nextn_fp4 (not a test).

The drafts: tests.oracle.sglang_draft_build.NEXTN_DRAFTS' DeepSeek-V3, GLM-MoE-DSA and
GLM-5-Next configs (all built by DeepseekModelNextN) with a ModelOpt quantization config in
config.json or a hf_quant_config.json beside it. SGLang: tests.oracle.sglang_draft_deepep_oracle's
answer (its resolution, the target's MoE block, then the draft model on meta under its own
loader's quantization config, model_loader/loader.py:174-281), with the variable set in the
process environment for SGLang's side only (EnvBool reads os.environ at each `get`,
environ.py:67-89): DeepseekModelNextN then picks its MoE config itself
(models/deepseek_nextn.py:66-79). graphfit: its CLI on the pasted line, the variable on it.
"""

from __future__ import annotations

import contextlib
import io
import os
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tests.oracle import sglang_draft_deepep_oracle as ddo
from tests.oracle import sglang_mtp_quant_oracle as mq

ENV = "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE"
_NVFP4 = {"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16, "ignore": []}
_FP8 = {"quant_method": "modelopt", "quant_algo": "FP8", "ignore": []}

# name -> (base draft, config.json's quantization_config or None, hf_quant_config.json or None)
DRAFTS: dict[str, tuple[str, dict[str, Any] | None, dict[str, Any] | None]] = {
    "ds_nvfp4": ("deepseek_v3", _NVFP4, None),
    "ds_nvfp4_file": ("deepseek_v3", None, {"producer": {"name": "modelopt"}, "quantization": {
        "quant_algo": "NVFP4", "group_size": 16, "exclude_modules": []}}),
    "glm_dsa_nvfp4": ("glm_moe_dsa", _NVFP4, None),
    "glm5_next_nvfp4": ("glm5_next", _NVFP4, None),
    # kept: ModelOpt FP8 (not modelopt_fp4), the MoE quantized as the draft settles
    "ds_fp8": ("deepseek_v3", _FP8, None),
}
# the drafts whose NextN keeps its config (quantized DeepEPMoE: the low-latency assert on
# other quantizations, ep_moe/layer.py:168-178, is not this rule's)
KEPT = ("ds_fp8",)


def dirs(root: Path, names: tuple[str, ...] = tuple(DRAFTS)) -> dict[str, Path]:
    """The Qwen3-MoE target and the named quantized drafts under `root` (written as the MTP
    quantization oracle writes its table's drafts)."""
    return mq.dirs(root, names, DRAFTS)


def draw(rng: random.Random, paths: dict[str, Path]
         ) -> tuple[tuple[str, ...], bool, str | None]:
    """One drawn line over what this rule reads (a dropped draft, the draft a2a backend, the
    mode, the runner given for the target or the draft, the dtype, an inherited FP8 flag,
    multi-layer EAGLE), whether JIT DeepGEMM is on, and the variable (unset / on / off /
    unparsable)."""
    drafts = tuple(name for name in DRAFTS if name not in KEPT)
    return draw_line(rng, paths, lambda r: r.choice(drafts), (None, "1", "0", "true", "on"))


def draw_line(rng: random.Random, paths: dict[str, Path],
              pick: Callable[[random.Random], str], envs: tuple[str | None, ...]
              ) -> tuple[tuple[str, ...], bool, str | None]:
    """`draw`'s line with the draft `pick` names and the variable drawn from `envs` (the
    NextN-drops oracle draws its own drafts and values through it)."""
    extra: list[str] = []
    if rng.random() < 0.15:
        extra += ["--dtype", "float16"]
    backend = rng.choice(("deepep", "deepep", "pplx", "mooncake", "none"))
    if backend == "pplx" or rng.random() < 0.2:  # pplx needs attention DP (moe_hook.py:589-595)
        extra += ["--enable-dp-attention", "--dp-size", "2"]
    if rng.random() < 0.1:
        extra.append("--enable-multi-layer-eagle")
    if rng.random() < 0.2:  # clashes with the checkpoint: the draft keeps NVFP4
        extra += ["--quantization", "fp8"]
    if rng.random() < 0.3:
        extra += ["--speculative-moe-runner-backend",
                  rng.choice(("deep_gemm", "triton", "auto"))]
    line = ddo.argv(paths[pick(rng)], backend, "none",
                    rng.choice(("auto", "low_latency", "normal")),
                    rng.choice(("deep_gemm", "deep_gemm", "triton", "auto")), *extra)
    return line, rng.random() < 0.25, rng.choice(envs)


@contextlib.contextmanager
def _environ(value: str | None) -> Iterator[None]:
    """The variable as `value` (None: unset) in this process for the block."""
    saved = os.environ.get(ENV)
    os.environ.pop(ENV, None)
    if value is not None:
        os.environ[ENV] = value
    try:
        yield
    finally:
        os.environ.pop(ENV, None)
        if saved is not None:
            os.environ[ENV] = saved


def graphfit(model: Path, line: tuple[str, ...], jit: bool, env: str | None
             ) -> tuple[int, str]:
    """(exit status, the last `error:` line) of graphfit's CLI on the pasted line, the
    variable written before the command where `env` is not None."""
    from graphfit.cli.application import main

    prefix = ((() if jit else ("SGLANG_ENABLE_JIT_DEEPGEMM=0",))
              + (() if env is None else (f"{ENV}={env}",)))
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), _environ(None):
        try:
            main(["plan", "--gpu-memory-gb", "80", "--", *prefix, "sglang", "serve",
                  "--model-path", str(model), *line])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    errors = [ln for ln in err.getvalue().splitlines() if ln.startswith("error:")]
    return code, errors[-1] if errors else ""


def answers(paths: dict[str, Path], line: tuple[str, ...], jit: bool, env: str | None
            ) -> tuple[str | None, tuple[int, str]]:
    """(SGLang's refusal or None, graphfit's (exit status, error line)): the quantized-draft
    oracle's SGLang answer (tests.oracle.sglang_mtp_quant_oracle.answers) with the variable
    in the environment, graphfit's with it on the line."""
    with _environ(env):
        theirs, _ = mq.answers(paths, line, jit)
    return theirs, graphfit(paths["target"], line, jit, env)


__all__ = ["DRAFTS", "ENV", "KEPT", "answers", "dirs", "draw", "graphfit"]
