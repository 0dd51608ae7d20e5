"""graphfit == SGLang 0.5.23 on the NixlEP / Mooncake dispatchers' token budget assert
(`num_max_dispatch_tokens_per_rank <= 1024`, token_dispatcher/nixl.py:228-233,
mooncake.py:156-162; graphfit.planner.engines.sglang_dispatch_budget; issue 23, s55e).

SGLang: its own resolution of the line, then the model's own MoE block (Qwen3-MoE) or, for a
draft line, the draft model the EAGLE worker builds, on the meta device
(tests.oracle.test_sglang_deepep_class_oracle.sglang, without the shared dispatcher step),
with the line's VAR=value words set in os.environ as SGLang reads them (EnvInt /
get_int_env_var); JIT DeepGEMM on, so DeepEPMoE's own asserts stay out. graphfit: its CLI on
the pasted line, VAR=value words included. Each line must be refused by both (graphfit naming
the variable exactly where SGLang's answer is the budget assert) or started by both; the
shared step (tests.oracle.sglang_mooncake_build.failure) must answer as the block does.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_stubs  # noqa: E402
from tests.oracle import test_sglang_deepep_class_oracle as dc  # noqa: E402
from tests.oracle import test_sglang_draft_dispatch_oracle as dd  # noqa: E402
from tests.oracle.environ_patch import patched_environ  # noqa: E402
from tests.oracle.sglang_mooncake_build import BUDGET_SITES  # noqa: E402

NIXL = "SGLANG_NIXL_EP_NUM_MAX_DISPATCH_TOKENS_PER_RANK"
MOONCAKE = "SGLANG_MOONCAKE_EP_NUM_MAX_DISPATCH_TOKENS_PER_RANK"

TARGET = (  # (backend, --deepep-mode, the variable, its value)
    ("mooncake", "low_latency", MOONCAKE, "1025"),
    ("mooncake", "low_latency", MOONCAKE, "1024"),
    ("mooncake", "auto", MOONCAKE, "4096"),  # the low-latency half asserts before the raise
    ("mooncake", "normal", MOONCAKE, "4096"),  # no low-latency half: NotImplementedError
    ("nixl", "low_latency", NIXL, "2048"),
    ("nixl", "low_latency", MOONCAKE, "2048"),  # the other dispatcher's variable
    ("nixl", "auto", NIXL, "many"),  # unparsable: the default, 128 (environ.py:78-86)
    ("mooncake", "low_latency", MOONCAKE, "x"),  # unparsable: 128 (utils/common.py:1449-1452)
    ("nixl", "low_latency", NIXL, "1024"),
)
DRAFT = (  # (backend under --speculative-moe-a2a-backend, mode, variable, value)
    ("nixl", "low_latency", NIXL, "2048"),
    ("mooncake", "auto", MOONCAKE, "2000"),
    ("mooncake", "low_latency", NIXL, "2000"),
)


def graphfit(model: Path, env: str, argv: tuple[str, ...]) -> tuple[int, str]:
    """(exit status, the last `error:` line) of graphfit's CLI on the pasted line."""
    from graphfit.cli.application import main

    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(["plan", "--gpu-memory-gb", "80", "--", env, "sglang", "serve",
                  "--model-path", str(model), *argv])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    errors = [ln for ln in err.getvalue().splitlines() if ln.startswith("error:")]
    return code, errors[-1] if errors else ""


def _differs(theirs: str | None, ours: tuple[int, str], name: str) -> str | None:
    """None where both answer alike: both start, or both refuse and graphfit names the
    variable and the dispatcher's file, in one unelided error line, exactly where SGLang's
    answer is the budget assert."""
    budget = theirs is not None and any(site in theirs for site in BUDGET_SITES)
    whole = name in ours[1] and "_dispatcher/" in ours[1] and " ... " not in ours[1]
    if (theirs is None) != (ours[0] == 0) or budget != whole:
        return f"SGLang {theirs and theirs[:140]}; graphfit exit {ours[0]} {ours[1][:160]}"
    return None


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    so.oracle()
    return sglang_stubs.write_moe_model_dir(tmp_path_factory.mktemp("budget") / "moe")


def test_target_budget_lines_agree(model: Path) -> None:
    wrong, answers = [], []
    for backend, mode, name, value in TARGET:
        argv = ("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", backend,
                "--deepep-mode", mode)
        with patched_environ({name: value}):
            theirs = dc.sglang(model, argv, True, shared_build=False)
        answers.append(theirs)
        said = _differs(theirs, graphfit(model, f"{name}={value}", argv), name)
        if said:
            wrong.append(f"{backend} {mode} {name}={value}: {said}")
    for index in (0, 2, 3):  # the shared step answers as the block does
        backend, mode, name, value = TARGET[index]
        with patched_environ({name: value}):
            r = so.resolve(("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", backend,
                            "--deepep-mode", mode), model=str(model))
        shared = r.text if isinstance(r, so.Rejected) else None
        if (shared is None) != (answers[index] is None) or (
                shared and answers[index] and ("AssertionError" in shared)
                != ("AssertionError" in answers[index])):
            wrong.append(f"shared step {shared} where the block says {answers[index]}")
    assert not wrong, "\n".join(wrong)
    # not vacuous: the budget assert on lines 0, 2, 4; the normal-mode raise on 3 and 6
    kinds = [None if a is None else "assert" if "AssertionError" in a else "raise"
             for a in answers]
    assert kinds == ["assert", None, "assert", "raise", "assert", None, "raise", None, None], (
        answers)


