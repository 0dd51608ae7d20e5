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
* the capture loop: `DecodeCudaGraphRunner._capture_one_stream` (:1318-1366), its LoRA
  variants (:1331), and `UnoDecodeCudaGraphRunner.capture_one_shape` (uno_cuda_graph_runner.py:
  122-170), which retains one LoRA batch info per size (`capture_draft`, uno_lora.py:78-88).

Glue (not SGLang logic): the model runner is a namespace with SGLang's own ModelRunner
methods bound to it (`decode_num_tokens_per_req`, the PP-proxy widths, ...), no model and an
attention-backend stub; the LoRA manager is SGLang's LoRAManager without a model over
SGLang's UNO backend (sglang_uno_compare._manager); `resolve_decode_backend` returns a stub
(no CUDA graph backend), the two-batch-overlap plugin allocates on the meta device, and the
innermost `DecodeCudaGraphRunner.capture_one_shape` (the forward and the graph recording
itself, :1368-1505) is replaced by a recorder of (size, variant, the LoRA batch info active
then). What stays CUDA-only: the recorded forwards and graphs themselves, and
`warmup` / `graph_capture` / the backend's capture session around the loop (:1253-1316).
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


@dataclass
class BuiltUno:
    """SGLang's UNO runners, as built by its own constructors."""

    runner_class: str
    runners: dict[str, so.Runner]
    captures: dict[str, list[Capture]]
    lora: dict[str, dict[str, tuple[str, int]]]  # graphfit's LoRA buffer names
    moe_lora_buffers: dict[str, Any] = field(default_factory=dict)

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
    return mr


@contextlib.contextmanager
def _glue(record: list[tuple[int, str | None, Any]]) -> Iterator[None]:
    """The stubs listed in the module docstring, restored afterwards; SGLang's process-wide
    input-buffer pool starts empty and is restored."""
    import sglang.srt.model_executor.runner.decode_cuda_graph_runner as dmod
    from sglang.srt.batch_overlap import two_batch_overlap as tbo
    from sglang.srt.model_executor import input_buffers
    from sglang.srt.runtime_context import get_parallel

    def recorder(self: Any, size: int, forward: Any, stream_idx: Any = None,
                 variant_label: str | None = None, attention_variant: Any = None) -> None:
        record.append((size, variant_label, self.model_runner.lora_manager.lora_backend
                       .batch_info))

    cls = dmod.DecodeCudaGraphRunner
    saved = (dmod.resolve_decode_backend, tbo.get_device, cls.capture_one_shape)
    pool = input_buffers._forward_input_buffer_pool
    kept = dict(pool)
    pool.clear()
    dmod.resolve_decode_backend = so._graph_backend_stub
    tbo.get_device = lambda: types.SimpleNamespace(device="meta")
    cls.capture_one_shape = recorder  # type: ignore[method-assign]
    try:
        with get_parallel().override(tp_rank=0, tp_group=None):  # UNO: TP 1 (:578-579)
            yield
    finally:
        dmod.resolve_decode_backend, tbo.get_device, cls.capture_one_shape = saved
        pool.clear()
        pool.update(kept)


def _capturing(cls: type) -> type:
    """The class with `capture()` running only the capture loop (`_capture_one_stream`)."""

    class Looping(cls):  # type: ignore[misc, valid-type]
        def capture(self) -> None:
            self._capture_one_stream()

    Looping.__name__ = f"Looping{cls.__name__}"
    return Looping


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
        cls = ModelRunner._decode_cuda_graph_runner_cls(mr)
        record: list[tuple[int, str | None, Any]] = []
        built: dict[str, Any] = {}
        captures: dict[str, list[Capture]] = {}
        with _glue(record):
            target = _capturing(cls)(mr)
            built["target"] = target
            captures["target"] = _captures(record, target)
            record.clear()
            tree = int(get_spec().speculative_eagle_topk or 1) > 1
            # uno_worker_v2.py:151: the tree draft only when the target captured
            if tree and target.capture_bs:
                width = int(get_spec().speculative_num_steps) + 1  # :86-91
                mr.decode_cuda_graph_runner = target
                draft = _capturing(cls)(mr, tree_draft_attn_backend=so._AttnBackendStub(fill),
                                        tree_draft_width=width)
                built[TREE_DRAFT] = draft
                captures[TREE_DRAFT] = _captures(record, draft)
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
        return BuiltUno(type(target).__mro__[1].__name__,
                        {name: _table(name, run, pool) for name, run in built.items()},
                        captures, lora, moe)


def _captures(record: list[tuple[int, str | None, Any]], run: Any) -> list[Capture]:
    """The recorded graphs; a LoRA draft graph is one whose active batch info is one of the
    runner's retained UNO routings (uno_lora.py:78-92)."""
    state = getattr(run, "_lora_state", None)
    retained = {id(b) for b in state._draft_batch_infos.values()} if state is not None else set()
    return [Capture(size, variant, info is not None and id(info) in retained)
            for size, variant, info in record]
