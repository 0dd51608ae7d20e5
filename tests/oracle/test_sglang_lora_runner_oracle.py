"""graphfit == SGLang 0.5.23 on the LoRA start-up checks of `check_server_args` (issue 23,
s65d; graphfit.planner.engines.sglang_lora_runner): `--moe-runner-backend lora_*` without
LoRA, without `--lora-backend triton_v2`, beside attention DP / TBO, an unsupported
quantization, an a2a backend or EPLB; LoRA without `--lora-paths` nor rank and targets.
SGLang: its resolution, then its own `check_server_args` (tests.oracle.
sglang_lora_runner_oracle); graphfit: its CLI on the pasted line. s66l: the rest of
check_lora_server_args (`CHECKS`, `draw_checks`), each refusal graphfit names at SGLang's
line."""

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


T2 = ("--lora-backend", "triton_v2")
EAGLE = ("--speculative-algorithm", "EAGLE", "--speculative-draft-model-path", lro.DRAFT)
LIMITS = "SGLANG_EXPERIMENTAL_LORA_OPTI"
CHECKS: list[tuple[dict[str, str], tuple[str, ...], str | None]] = [
    # (the line's environment, the line after --tp-size 2, lora_hook.py:LINES graphfit names)
    ({}, ("--max-loras-per-batch", "0"), "36"),
    ({}, (*OK, "--enable-pdmux"), "20-30"),
    ({LIMITS: "1"}, OK, "20-30"),
    ({}, (*OK, "--enable-lora-overlap-loading", "--max-loaded-loras", "17"), "61-70"),
    ({}, (*OK, "--enable-lora-overlap-loading", "--max-loaded-loras", "16"), None),
    ({}, (*OK[:5], "--speculative-algorithm", "STANDALONE", "--speculative-draft-model-path",
          lro.DRAFT), "252-264"),
    ({}, (*OK[:5], *EAGLE), None),
    ({"SGLANG_RAGGED_VERIFY_MODE": "cap-accept"}, (*OK[:5], "--speculative-algorithm", "DSPARK",
                                                  "--speculative-draft-model-path",
                                                  lro.DSPARK), "271-276"),
    ({}, (*OK[:5], *EAGLE, "--speculative-adaptive"), "277-282"),
    ({}, (*OK[:5], *EAGLE, "--speculative-moe-runner-backend", "experimental_sgl_trtllm"),
     "283-289"),
    ({"SGLANG_ENABLE_OVERLAP_PLAN_STREAM": "yes"}, (*OK[:5], *EAGLE), "290-295"),
    ({"SGLANG_ENABLE_OVERLAP_PLAN_STREAM": "yes"}, OK[:5], None),  # no speculation
    ({}, (*OK[:4], "all", "q_proj"), "146-149"),
    ({}, (*OK[:4], "all", "all"), None),
    ({}, (*OK[:5], "--max-loaded-loras", "7"), "158-161"),
    ({}, ("--lora-paths", "a=/a", "b=/b", "c=/c", "--max-loras-per-batch", "2",
          "--max-loaded-loras", "2"), "162-165"),
    ({}, (*OK[:5], "--lora-drain-wait-threshold", "-1"), "176-178"),
    # the order: the V2 check before overlap loading, the speculative check before the targets
    ({}, (*OK, "--enable-pdmux", "--enable-lora-overlap-loading"), "20-30"),
    ({}, (*OK[:4], "all", "q_proj", "--speculative-algorithm", "STANDALONE",
          "--speculative-draft-model-path", lro.DRAFT), "252-264"),
]


def _checks_wrong(target: Path, only: str = "") -> list[str]:
    """The CHECKS lines (those holding `only`) where graphfit and SGLang part."""
    wrong = []
    for env, argv, where in [c for c in CHECKS if not only or only in c[1]]:
        line = lro.filled(target, ("--tp-size", "2", *argv))
        theirs, at_check = lro.sglang(target, line, env)
        code, said = lro.graphfit(target, line, env)
        if (lro.verdict(theirs, at_check, code, said) != "agree"
                or (where is None) != (theirs is None)
                or (where is not None and (not at_check or f"lora_hook.py:{where}" not in said))):
            wrong.append(f"{env} {argv}: SGLang {theirs}; graphfit {code} {said}")
    return wrong


def test_s66l_fixed_lines_agree(target: Path) -> None:
    wrong = _checks_wrong(target)
    assert not wrong, "\n".join(wrong)


def test_s66l_drawn_lines_agree(target: Path) -> None:
    rng = random.Random(66)
    wrong = []
    for _ in range(4):
        env, argv = lro.draw_checks(rng)
        said, line = lro.compare(target, argv, env)
        if said != "agree":
            wrong.append(f"{said}: {line}")
    assert not wrong, "\n".join(wrong)


