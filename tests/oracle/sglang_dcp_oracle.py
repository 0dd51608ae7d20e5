"""Decode context parallelism (`--dcp-size` 2 / 4 / 8) on a DeepSeek-V3-shaped MLA model
(issue 23 s42d) and on a Llama-shaped MHA model (s44d): SGLang 0.5.23's own resolution and
decode graph runner (`so.resolve`, then `so.runners`: `get_batch_sizes_to_capture`,
`DecodeInputBuffers.create` and `build_decode_registry` on the meta device) against graphfit's
plan for the same pasted line. Compared: acceptance, the target and draft capture ladders,
their padding for every batch up to the request pool (bound by --max-total-tokens in per-rank
rows: `resolve_max_num_reqs` reads `config.max_total_num_tokens`, kv_cache_configurator.py:
3184-3185, 3212, not the DCP-widened `logical_token_capacity`, :406-415), the batch-scaled
buffers' rows / dtypes, their pad fills, and the prefill-graph backend (DCP turns breakable
prefill graphs off, cuda_graph_hook.py:212-216). `fraction` compares the default
mem_fraction_static (the memory hook sees DCP's prefill rule, and post-capture KV sizing
declines under DCP, overrides.py:1807-1808).

A line graphfit refuses "as not modelled" (graphfit.planner.engines.sglang_dcp) is counted
apart, never as an agreement. Shared by tests/oracle/test_sglang_dcp_oracle.py and
tests/oracle/measure_sglang_dcp.py.
"""

from __future__ import annotations

import contextlib
import functools
import random
import sys
import types
from collections.abc import Iterator
from typing import Any

from tests.oracle import sglang_compare as sc
from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_post_capture_oracle as pc
from tests.oracle import sglang_unified_backends_oracle as ub

MODEL = "mla"
MODELS = ("mla", "llama")  # pc.model_dir: DeepSeek-V3-shaped MLA, Llama-shaped MHA
BACKENDS = ("flashinfer", "trtllm_mla", "cutedsl_mla", "fa3", "triton", "flashmla")
MHA_BACKENDS = ("flashinfer", "fa3", "triton", "trtllm_mha", "flashmla")
# the unified-memory oracle's Ampere / Hopper GPUs and a Blackwell one (SM100: trtllm_mla /
# cutedsl_mla served, fi_a2a picked by default; the fake device is on no NVLink fabric,
# `is_mnnvl_fabric_device`, utils/common.py:1038-1053), each at graphfit's memory for the name
# (graphfit/inputs/gpus.py)
GPUS: dict[str, tuple[float, tuple[int, int]]] = {**ub.GPUS, "B200": (179.1, (10, 0)),
                                                   "GB200": (184.0, (10, 0)),
                                                   "GB300": (278.0, (10, 3))}  # s60k
# the GPUs `generate` draws by default (the GB200 only where asked, issue 23 s55k)
DRAWN = (*ub.GPUS, "B200")
# the device name the fake GPU reports where it is not the stubs' H100 name: SGLang's fabric
# probe reads it (`is_mnnvl_fabric_device`, utils/common.py:1047-1049: GB200 / GB300 are on
# an NVLink fabric; any other name asks NVML, which the oracle lacks: no fabric)
DEVICE_NAMES = {"GB200": "NVIDIA GB200", "GB300": "NVIDIA GB300"}
Case = tuple[tuple[str, ...], str, str]  # argv, GPU name (GPUS), model (MODELS)
SPEC = "--speculative-algorithm"
STEPS = ("--speculative-num-steps", "3", "--speculative-eagle-topk", "1",
         "--speculative-num-draft-tokens", "4")
DRAFTS: tuple[tuple[str, ...], ...] = (
    (SPEC, "EAGLE", "--speculative-num-steps", "2", "--speculative-eagle-topk", "1",
     "--speculative-num-draft-tokens", "3"),
    (SPEC, "EAGLE", "--speculative-num-steps", "3", "--speculative-eagle-topk", "4",
     "--speculative-num-draft-tokens", "8"),
    (SPEC, "NEXTN", "--speculative-num-steps", "1", "--speculative-eagle-topk", "1",
     "--speculative-num-draft-tokens", "2"),
    (SPEC, "NGRAM"),
    (SPEC, "NGRAM", "--speculative-num-draft-tokens", "8"),
    (SPEC, "EAGLE", "--enable-multi-layer-eagle", *STEPS),
    (SPEC, "FROZEN_KV_MTP", *STEPS),
    # SGLang refuses UNO above TP 1 (speculative_hook.py:578-579), so it is served only where
    # the generator draws TP < --dcp-size
    (SPEC, "UNO", "--uno-lora-path", "/tmp/uno", "--speculative-num-draft-tokens", "4"),
)


