"""The mamba-capped request pool: graphfit (sglang_mamba_pool + sglang_pool) vs SGLang 0.5.23's
own argument pipeline (the radix-cache strategy resolution, overrides.py:453-486),
`_handle_max_mamba_cache` and `resolve_max_num_reqs` (kv_cache_configurator.py:3119-3384),
over generated lines on a Qwen3-Next-shaped model (tests/oracle/sglang_mamba_oracle)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from types import SimpleNamespace

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")

from graphfit.planner.core.errors import ConfigError  # noqa: E402
from graphfit.planner.engines.sglang_mamba_pool import (  # noqa: E402
    STRATEGIES,
    MambaCache,
    mamba_request_pool,
    radix_off,
)
from graphfit.planner.engines.sglang_pool import kv_request_pool  # noqa: E402
from tests.oracle import sglang_mamba_oracle as mo  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402

SKIP_LOCK = "SGLANG_OPT_MAMBA_SKIP_DECODE_LOCK"  # environ.py:1637


@contextlib.contextmanager
def skip_lock(on: bool) -> Iterator[None]:
    old = os.environ.get(SKIP_LOCK)
    os.environ[SKIP_LOCK] = "1" if on else "0"
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(SKIP_LOCK, None)
        else:
            os.environ[SKIP_LOCK] = old


LINES = st.fixed_dictionaries({
    "M": st.none() | st.integers(1, 6000), "S": st.none() | st.integers(1, 5000),
    "radix_off": st.booleans(), "strategy": st.sampled_from(STRATEGIES),
    "overlap": st.booleans(), "page": st.sampled_from((1, 16, 64, 48)),
    "dp": st.sampled_from((1, 2, 4)), "skip": st.booleans(),
    "backend": st.sampled_from(("triton", "triton", "flashinfer", "cutedsl")),
    "track": st.sampled_from((256, 256, 100, 48, 32)),
    # a disaggregated server (decode: its radix cache off, pd_disaggregation_hook.py:98-127;
    # extra_buffer_lazy refused under PD, mamba_hook.py:125) and --attention-backend
    # trtllm_mha (refused with no_buffer, mamba_hook.py:161)
    "pd": st.sampled_from((None, None, "prefill", "decode")),
    "attn": st.sampled_from((None, None, "trtllm_mha")),
    "capacity": st.sampled_from((2, 700, 40_000, 500_000, 3_000_000)) | st.integers(2, 10**6)})


def argv_of(p: dict) -> tuple[str, ...]:
    argv: tuple[str, ...] = ("--tp", "4", "--attn-dp-size", str(p["dp"])) if p["dp"] > 1 else ()
    if p["M"] is not None:
        argv += ("--max-mamba-cache-size", str(p["M"]))
    if p["S"] is not None:
        argv += ("--max-running-requests", str(p["S"]))
    if p["radix_off"]:
        argv += ("--disable-radix-cache",)
    if p["strategy"] != "auto":
        argv += ("--mamba-radix-cache-strategy", p["strategy"])
    if not p["overlap"]:
        argv += ("--disable-overlap-schedule",)
    if p["page"] > 1:
        argv += ("--page-size", str(p["page"]))
    if p.get("backend", "triton") != "triton":
        argv += ("--linear-attn-backend", p["backend"])
    if p.get("track", 256) != 256:
        argv += ("--mamba-track-interval", str(p["track"]))
    if p.get("pd") is not None:
        argv += ("--disaggregation-mode", p["pd"])
    if p.get("attn") is not None:
        argv += ("--attention-backend", p["attn"])
    return argv


def graphfit_pool(p: dict) -> int:
    """graphfit's pool; ConfigError when it refuses the line."""
    pd = p.get("pd") or "null"
    off = radix_off(SimpleNamespace(disable_radix_cache=p["radix_off"], disaggregation_mode=pd,
                                    architecture=mo.ARCHITECTURE, mamba_state_shape=None))
    cache = MambaCache(mo.ARCHITECTURE, max_mamba_cache_size=p["M"],
                       disable_radix_cache=off, strategy=p["strategy"],
                       disaggregation_mode=pd, attention_backend=p.get("attn"),
                       overlap=p["overlap"], page_size=p["page"], skip_decode_lock=p["skip"],
                       linear_attn_backend=p.get("backend", "triton"),
                       track_interval=p.get("track", 256))
    kv = kv_request_pool(p["capacity"], mo.CONTEXT, p["S"], p["dp"])
    return mamba_request_pool(kv, cache, p["dp"], p["S"])