def test_s66l_planted_speculative_check_is_caught(target: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A plant: the speculative compatibility check off is caught."""
    monkeypatch.setattr(sglang_lora_runner, "speculative_problem", lambda config: None)
    assert len(_checks_wrong(target, "--speculative-algorithm")) >= 5


# s67l: LoRA beside a Gemma 4 assistant draft (promoted to FROZEN_KV_MTP), `--lora-paths`
# values of every shape from a config file, the CLI action's JSON items
FROZEN = ("--speculative-num-steps", "3", "--speculative-eagle-topk", "1",
          "--speculative-num-draft-tokens", "4", "--speculative-draft-model-path", lro.FROZEN)
S67L_LINES: list[tuple[tuple[str, ...], str | None]] = [
    # (the line after --tp-size 2, the lines graphfit names: lora_hook.py's, or the action's)
    ((*OK[:5], "--speculative-algorithm", "FROZEN_KV_MTP", *FROZEN), "lora_hook.py:252-264"),
    ((*OK[:5], "--speculative-algorithm", "EAGLE", *FROZEN), "lora_hook.py:252-264"),
    (("--lora-paths", "a=/a", "--speculative-algorithm", "NEXTN", *FROZEN),
     "lora_hook.py:252-264"),
    (("--speculative-algorithm", "FROZEN_KV_MTP", *FROZEN), None),  # no LoRA: planned
    (("--lora-paths", '{"lora_name": "a"}'), "argparse_actions.py:17-20"),
    (("--lora-paths", "{a=/a}"), "argparse_actions.py:16"),
    (("--lora-paths", ' {"lora_name": "a", "lora_path": "/a", "pinned": true} '), None),
]
RANKED = {"max_lora_rank": 8, "lora_target_modules": ["all"]}
S67L_FILES: list[tuple[dict[str, object], str | None]] = [
    # (a config file's SGLang keys, the lora_hook.py lines graphfit names)
    ({"lora_paths": [1]}, "107-111"),
    ({"lora_paths": ["a=/a", None]}, "107-111"),
    ({"lora_paths": [{"lora_name": "a"}]}, "96-98"),
    ({"lora_paths": "a=/a"}, "132-136"),
    ({"enable_lora": True, **RANKED, "lora_paths": ""}, "132-136"),
    ({"lora_paths": ""}, None),  # LoRA stays off: nothing is parsed
    ({"enable_lora": False, "lora_paths": [1], "max_loaded_loras": 0}, None),  # off: ignored
    ({"enable_lora": False, "lora_paths": ["a=/a"], "moe_runner_backend": "lora_triton"},
     "200-203"),  # the runner check still runs, and finds LoRA off
    ({"lora_paths": [{"lora_name": "a", "lora_path": 3, "pinned": True}, "b"]}, None),
    ({"lora_paths": {"a": "/a", "b": 2}}, None),
    # the order: the per-batch assert and the speculative check before the parse, the
    # target list after it
    ({"lora_paths": [1], "max_loras_per_batch": 0}, "36"),
    ({"lora_paths": [1], "speculative_algorithm": "STANDALONE",
      "speculative_draft_model_path": lro.DRAFT}, "252-264"),
    ({"lora_paths": [1], "max_lora_rank": 8, "lora_target_modules": ["all", "q_proj"]},
     "107-111"),
]


def _s67l_wrong(target: Path) -> list[str]:
    """The S67L_LINES and S67L_FILES cases where graphfit and SGLang part (or graphfit names
    another line than SGLang's check)."""
    wrong = []
    for argv, where in S67L_LINES:
        line = lro.filled(target, ("--tp-size", "2", *argv))
        theirs, _ = lro.sglang(target, line)
        code, said = dc.graphfit(target, line, True)
        if ((theirs is None) != (code == 0) or (where is None) != (theirs is None)
                or (where is not None and where not in said)):
            wrong.append(f"{argv}: SGLang {theirs}; graphfit {code} {said}")
    return wrong + _files_wrong(target, S67L_FILES)


def _files_wrong(target: Path, files: list[tuple[dict[str, object], str | None]]
                 ) -> list[str]:
    """The config files where graphfit and SGLang part (or graphfit names another line of
    lora_hook.py than SGLang's check)."""
    wrong = []
    for data, lines in files:
        data = {k: str(target) if v == lro.DRAFT else v for k, v in data.items()}
        theirs, at_check = lro.sglang_file(target, data)
        code, said = lro.graphfit_file(target, data)
        if ((theirs is None) != (code == 0) or (lines is None) != (theirs is None)
                or (lines is not None and (not at_check
                                           or f"lora_hook.py:{lines}" not in said))):
            wrong.append(f"{data}: SGLang {theirs}; graphfit {code} {said}")
    return wrong


def test_s67l_fixed_cases_agree(target: Path) -> None:
    wrong = _s67l_wrong(target)
    assert not wrong, "\n".join(wrong)


# s68l: `enable_lora` as a Python caller's ServerArgs holds it, read by Python's truth
# (lora_hook.py:39-50): the string "false" (or "no") is on, 0, "" or [] off
S68L_FILES: list[tuple[dict[str, object], str | None]] = [
    ({"enable_lora": "false"}, "152-155"),  # on: no paths needs rank and targets
    ({"enable_lora": "false", "lora_paths": "a=/a"}, "132-136"),  # on: the paths parsed
    ({"enable_lora": "no", **RANKED, "lora_paths": ["a=/a"]}, None),
    ({"enable_lora": "false", **RANKED}, None),
    ({"enable_lora": 0, "lora_paths": [1]}, None),  # off: the paths ignored
    ({"enable_lora": "", "lora_paths": "a=/a"}, None),
    ({"enable_lora": [], "lora_paths": ["a=/a"], "moe_runner_backend": "lora_triton"},
     "200-203"),  # off: the runner check finds it so
]


def test_s68l_enable_lora_strings_agree(target: Path) -> None:
    wrong = _files_wrong(target, S68L_FILES)
    assert not wrong, "\n".join(wrong)


# s68l: the --lora-paths action's error against a later (or earlier) argparse error
S68L_ORDER = [
    ("--lora-paths", "{a=/a}", "--tp-size", "x"),  # the action's, met first
    ("--tp-size", "x", "--lora-paths", "{a=/a}"),  # argparse's, met first
    ("--lora-paths", '{"lora_name": "a"}', "--bogus-flag"),  # unrecognized: after the parse
    ("--lora-paths", "{a=/a}", "--lora-paths", "a=/a"),  # each occurrence runs the action
    ("--lora-paths", "a=/a", "{a=/a}", "--tp-size"),  # a missing value: after the action
    ("--lora-pa", "{a=/a}", "--kv-cache-dtype", "nope"),  # a prefix spelling, same action
]


@pytest.mark.parametrize("argv", S68L_ORDER, ids=" ".join)
def test_s68l_first_error_as_sglang(target: Path, argv: tuple[str, ...]) -> None:
    said, line = lro.compare_order(target, ("--tp-size", "2", *argv))
    assert said == "agree", line


def test_s68l_drawn_order_agrees(target: Path) -> None:
    rng = random.Random(68)
    lines = [lro.compare_order(target, lro.draw_order(rng)) for _ in range(6)]
    wrong = [line for said, line in lines if said != "agree"]
    assert not wrong, "\n".join(wrong)


# s68l: the V2 modes check on ROCm (SGLang under its platform override on an MI300X)
S68L_ROCM = [
    ("--enable-lora", "--max-lora-rank", "8", "--lora-target-modules", "all",
     "--lora-backend", "triton_v2"),  # ROCm refused (:27)
    ("--lora-paths", "a=/a", "--lora-backend", "triton_v2", "--moe-runner-backend",
     "lora_triton"),  # ROCm refused through the runner check (:208)
    ("--lora-paths", "a=/a", "--lora-backend", "triton_v2", "--attn-dp-size", "2",
     "--enable-dp-lm-head"),  # attention DP refused before ROCm
    ("--lora-paths", "a=/a"),  # csgmv: no V2 check, planned
    ("--lora-backend", "triton_v2"),  # LoRA off: no check, planned
]


@pytest.mark.parametrize("argv", S68L_ROCM, ids=" ".join)
def test_s68l_rocm_v2_modes(target: Path, argv: tuple[str, ...]) -> None:
    said, line = lro.compare_rocm(target, ("--tp-size", "2", *argv))
    assert said == "agree", line


def test_s68l_rocm_only_on_an_amd_name(target: Path) -> None:
    """The same V2 line on the fake CUDA device: SGLang and graphfit (a figure in GiB) start
    it, so the refusal above is the platform's."""
    said, line = lro.compare_rocm(target, ("--tp-size", "2", *S68L_ROCM[0]), "80")
    assert said == "agree" and "SGLang None" in line, line


def test_s68l_rocm_planted(target: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An AMD name read as telling no platform (main before s68l) is caught."""
    from graphfit.inputs import gpus

    monkeypatch.setattr(gpus, "gpu_rocm", lambda value: None)
    said, line = lro.compare_rocm(target, ("--tp-size", "2", *S68L_ROCM[0]))
    assert said == "differ", line


def test_s67l_drawn_cases_agree(target: Path) -> None:
    rng = random.Random(67)
    wrong = [f"{said}: {line}" for said, line in (lro.draw_s67l(rng, target) for _ in range(4))
             if said != "agree"]
    assert not wrong, "\n".join(wrong)


def test_s67l_refusals_are_one_error_line(target: Path) -> None:
    """Each new refusal is one `error:` line of at most 200 characters, exit 2."""
    from tests.helpers import run_cli

    for argv in (("--lora-paths", '{"lora_name": "' + "x" * 300 + '"}'),
                 ("--lora-paths", "{" + "x" * 300 + "}")):
        code, _, err = run_cli(["plan", "--gpu-memory-gb", "80", "--", "sglang", "serve",
                                "--model-path", str(target), "--tp-size", "2", *argv])
        lines = err.strip().splitlines()
        assert code == 2 and len(lines) == 1 and len(lines[0]) <= 200, err
    code, said = lro.graphfit_file(target, {"lora_paths": [{"lora_name": "y" * 300}]})
    assert code == 2 and said.startswith("error:") and len(said) <= 200, said
