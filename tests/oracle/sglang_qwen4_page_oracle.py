"""Qwen4-Exp's page size (issue 23 s45m), SGLang 0.5.23's own argument pipeline vs graphfit's
resolution of the same pasted line (shared by tests/oracle/test_sglang_qwen4_page_oracle.py
and tests/oracle/measure_sglang_qwen4_page.py): its model override restates Qwen3.5's SM100
branch (model_overrides/qwen4_exp.py:57-71: with no `--attention-backend`, triton or
trtllm_mha, page size 64 for trtllm_mha else 1, over the line's) and writes 64 over any line
and GPU for a compressed QSA indexer (:89-96). The page size each side resolves is compared;
lines either side refuses count as agreeing only where both refuse."""

from __future__ import annotations

import functools
import json
import random
import tempfile
from pathlib import Path

from tests.oracle import sglang_mamba_memory_oracle as mo
from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_post_capture_oracle as pc
from tests.oracle import sglang_unified_page_major_oracle as pm

MRR = ("--max-running-requests", "48")
# a compressed QSA indexer SGLang's checks accept (qsa/config.py:36-75: kv heads 1, budget /
# ratio 512 or 2048; the index head as wide as the RoPE dimension, qwen4_exp.py's validator)
QSA = {"indexer_n_heads": 4, "indexer_kv_heads": 1, "indexer_head_dim": 256,
       "indexer_budget": 2048, "indexer_compress_ratio": 4}
MODELS = ("qwen4", "qwen4_qsa")
Case = tuple[tuple[str, ...], str, str]  # argv, model name, GPU


@functools.cache
def register() -> None:
    """The two model directories, under their names in sglang_post_capture_oracle.model_dir."""
    pm.register()
    text = mo.QWEN4_EXP_CONFIG["text_config"]
    assert isinstance(text, dict)
    for name, data in (("qwen4", mo.QWEN4_EXP_CONFIG),
                       ("qwen4_qsa", {**mo.QWEN4_EXP_CONFIG, "text_config": {**text, **QSA}})):
        root = Path(tempfile.mkdtemp(prefix=f"graphfit-s45m-{name}-"))
        (root / "config.json").write_text(json.dumps(data))
        pc.register(name, str(root))


def _pick(rng: random.Random, flag: str, choices: tuple[str | None, ...]) -> tuple[str, ...]:
    name = rng.choice(choices)
    return () if name is None else (flag, name)


def generate(count: int, seed: int) -> list[Case]:
    """Lines drawing the page size, the strategy, the radix cache, speculation and (now and
    then) `--attention-backend`, on a B200 (mostly) or an H100, with or without QSA."""
    rng = random.Random(seed)
    out: list[Case] = []
    for _ in range(count):
        argv: tuple[str, ...] = MRR
        argv += _pick(rng, "--page-size", (None, None, "16", "64"))
        argv += _pick(rng, "--mamba-radix-cache-strategy", (None, "auto", "extra_buffer"))
        if rng.random() < 0.25:
            argv += ("--disable-radix-cache",)
        if rng.random() < 0.25:
            argv += ("--speculative-algorithm", "EAGLE", "--speculative-num-steps", "2",
                     "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "3")
        if rng.random() < 0.15:
            argv += ("--attention-backend", "triton")
        model = "qwen4_qsa" if rng.random() < 0.3 else "qwen4"
        out.append((argv, model, "H100" if rng.random() < 0.2 else "B200"))
    return out


def sglang_page(case: Case) -> int | str:
    """SGLang's page size after its argument pipeline, or its refusal's message."""
    argv, model, gpu = case
    register()
    gb, capability = pm.GPUS[gpu]
    with pc.environment(None):
        r = so.resolve(argv, gpu_mem_gb=gb, model=pc.model_dir(model), capability=capability)
    if isinstance(r, so.Rejected):
        return r.text
    from sglang.srt.arg_groups.overrides import resolving_view

    return int(resolving_view(r.record).page_size)


def graphfit_page(case: Case) -> int | str:
    """graphfit's resolved page size for the pasted line, or its refusal."""
    from graphfit import ConfigError
    from graphfit.cli.options import resolve_values
    from graphfit.inputs import commandline

    argv, model, gpu = case
    register()
    line = pc.graphfit_line(argv, model, None, ())
    try:
        return int(resolve_values({"gpu_memory_gb": gpu}, environ={},
                                  pasted=commandline.read(line)).config().page_size)
    except ConfigError as exc:
        return str(exc)


def verdict(case: Case) -> str | None:
    """None where both refuse or both resolve the same page size."""
    theirs, ours = sglang_page(case), graphfit_page(case)
    if isinstance(theirs, str) and isinstance(ours, str):
        return None
    return None if theirs == ours else f"page size: SGLang {str(theirs)[-160:]}, graphfit {ours}"