def sglang_pool(p: dict) -> int | str:
    """SGLang's pool, or the text of its refusal (argument pipeline or configurator)."""
    with skip_lock(p["skip"]):
        r = mo.resolve(argv_of(p))
        if not isinstance(r, so.Resolved):
            return r.text
        try:
            return mo.pool(r, p["capacity"])
        except (RuntimeError, AssertionError) as exc:
            return str(exc)


def agree(p: dict) -> bool | None:
    """True: graphfit's pool equals SGLang's, or both refuse; False: they differ, or graphfit
    refuses a line SGLang serves; None: SGLang refuses a line graphfit plans (a validation
    graphfit does not restate, e.g. mamba_hook.py:115-160's track-interval rules)."""
    theirs = sglang_pool(p)
    try:
        ours: int | None = graphfit_pool(p)
    except ConfigError:
        ours = None
    if isinstance(theirs, str):
        return True if ours is None else None
    return ours == theirs


def _line(**kw: object) -> dict:
    return {"M": None, "S": None, "radix_off": False, "strategy": "auto", "overlap": True,
            "page": 1, "dp": 1, "skip": False, "capacity": 500_000, "pd": None, "attn": None,
            **kw}


@example(_line(M=100))  # extra buffer under overlap: 5 slots a request
@example(_line(M=100, overlap=False))  # auto -> no_buffer: 3
@example(_line(M=1000, strategy="extra_buffer_lazy", skip=True))  # 2 + 1
@example(_line(M=1000, overlap=False, strategy="no_buffer", skip=True))  # 2 + 1
@example(_line(M=999, radix_off=True, dp=2, S=3000))  # 1 slot, per DP group
@example(_line(M=100, backend="flashinfer", overlap=False))  # no extra buffer off triton: 3
@example(_line(M=100, strategy="extra_buffer", backend="cutedsl"))  # refused by both
@example(_line(M=100, page=64, track=100))  # track interval not a page multiple: both refuse
@example(_line(M=100, page=16, track=48))  # 48 = 3 pages: served
@example(_line(M=100, strategy="extra_buffer_lazy", pd="prefill"))  # refused under PD
@example(_line(M=100, strategy="extra_buffer_lazy", pd="decode"))  # radix off there: served
@example(_line(M=100, pd="decode", S=40))  # 1 slot a request on a decode server
@example(_line(M=100, overlap=False, attn="trtllm_mha"))  # no_buffer: refused by both
@example(_line(M=100, attn="trtllm_mha"))  # extra_buffer: served
@given(LINES)
def test_mamba_pool_equals_sglang(p: dict) -> None:
    assert agree(p) is not False, (argv_of(p), p, sglang_pool(p))


def test_state_cache_too_small_refused_by_both() -> None:
    p = {"M": 4, "S": None, "radix_off": False, "strategy": "auto", "overlap": True,
         "page": 1, "dp": 1, "skip": False, "capacity": 10**6}
    theirs = sglang_pool(p)
    assert isinstance(theirs, str) and "too small" in theirs
    with pytest.raises(ConfigError, match="holds no request"):
        graphfit_pool(p)


def test_paged_lines_compare_under_the_cpu_stubs() -> None:
    """The page/chunk rule runs SGLang's own FLA chunk size (CHUNK_SIZE 64,
    kernels/ops/attention/fla/chunk_delta_h.py:23, imported by overrides.py:1907-1917): the
    stubbed fla.utils (tests/oracle/sglang_stubs.py) lets it import, so paged extra-buffer
    lines are compared, not refused by a stub (the gap the first mamba-pool oracle counted)."""
    served = sglang_pool(_line(M=600, page=64))
    assert served == graphfit_pool(_line(M=600, page=64)) == 600 // 5
    # 96 tokens track 2 pages of 48 (mamba_hook.py:135 holds), 48 and 64 do not divide
    refused = sglang_pool(_line(M=600, page=48, track=96))
    assert isinstance(refused, str) and "chunk_size=64" in refused, refused
    with pytest.raises(ConfigError, match="chunk size 64"):
        graphfit_pool(_line(M=600, page=48, track=96))
