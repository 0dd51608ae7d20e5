"""Measure graphfit's seq_lens padding fill of every SGLang 0.5.23 runner against SGLang's own
runner constructors over generated speculative lines (issue 23, s32v).

    PYTHONPATH=. python tests/oracle/measure_sglang_seq_len_fill.py [--lines N] [--seed S]
        [--graphfit DIR]

Each line is EAGLE (chain, or multi-layer), on a DeepSeek-V3.2 (DSA) model whose config.json
holds an `index_kpool` of 1, 2 or 4, or on the oracle's Llama; its attention flags are drawn
from none / `--attention-backend` / the split flags / `--speculative-draft-attention-backend`
/ `--speculative-attention-mode decode`, and the GPU from MI300X (SGLang's ROCm platform
override) and H100. SGLang resolves the line and builds its runners
(tests/oracle/sglang_oracle.py `runners`: the single-layer draft-extend runner resolves its
fill through `resolve_draft_extend_seq_len_fill_value` on a backend holding the draft
config's kpool when it is DeepseekSparseAttnBackend); graphfit plans the pasted line with the
GPU named. Printed: lines SGLang resolved, and for how many every runner's fill agrees
(overall, on the DSA lines whose draft-extend backend is DSA with kpool > 1, on lines naming
only some backend flags on ROCm).

`--dsa`: DSA models only (index_kpool 2 or 4), backend names dsa / nsa / flashmla.
`--graphfit DIR`: import graphfit from DIR (e.g. /work/main, the "before") while the oracle
stays this checkout's; the same seed draws the same lines.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=120)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--graphfit", default=None)
    parser.add_argument("--dsa", action="store_true",
                        help="DSA models with index_kpool 2 or 4 only, DSA-heavy flags")
    return parser.parse_args()


ARGS = _args()
sys.path.insert(0, str(ROOT))
from tests.oracle.before_tree import frozen  # noqa: E402  (imports no graphfit)

if ARGS.graphfit:  # graphfit from elsewhere, the oracle (`tests`) from here: only the
    # package is put on the path (a link in a fresh folder), not the other checkout's tests
    _only = Path(tempfile.mkdtemp(prefix="gf-before-"))
    (_only / "graphfit").symlink_to(Path(frozen(ARGS.graphfit)).resolve() / "graphfit")
    sys.path.insert(0, str(_only))

import logging  # noqa: E402

from tests.oracle import sglang_mtp_oracle as mo  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_stubs as ss  # noqa: E402

FLAGS = [
    (), ("--attention-backend", "{b}"), ("--prefill-attention-backend", "{b}"),
    ("--decode-attention-backend", "{b}"), ("--speculative-draft-attention-backend", "{b}"),
    ("--speculative-attention-mode", "decode"),
    ("--decode-attention-backend", "{b}", "--prefill-attention-backend", "{c}"),
]


def _dsa_model(root: Path, kpool: int) -> str:
    path = ss.write_mla_model_dir(root / f"dsa{kpool}")
    data = json.loads((path / "config.json").read_text())
    data.update({"architectures": ["DeepseekV32ForCausalLM"], "model_type": "deepseek_v32",
                 "index_topk": 2048, "index_n_heads": 64, "index_head_dim": 128,
                 "index_kpool": kpool})
    (path / "config.json").write_text(json.dumps(data))
    return str(path)


def _line(rng: random.Random, dsa: bool) -> tuple[str, ...]:
    names = ["dsa", "dsa", "flashmla", "triton"] if dsa else ["triton", "aiter", "fa3"]
    if ARGS.dsa:
        names = ["dsa", "nsa", "flashmla"]
    flags = rng.choice(FLAGS)
    flags = tuple(f.format(b=rng.choice(names), c=rng.choice(names)) for f in flags)
    steps = rng.randint(1, 4)
    multi = ("--enable-multi-layer-eagle",) if rng.random() < 0.2 else ()
    return ("--max-running-requests", str(rng.choice([8, 33])), "--speculative-algorithm",
            "EAGLE", "--speculative-num-steps", str(steps), "--speculative-eagle-topk", "1",
            "--speculative-num-draft-tokens", str(steps + 1), *flags, *multi)


def _fill(plan: Any, name: str) -> int:
    from tests.oracle import sglang_compare as sc

    comp = plan.components[sc.GF_COMPONENT[name]]
    return int(next(b for b in comp.buffers if b.name == "seq_lens").fill.value)


def main() -> None:
    import os

    logging.disable(logging.WARNING)
    import graphfit
    from graphfit.cli.options import build_config
    from graphfit.inputs.gpus import GPU_MEMORY_GB
    from graphfit.planner.plan import plan
    print(f"graphfit from {Path(graphfit.__file__).resolve().parent.parent}")
    rng = random.Random(ARGS.seed)
    root = Path(tempfile.mkdtemp(prefix="gf-fill-"))
    so.oracle()
    models = {k: _dsa_model(root, k) for k in (1, 2, 4)}
    tally: dict[str, Counter[str]] = {"all": Counter(), "dsa kpool": Counter(),
                                       "partial flags, ROCm": Counter()}
    for _ in range(ARGS.lines):
        dsa = ARGS.dsa or rng.random() < 0.6
        kpool = rng.choice([2, 4] if ARGS.dsa else [1, 2, 4])
        model = models[kpool] if dsa else str(so.oracle().model_dir)
        gpu = rng.choice(["MI300X", "H100"])
        argv = _line(rng, dsa)
        os.environ.pop("SGLANG_USE_CUDA_IPC_TRANSPORT", None)
        with mo._restored_environ(), mo._platform(gpu):
            r = so.resolve(argv, gpu_mem_gb=GPU_MEMORY_GB[gpu], model=model,
                           capability=mo.CAPABILITIES.get(gpu, (9, 4)))
            if not isinstance(r, so.Resolved):
                tally["all"]["rejected by SGLang"] += 1
                continue
            runners = so.runners(r)
        try:
            ours = plan(build_config({"gpu_memory_gb": gpu}, environ={}, pasted=[
                "python", "-m", "sglang.launch_server", "--model-path", model, *argv]))
            agree = all(_fill(ours, n) == run.seq_len_fill_value for n, run in runners.items())
            verdict = "agree" if agree else "disagree"
        except Exception as exc:  # a graphfit refusal of a line SGLang serves
            verdict = f"refused ({type(exc).__name__})"
        tally["all"][verdict] += 1
        extend = runners.get("draft_extend")
        if dsa and kpool > 1 and extend is not None and extend.seq_len_fill_value > 1:
            tally["dsa kpool"][verdict] += 1
        named = [a for a in argv if a.endswith("-backend") or a == "--speculative-attention-mode"]
        if gpu == "MI300X" and named and "--attention-backend" not in named:
            tally["partial flags, ROCm"][verdict] += 1
    for what, t in tally.items():
        total = sum(v for k, v in t.items() if k != "rejected by SGLang")
        print(f"{what}: {t['agree']}/{total} lines agree (every runner's seq_lens fill), "
              + ", ".join(f"{k} {v}" for k, v in sorted(t.items()) if k != "agree"))


if __name__ == "__main__":
    main()
