"""graphfit == SGLang 0.5.23 on `--speculative-moe-runner-backend`'s start-up check (issue 23,
s63d): a lora_* draft runner on a speculative line is refused (arg_groups/lora_hook.py:183-196,
run by `check_server_args`, validation_hook.py:222, right after resolution,
entrypoints/engine.py:1153-1165). SGLang: its own resolution of the line on a Qwen3-MoE target
(tests.oracle.sglang_oracle.resolve), then its own `check_lora_moe_runner_args` on the
resolved record; graphfit: its CLI on the pasted line. The draft's runner inside its
DeepEPMoE asserts is compared in tests/oracle/test_sglang_draft_deepep_oracle.py.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_stubs  # noqa: E402
from tests.oracle import test_sglang_deepep_class_oracle as dc  # noqa: E402

RUNNERS = ("lora_triton", "lora_marlin", "lora_cutedsl", "triton", "deep_gemm", "auto")


@pytest.fixture(scope="module")
def dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    so.oracle()
    root = tmp_path_factory.mktemp("draft-runner")
    return {"target": sglang_stubs.write_moe_model_dir(root / "target"),
            "draft": sglang_stubs.write_moe_model_dir(root / "qwen3-draft")}


def _argv(dirs: dict[str, Path], runner: str, speculative: bool) -> tuple[str, ...]:
    spec = ("--speculative-algorithm", "EAGLE", "--speculative-num-steps", "2",
            "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "3",
            "--speculative-draft-model-path", str(dirs["draft"])) if speculative else ()
    return ("--tp-size", "2", *spec, "--speculative-moe-runner-backend", runner)


def sglang(dirs: dict[str, Path], argv: tuple[str, ...]) -> str | None:
    """SGLang's refusal (resolution, then the LoRA MoE runner check) or None."""
    r = so.resolve(argv, model=str(dirs["target"]))
    if isinstance(r, so.Rejected):
        return r.text
    with sglang_stubs.imports():
        from sglang.srt.arg_groups.lora_hook import check_lora_moe_runner_args
    try:
        check_lora_moe_runner_args(r.record)
    except ValueError as exc:
        return f"ValueError: {exc}"
    return None


def _compare(dirs: dict[str, Path], lines: list[tuple[str, bool]]) -> list[bool]:
    wrong, refused = [], []
    for runner, speculative in lines:
        argv = _argv(dirs, runner, speculative)
        theirs = sglang(dirs, argv)
        code, said = dc.graphfit(dirs["target"], argv, True)
        refused.append(theirs is not None)
        named = theirs is None or "lora_hook" not in said or "not supported" in theirs
        if (theirs is None) != (code == 0) or not named:
            wrong.append(f"{runner} speculative={speculative}: SGLang {theirs}; graphfit "
                         f"{code} {said}")
    assert not wrong, "\n".join(wrong)
    return refused


def test_fixed_lines_agree(dirs: dict[str, Path]) -> None:
    lines = [("lora_triton", True), ("lora_marlin", True), ("triton", True),
             ("lora_triton", False)]
    # not vacuous: the lora_* draft runners are refused on a speculative line only
    assert _compare(dirs, lines) == [True, True, False, False]


def test_drawn_lines_agree(dirs: dict[str, Path]) -> None:
    rng = random.Random(63)
    _compare(dirs, [(rng.choice(RUNNERS), rng.random() < 0.7) for _ in range(4)])
