"""Measure graphfit against SGLang's own MiniMax-M3 target class on generated Mooncake / NixlEP
lines (issue 23, s52e): `python -m tests.oracle.measure_sglang_minimax_dispatch [COUNT] [SEED]
[BEFORE]` (default 60 draws, seed 23). The draws and the compare are
tests.oracle.measure_sglang_minimax_deepep's (targets, runners, --dtype, JIT DeepGEMM on /
off) with these a2a backends instead: Mooncake and nixl in each --deepep-mode. SGLang builds
the class with its own dispatcher (NixlEP's package reported installed by the oracle's glue,
tests.oracle.sglang_minimax_target_oracle._nixl_glue), which raises in auto / normal mode
before DeepEPMoE's asserts (token_dispatcher/mooncake.py:343-344, nixl.py:481-482).

BEFORE, a repository root (e.g. /work/main), reruns the same draws in a child process whose
`graphfit` is that tree's and whose oracle is this one, and prints its counts first."""

from __future__ import annotations

import sys

from tests.oracle import measure_sglang_minimax_deepep as deepep
from tests.oracle.measure_root import main_before_after

A2AS: tuple[tuple[int, int, tuple[str, ...]], ...] = tuple(
    (2, 1, ("--moe-a2a-backend", a2a, *mode)) for a2a in ("mooncake", "nixl")
    for mode in ((), ("--deepep-mode", "normal"), ("--deepep-mode", "low_latency")))


def measure(count: int, seed: int) -> None:
    deepep.measure(count, seed, A2AS)


if __name__ == "__main__":
    main_before_after("measure_sglang_minimax_dispatch", measure, sys.argv[1:], 60, 23)
