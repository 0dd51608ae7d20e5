"""Fixtures shared by the oracle modules: the engines' own argument parsers, bootstrapped once
per module (each skips locally, or fails in CI, when its engine's sources are absent)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.oracle.paths import require


@pytest.fixture(scope="module")
def va() -> Any:
    """vLLM 0.33's FlexibleArgumentParser / EngineArgs, run from the pinned sources."""
    require("vllm")
    from tests.oracle import vllm_args_oracle

    vllm_args_oracle.bootstrap()
    return vllm_args_oracle


@pytest.fixture(scope="module")
def sa() -> Any:
    """SGLang 0.5.23's ServerArgs parser, run from the pinned sources."""
    require("sglang")
    from tests.oracle import sglang_args_oracle

    sglang_args_oracle.bootstrap()
    return sglang_args_oracle
