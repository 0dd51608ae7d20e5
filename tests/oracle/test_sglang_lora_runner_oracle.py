"""graphfit == SGLang 0.5.23 on the LoRA start-up checks of `check_server_args` (issue 23,
s65d; graphfit.planner.engines.sglang_lora_runner): `--moe-runner-backend lora_*` without
LoRA, without `--lora-backend triton_v2`, beside attention DP / TBO, an unsupported
quantization, an a2a backend or EPLB; LoRA without `--lora-paths` nor rank and targets.
SGLang: its resolution, then its own `check_server_args` (tests.oracle.
sglang_lora_runner_oracle); graphfit: its CLI on the pasted line."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.planner.engines import sglang_lora_runner  # noqa: E402
from tests.oracle import sglang_lora_runner_oracle as lro  # noqa: E402
from tests.oracle import test_sglang_deepep_class_oracle as dc  # noqa: E402

OK = ("--enable-lora", "--max-lora-rank", "8", "--lora-target-modules", "all",
      "--lora-backend", "triton_v2")
FIXED = [
    # (line after --model-path, SGLang refuses, graphfit's refusal names lora_hook.py:LINE)
    (("--moe-runner-backend", "lora_triton"), "200-203"),
    # the line test_sglang_deepep_class_oracle compared at the build before s65d
    (("--ep-size", "2", "--moe-a2a-backend", "deepep", "--moe-runner-backend", "lora_triton"),
     "200-203"),
    (("--moe-runner-backend", "lora_triton", "--enable-lora"), "152-155"),
    (("--moe-runner-backend", "lora_marlin", "--enable-lora", "--max-lora-rank", "8",
      "--lora-target-modules", "all"), "204-207"),
    (("--moe-runner-backend", "lora_triton", "--lora-paths", "a=/x", "--lora-backend",
      "triton_v2"), None),
    (("--moe-runner-backend", "lora_triton", *OK, "--quantization", "modelopt_fp4"), "215-219"),
    (("--moe-runner-backend", "lora_marlin", *OK, "--quantization", "modelopt_fp4"), None),
    (("--moe-runner-backend", "lora_cutedsl", *OK, "--attn-dp-size", "2",
      "--enable-dp-attention"), "20-30"),
    (("--moe-runner-backend", "lora_triton", *OK, "--ep-size", "2", "--moe-a2a-backend",
      "deepep"), "220-224"),
    (("--moe-runner-backend", "lora_triton", *OK, "--ep-size", "2",
      "--ep-num-redundant-experts", "2"), "229-237"),
    (("--moe-runner-backend", "triton", *OK, "--ep-size", "2", "--moe-a2a-backend", "deepep",
      "--enable-two-batch-overlap"), "20-30"),
    (("--moe-runner-backend", "triton", "--enable-lora", "--max-lora-rank", "8"), "152-155"),
]


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return lro.model(tmp_path_factory.mktemp("lora-runner"))


def _check(target: Path, lines: list[tuple[str, ...]]) -> list[str]:
    wrong = []
    for argv in lines:
        said, line = lro.compare(target, ("--tp-size", "2", *argv))
        if said != "agree":
            wrong.append(f"{said}: {line}")
    return wrong


def test_fixed_lines_agree(target: Path) -> None:
    wrong = []
    for argv, where in FIXED:
        line = ("--tp-size", "2", *argv)
        theirs, at_check = lro.sglang(target, line)
        code, said = dc.graphfit(target, line, True)
        # not vacuous: each refusal is SGLang's LoRA check, the one graphfit names
        if (lro.verdict(theirs, at_check, code, said) != "agree"
                or (where is None) != (theirs is None)
                or (where is not None and (not at_check or f"lora_hook.py:{where})" not in said))):
            wrong.append(f"{argv}: SGLang {theirs}; graphfit {code} {said}")
    assert not wrong, "\n".join(wrong)


def test_drawn_lines_agree(target: Path) -> None:
    rng = random.Random(65)
    assert not _check(target, [lro.draw(rng)[2:] for _ in range(6)])


def test_planted_order_is_caught(target: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A plant: the rule off (graphfit plans what SGLang refuses) is caught."""
    monkeypatch.setattr(sglang_lora_runner, "problem", lambda config: None)
    assert _check(target, [FIXED[0][0], FIXED[4][0]])
