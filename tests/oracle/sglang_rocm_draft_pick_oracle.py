"""SGLang 0.5.23's answer on ROCm's pick of a DeepSeek-family NVFP4 EAGLE draft's MoE backends
(`_deepseek_spec_moe_resolution`, arg_groups/overrides.py:846-887; issue 23, s70n), shared by
tests/oracle/test_sglang_rocm_draft_pick_oracle.py and measure_sglang_rocm_draft_pick (not a
test).

SGLang: its resolution and `check_server_args` (tests.oracle.sglang_lora_runner_oracle.sglang /
sglang_rocm: on an MI300X under SGLang's own scoped platform override, so the pass's
`get_platform().is_hip` says AMD; a figure in GiB runs the fake CUDA device), with
SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE in the process environment (SGLang's EnvBool reads os.environ
at each `get`, environ.py:67-89). graphfit: its CLI with the variable on the pasted line and
`--gpu-memory-gb MI300X` or the figure. Agree: both start, or both refuse and graphfit's
error line carries the first 60 characters of SGLang's words.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
from collections.abc import Iterator
from pathlib import Path

from tests.oracle import sglang_draft_build as sdb
from tests.oracle import sglang_lora_runner_oracle as lro

ENV = "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE"
_NVFP4 = {"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16, "ignore": []}
# name -> NEXTN_DRAFTS' config used as a target: two of `_DEEPSEEK_FAMILY_ARCHS`
# (overrides.py:745-760) and GLM-4 MoE, outside it
TARGETS = {"ds_v3": "deepseek_v3", "glm_dsa": "glm_moe_dsa", "glm4_moe": "glm4_moe"}


def dirs(root: Path) -> dict[str, Path]:
    """Each target of TARGETS as a ModelOpt NVFP4 checkpoint's config.json under `root`."""
    out = {}
    for name, base in TARGETS.items():
        data = json.loads(json.dumps(sdb.NEXTN_DRAFTS[base]))
        data["quantization_config"] = _NVFP4
        folder = root / name
        folder.mkdir()
        (folder / "config.json").write_text(json.dumps(data))
        out[name] = folder
    return out


@contextlib.contextmanager
def _environ(value: str | None) -> Iterator[None]:
    """The variable as `value` (None: unset) in this process for the block."""
    saved = os.environ.pop(ENV, None)
    if value is not None:
        os.environ[ENV] = value
    try:
        yield
    finally:
        os.environ.pop(ENV, None)
        if saved is not None:
            os.environ[ENV] = saved


def compare(target: Path, argv: tuple[str, ...], env: str | None, gpu: str = "MI300X"
            ) -> tuple[str, str]:
    """(agree / differ / other, a one-line account) of one line on `gpu` (MI300X or a figure
    in GiB), the variable as `env` (None: unset)."""
    with _environ(env):
        theirs, _ = lro.sglang_rocm(target, argv) if gpu == "MI300X" else lro.sglang(target, argv)
    with _environ(None):
        code, said = lro.graphfit(target, argv, {} if env is None else {ENV: env}, gpu)
    if (theirs is None) != (code == 0):
        verdict = "differ"
    else:
        verdict = ("agree" if theirs is None or theirs.split(": ", 1)[-1][:60] in said
                   else "other")
    return verdict, (f"{gpu} {target.name} {' '.join(argv)} {ENV}={env}: SGLang "
                     f"{theirs and theirs[:90]}; graphfit {code} {said[:110]}")


def draw(rng: random.Random) -> tuple[tuple[str, ...], str | None, str]:
    """(a drawn line after --model-path, the variable, the GPU) over what the pass reads: the
    algorithm (EAGLE / NEXTN / EAGLE3), `--quantization` (modelopt_fp4, another, none), the
    two draft backends given or not, `--ep-size` and a target a2a backend, the variable
    (unset / on / off / unparsable) and the GPU (MI300X 3 in 4, else CUDA)."""
    line = ["--tp-size", "8", "--speculative-algorithm",
            rng.choice(("EAGLE", "EAGLE", "EAGLE", "NEXTN", "EAGLE3"))]
    quant = rng.choice(("modelopt_fp4", "modelopt_fp4", "modelopt_fp4", "fp8", None))
    if quant is not None:
        line += ["--quantization", quant]
    if rng.random() < 0.3:
        line += ["--ep-size", rng.choice(("2", "8"))]
    if rng.random() < 0.2:
        line += ["--moe-a2a-backend", "deepep"]
    if rng.random() < 0.3:
        line += ["--speculative-moe-runner-backend", rng.choice(("triton", "deep_gemm"))]
    if rng.random() < 0.3:
        line += ["--speculative-moe-a2a-backend", rng.choice(("none", "deepep"))]
    env = rng.choice((None, "1", "1", "true", "0", "on"))
    return tuple(line), env, rng.choice(("MI300X", "MI300X", "MI300X", "80"))


__all__ = ["ENV", "TARGETS", "compare", "dirs", "draw"]