def model_drafts() -> tuple[tuple[str, ...], ...]:
    """Drafts read from a model directory: EAGLE3, STANDALONE (whose vocabulary check refuses
    it against the MLA target, standalone_worker_v2.py:190-201) and DFLASH on the Llama one
    (pc.model_dir), and DSPARK on tests/oracle/sglang_dspark_compare.draft_dir's (a Llama
    config with the Markov head and mask token id its worker needs)."""
    from tests.oracle import sglang_dspark_compare as kc

    llama = pc.model_dir("llama")
    return (*((SPEC, name, "--speculative-draft-model-path", llama, *STEPS)
              for name in ("EAGLE3", "STANDALONE")),
            (SPEC, "DFLASH", "--speculative-draft-model-path", llama),
            (SPEC, "DSPARK", "--speculative-draft-model-path", kc.draft_dir(None, None, None),
             "--speculative-num-draft-tokens", "6"))


NOT_MODELLED = "not modelled"


def generate(count: int, seed: int, *, plain: bool = False,
             models: tuple[str, ...] = MODELS, gpus: tuple[str, ...] = DRAWN,
             nodes: float = 0.1) -> list[Case]:
    """`count` lines on the MLA or the Llama model: TP 2..8 with --dcp-size 2 / 4 / 8 (now and
    then one TP does not divide), an attention backend or none, --max-running-requests, now
    and then --max-total-tokens, the decode max_bs, no padding, a prefill backend,
    --dcp-comm-backend, a draft (EAGLE topk 1 / 4, NEXTN, NGRAM, multi-layer EAGLE,
    FROZEN_KV_MTP, UNO, EAGLE3, STANDALONE, DFLASH, DSPARK) or unified memory, on an A100,
    H100 or B200, now and then --nnodes 2 / 4 (s47d). `plain`: no fi_a2a named, TP >= DCP,
    one node, no unified memory (SGLang's default fi_a2a on the B200 is planned since s47d).
    `models`: MODELS, or (KIMI,) for Kimi-K3's DCP override (s47d), drawn without drafts: on
    this MLA stand-in under Kimi-K3's class SGLang's draft-extend runner holds mamba-track
    buffers graphfit does not plan, with or without DCP (runner_utils/buffers.py:175-182).
    `gpus`: the GPU names drawn (("B200", "GB200") for the fabric's lines, s55k); `nodes`:
    how often --nnodes is drawn (s55k's fabric lines: more often)."""
    rng = random.Random(seed)
    out: list[Case] = []
    drafts = DRAFTS + model_drafts()
    for _ in range(count):
        model = rng.choice(models)
        dcp = rng.choice((2, 4, 8))
        tp = rng.choice(tuple(t for t in (2, 4, 8) if t >= dcp) or (dcp,))
        if not plain and rng.random() < 0.08:
            tp = rng.choice((2, 4, 8))
        argv: tuple[str, ...] = ("--tp-size", str(tp), "--dcp-size", str(dcp),
                                 "--max-running-requests", str(rng.choice((8, 24, 48, 96))))
        if rng.random() < 0.8:
            argv += ("--attention-backend",
                     rng.choice(MHA_BACKENDS if model == "llama" else BACKENDS))
        if rng.random() < 0.15:
            argv += ("--max-total-tokens", str(rng.choice((16, 40, 100, 4096))))
        if rng.random() < 0.3:
            argv += ("--cuda-graph-max-bs-decode", str(rng.choice((4, 16, 40, 64))))
        if rng.random() < 0.2:
            argv += ("--disable-cuda-graph-padding",)
        if rng.random() < 0.3:
            argv += ("--cuda-graph-backend-prefill", rng.choice(("breakable", "full",
                                                                 "disabled")))
        if rng.random() < 0.25:
            comm = ("a2a", "ag_rs") if plain else ("a2a", "ag_rs", "fi_a2a")
            argv += ("--dcp-comm-backend", rng.choice(comm))
        if rng.random() < 0.25 and model != KIMI:  # KIMI: the draft-extend note (s47d)
            argv += rng.choice(drafts)
        if not plain and rng.random() < 0.1:
            argv += ("--enable-unified-memory",)
        gpu = rng.choice(gpus)
        if not plain and rng.random() < nodes:  # the TP per node fi_a2a reads (issue 23 s47d)
            argv += ("--nnodes", str(rng.choice((2, 4))))
        out.append((argv, gpu, model))
    return out