def test_draft_budget_lines_agree(tmp_path_factory: pytest.TempPathFactory) -> None:
    dirs = dd.dirs.__wrapped__(tmp_path_factory)  # type: ignore[attr-defined]
    wrong, answers = [], []
    for backend, mode, name, value in DRAFT:
        argv = dd._argv(dirs["qwen3"], backend, mode)
        with patched_environ({name: value}):
            theirs, _ = dd._answers(dirs, ("qwen3", backend, mode, ()))
            shared = so.resolve(argv, model=str(dirs["target"]))
        answers.append(theirs)
        said = _differs(theirs, graphfit(dirs["target"], f"{name}={value}", argv), name)
        if said:
            wrong.append(f"draft {backend} {mode} {name}={value}: {said}")
        if isinstance(shared, so.Rejected) != (theirs is not None):
            wrong.append(f"draft {backend} {mode}: shared step {getattr(shared, 'text', '')}")
    assert not wrong, "\n".join(wrong)
    # not vacuous: the draft's dispatcher asserts on the first two; the third's variable is
    # the other dispatcher's, and low_latency builds
    assert [a is not None and "AssertionError" in a for a in answers] == [True, True, False], (
        answers)


def _live(target: Path, argv: tuple[str, ...], environ: dict[str, str]) -> tuple[int, str]:
    """graphfit's live check (graphfit.integrations.sglang.check_server_args, the path
    `from_sglang` takes) on SGLang's own resolved ServerArgs (resolution only: the model
    build is what is compared) with `environ` as the server's environment."""
    from graphfit.integrations import sglang as gs
    from graphfit.planner.core.errors import GraphfitError

    with dc._own_build_only():
        r = so.resolve(argv, model=str(target))
    assert isinstance(r, so.Resolved), r.text
    try:  # the ServerArgs carry no request count before the scheduler sizes it
        gs.check_server_args(r.record, gpu_memory_gb=80, max_num_seqs=32, environ=environ)
    except GraphfitError as exc:
        return 2, str(exc)
    return 0, ""


def _config_file(target: Path, argv: tuple[str, ...], root: Path) -> tuple[int, str]:
    """graphfit's CLI on its own config file holding the line's flags as SGLang's keys."""
    import json

    from tests.helpers import run_cli

    body = {"engine": "sglang", "model_path": str(target)}
    for flag, value in zip(argv[::2], argv[1::2], strict=True):
        body[flag[2:].replace("-", "_")] = int(value) if value.isdigit() else value
    path = root / f"graphfit-{len(list(root.iterdir()))}.json"
    path.write_text(json.dumps(body))
    code, _out, err = run_cli(["plan", "--gpu-memory-gb", "80", "--config", str(path)])
    errors = [ln for ln in err.splitlines() if ln.startswith("error:")]
    return code, errors[-1] if errors else ""


def test_draft_class_from_config_file_and_live(tmp_path_factory: pytest.TempPathFactory
                                               ) -> None:
    """s55e: `draft_moe_class` is read by graphfit's config file and its live check as by a
    pasted line: each answers as SGLang's draft build does (dd.CASES' first four: a
    Qwen3-MoE draft refused in auto / normal, built in low_latency, a Mixtral draft refused),
    and the live check reads the dispatcher's budget from the server's environment."""
    dirs = dd.dirs.__wrapped__(tmp_path_factory)  # type: ignore[attr-defined]
    root = tmp_path_factory.mktemp("budget-files")
    wrong, answers = [], []
    for case in dd.CASES[:4]:
        theirs, _ = dd._answers(dirs, case)
        answers.append(theirs)
        name, backend, mode, _extra = case
        argv = dd._argv(dirs[name], backend, mode)
        site = f"{backend}.py"
        for how, (code, said) in (("config file", _config_file(dirs["target"], argv, root)),
                                  ("live", _live(dirs["target"], argv, {}))):
            if (theirs is None) != (code == 0) or (theirs is not None and site not in said):
                wrong.append(f"{how} {case}: SGLang {theirs and theirs[:120]}; graphfit "
                             f"{code} {said[:160]}")
    backend, mode, name, value = DRAFT[0]  # the budget, from the live server's environment
    argv = dd._argv(dirs["qwen3"], backend, mode)
    with patched_environ({name: value}):
        theirs, _ = dd._answers(dirs, ("qwen3", backend, mode, ()))
    said = _differs(theirs, _live(dirs["target"], argv, {name: value}), name)
    if said:
        wrong.append(f"live {name}={value}: {said}")
    assert not wrong, "\n".join(wrong)
    assert [a is not None for a in answers] == [True, True, False, True], answers
