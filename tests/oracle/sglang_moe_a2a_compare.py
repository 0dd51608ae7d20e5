"""graphfit against SGLang 0.5.23 on MoE all-to-all command lines (`--moe-a2a-backend`).

SGLang's side: its argument pipeline (`sglang_oracle.resolve`) on a small Qwen3-MoE
config.json, then its decode graph runner constructors with the MoE flags seeded as the
scheduler seeds them for a MoE model (`sglang_oracle.published`, scheduler.py:995-1008).
graphfit's side: `graphfit plan --json -- sglang serve` on the same line and model
directory (the pasted line's reader, which sees every key at once). Compared: whether
each starts, the target decode ladder, the padded batch of every decode 1..pool, the batch
buffers' shapes, whether prefill graphs are on, and the default mem_fraction_static; on a
line with --max-running-requests (SGLang's request pool is then graphfit's), also the prefill
component against SGLang's prefill runner (tests/oracle/sglang_plan_prefill.py on this MoE
model: backend, captured token ladder, replay of token counts around every bucket, buffers,
the plan's proof), which covers DeepEP's 8-aligned breakable buckets (cuda_graph_hook.py:
315-342) and their interplay with the memory hook and the attention-DP clamp.
"""

from __future__ import annotations

import functools
import json
import random
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import graphfit
from graphfit import EngineConfig
from graphfit.cli.options import PASTED
from graphfit.planner.core.errors import BatchError
from tests.oracle import sglang_compare as sc
from tests.oracle import sglang_nvfp4_moe_oracle as nvfp4_moe
from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_stubs
from tests.oracle.environ_patch import sglang_environ

# the backends graphfit models (graphfit.planner.engines.sglang_moe_a2a.REFUSED: the rest)
MODELLED = ("none", "deepep", "mooncake", "nixl", "ascend_fuseep", "ascend_tp", "mori", "pplx",
            "megamoe", "deepep_v2", "flashinfer", "flashinfer_megamoe")
REFUSED: tuple[str, ...] = ()
# backends some of whose lines graphfit refuses as not modelled (sglang_flashinfer_megamoe:
# the W4A16 mode, a ModelOpt checkpoint without --quantization); never the reverse
PARTIAL = ("flashinfer_megamoe",)
# flashinfer_megamoe's environment (environ.py:1228-1246)
FIM_COMBINE_ENV = "SGLANG_FLASHINFER_MEGAMOE_COMBINE_DTYPE"
FIM_REDUCE_ENV = "SGLANG_FLASHINFER_MEGAMOE_IN_KERNEL_FC2_REDUCE"
FIM_W4A16_ENV = "SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16"
FIM_TOKENS_ENV = "SGLANG_FLASHINFER_MEGAMOE_MAX_TOKENS_PER_RANK"  # run time only
FLASHINFER_ENV = "SGLANG_FLASHINFER_NUM_MAX_DISPATCH_TOKENS_PER_RANK"
DEEPEP_V2_ENV = "SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK"
# the per-rank token budgets a line may set in its environment (environ.py:930, 1453, 1470)
MEGAMOE_ENV = "SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK"
MORI_ENV = "SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK"
PPLX_ENV = "SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK"
# GPU names a line may be planned on: graphfit's table of their nvidia-smi memory and compute
# capability (graphfit.inputs.gpus), which SGLang's side reads through the fake CUDA device
GPUS = ("H100", "H200", "B200", "A100", "RTX5090")
ASPECTS = ("acceptance", "megamoe_rule", "target_ladder", "target_padding", "buffers", "prefill_on",
           "mem_fraction", "prefill", "drafts")


@functools.cache
def model_dir() -> str:
    so.oracle()  # the stubs first
    root = Path(tempfile.mkdtemp(prefix="graphfit-sglang-moe-"))
    return str(sglang_stubs.write_moe_model_dir(root / "qwen3-moe"))


