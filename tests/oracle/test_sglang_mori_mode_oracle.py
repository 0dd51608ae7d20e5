"""graphfit == SGLang 0.5.23 on a quantized MoE draft's low-latency DeepEPMoE assert
(ep_moe/layer.py:168-178) under a mori target, whose a2a hook rewrites `--deepep-mode`
(arg_groups/moe_hook.py:545-561): auto to normal, low_latency to normal under EPv2
(graphfit.planner.engines.sglang_draft_deepep.quantized_problem and sglang_draft_nextn_fp4.
problem read sglang_mori_ep.deepep_mode; issue 23, s70r). Fixed lines (each rewrite, EPv1
keeping low_latency, a non-mori target, the NVFP4 NextN's FP8 experts), a small drawn grid
and two planted errors; SGLang's side as tests.oracle.sglang_mori_mode_oracle builds it.
"""

from __future__ import annotations

import random
import warnings
from pathlib import Path
from typing import Any

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_draft_deepep_oracle as ddo  # noqa: E402
from tests.oracle import sglang_mori_mode_oracle as mm  # noqa: E402

Case = tuple[str, str, str, str, tuple[str, ...], tuple[str, ...], bool]
_V2 = f"{mm.EP_V2}=1"
_FP8_MOE = ("SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1",)
_DG = ("--speculative-moe-runner-backend", "deep_gemm")
# (draft, draft a2a, target a2a, mode, environment, extra, SGLang refuses)
CASES: tuple[Case, ...] = (
    ("mtp_fp8", "deepep", "mori", "auto", (), (), False),  # auto -> normal
    ("mtp_fp8", "deepep", "mori", "low_latency", (_V2,), (), False),  # EPv2: -> normal
    ("mtp_fp8", "deepep", "mori", "low_latency", (), (), True),  # EPv1 keeps low_latency
    ("mtp_fp8", "deepep", "none", "auto", (), (), True),  # no mori hook: auto stays
    # the DeepSeek NVFP4 NextN's FP8 experts (sglang_draft_nextn_fp4)
    ("ds_nvfp4", "deepep", "mori", "auto", _FP8_MOE, _DG, False),
    ("ds_nvfp4", "deepep", "mori", "low_latency", _FP8_MOE, _DG, True),
)


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from tests.oracle import sglang_oracle as so

    so.oracle()
    return mm.dirs(tmp_path_factory.mktemp("mori_mode"))


def _answer(paths: dict[str, Path], case: Case) -> tuple[str | None, tuple[int, str]]:
    draft, backend, target, mode, env, extra, _ = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return mm.answers(paths, mm.argv(paths[draft], backend, target, mode, *extra), env,
                          False)


def test_fixed_lines_agree(paths: dict[str, Path]) -> None:
    wrong = []
    for case in CASES:
        theirs, (code, said) = _answer(paths, case)
        if (theirs is not None) != case[-1] or not ddo.agree(theirs, code, said):
            wrong.append(f"{case[:5]}: SGLang {theirs and theirs[:160]}; graphfit {code} {said}")
        elif case[-1]:
            assert "168-178" in said and len(said) <= 200, said  # the low-latency assert
    assert not wrong, "\n".join(wrong)


def test_drawn_lines_agree(paths: dict[str, Path]) -> None:
    rng = random.Random(70)
    wrong = []
    for _ in range(4):
        line, env, jit = mm.draw(rng, paths)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs, (code, said) = mm.answers(paths, line, env, jit)
        if not ddo.agree(theirs, code, said):
            wrong.append(f"{env} {line[10:]} jit={jit}: SGLang {theirs and theirs[:160]}; "
                         f"graphfit {code} {said}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("module", ["sglang_draft_deepep", "sglang_draft_nextn_fp4"])
def test_a_planted_error_is_caught(module: str, paths: dict[str, Path],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted: one rule reads the line's own mode again; graphfit refuses the mori line
    (auto, rewritten to normal) that SGLang starts."""
    import importlib

    from graphfit.planner.engines import sglang_mori_ep

    rule = importlib.import_module(f"graphfit.planner.engines.{module}")
    monkeypatch.setattr(rule, "sglang_mori_ep", _OwnMode(sglang_mori_ep))
    case = CASES[0] if module == "sglang_draft_deepep" else CASES[4]
    draft, backend, target, mode, env, extra, _ = case
    code, said = mm.graphfit(paths["target"], mm.argv(paths[draft], backend, target, mode,
                                                      *extra), env, False)
    assert code == 2 and "168-178" in said, said


class _OwnMode:
    """sglang_mori_ep with `deepep_mode` returning the line's own mode (the plant)."""

    def __init__(self, real: object) -> None:
        self._real = real

    def __getattr__(self, name: str) -> object:
        return getattr(self._real, name)

    @staticmethod
    def deepep_mode(config: Any) -> str:
        return str(config.deepep_mode)
