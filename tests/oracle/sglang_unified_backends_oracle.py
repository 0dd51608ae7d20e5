"""Lines with `--enable-unified-memory` and attention-backend flags, PD roles and FULL prefill
graphs (issue 23 s39u): SGLang 0.5.23's own resolution (`handle_unified_memory_pool`,
arg_groups/kv_cache_hook.py:528-718, after the memory hook, pipeline.py:218, 338) against
graphfit's plan for the same pasted line: SGLang's refusal, or its final prefill-graph backend
(the FULL fallback, :690-712) and mem_fraction_static (shared by
tests/oracle/test_sglang_unified_backends_oracle.py and
tests/oracle/measure_sglang_unified_memory.py).

The GPU is named on graphfit's side (A100: SGLang's fake device is an Ampere of 80 GiB; H100:
a Hopper of 79.6 GiB), so graphfit restates SGLang's default backend for a line naming none.
"""

from __future__ import annotations

import random
from typing import Any

from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_post_capture_oracle as pc
from tests.oracle import sglang_unified_memory_oracle as um

GPUS: dict[str, tuple[float, tuple[int, int]]] = {"A100": (80.0, (8, 0)),
                                                  "H100": (79.6, (9, 0))}
BACKENDS = ("fa3", "flashinfer", "triton", "trtllm_mha", "fa4")
MODELS = ("swa_optin", "llama", "gemma4")
ALGORITHMS = (None, "EAGLE", "DFLASH", "NGRAM")

Outcome = tuple[str, float | None] | None  # (prefill backend, fraction); None: refused


def _value(backend: Any) -> str:
    return str(getattr(backend, "value", backend))


def sglang_side(argv: tuple[str, ...], name: str, gpu: str, value: str | None,
                extra: tuple[tuple[str, str], ...] = ()) -> Outcome:
    """SGLang's final prefill-graph backend and fraction, or None where it refuses (`extra`:
    more environment variables, issue 23 s41u)."""
    gb, capability = GPUS[gpu]
    with pc.environment(value, extra):
        r = so.resolve(argv, gpu_mem_gb=gb, model=pc.model_dir(name), capability=capability)
    if isinstance(r, so.Rejected):
        return None
    from sglang.srt.arg_groups.overrides import resolving_view

    cfg = resolving_view(r.record)
    return _value(cfg.cuda_graph_config.prefill.backend), float(cfg.mem_fraction_static)


def graphfit_side(argv: tuple[str, ...], name: str, gpu: str, value: str | None,
                  extra: tuple[tuple[str, str], ...] = ()) -> tuple[str, float | None] | str:
    """graphfit's planned prefill-graph backend and fraction, or its refusal's message."""
    from graphfit import ConfigError
    from graphfit.cli.options import resolve_values
    from graphfit.inputs import commandline
    from graphfit.planner.engines.sglang_prefill_plan import prefill_graphs

    line = pc.graphfit_line(argv, name, value, extra)
    try:
        config = resolve_values({"gpu_memory_gb": gpu}, environ={},
                                pasted=commandline.read(line)).config()
        return prefill_graphs(config).backend, config.mem_fraction_static
    except ConfigError as exc:
        return str(exc)


def verdict(theirs: Outcome, ours: tuple[str, float | None] | str) -> str | None:
    """None where graphfit agrees: both refuse, the same prefill backend and fraction, or
    graphfit refuses "as not modelled" a line SGLang serves (counted apart by the measure)."""
    if theirs is None:
        return None if isinstance(ours, str) else f"SGLang refuses, graphfit plans {ours}"
    if isinstance(ours, str):
        return None if "not modelled" in ours else f"graphfit refuses: {ours[:160]}"
    if theirs[0] != ours[0]:
        return f"prefill graphs: SGLang {theirs[0]}, graphfit {ours[0]}"
    return pc.disagreement(theirs[1], ours[1]) if theirs[1] is not None else None


def backend_flags(rng: random.Random) -> tuple[str, ...]:
    """None, the base flag, both split flags, or one of them."""
    kind = rng.randrange(4)
    if kind == 0:
        return ()
    if kind == 1:
        return ("--attention-backend", rng.choice(BACKENDS))
    prefill = ("--prefill-attention-backend", rng.choice(BACKENDS))
    decode = ("--decode-attention-backend", rng.choice(BACKENDS))
    return (*prefill, *decode) if kind == 2 else rng.choice((prefill, decode))


def pd_flags(rng: random.Random) -> tuple[str, ...]:
    """Mostly colocated; else a PD role with a transfer backend and maybe --pp-size 2."""
    if rng.random() < 0.6:
        return ()
    argv = ("--disaggregation-mode", rng.choice(("prefill", "decode")),
            "--disaggregation-transfer-backend", rng.choice(("mooncake", "mooncake", "nixl")))
    return argv + (("--pp-size", "2") if rng.random() < 0.25 else ())


Case = tuple[str, tuple[str, ...], str, str | None]  # model, argv, GPU, the variable


def generate(count: int, seed: int) -> list[Case]:
    """`count` lines: a model, FULL or breakable prefill graphs, an algorithm (topk 1),
    backend flags, a PD role, a GPU and SGLANG_ENABLE_POST_CAPTURE_KV_SIZING 1 / unset."""
    rng = random.Random(seed)
    out: list[Case] = []
    for _ in range(count):
        name = rng.choice(MODELS)
        spec = um.spec_argv(name, rng.choice(ALGORITHMS), 1)
        argv = ("--enable-unified-memory", "--cuda-graph-backend-prefill",
                rng.choice(("full", "full", "breakable")), "--max-running-requests", "48",
                *spec, *backend_flags(rng), *pd_flags(rng))
        out.append((name, argv, rng.choice(tuple(GPUS)), rng.choice(("1", None))))
    return out
