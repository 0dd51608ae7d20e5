"""SGLang 0.5.23's `UnoDecodeCudaGraphRunner` built by its own constructor on CPU, and its
capture loop run without CUDA: which runner records which graphs per size, its buffers and
the LoRA state it leaves behind.

What runs is SGLang's code:

* the class: `ModelRunner._decode_cuda_graph_runner_cls` (model_runner.py:1584-1598) picks
  `UnoDecodeCudaGraphRunner` for UNO;
* the target runner: `UnoDecodeCudaGraphRunner(model_runner)` (uno_cuda_graph_runner.py:22-72
  -> DecodeCudaGraphRunner.__init__, decode_cuda_graph_runner.py:275-605): its width, capture
  list, `record_nolora_graph`, `DecodeInputBuffers` and buffer registry, and the LoRA decode
  batch info its constructor allocates (`init_decode_cuda_graph_batch_info`, :449-456);
* the tree-draft runner, when the line is a tree and the target captures:
  `UnoDecodeCudaGraphRunner(model_runner, tree_draft_attn_backend=..., tree_draft_width=F)`
  with F from `UnoWorkerV2` (uno_worker_v2.py:86-91, 147-175);
* the capture: the runner's own `capture()` (decode_cuda_graph_runner.py:1249-1316):
  `warmup` (base_runner.py:253-264: on a CPU model runner it returns at `mr.device !=
  "cuda"`), the seq_lens fill and index reset, `graph_capture` and the graph backend's
  `capture_session` around `_capture_one_stream` (:1318-1366) with its LoRA variants (:1331),
  `UnoDecodeCudaGraphRunner.capture_one_shape` (uno_cuda_graph_runner.py:122-170: one
  retained LoRA batch info per size, `capture_draft`, uno_lora.py:78-88), and the whole
  `DecodeCudaGraphRunner.capture_one_shape` (:1368-1505): `capture_prepare` (:1083-1247,
  UNO's :74-81) slicing every buffer to the size, the two-batch-overlap plugin, the
  attention metadata, `run_once` and the graph key. The graph backend's `capture_one` runs
  `run_once` twice, as `FullCudaGraphBackend.capture_one`'s two warm-up forwards do
  (runner_backend/full_cuda_graph_backend.py:159-168), and records the key; the forward is a
  recorder of what it is handed (`Forward`: the rows of every sliced buffer, the spec input,
  the LoRA batch info then active).

Glue (not SGLang logic): the model runner is a namespace with SGLang's own ModelRunner
methods bound to it (`decode_num_tokens_per_req`, the PP-proxy widths, ...), no model (a
recorder module) and an attention-backend stub (metadata calls do nothing); the LoRA manager
is SGLang's LoRAManager without a model over SGLang's UNO backend
(sglang_uno_compare._manager); `resolve_decode_backend` returns the recording graph backend,
`graph_capture` / the capture stream are no-ops, the KV index translator's
`bind_runner_slots` (a KV-pool view, kv_index_translator.py:398-402) records the batch size,
`_forks_draft_metadata_prep` answers False (its DSPARK-draft test, decode_cuda_graph_runner.py
:610-633, is False for UNO; its import needs DeepSeek-V4 kernels), `torch.cpu` gets
`is_current_stream_capturing` -> False (a warm-up forward: nothing is being captured), the
two-batch-overlap plugin allocates on the meta device, `freeze_gc` (base_cuda_graph_runner.py:
46-61: `gc.collect` / `gc.freeze` around the loop, Python memory only, about a second per
build in a test process) is a null context. What stays CUDA-only: the third,
recorded forward under `torch.cuda.graph` (full_cuda_graph_backend.py:185-200), the model's
kernels, and the graph replay itself. `replays` runs SGLang's `load_batch` (:1521-1713) on
ForwardBatches the oracle builds (the scheduler's are not run) under the same glue.
"""

from __future__ import annotations

import contextlib
import types
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_uno_compare as uc

TREE_DRAFT = uc.TREE_DRAFT
_BOUND = ("decode_num_tokens_per_req", "attn_tp_sequence_sharded", "get_pp_proxy_topk_size",
          "get_pp_proxy_residual_num_blocks", "get_pp_proxy_dspark_hidden_size",
          "get_aux_hidden_states_width")


