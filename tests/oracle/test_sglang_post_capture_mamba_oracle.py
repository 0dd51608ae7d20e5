"""A hybrid mamba model's state cache when SGLang 0.5.23 sizes KV after capture: the state is
allocated before capture, so `_profile_available_bytes` keeps at least the pre-capture
activation reserve as slack (mem_cache/kv_cache_configurator.py:3020-3030,
`pre_capture_activation_reserve_mb`, runtime_context.py:1797-1819), whatever the fraction
leaves. graphfit (graphfit.planner.engines.sglang_mamba_memory.post_capture_slack_gb) vs
SGLang's own configurator on CPU (tests/oracle/sglang_mamba_memory_oracle.sized, with
`post_capture_kv_active` SGLang's own answer on the resolved arguments) over lines pasted with
SGLANG_ENABLE_POST_CAPTURE_KV_SIZING set, unset or off."""

from __future__ import annotations

import functools
import json
import os
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")

from graphfit.planner.core.errors import ConfigError  # noqa: E402
from tests.oracle import sglang_mamba_memory_oracle as mm  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle.test_sglang_mamba_memory_oracle import (  # noqa: E402
    LINES,
    _line,
    argv_of,
    memory,
)
from tests.oracle.test_sglang_mamba_memory_oracle import (  # noqa: E402
    graphfit_side as memory_graphfit_side,
)

ENV = "SGLANG_ENABLE_POST_CAPTURE_KV_SIZING"
# prefill graphs up to the chunked-prefill size: the line SGLang may size after capture
# (overrides.py:1844-1854)
BREAKABLE = ("--cuda-graph-backend-prefill", "breakable")


def _argv(p: dict) -> tuple[str, ...]:
    return (*argv_of(p), *p.get("extra", ()))


def sglang_side(p: dict) -> tuple[mm.Sized | str, bool | None]:
    """SGLang's state cache, and whether it sized KV after capture (None: refused)."""
    saved = os.environ.get(ENV)
    os.environ.pop(ENV, None)
    if p["post"] is not None:
        os.environ[ENV] = p["post"]
    try:
        r = mm.resolve(_argv(p), p["gb"], p["shape"], p.get("env_ssm"), p.get("env", ()))
        if not isinstance(r, so.Resolved):
            return r.text, None
        preload, weights = memory(p)
        from sglang.srt.arg_groups.overrides import post_capture_kv_sizing_planned

        active = bool(post_capture_kv_sizing_planned(r.record))
        return mm.sized(r, preload, weights, gpu_gb=p["gb"]), active
    finally:
        os.environ.pop(ENV, None)
        if saved is not None:
            os.environ[ENV] = saved


def graphfit_side(p: dict) -> Any:
    return memory_graphfit_side(p, _argv(p),
                                () if p["post"] is None else (f"{ENV}={p['post']}",))


def compare(p: dict) -> tuple[str | None, bool | None]:
    """(the disagreement or None, SGLang's post-capture answer): the same state cache size
    where SGLang sizes it from memory, the same refusal, the same static fraction."""
    theirs, active = sglang_side(p)
    try:
        ours = graphfit_side(p)
    except ConfigError as exc:
        ours = str(exc)
    return verdict(p, theirs, active, ours)


def verdict(p: dict, theirs: mm.Sized | str, active: bool | None,
            ours: Any) -> tuple[str | None, bool | None]:
    """`compare` over both sides computed (`ours`: graphfit's resolved config, or anything
    with its mamba_memory_slots and mem_fraction_static, or its refusal's text)."""
    if isinstance(theirs, str):
        return (None if isinstance(ours, str) else f"SGLang refuses ({theirs[:80]})"), None
    if isinstance(ours, str):
        return f"graphfit refuses: {ours}", active
    from_memory = p.get("M") is None and not (theirs.radix_off and (
        p["S"] is not None or p.get("spec") is not None))
    if from_memory and ours.mamba_memory_slots != theirs.cache_size:
        return f"slots: SGLang {theirs.cache_size}, graphfit {ours.mamba_memory_slots}", active
    if ours.mem_fraction_static != theirs.mem_fraction_static:
        return (f"fraction: SGLang {theirs.mem_fraction_static}, graphfit "
                f"{ours.mem_fraction_static}"), active
    return None, active


@functools.cache
def _grid(key: tuple[tuple[str, Any], ...]) -> tuple[str | None, bool | None]:
    return compare(dict(key))


def grid(**kw: Any) -> tuple[str | None, bool | None]:
    p = _line(**kw)
    return _grid(tuple(sorted((k, v) for k, v in p.items())))


