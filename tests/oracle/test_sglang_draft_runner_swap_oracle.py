"""graphfit == SGLang 0.5.23 on a quantized MoE draft asking for a humming / flashinfer_cutedsl
runner that its quantization method replaces, so DeepEPMoE still meets the low-latency assert
(ep_moe/layer.py:168-178; fused_moe_triton/layer.py:576-578; graphfit.planner.engines.
sglang_draft_runner_swap; issue 23, s70d): fixed lines (each swapping method, a MIXED MTP
draft's unlisted / FP8 / NVFP4 experts, the fp8 method that keeps humming, each condition
turned off once) and drawn ones, SGLang's side as tests.oracle.sglang_draft_runner_swap_oracle
builds it.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_draft_deepep_oracle as ddo  # noqa: E402
from tests.oracle import sglang_draft_runner_swap_oracle as rs  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402

CASES = (  # (draft, draft a2a, mode, draft runner, jit, SGLang refuses)
    ("mtp_mixed", "deepep", "low_latency", "humming", False, True),
    ("mtp_mixed", "deepep", "auto", "flashinfer_cutedsl", False, True),
    ("mtp_mixed_fp8_experts", "deepep", "low_latency", "flashinfer_cutedsl", False, True),
    ("mtp_fp8", "mooncake", "low_latency", "humming", False, True),
    ("dsv3_modelopt_fp8", "deepep", "low_latency", "humming", False, True),
    ("mtp_quark", "deepep", "low_latency", "humming", False, True),
    ("dsv3_w4afp8", "deepep", "low_latency", "humming", False, True),
    # kept: fp8 keeps humming; each condition off: normal mode, JIT on, no draft a2a
    ("dsv3_fp8_block", "deepep", "low_latency", "humming", False, False),
    ("mtp_mixed", "deepep", "normal", "humming", False, False),
    ("mtp_fp8", "deepep", "low_latency", "humming", True, False),
    ("mtp_mixed_fp8_experts", "none", "low_latency", "humming", False, False),
)


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    so.oracle()
    return rs.dirs(tmp_path_factory.mktemp("runner_swap"))


def test_fixed_lines_agree(paths: dict[str, Path]) -> None:
    wrong = []
    for draft, backend, mode, runner, jit, refuses in CASES:
        line = ddo.argv(paths[draft], backend, "none", mode, "triton",
                        "--speculative-moe-runner-backend", runner)
        theirs, (code, said) = rs.answers(paths, line, jit)
        if (theirs is not None) != refuses or not ddo.agree(theirs, code, said):
            wrong.append(f"{draft} {line[10:]} jit={jit}: SGLang {theirs and theirs[:160]}; "
                         f"graphfit {code} {said}")
        elif refuses:
            assert f"not {runner}" in said and len(said) <= 200, said
    assert not wrong, "\n".join(wrong)


def test_drawn_lines_agree(paths: dict[str, Path]) -> None:
    rng = random.Random(70)
    wrong = []
    for _ in range(5):
        line, jit = rs.draw(rng, paths)
        theirs, (code, said) = rs.answers(paths, line, jit)
        if not ddo.agree(theirs, code, said):
            wrong.append(f"{line[10:]} jit={jit}: SGLang {theirs and theirs[:160]}; "
                         f"graphfit {code} {said}")
    assert not wrong, "\n".join(wrong)