@dataclass(frozen=True)
class Capture:
    """One graph the capture loop records: its size, LoRA variant label and whether the
    UNO draft adapter's retained routing was active (the LoRA draft)."""

    size: int
    variant: str | None
    lora_draft: bool


@dataclass(frozen=True)
class Forward:
    """One forward SGLang's capture ran (a warm-up of one graph): the graph key's size and
    LoRA variant, the batch size `capture_prepare` built, the rows of each buffer slice the
    ForwardBatch carries (mrope_positions: its token axis), the spec input's class, and the
    element count of each field of the LoRA batch info then active (empty: none)."""

    size: int
    variant: str | None
    batch_size: int
    rows: tuple[tuple[str, int], ...]
    spec_input: str
    lora: tuple[tuple[str, int], ...]
    lora_draft: bool


_SLICED = ("input_ids", "positions", "out_cache_loc", "seq_lens", "seq_lens_cpu",
           "req_pool_indices", "next_token_logits_buffer", "mrope_positions")
_LORA_FIELDS = ("seg_lens", "seg_indptr", "weight_indices")


@dataclass
class BuiltUno:
    """SGLang's UNO runners, as built by its own constructors."""

    runner_class: str
    runners: dict[str, so.Runner]
    captures: dict[str, list[Capture]]
    lora: dict[str, dict[str, tuple[str, int]]]  # graphfit's LoRA buffer names
    moe_lora_buffers: dict[str, Any] = field(default_factory=dict)
    forwards: dict[str, list[Forward]] = field(default_factory=dict)
    keys: dict[str, list[tuple[int, str | None]]] = field(default_factory=dict)

    def graphs_per_size(self, name: str) -> dict[int, int]:
        out: dict[int, int] = {}
        for c in self.captures[name]:
            out[c.size] = out.get(c.size, 0) + 1
        return out

    def lora_draft_runner(self) -> str | None:
        """The runner whose graphs ran with the UNO adapter's retained routing."""
        found = {name for name, caps in self.captures.items() if any(c.lora_draft for c in caps)}
        assert len(found) <= 1, found
        return next(iter(found), None)


DIMS = (4096, 128256)  # hidden size and vocabulary of the oracle's default model


def _model_runner(r: so.Resolved, pool: int, fill: int, dims: tuple[int, int]) -> Any:
    """The ModelRunner fields the UNO runners read, SGLang's own methods bound."""
    import torch
    from sglang.srt.model_executor.model_runner import ModelRunner

    mr = so._model_runner_stub(r, pool, fill, "cpu", *dims, draft=False)
    for name in _BOUND:
        setattr(mr, name, types.MethodType(getattr(ModelRunner, name), mr))
    mr.model = torch.nn.Module()
    mr.model_config.hf_text_config = mr.model_config.hf_config
    mr.layer_info = types.SimpleNamespace(start_layer=0)
    mr.pp_group = types.SimpleNamespace(world_size=1, rank_in_group=0)
    mr.ngram_embedding_manager = types.SimpleNamespace(enabled=False)
    mr.gpu_id = 0
    mr.lora_manager = uc._manager()
    mr.uno_lora_id = uc.UNO_ID
    mr.decode_cuda_graph_runner = None
    mr.dtype = torch.bfloat16
    mr.attn_backend = mr.draft_attn_backend = _AttnStub(fill)
    mr.kv_index_translator = types.SimpleNamespace(bind_runner_slots=lambda batch: None)
    mr.hisparse_coordinator = None
    mr.capture_head_hooks, mr.capture_tail_hooks = [], []
    return mr


class _AttnStub(so._AttnBackendStub):
    """The oracle's attention backend stub with the in-graph metadata step (a no-op)."""

    def init_forward_metadata_in_graph(self, *args: Any, **kwargs: Any) -> None:
        pass


def _recording_model(mr: Any, seen: list[tuple[Any, Any]]) -> Any:
    """The model the capture forwards: records the ForwardBatch and the LoRA batch info
    active when it runs, returns nothing a graph would keep."""
    import torch

    class Recorder(torch.nn.Module):
        shared_experts_config = None  # read by BaseRunner.model_context (base_runner.py:247)

        def forward(self, input_ids: Any, positions: Any, forward_batch: Any,
                    **kwargs: Any) -> Any:
            seen.append((forward_batch, mr.lora_manager.lora_backend.batch_info))
            return types.SimpleNamespace(next_token_logits=None)

    return Recorder()