KIMI = "kimi_k3"  # the MLA model dir under KimiK3ForConditionalGeneration (issue 23 s47d)


def model_path(model: str) -> str:
    """pc.model_dir's models, and KIMI: the DeepSeek-V3-shaped MLA config.json under Kimi-K3's
    architecture, whose override has a DCP branch of its own (kimi_k3.py:54-120)."""
    if model != KIMI or KIMI in pc._MODELS:
        return pc.model_dir(model)
    import json
    import tempfile
    from pathlib import Path

    root = Path(tempfile.mkdtemp(prefix="graphfit-dcp-")) / KIMI
    so.sglang_stubs.write_mla_model_dir(root)
    data = json.loads((root / "config.json").read_text())
    data["architectures"] = ["KimiK3ForConditionalGeneration"]
    (root / "config.json").write_text(json.dumps(data))
    pc._MODELS[KIMI] = str(root)
    return str(root)


@contextlib.contextmanager
def flashinfer_decode() -> Iterator[None]:
    """Glue: FlashInfer is stubbed in the oracle, so Kimi-K3's DCP check
    (`_require_kimi_k3_cutedsl_dcp_support`, kimi_k3.py:20-38: `enable_dcp` in the signature
    of `flashinfer.decode.trtllm_batch_decode_with_kv_cache_mla`) is given a stand-in with the
    signature of FlashInfer 0.6.17, the version SGLang 0.5.23 checks for
    (kernels/ops/layernorm/muse_spark_rmsnorm_nvfp4_quant.py:197-198): flashinfer/mla/
    _core.py@0.6.17:2905-2933, re-exported by flashinfer/decode.py@0.6.17:34-38."""
    import sys
    import types

    def trtllm_batch_decode_with_kv_cache_mla(  # FlashInfer 0.6.17's parameters
            query: Any, kv_cache: Any, workspace_buffer: Any, qk_nope_head_dim: int,
            kv_lora_rank: int, qk_rope_head_dim: int, block_tables: Any, seq_lens: Any,
            max_seq_len: int, sparse_mla_top_k: int = 0, out: Any = None,
            bmm1_scale: Any = 1.0, bmm2_scale: Any = 1.0, sinks: Any = None,
            skip_softmax_threshold_scale_factor: Any = None, enable_pdl: Any = None,
            backend: str = "auto", is_var_seq: bool = True,
            uses_shared_paged_kv_idx: bool = True, lse: Any = None, return_lse: bool = False,
            cute_dsl_impl: str = "auto", kv_scale_format: str = "auto",
            cum_seq_lens_q: Any = None, max_q_len: Any = None,
            multi_ctas_kv_counter_buffer: Any = None, sparse_mla_top_k_lens: Any = None,
            enable_dcp: bool = False, cp_world: int = 1) -> None:
        raise NotImplementedError("a signature stand-in")

    module = types.ModuleType("flashinfer.decode")
    module.trtllm_batch_decode_with_kv_cache_mla = trtllm_batch_decode_with_kv_cache_mla  # type: ignore[attr-defined]
    old = sys.modules.get("flashinfer.decode")
    sys.modules["flashinfer.decode"] = module
    try:
        yield
    finally:
        if old is None:
            sys.modules.pop("flashinfer.decode", None)
        else:
            sys.modules["flashinfer.decode"] = old


@contextlib.contextmanager
def device_named(gpu: str) -> Iterator[None]:
    """Glue: the fake GPU reports DEVICE_NAMES[gpu] (the stubs' name otherwise), with SGLang's
    cached fabric probe (`is_mnnvl_fabric_device`, lru_cache, utils/common.py:1037-1053)
    cleared on the way in and out, so the probe answers for this device."""
    from tests.oracle import sglang_stubs as stubs

    def clear() -> None:
        common = sys.modules.get("sglang.srt.utils.common")
        if common is not None:
            common.is_mnnvl_fabric_device.cache_clear()

    name = DEVICE_NAMES.get(gpu)
    if name is None:
        yield
        return
    old = stubs._CUDA_NAME
    stubs._CUDA_NAME = name
    clear()
    try:
        yield
    finally:
        stubs._CUDA_NAME = old
        clear()


