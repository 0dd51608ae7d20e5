"""The generated encoder-decoder configs the fixed-slot TensorRT-LLM measure scripts share
(not a test): one draw, so `measure_trtllm_fixed_slots` and `measure_trtllm_shared_lengths`
keep measuring the very configs they measured when each had its own copy.

Only the parent process imports this module (like tests/oracle/measure_before.py): the
`--before` subprocess, on an older checkout's `tests` package, may have no such module.

The nested `draw` keeps its text to the letter: hypothesis derandomizes from the decorated
function's source, so any edit to those lines would change the configs drawn.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, Phase, given, settings


def draw_encdec_configs(n: int) -> list[list[Any]]:
    """N fixed-slot encoder-decoder configs (`encdec_configs`), each as a JSON-able list."""
    from tests.oracle.test_trtllm_encdec_reference import encdec_configs

    cfgs: list[list[Any]] = []

    @settings(max_examples=n, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), derandomize=True)
    @given(encdec_configs())
    def draw(cfg: Any) -> None:
        cfgs.append(list(cfg))

    draw()
    return cfgs