class _GraphBackend:
    """SGLang's graph backend as far as it runs on CPU: `capture_session` around the loop,
    `capture_one` running the capture's `run_once` twice as the full backend's warm-ups do
    (full_cuda_graph_backend.py:159-168), post-warm-up hook included, and keeping the key."""

    keys: list[Any]

    def __init__(self, runner: Any) -> None:
        self.keys = []

    @contextlib.contextmanager
    def capture_session(self, stream: Any) -> Iterator[None]:
        yield

    def can_run(self, forward_batch: Any, shape_key: Any) -> bool:
        return shape_key in self.keys  # full_cuda_graph_backend.py:218-219

    def capture_one(self, shape_key: Any, forward_fn: Any, capture_inputs: Any = None,
                    post_warmup_hook: Any = None) -> None:
        self.keys.append(shape_key)
        for _ in range(2):
            forward_fn()
            if post_warmup_hook is not None:
                post_warmup_hook()


@contextlib.contextmanager
def _glue() -> Iterator[None]:
    """The stubs listed in the module docstring, restored afterwards; SGLang's process-wide
    input-buffer pool starts empty and is restored."""
    import sglang.srt.model_executor.runner.decode_cuda_graph_runner as dmod
    import torch
    from sglang.srt.batch_overlap import two_batch_overlap as tbo
    from sglang.srt.model_executor import input_buffers
    from sglang.srt.runtime_context import get_parallel

    def no_fork(self: Any) -> bool:
        # decode_cuda_graph_runner.py:610-633: a DSPARK draft worker only
        assert not self.model_runner.spec_algorithm.is_dspark()
        return False

    cls = dmod.DecodeCudaGraphRunner
    saved = (dmod.resolve_decode_backend, tbo.get_device, dmod.graph_capture,
             dmod.get_or_create_global_graph_capture_stream, cls._forks_draft_metadata_prep,
             dmod.freeze_gc)
    pool = input_buffers._forward_input_buffer_pool
    kept = dict(pool)
    pool.clear()
    added = not hasattr(torch.cpu, "is_current_stream_capturing")
    dmod.resolve_decode_backend = _GraphBackend
    tbo.get_device = lambda: types.SimpleNamespace(device="meta")
    dmod.graph_capture = _graph_capture
    dmod.get_or_create_global_graph_capture_stream = lambda: None
    cls._forks_draft_metadata_prep = no_fork  # type: ignore[method-assign]
    dmod.freeze_gc = lambda enable: contextlib.nullcontext()  # Python GC only, 1 s a build
    if added:
        torch.cpu.is_current_stream_capturing = lambda: False  # type: ignore[attr-defined]
    try:
        with get_parallel().override(tp_rank=0, tp_group=None):  # UNO: TP 1 (:578-579)
            yield
    finally:
        (dmod.resolve_decode_backend, tbo.get_device, dmod.graph_capture,
         dmod.get_or_create_global_graph_capture_stream,
         cls._forks_draft_metadata_prep, dmod.freeze_gc) = saved
        if added:
            del torch.cpu.is_current_stream_capturing  # type: ignore[attr-defined]
        pool.clear()
        pool.update(kept)


@contextlib.contextmanager
def _graph_capture(stream: Any = None) -> Iterator[Any]:
    """`graph_capture` (distributed/parallel_state.py) without CUDA streams."""
    yield types.SimpleNamespace(stream=stream)


def _table(name: str, run: Any, pool: int) -> so.Runner:
    """A built runner's buffers as the oracle's Runner (registry slots + the extra ones)."""
    from sglang.srt.utils.common import get_cuda_graph_batch_size_alignment

    table: dict[str, so.Buffer] = {}
    registry = run.buffer_registry
    for slot_name in registry.slot_names():
        slot = registry.get_slot(slot_name)
        table[slot_name] = so._buffer(slot_name, slot.buffer, slot.axis,
                                      slot.padding_policy.value, so._init_of(slot_name, slot))
    for extra, axis, init in (("input_embeds", "tokens", "zeros"), ("custom_mask", "bs", "ones"),
                              ("next_token_logits_buffer", "tokens", "zeros")):
        tensor = getattr(run.buffers, extra, None)
        if tensor is not None and extra not in table:
            table[extra] = so._buffer(extra, tensor, axis, None, init)
    align = get_cuda_graph_batch_size_alignment(
        gathered_buffer_required=bool(run.require_gathered_buffer))
    return so.Runner(name, int(run.captured_req_width), tuple(run.capture_bs), pool, align,
                     int(run.max_bs), int(run.max_num_token), int(run.seq_len_fill_value),
                     table, live=run)


