"""SGLang 0.5.23 as an oracle: its own argument parser, capture lists, padding and buffers.

Everything here calls SGLang's code (sources under `paths.require("sglang")`, stubs in
`sglang_stubs`) and returns plain Python data:

* `resolve(argv, gpu_mem_gb=...)` -> `Resolved` | `Rejected`: `prepare_server_args`
  (server_args.py:823, i.e. `ServerArgs.add_cli_args` + `from_cli_args`) then
  `ServerArgs.resolve_once` (server_args.py:246 -> arg_groups/pipeline.py:20), which runs
  the CUDA-graph hook (cuda_graph_hook.py:392), the GPU-memory hook (memory_hook.py:47) and the
  speculative hook (speculative_hook.py:121 -> 1072 EAGLE family / 1285 NGRAM), then its
  start-up checks (the whole `check_server_args`, arg_groups/validation_hook.py:172-381, run
  once entrypoints/engine.py:1152-1165 has resolved the line; issue 23 s66b, s67b); a resolved
  Mooncake EP line then builds SGLang's MoE dispatcher (tests.oracle.sglang_mooncake_build),
  which raises in auto / normal mode (token_dispatcher/mooncake.py:343-344).
* `runners(resolved)` -> `{name: Runner}`: publishes the record (runtime_context.py:1489) and
  runs `get_batch_sizes_to_capture` (base_cuda_graph_runner.py:65) for the target decode /
  verify runner, the EAGLE draft runner and the EAGLE draft-extend runner, then builds their
  buffers with SGLang's own allocators on the meta device:
  target: `DecodeInputBuffers.create` (runner_utils/buffers.py:132) + `build_decode_registry`
  (cuda_graph_buffer_registry.py:576, per-slot `PaddingPolicy`); draft: the real
  `EAGLEDraftCudaGraphRunner.__init__` (eagle_draft_cuda_graph_runner.py:104) and
  `EAGLEDraftExtendCudaGraphRunner.__init__` (eagle_draft_extend_cuda_graph_runner.py:101)
  with only `capture()` (CUDA graph capture) and the graph backend stubbed.
* Padding fills: the target runner's come from its registry slots' `PaddingPolicy`
  (cuda_graph_buffer_registry.py:630-681); the draft runners fill their padded tails in
  `execute` (eagle_draft_cuda_graph_runner.py:570-606, eagle_draft_extend_cuda_graph_runner.py:
  517-544), transcribed per buffer in sglang_compare.DRAFT_FILLS / DRAFT_EXTEND_FILLS.
* `pad_to_bucket(bs, sizes)`: `BaseCudaGraphRunner._pad_to_bucket`
  (base_cuda_graph_runner.py:166).

Glue (not SGLang logic) is limited to what the engine wires between those calls, each cited:
the target runner's width and max_num_token (decode_cuda_graph_runner.py:357-359, 386-410),
which draft runners exist (eagle_worker_v2.py:481, 507: a draft-decode runner only when
speculative_num_steps > 1; draft-extend always with graphs on for the CUDA backends, :539-600),
and the request-pool size (`KVCacheConfigurator.resolve_max_num_reqs`,
mem_cache/kv_cache_configurator.py:3119, run with a KV capacity large enough not to bind).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import io
import json
import os
import tempfile
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

from tests.oracle import sglang_stubs
from tests.oracle.paths import require

MIB_PER_GB = 1024
# KV tokens the request pool is sized against: large enough that the pool is
# min(max_running_requests // attn_dp, ...) or the 2048..4096 estimate, never KV-bound.
DEFAULT_TOKEN_CAPACITY = 10_000_000


@dataclass(frozen=True)
class Rejected:
    """SGLang refused the command line; `text` is its error (argparse or resolution)."""

    argv: tuple[str, ...]
    text: str
    kind: str  # "argparse" (exit 2 at parse time) or the exception type from resolution


@dataclass(frozen=True)
class Resolved:
    """The resolved fields that shape decode graphs, as plain data."""

    argv: tuple[str, ...]
    gpu_mem_mib: float | None
    max_running_requests: int | None
    decode_backend: str
    decode_max_bs: int
    decode_bs: tuple[int, ...]
    prefill_backend: str
    prefill_max_bs: int | None
    disable_cuda_graph_padding: bool
    speculative_algorithm: str | None
    speculative_num_steps: int | None
    speculative_eagle_topk: int | None
    speculative_num_draft_tokens: int | None
    tp_size: int
    attn_tp_size: int
    attn_cp_size: int
    attn_dp_size: int
    dp_size: int
    enable_two_batch_overlap: bool
    chunked_prefill_size: int | None
    attention_backend: str | None
    decode_attention_backend: str | None
    page_size: int | None
    enable_multi_layer_eagle: bool = False
    record: Any = field(default=None, repr=False, compare=False)  # the ServerArgs
    # the fake device the line was resolved on, which `published` runs SGLang on again
    capability: tuple[int, int] = (9, 0)


@dataclass(frozen=True)
class Buffer:
    """One persistent graph input: shape, dtype, the axis it scales with, its padding fill."""

    name: str
    shape: tuple[int, ...]
    dtype: str  # torch dtype without the "torch." prefix
    axis: str  # "tokens", "bs" or "none"/"fixed"
    policy: str | None  # the registry's PaddingPolicy (target runner only)
    init: str  # what it holds after allocation: "zeros", "ones", "full(v)", "arange", ...


@dataclass(frozen=True)
class Runner:
    """A decode graph runner: captured batch sizes (requests), width, buffers."""

    name: str  # "target", "draft", "draft_extend"
    width: int  # tokens per request in the graph
    capture_bs: tuple[int, ...]
    pool_size: int  # req_to_token_pool.size the list was clamped against
    alignment: int  # get_cuda_graph_batch_size_alignment(...)
    max_bs: int
    max_num_token: int
    seq_len_fill_value: int
    buffers: dict[str, Buffer]
    # SGLang's own object holding the tensors: the target's DecodeInputBuffers, the draft
    # runners themselves (what graphfit.integrations.sglang reads live)
    live: Any = field(default=None, repr=False, compare=False)


class _Oracle:
    """Lazily imported SGLang modules plus the temporary model directory."""

    def __init__(self) -> None:
        root = require("sglang")
        sglang_stubs.install(root)
        self._tmp = tempfile.TemporaryDirectory(prefix="graphfit-sglang-model-")
        self.model_dir = sglang_stubs.write_model_dir(Path(self._tmp.name) / "llama")
        import sglang.srt.server_args as server_args

        self.server_args = server_args


_ORACLE: _Oracle | None = None


def oracle() -> _Oracle:
    global _ORACLE
    if _ORACLE is None:
        _ORACLE = _Oracle()
    return _ORACLE


def _gpu_mib(gpu_mem_gb: float | None) -> float | None:
    return None if gpu_mem_gb is None else float(gpu_mem_gb) * MIB_PER_GB


def resolve(argv: list[str] | tuple[str, ...], gpu_mem_gb: float | None = 80,
            model: str | None = None, capability: tuple[int, int] | None = None,
            checks: bool = True) -> Resolved | Rejected:
    """Parse and resolve an `sglang serve` command line (no --model-path needed), on the fake
    CUDA device (a Hopper unless `capability` says otherwise); `checks=False` leaves out the
    start-up check (for an oracle that runs `check_server_args` itself)."""
    o = oracle()
    argv = tuple(argv)
    full = ["--model-path", model or str(o.model_dir), *argv]
    err = io.StringIO()
    device = {} if capability is None else {"capability": capability}
    with sglang_stubs.fake_cuda(_gpu_mib(gpu_mem_gb), **device):
        try:
            with contextlib.redirect_stderr(err):
                record = o.server_args.prepare_server_args(full)
        except SystemExit:
            lines = [ln for ln in err.getvalue().splitlines() if "error:" in ln]
            return Rejected(argv, lines[-1].split("error:", 1)[1].strip() if lines
                            else err.getvalue().strip(), "argparse")
        try:
            record.resolve_once()
            # then its start-up checks, as SGLang's engine runs them on the resolved record
            # (entrypoints/engine.py:1165, validation_hook.py:172-381; s66b, s67b)
            if checks:
                _start_up_checks(record, argv)
        except Exception as exc:  # SGLang's own rejection of the resolved combination
            return Rejected(argv, f"{type(exc).__name__}: {exc}", type(exc).__name__)
        resolved = _resolved(argv, gpu_mem_gb, record)
        if capability is not None:
            resolved = dataclasses.replace(resolved, capability=capability)
    # the model build past resolution that a started line must survive: Mooncake's
    # dispatcher in auto / normal mode (token_dispatcher/mooncake.py:343-344; issue 23 s46e)
    from tests.oracle import sglang_mooncake_build

    built = sglang_mooncake_build.failure(resolved)
    if built is not None:
        return Rejected(argv, built, built.split(":", 1)[0])  # s55e: or AssertionError
    return resolved


def tbo(argv: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """`--enable-two-batch-overlap` for a drawn line `argv` starts: SGLang's check_server_args
    refuses it with neither a resolved a2a backend nor attention DP (validation_hook.py:
    756-772; issue 23 s66b), and graphfit does not model an a2a backend on a dense target
    (graphfit.inputs.sglang_a2a), so a line with TP but no attention DP gets
    `--attn-dp-size 2` where its TP width takes it; a TP-1 line stays as drawn (refused)."""
    tail = ("--enable-two-batch-overlap",)
    if "--attn-dp-size" in argv:
        return tail

    def flag(names: tuple[str, ...]) -> int:
        found = [int(argv[i + 1]) for i, a in enumerate(argv[:-1]) if a in names]
        return found[-1] if found else 1

    tp, cp = flag(("--tp", "--tp-size")), flag(("--attn-cp-size",))
    return ("--attn-dp-size", "2", *tail) if tp > 1 and tp % (2 * cp) == 0 else tail


def _start_up_checks(record: Any, argv: tuple[str, ...] = ()) -> None:
    """SGLang's whole `check_server_args` (arg_groups/validation_hook.py:172-381), as its
    engine runs it on the resolved record (entrypoints/engine.py:1165): every resolution grid
    runs it (issue 23 s67b; before, only `check_two_batch_overlap`, :756-772, s66b). It costs
    about 0.1 ms of a ~20 ms resolution. With GRAPHFIT_ORACLE_CHECK_LOG set, a line that only
    the checks other than two-batch overlap refuse is appended to that file (the measure of
    what running the whole function changed)."""
    from sglang.srt.arg_groups.validation_hook import check_server_args, check_two_batch_overlap

    try:
        check_server_args(record)
    except Exception as exc:
        log = os.environ.get("GRAPHFIT_ORACLE_CHECK_LOG")
        if log:
            try:
                check_two_batch_overlap(record)
            except Exception:
                raise exc from None
            with open(log, "a", encoding="utf-8") as out:
                out.write(f"{' '.join(argv)} | {type(exc).__name__}: {str(exc)[:120]!r}\n")
        raise


def check_refusal(record: Any) -> str | None:
    """SGLang's whole `check_server_args` run alone on a resolved record (resolution asked
    with `checks=False`): its ValueError / AssertionError as "Type: words", None where it
    passes; the oracles that tell a start-up check's refusal from resolution's use it. A
    TypeError too: a Python caller's wrongly typed field stops the check there (s69j)."""
    with sglang_stubs.imports():
        from sglang.srt.arg_groups.validation_hook import check_server_args
    try:
        check_server_args(record)
    except (ValueError, AssertionError, TypeError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def _resolved(argv: tuple[str, ...], gpu_mem_gb: float | None, record: Any) -> Resolved:
    from sglang.srt.arg_groups.overrides import resolving_view
    from sglang.srt.runtime_context import attn_tp_size_of

    cfg = resolving_view(record)
    graphs = cfg.cuda_graph_config
    return Resolved(
        argv=argv, gpu_mem_mib=_gpu_mib(gpu_mem_gb),
        max_running_requests=cfg.max_running_requests,
        decode_backend=graphs.decode.backend, decode_max_bs=graphs.decode.max_bs,
        decode_bs=tuple(graphs.decode.bs), prefill_backend=graphs.prefill.backend,
        prefill_max_bs=graphs.prefill.max_bs,
        disable_cuda_graph_padding=bool(cfg.disable_cuda_graph_padding),
        speculative_algorithm=cfg.speculative_algorithm,
        speculative_num_steps=cfg.speculative_num_steps,
        speculative_eagle_topk=cfg.speculative_eagle_topk,
        speculative_num_draft_tokens=cfg.speculative_num_draft_tokens,
        tp_size=cfg.tp_size, attn_tp_size=attn_tp_size_of(cfg), attn_cp_size=cfg.attn_cp_size,
        attn_dp_size=cfg.attn_dp_size, dp_size=cfg.dp_size,
        enable_two_batch_overlap=bool(cfg.enable_two_batch_overlap),
        chunked_prefill_size=cfg.chunked_prefill_size,
        attention_backend=cfg.attention_backend,
        decode_attention_backend=getattr(cfg, "decode_attention_backend", None),
        page_size=cfg.page_size,
        enable_multi_layer_eagle=bool(getattr(cfg, "enable_multi_layer_eagle", False)),
        record=record)


# ---------------------------------------------------------------------------------------
# Runners
# ---------------------------------------------------------------------------------------

@functools.cache
def _runner_base() -> Any:
    """SGLang's BaseCudaGraphRunner, imported once (with the stubs on the import path)."""
    with sglang_stubs.imports():
        from sglang.srt.model_executor.runner.base_cuda_graph_runner import (
            BaseCudaGraphRunner,
        )
    return BaseCudaGraphRunner


def pad_to_bucket(raw_bs: int, buckets: tuple[int, ...] | list[int]) -> int:
    """`BaseCudaGraphRunner._pad_to_bucket` (base_cuda_graph_runner.py:166)."""
    return int(_runner_base()._pad_to_bucket(raw_bs, list(buckets)))


class _AttnBackendStub:
    """The attention backend a runner asks for its seq_lens fill value and graph state.

    `get_cuda_graph_seq_len_fill_value` is taken from SGLang's own backend class for the
    resolved backend (FlashInfer, FA3, Triton... all return 1 in 0.5.23); graph-state
    allocation is a CUDA concern and does nothing here.
    """

    def __init__(self, fill_value: int) -> None:
        self._fill = fill_value
        self.attn_backends = [self]
        self.dllm_attention = None

    def get_cuda_graph_seq_len_fill_value(self) -> int:
        return self._fill

    def init_cuda_graph_state(self, *args: Any, **kwargs: Any) -> None:
        pass

    def init_forward_metadata_out_graph(self, *args: Any, **kwargs: Any) -> None:
        pass

    def shared_read_ends(self, *args: Any, **kwargs: Any) -> Any:
        return None


def _seq_len_fill_value(backend: str | None) -> int:
    """The named backend's `get_cuda_graph_seq_len_fill_value()`, from SGLang's own class.
    aiter's answers its `num_draft_tokens`, which its constructor sets from the published
    `speculative_num_draft_tokens` (aiter_backend.py:370, 3416-3417); that constructor needs
    an AMD device, so the one attribute is set on a bare instance here."""
    classes = {
        "flashinfer": ("sglang.srt.layers.attention.flashinfer_backend",
                       "FlashInferAttnBackend"),
        "fa3": ("sglang.srt.layers.attention.flashattention_backend", "FlashAttentionBackend"),
        "triton": ("sglang.srt.layers.attention.triton_backend", "TritonAttnBackend"),
        "aiter": ("sglang.srt.layers.attention.aiter_backend", "AiterAttnBackend"),
        "dsa": ("sglang.srt.layers.attention.dsa_backend", "DeepseekSparseAttnBackend"),
        "nsa": ("sglang.srt.layers.attention.dsa_backend", "DeepseekSparseAttnBackend"),
    }
    module_name, cls_name = classes.get(backend or "", classes["triton"])
    import importlib

    cls = getattr(importlib.import_module(module_name), cls_name)
    bare = object.__new__(cls)
    if backend == "aiter":
        from sglang.srt.runtime_context import get_spec

        bare.num_draft_tokens = get_spec().speculative_num_draft_tokens  # :370
    return int(cls.get_cuda_graph_seq_len_fill_value(bare))


def _draft_fills() -> tuple[int, int]:
    """(draft-decode, draft-extend) fills of the single-layer EAGLE draft backends, named as
    SGLang's `DraftBackendFactory._create_backend` names them (speculative/draft_utils.py:
    47-66, 145-149): the draft runner's own backend (`--speculative-draft-attention-backend`,
    model_runner.py:306-320), else the split decode / prefill backend (the decode one for
    draft-extend under `--speculative-attention-mode decode`)."""
    from sglang.srt.runtime_context import attention_backends, get_spec

    prefill, decode = attention_backends()
    draft = get_spec().speculative_draft_attention_backend
    extend = decode if get_spec().speculative_attention_mode == "decode" else prefill
    return _seq_len_fill_value(draft or decode), _seq_len_fill_value(draft or extend)


def _draft_extend_stub(r: Resolved, fill: int) -> _AttnBackendStub:
    """The single-layer draft-extend backend as its runner reads it: the fill, and, when it
    is SGLang's `DeepseekSparseAttnBackend` (`dsa` / `nsa`, draft_utils.py:139-140, 214-218),
    the `dsa_index_kpool` its constructor takes from the draft model's config
    (dsa_backend.py:533: SGLang's own `get_dsa_index_kpool` on the draft's config.json), which
    `resolve_draft_extend_seq_len_fill_value` reads (eagle_draft_extend_cuda_graph_runner.py:
    62-71)."""
    from sglang.srt.configs.model_config import get_dsa_index_kpool
    from sglang.srt.runtime_context import attention_backends, get_spec

    stub = _AttnBackendStub(fill)
    prefill, decode = attention_backends()
    spec = get_spec()
    name = spec.speculative_draft_attention_backend or (
        decode if spec.speculative_attention_mode == "decode" else prefill)
    draft = draft_path(r) or r.record.model_path
    config = Path(str(draft)) / "config.json"
    if name in ("dsa", "nsa") and config.is_file():
        hf = types.SimpleNamespace(**json.loads(config.read_text()))
        stub.dsa_index_kpool = get_dsa_index_kpool(hf)  # type: ignore[attr-defined]
    return stub


def _draft_worker_fill() -> int:
    """A DFLASH / DSPARK draft model runner's fill: its backend is SGLang's own
    `resolve_draft_worker_attention_backend` (draft_worker_common.py:32-63)."""
    from sglang.srt.speculative.draft_worker_common import (
        resolve_draft_worker_attention_backend,
    )

    return _seq_len_fill_value(resolve_draft_worker_attention_backend())


def _model_runner_stub(r: Resolved, pool_size: int, fill_value: int, device: str,
                       hidden_size: int, vocab_size: int, *, draft: bool) -> Any:
    """The ModelRunner fields the runners read (no model, no KV cache, no CUDA)."""
    import torch
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    model_config = types.SimpleNamespace(
        hidden_size=hidden_size, spec_hidden_size=hidden_size, vocab_size=vocab_size,
        dtype=_target_dtype(r) if r.record is not None else torch.bfloat16,
        is_encoder_decoder=False, model_is_mrope=False, context_len=131072,
        hf_config=types.SimpleNamespace(architectures=["LlamaForCausalLM"],
                                        hidden_size=hidden_size, vocab_size=vocab_size))
    backend = _AttnBackendStub(fill_value)
    return types.SimpleNamespace(
        server_args=r.record, device=device, model_config=model_config,
        req_to_token_pool=types.SimpleNamespace(size=pool_size),
        spec_algorithm=SpeculativeAlgorithm.from_string(r.speculative_algorithm),
        is_draft_worker=draft, attn_backend=backend, draft_attn_backend=backend,
        device_timer=None, canary_manager=None, lora_manager=None,
        graph_shared_output=_SHARED_OUTPUT or types.SimpleNamespace(
            get_logits_buffer=_logits_buffer))


def _target_dtype(r: Resolved) -> Any:
    """The target ModelConfig's dtype, SGLang's own (`_get_and_verify_dtype` on the line's
    --dtype and the model's config, model_config.py:881; the record's memoised ModelConfig):
    bfloat16 for the oracle model under auto; a draft model runner without a local draft
    directory keeps it, as its ModelConfig reads the same --dtype."""
    from sglang.srt.arg_groups.model_override_base import model_config_of

    return model_config_of(r.record).dtype


_SHARED_OUTPUT: Any = None  # set by `sharing`


@contextlib.contextmanager
def sharing(output: Any) -> Any:
    """Build runners as SGLang shares them: every model runner's `graph_shared_output` is
    `output` (SGLang's GraphSharedOutput), the target runner takes its logits view from it
    and coalesces its buffer set through SGLang's process-wide input pool
    (decode_cuda_graph_runner.py:466-477, 507-509), as the draft runners always do; the pool
    starts empty and is restored afterwards."""
    global _SHARED_OUTPUT
    from sglang.srt.model_executor import input_buffers

    pool = input_buffers._forward_input_buffer_pool
    saved = dict(pool)
    pool.clear()
    _SHARED_OUTPUT = output
    try:
        yield
    finally:
        _SHARED_OUTPUT = None
        pool.clear()
        pool.update(saved)


def _logits_buffer(vocab_size: int, rows: int) -> Any:
    """ModelRunner.graph_shared_output's logits buffer: shape only (meta, never allocated)."""
    import torch

    return torch.empty((rows, vocab_size), dtype=torch.float32, device="meta")


def _pool_size(r: Resolved, token_capacity: int) -> int:
    """`KVCacheConfigurator.resolve_max_num_reqs` (kv_cache_configurator.py:3119)."""
    from sglang.srt.mem_cache.kv_cache_configurator import KVCacheConfigurator

    # the user's cap on the token capacity (kv_cache_configurator.py:3096-3105) and the
    # model's context length (--context-length over the model's 131072)
    limit = getattr(r.record, "max_total_tokens", None) if r.record is not None else None
    if limit is not None:
        token_capacity = min(token_capacity, int(limit))
    context = (getattr(r.record, "context_length", None) if r.record is not None else None)
    this = types.SimpleNamespace(attn_dp_size=max(1, r.attn_dp_size), mambaish_config=None,
                                 model_config=types.SimpleNamespace(context_len=context
                                                                    or 131072))
    return int(KVCacheConfigurator.resolve_max_num_reqs(this, token_capacity))


def _describe(t: Any) -> str:
    return str(t.dtype).removeprefix("torch.")


def _buffer(name: str, tensor: Any, axis: str, policy: str | None, init: str) -> Buffer:
    return Buffer(name, tuple(int(d) for d in tensor.shape), _describe(tensor), axis, policy,
                  init)


@contextlib.contextmanager
def published(r: Resolved) -> Any:
    """Publish the record as the scheduler does (runtime_context.publish) under fake CUDA, on
    the device the line was resolved on (its capability: SGLang's own probes answer the same
    in resolution and in the runners, as on one server)."""
    from sglang.srt.layers.moe.utils import initialize_moe_config
    from sglang.srt.runtime_context import get_flags, publish

    with sglang_stubs.fake_cuda(r.gpu_mem_mib, capability=r.capability), _unpublished():
        publish(r.record, role="scheduler")
        if _moe_model(r.record):  # scheduler.py:995-1008: a MoE model seeds the MoE flags
            initialize_moe_config()
        else:  # a dense model keeps MoeA2ABackend.NONE (layers/moe/utils.py:517-521, 541-548)
            get_flags().moe.a2a_backend = None
            get_flags().moe.speculative_a2a_backend = None
        yield


@contextlib.contextmanager
def _unpublished() -> Any:
    """On exit, the process context as it was on entry: what `publish` installs (record,
    config bags, role, flags, parallel config and stamped ranks) does not outlive the block,
    so a later test sees the process as it finds it (nothing published, or the outer
    block's record). SGLang's own `snapshot_context` / `restore_context`
    (runtime_context.py:1705-1747), with the parallel context's override and stamp
    tables copied: publish stamps ranks into the same dict (runtime_context.py:418)."""
    from sglang.srt import runtime_context as rc

    parallel = rc.get_parallel()
    tables = {name: dict(getattr(parallel, name)) for name in ("_overrides", "_stamp")}
    state = rc.snapshot_context()
    try:
        yield
    finally:
        rc.restore_context(state)
        for name, table in tables.items():
            setattr(parallel, name, table)


_MOE_TOPK_ATTRS = ("num_experts_per_tok", "num_experts_per_token", "top_k_experts",
                   "moe_top_k", "moe_topk")  # scheduler.py:998-1004


def _moe_model(record: Any) -> bool:
    """Whether the scheduler seeds the MoE flags for the record's model: its ModelConfig's
    `hf_text_config` has a per-token expert count attribute (managers/scheduler.py:991-1008,
    ModelConfig built by ModelConfig.from_server_args, scheduler.py:794; hf_text_config
    from get_hf_text_config, configs/model_config.py:636). So a VL wrapper's text_config
    counts, as does a HF config class's own default for an absent key (s64q; it read only
    the top-level config.json before). A checkpoint with no local config.json is dense
    here (no hub access). Where SGLang's ModelConfig raises (the server stops before the
    scheduler), the top-level config.json is read as before."""
    path = Path(str(getattr(record, "model_path", ""))) / "config.json"
    if not path.is_file():
        return False
    text = _text_config(record)
    if text is None:
        config = json.loads(path.read_text())
        return any(attr in config for attr in _MOE_TOPK_ATTRS)
    return any(hasattr(text, attr) for attr in _MOE_TOPK_ATTRS)


# the record fields ModelConfig.from_server_args hands ModelConfig (model_config.py:944-985)
_MODEL_CONFIG_FIELDS = (
    "model_path", "trust_remote_code", "revision", "context_length", "json_model_override_args",
    "is_embedding", "enable_multimodal", "dtype", "quantization", "model_impl",
    "sampling_defaults", "quantize_and_serve", "decrypted_config_file",
    "enable_multi_layer_eagle", "language_only", "language_model_only", "encoder_only",
    "disable_hybrid_swa_memory", "model_config_parser", "speculative_algorithm")
_TEXT_CONFIGS: dict[tuple[str, ...], Any] = {}


def _text_config(record: Any) -> Any:
    """SGLang's own ModelConfig.from_server_args(record).hf_text_config, or None where it
    raises. Kept per config.json text and ModelConfig's inputs (cost, not logic)."""
    from sglang.srt.configs.model_config import ModelConfig

    path = Path(str(getattr(record, "model_path", ""))) / "config.json"
    key = (path.read_text(), *(repr(getattr(record, f, None)) for f in _MODEL_CONFIG_FIELDS))
    if key not in _TEXT_CONFIGS:
        try:
            _TEXT_CONFIGS[key] = ModelConfig.from_server_args(record).hf_text_config
        except Exception:  # the server would stop; the caller falls back
            _TEXT_CONFIGS[key] = None
    return _TEXT_CONFIGS[key]


DEFAULT_HIDDEN = 4096  # the oracle model's hidden size
DEFAULT_VOCAB = 128256  # the oracle model's vocabulary


def runners(r: Resolved, *, token_capacity: int = DEFAULT_TOKEN_CAPACITY,
            hidden_size: int | None = None, vocab_size: int | None = None,
            device: str = "meta") -> dict[str, Runner]:
    """The decode graph runners SGLang builds for `r`, with capture lists and buffers; the
    target sized by the line's own model unless the caller names sizes (`_target_sizes`)."""
    if (r.speculative_algorithm or "").upper() == "DFLASH":
        # a LiLiCorr draft's head config is parsed when the draft model is built
        # (LiLiCorrDraftModel.__init__, models/lilicorr.py:532-540), graphs or not: SGLang's
        # own parse raises here for a head it cannot rebuild (the server does not start)
        _dflash_lilicorr(r)
    if (r.speculative_algorithm or "").upper() == "DSPARK":  # the worker's own parse
        from tests.oracle.sglang_dspark_oracle import worker_parse

        worker_parse(r)
    if r.decode_backend == "disabled":
        return {}
    hidden_size, vocab_size = _target_sizes(r, hidden_size, vocab_size)
    with published(r):
        return _runners(r, token_capacity, hidden_size, vocab_size, device)


def _target_sizes(r: Resolved, hidden_size: int | None, vocab_size: int | None
                  ) -> tuple[int, int]:
    """Glue: the runners size their buffers by the target ModelConfig's hidden size and
    vocabulary (decode_cuda_graph_runner.py:474-476), read from SGLang's own ModelConfig of
    the line (`model_config_of`: its --model-path, with `--json-model-override-args` applied,
    model_config.py:612-626). A caller's sizes are kept on a line without override args
    (fixtures sized apart from their config.json). Why: before issue 23 s69k the sizes
    defaulted to the oracle model's (DEFAULT_HIDDEN, DEFAULT_VOCAB) whatever --model-path the
    line named, so a DSPARK line on a Qwen3-MoE target showed false input_embeds / logits
    differences (the oracle's, not graphfit's)."""
    overridden = bool(json.loads(getattr(r.record, "json_model_override_args", None) or "{}"))
    if hidden_size is not None and vocab_size is not None and not overridden:
        return hidden_size, vocab_size
    from sglang.srt.arg_groups.model_override_base import model_config_of

    mc = model_config_of(r.record)
    if overridden:
        return int(mc.hidden_size), int(mc.vocab_size)
    return (int(mc.hidden_size) if hidden_size is None else hidden_size,
            int(mc.vocab_size) if vocab_size is None else vocab_size)


def _runners(r: Resolved, token_capacity: int, hidden_size: int, vocab_size: int,
             device: str) -> dict[str, Runner]:
    from sglang.srt.model_executor.model_runner import ModelRunner
    from sglang.srt.model_executor.runner.base_cuda_graph_runner import (
        get_batch_sizes_to_capture,
    )
    from sglang.srt.model_executor.runner.decode_cuda_graph_runner import (
        DecodeCudaGraphRunner,
    )
    from sglang.srt.utils.common import get_cuda_graph_batch_size_alignment

    pool = _pool_size(r, token_capacity)
    fill = _seq_len_fill_value(r.decode_attention_backend or r.attention_backend)
    mr = _model_runner_stub(r, pool, fill, device, hidden_size, vocab_size, draft=False)
    out: dict[str, Runner] = {}

    # target decode / target-verify runner (decode_cuda_graph_runner.py:357-410)
    width = int(ModelRunner.decode_num_tokens_per_req(mr, num_draft_tokens=None))
    mlp_gather, attn_gather = DecodeCudaGraphRunner.decode_graph_gather_requirements(mr)
    gathered = bool(mlp_gather or attn_gather)
    capture_bs, _ = get_batch_sizes_to_capture(mr, width, gathered_buffer_required=gathered)
    align = get_cuda_graph_batch_size_alignment(gathered_buffer_required=gathered)
    out["target"] = _target_runner(mr, tuple(capture_bs), width, pool, align, fill,
                                   mlp_gather, gathered, device)

    algo = mr.spec_algorithm
    if algo.is_dflash():
        from sglang.srt.runtime_context import get_parallel

        # `init_cuda_graphs` keeps the draft eager while the target's attention DP is on
        # (dflash_worker_v2.py:718-725): SGLang's own published flag decides
        if not get_parallel().attn_dp_enabled:
            out["dflash_draft"] = _dflash_runner(r, pool, _draft_worker_fill(), device,
                                                 hidden_size, vocab_size)
        return out
    if algo.is_dspark():  # tests/oracle/sglang_dspark_oracle.py
        from tests.oracle.sglang_dspark_oracle import dspark_runner

        out["dspark_draft"] = dspark_runner(r, pool, _draft_worker_fill(), device,
                                            hidden_size, vocab_size)
        return out
    if algo.is_eagle() or algo.is_standalone():
        from sglang.srt.runtime_context import get_spec

        # the draft runners take torch.get_device_module(device): "cpu", not "meta"
        draft_fill, extend_fill = _draft_fills()
        dmr = _model_runner_stub(r, pool, draft_fill, "cpu", hidden_size, vocab_size,
                                 draft=True)
        _draft_model_config(r, dmr)  # the draft's own vocabulary, dtype and widths
        if algo.is_standalone():
            _standalone_vocab(dmr, vocab_size)
        dmr.draft_extend_stub = _draft_extend_stub(r, extend_fill)
        steps = get_spec().speculative_num_steps
        # the EAGLE-family and frozen draft graphs are captured under the draft's all-to-all
        # backend (eagle_worker_v2.py:286-296, frozen_kv_mtp_worker_v2.py:222-230)
        from sglang.srt.layers.moe.utils import speculative_moe_a2a_backend_context as draft_a2a

        if algo.is_frozen_kv_mtp():  # spec_info.py:343, before the multi-layer switch
            # FrozenKVMTPDraftWorker: the draft loop only, no draft-extend runner
            # (frozen_kv_mtp_worker_v2.py:179-183, 380-399)
            with draft_a2a():
                out["frozen_drafter"] = _frozen_runner(dmr, pool, _frozen_hidden(r, hidden_size))
            return out
        if algo.is_eagle() and get_spec().enable_multi_layer_eagle:  # spec_info.py:354
            # MultiLayerEagleDraftWorker: no draft-decode runner (:417-418), the composite
            # draft-extend runner (multi_layer_eagle_worker_v2.py:436-452)
            out["mtp_draft_extend"] = _mtp_runner(dmr, pool, steps)
            return out
        with draft_a2a():
            if steps > 1:  # eagle_worker_v2.py:507
                out["draft"] = _draft_runner(dmr, pool, algo)
            out["draft_extend"] = _draft_extend_runner(dmr, pool, algo)
    return out


def _draft_model_config(r: Resolved, dmr: Any) -> None:
    """The draft model runner's ModelConfig fields the EAGLE-family and DFLASH draft runners
    read (its hf_config, vocab_size, dtype, hidden_size, spec_hidden_size), from SGLang's own
    `ModelConfig.from_server_args(..., is_draft_model=True)` (configs/model_config.py:
    923-975) of a local draft directory: the line's --dtype and override args, the draft's
    config.json. A hub id (nothing to read offline) keeps the stub's target values. A
    config SGLang's ModelConfig refuses raises (the server does not start)."""
    from sglang.srt.configs.model_config import ModelConfig

    path = draft_path(r)
    if path is None or not (Path(str(path)) / "config.json").is_file():
        return
    mc = ModelConfig.from_server_args(r.record, model_path=str(path), is_draft_model=True)
    hf_config = mc.hf_config
    if (getattr(hf_config, "draft_vocab_size", 0) is None
            and (hf_config.architectures or [""])[0] == "LlamaForCausalLMEagle3"
            and not hf_config.tie_word_embeddings):
        # glue for the model the oracle does not build: LlamaForCausalLMEagle3.__init__
        # sets a null draft_vocab_size to vocab_size on this config (llama_eagle3.py:306-308)
        hf_config.draft_vocab_size = hf_config.vocab_size
    for name in ("vocab_size", "dtype", "hidden_size", "spec_hidden_size"):
        setattr(dmr.model_config, name, getattr(mc, name))
    dmr.model_config.hf_config = hf_config


def _standalone_vocab(dmr: Any, target_vocab: int) -> None:
    """SGLang's own `StandaloneWorkerV2._validate_vocab_compatibility`
    (standalone_worker_v2.py:185-210) on the draft model runner's vocabulary (no tokenizers
    here: the size check only)."""
    from sglang.srt.speculative.standalone_worker_v2 import StandaloneWorkerV2

    worker = types.SimpleNamespace(_draft_worker=types.SimpleNamespace(
        draft_runner=dmr, draft_worker=types.SimpleNamespace(tokenizer=None)))
    StandaloneWorkerV2._validate_vocab_compatibility(worker, target_vocab_size=target_vocab,
                                                     target_tokenizer=None)


def _dflash_runner(r: Resolved, pool: int, fill: int, device: str, hidden_size: int,
                   vocab_size: int) -> Runner:
    """DFLASH's draft graphs: the draft TpModelWorker's own DecodeCudaGraphRunner
    (dflash_worker_v2.py:748-750 -> model_runner.init_cuda_graphs -> capture_decode_graph),
    built as the target's is here but on a draft model runner (`is_draft_worker`, so
    TARGET_VERIFY, decode_cuda_graph_runner.py:362-367) with SGLang's own width
    (`ModelRunner.decode_num_tokens_per_req`), capture list and gather requirements, plus
    SGLang's own `_DflashDraftSampler` (dflash_worker_v2.py:135-178) sized from
    max(cuda_graph_config.decode.bs) as `_maybe_build_draft_sampler` does (:991-998)."""
    import torch
    from sglang.srt.model_executor.model_runner import ModelRunner
    from sglang.srt.model_executor.runner.base_cuda_graph_runner import (
        get_batch_sizes_to_capture,
    )
    from sglang.srt.model_executor.runner.decode_cuda_graph_runner import (
        DecodeCudaGraphRunner,
    )
    from sglang.srt.runtime_context import get_exec
    from sglang.srt.speculative.dflash_worker_v2 import _DflashDraftSampler
    from sglang.srt.utils.common import get_cuda_graph_batch_size_alignment

    dmr = _model_runner_stub(r, pool, fill, device, hidden_size, vocab_size, draft=True)
    _draft_model_config(r, dmr)  # the draft's own vocabulary and dtype (:474-478)
    width = int(ModelRunner.decode_num_tokens_per_req(dmr, num_draft_tokens=None))
    mlp_gather, attn_gather = DecodeCudaGraphRunner.decode_graph_gather_requirements(dmr)
    gathered = bool(mlp_gather or attn_gather)
    capture_bs, _ = get_batch_sizes_to_capture(dmr, width, gathered_buffer_required=gathered)
    align = get_cuda_graph_batch_size_alignment(gathered_buffer_required=gathered)
    run = _target_runner(dmr, tuple(capture_bs), width, pool, align, fill, mlp_gather,
                         gathered, device)
    tp = int(r.tp_size)  # the draft's TP group: the target's without attention DP / CP
    weight = torch.empty((vocab_size, hidden_size), dtype=torch.bfloat16, device="meta")
    group = types.SimpleNamespace(world_size=tp) if tp > 1 else None
    max_bs = max(get_exec().graph.cuda_graph_config.decode.bs)
    sampler: Any
    selector = _dflash_selector(r)
    lilicorr = _dflash_lilicorr(r)
    from sglang.srt.environ import envs

    if envs.SGLANG_DFLASH_EAGER_DRAFT_SAMPLER.get():  # the head kept eager (:890-891)
        sampler = None
    elif selector is not None:  # `_maybe_build_draft_sampler`'s selector branch, first (:907)
        from sglang.srt.speculative.dflash_worker_v2 import _SelectorDraftSampler

        sampler = _SelectorDraftSampler(
            draft_model=types.SimpleNamespace(candidate_selector=selector), block_size=width,
            max_bs=max_bs, device="meta", sampling_enabled=True)
    elif lilicorr is not None:  # the LiLiCorr branch (:924-934)
        sampler = _lilicorr_sampler(lilicorr, width, hidden_size, vocab_size, tp)
    elif _dflash_domino(r):  # `_maybe_build_draft_sampler`'s Domino branch (:937-967)
        from sglang.srt.speculative.dflash_worker_v2 import _DominoDraftSampler

        sampler = _DominoDraftSampler(
            target_embedding=None, lm_head_weight=weight, prefix_gru=None, embed_proj=None,
            vocab_size=vocab_size, block_size=width, shift_label=True, max_bs=max_bs,
            candidate_pool_size=0, tp_group=group)
    else:
        sampler = _DflashDraftSampler(
            weight=weight, block_size=width, num_org=vocab_size, org_vocab_start=0,
            max_bs=max_bs, tp_group=group)
    table = dict(run.buffers)
    for name in ("out", "local_max", "local_arg", "gathered_max", "gathered_ids",
                 "best_rank", "selected_ids", "temperatures", "greedy_mask", "uniforms",
                 "candidate_out", "q_out", "anchor", "anchor_valid", "token_table"):
        tensor = getattr(sampler, name, None)
        if tensor is not None:  # compared on shape and dtype (axis "tokens")
            table[f"sampler_{name}"] = _buffer(f"sampler_{name}", tensor, "tokens", None,
                                               "empty")
    if lilicorr is not None:  # the head's weight-sized buffers, folded sampler or not
        for name, tensor in lilicorr_head_tensors(lilicorr[2]).items():
            table[name] = _buffer(name, tensor, "tokens", None, "empty")
    # live: the draft's DecodeCudaGraphRunner as it stands before capture (SGLang's class
    # without its capturing __init__, decode_cuda_graph_runner.py:470 buffers), its model
    # runner holding SGLang's own sampler capture hook (dflash_worker_v2.py:741-747)
    from sglang.srt.speculative.draft_worker_common import make_draft_sampler_capture_hook

    dmr.capture_tail_hooks = ([make_draft_sampler_capture_hook(sampler)]
                              if sampler is not None else [])
    live = object.__new__(DecodeCudaGraphRunner)
    live.buffers, live.model_runner = run.live, dmr
    return dataclasses.replace(run, name="dflash_draft", buffers=table, live=live)


def draft_path(r: Resolved) -> Any:
    """The draft path the resolution settled: the line's, or the one a hook declared
    (`_handle_dspark` fills a DSPARK draft in from the target, speculative_hook.py:720-745),
    which only the resolving view holds (issue 23 s51d)."""
    from sglang.srt.arg_groups.overrides import resolving_view

    return resolving_view(r.record).speculative_draft_model_path


def _draft_hf_config(r: Resolved, *, overridden: bool = False) -> Any:
    """The draft checkpoint's config as SGLang's own `get_config` reads it, or None (no draft
    path, or a hub id offline: no config here). `overridden`: with the line's
    `--json-model-override-args` applied, as the draft's `ModelConfig` reads it
    (model_config.py:950-975 -> :612-626); without: the config the weights were saved with."""
    from sglang.srt.utils.hf_transformers_utils import get_config

    path = draft_path(r)
    if path is None:
        return None
    overrides = json.loads(getattr(r.record, "json_model_override_args", None) or "{}") \
        if overridden else {}
    try:
        return get_config(str(path), trust_remote_code=False, model_override_args=overrides)
    except (OSError, ValueError):
        return None


def _load_checkpoint_head(head: Any, saved: Any) -> None:
    """The checkpoint's LiLiCorr head weights (the shapes `saved`, the head built from the
    config as written, holds) loaded into `head` by SGLang's own `default_weight_loader`
    (model_loader/weight_utils.py:1574-1586), whose size assertion fails when the line's
    override args built the head at another block than the checkpoint's. Glue: every
    parameter goes through the default loader (the head's linears' own loaders check the same
    sizes). A saved name the head lacks is dropped, as the base loader drops an unresolved
    name (models/dflash.py:936-939), and SGLang's own `check_head_weight_coverage` (models/
    lilicorr.py:459-483) then refuses missing or extra head tensors, as `load_weights` does
    (:568)."""
    from sglang.srt.model_loader.weight_utils import default_weight_loader

    with sglang_stubs.imports():
        from sglang.srt.models.lilicorr import check_head_weight_coverage

    params = dict(head.named_parameters())
    seen = set()
    for name, weight in saved.named_parameters():
        seen.add(f"lilicorr.{name}")
        if name in params:
            default_weight_loader(params[name], weight)
    check_head_weight_coverage(head, seen)


def _dflash_selector(r: Resolved) -> Any:
    """The draft model's `candidate_selector` as SGLang builds it: the draft's model class
    (`architectures[0]` among SGLang's own `models/dflash.py` entry classes) is a
    `DFlash2DraftModel`, whose `CandidateSelector` takes `top_k` from its own
    `parse_dflash_draft_config` (models/dflash.py:1264-1280); None otherwise."""
    from sglang.srt.speculative.dflash_utils import parse_dflash_draft_config

    config = _draft_hf_config(r)
    if config is None:
        return None
    with sglang_stubs.imports():
        import sglang.srt.models.dflash as models
    classes = {c.__name__: c for c in models.EntryClass}
    arch = (getattr(config, "architectures", None) or [None])[0]
    if arch not in classes or not issubclass(classes[arch], models.DFlash2DraftModel):
        return None
    top_k = parse_dflash_draft_config(draft_hf_config=config).selector_top_k
    return types.SimpleNamespace(top_k=int(top_k))


def _dflash_lilicorr(r: Resolved) -> Any:
    """(the LiLiCorr head's config as SGLang's own `parse_lilicorr_draft_config` reads it,
    the draft's hidden size, SGLang's own head: `_lilicorr_head`) when the draft's model class
    (`architectures[0]` among SGLang's own `models/lilicorr.py` entry classes) is a
    `LiLiCorrDraftModel`; None otherwise. Raises where SGLang's draft does not load. The
    config is the draft `ModelConfig`'s: the line's override args applied."""
    config = _draft_hf_config(r, overridden=True)
    if config is None:
        return None
    with sglang_stubs.imports():  # both import Triton kernel modules
        import sglang.srt.models.lilicorr as models
        from sglang.srt.speculative.lilicorr_utils import parse_lilicorr_draft_config
    classes = {c.__name__: c for c in models.EntryClass}
    arch = (getattr(config, "architectures", None) or [None])[0]
    if arch not in classes or not issubclass(classes[arch], models.LiLiCorrDraftModel):
        return None
    parsed = parse_lilicorr_draft_config(draft_hf_config=config)
    return parsed, int(config.hidden_size), _lilicorr_head(parsed, config, r)


def _lilicorr_head(parsed: Any, config: Any, r: Resolved) -> Any:
    """SGLang's own `LiLiCorrHead` as `LiLiCorrDraftModel.__init__` builds it
    (models/lilicorr.py:532-541: the draft's hidden size, the draft's trained block, its own
    `parse_dflash_draft_config(...).resolve_block_size(default=16)` as models/dflash.py:700-703
    takes it, on the config with the line's override args), on the meta device in the model
    dtype (bfloat16); the checkpoint's weights (saved at the block of the config as written)
    loaded into it (`_load_checkpoint_head`, as `load_weights` does, :553-569), then set to
    the worker's
    block (`set_block_size`, dflash_worker_v2.py:523 -> models/lilicorr.py:549-551, which
    raises for a block the head was not trained for) and materialized as `load_weights`
    does (:571-572)."""
    import torch

    with sglang_stubs.imports():
        import sglang.srt.models.lilicorr as models
        from sglang.srt.speculative.dflash_utils import parse_dflash_draft_config
        from sglang.srt.speculative.lilicorr_utils import parse_lilicorr_draft_config

    def build(config: Any, parsed: Any) -> Any:
        trained = parse_dflash_draft_config(draft_hf_config=config).resolve_block_size(
            default=16)
        before = torch.get_default_dtype()
        torch.set_default_dtype(torch.bfloat16)
        try:
            with torch.device("meta"):
                return models.LiLiCorrHead(
                    model_hidden_size=int(config.hidden_size), block_size=int(trained),
                    rms_norm_eps=float(getattr(config, "rms_norm_eps", 1e-6)), config=parsed)
        finally:
            torch.set_default_dtype(before)

    head = build(config, parsed)
    # the checkpoint's head: built from the config as written, its own lilicorr_* fields
    # (glue: a written config SGLang could not parse names no checkpoint geometry; then
    # nothing is loaded)
    written = _draft_hf_config(r)
    try:
        saved = build(written, parse_lilicorr_draft_config(draft_hf_config=written))
    except ValueError:
        saved = None
    if saved is not None:
        _load_checkpoint_head(head, saved)
    head.set_active_block_size(int(r.speculative_num_draft_tokens or head.block_size))
    parameter = head.slot_embedding
    head.materialize_inference_buffers(parameter.device, parameter.dtype)
    return head


def lilicorr_head_tensors(head: Any) -> dict[str, Any]:
    """The head's weight-sized inference buffers as graphfit names them (`lilicorr_*`,
    graphfit.planner.engines.sglang_lilicorr_weights): each tensor SGLang's
    `materialize_inference_buffers` made (models/lilicorr.py:245-281); a factor-input column
    block that `.contiguous()` returned as a view of the weight (`_base` set) holds no memory
    of its own and is left out."""
    found = {"lilicorr_attn_bias": head._attn_bias,
             "lilicorr_fused_edge_weight": head._fused_edge_weight,
             "lilicorr_fused_edge_bias": head._fused_edge_bias,
             "lilicorr_rank_frac_col": head._rank_frac_col,
             "lilicorr_is_top1_col": head._is_top1_col}
    for part, tensor in zip(("self", "anchor", "cross"), head._factor_input_splits,
                            strict=True):
        if tensor._base is None:
            found[f"lilicorr_factor_input_{part}"] = tensor
    return found


def _lilicorr_sampler(found: Any, block: int, hidden_size: int, vocab_size: int, tp: int
                      ) -> Any:
    """SGLang's own `build_lilicorr_draft_sampler` (lilicorr_utils.py:377-419: max_bs from
    its own `draft_graph_batch_sizes()`) on SGLang's own head (`_lilicorr_head`) and the
    target's input embedding as SGLang's own `VocabParallelEmbedding` builds it for rank 0 of
    the TP group (vocab_size x hidden_size, on meta; vocab_parallel_embedding.py:230-345),
    so the head's own `build_token_table` decides whether there is a table and its rows
    (models/lilicorr.py:448-456). Glue, not SGLang logic: the parallel state the embedding
    reads (rank 0 of `tp`), the TP all-gather as the concatenation of the ranks' equal shards
    (lilicorr_utils.py:273-275), the draft's `fc.output_size` = its hidden size
    (models/dflash.py:764-774) and an lm_head that is no VocabParallelEmbedding (so no added
    vocabulary, lilicorr_utils.py:108-115)."""
    import torch

    with sglang_stubs.imports():
        import sglang.srt.layers.linear as linear
        import sglang.srt.layers.vocab_parallel_embedding as vpe
        import sglang.srt.speculative.lilicorr_utils as utils

    _, hidden, head = found
    parallel = types.SimpleNamespace(tp_rank=0, tp_size=tp, tp_group=None)
    with mock.patch.object(vpe, "get_parallel", lambda: parallel), \
            mock.patch.object(linear, "get_parallel", lambda: parallel), torch.device("meta"):
        embed = vpe.VocabParallelEmbedding(vocab_size, hidden_size,
                                           params_dtype=torch.bfloat16)
    draft = types.SimpleNamespace(fc=types.SimpleNamespace(output_size=hidden))
    with mock.patch.object(utils, "tensor_model_parallel_all_gather",
                           lambda t, dim: torch.cat([t] * tp, dim=dim)):
        sampler = utils.build_lilicorr_draft_sampler(
            head=head, draft_model=draft, embed_tokens=embed,
            lm_head=types.SimpleNamespace(), block_size=block, sampling_enabled=False)
    assert sampler is not None
    return sampler


def _dflash_domino(r: Resolved) -> bool:
    """Whether SGLang's DFLASH worker takes the draft for a Domino one: its own
    `parse_dflash_draft_config(...).is_domino` on its own `get_config` of the draft path
    (dflash_worker_v2.py:451-454)."""
    from sglang.srt.speculative.dflash_utils import parse_dflash_draft_config

    config = _draft_hf_config(r)  # a hub id offline (SGLang would download it): plain
    if config is None:
        return False
    return bool(parse_dflash_draft_config(draft_hf_config=config).is_domino)


def _target_runner(mr: Any, capture_bs: tuple[int, ...], width: int, pool: int, align: int,
                   fill: int, mlp_gather: bool, gathered: bool, device: str) -> Runner:
    import torch
    from sglang.srt.model_executor.cuda_graph_buffer_registry import build_decode_registry
    from sglang.srt.model_executor.runner_utils.buffers import DecodeInputBuffers
    from sglang.srt.runtime_context import get_exec, get_parallel

    max_bs = max(capture_bs)
    # SGLang's own switch for the mamba-tracking inputs: the resolved extra buffer and no
    # speculation on this runner's model runner (decode_cuda_graph_runner.py:458-461), fed
    # to both builders as the runner does (:487, :518)
    track = bool(get_exec().mamba.enable_mamba_extra_buffer and mr.spec_algorithm.is_none())
    max_num_token = max_bs * width
    hidden = mr.model_config.hidden_size
    vocab = mr.model_config.vocab_size
    logits = (torch.zeros((max_num_token, vocab), dtype=torch.float32, device=device)
              if _SHARED_OUTPUT is None
              else mr.graph_shared_output.get_logits_buffer(vocab, rows=max_num_token))
    buffers = DecodeInputBuffers.create(
        device=torch.device(device), max_bs=max_bs, max_num_token=max_num_token,
        hidden_size=hidden, next_token_logits_buffer=logits, dtype=mr.model_config.dtype,
        # the runner's own count, `get_parallel().num_dp_ranks` (base_runner.py:234-235): the
        # `global_num_tokens` buffers hold one per DP rank under the MLP gather (buffers.py:
        # 212-217; issue 23 s67l: 1 here before, which made them coalesce in the pool with
        # a dp-local DSPARK draft's one-count buffers)
        num_dp_ranks=get_parallel().num_dp_ranks, pp_size=1, is_encoder_decoder=False,
        require_mlp_tp_gather=mlp_gather,
        seq_len_fill_value=fill, encoder_len_fill_value=0, num_tokens_per_req=width,
        cache_loc_dtype=torch.int64, enable_mamba_track=track)
    if _SHARED_OUTPUT is not None:
        # decode_cuda_graph_runner.py:505-509, its early-verify exclusion by SGLang's own
        # predicate (tests.oracle.sglang_dspark_early, issue 23 s54d)
        from tests.oracle.sglang_dspark_early import staged_exclude

        buffers.share_buffers(exclude=staged_exclude(mr, gathered))
    registry = build_decode_registry(
        device=torch.device(device), max_bs=max_bs, max_num_token=max_num_token,
        seq_len_fill_value=fill, cache_loc_dtype=torch.int64, require_gathered_buffer=gathered,
        require_mlp_tp_gather=mlp_gather, source=buffers, share_pool=False,
        enable_mamba_track=track, num_dp_ranks=get_parallel().num_dp_ranks)  # as :527
    table: dict[str, Buffer] = {}
    for name in registry.slot_names():
        slot = registry.get_slot(name)
        table[name] = _buffer(name, slot.buffer, slot.axis, slot.padding_policy.value,
                              _init_of(name, slot))
    for name, axis, init in (("input_embeds", "tokens", "zeros"),
                             ("custom_mask", "bs", "ones"),
                             ("next_token_logits_buffer", "tokens", "zeros")):
        tensor = getattr(buffers, name)
        if tensor is not None and name not in table:
            table[name] = _buffer(name, tensor, axis, None, init)
    return Runner("target", width, capture_bs, pool, align, max_bs, max_num_token, fill, table,
                  live=buffers)


def _init_of(name: str, slot: Any) -> str:
    if slot.pad_value is not None and slot.padding_policy.value in ("fill_sentinel",
                                                                    "fill_once"):
        return f"full({slot.pad_value})"
    return "zeros"


_DRAFT_AXES = {  # axis of each draft-runner buffer: rows per request (bs) or per token
    "input_ids": "tokens", "positions": "tokens", "out_cache_loc": "tokens",
    "mrope_positions": "tokens", "hidden_states": None, "req_pool_indices": "bs",
    "seq_lens": "bs", "seq_lens_cpu": "bs", "extend_seq_lens": "bs", "topk_p": "bs",
    "topk_index": "bs", "draft_probs": "bs", "sampling_seed": "bs", "num_correct_drafts": "bs",
    "num_accept_tokens": "bs", "select_index": "bs", "next_token_logits_buffer": "bs",
    "rids_int": "bs", "bootstrap_room_ids_int": "bs", "mamba_track_indices": "bs",
    "global_num_tokens_gpu": "fixed", "global_num_tokens_for_logprob_gpu": "fixed",
    "dsa_seed_topk": "bs", "dsa_seed_topk_capture": "tokens", "extend_start_loc": "bs",
}


def _no_capture(cls: type) -> type:
    """The runner class with only CUDA graph capture / replay replaced (no CUDA here)."""

    class Uncaptured(cls):  # type: ignore[misc, valid-type]
        def capture(self) -> None:
            pass

        def _replay_graph(self, shape_key: Any, forward_batch: Any) -> Any:
            return self._on_replay(self, forward_batch)

    Uncaptured.__name__ = f"Uncaptured{cls.__name__}"
    return Uncaptured


def _draft_worker(mr: Any, algo: Any) -> Any:
    from sglang.srt.runtime_context import get_spec

    backend = mr.draft_attn_backend
    worker = types.SimpleNamespace(
        draft_runner=mr, draft_extend_attn_backend=getattr(mr, "draft_extend_stub", backend),
        speculative_algorithm=algo,
        seed_dsa_topk_from_draft_extend=False, dsa_seed_topk_width=None, hot_token_id=None)
    if get_spec().speculative_token_map is not None:
        # SGLang's own load of --speculative-token-map (eagle_worker_v2.py:324-334,
        # spec_utils.py:792-819: torch.load of a local file), read by the draft-extend
        # runner's width (eagle_draft_extend_cuda_graph_runner.py:242-245)
        from sglang.srt.speculative.eagle_worker_v2 import EagleDraftWorker

        EagleDraftWorker.init_token_map(worker)
    return worker


def _graph_backend_stub(runner: Any) -> Any:
    return types.SimpleNamespace(capture_one=lambda *a, **k: None, replay=lambda *a, **k: None)


def _draft_tables(runner: Any, hidden_axis: str) -> dict[str, Buffer]:
    table: dict[str, Buffer] = {}
    for name, tensor in vars(runner.buffers).items():
        if tensor is None or not hasattr(tensor, "shape"):
            continue
        axis = _DRAFT_AXES.get(name) or hidden_axis
        table[name] = _buffer(name, tensor, axis, None, "")
    for name in ("temperatures", "top_ks"):  # runner attributes, not in .buffers (:225-233)
        tensor = getattr(runner, name, None)
        if tensor is not None:
            table[name] = _buffer(name, tensor, "bs", None, "")
    return table


def _build(cls: type, dmr: Any, algo: Any, **kwargs: Any) -> Any:
    import sglang.srt.speculative.eagle_draft_cuda_graph_runner as draft_mod
    import sglang.srt.speculative.eagle_draft_extend_cuda_graph_runner as extend_mod

    saved = (draft_mod.resolve_decode_backend, extend_mod.resolve_decode_backend)
    draft_mod.resolve_decode_backend = extend_mod.resolve_decode_backend = _graph_backend_stub
    try:
        return _no_capture(cls)(_draft_worker(dmr, algo), **kwargs)
    finally:
        draft_mod.resolve_decode_backend, extend_mod.resolve_decode_backend = saved


def _draft_runner(dmr: Any, pool: int, algo: Any) -> Runner:
    from sglang.srt.speculative.eagle_draft_cuda_graph_runner import EAGLEDraftCudaGraphRunner
    from sglang.srt.utils.common import get_cuda_graph_batch_size_alignment

    runner = _build(EAGLEDraftCudaGraphRunner, dmr, algo)
    return Runner("draft", int(runner.captured_req_width), tuple(runner.capture_bs), pool,
                  get_cuda_graph_batch_size_alignment(), int(runner.max_bs),
                  int(runner.max_num_token), int(runner.seq_len_fill_value),
                  _draft_tables(runner, "bs"), live=runner)


def _draft_extend_runner(dmr: Any, pool: int, algo: Any) -> Runner:
    from sglang.srt.speculative.eagle_draft_extend_cuda_graph_runner import (
        EAGLEDraftExtendCudaGraphRunner,
    )
    from sglang.srt.utils.common import get_cuda_graph_batch_size_alignment

    runner = _build(EAGLEDraftExtendCudaGraphRunner, dmr, algo)
    return Runner("draft_extend", int(runner.captured_req_width), tuple(runner.capture_bs),
                  pool, get_cuda_graph_batch_size_alignment(), int(runner.max_bs),
                  int(runner.max_num_token), int(runner.seq_len_fill_value),
                  _draft_tables(runner, "tokens"), live=runner)


class _MtpBackendStub(_AttnBackendStub):
    """A draft-extend attention backend of one multi-layer step: it neither refreshes its
    metadata inside the graph nor stages it (the per-step runners, the default for
    backends without either capability, multi_layer_eagle_worker_v2.py:431-452)."""

    supports_draft_extend_metadata_staging = False

    def draft_extend_metadata_captured_in_graph(self) -> bool:
        return False


def _mtp_worker(dmr: Any, steps: int) -> Any:
    """The MultiLayerEagleDraftWorker fields the composite runner reads (glue): one draft
    model runner and one draft-extend backend per step, no boundary-KV front tokens (a
    dense model's request pool is not hybrid, multi_layer_eagle_worker_v2.py:245-262)."""
    from sglang.srt.runtime_context import get_spec

    stub = getattr(dmr, "draft_extend_stub", dmr.attn_backend)
    backends = [_MtpBackendStub(stub.get_cuda_graph_seq_len_fill_value())
                for _ in range(steps)]
    return types.SimpleNamespace(
        device=dmr.device, gpu_id=0, speculative_num_steps=steps,
        draft_extend_attn_backend_list=backends, mtp_model_runner=lambda step: dmr,
        draft_extend_num_front_tokens=0, use_rejection_sampling=False,
        topk=get_spec().speculative_eagle_topk, chain_mtp_hidden_states=True,
        draft_runner_list=[dmr] * steps)


def _mtp_runner(dmr: Any, pool: int, steps: int) -> Runner:
    """SGLang's own `MultiLayerEagleMultiStepDraftExtendCudaGraphRunner.__init__`
    (multi_layer_eagle_draft_extend_cuda_graph_runner.py:557-646): per-step runners and the
    shared `_allocate_buffers` (:655), with only each step's capture stubbed."""
    import sglang.srt.speculative.multi_layer_eagle_draft_extend_cuda_graph_runner as mod
    from sglang.srt.utils.common import get_cuda_graph_batch_size_alignment

    step_cls = _no_capture(mod.MultiLayerEagleDraftExtendCudaGraphRunner)

    class Composite(mod.MultiLayerEagleMultiStepDraftExtendCudaGraphRunner):  # type: ignore[misc, name-defined]
        def _create_runner(self, step: int) -> Any:
            return step_cls(self.eagle_worker, step)

    saved = (mod.resolve_decode_backend, mod.get_available_gpu_memory)
    mod.resolve_decode_backend = _graph_backend_stub
    mod.get_available_gpu_memory = lambda *a, **k: 0.0
    try:
        runner = Composite(_mtp_worker(dmr, steps))
    finally:
        mod.resolve_decode_backend, mod.get_available_gpu_memory = saved
    table = _draft_tables(runner, "tokens")
    if runner.prune_draft_extend_logits:  # one row per request (:689-695)
        logits = table["next_token_logits_buffer"]
        table["next_token_logits_buffer"] = Buffer(logits.name, logits.shape, logits.dtype,
                                                   "bs", None, "")
    else:
        logits = table["next_token_logits_buffer"]
        table["next_token_logits_buffer"] = Buffer(logits.name, logits.shape, logits.dtype,
                                                   "tokens", None, "")
    return Runner("mtp_draft_extend", int(runner.captured_req_width),
                  tuple(runner.capture_bs), pool, get_cuda_graph_batch_size_alignment(),
                  int(runner.max_bs), int(runner.max_bs * runner.captured_req_width),
                  int(runner.seq_len_fill_value), table, live=runner)


_FROZEN_EXPANDED = ("req_pool_indices", "positions", "mrope_positions", "seq_lens",
                    "seq_lens_cpu")


def _frozen_hidden(r: Resolved, default: int) -> int:
    """SGLang's `FrozenKVMTPDraftWorker._recurrent_hidden_size` (frozen_kv_mtp_worker_v2.py:
    329-331) on a stand-in whose draft model holds what `Gemma4AssistantForCausalLM.__init__`
    reads (`config.backbone_hidden_size`, models/gemma4_mtp.py:80) from SGLang's own
    `get_config` of the draft path (HF's class default when the file names none); `default`
    (the target's hidden size) for a line without a draft model path."""
    from sglang.srt.speculative.frozen_kv_mtp_worker_v2 import FrozenKVMTPDraftWorker

    config = _draft_hf_config(r)  # a hub id offline (SGLang would download it): the default
    if config is None:
        return default
    model = types.SimpleNamespace(backbone_hidden_size=config.backbone_hidden_size)
    worker = types.SimpleNamespace(draft_model_runner=types.SimpleNamespace(model=model))
    return int(FrozenKVMTPDraftWorker._recurrent_hidden_size.fget(worker))  # type: ignore[attr-defined]


def _frozen_runner(dmr: Any, pool: int, hidden_size: int) -> Runner:
    """SGLang's own `FrozenKVMTPCudaGraphRunner.__init__` (frozen_kv_mtp_cuda_graph_runner.py:
    90-196) with only `capture()` and the graph backend stubbed; the worker (glue) gives the
    draft model runner, its attention backend and the draft's `backbone_hidden_size`
    (frozen_kv_mtp_worker_v2.py:330-331), the target's hidden size here."""
    import sglang.srt.speculative.frozen_kv_mtp_cuda_graph_runner as mod
    from sglang.srt.utils.common import get_cuda_graph_batch_size_alignment

    worker = types.SimpleNamespace(draft_model_runner=dmr,
                                   draft_attn_backend=dmr.draft_attn_backend,
                                   _recurrent_hidden_size=hidden_size)
    if not hasattr(dmr, "dtype"):
        dmr.dtype = dmr.model_config.dtype
    saved = mod.resolve_decode_backend
    mod.resolve_decode_backend = _graph_backend_stub
    try:
        runner = _no_capture(mod.FrozenKVMTPCudaGraphRunner)(worker)
    finally:
        mod.resolve_decode_backend = saved
    table: dict[str, Buffer] = {}
    for name, tensor in vars(runner.buffers).items():
        if tensor is None or not hasattr(tensor, "shape"):
            continue
        # the draft loop's expanded rows (max_bs * topk) against the per-request rows
        axis = ("fixed" if name.startswith("global_num_tokens") else
                "tokens" if name in _FROZEN_EXPANDED else "bs")
        table[name] = _buffer(name, tensor, axis, None, "")
    return Runner("frozen_drafter", int(runner.captured_req_width), tuple(runner.capture_bs),
                  pool, get_cuda_graph_batch_size_alignment(), int(runner.max_bs),
                  int(runner.max_num_token), int(runner.seq_len_fill_value), table,
                  live=runner)


def frozen_padding_fills(runner: Runner, raw_bs: int) -> dict[str, str]:
    """What SGLang's own `FrozenKVMTPCudaGraphRunner.execute` (frozen_kv_mtp_cuda_graph_runner
    .py:393-470) leaves in the padded tail of each buffer for a batch of `raw_bs` requests:
    run on CPU with a marker in every buffer and the replay stubbed, then read back ("keep",
    "zero", "sentinel" (the seq_len fill), "sentinel(v)", or None when the batch is not
    padded)."""
    import torch

    live = runner.live
    width = runner.width
    bs = pad_to_bucket(raw_bs, runner.capture_bs)
    if bs == raw_bs:
        return {}
    marker = 3  # exact in bfloat16 too; the real rows hold 5 / 1
    for tensor in vars(live.buffers).values():
        if tensor is not None and hasattr(tensor, "fill_"):
            tensor.fill_(marker)
    rows = raw_bs * width
    spec = types.SimpleNamespace(bonus_tokens=torch.ones(raw_bs, dtype=torch.int64),
                                 hidden_states=torch.ones(
                                     (raw_bs, live.buffers.hidden_states.shape[1]),
                                     dtype=live.buffers.hidden_states.dtype))
    batch = types.SimpleNamespace(
        batch_size=rows, seq_lens=torch.full((rows,), 5, dtype=torch.int64),
        positions=torch.full((rows,), 5, dtype=torch.int64), mrope_positions=None,
        req_pool_indices=torch.full((rows,), 5, dtype=torch.int64),
        seq_lens_cpu=torch.full((rows,), 5, dtype=torch.int64), seq_lens_sum=5 * rows,
        spec_info=spec, global_num_tokens_cpu=None)
    live.frozen_kv_mtp_worker._init_frozen_kv_metadata_replay_cuda_graph = (
        lambda *a, **k: None)
    out = torch.zeros((bs, 1))
    live._on_replay = lambda runner_, fb: (out, out, out)
    # glue: the bucket from this rank's batch (under attention DP SGLang takes it from the
    # ranks' token counts, :403-407); the fills below do not depend on how it was chosen
    gather, live.require_mlp_tp_gather = live.require_mlp_tp_gather, False
    try:
        live.execute(batch)
    finally:
        live.require_mlp_tp_gather = gather
    fills: dict[str, str] = {}
    for name, tensor in vars(live.buffers).items():
        if tensor is None or not hasattr(tensor, "shape") or name.startswith("global"):
            continue
        real = rows if name in _FROZEN_EXPANDED else raw_bs
        tail = (tensor[:, real:bs * width] if name == "mrope_positions" else
                tensor[real:(bs * width if name in _FROZEN_EXPANDED else bs)])
        values = set(tail.flatten().tolist())
        fills[name] = ("keep" if values == {marker} else "zero" if values == {0} else
                       "sentinel" if values == {runner.seq_len_fill_value} else
                       f"sentinel({values.pop()})" if len(values) == 1 else "computed")
    return fills


def mtp_padding_fills(width: int, fill: int, raw_bs: int = 2, bs: int = 5) -> dict[str, str]:
    """What SGLang's `fill_draft_extend_prepare_buffers_native` (kernels/ops/speculative/
    multi_layer_eagle.py:733-796, "mirrors the triton kernel's semantics exactly") leaves in
    the padded tail [raw_bs, bs) of each buffer it writes: run on CPU with a marker in every
    buffer, then read back ("keep": the marker, "zero", "sentinel" (the seq_len fill), or
    "sentinel(v)")."""
    import torch

    oracle()
    with sglang_stubs.imports():
        from sglang.kernels.ops.speculative.multi_layer_eagle import (
            fill_draft_extend_prepare_buffers_native,
        )
    marker = 777
    tokens, real = bs * width, raw_bs * width

    def buf(n: int, dtype: Any = torch.int64) -> Any:
        return torch.full((n,), marker, dtype=dtype)

    dst = {"input_ids": buf(tokens), "positions": buf(tokens), "out_cache_loc": buf(tokens),
           "seq_lens": buf(bs, torch.int32), "req_pool_indices": buf(bs),
           "num_correct_drafts": buf(bs, torch.int32),
           "num_accept_tokens": buf(bs, torch.int32), "select_index": buf(bs)}
    hidden = torch.full((tokens, 4), marker, dtype=torch.float32)
    src = {k: torch.arange(1, (real if t.numel() == tokens else raw_bs) + 1, dtype=t.dtype)
           for k, t in dst.items()}
    fill_draft_extend_prepare_buffers_native(
        dst["input_ids"], dst["positions"], dst["out_cache_loc"], src["input_ids"],
        src["positions"], src["out_cache_loc"], dst["seq_lens"], dst["req_pool_indices"],
        dst["num_correct_drafts"], dst["num_accept_tokens"], dst["select_index"], None,
        src["seq_lens"], src["req_pool_indices"], src["num_correct_drafts"],
        src["num_accept_tokens"], None, hidden, torch.ones((real, 4)), None, None, raw_bs, bs,
        width, 0, fill)
    out: dict[str, str] = {"hidden_states": "keep" if bool((hidden[real:] == marker).all())
                           else "written"}
    for name, t in dst.items():
        tail = t[(real if t.numel() == tokens else raw_bs):]
        values = set(tail.tolist())
        if values == {marker}:
            out[name] = "keep"
        elif values == {0}:
            out[name] = "zero"
        elif values == {fill}:
            out[name] = "sentinel"
        elif len(values) == 1:
            out[name] = f"sentinel({values.pop()})"
        else:
            out[name] = "computed"
    return out


def tbo_plugin() -> Any:
    """SGLang's `TboCudaGraphRunnerPlugin()`, the object every graph runner keeps as
    `self.tbo_plugin` (base_runner.py:245), built by SGLang's own constructor with its device
    lookup pointed at the meta device (glue: the fake CUDA has no memory)."""
    import types as _types

    oracle()  # the stubs installed
    with sglang_stubs.imports():
        from sglang.srt.batch_overlap import two_batch_overlap as tbo
    saved = tbo.get_device
    tbo.get_device = lambda: _types.SimpleNamespace(device="meta")
    try:
        return tbo.TboCudaGraphRunnerPlugin()
    finally:
        tbo.get_device = saved


@functools.cache
def tbo_plugin_buffer() -> tuple[tuple[int, ...], str]:
    """(shape, dtype) of the buffer SGLang's `TboCudaGraphRunnerPlugin()` allocates
    (batch_overlap/two_batch_overlap.py:341-345)."""
    t = tbo_plugin()._tbo_children_num_token_non_padded
    return tuple(int(d) for d in t.shape), _describe(t)
