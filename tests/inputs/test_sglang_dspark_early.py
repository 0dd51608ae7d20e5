"""SGLANG_OPT_DSV41_TARGET_METADATA_EARLY as SGLang's EnvBool reads it (environ.py:143-150,
67-86; issue 23, s54d)."""

from __future__ import annotations

import pytest

from graphfit.inputs.environment import sglang_environment
from graphfit.inputs.sglang_dspark_early import ENV, environment


@pytest.mark.parametrize(("raw", "value"), [("1", True), ("true", True), ("Y", True),
                                            ("yes", True), ("0", False), ("No", False),
                                            ("FALSE", False)])
def test_sglang_spellings(raw: str, value: bool) -> None:
    (setting,) = environment({ENV: raw})
    assert setting.field == "dspark_early_verify_metadata" and setting.value is value
    assert ENV in setting.origin


@pytest.mark.parametrize("raw", ["on", "", " 1", "2"])
def test_unparsable_keeps_sglangs_default(raw: str) -> None:
    """SGLang warns and keeps the default (off): no setting."""
    assert environment({ENV: raw}) == []
    assert environment({}) == []


def test_the_sglang_environment_reads_it() -> None:
    names = [s.field for s in sglang_environment({ENV: "1"})]
    assert "dspark_early_verify_metadata" in names