@functools.cache
def quantized_model_dir(quant_algo: str, architecture: str = "Qwen3MoeForCausalLM") -> str:
    """The same Qwen3-MoE shapes as `model_dir`, with a ModelOpt `quantization_config` of
    `quant_algo` (SGLang's hf_quant_config, configs/model_config.py:722-727) and the given
    model class: megamoe bounds the tokens per rank for NVFP4 experts whatever the class."""
    so.oracle()
    root = Path(tempfile.mkdtemp(prefix="graphfit-sglang-moe-q-"))
    directory = sglang_stubs.write_moe_model_dir(root / "model")
    data = json.loads((directory / "config.json").read_text())
    data["architectures"] = [architecture]
    data["quantization_config"] = {"quant_method": "modelopt", "quant_algo": quant_algo}
    (directory / "config.json").write_text(json.dumps(data))
    return str(directory)


def parts(argv: tuple[str, ...], gpu: float | str = 80
          ) -> tuple[dict[str, str], float | str, str, tuple[str, ...]]:
    """A generated line's (environment, GPU, model directory, SGLang flags): leading
    `VAR=value` words are the environment, `--gpu-memory-gb G` graphfit's GPU (a figure in GiB
    or a name), `--model-path DIR` the model (else `model_dir()`)."""
    words = list(argv)
    env: dict[str, str] = {}
    while words and "=" in words[0] and not words[0].startswith("-"):
        name, value = words.pop(0).split("=", 1)
        env[name] = value
    model = model_dir()
    for flag in ("--gpu-memory-gb", "--model-path"):
        if flag in words:
            i = words.index(flag)
            value = words[i + 1]
            del words[i:i + 2]
            if flag == "--model-path":
                model = value
            else:
                gpu = float(value) if value[0].isdigit() else value
    return env, gpu, model, tuple(words)


def _device(gpu: float | str) -> tuple[float, tuple[int, int] | None]:
    """GiB and compute capability the fake CUDA device reports for a line's GPU."""
    from graphfit.inputs.gpus import GPU_CAPABILITY_MAJOR, GPU_MEMORY_GB

    if isinstance(gpu, str):
        return GPU_MEMORY_GB[gpu], (GPU_CAPABILITY_MAJOR[gpu], 0)
    return gpu, None


@functools.lru_cache(maxsize=1024)
def sglang(argv: tuple[str, ...], gpu_mem_gb: float | str = 80) -> sc.SglangAnswer:
    env, gpu, model, flags = parts(argv, gpu_mem_gb)
    gib, capability = _device(gpu)
    # the line's variables, and what SGLang's hooks write, put back after (issue 23 s65x)
    with sglang_environ(env):
        resolved = so.resolve(flags, gpu_mem_gb=gib, model=model, capability=capability)
        if isinstance(resolved, so.Rejected):
            return sc.SglangAnswer(resolved, None)
        # the model's load: NVFP4's MoE method on the named GPU (issue 23 s54q)
        refused = nvfp4_moe.model_refusal(model, resolved.record, capability)
        if refused is not None:
            return sc.SglangAnswer(resolved, None, f"ValueError: {refused}")
        try:
            return sc.SglangAnswer(resolved, so.runners(resolved, hidden_size=2048,
                                                         vocab_size=151936))
        except Exception as exc:  # the server would not start
            return sc.SglangAnswer(resolved, None, f"{type(exc).__name__}: {exc}")


@functools.lru_cache(maxsize=1024)
def graphfit_cli(argv: tuple[str, ...], gpu_mem_gb: float | str = 80) -> sc.GraphfitAnswer:
    env, gpu, model, flags = parts(argv, gpu_mem_gb)
    shown = gpu if isinstance(gpu, str) else f"{gpu:g}"
    token = PASTED.set((*(f"{k}={v}" for k, v in env.items()), "sglang", "serve",
                        "--model-path", model, *flags))
    try:  # `graphfit plan --json --gpu-memory-gb G -- sglang serve ...` as cli.main splits it
        code, stdout, output = sc.run_graphfit(["plan", "--json", "--gpu-memory-gb", shown])
    finally:
        PASTED.reset(token)
    if code != 0:
        lines = [ln for ln in output.splitlines() if ln.strip()]
        return sc.GraphfitAnswer(argv, (lines or [f"exit {code}"])[-1])
    config = EngineConfig.from_dict(json.loads(stdout)["config"])
    return sc.GraphfitAnswer(argv, None, graphfit.plan(config))


