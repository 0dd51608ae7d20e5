"""The engine description's public classes refuse any malformed field with ConfigError."""

from __future__ import annotations

import pytest

from graphfit import BufferRule, ConfigError


@pytest.mark.parametrize("field", ["dtype", "rows"])
@pytest.mark.parametrize("value", [[1, 2], {"a": 1}, set(), None, 3])
def test_buffer_rule_refuses_a_non_string_dtype_or_rows(field: str, value: object) -> None:
    fields: dict[str, object] = {"name": "x", "dtype": "int32", "rows": "tokens",
                                 "allocates": "T"}
    BufferRule(**fields)  # type: ignore[arg-type]  # the good one is accepted
    with pytest.raises(ConfigError, match=field):
        BufferRule(**{**fields, field: value})  # type: ignore[arg-type]
