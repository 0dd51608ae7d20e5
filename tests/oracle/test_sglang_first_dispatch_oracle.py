"""graphfit == SGLang 0.5.23 on NixlEP / Mooncake token budgets of 0 and below (issue 23, s60k;
graphfit.planner.engines.sglang_first_dispatch).

SGLang, in two steps, each its own code:
1. the model build: its resolution of the line, then Qwen3-MoE's own MoE block on the meta
   device (tests.oracle.test_sglang_deepep_class_oracle.sglang) with the line's VAR=value in
   os.environ. A budget of 0 or below passes the dispatcher's `<= 1024` assert.
2. the first dispatch: the dispatcher's `_get_buffer` calls `EPBuffer.get_ep_buffer` /
   `NixlEPBuffer.get_nixl_buffer` with the budget it read (token_dispatcher/mooncake.py:
   294-302, nixl.py:431-439). That classmethod is run here on the line's budget, in
   low_latency mode. Glue: a fresh `buffers` dict for `get_resources()`; nixl's rank, world
   size and `max_ep_size`; the packages' Buffer is the oracle's stand-in, which fails with
   the word "glue" once SGLang hands the budget to it.

graphfit must then answer the same way:
- it refuses (naming the variable and the `!= -1` site) where SGLang's own assert fires;
- it says "not modelled" where SGLang hands the value to the package;
- it plans where SGLang never reads the variable (no such dispatcher: a dense model,
  another backend). Before s60k graphfit refused every negative value there.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_stubs  # noqa: E402
from tests.oracle import test_sglang_deepep_class_oracle as dc  # noqa: E402
from tests.oracle import test_sglang_dispatch_budget_oracle as db  # noqa: E402
from tests.oracle.environ_patch import patched_environ  # noqa: E402
from tests.oracle.sglang_first_dispatch_oracle import first_buffer  # noqa: E402

VARIABLE = {"mooncake": db.MOONCAKE, "nixl": db.NIXL}


def _argv(backend: str, mode: str = "low_latency") -> tuple[str, ...]:
    return ("--tp-size", "2", "--ep-size", "2", "--moe-a2a-backend", backend,
            "--deepep-mode", mode)


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    so.oracle()
    return sglang_stubs.write_moe_model_dir(tmp_path_factory.mktemp("first") / "moe")


def expected(backend: str, tokens: int) -> str:
    """graphfit's answer class where SGLang's model build passes: "refuse" where SGLang's own
    assert fires at the first dispatch, "not modelled" where the package takes the value,
    "plan" where it is positive (the buffer is the package's too, and not planned)."""
    if tokens > 0:
        return "plan"
    return {"assert": "refuse", "package": "not modelled"}[first_buffer(backend, tokens)]


def _graphfit_class(said: tuple[int, str], name: str) -> str:
    code, line = said
    if code == 0:
        return "plan"
    if "not modelled" in line:
        return "not modelled"
    return "refuse" if name in line and "_dispatcher/" in line and " ... " not in line else line


LINES = (  # (backend, variable's value)
    ("mooncake", -1), ("nixl", -1), ("nixl", -7),
)


def test_low_latency_budgets_agree(model: Path) -> None:
    wrong: list[str] = []
    seen = []
    for backend, tokens in LINES:
        name = VARIABLE[backend]
        argv = _argv(backend)
        with patched_environ({name: str(tokens)}):
            built = dc.sglang(model, argv, True, shared_build=False)
        want = "refuse" if built is not None else expected(backend, tokens)
        got = _graphfit_class(db.graphfit(model, f"{name}={tokens}", argv), name)
        seen.append(want)
        if got != want:
            wrong.append(f"{name}={tokens} {backend}: SGLang {built or want}; graphfit {got}")
    assert not wrong, "\n".join(wrong)
    # not vacuous: SGLang builds every line; its assert fires for -1, the package takes -7
    assert seen == ["refuse", "refuse", "not modelled"], seen


def test_no_dispatcher_never_reads_the_budget(model: Path) -> None:
    """Lines that make no NixlEP / Mooncake dispatcher: SGLang builds them whatever the
    variable says, and graphfit plans them (before s60k it refused every negative value).
    In auto mode the dispatcher's normal-mode raise comes first, as for any budget."""
    for backend, mode, name in (("deepep", "low_latency", db.NIXL),
                                ("none", "auto", db.MOONCAKE)):
        argv = _argv(backend, mode)
        with patched_environ({name: "-1"}):
            assert dc.sglang(model, argv, True, shared_build=False) is None
        assert db.graphfit(model, f"{name}=-1", argv) == (0, "")
    argv = _argv("nixl", "auto")
    with patched_environ({db.NIXL: "-1"}):
        theirs = dc.sglang(model, argv, True, shared_build=False)
    said = db.graphfit(model, f"{db.NIXL}=-1", argv)
    assert theirs is not None and "NotImplementedError" in theirs, theirs
    assert said[0] == 2 and "nixl.py:481-482" in said[1], said


def test_a_moe_draft_dispatcher(tmp_path_factory: pytest.TempPathFactory) -> None:
    """A Qwen3-MoE EAGLE draft under `--speculative-moe-a2a-backend nixl` (the target makes
    no dispatcher): SGLang's draft build passes with -1, whose first dispatch is SGLang's
    assert."""
    from tests.oracle import test_sglang_draft_dispatch_oracle as dd

    dirs = dd.dirs.__wrapped__(tmp_path_factory)  # type: ignore[attr-defined]
    argv = dd._argv(dirs["qwen3"], "nixl", "low_latency")
    for tokens, want in ((-1, "refuse"),):
        with patched_environ({db.NIXL: str(tokens)}):
            theirs, _ = dd._answers(dirs, ("qwen3", "nixl", "low_latency", ()))
        assert theirs is None, theirs
        assert expected("nixl", tokens) == want
        said = db.graphfit(dirs["target"], f"{db.NIXL}={tokens}", argv)
        assert _graphfit_class(said, db.NIXL) == want and "the draft's nixl" in said[1], said


def test_the_assert_is_sglangs() -> None:
    """The buffer maker's own answers, unit by unit: -1 is its bare assert, other values
    reach the package for both backends."""
    assert [first_buffer(b, t) for b in ("mooncake", "nixl") for t in (-1, 0, -3, 64)] == [
        "assert", "package", "package", "package"] * 2
