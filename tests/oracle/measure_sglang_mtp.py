"""Agreement counts: graphfit's multi-layer EAGLE draft-extend backend and graph count for lines
naming no attention backend vs SGLang 0.5.23's own resolve + `DraftBackendFactory` +
`_capture_cuda_graphs` on CPU, over every model shape of tests/oracle/test_sglang_mtp_oracle.py
(plain shapes and override architectures) x 6 GPUs x topk 1 / 2 x one line variant.
Run: python -m tests.oracle.measure_sglang_mtp [--verbose]"""

from __future__ import annotations

import sys

from tests.oracle import sglang_mtp_oracle as mo
from tests.oracle import test_sglang_mtp_oracle as t

GPUS = (*mo.CAPABILITIES, *mo.PLATFORMS)
EXTRAS: tuple[tuple[str, ...], ...] = (
    (), ("--page-size", "16"), ("--kv-cache-dtype", "fp8_e5m2"),
    ("--kv-cache-dtype", "fp8_e4m3"), ("--decode-attention-backend", "flashinfer"),
    ("--prefill-attention-backend", "triton"), ("--speculative-attention-mode", "decode"),
    ("--enable-deterministic-inference",))


def grid() -> list[tuple[str, str, str, tuple[str, ...]]]:
    models = {**{s: t._SHAPES[s] for s in t.SHAPES}, **t._OVERRIDES}
    return [(gpu, shape, models[shape], t._override_line(topk, extra))
            for shape in sorted(models) for gpu in GPUS for topk in (1, 2)
            for extra in EXTRAS
            # the fake ROCm platform reaches only what goes through `get_platform()`: the
            # multimodal transport check still sees CUDA probes (the ROCm grid leaves VL out)
            if not (shape == "vl" and gpu in mo.PLATFORMS)]


def main() -> None:
    verbose = "--verbose" in sys.argv
    tally: dict[str, int] = {}
    for gpu, shape, model, argv in grid():
        verdict = t.default_verdict(argv, gpu, model, None)
        key = verdict.split(":", 1)[0]
        tally[key] = tally.get(key, 0) + 1
        if key in ("differ", "skip") or (verbose and key == "bound"):
            print(key.upper(), gpu, shape, " ".join(argv[9:]), verdict[:240])
    print(f"multi-layer EAGLE, no backend on the line, {sum(tally.values())} lines: "
          + ", ".join(f"{k} {v}" for k, v in sorted(tally.items())))


if __name__ == "__main__":
    main()
