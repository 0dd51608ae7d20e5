"""Agreement counts on quark_mxfp4's requantization branch
(tests.oracle.sglang_quant_quark_requant_compare, issue 23 s66q): every fixed line, and COUNT
generated ones (a drawn source checkpoint's quantization config under `--quantization
quark_mxfp4`, judged by SGLang's own ModelConfig and loader on an H100 or a B200).

Run: python -m tests.oracle.measure_sglang_quant_quark_requant [COUNT] [SEED] [GRAPHFIT_ROOT]
GRAPHFIT_ROOT: another checkout whose `graphfit` is scored (a before figure)."""

from __future__ import annotations

import sys

from tests.oracle.measure_root import count_seed_root, print_fixed_and_generated

VERDICTS = ("refused", "passed", "other", "fp8")  # s68q: an accepted source's Fp8Config


def main(argv: list[str]) -> int:
    count, seed = count_seed_root(argv, 60)
    from tests.oracle import sglang_quant_quark_requant_compare as qc

    return print_fixed_and_generated(qc, count, seed, VERDICTS)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
