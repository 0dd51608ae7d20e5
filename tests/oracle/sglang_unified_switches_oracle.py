"""Lines with `--enable-unified-memory` and the cache / parallelism switches its start-up
checks read (issue 23 s41u): SGLANG_DISABLE_LAZY_COMPACTION, `--enable-hisparse`, a decode KV
offload and its storage backend, host-pool retraction, `--enable-lmcache`, the external
linker, `--enable-hierarchical-cache`, `--dcp-size 2` and a base fa3 with an fp8_e5m2 KV cache
(arg_groups/kv_cache_hook.py:351-413, 528-761; overrides.py:1262-1270), on PD roles and
colocated, compared as tests/oracle/sglang_unified_backends_oracle compares (SGLang's own
pipeline vs graphfit's plan for the pasted line). Shared by
tests/oracle/test_sglang_unified_switches_oracle.py and
tests/oracle/measure_sglang_unified_memory.py."""

from __future__ import annotations

import random

from tests.oracle import sglang_unified_backends_oracle as ub
from tests.oracle import sglang_unified_memory_oracle as um

LAZY = "SGLANG_DISABLE_LAZY_COMPACTION"
MODELS = ("llama", "swa_optin", "gemma4", "mla")
MLA_BACKENDS = ("flashinfer", "trtllm_mla", "fa3", "triton")
Case = tuple[str, tuple[str, ...], str, "str | None", tuple[tuple[str, str], ...]]


def _switches(rng: random.Random, mode: str | None) -> tuple[str, ...]:
    """Each switch with its own chance; the decode-only ones mostly on a decode server."""
    argv: tuple[str, ...] = ()
    decode = mode == "decode"
    if rng.random() < (0.35 if decode else 0.08):
        argv += ("--disaggregation-decode-enable-offload-kvcache",)
        store = rng.choice(("file", "file", "file", "mooncake", None))
        argv += ("--hicache-storage-backend", store) if store else ()
    if rng.random() < (0.3 if decode else 0.06):
        argv += ("--disaggregation-decode-retraction-backup",
                 rng.choice(("host_pool", "host_pool", "cpu_tensor")))
    for flag, chance in (("--enable-hisparse", 0.1), ("--enable-lmcache", 0.07),
                         ("--enable-unified-cache-external-linker", 0.07),
                         ("--enable-hierarchical-cache", 0.12)):
        if rng.random() < chance:
            argv += (flag,)
    return argv


def generate(count: int, seed: int) -> list[Case]:
    """`count` lines: a model (an MLA one without a draft; now and then DeepSeek-V4, whose
    override writes dsv4 over a named backend), FULL or breakable prefill graphs,
    no draft / EAGLE / DFLASH, backend flags, a PD role over mooncake (or none), the switches,
    `--dcp-size 2` at TP 2, a base fa3 with fp8_e5m2, the lazy-compaction variable, a GPU and
    SGLANG_ENABLE_POST_CAPTURE_KV_SIZING 1 / unset."""
    rng = random.Random(seed)
    out: list[Case] = []
    for _ in range(count):
        name = "dsv4" if rng.random() < 0.06 else rng.choice(MODELS)
        mla = name == "mla"
        spec = () if mla else um.spec_argv(name, rng.choice((None, "EAGLE", "DFLASH")), 1)
        if mla and rng.random() < 0.7:
            flags: tuple[str, ...] = ("--attention-backend", rng.choice(MLA_BACKENDS))
        else:
            flags = () if mla else ub.backend_flags(rng)
        mode = rng.choice((None, None, "decode", "decode", "prefill"))
        pd = () if mode is None else ("--disaggregation-mode", mode,
                                      "--disaggregation-transfer-backend", "mooncake")
        dcp = ("--dcp-size", "2", "--tp-size", "2") if rng.random() < 0.2 else ()
        fp8: tuple[str, ...] = ()
        if rng.random() < 0.15:
            fp8 = ("--kv-cache-dtype", "fp8_e5m2")
            if "--attention-backend" not in flags and rng.random() < 0.7:
                fp8 += ("--attention-backend", "fa3")
        argv = ("--enable-unified-memory", "--cuda-graph-backend-prefill",
                rng.choice(("full", "breakable")), "--max-running-requests", "48",
                *spec, *flags, *pd, *_switches(rng, mode), *dcp, *fp8)
        lazy = rng.choice(((LAZY, "1"),) * 2 + ((LAZY, "0"),) + ((),) * 5)
        extra = (lazy,) if lazy else ()
        out.append((name, argv, rng.choice(tuple(ub.GPUS)), rng.choice(("1", None)), extra))
    return out


def compare(case: Case) -> tuple[ub.Outcome, tuple[str, float | None] | str, str | None]:
    """(SGLang's outcome, graphfit's, the disagreement or None)."""
    name, argv, gpu, value, extra = case
    theirs = ub.sglang_side(argv, name, gpu, value, extra)
    ours = ub.graphfit_side(argv, name, gpu, value, extra)
    return theirs, ours, ub.verdict(theirs, ours)