@functools.lru_cache(maxsize=512)
def sglang_answer(case: Case) -> sc.SglangAnswer:
    """SGLang's resolution of the line on the GPU, and its runners sized by the model's own
    hidden size and vocabulary (SGLang's ModelConfig)."""
    argv, gpu, model = case
    gb, capability = GPUS[gpu]
    with pc.environment(None), flashinfer_decode(), device_named(gpu):
        r = so.resolve(argv, gpu_mem_gb=gb, model=model_path(model), capability=capability)
        if isinstance(r, so.Rejected):
            return sc.SglangAnswer(r, None)
        refused = _fi_a2a_start(r, gb, capability) or _trtllm_mla_start(r)
    if refused is not None:
        return sc.SglangAnswer(r, None, refused)
    from sglang.srt.arg_groups.model_override_base import model_config_of

    mc = model_config_of(r.record)
    try:
        runs = so.runners(r, hidden_size=int(mc.hidden_size), vocab_size=int(mc.vocab_size))
    except Exception as exc:  # the server would not start
        return sc.SglangAnswer(r, None, f"{type(exc).__name__}: {exc}")
    return sc.SglangAnswer(r, runs)


def _fi_a2a_start(r: so.Resolved, gb: float, capability: tuple[int, int]) -> str | None:
    """Glue: with the fi_a2a backend resolved, the runner's start (`init_fi_a2a_workspace`,
    runner/base_runner.py:339-348) raises unless SGLang's `is_fi_a2a_supported`
    (utils/common.py:1056-1064, layers/dcp/comm.py:435-448) holds; it is asked here, on the
    same fake device, since the workspace itself needs FlashInfer and a DCP group."""
    from sglang.srt.arg_groups.overrides import resolving_view

    cfg = resolving_view(r.record)
    if cfg.dcp_comm_backend != "fi_a2a":
        return None
    from sglang.srt.utils.common import is_fi_a2a_supported

    with so.sglang_stubs.fake_cuda(gb * so.MIB_PER_GB, capability=capability):
        ok = is_fi_a2a_supported(dcp_size=cfg.dcp_size, tp_size=cfg.tp_size,
                                 pp_size=cfg.pp_size, nnodes=cfg.nnodes)
    return None if ok else "RuntimeError: --dcp-comm-backend fi_a2a needs a Blackwell system"


def _trtllm_mla_start(r: so.Resolved) -> str | None:
    """Glue: the trtllm_mla backend's factory (`create_trtllm_mla_backend`,
    layers/attention/attention_registry.py:94-105) refuses DCP with a draft when the model
    runner builds it; the oracle stubs the backends, so SGLang's own factory is called here on
    the published record with a stand-in runner (an MLA one, as trtllm_mla needs). Past its
    DCP check the factory goes on to build the backend, which needs a GPU: anything it raises
    there is not the DCP check's and is ignored."""
    from sglang.srt.arg_groups.model_override_base import attention_backends_of
    from sglang.srt.arg_groups.overrides import resolving_view

    cfg = resolving_view(r.record)
    if attention_backends_of(cfg)[1] != "trtllm_mla" or cfg.dcp_size <= 1:
        return None
    from sglang.srt.layers.attention.attention_registry import create_trtllm_mla_backend

    runner = types.SimpleNamespace(use_mla_backend=True, server_args=r.record)
    with so.published(r):
        try:
            create_trtllm_mla_backend(runner)
        except ValueError as exc:
            if "decode context parallelism" in str(exc):
                return f"ValueError: {exc}"
        except Exception:  # past the DCP check (docstring)
            pass
    return None


def graphfit_answer(case: Case, config_file: str | None = None, cli: bool = False
                    ) -> tuple[sc.GraphfitAnswer, str | None]:
    """graphfit's plan for the pasted line (the GPU named; `config_file`: graphfit's config
    file given too, e.g. `mnnvl_fabric: false`, s55k), and its prefill backend. `cli`: the
    line read as the CLI reads it, with the GPU flag (`read_pasted`), which puts a prefill-CP
    reading's answer in SGLang's order for that GPU (issue 23 s66p)."""
    import graphfit
    from graphfit import ConfigError
    from graphfit.cli.options import read_pasted, resolve_values
    from graphfit.inputs import commandline
    from graphfit.planner.engines.sglang_prefill_plan import prefill_graphs

    argv, gpu, model = case
    try:
        model_path(model)
        given = {} if config_file is None else {"config_file": config_file}
        words = pc.graphfit_line(argv, model, None)
        line = read_pasted(words, {"gpu_memory_gb": gpu, **given}) if cli else \
            commandline.read(words)
        config = resolve_values({"gpu_memory_gb": gpu, **given}, environ={},
                                pasted=line).config()
        plan = graphfit.plan(config)
        return sc.GraphfitAnswer(argv, None, plan), prefill_graphs(config).backend
    except ConfigError as exc:
        return sc.GraphfitAnswer(argv, str(exc)), None


