"""Lines with `--enable-unified-memory` on the models and flags s41u's generator did not draw
(issue 23 s42u): the page-major layout's linear-attention / mamba kernel checks
(arg_groups/kv_cache_hook.py:828-862) and its list for unequal K / V rows (:810-811,
`has_asymmetric_kv`, configs/model_config.py:1263-1271); a mamba hybrid (Qwen3-Next) with
host-pool retraction and decode offload (:574-587); an MLA hybrid-SWA model under
`--dcp-size 2` (:733-738); `--disaggregation-decode-host-receive-threshold` below 1, which
makes the retraction backup host_pool (pd_disaggregation_hook.py:64-80). SGLang's own pipeline
vs graphfit's plan for the pasted line, compared as tests/oracle/sglang_unified_backends_oracle
compares (shared by tests/oracle/test_sglang_unified_page_major_oracle.py and
tests/oracle/measure_sglang_unified_memory.py)."""

from __future__ import annotations

import functools
import json
import random
import tempfile
from pathlib import Path
from typing import Any

from tests.oracle import sglang_mamba_oracle as mo
from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_post_capture_oracle as pc
from tests.oracle import sglang_stubs
from tests.oracle import sglang_unified_backends_oracle as ub
from tests.oracle import sglang_unified_memory_oracle as um

# the hybrid-SWA MiMoV2 class with MiMo-V2-Flash's K / V widths (192 / 128), a Llama whose V
# rows are narrower than K (the generic rule, configs/model_config.py:1352-1355), a Llama with
# unequal sliding-window widths only (:1357-1365), Qwen3-Next (a GDN hybrid: mamba state), a
# DeepSeek-V3-shaped MLA model opting into hybrid SWA (`is_hybrid_swa`, :2693-2696), the
# plain MLA and Llama models
MODELS = ("mimo", "asym", "swa_asym", "qnext", "qnext", "mla_swa", "mla", "llama")
MLA = frozenset({"mla", "mla_swa"})
LINEAR = ("triton", "triton", "flashinfer", "flashinfer", "flashkda", "cutedsl", "helion",
          "nvidia_kda")
GPUS = {**ub.GPUS, "B200": (179.1, (10, 0))}
Case = tuple[str, tuple[str, ...], str]  # model, argv, GPU


def _write(name: str, data: dict[str, Any]) -> str:
    root = Path(tempfile.mkdtemp(prefix=f"graphfit-s42u-{name}-"))
    (root / "config.json").write_text(json.dumps(data))
    return str(root)


def _llama(name: str, architecture: str, fields: dict[str, Any]) -> str:
    root = Path(tempfile.mkdtemp(prefix=f"graphfit-s42u-{name}-"))
    sglang_stubs.write_model_dir(root, architecture=architecture)
    data = json.loads((root / "config.json").read_text())
    (root / "config.json").write_text(json.dumps({**data, **fields}))
    return str(root)


@functools.cache
def register() -> None:
    """The model directories, under their names in sglang_post_capture_oracle.model_dir."""
    mla_root = Path(tempfile.mkdtemp(prefix="graphfit-s42u-mla_swa-"))
    sglang_stubs.write_mla_model_dir(mla_root)
    data = json.loads((mla_root / "config.json").read_text())
    # MiMo-V2-Flash's keys SGLang reads: the layer pattern (configs/model_config.py:
    # 2723-2730), the K / V widths of both kinds of layer and the window
    mimo = {"head_dim": 192, "v_head_dim": 128, "swa_head_dim": 192, "swa_v_head_dim": 128,
            "hybrid_layer_pattern": [0, 1, 1, 1] * 8, "sliding_window": 128}
    dirs = {"mimo": _llama("mimo", "MiMoV2FlashForCausalLM", mimo),
            "asym": _llama("asym", "LlamaForCausalLM", {"v_head_dim": 64}),
            "swa_asym": _llama("swa_asym", "LlamaForCausalLM", {"swa_head_dim": 128,
                                                                 "swa_v_head_dim": 64}),
            "qnext": mo.model_dir(),
            "mla_swa": _write("mla_swa", {**data, "is_hybrid_swa": True})}
    for name, path in dirs.items():
        pc.register(name, path)