def _padding(sg: sc.SglangAnswer, gf: sc.GraphfitAnswer) -> list[sc.Difference]:
    """The batch SGLang's target runner replays each decode of 1..n requests at against
    graphfit's, n the smaller request limit (SGLang's pool is sized against an unbounded KV
    here, graphfit's from its estimate: the pool itself is sglang_pool's, compared in
    test_sglang_pool_oracle)."""
    r = sg.resolved
    assert isinstance(r, so.Resolved) and sg.runners is not None and gf.plan is not None
    run = sg.runners.get("target")
    if run is None or not sc._gf_graphs(gf):
        return [] if run is None and not sc._gf_graphs(gf) else [
            sc.Difference("target_padding", "decode graphs on one side only")]
    limit = min(sg.max_requests, gf.plan.config.max_num_seqs)
    out = []
    for bs in range(1, limit + 1):
        ours = sc.sglang_decode_pad(run, bs, not r.disable_cuda_graph_padding)
        try:
            theirs = sc.graphfit_decode_pad(gf.plan, "target", 1, bs)
        except BatchError:  # past graphfit's request limit per attention-DP group
            break
        if ours != theirs:
            out.append(sc.Difference("target_padding", f"bs {bs}: SGLang {ours or 'eager'}, "
                                                       f"graphfit {theirs or 'eager'}"))
    return out


def _prefill_on(sg: sc.SglangAnswer, gf: sc.GraphfitAnswer) -> list[sc.Difference]:
    r = sg.resolved
    assert isinstance(r, so.Resolved) and gf.plan is not None
    from sglang.srt.arg_groups.overrides import resolving_view

    # an empty resolved token list builds no prefill runner (cuda_graph_setup.py:563-565)
    ours = r.prefill_backend != "disabled" and bool(
        resolving_view(r.record).cuda_graph_config.prefill.bs)
    theirs = any(name.startswith("prefill") for name in gf.plan.components)
    if ours == theirs:
        return []
    return [sc.Difference("prefill_on", f"prefill graphs: SGLang {r.prefill_backend}, "
                                        f"graphfit {'on' if theirs else 'off'}")]


def _mem_fraction(sg: sc.SglangAnswer, gf: sc.GraphfitAnswer) -> list[sc.Difference]:
    r = sg.resolved
    assert isinstance(r, so.Resolved) and gf.plan is not None
    from sglang.srt.arg_groups.overrides import resolving_view

    # both resolved values (the record's own attribute stays the caller's None; graphfit's
    # model stores its default in the config it resolves)
    ours = resolving_view(r.record).mem_fraction_static
    theirs = gf.plan.config.mem_fraction_static
    if theirs is None and (ours is None or float(ours) <= 0):
        return []  # not positive: graphfit leaves it unset and warns
    if theirs is not None and ours is not None and abs(float(ours) - theirs) < 1e-9:
        return []
    return [sc.Difference("mem_fraction", f"mem_fraction_static: SGLang {ours}, graphfit "
                                          f"{theirs}")]


def _prefill(argv: tuple[str, ...], gpu_mem_gb: float | str) -> list[sc.Difference]:
    """The prefill component against SGLang's prefill runner, every aspect of
    sglang_plan_prefill but the decode one (compared above with this model)."""
    from tests.oracle import sglang_plan_prefill as spp

    env, gpu, model, flags = parts(argv, gpu_mem_gb)
    if env or isinstance(gpu, str):
        return []  # sglang_plan_prefill runs a plain line on a GPU figure
    with sglang_environ({}):  # what SGLang writes stays with this line (s65x)
        out = spp.compare(flags, gpu, model)
    if not out.compared:
        return [sc.Difference("prefill", f"one side refuses: {out.graphfit_refuses or 'SGLang'}")]
    return [sc.Difference("prefill", f"{aspect}: {found[0][:300]}")
            for aspect, found in out.diffs.items() if found and aspect != "decode"]


