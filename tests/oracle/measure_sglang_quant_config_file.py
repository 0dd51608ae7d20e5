"""Agreement counts on SGLang 0.5.23's search for a quantization config file
(model_loader/weight_utils.py:342-394): every (flag, model directory) line of
tests.oracle.sglang_quant_config_file_compare on an H100, read whole by graphfit and run
through SGLang's own checks. Judged: SGLang cannot find the file / finds several (graphfit
must refuse citing those lines), and every other line (graphfit must not cite them).

Run: python -m tests.oracle.measure_sglang_quant_config_file [GRAPHFIT_ROOT]
GRAPHFIT_ROOT: another checkout whose `graphfit` package is imported instead."""

from __future__ import annotations

import collections
import logging
import sys

from tests.oracle.before_tree import frozen


def main(argv: list[str]) -> None:
    if argv:
        sys.path.insert(0, frozen(argv[0]))  # one commit (before_tree, s70m)
    import graphfit
    from tests.oracle import sglang_quant_config_file_compare as fc

    logging.disable(logging.WARNING)
    seen: collections.Counter[str] = collections.Counter()
    agree: collections.Counter[str] = collections.Counter()
    gpu, cap = fc.GPUS[0]
    for flag, files in fc.lines():
        verdict, bad = fc.compare(flag, files, gpu, cap)
        seen[verdict] += 1
        agree[verdict] += bad is None
    print(f"graphfit from {graphfit.__file__}")
    for verdict in ("cannot", "several", "other"):
        print(f"SGLang {verdict}: graphfit agrees {agree[verdict]}/{seen[verdict]}")


if __name__ == "__main__":
    main(sys.argv[1:])