GRID = [dict(post=post, extra=BREAKABLE, **kw) for post in ("1", None) for kw in (
    {}, {"gb": 141.0}, {"gb": 24.0, "weights": 0.1}, {"tp": (2, 1), "S": None, "fraction": 0.95},
    {"pd": "decode", "S": 48}, {"shape": mm.GRANITE}, {"spec": ("NEXTN", 3, 1, 4)},
    {"M": 4000, "weights": 0.5})] + [{"post": "0", "extra": BREAKABLE}, {
        # a 2048-token chunk: the reserve's 10 GiB floor on a GPU above 60 GiB decides
        "post": "1", "extra": (*BREAKABLE, "--chunked-prefill-size", "2048")}]


@pytest.mark.parametrize("kw", GRID, ids=[str(sorted(kw.items())) for kw in GRID])
def test_the_state_cache_under_post_capture_sizing_equals_sglang(kw: dict) -> None:
    assert grid(**kw)[0] is None


def test_post_capture_changes_the_state_cache() -> None:
    """Not vacuous: SGLang sizes KV after capture on the line with the variable on, and the
    state cache then differs from the same line without it."""
    on, off = grid(post="1", extra=BREAKABLE), grid(post=None, extra=BREAKABLE)
    assert on == (None, True) and off == (None, False)
    p_on, p_off = _line(post="1", extra=BREAKABLE), _line(post=None, extra=BREAKABLE)
    assert graphfit_side(p_on).mamba_memory_slots != graphfit_side(p_off).mamba_memory_slots


@settings(max_examples=8, deadline=None)
@given(LINES, st.sampled_from(("1", None, "0", "1")), st.booleans())
def test_generated_mamba_lines_with_the_switch(p: dict, post: str | None,
                                               breakable: bool) -> None:
    p = {**p, "post": post, "extra": BREAKABLE if breakable else ()}
    assert compare(p)[0] is None


# issue 23 s37m: a PD prefill server with FULL prefill graphs whose --prefill-max-requests is
# within the graphs' given request slots (full_prefill_max_req), the state cache fixed by
# --max-mamba-cache-size: SGLang keeps no pre-capture slack for the state
# (`capped_full_prefill_role`, kv_cache_configurator.py:3011-3030), so the weights refusal
# (:3040-3060) comes later than with the slack.
def full_prefill(slots: int | None, cap: int | None, backend: str = "full") -> tuple[str, ...]:
    """The line's FULL prefill graphs (`--cuda-graph-config`, cuda_graph_config.py:75-86)
    with `slots` request slots given, and its --prefill-max-requests `cap`."""
    phase: dict[str, Any] = {"backend": backend}
    if slots is not None:
        phase["full_prefill_max_req"] = slots
    argv: tuple[str, ...] = ("--cuda-graph-config", json.dumps({"prefill": phase}))
    return argv + (() if cap is None else ("--prefill-max-requests", str(cap)))


# weights 0.85 of 80 GB, 1000 fixed slots: served only without the 10 GiB slack
CAPPED = {"post": "1", "pd": "prefill", "M": 1000, "weights": 0.85}
CAPPED_GRID = [dict(CAPPED, extra=full_prefill(slots, cap, backend), **kw)
               for slots, cap, backend, kw in (
                   (4, 4, "full", {}), (4, 5, "full", {}), (None, 1, "full", {}),
                   (4, 4, "breakable", {}), (4, 4, "full", {"pd": None}),
                   (6, 6, "full", {"shape": mm.GRANITE, "weights": 0.8}))]


@functools.cache
def _capped_sglang(slots: int | None, cap: int | None) -> tuple[mm.Sized | str, bool | None]:
    return sglang_side(_line(**dict(CAPPED, extra=full_prefill(slots, cap))))


@pytest.mark.parametrize("kw", CAPPED_GRID, ids=[str(sorted(kw.items())) for kw in CAPPED_GRID])
def test_capped_full_prefill_server_keeps_no_state_slack_as_sglang(kw: dict) -> None:
    assert grid(**kw)[0] is None


def test_the_capped_full_prefill_exemption_is_not_vacuous() -> None:
    """SGLang serves the capped line and refuses it with the cap one above the slots: the
    exemption decides (both sized after capture)."""
    served, refused = _capped_sglang(4, 4), _capped_sglang(4, 5)
    assert isinstance(served[0], mm.Sized) and served[1] is True
    assert isinstance(refused[0], str) and "no GPU memory" in refused[0]


@settings(max_examples=3, deadline=None)
@given(LINES,
       st.sampled_from(("1", "1", None)), st.none() | st.integers(1, 12),
       st.none() | st.integers(1, 12), st.sampled_from(("full", "full", "breakable")),
       st.integers(100, 3000))
def test_generated_pd_prefill_lines_with_a_request_cap(p: dict, post: str | None,
                                                      slots: int | None, cap: int | None,
                                                      backend: str, fixed: int) -> None:
    p = {**p, "post": post, "pd": "prefill", "M": fixed,
         "extra": full_prefill(slots, cap, backend)}
    assert compare(p)[0] is None