def deepep_breakable(sg: sc.SglangAnswer) -> bool:
    """SGLang resolved the line to DeepEP with breakable prefill graphs."""
    r = sg.resolved
    return (isinstance(r, so.Resolved) and r.prefill_backend == "breakable"
            and getattr(r.record, "moe_a2a_backend", None) == "deepep")


def prefill_compared(argv: tuple[str, ...]) -> bool:
    """Lines whose prefill component is compared: SGLang's request pool without
    --max-running-requests comes from a KV capacity graphfit does not know."""
    return "--max-running-requests" in argv


# megamoe's start-up rules, as the words of SGLang's error (mega_moe_hook.py) and graphfit's
MEGAMOE_RULES = (("gpu", ("CUDA SM90",)), ("overlap", ("two-batch",)),
                 ("decode_budget", ("decode / verify forward", "decode / verify tokens")),
                 ("prefill_budget", ("effective prefill token budget",
                                     "prefill tokens per rank")),
                 ("chunked_prefill", ("chunked prefill to be enabled", "chunked prefill on")))


def megamoe_rule(text: str) -> str:
    """Which megamoe rule an error names ("other": none of them)."""
    return next((rule for rule, words in MEGAMOE_RULES if any(w in text for w in words)),
                "other")


def _megamoe_rule(sg: sc.SglangAnswer, gf: sc.GraphfitAnswer) -> list[sc.Difference]:
    """Both refuse a megamoe line: by the same rule."""
    if sg.rejected is None or gf.rejected is None:
        return []
    ours, theirs = megamoe_rule(str(sg.rejected)), megamoe_rule(gf.rejected)
    if ours == theirs:
        return []
    return [sc.Difference("megamoe_rule", f"SGLang refuses by {ours} ({str(sg.rejected)[:120]})"
                                          f", graphfit by {theirs} ({gf.rejected[:120]})")]


def compare(argv: tuple[str, ...], gpu_mem_gb: float | str = 80
            ) -> dict[str, list[sc.Difference]]:
    """Every aspect's differences for one command line (empty lists: agreement)."""
    sg, gf = sglang(argv, gpu_mem_gb), graphfit_cli(argv, gpu_mem_gb)
    out: dict[str, list[sc.Difference]] = {"acceptance": sc.compare_acceptance(sg, gf)}
    if "megamoe" in argv:
        out["megamoe_rule"] = _megamoe_rule(sg, gf)
    if sg.rejected is not None or gf.rejected is not None or sg.runners is None:
        return out
    out["target_ladder"] = sc.compare_target_ladder(sg, gf)
    out["target_padding"] = _padding(sg, gf)
    out["buffers"] = sc.compare_buffers(sg, gf, extra=True)
    out["prefill_on"] = _prefill_on(sg, gf)
    out["mem_fraction"] = _mem_fraction(sg, gf)
    if "--speculative-algorithm" in argv:  # the draft runners, built under the draft's
        # all-to-all backend as SGLang's workers build them (sglang_oracle.runners)
        out["drafts"] = (sc.compare_components(sg, gf) + sc.compare_draft_ladder(sg, gf)
                         + [d for name in ("draft", "draft_extend", "frozen_drafter")
                            for d in sc.compare_padding(sg, gf, name)])
    if prefill_compared(argv) and not parts(argv)[0] and "--gpu-memory-gb" not in argv:
        out["prefill"] = _prefill(argv, gpu_mem_gb)
    return out


def verdict_with(argv: tuple[str, ...], more: Callable[[Any, Any], list[str]]
                 ) -> tuple[str, str]:
    """("agree" | "differ" | "other", the line and what differs): every `compare` aspect, then
    `more(sglang answer, graphfit answer)`'s differences; "other" where graphfit refuses as not
    modelled a line SGLang starts (the gather measures' verdict: `--moe-dense-tp-size`, EAGLE
    draft entries)."""
    diffs = compare(argv)
    sg, gf = sglang(argv), graphfit_cli(argv)
    text = " ".join(w for w in argv if not w.startswith("/"))
    said = f"{text} :: SGLang {sg.rejected and str(sg.rejected)[:80]}"
    found = [d.detail for ds in diffs.values() for d in ds] + more(sg, gf)
    if not found:
        return "agree", said
    if sg.rejected is None and gf.rejected is not None and "not modelled" in gf.rejected:
        return "other", f"{said} / graphfit {gf.rejected[:120]}"
    return "differ", f"{said} / {found[0][:200]}"

