"""graphfit == SGLang 0.5.23 on ROCm's pick of a DeepSeek-family NVFP4 EAGLE draft's MoE
backends, whose deep_gemm / deepep branch refuses `--ep-size` 1 (arg_groups/overrides.py:
846-887; graphfit.planner.engines.sglang_rocm_draft_pick; issue 23, s70n): fixed lines (the
refusal, then each condition of the pass turned off once) and drawn ones, SGLang's side as
tests.oracle.sglang_rocm_draft_pick_oracle builds it.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_rocm_draft_pick_oracle as rdp  # noqa: E402

_BASE = ("--tp-size", "8", "--speculative-algorithm", "EAGLE")
_FP4 = ("--quantization", "modelopt_fp4")
CASES: tuple[tuple[str, tuple[str, ...], str | None, str, bool], ...] = (
    # (target, line after --model-path, the variable, GPU, SGLang refuses)
    ("ds_v3", (*_BASE, *_FP4), "1", "MI300X", True),
    ("glm_dsa", (*_BASE, *_FP4), "true", "MI300X", True),
    # one draft backend given: the pass still picks (either unset, :859-862)
    ("ds_v3", (*_BASE, *_FP4, "--speculative-moe-runner-backend", "triton"), "1", "MI300X",
     True),
    # the target's a2a backend does not widen EP before the pass (:846)
    ("ds_v3", (*_BASE, *_FP4, "--moe-a2a-backend", "deepep"), "1", "MI300X", True),
    # each condition off: EP > 1, both draft backends, the variable unset / off / unparsable,
    # CUDA, NEXTN (not yet EAGLE here), EAGLE3, no or another flag, a class outside the family
    ("ds_v3", (*_BASE, *_FP4, "--ep-size", "8"), "1", "MI300X", False),
    ("ds_v3", (*_BASE, *_FP4, "--speculative-moe-runner-backend", "triton",
               "--speculative-moe-a2a-backend", "none"), "1", "MI300X", False),
    ("ds_v3", (*_BASE, *_FP4), None, "MI300X", False),
    ("ds_v3", (*_BASE, *_FP4), "0", "MI300X", False),
    ("ds_v3", (*_BASE, *_FP4), "on", "MI300X", False),
    ("ds_v3", (*_BASE, *_FP4), "1", "80", False),
    ("ds_v3", ("--tp-size", "8", "--speculative-algorithm", "NEXTN", *_FP4), "1", "MI300X",
     False),
    ("ds_v3", ("--tp-size", "8", "--speculative-algorithm", "EAGLE3", *_FP4), "1", "MI300X",
     False),
    ("ds_v3", _BASE, "1", "MI300X", False),
    ("ds_v3", (*_BASE, "--quantization", "fp8"), "1", "MI300X", False),
    ("glm4_moe", (*_BASE, *_FP4), "1", "MI300X", False),
)


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    so.oracle()
    return rdp.dirs(tmp_path_factory.mktemp("rocm_draft_pick"))


def test_fixed_lines_agree(paths: dict[str, Path]) -> None:
    wrong, refused = [], []
    for target, line, env, gpu, refuses in CASES:
        verdict, said = rdp.compare(paths[target], line, env, gpu)
        if verdict != "agree":
            wrong.append(said)
        if ("SGLang None" not in said) != refuses:
            refused.append(said)  # the table no longer tells SGLang's answer
    assert not wrong, "\n".join(wrong)
    assert not refused, "\n".join(refused)


def test_drawn_lines_agree(paths: dict[str, Path]) -> None:
    rng = random.Random(70)
    wrong = []
    for _ in range(12):
        target = paths[rng.choice(sorted(paths))]
        line, env, gpu = rdp.draw(rng)
        verdict, said = rdp.compare(target, line, env, gpu)
        if verdict != "agree":
            wrong.append(said)
    assert not wrong, "\n".join(wrong)
