"""graphfit == SGLang 0.5.23 on a ModelOpt NVFP4 GLM-4.5, GLM-4.7-Flash or Bailing NextN draft,
whose NextN class drops the modelopt_fp4 config with no FP8 override (models/glm4_moe_nextn.py:
52-56, glm4_moe_lite_nextn.py:55-60, bailing_moe_nextn.py:84-88), so its experts meet
DeepEPMoE's unquantized assert (ep_moe/layer.py:135-147; graphfit.planner.engines.
sglang_draft_nextn_fp4.DROPPING_CLASSES; issue 23, s70d): fixed lines (each class and
checkpoint form, the variable that DeepseekModelNextN alone reads, each condition turned off
once, a kept ModelOpt FP8 draft) and drawn ones, SGLang's side as
tests.oracle.sglang_nextn_drops_oracle builds it.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_draft_deepep_oracle as ddo  # noqa: E402
from tests.oracle import sglang_nextn_drops_oracle as nd  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402

_DP = ("--enable-dp-attention", "--dp-size", "2")
CASES = (  # (draft, draft a2a, mode, runner, jit, variable, extra)
    # refused: unquantized experts, whatever the variable or an inherited flag
    ("glm4_nvfp4", "deepep", "low_latency", "deep_gemm", False, None, ()),
    ("glm4_nvfp4_file", "pplx", "low_latency", "deep_gemm", False, None, _DP),
    ("glm4_lite_nvfp4", "deepep", "normal", "deep_gemm", False, None, ()),
    ("bailing_nvfp4", "deepep", "normal", "deep_gemm", False, None, ()),
    ("glm4_nvfp4", "deepep", "low_latency", "deep_gemm", False, "1", ()),
    ("glm4_nvfp4", "deepep", "normal", "deep_gemm", False, None, ("--quantization", "fp8")),
    # each condition off: JIT on, another runner, float16, mooncake (no unquantized assert;
    # with the variable a DeepSeek draft's FP8 experts would assert there), no a2a context
    ("glm4_nvfp4", "deepep", "low_latency", "deep_gemm", True, None, ()),
    ("glm4_lite_nvfp4", "deepep", "low_latency", "triton", False, None, ()),
    ("glm4_lite_nvfp4", "deepep", "normal", "deep_gemm", False, None, ("--dtype", "float16")),
    ("glm4_nvfp4", "mooncake", "low_latency", "deep_gemm", False, "1", ()),
    ("bailing_nvfp4", "deepep", "low_latency", "deep_gemm", False, None,
     ("--enable-multi-layer-eagle",)),
    # a kept ModelOpt FP8 draft: quantized experts, no unquantized assert
    ("glm4_fp8", "deepep", "normal", "deep_gemm", False, None, ()),
)


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    so.oracle()
    return nd.dirs(tmp_path_factory.mktemp("nextn_drops"))


def test_fixed_lines_agree(paths: dict[str, Path]) -> None:
    wrong, refused = [], []
    for draft, backend, mode, runner, jit, env, extra in CASES:
        line = ddo.argv(paths[draft], backend, "none", mode, runner, *extra)
        theirs, (code, said) = nd.answers(paths, line, jit, env)
        refused.append(theirs is not None)
        if not ddo.agree(theirs, code, said):
            wrong.append(f"{draft} {line[10:]} jit={jit} env={env}: SGLang "
                         f"{theirs and theirs[:160]}; graphfit {code} {said}")
        elif theirs is not None:
            assert "_nextn.py:" in said and len(said) <= 200, said
    assert not wrong, "\n".join(wrong)
    assert refused == [True] * 6 + [False] * 6, refused


def test_drawn_lines_agree(paths: dict[str, Path]) -> None:
    rng = random.Random(70)
    wrong = []
    for _ in range(5):
        line, jit, env = nd.draw(rng, paths)
        theirs, (code, said) = nd.answers(paths, line, jit, env)
        if not ddo.agree(theirs, code, said):
            wrong.append(f"{line[10:]} jit={jit} env={env}: SGLang "
                         f"{theirs and theirs[:160]}; graphfit {code} {said}")
    assert not wrong, "\n".join(wrong)