def draw(rng: Any, backend: str | None = None) -> tuple[str, ...]:
    """One command line from the space the tests and the measurement share (`rng`: a
    random.Random, or an adapter over hypothesis' draw with the same methods); `backend`
    fixes the --moe-a2a-backend (by default DeepEP on about half the lines)."""
    argv: list[str] = []
    quantized = backend == "quant"  # the quantization lines (`_quantization`)
    if backend is None:
        backend = rng.choice(MODELLED * 3 + REFUSED + ("deepep",) * 20)
    elif quantized:
        backend = rng.choice(QUANT_BACKENDS)
    argv += ["--moe-a2a-backend", backend]
    if quantized:
        argv = _quantization(rng, argv, backend)
    if backend == "deepep":
        mode = rng.choice(("auto", "auto", "low_latency", "normal"))
        if mode != "auto":
            argv += ["--deepep-mode", mode]
        if rng.random() < 0.25:
            argv.append("--disable-prefill-cuda-graph")
    elif backend in ("mori", "pplx"):
        if rng.random() < 0.3:  # pplx refuses normal
            argv += ["--deepep-mode", rng.choice(("normal", "low_latency"))]
        if rng.random() < 0.2:  # pplx only with deep_gemm / auto
            argv += ["--moe-runner-backend", rng.choice(("deep_gemm", "triton"))]
        if rng.random() < 0.3:  # the dispatch budget from the environment
            env = MORI_ENV if backend == "mori" else PPLX_ENV
            argv = [f"{env}={rng.choice((64, 128, 512, 2048, 4096, 8192, 16384))}", *argv]
    if backend == "megamoe" or (backend == "none" and rng.random() < 0.1):
        argv = _megamoe(rng, argv, backend)
    if backend == "deepep_v2":
        argv = _deepep_v2(rng, argv)
    if backend == "flashinfer":
        argv = _flashinfer(rng, argv)
    if backend == "flashinfer_megamoe":
        argv = _flashinfer_megamoe(rng, argv)
    if rng.random() < 0.7:
        argv += ["--max-running-requests", str(rng.choice((rng.randint(1, 64),
                                                           rng.randint(1, 600))))]
    graphs = rng.choice(("default", "max_bs", "bs", "padding_off"))
    if graphs == "max_bs":
        argv += ["--cuda-graph-max-bs-decode", str(rng.randint(1, 300))]
    elif graphs == "bs":
        argv += ["--cuda-graph-bs-decode", *map(str, rng.sample(range(1, 200),
                                                                rng.randint(1, 5)))]
    elif graphs == "padding_off":
        argv.append("--disable-cuda-graph-padding")
    prefill = rng.choice(("default", "default", "max_bs", "bs", "chunk"))
    if prefill == "max_bs":  # below 4, at odd sizes, past the 2048 DeepEP default
        argv += ["--cuda-graph-max-bs-prefill", str(rng.choice((rng.randint(1, 40),
                                                                rng.randint(1, 9000))))]
    elif prefill == "bs":
        argv += ["--cuda-graph-bs-prefill", *map(str, rng.sample(range(1, 3000),
                                                                 rng.randint(1, 4)))]
    elif prefill == "chunk":  # the attention-DP clamp regenerates an unaligned ladder
        argv += ["--chunked-prefill-size", str(rng.choice((128, 256, 512, 1024, 2048, 4096,
                                                           16384)))]
    tp = rng.choice((1, 2, 4, 8))
    if tp > 1 and "--tp-size" not in argv:  # FlashInfer lines choose their own topology
        argv += ["--tp-size", str(tp)]
        if rng.random() < 0.5:
            argv += ["--attn-dp-size", str(rng.choice([d for d in (2, 4, 8) if tp % d == 0]))]
    if (backend == "pplx" and tp > 1 and "--attn-dp-size" not in argv
            and "--chunked-prefill-size" not in argv and rng.random() < 0.6):
        # what pplx needs to start: 2+ attention-DP groups, 128 tokens per rank
        argv += ["--attn-dp-size", str(tp), "--chunked-prefill-size", str(128 * tp)]
    if rng.random() < 0.15:
        argv.append("--enable-two-batch-overlap")
    if rng.random() < 0.15:  # EAGLE with the model as its own draft; its drafts' backend
        steps = rng.randint(1, 3)
        argv += ["--speculative-algorithm", "EAGLE", "--speculative-num-steps", str(steps),
                 "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens",
                 str(steps + 1), "--speculative-draft-model-path", model_dir()]
        if rng.random() < 0.6:
            argv += ["--speculative-moe-a2a-backend",
                     rng.choice(("none", "deepep", "mooncake", "nixl", "ascend_tp",
                                 "megamoe"))]
    return tuple(argv)


