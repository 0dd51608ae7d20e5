"""graphfit.inputs.sglang_prefill_cp_live (issue 23 s55g): a live record's prefill backend is
read as SGLang's `resolved_view` reads it (model_override_base.py:76-86, 125-152): declared
values over the fields, the last declaration winning, the split field before the base. The
oracle comparison with SGLang's own records is tests/oracle/
test_sglang_prefill_cp_bcg_live_oracle.py."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from graphfit.inputs.sglang_prefill_cp_live import resolved_value, settings


def _record(declared: list[tuple[str, dict[str, Any]]], **fields: Any) -> SimpleNamespace:
    base = {"enable_prefill_cp": True, "cp_strategy": "zigzag", "attention_backend": None,
            "prefill_attention_backend": None}
    return SimpleNamespace(**{**base, **fields}, _resolved_overrides=declared)


def test_last_declaration_wins_over_the_field() -> None:
    record = _record([("a", {"attention_backend": "fa3"}), ("b", {"attention_backend": "x"})],
                     attention_backend="flashinfer")
    assert resolved_value(record, "attention_backend") == "x"
    assert settings(record)["prefill_attention_backend"] == "x"
    # the flags' backend, what the CP-graph check saw before the memory hook: the field
    assert settings(record)["prefill_cp_hook_backend"] == "flashinfer"


def test_split_prefill_field_before_the_base() -> None:
    record = _record([("a", {"attention_backend": "trtllm_mha"})],
                     prefill_attention_backend="fa3")
    assert settings(record) == {"prefill_cp_strategy": "zigzag",
                                "prefill_attention_backend": "fa3",
                                "prefill_cp_hook_backend": "fa3"}


def test_nothing_without_prefill_cp_or_a_backend() -> None:
    assert settings(_record([], enable_prefill_cp=False)) == {}
    assert settings(_record([])) == {"prefill_cp_strategy": "zigzag"}
    assert settings({"enable_prefill_cp": True, "cp_strategy": "interleave"}) == {
        "prefill_cp_strategy": "interleave"}
