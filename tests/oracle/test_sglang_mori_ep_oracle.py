"""graphfit == SGLang 0.5.23 on MoRI lines with `SGLANG_MORI_EP_V2` / `SGLANG_MORI_RECV_BOUND`
in the environment (issue 23, s70j; tests.oracle.sglang_mori_ep): SGLang's own resolution and
runners against graphfit's plan of the same pasted line on every aspect the dense-TP oracle
compares, the runners' `global_num_tokens` entries included. Before s70j graphfit read neither
switch and kept one row where SGLang's mori runner keeps one per attention-DP rank."""

from __future__ import annotations

import random
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_moe_a2a_compare as mc  # noqa: E402
from tests.oracle import sglang_mori_ep as me  # noqa: E402

HEAD = ("--tp-size", "4", "--attn-dp-size", "2", "--enable-dp-lm-head",
        "--moe-dense-tp-size", "1")
MORI = ("--moe-a2a-backend", "mori", *HEAD)
DRAFT = ("--moe-a2a-backend", "deepep", "--deepep-mode", "low_latency", *HEAD, *me.eagle(2),
         "--speculative-moe-a2a-backend", "mori")
FIXED = [
    # the target's hook: EPv2 falls back to EPv1 unless set (moe_hook.py:777-804), so plain
    # mori with dense TP 1 <= 4 // 2 does not gather (one row)...
    MORI,
    # ... set true, or to a value SGLang cannot parse (its default, true, and is_set), EPv2
    # keeps the gather (utils/common.py:4098-4107): a row per attention-DP rank
    (f"{me.EP_V2}=1", *MORI),
    (f"{me.EP_V2}=maybe", *MORI),
    (f"{me.EP_V2}=false", *MORI),
    # the receive bound keeps it whatever EPv2 says (:4113-4123); a value it cannot parse
    # reads off
    (f"{me.RECV_BOUND}=yes", f"{me.EP_V2}=0", *MORI),
    (f"{me.RECV_BOUND}=bogus", *MORI),
    # a mori draft on a DeepEP target: no hook resolves EPv2, so unset means EPv2 and the
    # draft runners gather where the target does not; false turns it off
    DRAFT,
    (f"{me.EP_V2}=0", *DRAFT),
]


