"""Agreement counts on AutoRound's per-layer configs at model build
(tests.oracle.sglang_quant_auto_round_layers_compare, issue 23 s64q): every fixed line, and
COUNT generated ones (Llama / Qwen2 / Qwen3, since s66q Qwen3-MoE / Qwen2-MoE, built by SGLang
on the meta device, on a T4, an A100 or a B200).

Run: python -m tests.oracle.measure_sglang_quant_auto_round_layers [COUNT] [SEED] [GRAPHFIT_ROOT]
GRAPHFIT_ROOT: another checkout whose `graphfit` is scored (a before figure)."""

from __future__ import annotations

import sys

from tests.oracle.measure_root import count_seed_root, print_fixed_and_generated

VERDICTS = ("layer", "built", "other")


def main(argv: list[str]) -> int:
    count, seed = count_seed_root(argv, 60)
    from tests.oracle import sglang_quant_auto_round_layers_compare as ac

    return print_fixed_and_generated(ac, count, seed, VERDICTS)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