# backends the quantization lines draw (`draw(rng, "quant")`): the rules apply to every one
QUANT_BACKENDS = ("none", "none", "deepep", "mooncake", "flashinfer_megamoe",
                  "flashinfer_megamoe")
QUANT_FLAGS = ("fp8", "mxfp8", "modelopt_fp4", "modelopt_fp8", "modelopt_mixed",
               "nvfp4_online", "w4afp8", "compressed-tensors", "quark_mxfp4")
QUANT_RUNNERS = ("flashinfer_cutlass", "flashinfer_trtllm", "flashinfer_trtllm_routed",
                 "flashinfer_cutedsl", "flashinfer_megamoe", "triton", "deep_gemm", "cutlass")


def _quantization(rng: Any, argv: list[str], backend: str) -> list[str]:
    """A line for SGLang's quantization rules on any backend: a GPU (SM100 or not), a
    checkpoint (ModelOpt NVFP4 / FP8 / MXFP8 of a class whose SM100 override copies the
    method or of one without, a plain FP8 / FP4-expert / hybrid one, or none), a
    --quantization that may clash with it, a MoE runner, the W4A16 mode."""
    argv += ["--gpu-memory-gb", rng.choice(("B200", "B200", "H100"))]
    model = rng.choice(("plain", "NVFP4", "NVFP4", "FP8", "MXFP8", "fp8", "mxfp4_experts",
                        "hybrid_nvfp4"))
    if model in ("NVFP4", "FP8", "MXFP8"):
        arch = rng.choice(("Qwen3MoeForCausalLM", "Glm4MoeForCausalLM", "Qwen2MoeForCausalLM"))
        argv += ["--model-path", quantized_model_dir(model, arch)]
    elif model != "plain":
        argv += ["--model-path", layout_model_dir(model)]
    if rng.random() < 0.6:
        argv += ["--quantization", rng.choice(QUANT_FLAGS)]
    if rng.random() < 0.35:
        argv += ["--moe-runner-backend", rng.choice(QUANT_RUNNERS)]
    if backend == "flashinfer_megamoe":
        tp = rng.choice((2, 4))
        argv += ["--tp-size", str(tp), "--attn-dp-size", str(tp)]
        if rng.random() < 0.3:
            argv = [f"{FIM_W4A16_ENV}=1", *argv]
    return argv


def _megamoe(rng: Any, argv: list[str], backend: str) -> list[str]:
    """A megamoe line's GPU (SM90 / SM100 or not), model (Qwen3-MoE, or an NVFP4 / FP8
    checkpoint of a class with or without a fallback), budget from the environment; `none`
    lines get the runner alias (mega_moe_hook.py:259-276)."""
    if backend == "none":
        argv += ["--moe-runner-backend", "megamoe"]
    gpu = rng.choice((*GPUS, "H100", "B200"))
    argv += ["--gpu-memory-gb", gpu]
    model = rng.choice(("plain", "plain", "nvfp4", "fp8", "nvfp4-other", "fp8-other"))
    if model != "plain":
        algo = "NVFP4" if model.startswith("nvfp4") else "FP8"
        arch = "Qwen3MoeForCausalLM" if "other" not in model else "Glm4MoeForCausalLM"
        argv += ["--model-path", quantized_model_dir(algo, arch)]
    if rng.random() < 0.6:
        budget = rng.choice((16, 64, 256, 512, 1024, 2048, 4096, 8192, 16384, 65536))
        argv = [f"{MEGAMOE_ENV}={budget}", *argv]
    if rng.random() < 0.2:
        argv += ["--disaggregation-mode", rng.choice(("prefill", "decode"))]
    return argv


