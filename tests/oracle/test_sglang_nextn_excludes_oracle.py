"""graphfit == SGLang 0.5.23 on DeepSeek-V3 / GLM-5-Next NextN drafts whose checkpoint's own
list leaves the NextN layer unquantized or keeps it (a Quark `exclude` entry matched after the
weight-name mapper, deepseek_nextn.py:265-275; GLM-5-Next's `ignore`, glm5_next_nextn.py:
49-68; graphfit.inputs.sglang_nextn_excludes, sglang_draft_deepep.read_dropped; issue 23,
s70p). Fixed lines: each dropping draft meets the unquantized assert (ep_moe/layer.py:
135-147), each kept one the low-latency assert (:168-178), each condition off once. Drawn
lines: tests.oracle.sglang_nextn_excludes_oracle.draw. Both sides refuse with the same assert,
or both start.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_draft_deepep_oracle as ddo  # noqa: E402
from tests.oracle import sglang_nextn_excludes_oracle as ne  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402

_DP = ("--enable-dp-attention", "--dp-size", "2")
_ASSERTS = ("Unquantized DeepEP MoE", "mode requires deep_gemm")
CASES = (  # (draft, draft a2a, mode, runner, jit, extra); the variable "1" where named below
    # dropped: unquantized experts
    ("ds_layer", "deepep", "low_latency", "deep_gemm", False, ()),
    ("ds_regex", "pplx", "low_latency", "deep_gemm", False, _DP),
    ("ds_61", "deepep", "normal", "deep_gemm", False, ()),
    ("glm5_ignore", "deepep", "low_latency", "deep_gemm", False, ()),
    ("glm5_quark", "deepep", "normal", "deep_gemm", False, ()),
    ("ds_lm", "deepep", "low_latency", "deep_gemm", False, ()),
    ("glm5_ignore_nvfp4", "deepep", "low_latency", "deep_gemm", False, ()),
    # kept: quantized experts, the low-latency assert
    ("ds_mlp", "deepep", "low_latency", "triton", False, ()),
    ("ds_expert", "mooncake", "auto", "deep_gemm", False, ()),
    ("ds_61_escaped", "deepep", "low_latency", "deep_gemm", False, ()),
    ("ds_other", "deepep", "auto", "triton", False, ()),
    ("ds_61_on_4", "deepep", "low_latency", "deep_gemm", False, ()),
    ("glm5_ignore_other", "deepep", "low_latency", "triton", False, ()),
    ("glm5_quark_kept", "deepep", "low_latency", "deep_gemm", False, ()),
    # each condition off: another runner, mooncake, normal mode, JIT on, float16
    ("ds_layer", "deepep", "low_latency", "triton", False, ()),
    ("glm5_ignore", "mooncake", "low_latency", "deep_gemm", False, ()),
    ("ds_mlp", "deepep", "normal", "triton", False, ()),
    ("glm5_quark", "deepep", "low_latency", "deep_gemm", True, ()),
    ("ds_61", "deepep", "normal", "deep_gemm", False, ("--dtype", "float16")),
    # GLM-5-Next's `ignore` hands DeepseekModelNextN no config: no FP8 experts under mooncake
    ("glm5_ignore_nvfp4", "mooncake", "low_latency", "deep_gemm", False, ()),
)
_ENV = {"glm5_ignore_nvfp4"}


def _same(theirs: str | None, code: int, said: str) -> bool:
    """Both start, or both refuse with the same DeepEPMoE assert (ddo.agree, then its words)."""
    if not ddo.agree(theirs, code, said):
        return False
    return theirs is None or all((words in theirs) == (words in said) for words in _ASSERTS)


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    so.oracle()
    return ne.dirs(tmp_path_factory.mktemp("nextn_excludes"))


def test_fixed_lines_agree(paths: dict[str, Path]) -> None:
    wrong, refused = [], []
    for draft, backend, mode, runner, jit, extra in CASES:
        line = ddo.argv(paths[draft], backend, "none", mode, runner, *extra)
        theirs, (code, said) = ne.answers(paths, line, jit, "1" if draft in _ENV else None)
        refused.append(theirs is not None)
        if not _same(theirs, code, said):
            wrong.append(f"{draft} {line[10:]} jit={jit}: SGLang {theirs and theirs[:160]}; "
                         f"graphfit {code} {said}")
        elif theirs is not None:
            assert len(said) <= 200, said
    assert not wrong, "\n".join(wrong)
    assert refused == [True] * 14 + [False] * 6, refused


def test_drawn_lines_agree(paths: dict[str, Path]) -> None:
    rng = random.Random(70)
    wrong = []
    for _ in range(6):
        line, jit = ne.draw(rng, paths)
        theirs, (code, said) = ne.answers(paths, line, jit)
        if not _same(theirs, code, said):
            wrong.append(f"{line[10:]} jit={jit}: SGLang {theirs and theirs[:160]}; "
                         f"graphfit {code} {said}")
    assert not wrong, "\n".join(wrong)
