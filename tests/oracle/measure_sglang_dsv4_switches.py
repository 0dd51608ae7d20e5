"""Figures for `graphfit plan` on pasted DeepSeek-V4 / V4.1 lines with `--enable-hisparse`
`--dsv4-attn-backend flashmla_mega / trtllm` and `--enable-encoder-swa-bounded-replay`
(issue 23 s45k): every line of a small grid
(V4 and V4.1 models; an H100 and a B200; the backend asserts' flags, deepseek_v4_hook.py:
92-126; the decode radix cache and V4.1's HiSparse, pd_disaggregation_hook.py:100-104,
deepseek_v4_hook.py:333-353) vs SGLang 0.5.23's own argument pipeline on the fake device.
Each line is counted as: both refuse with SGLang's sentence, both refuse otherwise, SGLang
refuses and graphfit does not, SGLang resolves and graphfit refuses, both accept. "after":
this tree; "before": the tree named by GRAPHFIT_BEFORE (default /work/main), the same lines
planned there in a child process.

    PYTHONPATH=. python -m tests.oracle.measure_sglang_dsv4_switches
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from collections import Counter

from tests.oracle import sglang_dsv4_plan_oracle as pl
from tests.oracle import sglang_oracle as so
from tests.oracle.before_tree import frozen
from tests.oracle.sglang_dsv4_plan_oracle import PlanCase

V4 = PlanCase(nope=448, rope=64, index=128, window=128, context=65536, page=256, budget=0,
              ratios=(0, 0) + (4, 128) * 6 + (4,), sources=(), gpu_gb=179.1,
              weights_gb=80.0)
RADIX = ["--disaggregation-mode", "decode", "--disaggregation-decode-enable-radix-cache"]
EXTRAS = (
    ["--enable-hisparse"], ["--enable-hisparse", "--pp-size", "2"], [*RADIX, "--enable-hisparse"],
    [*RADIX, "--enable-hisparse", "--disaggregation-transfer-backend", "fake"],
    ["--dsv4-attn-backend", "flashmla_mega"], ["--dsv4-attn-backend", "trtllm"],
    ["--dsv4-attn-backend", "trtllm", "--enable-hisparse"],
    ["--dsv4-attn-backend", "trtllm", "--disaggregation-mode", "decode"],
    ["--dsv4-attn-backend", "trtllm", "--attn-cp-size", "2", "--tp-size", "2"],
    ["--dsv4-attn-backend", "trtllm", "--dcp-size", "2", "--tp-size", "2"],
    ["--dsv4-attn-backend", "flashmla_mega", "--enable-hisparse"],
    ["--enable-encoder-swa-bounded-replay"],
    ["--enable-encoder-swa-bounded-replay", "--dsv4-attn-backend", "trtllm"],
)
CHILD = r'''
import json, sys
from tests.oracle import sglang_dsv4_plan_oracle as pl
print(json.dumps([pl.plan_figures(a, g, w, None) for a, g, w in json.load(sys.stdin)]))
'''


def lines() -> list[tuple[PlanCase, str, list[str]]]:
    return [(dataclasses.replace(V4, v41=v41), gpu, extra) for v41 in (False, True)
            for gpu in ("H100", "B200") for extra in EXTRAS]


def verdict(sg: object, gf: object) -> str:
    if isinstance(sg, so.Rejected):
        if not (isinstance(gf, str) and gf.startswith("ConfigError")):
            return "SGLang refuses, graphfit does not"
        sentence = sg.text.split(": ", 1)[-1].split(" yet")[0].rstrip(".")
        return "both refuse, SGLang's sentence" if sentence in gf else "both refuse, other reason"
    if isinstance(gf, str) and gf.startswith("ConfigError"):
        return "SGLang resolves, graphfit refuses"
    return "both accept"


def main() -> None:
    todo = lines()
    argv = [[[*pl.line(c), *extra], gpu, c.weights_gb] for c, gpu, extra in todo]
    tree = frozen(os.environ.get("GRAPHFIT_BEFORE", "/work/main"))
    done = subprocess.run([sys.executable, "-c", CHILD], input=json.dumps(argv), cwd=tree,
                          env={**os.environ, "PYTHONPATH": tree}, capture_output=True,
                          text=True, check=True)
    old = json.loads(done.stdout)
    after: Counter[str] = Counter()
    prior: Counter[str] = Counter()
    for (case, gpu, extra), (a, g, w), was in zip(todo, argv, old, strict=True):
        sg = so.resolve([*case.argv(), *extra], gpu_mem_gb=case.gpu_gb,
                        model=pl.model_dir(case), capability=(10, 0) if gpu == "B200" else (9, 0))
        after[verdict(sg, pl.plan_figures(a, g, w, None))] += 1
        prior[verdict(sg, was)] += 1
    print(f"{len(todo)} lines")
    for name, counts in (("before", prior), ("after", after)):
        print(f"{name}: " + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())))


if __name__ == "__main__":
    main()
