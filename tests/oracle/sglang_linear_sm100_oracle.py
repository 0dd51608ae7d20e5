"""Qwen3-Next lines on SM100 (and Hopper for contrast) for two SGLang 0.5.23 rules graphfit
restates from issue 23 s44m, SGLang's own pipeline vs graphfit's resolution of the same pasted
line (shared by tests/oracle/test_sglang_linear_sm100_oracle.py and
tests/oracle/measure_sglang_linear_sm100.py):

* `handle_linear_attn_backend`'s SM100+ checks (arg_groups/attention_hook.py:334-395): a
  flashinfer decode / verify kernel needs bfloat16 SSM state, a flashinfer prefill kernel
  CUDA 13 (the oracle's torch reports 12.9: graphfit notes that one, it does not know the
  build);
* Qwen3-Next's override on SM100 with no `--attention-backend` under
  `--enable-unified-memory` (model_overrides/qwen3_5.py:26-49): triton, or trtllm_mha when
  the generic default is trtllm_mha and an extra-buffer strategy is given, the radix cache is
  off or a speculative algorithm is set. The backend each phase resolves to is compared."""

from __future__ import annotations

import random

from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_post_capture_oracle as pc
from tests.oracle import sglang_unified_page_major_oracle as pm

MRR = ("--max-running-requests", "48")
DTYPE_WORDS = "requires --mamba-ssm-dtype bfloat16"
CUDA_WORDS = "requires CUDA 13+"
KERNELS = ("triton", "flashinfer", "flashinfer", None)
Case = tuple[tuple[str, ...], str]  # argv, GPU
# the lazy extra buffer without the overlap schedule: SGLang asserts it when the KV cache is
# configured at model load (mem_cache/kv_cache_configurator.py:3072-3076), after the argument
# pipeline this oracle runs; graphfit refuses it while planning (sglang_mamba_pool)
LATER = "kv_cache_configurator.py:3073"


def _pick(rng: random.Random, flag: str, choices: tuple[str | None, ...]) -> tuple[str, ...]:
    name = rng.choice(choices)
    return () if name is None else (flag, name)


def generate_linear(count: int, seed: int) -> list[Case]:
    """Lines drawing the linear-attention kernels (base, decode, verify, prefill), the SSM
    state dtype and the GPU (B200 twice as often as H100)."""
    rng = random.Random(seed)
    out: list[Case] = []
    for _ in range(count):
        argv = (*MRR, *_pick(rng, "--linear-attn-backend", KERNELS),
                *_pick(rng, "--linear-attn-decode-backend", (None, None, *KERNELS)),
                *_pick(rng, "--linear-attn-verify-backend", (None, None, "triton",
                                                              "flashinfer")),
                *_pick(rng, "--linear-attn-prefill-backend", (None, None, "triton",
                                                               "flashinfer")),
                *_pick(rng, "--mamba-ssm-dtype", (None, "bfloat16", "bfloat16", "float32")))
        out.append((argv, rng.choice(("B200", "B200", "H100"))))
    return out


