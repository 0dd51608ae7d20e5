"""Measure graphfit against SGLang on two MiniMax-M3 leftovers (issue 23, s53m):
`python -m tests.oracle.measure_sglang_minimax_sparse_config [COUNT] [SEED] [BEFORE]` (default
60 draws, seed 23), in turn from two families:

- sparse: a MiniMax-M3 target (top level or under the VL wrapper, at one of the target
  oracle's layouts) whose sparse config is absent, null, one with no sparse layer, one with a
  sparse layer, or (VL) only at the wrapper's top level, with a per_head or per_layer QK
  norm. SGLang builds the class and reads the sparse config as its KV pool does
  (tests.oracle.sglang_minimax_target_oracle.build); graphfit reads the pasted line and
  graphfit's own config file on the same target.
- platform: s52e's MiniMax-M3 MoE targets and a2a / runner flags
  (tests.oracle.measure_sglang_minimax_rocm), no environment, on CUDA (`80`) or an MI300X.
  SGLang resolves and builds on that platform; graphfit reads graphfit's config file (the GPU
  by flag) and the live check (`from_sglang` on SGLang's own ServerArgs of the line, the GPU
  as `gpu_memory_gb`; lines SGLang's resolution refuses have no ServerArgs and are counted
  "live n/a").

Each reader's answer is compared with tests.oracle.test_sglang_minimax_deepep_oracle.agree
(same verdict; a refusal names SGLang's exception and cites its raising line). BEFORE, a
repository root (e.g. /work/main), reruns the same draws in a child process whose `graphfit`
is that tree's and whose oracle is this one, and prints its counts first."""

from __future__ import annotations

import json
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from tests.oracle import measure_sglang_minimax_rocm as rocm_draws
from tests.oracle import test_sglang_minimax_deepep_oracle as dd
from tests.oracle import test_sglang_minimax_sparse_config_oracle as sc
from tests.oracle.measure_root import main_before_after

SPARSE = ("absent", "null", "dense", "sparse", "top")
_ONE = {"sparse_attention_freq": [0, 1], "sparse_num_index_heads": 4, "sparse_index_dim": 64}


def _file(path: str, keys: dict[str, Any] | None = None) -> str:
    body = json.dumps({"engine": "sglang", "model_path": path, "tp_size": 2, **(keys or {})},
                      sort_keys=True)
    return sc.content_dir(Path(sc.mo._DIRS.name), body) + "/config.json"


def _cli(args: list[str]) -> tuple[int, str]:
    from tests.helpers import run_cli

    code, _out, text = run_cli(args)
    errors = [ln for ln in text.splitlines() if ln.startswith("error:")]
    return code, (errors[-1] if errors else "")


def _sparse_dir(kind: str, nested: bool, norm: str) -> str:
    if kind == "absent":
        return sc.mo.target_dir({"head_dim": 128, "qk_norm_type": norm,
                                 "sparse_attention_config": None}, nested)
    value = {"null": None, "dense": sc._DENSE, "sparse": _ONE, "top": None}[kind]
    top = {"sparse_attention_config": sc._DENSE} if kind == "top" else None
    return sc._dir({"sparse_attention_config": value, "qk_norm_type": norm}, nested, top)


def measure(count: int, seed: int) -> None:
    from graphfit.integrations.sglang import from_sglang
    from graphfit.planner.core.errors import ConfigError

    rng = random.Random(seed)
    counts: Counter[str] = Counter()
    platform = rocm_draws.draws(count, seed)
    for i in range(count):
        if i % 2 == 0:
            kind, nested = rng.choice(SPARSE), rng.choice((False, True))
            nested = nested or kind == "top"
            norm = rng.choice(("per_head", "per_head", "per_layer"))
            path = _sparse_dir(kind, nested, norm)
            theirs = sc.mo.build(path, 2, 1)
            counts[f"sparse: sglang {'refuses' if theirs else 'builds'}"] += 1
            answers = {"pasted": sc.mt.graphfit_line(path, 2, 1),
                       "file": _cli(["plan", "--gpu-memory-gb", "80", "--config",
                                     _file(path)])}
        else:
            fields, nested, tp, dp, extra, _jit = platform[i]
            gpu = rng.choice(("80", "MI300X"))
            fields = {"head_dim": 128, **fields}
            quant = fields.pop("quantization_config", None)
            vision = {"wrapper": {"quantization_config": quant}} if nested and quant else None
            if quant and not nested:
                fields["quantization_config"] = quant
            path = sc.mo.target_dir(fields, nested, vision)
            cuda = sc.mo.build(path, tp, dp, extra, own=True)  # CUDA first: see mo.build
            theirs = cuda if gpu == "80" else sc.mo.build(path, tp, dp, extra, own=True,
                                                          rocm=True)
            counts[f"platform {gpu}: sglang {'refuses' if theirs else 'builds'}"] += 1
            flags = {"tp_size": tp, "attn_dp_size": dp}
            for name, value in zip(extra[::2], extra[1::2], strict=True):
                flags[name.lstrip("-").replace("-", "_")] = value
            answers = {"file": _cli(["plan", "--gpu-memory-gb", gpu, "--config",
                                     _file(path, flags)])}
            record = sc.mo.resolved_on(path, tp, dp, extra, rocm=gpu == "MI300X")
            if isinstance(record, str):
                counts["live n/a"] += 1
            else:
                try:
                    from_sglang(record.record, environ={}, max_num_seqs=8,
                                gpu_memory_gb=80.0 if gpu == "80" else gpu)
                    answers["live"] = (0, "")
                except ConfigError as exc:
                    answers["live"] = (2, f"error: {exc}")
        for reader, (code, said) in answers.items():
            ok = dd.agree(theirs, code, said)
            counts[f"{reader}: {'agree' if ok else 'differ'}"] += 1
            if not ok:
                print("differs:", reader, path, "|", theirs, "|", code, said[:160])
    print(dict(sorted(counts.items())))


if __name__ == "__main__":
    main_before_after("measure_sglang_minimax_sparse_config", measure, sys.argv[1:], 60, 23)
