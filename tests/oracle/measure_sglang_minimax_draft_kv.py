"""Measure graphfit's MiniMax-M3 KV price with a DFLASH / DSPARK draft's own pool against
SGLang's (`_compute_cell_size` + `resolve_dflash_draft_cell_size` +
`scale_kv_cell_size_per_token_for_dflash`, tests/oracle/sglang_minimax_draft_kv_oracle):
`python -m tests.oracle.measure_sglang_minimax_draft_kv [COUNT] [SEED] [BEFORE]` (default 60
draws, seed 23) from the test module's `draw` (DSPARK / DFLASH, the draft's layers, KV heads,
head_dim / v_head_dim, is_causal, TP / attention DP, H100 / B200, target and draft KV dtypes,
the fa4 draft backend, a MiniMax M3.1 draft). It prints how many lines SGLang prices /
refuses and how many graphfit's per-stage totals and page agree with.

BEFORE, a repository root (e.g. /work/main), also pastes each priced line into that tree's
`graphfit plan` (a child process a line) and counts the lines whose output states SGLang's
per-token figure ("<N> B a token"), printed first."""

from __future__ import annotations

import sys

from tests.oracle import test_sglang_minimax_draft_kv_oracle as d
from tests.oracle import test_sglang_minimax_kv_oracle as t
from tests.oracle.measure_sglang_minimax_kv import measure


def main(count: int = 60, seed: int = 23, root: str | None = None) -> None:
    measure(d.draw, d.verdict, lambda c: (t.argv_of(c), c["gpu"]), count, seed, root)


if __name__ == "__main__":
    args = sys.argv[1:]
    main(int(args[0]) if args else 60, int(args[1]) if len(args) > 1 else 23,
         args[2] if len(args) > 2 else None)