def sglang_side(argv: tuple[str, ...], name: str, gpu: str) -> tuple[ub.Outcome, str]:
    """SGLang's final prefill-graph backend and fraction (None: refused), and its message."""
    register()
    gb, capability = GPUS[gpu]
    with pc.environment(None):
        r = so.resolve(argv, gpu_mem_gb=gb, model=pc.model_dir(name), capability=capability)
    if isinstance(r, so.Rejected):
        return None, r.text
    from sglang.srt.arg_groups.overrides import resolving_view

    cfg = resolving_view(r.record)
    backend = cfg.cuda_graph_config.prefill.backend
    return (str(getattr(backend, "value", backend)), float(cfg.mem_fraction_static)), ""


def graphfit_side(argv: tuple[str, ...], name: str, gpu: str) -> tuple[str, float | None] | str:
    register()
    return ub.graphfit_side(argv, name, gpu, None)


def _linear(rng: random.Random) -> tuple[str, ...]:
    argv: tuple[str, ...] = ()
    if rng.random() < 0.35:
        argv += ("--linear-attn-backend", rng.choice(LINEAR))
    for flag, chance in (("--linear-attn-decode-backend", 0.15),
                         ("--linear-attn-prefill-backend", 0.15)):
        if rng.random() < chance:
            argv += (flag, rng.choice(LINEAR))
    if rng.random() < 0.08:
        argv += ("--mamba-backend", rng.choice(("triton", "flashinfer")))
    if rng.random() < 0.2:
        argv += ("--mamba-ssm-dtype", rng.choice(("bfloat16", "float32")))
    return argv


def _pd(rng: random.Random) -> tuple[str, ...]:
    mode = rng.choice((None, "decode", "decode", "prefill"))
    if mode is None:
        pd: tuple[str, ...] = ()
    else:
        pd = ("--disaggregation-mode", mode, "--disaggregation-transfer-backend", "mooncake")
    if rng.random() < (0.4 if mode == "decode" else 0.05):
        pd += ("--disaggregation-decode-retraction-backup",
               rng.choice(("host_pool", "host_pool", "cpu_tensor")))
    if rng.random() < (0.3 if mode == "decode" else 0.05):
        pd += ("--disaggregation-decode-host-receive-threshold",
               rng.choice(("0", "0.5", "0.5", "1", "1.5")))
    if rng.random() < (0.2 if mode == "decode" else 0.03):
        pd += ("--disaggregation-decode-enable-offload-kvcache", "--hicache-storage-backend",
               "file")
    if rng.random() < 0.05:
        pd += ("--enable-priority-scheduling",)
    return pd


def generate(count: int, seed: int) -> list[Case]:
    """`count` lines: a model of MODELS, FULL or breakable prefill graphs, an EAGLE draft now
    and then (the MHA models), attention backend flags, linear-attention / mamba flags, a PD
    role and its retraction / host-receive / offload flags, `--dcp-size 2` at TP 2, on an A100
    or H100 (the B200's own linear-attention checks, attention_hook.py:334-395, are left to
    the grid)."""
    register()  # before spec_argv names a directory
    rng = random.Random(seed)
    out: list[Case] = []
    for _ in range(count):
        name = rng.choice(MODELS)
        if name in MLA:
            # not cutedsl_mla: its own checks and prefill fill (overrides.py:1232-1259) are
            # not restated (issue 23 s42u's notes)
            flags: tuple[str, ...] = ("--attention-backend", rng.choice(
                ("flashinfer", "trtllm_mla", "fa3", "triton")))
            flags = flags if rng.random() < 0.75 else ()
            spec: tuple[str, ...] = ()
        else:
            flags = ub.backend_flags(rng)
            spec = (um.spec_argv(name, "EAGLE", 1) if name in ("mimo", "llama")
                    and rng.random() < 0.15 else ())
        dcp = ("--dcp-size", "2", "--tp-size", "2") if rng.random() < 0.2 else ()
        argv = ("--enable-unified-memory", "--cuda-graph-backend-prefill",
                rng.choice(("full", "breakable")), "--max-running-requests", "48",
                *spec, *flags, *_linear(rng), *_pd(rng), *dcp)
        out.append((name, argv, rng.choice(tuple(ub.GPUS))))
    return out


def compare(case: Case) -> tuple[ub.Outcome, tuple[str, float | None] | str, str | None]:
    """(SGLang's outcome, graphfit's, the disagreement or None)."""
    name, argv, gpu = case
    theirs, _ = sglang_side(argv, name, gpu)
    ours = graphfit_side(argv, name, gpu)
    return theirs, ours, ub.verdict(theirs, ours)
