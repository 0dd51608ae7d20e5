"""Figures for SGLANG_ENABLE_POST_CAPTURE_KV_SIZING and the memory reserve: generated pasted
lines (the variable unset / on / off / unparsable; a text model, Muse Spark, a Qwen3-VL) planned
by SGLang 0.5.23's own pipeline and by graphfit, this tree ("after") and /work/main's graphfit
run in a child process on the same lines ("before", or the tree named by GRAPHFIT_BEFORE).

    PYTHONPATH=. python -m tests.oracle.measure_sglang_post_capture [LINES] [SEED] [--grid new]

`--grid new` (issue 23 s32k) also draws the predicate's other inputs: `--device`, MOONCAKE_PROTOCOL
with `--disaggregation-transfer-backend`, PP dynamic chunking with `--max-prefill-tokens`,
`--enable-unified-memory`, and models of the classes its last test names (DeepSeek-V4,
MiniMax-M3 sparse) and hybrid-SWA ones (tests/oracle/sglang_post_capture_oracle.SPARSE). The
default (old) grid draws exactly what s29k's did, for the same seed.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections import Counter

from tests.oracle import sglang_post_capture_oracle as pc
from tests.oracle.before_tree import frozen

CHILD = """
import json, sys
from graphfit import ConfigError
from graphfit.cli.options import resolve_values
from graphfit.inputs import commandline
out = []
for line, gb in json.load(sys.stdin):
    try:
        c = resolve_values({"gpu_memory_gb": gb}, environ={},
                           pasted=commandline.read(line)).config()
        out.append(c.mem_fraction_static)
    except ConfigError as exc:
        out.append(str(exc))
print(json.dumps(out))
"""


Case = tuple[tuple[str, ...], float, str, str | None, tuple[tuple[str, str], ...]]
NEW_MODELS = (*pc.MODELS, "dsv4", "minimax", "minimax_vl", "gemma4", "swa_optin", "beam_swa")


def generate_new(rng: random.Random) -> Case:
    """One line of the new grid: the old draw, then the s32k inputs (module docstring)."""
    argv, gb, _, value, _ = generate(rng)
    more: list[str] = []
    env: list[tuple[str, str]] = []
    if rng.random() < 0.15:
        more += ["--device", rng.choice(("cuda", "cuda:1", "cpu", "npu"))]
    if rng.random() < 0.3:
        env.append(("MOONCAKE_PROTOCOL", rng.choice(("efa", "EFA", "rdma", "tcp"))))
    if rng.random() < 0.2:
        more += ["--disaggregation-transfer-backend", rng.choice(("mooncake", "nixl"))]
    if rng.random() < 0.3:
        more.append("--enable-dynamic-chunking")
        if "--pp-size" not in argv and rng.random() < 0.6:
            more += ["--pp-size", "2"]
    if rng.random() < 0.3:
        more += ["--max-prefill-tokens", str(rng.choice((2048, 8192, 16384, 32768)))]
    if rng.random() < 0.25:
        more.append("--enable-unified-memory")
    return (*argv, *more), gb, rng.choice(NEW_MODELS), value, tuple(env)


def generate(rng: random.Random) -> Case:
    """One line, drawn as tests/oracle/test_sglang_post_capture_oracle.py `lines` draws."""
    argv: list[str] = ["--max-running-requests", "48"] if rng.random() < 0.5 else []
    prefill = rng.choice(("", "breakable", "off", "max_bs"))
    if prefill in ("breakable", "max_bs"):
        argv += ["--cuda-graph-backend-prefill", "breakable"]
    if prefill == "off":
        argv.append("--disable-prefill-cuda-graph")
    if prefill == "max_bs":
        argv += ["--cuda-graph-max-bs-prefill", str(rng.choice((512, 2048, 8192, 16384)))]
    if rng.random() < 0.5:
        argv += ["--chunked-prefill-size", str(rng.choice((256, 2048, 8192, 16384)))]
    mode = rng.choice(("", "", "decode", "prefill"))
    if mode:
        argv += ["--disaggregation-mode", mode]
    graphs = rng.choice(("", "", "off", "decode_off"))
    if graphs == "off":
        argv.append("--disable-cuda-graph")
    elif graphs == "decode_off":
        argv.append("--disable-decode-cuda-graph")
    tp = rng.choice((1, 1, 2, 4))
    if tp > 1:
        argv += ["--tp", str(tp)]
    if rng.random() < 0.2:
        argv += ["--pp-size", "2"]
    if rng.random() < 0.25:
        argv.append(rng.choice(pc.DECLINING))
    return (tuple(argv), rng.choice(pc.GPUS), rng.choice(pc.MODELS), rng.choice(pc.VALUES), ())


def main() -> None:
    args = [a for a in sys.argv[1:] if a not in ("--grid", "new", "old")]
    new_grid = "--grid" in sys.argv and "new" in sys.argv
    count = int(args[0]) if args else 200
    rng = random.Random(int(args[1]) if len(args) > 1 else 29)
    draw = generate_new if new_grid else generate
    cases = [draw(rng) for _ in range(count)]
    sglang = [pc.sglang_fraction(a, g, n, v, e) for a, g, n, v, e in cases]
    kept = [(c, s) for c, s in zip(cases, sglang, strict=True) if s is not None]
    lines = [(pc.graphfit_line(a, n, v, e), g) for (a, g, n, v, e), _ in kept]
    after = [pc.graphfit_fraction(line, g) for line, g in lines]
    before_tree = frozen(os.environ.get("GRAPHFIT_BEFORE", "/work/main"))
    child = subprocess.run([sys.executable, "-c", CHILD], input=json.dumps(lines),
                           capture_output=True, text=True, check=True, cwd=before_tree,
                           env={**os.environ, "PYTHONPATH": before_tree})
    before = json.loads(child.stdout)
    print(f"{'new' if new_grid else 'old'} grid: {count} generated lines, {len(kept)} SGLang "
          f"plans (the rest it refuses); before: graphfit at {before_tree}, after: this tree")
    for label, ours in (("before", before), ("after", after)):
        tally: Counter[tuple[str, str]] = Counter()
        for ((_, _, name, value, _), (theirs, _)), got in zip(kept, ours, strict=True):
            if isinstance(got, str):
                verdict = "not modelled" if "not modelled" in got else "refused"
            elif got is None and theirs > 0:
                verdict = "no value"
            else:
                verdict = "agree" if pc.disagreement(theirs, got) is None else "disagree"
            kind = "unset" if value is None else (
                "on" if value.lower() in ("1", "true", "yes", "y") else
                "off" if value.lower() in ("0", "false", "no", "n") else "unparsable")
            tally[(f"{name}/{kind}", verdict)] += 1
            tally[("all", verdict)] += 1
        groups = sorted({g for g, _ in tally})
        print(f"{label}:")
        for group in groups:
            row = ", ".join(f"{v} {tally[(group, v)]}" for v in
                            ("agree", "disagree", "no value", "not modelled", "refused")
                            if tally[(group, v)])
            print(f"  {group:22} {row}")
    planned = Counter(s[1] for _, s in kept)
    print(f"SGLang sized KV after capture on {planned[True]} lines, not on {planned[False]}")


if __name__ == "__main__":
    main()
