"""graphfit == SGLang 0.5.23 on the expert-parallel start-up rules read on `--ep-size` as
given: `--moe-dp-size`'s (arg_groups/parallel_hook.py:170-192), the PD role switch's
(pd_disaggregation_hook.py:165-196), GPT-OSS's Triton kernel runner's (model_hook.py:
568-571) and the MoE runners' (moe_hook.py:89-105, 161-167), over generated whole lines
(tests.oracle.sglang_ep_rules_cases): SGLang's own resolution against graphfit's CLI."""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.planner.engines import sglang_ep_rules as rules  # noqa: E402
from graphfit.planner.engines import sglang_eplb_checks as eplb  # noqa: E402
from tests.oracle import sglang_ep_rules_cases as cases  # noqa: E402

COUNT, SEED = 160, 7


@pytest.fixture(scope="module")
def dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return cases.model_dirs(tmp_path_factory.mktemp("ep-rules"))


def _grid() -> list[cases.Case]:
    """The runners whose ep rules only a2a lines tell apart, at (ep, tp) in (1, 4), (2, 4),
    (4, 4), with and without an a2a backend: the kernel runners on the MoE model, the Triton
    kernel runner on GPT-OSS."""
    out = []
    for model, runner, quant in (("moe", "flashinfer_cutlass", None), ("moe", "cutlass", "fp8"),
                                 ("gptoss", "triton_kernel", None)):
        for a2a in ("none", "deepep"):
            for ep in (1, 2, 4):
                out.append(cases.Case(model, 4, ep, 1, 1, 1, a2a, runner, "null", False, quant))
    return out


@functools.cache
def _lines(root: str) -> tuple[tuple[cases.Case, str | None], ...]:
    """(case, SGLang's refusal or None) per drawn line and grid line, SGLang's answers
    computed once (the plants change graphfit only)."""
    rng = random.Random(SEED)
    dirs = {name: Path(root) / name for name in ("moe", "gptoss")}
    drawn = [cases.draw_elastic(rng, cases.draw(rng)) for _ in range(COUNT)] + _grid()
    return tuple((case, cases.sglang(case, dirs[case.model])) for case in drawn)


def _wrong(dirs: dict[str, Path]) -> list[str]:
    root = str(dirs["moe"].parent)
    wrong = []
    for case, theirs in _lines(root):
        ours = cases.graphfit(case, dirs[case.model])
        if cases.compare(ours, theirs) != "agree":
            wrong.append(f"{case.label()}: graphfit {ours}; SGLang {theirs}")
    return wrong


def test_every_generated_line_agrees(dirs: dict[str, Path]) -> None:
    """Each drawn or grid line is refused by both or started by both, and the lines reach
    every rule (SGLang's own messages) as well as lines that start."""
    wrong = _wrong(dirs)
    assert not wrong, "\n".join(wrong[:10])
    answers = _lines(str(dirs["moe"].parent))
    messages = " ".join(str(theirs) for _, theirs in answers)
    for rule in ("tp_size must be divisible by moe_dp_size",
                 "ep_size * moe_dp_size must be less than or equal to tp_size",
                 "PP is not supported with context parallelism",
                 "attn_cp_size != moe_dp_size is only supported",
                 "expert parallelism (--ep-size",
                 "Triton kernel MoE is only supported when ep_size == 1",
                 "must be 1 or the same as the tensor parallel size",
                 "only supported with ep_size == 1"):
        assert rule in messages, rule
    assert sum(theirs is None for _, theirs in answers) >= len(answers) // 5


def _spanning(m: pytest.MonkeyPatch) -> None:
    # the a2a backend's ep_size = tp_size applied before the hooks that run ahead of it
    original = rules.check

    def check(config: object, runner: str) -> None:
        a2a = getattr(config, "moe_a2a_backend", None) or "none"
        tp = getattr(config, "tp_size", 1)
        ep = eplb.resolved_ep_size(getattr(config, "ep_size", 1), tp, a2a)
        rules.check_moe_dp(getattr(config, "moe_dp_size", 1), ep, tp,
                           getattr(config, "pp_size", 1), getattr(config, "attn_cp_size", 1))
        original(config, runner)  # type: ignore[arg-type]
    m.setattr(rules, "check", check)


def _runner_ep_spanning(m: pytest.MonkeyPatch) -> None:
    # the runner asserts on the spanning ep_size (the rule before this lane)
    original = eplb.check_runner_ep
    m.setattr(eplb, "check_runner_ep", lambda runner, quant, ep, tp, a2a: original(
        runner, quant, eplb.resolved_ep_size(ep, tp, a2a), tp, a2a))


def _moe_dp_pp_forgotten(m: pytest.MonkeyPatch) -> None:
    original = rules.check_moe_dp
    m.setattr(rules, "check_moe_dp", lambda moe_dp, ep, tp, pp, cp: original(
        moe_dp, ep, tp, 1, cp))


def _moe_dp_cp_forgotten(m: pytest.MonkeyPatch) -> None:
    original = rules.check_moe_dp
    m.setattr(rules, "check_moe_dp", lambda moe_dp, ep, tp, pp, cp: original(
        moe_dp, ep, tp, pp, moe_dp))


def _moe_dp_le_only(m: pytest.MonkeyPatch) -> None:
    # ep x moe_dp <= tp kept, == tp forgotten
    original = rules.check_moe_dp
    m.setattr(rules, "check_moe_dp", lambda moe_dp, ep, tp, pp, cp: original(
        moe_dp, 1 if ep * moe_dp < tp else ep, tp, pp, cp))


def _no_role_switch(m: pytest.MonkeyPatch) -> None:
    m.setattr(rules, "check_role_switch", lambda *args: None)


def _no_gpt_oss(m: pytest.MonkeyPatch) -> None:
    m.setattr(rules, "check_gpt_oss", lambda *args: None)


PLANTS: dict[str, Callable[[pytest.MonkeyPatch], None]] = {
    "moe_dp on the spanning ep_size": _spanning,
    "runner asserts on the spanning ep_size": _runner_ep_spanning,
    "moe_dp's PP clause forgotten": _moe_dp_pp_forgotten,
    "moe_dp's attention-CP clause forgotten": _moe_dp_cp_forgotten,
    "moe_dp's equality clause forgotten": _moe_dp_le_only,
    "no role-switch ep check": _no_role_switch, "no GPT-OSS triton_kernel check": _no_gpt_oss,
}


@pytest.mark.parametrize("plant", sorted(PLANTS))
def test_a_planted_error_is_caught(plant: str, dirs: dict[str, Path],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Each rule, broken on purpose, makes some drawn line differ from SGLang."""
    _lines(str(dirs["moe"].parent))
    PLANTS[plant](monkeypatch)
    assert _wrong(dirs), plant
