"""Kimi-K3 MegaMoE with chunked prefill off, SGLang 0.5.23 (issue 23, s70l;
graphfit.planner.engines.sglang_kimi_megamoe.unchunked_prefill_rows).

SGLang's side: its own `PrefillAdder` with chunking off on resolved lines
(tests.oracle.sglang_unchunked_prefill) — the rows of one batch never pass
max(context_len - 1, max_prefill_tokens - 1) and reach both terms — and whole Kimi-K3 lines
judged by tests.oracle.sglang_kimi_unchunked.verdict (its runners, PrefillAdder and the MoE
block's own assert against graphfit's plan).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.planner.engines import sglang_kimi_megamoe as k3  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402

CONTEXT = 128  # --context-length of the admission lines (the oracle's model allows it)


@pytest.fixture(scope="module")
def lines() -> dict[int, so.Resolved]:
    """Resolved lines with chunking off, by --max-prefill-tokens: below and above the
    context length, so either term of the bound is the larger."""
    out = {}
    for tokens in (64, 256):
        r = so.resolve(["--chunked-prefill-size", "-1", "--max-prefill-tokens", str(tokens),
                        "--context-length", str(CONTEXT), "--page-size", "1"])
        assert isinstance(r, so.Resolved), r
        out[tokens] = r
    return out


def _rows(r: so.Resolved, queue: list[int]) -> int:
    from tests.oracle.sglang_unchunked_prefill import admitted

    return sum(admitted(r, queue))


def test_admission_reaches_the_bound(lines: dict[int, so.Resolved]) -> None:
    """One prompt of context_len - 1 tokens is admitted whole above the input budget
    (schedule_policy.py:1627-1633); short prompts fill max_prefill_tokens - 1 and no more."""
    for tokens, r in lines.items():
        bound = k3.unchunked_prefill_rows(CONTEXT, tokens)
        assert _rows(r, [CONTEXT - 1]) == CONTEXT - 1 <= bound
        assert _rows(r, [1] * (tokens + 4)) == tokens - 1 <= bound
        assert max(_rows(r, [CONTEXT - 1]), _rows(r, [1] * (tokens + 4))) == bound, tokens


@settings(max_examples=12, deadline=None)
@given(tokens=st.sampled_from((64, 256)),
       queue=st.lists(st.integers(1, CONTEXT - 1), min_size=1, max_size=12))
def test_admitted_rows_stay_within_the_bound(lines: dict[int, so.Resolved], tokens: int,
                                             queue: list[int]) -> None:
    """Any waiting queue: the batch's rows are at most the rule's bound."""
    assert _rows(lines[tokens], queue) <= k3.unchunked_prefill_rows(CONTEXT, tokens)


def _line(**given: Any) -> SimpleNamespace:
    base: dict[str, Any] = {
        "architecture": "KimiK3ForConditionalGeneration", "moe_a2a_backend": "megamoe",
        "enable_waterfill": False, "megamoe_tokens_per_rank": 8192,
        "cudagraph_capture_sizes": None, "max_cudagraph_capture_size": None,
        "max_num_seqs": None, "speculative_num_draft_tokens": None,
        "disaggregation_mode": "null", "chunked_prefill_size": -1, "attn_dp_size": 1,
        "enable_mixed_chunk": False, "context_length_read": True, "max_model_len": 4096,
        "max_prefill_tokens": 4096, "cuda_graph_bs_prefill": None,
        "cuda_graph_max_bs_prefill": None}
    return SimpleNamespace(**{**base, **given})


def _said(line: SimpleNamespace) -> str | None:
    return k3.problem(line, {}, speculative=False, decode_graphs=True,  # type: ignore[arg-type]
                      decode_default=256, chunk_default=8192)


def test_rule_with_chunking_off() -> None:
    """Planned where the bound fits the budget; not modelled above it or where the context
    length is graphfit's own default; attention DP does not divide it (each DP rank's
    scheduler admits its own batch); a given prefill capture size counts."""
    assert _said(_line(megamoe_tokens_per_rank=4095)) is None
    for above in ({"megamoe_tokens_per_rank": 4094}, {"max_model_len": 4097},
                  {"max_prefill_tokens": 4097}, {"attn_dp_size": 2, "max_model_len": 8192},
                  {"cuda_graph_max_bs_prefill": 8193}, {"context_length_read": False}):
        said = _said(_line(**{"megamoe_tokens_per_rank": 4095, **above}))
        assert said is not None and "not modelled" in said and len(said) <= 200, above
    assert "local model dir" in (_said(_line(context_length_read=False)) or "")
    # with the budget above the context length: still planned over DP (not multiplied)
    assert _said(_line(attn_dp_size=4)) is None
    # decode-only serving never prefills here (the decode bound alone)
    assert _said(_line(disaggregation_mode="decode", context_length_read=False)) is None


# (budget, extra flags): planned and no assert; SGLang asserts, graphfit not modelled (the
# DP-local batch holds a whole prompt); planned from the model's own config.json length
FIXED = (
    (8192, ("--context-length", "4096", "--max-prefill-tokens", "4096")),
    (4096, ("--context-length", "8192", "--max-prefill-tokens", "1024", "--dp-size", "2",
            "--enable-dp-attention")),
    (262144, ()),
)


def test_fixed_lines_agree() -> None:
    """Whole Kimi-K3 lines: graphfit plans exactly the lines whose MoE never asserts."""
    from tests.oracle import sglang_dcp_oracle as dcp
    from tests.oracle import sglang_kimi_unchunked as ku

    wanted = ("agree", "other", "agree")
    for (budget, extra), want in zip(FIXED, wanted, strict=True):
        argv = (f"{ku.ENV}={budget}", "--model-path", dcp.model_path(dcp.KIMI),
                "--gpu-memory-gb", "H100", "--tp-size", "8", "--ep-size", "8",
                "--moe-a2a-backend", "megamoe", "--chunked-prefill-size", "-1", *extra)
        said, line = ku.verdict(argv)
        assert said == want, line
        if want == "other":
            assert "(MoE asserts)" in line, line