def _deepep_v2(rng: Any, argv: list[str]) -> list[str]:
    """A DeepEP v2 line: a budget from the environment on most (the default 128 refuses
    nearly every prefill chunk), a registered class or not, a runner, a given prefill backend
    (turned off after the memory hook counted it), chunking off now and then."""
    if rng.random() < 0.8:
        budget = rng.choice((128, 512, 1024, 2048, 4096, 8192, 16384, 65536))
        argv = [f"{DEEPEP_V2_ENV}={budget}", *argv]
    if rng.random() < 0.2:
        argv += ["--model-path", quantized_model_dir("FP8", "Glm4MoeForCausalLM")]
    if rng.random() < 0.2:
        argv += ["--moe-runner-backend", rng.choice(("deep_gemm", "triton"))]
    if rng.random() < 0.3:
        argv += ["--cuda-graph-backend-prefill", "breakable"]
    if rng.random() < 0.15:
        argv += ["--disaggregation-mode", rng.choice(("prefill", "decode"))]
    if rng.random() < 0.2:  # chunking off: --max-prefill-tokens bounds the prefill dispatch
        argv += ["--chunked-prefill-size", rng.choice(("-1", "0"))]  # (issue 23, s69a)
        if rng.random() < 0.5:
            argv += ["--max-prefill-tokens", str(rng.choice((1024, 4096, 16384, 40000)))]
    return argv


def _flashinfer(rng: Any, argv: list[str]) -> list[str]:
    """A FlashInfer A2A line: attention DP over the whole TP group on most, a runner and a
    --quantization (FlashInfer's runners take only some), a workspace from the environment,
    a prefill graph max past it."""
    if "--tp-size" not in argv and rng.random() < 0.6:
        argv += ["--tp-size", "2"]
    if "--tp-size" in argv and "--attn-dp-size" not in argv and rng.random() < 0.7:
        argv += ["--attn-dp-size", argv[argv.index("--tp-size") + 1]]
    if rng.random() < 0.85:
        argv += ["--moe-runner-backend", rng.choice(
            ("flashinfer_cutlass", "flashinfer_trtllm", "flashinfer_trtllm_routed",
             "deep_gemm", "flashinfer_cutedsl", "triton"))]
    if rng.random() < 0.3:
        argv += ["--quantization", rng.choice(("fp8", "modelopt_fp4", "modelopt_fp8"))]
    if rng.random() < 0.3:
        argv = [f"{FLASHINFER_ENV}={rng.choice((64, 512, 2048, 8192))}", *argv]
    if rng.random() < 0.15 and "--cuda-graph-max-bs-prefill" not in argv:
        argv += ["--cuda-graph-max-bs-prefill", str(rng.choice((4096, 6000, 9000)))]
    return argv


