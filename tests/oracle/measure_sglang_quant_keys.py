"""Agreement counts on config.json's old compression_config key and the AutoRound / Quark
config classes SGLang 0.5.23's loader builds (tests.oracle.sglang_quant_keys_compare): every
fixed line, and COUNT generated ones (auto-round / quark / compressed-tensors / w4afp8 dicts
with drawn keys, under quantization_config or compression_config, or a found
quantization_config.json).

Run: python -m tests.oracle.measure_sglang_quant_keys [COUNT] [SEED] [GRAPHFIT_ROOT]
GRAPHFIT_ROOT: another checkout whose `graphfit` is scored (a before figure)."""

from __future__ import annotations

import logging
import sys

from tests.oracle.measure_root import count_seed_root, print_family, print_wrong

VERDICTS = ("class", "refused", "built", "other", "layer")  # layer: s64q


def main(argv: list[str]) -> int:
    count, seed = count_seed_root(argv, 200)
    from tests.oracle import sglang_quant_keys_compare as kc

    logging.disable(logging.WARNING)
    wrong: list[str] = []
    lines = kc.generated_lines(count, seed)
    results = [kc.compare(*line) for line in lines]
    for family, chosen in (("fixed", [kc.compare(*line) for line in kc.FIXED.values()]),
                           (f"generated ({count}, seed {seed})", results),
                           ("  of which compression_config",
                            [r for r, x in zip(results, lines, strict=True)
                             if x[0] == "compression_config"])):
        wrong += print_family(family, chosen, VERDICTS, totals=True)
    return print_wrong(wrong)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