def build(r: so.Resolved, pool: int, fill: int, dims: tuple[int, int] = DIMS) -> BuiltUno:
    """SGLang's UNO runners for the resolved line (module docstring), built and looped."""
    with so.published(r):
        from sglang.srt.model_executor.model_runner import ModelRunner
        from sglang.srt.runtime_context import get_spec

        mr = _model_runner(r, pool, fill, dims)
        seen: list[tuple[Any, Any]] = []
        mr.model = _recording_model(mr, seen)
        cls = ModelRunner._decode_cuda_graph_runner_cls(mr)
        built: dict[str, Any] = {}
        forwards: dict[str, list[Forward]] = {}
        with _glue():
            target = cls(mr)
            built["target"] = target
            forwards["target"] = _forwards(seen, target)
            seen.clear()
            tree = int(get_spec().speculative_eagle_topk or 1) > 1
            # uno_worker_v2.py:151: the tree draft only when the target captured
            if tree and target.capture_bs:
                width = int(get_spec().speculative_num_steps) + 1  # :86-91
                mr.decode_cuda_graph_runner = target
                draft = cls(mr, tree_draft_attn_backend=_AttnStub(fill),
                            tree_draft_width=width)
                built[TREE_DRAFT] = draft
                forwards[TREE_DRAFT] = _forwards(seen, draft)
        keys = {name: [(int(k.size), k.variant_label) for k in run.backend.keys]
                for name, run in built.items()}
        # one graph per key: its two warm-up forwards
        captures = {name: [Capture(f.size, f.variant, f.lora_draft) for f in fs[::2]]
                    for name, fs in forwards.items()}
        backend = mr.lora_manager.lora_backend
        lora: dict[str, dict[str, tuple[str, int]]] = {name: {} for name in built}
        last = list(built)[-1]  # the backend attribute each constructor replaced
        lora[last].update(uc._infos("lora_", [backend.cuda_graph_batch_info]))
        lora[last].update(uc._infos("lora_sgemm_", [backend.cuda_graph_sgemm_batch_info]))
        for name, run in built.items():
            state = getattr(run, "_lora_state", None)
            if state is not None and state._draft_batch_infos:
                lora[name].update(uc._infos("uno_lora_", list(
                    state._draft_batch_infos.values())))
        moe = {k: v for k, v in (("moe_cg_buffers", getattr(backend, "moe_cg_buffers", None)),
                                 ("prefill_moe_cg_buffers", backend.prefill_moe_cg_buffers))
               if v}
        return BuiltUno(type(target).__name__,
                        {name: _table(name, run, pool) for name, run in built.items()},
                        captures, lora, moe, forwards, keys)


def _forwards(seen: list[tuple[Any, Any]], run: Any) -> list[Forward]:
    """The recorded forwards; a LoRA draft forward is one whose active batch info is one of
    the runner's retained UNO routings (uno_lora.py:78-92). The graph key's size and variant
    are the backend's keys, two warm-ups per key (`_GraphBackend`)."""
    state = getattr(run, "_lora_state", None)
    retained = {id(b) for b in state._draft_batch_infos.values()} if state is not None else set()
    keys = [k for k in run.backend.keys for _ in range(2)]
    assert len(keys) == len(seen), (len(keys), len(seen))
    out = []
    for key, (batch, info) in zip(keys, seen, strict=True):
        rows = []
        for name in _SLICED:
            tensor = getattr(batch, name, None)
            if tensor is not None:
                rows.append((name, int(tensor.shape[-1] if name == "mrope_positions"
                                       else tensor.shape[0])))
        lora = tuple((f, int(getattr(info, f).numel())) for f in _LORA_FIELDS
                     if info is not None and getattr(info, f, None) is not None)
        out.append(Forward(int(key.size), key.variant_label, int(batch.batch_size),
                           tuple(rows), type(batch.spec_info).__name__, lora,
                           info is not None and id(info) in retained))
    return out


