"""graphfit == SGLang 0.5.23 on a MoE draft's DeepEPMoE assert (graphfit.planner.engines.
sglang_draft_deepep; issue 23, s61e): fixed lines (each condition of the rule turned off once)
and drawn ones, SGLang's side as tests.oracle.sglang_draft_deepep_oracle builds it.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_draft_deepep_oracle as ddo  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402

CASES = (  # (draft, draft a2a, target a2a, mode, runner, jit, extra)
    ("qwen3", "deepep", "none", "low_latency", "deep_gemm", False, ()),
    ("qwen3", "deepep", "mooncake", "low_latency", "deep_gemm", False, ()),
    ("qwen3", "pplx", "none", "low_latency", "deep_gemm", False,
     ("--enable-dp-attention", "--dp-size", "2")),
    ("qwen3", "deepep", "none", "low_latency", "deep_gemm", True, ()),  # JIT on
    ("qwen3", "deepep", "none", "low_latency", "triton", False, ()),  # another runner
    ("qwen3", "deepep", "none", "low_latency", "lora_triton", False,  # draft runner auto
     ("--enable-lora", "--lora-backend", "triton_v2", "--max-lora-rank", "8",
      "--lora-target-modules", "all")),  # the LoRA runner's own checks pass (s65d)
    ("qwen3", "deepep", "none", "low_latency", "deep_gemm", False, ("--dtype", "float16")),
    ("qwen3", "deepep", "none", "low_latency", "deep_gemm", False,
     ("--enable-multi-layer-eagle",)),  # no a2a context
    ("qwen3", "mooncake", "none", "low_latency", "deep_gemm", False, ()),  # not deepep / pplx
    # an FP8 draft (it inherits --quantization): the low-latency assert
    ("qwen3", "deepep", "none", "low_latency", "triton", False, ("--quantization", "fp8")),
    ("qwen3", "mooncake", "none", "low_latency", "triton", False, ("--quantization", "fp8")),
    ("qwen3", "deepep", "none", "low_latency", "triton", True, ("--quantization", "fp8")),
    ("qwen3", "deepep", "none", "normal", "triton", False, ("--quantization", "fp8")),
    # s63d: NextN / MTP drafts build DeepEPMoE too; a dense Qwen3.5 draft does not
    ("deepseek_v3", "deepep", "none", "low_latency", "deep_gemm", False, ()),
    ("qwen3_5_moe", "deepep", "none", "low_latency", "triton", False, ("--quantization", "fp8")),
    ("bailing_hybrid", "pplx", "none", "low_latency", "deep_gemm", False,
     ("--enable-dp-attention", "--dp-size", "2")),
    ("glm4_moe", "deepep", "none", "low_latency", "deep_gemm", True, ()),  # JIT on
    ("qwen3_5", "deepep", "none", "low_latency", "deep_gemm", False, ()),
    # s63d: --speculative-moe-runner-backend is the draft's runner, whatever the target's
    ("qwen3", "deepep", "none", "low_latency", "triton", False,
     ("--speculative-moe-runner-backend", "deep_gemm")),
    ("deepseek_v3", "deepep", "none", "low_latency", "auto", False,
     ("--speculative-moe-runner-backend", "deep_gemm")),
    ("qwen3", "deepep", "none", "low_latency", "deep_gemm", False,
     ("--speculative-moe-runner-backend", "triton")),
    ("qwen3", "deepep", "none", "low_latency", "triton", False,
     ("--quantization", "fp8", "--speculative-moe-runner-backend", "humming")),
    ("hy_v4", "deepep", "none", "low_latency", "deep_gemm", False, ()),
    ("gigachat3_5", "deepep", "none", "low_latency", "deep_gemm", False, ()),
    # s66d: Step-3.5's MTP block is built without the quantization config: an FP8 draft
    # meets the unquantized assert (deep_gemm), not the low-latency one (triton)
    ("step3p5", "deepep", "none", "low_latency", "deep_gemm", False, ("--quantization", "fp8")),
    ("step3p5", "deepep", "none", "low_latency", "triton", False, ("--quantization", "fp8")),
    ("exaone_moe", "deepep", "none", "low_latency", "triton", False, ("--quantization", "fp8")),
    ("interns2_mobius", "pplx", "none", "low_latency", "deep_gemm", False,
     ("--enable-dp-attention", "--dp-size", "2")),
    ("glm5_next", "deepep", "none", "low_latency", "deep_gemm", False, ()),
    # s67d: Qwen4-Exp's MTP layer (always MoE): the unquantized assert, then FP8's low-latency
    ("qwen4_exp", "deepep", "none", "low_latency", "deep_gemm", False, ()),
    ("qwen4_exp", "deepep", "none", "low_latency", "triton", False, ("--quantization", "fp8")),
    # s68n: DeepSeek-V4's NextN layer (always MoE): the unquantized assert, then FP8's
    ("deepseek_v4", "deepep", "none", "low_latency", "deep_gemm", False, ()),
    ("deepseek_v4", "deepep", "none", "low_latency", "deep_gemm", True, ()),  # JIT on
    ("deepseek_v4", "deepep", "none", "low_latency", "triton", False, ("--quantization", "fp8")),
)
NEXTN = ("deepseek_v3", "qwen3_5_moe", "bailing_hybrid", "glm4_moe", "qwen3_5", "hy_v4",
         "gigachat3_5", "step3p5", "exaone_moe", "interns2_mobius", "glm5_next", "qwen4_exp",
         "deepseek_v4")


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    so.oracle()
    return ddo.dirs(tmp_path_factory.mktemp("draft-deepep"), NEXTN)


def test_fixed_lines_agree(paths: dict[str, Path]) -> None:
    wrong, refused = [], []
    for draft, backend, target, mode, runner, jit, extra in CASES:
        line = ddo.argv(paths[draft], backend, target, mode, runner, *extra)
        theirs, (code, said) = ddo.answers(paths, line, jit)
        refused.append(theirs is not None)
        if not ddo.agree(theirs, code, said):
            wrong.append(f"{line[10:]}: SGLang {theirs and theirs[:160]}; graphfit {code} {said}")
    assert not wrong, "\n".join(wrong)
    # not vacuous: the first three lines' drafts assert, and the first two FP8 ones;
    # each control builds
    assert refused == [True] * 3 + [False] * 6 + [True, True, False, False] + [True] * 3 + [
        False, False] + [True, True, False, False, True, True] + [
        True, False, True, True, True, True, True, True, False, True], refused


def test_drawn_lines_agree(paths: dict[str, Path]) -> None:
    rng = random.Random(61)
    wrong = []
    for _ in range(4):
        line, jit = ddo.draw(rng, paths)
        theirs, (code, said) = ddo.answers(paths, line, jit)
        if not ddo.agree(theirs, code, said):
            wrong.append(f"{line[10:]} jit={jit}: SGLang {theirs and theirs[:160]}; "
                         f"graphfit {code} {said}")
    assert not wrong, "\n".join(wrong)


# s68i: a Gemma 4 unified assistant MoE draft (FROZEN_KV_MTP): its GELU experts meet the
# DeepGEMM runner's activation assert (sglang_draft_gelu_runner), else DeepEPMoE's FP8
# low-latency one; (draft, a2a, mode, runner, jit, extra, SGLang refuses)
GELU_CASES = (
    ("unified", "deepep", "low_latency", "deep_gemm", False, (), True),  # runner, not DeepEP's
    ("unified", "none", "low_latency", "deep_gemm", True, (), True),  # whatever the a2a
    ("unified", "mooncake", "auto", "deep_gemm", False, (), True),  # before the dispatcher
    ("unified", "deepep", "low_latency", "triton", False, ("--quantization", "fp8"), True),
    ("unified", "deepep", "low_latency", "auto", True, ("--quantization", "fp8"), True),
    ("unified", "pplx", "low_latency", "auto", True, ("--quantization", "fp8"), False),
    ("unified", "none", "low_latency", "auto", True, ("--quantization", "fp8"), False),
    ("unified", "deepep", "low_latency", "triton", False, (), False),
    ("unified", "deepep", "low_latency", "deep_gemm", False,
     ("--speculative-moe-runner-backend", "triton"), False),
    ("unified", "deepep", "low_latency", "triton", True,
     ("--speculative-moe-runner-backend", "deep_gemm"), True),
    ("unified_dense", "deepep", "low_latency", "deep_gemm", False, (), False),
)


def test_gemma4_unified_draft_lines_agree() -> None:
    from tests.oracle import sglang_draft_gelu_oracle as go

    wrong = []
    for draft, a2a, mode, runner, jit, extra, refuses in GELU_CASES:
        drawn = go.line(draft, a2a, mode, runner, jit, *extra)
        theirs, (code, said) = ddo.answers(go.paths(), drawn[1:], jit, "H100")
        whole = " ... " not in said  # one error line the CLI did not shorten (<= 200 chars)
        if (theirs is not None) != refuses or not go.agree(theirs, code, said) or not whole:
            wrong.append(f"{drawn[0]} {drawn[11:]}: SGLang {theirs and theirs[-100:]}; "
                         f"graphfit {code} {said}")
    rng = random.Random(68)
    for _ in range(6):
        said, detail = go.verdict(go.draw(rng))
        if said != "agree":
            wrong.append(f"drawn: {said} {detail}")
    assert not wrong, "\n".join(wrong)


# s69l: the unified draft with no --speculative-moe-a2a-backend inherits the target's backend
# and runner (layers/moe/utils.py:463-476); on a dense target no MoE flag is seeded and its
# runner is auto (:531-539); (a2a, runner, jit, extra, inherited, dense target, SGLang refuses)
INHERITED_CASES = (
    ("none", "deep_gemm", False, (), True, False, True),  # the target's runner
    ("none", "deep_gemm", False, ("--speculative-moe-runner-backend", "triton"), True, False,
     False),
    ("deepep", "auto", True, ("--quantization", "fp8"), True, False, True),  # inherited deepep
    ("deepep", "triton", True, ("--quantization", "fp8"), True, False, False),
    ("none", "deep_gemm", False, (), True, True, False),  # dense target: runner auto
    ("none", "deep_gemm", False, (), False, True, False),  # dense target, draft backend none
)


def test_gemma4_unified_draft_inherited_and_dense_lines_agree() -> None:
    from tests.oracle import sglang_draft_gelu_oracle as go

    wrong = []
    for a2a, runner, jit, extra, inherited, dense, refuses in INHERITED_CASES:
        drawn = go.line("unified", a2a, "low_latency", runner, jit, *extra,
                        inherited=inherited, dense=dense)
        theirs, (code, said) = go.answers(drawn)
        if (theirs is not None) != refuses or not go.agree(theirs, code, said):
            wrong.append(f"{drawn[0]} {drawn[11:]}: SGLang {theirs and theirs[-100:]}; "
                         f"graphfit {code} {said}")
    assert not wrong, "\n".join(wrong)