def generate_default(count: int, seed: int) -> list[Case]:
    """Unified-memory B200 lines naming no `--attention-backend`: the strategy, the radix
    cache, the overlap schedule, the page size, a phase flag and speculation drawn."""
    rng = random.Random(seed)
    out: list[Case] = []
    for _ in range(count):
        argv: tuple[str, ...] = ("--enable-unified-memory", *MRR)
        argv += _pick(rng, "--mamba-radix-cache-strategy",
                      (None, None, "auto", "extra_buffer", "extra_buffer_lazy", "no_buffer"))
        if rng.random() < 0.25:
            argv += ("--disable-radix-cache",)
        if "no_buffer" in argv or rng.random() < 0.3:
            argv += ("--disable-overlap-schedule",)
        if rng.random() < 0.2:
            argv += ("--cuda-graph-backend-prefill", "full")
        argv += rng.choice(((), (), ("--decode-attention-backend", "fa4"),
                            ("--prefill-attention-backend", "fa4")))
        if rng.random() < 0.2:
            argv += ("--speculative-algorithm", "EAGLE", "--speculative-num-steps", "2",
                     "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "3")
        out.append((argv, "B200"))
    return out


def sglang_side(case: Case) -> tuple[tuple[str, str] | None, str]:
    """SGLang's (prefill, decode) attention backends after resolution, or None and its
    message where it refuses."""
    argv, gpu = case
    pm.register()
    gb, capability = pm.GPUS[gpu]
    with pc.environment(None):
        r = so.resolve(argv, gpu_mem_gb=gb, model=pc.model_dir("qnext"), capability=capability)
    if isinstance(r, so.Rejected):
        return None, r.text
    from sglang.srt.arg_groups.overrides import resolving_view

    cfg = resolving_view(r.record)
    base = cfg.attention_backend
    return (cfg.prefill_attention_backend or base, cfg.decode_attention_backend or base), ""


def graphfit_side(case: Case) -> tuple[tuple[str | None, str | None], tuple[str, ...]] | str:
    """graphfit's (prefill, decode) backends and notes for the pasted line, or its refusal
    (the plan's too: the mamba pool's checks run there)."""
    from graphfit import ConfigError, plan
    from graphfit.cli.options import resolve_values
    from graphfit.inputs import commandline

    argv, gpu = case
    pm.register()
    line = pc.graphfit_line(argv, "qnext", None, ())
    try:
        resolved = resolve_values({"gpu_memory_gb": gpu}, environ={},
                                  pasted=commandline.read(line))
        config = resolved.config()
        plan(config)
    except ConfigError as exc:
        return str(exc)
    return ((config.prefill_attention_backend, config.decode_attention_backend),
            tuple(resolved.notes))


def linear_verdict(case: Case) -> str | None:
    """None where both sides agree on `handle_linear_attn_backend`'s SM100+ checks: SGLang's
    bf16 refusal exactly where graphfit refuses with SGLang's sentence (the kernel and the
    dtype named), SGLang's CUDA 13 refusal where
    graphfit plans with its note, both serving otherwise."""
    theirs, text = sglang_side(case)
    ours = graphfit_side(case)
    if theirs is None and DTYPE_WORDS in text:
        words = text.split("ValueError: ", 1)[-1].strip()  # SGLang's own sentence, in full
        return None if isinstance(ours, str) and words in ours else f"graphfit: {ours}"
    if isinstance(ours, str):
        return f"SGLang {theirs or text[-120:]}, graphfit refuses: {ours}"
    noted = any(CUDA_WORDS.replace("requires ", "") in n and "flashinfer" in n
                for n in ours[1])
    if theirs is None:
        if CUDA_WORDS in text:
            return None if noted else "SGLang needs CUDA 13, graphfit did not note it"
        return f"SGLang refuses for another reason: {text[-160:]}"
    return None


def default_verdict(case: Case) -> str | None:
    """None where both refuse, or both plan and every phase's backend is the same."""
    theirs, text = sglang_side(case)
    ours = graphfit_side(case)
    if theirs is not None and isinstance(ours, str) and LATER in ours \
            and "extra_buffer_lazy" in case[0] and "--disable-overlap-schedule" in case[0]:
        return None  # SGLang's KV cache configurator asserts it at load, past the pipeline
    if theirs is None or isinstance(ours, str):
        if theirs is None and isinstance(ours, str):
            return None
        return f"SGLang {theirs or text[-120:]}, graphfit {ours}"
    if ours[0] == theirs:
        return None
    unknown = "left unknown: " if None in ours[0] else ""
    return f"{unknown}backends: SGLang {theirs}, graphfit {ours[0]}"


def live_case(argv: tuple[str, ...], gpu: str) -> tuple[str | None, str | None]:
    """(SGLang's refusal or None, graphfit's refusal or None) for the live check on the
    ServerArgs SGLang's own `prepare_server_args` builds from the line (its fields hold the
    flags as given: resolution declares into `_resolved_overrides`), before SGLang resolves
    it (`resolve_once`); graphfit plans it with graphfit.integrations.sglang.from_sglang."""
    import contextlib
    import io

    from graphfit import ConfigError, plan
    from graphfit.integrations import sglang as gs
    from tests.oracle import sglang_stubs

    pm.register()
    gb, capability = pm.GPUS[gpu]
    full = ["--model-path", pc.model_dir("qnext"), *argv]
    o = so.oracle()
    theirs = None
    with pc.environment(None), sglang_stubs.fake_cuda(gb * so.MIB_PER_GB, capability=capability):
        with contextlib.redirect_stderr(io.StringIO()):
            record = o.server_args.prepare_server_args(full)
        try:
            ours = None
            plan(gs.from_sglang(record, environ={}, gpu_memory_gb=gb))
        except ConfigError as exc:
            ours = str(exc)
        try:
            record.resolve_once()
        except Exception as exc:  # SGLang's own refusal
            theirs = f"{type(exc).__name__}: {exc}"
    return theirs, ours


def live_verdict(case: Case) -> str | None:
    """None where the live check refuses with mamba_hook.py:161 exactly where SGLang refuses
    the ServerArgs with the no_buffer / trtllm_mha assertion."""
    theirs, ours = live_case(*case)
    sglang = theirs is not None and "no_buffer do not support trtllm_mha" in theirs
    graphfit = ours is not None and "mamba_hook.py:161" in ours
    return None if sglang == graphfit else f"SGLang {theirs}, graphfit {ours}"


def page_verdict(case: Case) -> str | None:
    """None where both refuse, or both plan with the same page size (Qwen3-Next's SM100
    override writes it, model_overrides/qwen3_5.py:46-49) and the same prefill graphs and
    fraction (tests/oracle/sglang_unified_backends_oracle.verdict)."""
    from graphfit import ConfigError
    from graphfit.cli.options import resolve_values
    from graphfit.inputs import commandline
    from tests.oracle import sglang_unified_backends_oracle as ub

    argv, gpu = case
    theirs, _ = pm.sglang_side(argv, "qnext", gpu)
    ours = pm.graphfit_side(argv, "qnext", gpu)
    differ = ub.verdict(theirs, ours)
    if differ is not None or theirs is None:
        return differ
    gb, capability = pm.GPUS[gpu]
    with pc.environment(None):
        r = so.resolve(argv, gpu_mem_gb=gb, model=pc.model_dir("qnext"), capability=capability)
    from sglang.srt.arg_groups.overrides import resolving_view

    page = resolving_view(r.record).page_size
    line = pc.graphfit_line(argv, "qnext", None, ())
    try:
        mine = resolve_values({"gpu_memory_gb": gpu}, environ={},
                              pasted=commandline.read(line)).config().page_size
    except ConfigError as exc:
        return str(exc)
    return None if mine == page else f"page size: SGLang {page}, graphfit {mine}"


def generate_page(count: int, seed: int) -> list[Case]:
    """B200 lines (and a few H100 ones) naming no `--attention-backend` most of the time: the
    page size, the strategy, the overlap schedule, the radix cache and speculation drawn."""
    rng = random.Random(seed)
    out: list[Case] = []
    for _ in range(count):
        argv: tuple[str, ...] = MRR
        argv += _pick(rng, "--page-size", (None, None, "16", "64"))
        argv += _pick(rng, "--mamba-radix-cache-strategy", (None, "auto", "no_buffer",
                                                             "extra_buffer"))
        if "no_buffer" in argv or rng.random() < 0.3:
            argv += ("--disable-overlap-schedule",)
        if rng.random() < 0.2:
            argv += ("--disable-radix-cache",)
        if rng.random() < 0.3:
            argv += ("--speculative-algorithm", "EAGLE", "--speculative-num-steps", "2",
                     "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "3")
        if rng.random() < 0.15:
            argv += ("--attention-backend", "triton")
        out.append((argv, "H100" if rng.random() < 0.15 else "B200"))
    return out


def live_linear_case(case: Case, given: dict[str, object] | None = None
                     ) -> tuple[str | None, str | None]:
    """(SGLang's refusal or None, graphfit's refusal or None) for the live path with the GPU
    named (issue 23 s45m): SGLang resolves the ServerArgs its own `prepare_server_args` builds
    from the line on that GPU's capability; graphfit reads the same ServerArgs with
    `from_sglang(..., gpu_memory_gb=<the GPU's name>)`, or with `given` as the GPU's
    keywords instead (issue 23 s47l: its GiB and capability)."""
    import contextlib
    import io

    from graphfit import ConfigError
    from graphfit.integrations import sglang as gs
    from tests.oracle import sglang_stubs

    argv, gpu = case
    pm.register()
    gb, capability = pm.GPUS[gpu]
    full = ["--model-path", pc.model_dir("qnext"), *argv]
    o = so.oracle()
    theirs = ours = None
    with pc.environment(None), sglang_stubs.fake_cuda(gb * so.MIB_PER_GB, capability=capability):
        with contextlib.redirect_stderr(io.StringIO()):
            record = o.server_args.prepare_server_args(full)
        try:
            gs.from_sglang(record, environ={}, **(given or {"gpu_memory_gb": gpu}))
        except ConfigError as exc:
            ours = str(exc)
        try:
            record.resolve_once()
        except Exception as exc:  # SGLang's own refusal
            theirs = f"{type(exc).__name__}: {exc}"
    return theirs, ours


def live_linear_verdict(case: Case, given: dict[str, object] | None = None) -> str | None:
    """None where the live path refuses with SGLang's own bf16 sentence exactly where SGLang
    refuses the ServerArgs with it, and reads the rest (the CUDA 13 refusal depends on the
    server's torch build: a note on a pasted line, nothing on this path)."""
    theirs, ours = live_linear_case(case, given)
    if theirs is not None and DTYPE_WORDS in theirs:
        words = theirs.split("ValueError: ", 1)[-1].strip()
        return None if ours is not None and words in ours else f"graphfit: {ours}"
    if ours is not None:
        return f"SGLang {theirs}, graphfit refuses: {ours}"
    if theirs is not None and CUDA_WORDS not in theirs:
        return f"SGLang refuses for another reason: {theirs[-160:]}"
    return None


def live_page_verdict(case: Case, given: dict[str, object] | None = None) -> str | None:
    """None where the live path with the GPU named (issue 23 s45m) gives the page size SGLang
    resolves the same ServerArgs to (Qwen3-Next's SM100 override, model_overrides/
    qwen3_5.py:46-49), or both refuse."""
    import contextlib
    import io

    from graphfit import ConfigError, plan
    from graphfit.integrations import sglang as gs
    from tests.oracle import sglang_stubs

    argv, gpu = case
    pm.register()
    gb, capability = pm.GPUS[gpu]
    full = ["--model-path", pc.model_dir("qnext"), *argv]
    o = so.oracle()
    with pc.environment(None), sglang_stubs.fake_cuda(gb * so.MIB_PER_GB, capability=capability):
        with contextlib.redirect_stderr(io.StringIO()):
            record = o.server_args.prepare_server_args(full)
        try:  # the plan too: the mamba pool's no_buffer checks run there
            config = gs.from_sglang(record, environ={}, **(given or {"gpu_memory_gb": gpu}))
            plan(config)
            ours: int | str = int(config.page_size)
        except ConfigError as exc:
            ours = str(exc)
    with pc.environment(None):
        r = so.resolve(argv, gpu_mem_gb=gb, model=pc.model_dir("qnext"), capability=capability)
    if isinstance(r, so.Rejected):
        return None if isinstance(ours, str) else f"SGLang refuses, graphfit page {ours}"
    from sglang.srt.arg_groups.overrides import resolving_view

    theirs = int(resolving_view(r.record).page_size)
    return None if theirs == ours else f"page size: SGLang {theirs}, graphfit {ours}"