def _flashinfer_megamoe(rng: Any, argv: list[str]) -> list[str]:
    """A FlashInfer MegaMoE line: attention DP over the whole TP group on most, a GPU name
    (SM100 or not), a checkpoint with or without FP4 routed experts / hybrid NVFP4 metadata
    and of a validated class or not, a --quantization and runner, its environment."""
    if "--tp-size" not in argv and rng.random() < 0.7:
        argv += ["--tp-size", str(rng.choice((2, 4)))]
    if "--tp-size" in argv and rng.random() < 0.8:
        argv += ["--attn-dp-size", argv[argv.index("--tp-size") + 1]]
    argv += ["--gpu-memory-gb", rng.choice(("B200", "B200", "B200", "H100", "RTX5090"))]
    model = rng.choice(("plain", "mxfp4_experts", "hybrid_nvfp4", "hybrid_nvfp4",
                        "hybrid_no_group", "fp8", "modelopt_nvfp4", "other_class"))
    if model == "modelopt_nvfp4":
        argv += ["--model-path", quantized_model_dir("NVFP4")]
    elif model == "other_class":
        argv += ["--model-path", layout_model_dir(
            "hybrid_nvfp4", rng.choice(("Glm4MoeForCausalLM", "MixtralForCausalLM")))]
    elif model != "plain":
        argv += ["--model-path", layout_model_dir(model)]
    if model == "plain" and rng.random() < 0.8:  # a quantized checkpoint must match the flag
        # (ModelConfig._verify_quantization, configs/model_config.py:2000-2160: not modelled)
        argv += ["--quantization", rng.choice(("mxfp8", "mxfp8", "modelopt_fp4", "fp8",
                                               "nvfp4_online"))]
    if rng.random() < 0.3:
        argv += ["--moe-runner-backend", rng.choice(("flashinfer_megamoe", "flashinfer_trtllm",
                                                     "triton", "deep_gemm"))]
    if rng.random() < 0.25:
        argv = [f"{FIM_COMBINE_ENV}={rng.choice(('bf16', 'MXFP8', 'nvfp4', 'fp32'))}", *argv]
    if rng.random() < 0.2:
        argv = [f"{FIM_REDUCE_ENV}={rng.choice(('1', '0', 'maybe'))}", *argv]
    if rng.random() < 0.05:
        argv = [f"{FIM_W4A16_ENV}=1", *argv]
    if rng.random() < 0.2:
        argv = [f"{FIM_TOKENS_ENV}={rng.choice((1, 64, 4096))}", *argv]
    return argv


def lines(n: int, seed: int = 0, backend: str | None = None) -> list[tuple[str, ...]]:
    rng = random.Random(seed)
    return [draw(rng, backend) for _ in range(n)]


# checkpoint quantization_config layouts a flashinfer_megamoe line may load
# (configs/model_config.py:722-797: FP4 routed experts, hybrid NVFP4 MoE metadata)
FP4_LAYOUTS: dict[str, dict[str, object]] = {
    "mxfp4_experts": {"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic",
                      "weight_block_size": [128, 128], "routed_experts_quant_method": "mxfp4"},
    "hybrid_nvfp4": {"quant_method": "modelopt", "quant_algo": "MIXED_PRECISION",
                     "moe_quant_algo": "NVFP4", "group_size": 16, "ignore": ["lm_head"]},
    "hybrid_no_group": {"quant_method": "modelopt", "quant_algo": "MIXED_PRECISION",
                        "moe_quant_algo": "NVFP4"},
    "fp8": {"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic",
            "weight_block_size": [128, 128]},
}


@functools.cache
def layout_model_dir(layout: str, architecture: str = "Qwen3MoeForCausalLM") -> str:
    """The Qwen3-MoE shapes of `model_dir` with `FP4_LAYOUTS[layout]` as its
    quantization_config and the given model class."""
    so.oracle()
    root = Path(tempfile.mkdtemp(prefix="graphfit-sglang-moe-l-"))
    directory = sglang_stubs.write_moe_model_dir(root / "model")
    data = json.loads((directory / "config.json").read_text())
    data["architectures"] = [architecture]
    data["quantization_config"] = FP4_LAYOUTS[layout]
    (directory / "config.json").write_text(json.dumps(data))
    return str(directory)


@functools.cache
def class_model_dir(architecture: str) -> str:
    """The unquantized Qwen3-MoE shapes of `model_dir` under another model class."""
    so.oracle()
    root = Path(tempfile.mkdtemp(prefix="graphfit-sglang-moe-c-"))
    directory = sglang_stubs.write_moe_model_dir(root / "model")
    data = json.loads((directory / "config.json").read_text())
    data["architectures"] = [architecture]
    (directory / "config.json").write_text(json.dumps(data))
    return str(directory)
