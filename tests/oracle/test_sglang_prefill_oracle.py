"""Prefill CUDA graphs: graphfit (graphfit/planner/engines/sglang_prefill.py) vs SGLang 0.5.23's
own resolution pipeline and prefill runner code (tests/oracle/sglang_prefill_oracle.py).

Per command line SGLang accepts, graphfit reads the same raw ServerArgs
(`prefill_inputs_from_sglang`) and must equal SGLang on: the backend (on / off), the resolved
token list, the runner's captured token counts, every replay decision (padded token count or
eager) around each captured size, and the buffers' shapes and dtypes; or refuse the line with
a ConfigError naming what it does not model (never a silent plan).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit import ConfigError  # noqa: E402
from graphfit.planner.engines.sglang_native import prefill_inputs_from_sglang  # noqa: E402
from graphfit.planner.engines.sglang_prefill import (  # noqa: E402
    prefill_buffers,
    resolve_prefill,
)
from graphfit.planner.engines.sglang_tbo import tbo_split_buffer  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_prefill_oracle as po  # noqa: E402


def _probes(captured: tuple[int, ...]) -> list[int]:
    """Token counts around every captured size, 1, and past the largest."""
    out = {1, 2, 3}
    for c in captured:
        out |= {c - 1, c, c + 1, c // 2, c // 2 + 1}
    return sorted(n for n in out if n >= 1)


def compare(argv: tuple[str, ...], gb: float | None) -> list[str]:
    """Differences between SGLang and graphfit on one line (empty: they agree or one of them
    refuses it: SGLang's refusal ends the comparison, graphfit's must be a ConfigError)."""
    sg = po.prefill(argv, gb)
    if isinstance(sg, so.Rejected):
        return []
    try:
        ours = resolve_prefill(prefill_inputs_from_sglang(
            sg.raw, gb, request_pool=sg.pool, model_context_length=po.MODEL_CONTEXT_LENGTH))
    except ConfigError as exc:
        assert "not modelled" in str(exc), str(exc)  # a refusal, never a disagreement
        return []
    diffs = []
    if ours.backend != sg.backend:
        diffs.append(f"backend: SGLang {sg.backend}, graphfit {ours.backend} ({ours.why_off})")
    if ours.chunked_prefill_size != sg.chunked_prefill_size:
        diffs.append(f"chunked_prefill_size: SGLang {sg.chunked_prefill_size}, "
                     f"graphfit {ours.chunked_prefill_size}")
    if sg.backend == "disabled":
        return diffs
    if ours.tokens != sg.tokens:
        diffs.append(f"tokens: SGLang {sg.tokens}, graphfit {ours.tokens}")
    if ours.captured != sg.captured:
        diffs.append(f"captured: SGLang {sg.captured}, graphfit {ours.captured}")
    slots = ours.request_slots or 1
    for n in _probes(sg.captured):
        for reqs in sorted({1, slots, slots + 1}):
            if ours.replays(n, reqs) != sg.pad(n, reqs):
                diffs.append(f"pad({n} tokens, {reqs} requests): SGLang {sg.pad(n, reqs)}, "
                             f"graphfit {ours.replays(n, reqs)}")
                break
    theirs = {b.name: (b.shape, b.dtype)
              for b in prefill_buffers(ours, sg.pool, hidden_size=4096, dtype="bfloat16")}
    tbo = tbo_split_buffer("prefill")  # every BaseRunner's (graphfit's plan adds it)
    theirs[tbo.name] = ((tbo.reference_capacity,), tbo.dtype)
    if theirs != sg.buffers:
        diffs.append(f"buffers: SGLang {sg.buffers}, graphfit {theirs}")
    return diffs


S48 = ("--max-running-requests", "48")
GRID: list[tuple[tuple[str, ...], float | None]] = [
    ((*S48, "--cuda-graph-max-bs-prefill", "3"), 80),  # no size: no graphs, no error
    (S48, 80), (S48, 16), (S48, 30), (S48, 192), (S48, None), ((), 80),
    ((*S48, "--chunked-prefill-size", "3000"), 80),
    ((*S48, "--cuda-graph-backend-prefill", "full"), 80),
    ((*S48, "--cuda-graph-backend-prefill", "disabled"), 80),
    ((*S48, "--disable-prefill-cuda-graph"), 80),
    ((*S48, "--disable-cuda-graph"), 80),
    ((*S48, "--disable-cuda-graph", "--cuda-graph-backend-prefill", "breakable"), 80),
    ((*S48, "--cuda-graph-max-bs-prefill", "1000"), 80),
    ((*S48, "--cuda-graph-bs-prefill", "100", "7", "33"), 80),
    ((*S48, "--cuda-graph-config", json.dumps({"prefill": {"max_bs": 700}})), 80),
    ((*S48, "--cuda-graph-config", json.dumps({"prefill": {"bs": [9, 3]}})), 80),
    ((*S48, "--cuda-graph-config", json.dumps({"prefill": {"bs": []}})), 80),
    ((*S48, "--cuda-graph-config", json.dumps({"prefill": {"backend": "disabled"}})), 80),
    ((*S48, "--cuda-graph-max-bs-prefill", "2048",
      "--cuda-graph-config", json.dumps({"prefill": {"max_bs": 512}})), 80),
    ((*S48, "--tp", "4", "--attn-dp-size", "2"), 80),
    ((*S48, "--tp", "4", "--attn-dp-size", "4", "--chunked-prefill-size", "8190"), 80),
    ((*S48, "--tp", "4", "--attn-dp-size", "2", "--cuda-graph-max-bs-prefill", "8192"), 80),
    ((*S48, "--tp", "4", "--attn-cp-size", "2"), 80),
    # two-batch overlap needs attention DP here (validation_hook.py:756-772)
    ((*S48, "--tp", "2", "--enable-two-batch-overlap"), 80),  # refused
    ((*S48, "--tp", "2", "--attn-dp-size", "2", "--enable-two-batch-overlap"), 80),
    ((*S48, "--tp", "2", "--attn-dp-size", "2", "--enable-two-batch-overlap",
      "--cuda-graph-backend-prefill", "breakable"), 80),
    ((*S48, "--tp", "4", "--attn-dp-size", "2", "--enable-two-batch-overlap",
      "--cuda-graph-backend-prefill", "full"), 80),
    ((*S48, "--pp-size", "2"), 80),
    ((*S48, "--pp-size", "2", "--cuda-graph-backend-prefill", "breakable"), 192),
    ((*S48, "--max-total-tokens", "3000"), 80),
    ((*S48, "--attention-backend", "torch_native"), 80),
    ((*S48, "--attention-backend", "flex_attention", "--cuda-graph-backend-prefill", "full"),
     80),
    ((*S48, "--disaggregation-mode", "decode"), 80),
    ((*S48, "--disaggregation-mode", "prefill"), 80),
    ((*S48, "--disaggregation-mode", "decode", "--cuda-graph-backend-prefill", "full"), 80),
    # the capture batch's bounds: request slots x context length (cuda_graph_setup.py:578-615)
    ((*S48, "--cuda-graph-backend-prefill", "full", "--context-length", "1024"), 80),
    ((*S48, "--cuda-graph-backend-prefill", "full", "--context-length", "100",
      "--chunked-prefill-size", "1024"), 80),
    (("--max-running-requests", "2", "--context-length", "600"), 80),
    (("--max-running-requests", "1", "--context-length", "3"), 80),
    ((*S48, "--cuda-graph-config", json.dumps({"prefill": {"backend": "full",
                                                            "full_prefill_max_req": 3}})), 80),
]


@pytest.mark.parametrize(("argv", "gb"), GRID, ids=[f"{' '.join(a) or '-'}@{g}" for a, g in GRID])
def test_prefill_graphs_equal_sglang(argv: tuple[str, ...], gb: float | None) -> None:
    assert compare(argv, gb) == []


def test_oracle_prefill_facts() -> None:
    """The oracle itself against SGLang's source: breakable by default on CUDA, the token
    ladder of cuda_graph_hook.py:480-497 (no appended max), padding beyond 2x is eager."""
    sg = po.prefill(S48, 80)
    assert isinstance(sg, po.SglangPrefill)
    assert sg.backend == "breakable" and sg.chunked_prefill_size == 8192
    assert sg.tokens[:9] == (4, 8, 12, 16, 20, 24, 28, 32, 48) and sg.tokens[-1] == 8192
    assert sg.pad(1) is None and sg.pad(2) == 4 and sg.pad(8193) is None
    odd = po.prefill((*S48, "--cuda-graph-max-bs-prefill", "1000"), 80)
    assert isinstance(odd, po.SglangPrefill) and odd.tokens[-1] == 960


@st.composite
def lines(draw: st.DrawFn) -> tuple[tuple[str, ...], float | None]:
    argv: list[str] = ["--max-running-requests", str(draw(st.integers(1, 512)))]
    if draw(st.booleans()):
        argv += ["--chunked-prefill-size", str(draw(st.integers(64, 20000)))]
    choice = draw(st.sampled_from(("default", "backend", "off", "max_bs", "bs", "json")))
    if choice == "backend":
        argv += ["--cuda-graph-backend-prefill",
                 draw(st.sampled_from(("full", "breakable", "disabled")))]
    elif choice == "off":
        argv.append(draw(st.sampled_from(("--disable-prefill-cuda-graph",
                                          "--disable-cuda-graph"))))
    elif choice == "max_bs":
        argv += ["--cuda-graph-max-bs-prefill", str(draw(st.integers(4, 20000)))]
    elif choice == "bs":
        sizes = draw(st.lists(st.integers(1, 5000), min_size=1, max_size=5, unique=True))
        argv += ["--cuda-graph-bs-prefill", *map(str, sizes)]
    elif choice == "json":
        key = draw(st.sampled_from(("backend", "max_bs", "bs", "full_prefill_max_req")))
        value: object = (draw(st.sampled_from(("full", "breakable", "disabled")))
                         if key == "backend" else draw(st.integers(4, 9000)) if key == "max_bs"
                         else draw(st.integers(1, 64)) if key == "full_prefill_max_req"
                         else draw(st.lists(st.integers(1, 3000), min_size=1, max_size=4)))
        phase: dict[str, object] = {key: value}
        if key == "full_prefill_max_req":
            phase["backend"] = "full"
        argv += ["--cuda-graph-config", json.dumps({"prefill": phase})]
    tp = draw(st.sampled_from((1, 2, 4, 8)))
    if tp > 1:
        argv += ["--tp", str(tp)]
        split = draw(st.sampled_from(("none", "dp", "cp")))
        if split == "dp":
            argv += ["--attn-dp-size", str(draw(st.sampled_from([d for d in (2, 4, 8)
                                                                 if tp % d == 0])))]
        elif split == "cp":
            argv += ["--attn-cp-size", "2"]
    if draw(st.integers(0, 3)) == 0:
        argv += ["--context-length", str(draw(st.integers(2, 4096)))]
    extra = draw(st.sampled_from(("", "tbo", "pp", "max_total", "decode", "prefill", "native")))
    if extra == "tbo":
        argv += so.tbo(argv)
    elif extra == "pp":
        argv += ["--pp-size", "2"]
    elif extra == "max_total":
        argv += ["--max-total-tokens", str(draw(st.integers(100, 20000)))]
    elif extra in ("decode", "prefill"):
        argv += ["--disaggregation-mode", extra]
    elif extra == "native":
        argv += ["--attention-backend", "torch_native"]
    return tuple(argv), draw(st.sampled_from((16, 30, 48, 80, 141, 192, None)))


@given(lines())
def test_generated_prefill_lines(case: tuple[tuple[str, ...], float | None]) -> None:
    argv, gb = case
    assert compare(argv, gb) == []
