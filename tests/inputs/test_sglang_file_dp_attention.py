"""graphfit's config file on SGLang's deprecated `enable_dp_attention` (issue 23, s70g;
graphfit.inputs.sglang_file_dp_attention): read with the file's `dp_size` as a Python caller's
record is; the verdicts are compared with SGLang in
tests/oracle/test_sglang_file_dp_attention_oracle.py."""

from __future__ import annotations

import pytest

from graphfit.inputs.config_file import mapping_settings
from graphfit.planner.core.errors import ConfigError


def _fields(data: dict[str, object]) -> dict[str, object]:
    settings, _ = mapping_settings({"engine": "sglang", **data}, "f.yaml")
    return {s.field: s.value for s in settings if s.field in ("attn_dp_size", "dp_replicas")}


def test_the_width_is_the_files_dp_size() -> None:
    assert _fields({"enable_dp_attention": True, "dp_size": 2}) == {"attn_dp_size": 2}
    assert _fields({"enable_dp_attention": True, "dp_size": 2, "attn_dp_size": 1}) == {
        "attn_dp_size": 2}


def test_off_or_beside_a_width_the_keys_stay_apart() -> None:
    assert _fields({"enable_dp_attention": False, "dp_size": 2}) == {"dp_replicas": 2}
    assert _fields({"enable_dp_attention": True, "attn_dp_size": 2}) == {"attn_dp_size": 2}


def test_a_value_not_boolean_is_one_error() -> None:
    with pytest.raises(ConfigError, match="enable_dp_attention: expected true or false"):
        mapping_settings({"engine": "sglang", "enable_dp_attention": 3}, "f.yaml")