def _agree(argv: tuple[str, ...]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SGLang's EnvBool on an unparsable value
        said, line = me.verdict(argv)
    assert said == "agree", line


def _id(argv: tuple[str, ...]) -> str:
    shape = "draft" if "--speculative-moe-a2a-backend" in argv else "target"
    return " ".join((shape, *(w for w in argv if "=" in w)))


@pytest.mark.parametrize("argv", FIXED, ids=_id)
def test_fixed_lines_agree(argv: tuple[str, ...]) -> None:
    """Lines SGLang starts, planned the same on every aspect."""
    _agree(argv)


@settings(max_examples=3, deadline=None)
@given(st.integers(0, 2**16))
def test_generated_lines_agree(seed: int) -> None:
    """A mori target or a mori EAGLE draft under attention DP, switches drawn."""
    _agree(me.draw(random.Random(seed)))


def _rows(argv: tuple[str, ...]) -> dict[str, int]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runners = mc.sglang(argv).runners
    assert runners is not None
    return {name: int(run.buffers["global_num_tokens_gpu"].shape[0])
            for name, run in runners.items() if "global_num_tokens_gpu" in run.buffers}


def test_the_switches_change_what_sglang_captures() -> None:
    """Not vacuous: SGLang's own runners keep one row without the switches and two with
    either; the mori draft's runners two unset and one with EPv2 off."""
    assert _rows(FIXED[0])["target"] == 1
    assert _rows(FIXED[1])["target"] == 2 and _rows(FIXED[4])["target"] == 2
    assert _rows(DRAFT)["draft"] == 2 and _rows(FIXED[7])["draft"] == 1


def _no_mori_rule(m: pytest.MonkeyPatch) -> None:
    from graphfit.planner.engines import sglang_mori_ep

    m.setattr(sglang_mori_ep, "keeps_gather", lambda config, live: False)


def _no_hook(m: pytest.MonkeyPatch) -> None:
    from graphfit.planner.engines import sglang_mori_ep

    m.setattr(sglang_mori_ep, "target_resolves", lambda config: False)


def _hook_everywhere(m: pytest.MonkeyPatch) -> None:
    from graphfit.planner.engines import sglang_mori_ep

    m.setattr(sglang_mori_ep, "target_resolves", lambda config: True)


def _unparsable_dropped(m: pytest.MonkeyPatch) -> None:
    from graphfit.inputs import sglang_mori_env

    real = sglang_mori_env.environment
    m.setattr(sglang_mori_env, "environment", lambda environ: [
        s for s in real(environ)
        if not (s.field == "mori_ep_v2" and environ[sglang_mori_env.ENV_EP_V2].lower()
                not in ("true", "1", "yes", "y"))])


def _no_bound(m: pytest.MonkeyPatch) -> None:
    from graphfit.planner.engines import sglang_mori_ep

    m.setattr(sglang_mori_ep, "keeps_gather",
              lambda config, live: live == "mori" and sglang_mori_ep.epv2(config))


PLANTS: dict[str, tuple[Callable[[pytest.MonkeyPatch], None], tuple[str, ...]]] = {
    "neither switch read": (_no_mori_rule, FIXED[1]),
    "the receive bound not read": (_no_bound, FIXED[4]),
    "the target's hook not applied (unset means EPv2)": (_no_hook, FIXED[0]),
    "the hook's fallback applied to a mori draft": (_hook_everywhere, DRAFT),
    "an unparsable EPv2 value read as unset": (_unparsable_dropped, FIXED[2]),
}


@pytest.mark.parametrize("plant", sorted(PLANTS))
def test_a_planted_error_is_caught(plant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each rule broken on purpose: the line it decides differs from SGLang."""
    breaks, argv = PLANTS[plant]
    breaks(monkeypatch)
    mc.graphfit_cli.cache_clear()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            said, line = me.verdict(argv)
    finally:
        mc.graphfit_cli.cache_clear()
    assert said == "differ", line


# s70j: the mori hook's --deepep-mode rewrite as a MoE draft's dispatcher reads it
# (moe_hook.py:545-561): (environment, draft backend, the file SGLang's raise names or None)
DISPATCH = [
    ((f"{me.EP_V2}=1",), "mooncake", "mooncake.py"),  # EPv2: low_latency -> normal
    ((), "mooncake", None),  # EPv1 keeps low_latency
    ((f"{me.EP_V2}=yes",), "pplx", "pplx.py"),
]


@pytest.fixture(scope="module")
def drafts(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    from tests.oracle import sglang_oracle as so
    from tests.oracle import sglang_stubs

    so.oracle()
    root = tmp_path_factory.mktemp("mori-draft")
    return (str(sglang_stubs.write_moe_model_dir(root / "target")),
            str(sglang_stubs.write_moe_model_dir(root / "qwen3-draft")))


def _dispatch_line(draft: str, backend: str) -> tuple[str, ...]:
    from tests.oracle import test_sglang_draft_dispatch_oracle as dd

    return (*dd._argv(Path(draft), backend, "low_latency"), "--moe-a2a-backend", "mori",
            "--chunked-prefill-size", "2048")


@pytest.mark.parametrize("case", DISPATCH, ids=lambda c: " ".join((*c[0], c[1])))
def test_draft_dispatcher_reads_the_rewritten_mode(
        case: tuple[tuple[str, ...], str, str | None], drafts: tuple[str, str]) -> None:
    """A mori target under `--deepep-mode low_latency`: EPv2 rewrites it to normal, so the
    Mooncake / pplx draft's dispatcher raises; EPv1 keeps it and the line starts."""
    env, backend, site = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs, (code, said) = me.draft_dispatch(env, _dispatch_line(drafts[1], backend),
                                                 *drafts)
    assert (theirs is None) == (site is None), theirs
    if site is None:
        assert code == 0, said
    else:
        assert theirs is not None and site in theirs
        assert code == 2 and site in said, said


def test_plant_mode_not_rewritten(drafts: tuple[str, str],
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Planted: the line's own mode read again; graphfit plans the EPv2 line SGLang refuses."""
    from graphfit.planner.engines import sglang_mori_ep

    monkeypatch.setattr(sglang_mori_ep, "deepep_mode", lambda config: config.deepep_mode)
    env, backend, _ = DISPATCH[0]
    code, said = me.draft_dispatch(env, _dispatch_line(drafts[1], backend), *drafts)[1]
    assert code == 0, said


# s70s: SGLANG_USE_AITER on, an unset SGLANG_MORI_EP_V2 stays on EPv2 where
# `_mori_epv2_unsupported_reason` finds none (arg_groups/moe_hook.py:807-831); each other
# reason falls back to EPv1. Under MORI_HEAD EPv2 alone keeps the gather (utils/common.py:4098-4107)
def _v4(*words: str, tp: str = "4", more: tuple[str, ...] = ()) -> tuple[str, ...]:
    return (*words, "--model-path", me.v4_model_dir(), "--tp-size", tp, *me.MORI_HEAD, *more)


AITER = [
    _v4(f"{me.USE_AITER}=1"),  # no reason: EPv2, a row per attention-DP rank
    _v4(f"{me.USE_AITER}=yes", f"{me.SDMA}=yes"),  # EnvBool's yes; get_bool_env_var's false
    _v4(f"{me.USE_AITER}=1", f"{me.SDMA}=1"),  # SDMA is EPv1-only (:821-822)
    _v4(f"{me.USE_AITER}=1", more=("--dtype", "float16")),  # not bfloat16 (:826-827)
    _v4(f"{me.USE_AITER}=1", tp="16", more=("--nnodes", "2")),  # over 8 EP ranks (:817-818)
    (f"{me.USE_AITER}=1", "--tp-size", "4", *me.MORI_HEAD),  # Qwen3-MoE: not V4 (:828-830)
]


def _aiter_id(argv: tuple[str, ...]) -> str:
    model = "v4" if me.v4_model_dir() in argv else "qwen3-moe"
    return " ".join((model, *(w for w in argv if "=" in w), *argv[-2:]))


@pytest.mark.parametrize("argv", AITER, ids=_aiter_id)
def test_aiter_lines_agree(argv: tuple[str, ...]) -> None:
    """SGLang's EPv2 resolution with AITER on, planned the same (rows included)."""
    _agree(argv)


@settings(max_examples=2, deadline=None)
@given(st.integers(0, 2**16))
def test_generated_aiter_lines_agree(seed: int) -> None:
    """AITER / SDMA / EPv2 words, model, dtype and TP size drawn (me.draw_aiter)."""
    _agree(me.draw_aiter(random.Random(seed)))


def _aiter_unread(m: pytest.MonkeyPatch) -> None:
    from graphfit.planner.engines import sglang_mori_ep

    m.setattr(sglang_mori_ep, "epv2_supported", lambda config: False)


def _sdma_dropped(m: pytest.MonkeyPatch) -> None:
    from graphfit.inputs import sglang_mori_env

    real = sglang_mori_env.environment
    m.setattr(sglang_mori_env, "environment",
              lambda environ: [s for s in real(environ) if s.field != "mori_sdma"])


AITER_PLANTS: dict[str, tuple[Callable[[pytest.MonkeyPatch], None], tuple[str, ...]]] = {
    "an unset EPv2 falls back whatever AITER says": (_aiter_unread, AITER[0]),
    "MORI_ENABLE_SDMA not read": (_sdma_dropped, AITER[2]),
}


@pytest.mark.parametrize("plant", sorted(AITER_PLANTS))
def test_a_planted_aiter_error_is_caught(plant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each s70s read broken on purpose: the line it decides differs from SGLang."""
    PLANTS[plant] = AITER_PLANTS[plant]
    try:
        test_a_planted_error_is_caught(plant, monkeypatch)
    finally:
        del PLANTS[plant]