@dataclass(frozen=True)
class Replay:
    """What SGLang's own `DecodeCudaGraphRunner.load_batch` (decode_cuda_graph_runner.py:
    1521-1713: the registry's `fill_from`, the padding, the replay metadata view and the graph
    key) made of a live batch of `raw` requests: the padded size, the token count, the graph
    key (size, LoRA variant) it would replay, and the rows each enabled slot fills or resets
    (`_padded_n`, cuda_graph_buffer_registry.py:234-240)."""

    raw: int
    phase: str  # the spec input's type: UNO_DRAFT / UNO_VERIFY, or the tree target's verify
    padded: int  # 0: SGLang's `can_run_graph` refuses the batch (eager), nothing loaded
    raw_num_tokens: int
    key: tuple[int, str | None] | None
    rows: tuple[tuple[str, int], ...]


def replays(r: so.Resolved, built: BuiltUno, raws: tuple[int, ...]) -> dict[str, list[Replay]]:
    """Each built runner's `can_run_graph` and `load_batch` on a real ForwardBatch of `raw`
    decoding requests
    (the shapes a scheduler hands it: raw x width tokens, one row per request), for both UNO
    phases where the runner serves both (linear: the LoRA draft and the verify share the
    runner, `_resolve_lora_variant`, uno_cuda_graph_runner.py:108-120); glue as in `build`,
    the graph replay itself not run."""
    import torch

    out: dict[str, list[Replay]] = {}
    with so.published(r), _glue():
        from sglang.srt.model_executor.forward_batch_info import (
            CaptureHiddenMode,
            ForwardBatch,
        )
        from sglang.srt.speculative.spec_info import SpecInputType
        from sglang.srt.speculative.uno_info import UnoForwardInput

        for name, table in built.runners.items():
            run = table.live
            width = int(run.captured_req_width)
            tree_target = run._tree_mode and not run._tree_draft_mode
            phases = ((None,) if tree_target else (SpecInputType.UNO_DRAFT,) if
                      run._tree_draft_mode else (SpecInputType.UNO_DRAFT,
                                                 SpecInputType.UNO_VERIFY))
            found: list[Replay] = []
            for raw in (n for n in raws if n <= run.max_bs):
                tokens = raw * width
                for phase in phases:
                    spec = (run.get_spec_info(tokens) if phase is None else UnoForwardInput(
                        spec_input_type=phase, positions=torch.arange(tokens),
                        draft_token_num=width))
                    ints = {"dtype": torch.int64}
                    batch = ForwardBatch(
                        forward_mode=run.capture_forward_mode, batch_size=raw,
                        input_ids=torch.ones(tokens, **ints),
                        req_pool_indices=torch.ones(raw, **ints),
                        seq_lens=torch.full((raw,), 5, **ints),
                        seq_lens_cpu=torch.full((raw,), 5, **ints),
                        out_cache_loc=torch.ones(tokens, **ints), seq_lens_sum=5 * raw,
                        positions=torch.arange(tokens), spec_info=spec,
                        spec_algorithm=run.model_runner.spec_algorithm,
                        capture_hidden_mode=getattr(spec, "capture_hidden_mode", None)
                        or CaptureHiddenMode.NULL,
                        # the scheduler's two-batch-overlap split point, assumed found:
                        # `can_run_tbo` (forward_batch_info.py:2266-2268, read by
                        # decode_cuda_graph_runner.py:907-909); not modelled here
                        tbo_split_seq_index=raw // 2 if run.enable_two_batch_overlap
                        else None)
                    phase_name = "verify" if phase is None else phase.name
                    if not run.can_run_graph(batch):  # :845-900 (no padding: exact keys)
                        found.append(Replay(raw, phase_name, 0, tokens, None, ()))
                        continue
                    run.load_batch(batch)
                    key = run._replay_graph_key
                    registry = run.buffer_registry
                    rows = tuple(
                        (slot_name, int(slot._padded_n(run.bs, run.bs * width)))
                        for slot_name in registry.slot_names()
                        if (slot := registry.get_slot(slot_name)).enabled
                        and slot.buffer is not None and slot.axis in ("bs", "tokens"))
                    found.append(Replay(raw, phase_name, int(run.bs), int(run.raw_num_token),
                                        (int(key.size), key.variant_label), rows))
            out[name] = found
    return out
