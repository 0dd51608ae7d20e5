"""graphfit == SGLang 0.5.23 on a ModelOpt NVFP4 DeepSeek-family NextN draft, whose
DeepseekModelNextN drops the modelopt_fp4 config and, with SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE and
a deep_gemm draft runner, gives its experts an FP8 block config (models/deepseek_nextn.py:
66-79; graphfit.planner.engines.sglang_draft_nextn_fp4; issue 23, s69d): fixed lines (each
draft class and checkpoint form, the variable off / on / unparsable, each condition of both
asserts turned off once, a kept FP8 draft) and drawn ones, SGLang's side as
tests.oracle.sglang_nextn_fp4_oracle builds it.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_draft_deepep_oracle as ddo  # noqa: E402
from tests.oracle import sglang_nextn_fp4_oracle as nf  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402

_DP = ("--enable-dp-attention", "--dp-size", "2")
CASES = (  # (draft, draft a2a, mode, runner, jit, variable, extra)
    # refused: unquantized experts (variable unset / off / unparsable), then FP8 ones
    ("ds_nvfp4", "deepep", "low_latency", "deep_gemm", False, None, ()),
    ("ds_nvfp4_file", "pplx", "low_latency", "deep_gemm", False, "0", _DP),
    ("glm_dsa_nvfp4", "deepep", "normal", "deep_gemm", False, None, ()),
    ("glm5_next_nvfp4", "deepep", "normal", "deep_gemm", False, None, ()),
    ("ds_nvfp4", "deepep", "normal", "deep_gemm", False, "maybe", ()),
    # the flag the draft inherits clashes: the draft keeps its checkpoint's method
    ("ds_nvfp4", "deepep", "normal", "deep_gemm", False, None, ("--quantization", "fp8")),
    ("ds_nvfp4", "deepep", "low_latency", "deep_gemm", False, "1", ()),
    ("ds_nvfp4", "mooncake", "low_latency", "deep_gemm", False, "true", ()),
    # each condition off: FP8 experts in normal mode, JIT on, another runner (with and
    # without the variable), float16, mooncake without FP8, no a2a context, a kept FP8 draft
    ("ds_nvfp4", "deepep", "normal", "deep_gemm", False, "1", ()),
    ("ds_nvfp4", "deepep", "low_latency", "deep_gemm", True, None, ()),
    ("glm_dsa_nvfp4", "deepep", "low_latency", "triton", False, None, ()),
    ("ds_nvfp4", "deepep", "low_latency", "triton", False, "1", ()),
    ("ds_nvfp4", "deepep", "normal", "deep_gemm", False, None, ("--dtype", "float16")),
    ("ds_nvfp4", "mooncake", "low_latency", "deep_gemm", False, None, ()),
    ("ds_nvfp4", "deepep", "low_latency", "deep_gemm", False, None,
     ("--enable-multi-layer-eagle",)),
    ("ds_fp8", "deepep", "normal", "deep_gemm", False, "1", ()),
)


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    so.oracle()
    return nf.dirs(tmp_path_factory.mktemp("nextn_fp4"))


def test_fixed_lines_agree(paths: dict[str, Path]) -> None:
    wrong, refused = [], []
    for draft, backend, mode, runner, jit, env, extra in CASES:
        line = ddo.argv(paths[draft], backend, "none", mode, runner, *extra)
        theirs, (code, said) = nf.answers(paths, line, jit, env)
        refused.append(theirs is not None)
        if not ddo.agree(theirs, code, said):
            wrong.append(f"{draft} {line[10:]} jit={jit} {nf.ENV}={env}: SGLang "
                         f"{theirs and theirs[:160]}; graphfit {code} {said}")
        elif theirs is not None:
            assert "deepseek_nextn.py" in said and len(said) <= 200, said
    assert not wrong, "\n".join(wrong)
    # six unquantized and two FP8 refusals; each control builds
    assert refused == [True] * 8 + [False] * 8, refused


def test_drawn_lines_agree(paths: dict[str, Path]) -> None:
    rng = random.Random(69)
    wrong = []
    for _ in range(5):
        line, jit, env = nf.draw(rng, paths)
        theirs, (code, said) = nf.answers(paths, line, jit, env)
        if not ddo.agree(theirs, code, said):
            wrong.append(f"{line[10:]} jit={jit} {nf.ENV}={env}: SGLang "
                         f"{theirs and theirs[:160]}; graphfit {code} {said}")
    assert not wrong, "\n".join(wrong)
