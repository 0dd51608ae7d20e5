"""graphfit == SGLang 0.5.23 on a quantized MoE draft's low-latency DeepEPMoE assert beyond FP8
(ep_moe/layer.py:168-178; graphfit.planner.engines.sglang_draft_deepep.quantized_problem;
issue 23, s69e): fixed lines (each checkpoint method, each condition turned off once, the
NextN classes that drop a ModelOpt FP4 config) and drawn ones, SGLang's side as
tests.oracle.sglang_draft_lowlat_oracle builds it.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_draft_deepep_oracle as ddo  # noqa: E402
from tests.oracle import sglang_draft_lowlat_oracle as lo  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402

_DP = ("--enable-dp-attention", "--dp-size", "2")
CASES = (  # (draft, draft a2a, mode, runner, jit, extra, SGLang refuses)
    # each kept checkpoint method asserts in auto / low_latency mode with JIT off
    ("mtp_fp8", "deepep", "low_latency", "triton", False, (), True),
    ("mtp_mixed", "deepep", "low_latency", "triton", False, (), True),
    ("mtp_quark", "mooncake", "low_latency", "triton", False, (), True),
    ("next_fp8", "deepep", "low_latency", "triton", False, (), True),
    ("dsv3_fp8_block", "deepep", "low_latency", "auto", False, (), True),
    ("dsv3_modelopt_fp8", "deepep", "auto", "triton", False, (), True),
    ("dsa_quark", "deepep", "low_latency", "triton", False, (), True),
    # a clashing flag: the draft keeps its checkpoint's method (model_config.py:2122-2137)
    ("mtp_fp8", "deepep", "low_latency", "triton", False, ("--quantization", "fp8"), True),
    ("dsv3_fp8_block", "deepep", "low_latency", "triton", False,
     ("--speculative-draft-model-quantization", "w8a8_fp8"), True),
    # each condition off: normal mode, JIT on, no a2a context, no draft a2a
    ("mtp_quark", "deepep", "normal", "deep_gemm", False, (), False),
    ("next_fp8", "deepep", "normal", "deep_gemm", False, (), False),
    ("dsv3_fp8_block", "deepep", "low_latency", "triton", True, (), False),
    ("dsv3_modelopt_fp8", "deepep", "low_latency", "triton", False,
     ("--enable-multi-layer-eagle",), False),
    ("mtp_mixed", "none", "low_latency", "triton", False, (), False),
    # the NextN class drops a ModelOpt FP4 config: unquantized experts, no low-latency assert
    ("dsv3_nvfp4", "deepep", "low_latency", "triton", False, (), False),
    ("glm4_nvfp4", "deepep", "auto", "triton", False, (), False),
)
# drawn lines pick from the drafts whose class hands its layer the config or drops it
# (every draft of the table), under the draw of tests.oracle.sglang_draft_deepep_oracle
DRAWN = tuple(lo.DRAFTS)


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    so.oracle()
    return lo.dirs(tmp_path_factory.mktemp("draft_lowlat"))


def test_fixed_lines_agree(paths: dict[str, Path]) -> None:
    wrong = []
    for draft, backend, mode, runner, jit, extra, refuses in CASES:
        line = ddo.argv(paths[draft], backend, "none", mode, runner, *extra)
        theirs, (code, said) = lo.answers(paths, line, jit)
        if (theirs is not None) != refuses or not ddo.agree(theirs, code, said):
            wrong.append(f"{draft} {line[10:]} jit={jit}: SGLang {theirs and theirs[:160]}; "
                         f"graphfit {code} {said}")
        elif refuses:
            assert "168-178" in said and len(said) <= 200, said  # the low-latency assert
    assert not wrong, "\n".join(wrong)


def test_drawn_lines_agree(paths: dict[str, Path]) -> None:
    rng = random.Random(69)
    wrong = []
    for _ in range(6):
        line, jit = ddo.draw(rng, paths, DRAWN)
        theirs, (code, said) = lo.answers(paths, line, jit)
        if not ddo.agree(theirs, code, said):
            wrong.append(f"{line[10:]} jit={jit}: SGLang {theirs and theirs[:160]}; "
                         f"graphfit {code} {said}")
    assert not wrong, "\n".join(wrong)