def _prefill(sg: sc.SglangAnswer) -> str:
    from sglang.srt.arg_groups.overrides import resolving_view

    assert isinstance(sg.resolved, so.Resolved)
    backend: Any = resolving_view(sg.resolved.record).cuda_graph_config.prefill.backend
    return str(getattr(backend, "value", backend))


def compare(case: Case, config_file: str | None = None) -> tuple[str, list[str]]:
    """("agree" | "both refuse" | "not modelled" | "differs", the differences), graphfit
    reading `config_file` too (graphfit_answer)."""
    sg = sglang_answer(case)
    gf, prefill = graphfit_answer(case, config_file)
    if sg.rejected is not None:
        if gf.rejected is not None:
            return "both refuse", [gf.rejected]
        return "differs", [f"SGLang refuses ({sg.rejected[:160]}); graphfit plans"]
    if gf.rejected is not None:
        if NOT_MODELLED in gf.rejected:
            return "not modelled", [gf.rejected]
        return "differs", [f"SGLang serves; graphfit refuses: {gf.rejected}"]
    diffs = [str(d) for d in (sc.compare_target_ladder(sg, gf) + sc.compare_padding(sg, gf)
                              + sc.compare_draft_ladder(sg, gf)
                              + sc.compare_padding(sg, gf, "draft")
                              + sc.compare_padding(sg, gf, "draft_extend")
                              + sc.compare_padding(sg, gf, "mtp_draft_extend")
                              + sc.compare_padding(sg, gf, "dflash_draft")
                              + sc.compare_padding(sg, gf, "dspark_draft")
                              + sc.compare_components(sg, gf)
                              + sc.compare_buffers(sg, gf, extra=True)
                              + sc.compare_fills(sg, gf))]
    theirs = _prefill(sg)
    if theirs != prefill:
        diffs.append(f"prefill graphs: SGLang {theirs}, graphfit {prefill}")
    theirs, ours = comm_backends(sg, gf)
    if theirs != ours:
        diffs.append(f"DCP comm backend: SGLang {theirs}, graphfit {ours}")
    return ("differs" if diffs else "agree"), diffs


def comm_backends(sg: sc.SglangAnswer, gf: sc.GraphfitAnswer) -> tuple[str | None, str | None]:
    """The DCP communication backend SGLang resolved (`_dcp_comm_backend_default`,
    overrides.py:1373-1396, on the oracle's B200: no NVLink fabric; on its GB200: one) and
    the one graphfit's plan names (`sglang_dcp.comm_backend`, whose fi_a2a brings the
    workspace line)."""
    from sglang.srt.arg_groups.overrides import resolving_view

    from graphfit.planner.engines.sglang_dcp import comm_backend

    assert isinstance(sg.resolved, so.Resolved) and gf.plan is not None
    cfg = resolving_view(sg.resolved.record)
    return (cfg.dcp_comm_backend if cfg.dcp_size > 1 else None), comm_backend(gf.plan.config)


def fraction(case: Case, env: str | None) -> tuple[float | None, float | str | None,
                                                   bool | None]:
    """The default mem_fraction_static with SGLANG_ENABLE_POST_CAPTURE_KV_SIZING=`env` (None:
    unset): SGLang's (None where it refuses the line), graphfit's for the same pasted line
    (its refusal's text where it refuses), and SGLang's own post-capture answer as the memory
    hook asked it (None: not asked; shown only to keep the grid from being vacuous)."""
    from tests.oracle import sglang_prefill_oracle as po

    argv, gpu, model = case
    gb, capability = GPUS[gpu]
    with pc.environment(env) as asked, flashinfer_decode(), device_named(gpu):
        got = po.mem_fraction.__wrapped__(argv, gb, model_path(model), capability)
    theirs = None if isinstance(got, so.Rejected) else got[1]
    return theirs, _graphfit_fraction(pc.graphfit_line(argv, model, env), gpu), (
        asked[-1] if asked else None)


def _graphfit_fraction(line: list[str], gpu: str) -> float | str | None:
    """graphfit's mem_fraction_static for the pasted line on the GPU named, or its refusal."""
    from graphfit import ConfigError
    from graphfit.cli.options import resolve_values
    from graphfit.inputs import commandline

    try:
        return resolve_values({"gpu_memory_gb": gpu}, environ={},
                              pasted=commandline.read(line)).config().mem_fraction_static
    except ConfigError as exc:
        return str(exc)
