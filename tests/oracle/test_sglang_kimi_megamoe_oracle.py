"""Kimi-K3's MegaMoE rows against the megamoe budget, SGLang 0.5.23 (issue 23, s64k;
graphfit.planner.engines.sglang_kimi_megamoe).

SGLang's side: its own `KimiK3MoE._forward_mega_experts` (models/kimi_k3.py:794-833), run on
CPU with DeepGEMM's buffer and the EP group stubbed, up to the buffer call: the assert passes
exactly when the rows are at most the budget, which is the bound graphfit's rule keeps to.
graphfit's side: `problem` on lines whose rows bound sits at, below and above the budget.
"""

from __future__ import annotations

import sys
import types
from types import SimpleNamespace
from typing import Any

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.planner.engines import sglang_kimi_megamoe as k3  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_stubs  # noqa: E402


class _AtBuffer(Exception):
    """SGLang's call got past its assert to the DeepGEMM buffer."""


def _stop(*_: Any, **__: Any) -> None:
    raise _AtBuffer


def _sglang_passes(rows: int, budget: int, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Whether SGLang's `_forward_mega_experts` takes `rows` rows under `budget`."""
    import torch

    monkeypatch.setitem(sys.modules, "deep_gemm",
                        sys.modules.get("deep_gemm") or types.ModuleType("deep_gemm"))
    with sglang_stubs.imports():
        from sglang.srt.layers.moe import mega_moe
        from sglang.srt.models import kimi_k3
        from sglang.srt.runtime_context import get_parallel
    monkeypatch.setattr(mega_moe, "_get_mega_moe_symm_buffer", _stop)
    monkeypatch.setattr(mega_moe, "_mega_moe_mma_type", lambda experts: None)
    monkeypatch.setenv(k3.ENV, str(budget))
    block = SimpleNamespace(experts=SimpleNamespace(num_experts=8), _mega_top_k=2,
                            moe_hidden_size=4, _mega_intermediate_size=4)
    with get_parallel().override(moe_ep_group=SimpleNamespace(device_group=None)):
        try:
            kimi_k3.KimiK3MoE._forward_mega_experts(block, torch.empty(rows, 4), None)
        except AssertionError:
            return False
        except _AtBuffer:
            return True
    raise AssertionError("SGLang's call neither asserted nor reached the buffer")


def _line(**given: Any) -> SimpleNamespace:
    base: dict[str, Any] = {
        "architecture": "KimiK3ForConditionalGeneration", "moe_a2a_backend": "megamoe",
        "enable_waterfill": False, "megamoe_tokens_per_rank": 8192,
        "cudagraph_capture_sizes": None, "max_cudagraph_capture_size": None,
        "max_num_seqs": None, "speculative_num_draft_tokens": None,
        "disaggregation_mode": "null", "chunked_prefill_size": None, "attn_dp_size": 1,
        "enable_mixed_chunk": False}
    return SimpleNamespace(**{**base, **given})


def _said(line: SimpleNamespace, *, decode_default: int = 256, chunk_default: int = 8192,
          speculative: bool = False) -> str | None:
    return k3.problem(line, {}, speculative=speculative, decode_graphs=True,  # type: ignore
                      decode_default=decode_default, chunk_default=chunk_default)


def test_sglang_asserts_rows_above_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """SGLang takes budget rows and refuses budget + 1 (kimi_k3.py:816-824)."""
    so.oracle()
    for budget in (1, 64):
        for rows, passes in ((budget - 1, True), (budget, True), (budget + 1, False)):
            assert _sglang_passes(rows, budget, monkeypatch) is passes, (rows, budget)


def test_rows_bound_against_the_budget() -> None:
    """Within the budget: planned as before (None). Above: not modelled, naming the variable,
    in one line. Another class, another backend or a budget of 0 or below: not this rule's."""
    assert _said(_line()) is None  # chunk 8192 == budget
    said = _said(_line(chunked_prefill_size=8193))
    assert said is not None and "not modelled" in said and k3.ENV in said and len(said) <= 200
    assert _said(_line(chunked_prefill_size=16384, attn_dp_size=2)) is None  # per DP rank
    assert _said(_line(megamoe_tokens_per_rank=256, disaggregation_mode="decode")) is None
    assert _said(_line(megamoe_tokens_per_rank=255, disaggregation_mode="decode")) is not None
    assert _said(_line(megamoe_tokens_per_rank=8192 + 255, enable_mixed_chunk=True)) is not None
    assert _said(_line(megamoe_tokens_per_rank=8192 + 256, enable_mixed_chunk=True)) is None
    assert _said(_line(max_num_seqs=16, speculative_num_draft_tokens=4,
                       megamoe_tokens_per_rank=63, disaggregation_mode="decode"),
                 speculative=True) is not None  # 16 x 4 = 64 rows
    for other in ({"architecture": "Qwen3MoeForCausalLM"}, {"moe_a2a_backend": "deepep"},
                  {"megamoe_tokens_per_rank": 0}, {"megamoe_tokens_per_rank": -1}):
        assert _said(_line(chunked_prefill_size=65536, **other)) is None, other
    # Waterfill keeps megamoe (overrides.py:1595-1607)
    assert _said(_line(enable_waterfill=True, chunked_prefill_size=8193)) is not None
