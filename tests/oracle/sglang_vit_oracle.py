"""SGLang 0.5.23's ViT CUDA-graph runners as an oracle, run on the CPU.

The real runner classes (multimodal/vit_cuda_graph_runner.py `ViTCudaGraphRunner`,
internvl_vit_cuda_graph_runner.py `InternViTCudaGraphRunner`, kimi_k3_vit_cuda_graph_runner.py
`KimiK3ViTCudaGraphRunner`) are constructed and driven through the real tower glue that
computes their inputs (Qwen2.5-VL `forward_with_cuda_graph`, `get_window_index`,
`rot_pos_emb`; Qwen3-VL `forward_with_cuda_graph`, `_prepare_graph_inputs`, `rot_pos_emb`
over the real `get_rope`). What is stubbed, and why it cannot change a key, a buffer shape or
a dispatch decision:

* CUDA graph capture (`torch.cuda.CUDAGraph`, `torch.cuda.graph`, `torch.cuda.synchronize`):
  no GPU; the captured callable is not run again, only the buffers the runner keeps are read;
* the tower's transformer blocks, merger and deepstack mergers: shape-only modules
  (a block returns its input; a merger folds merge_unit rows into one and keeps
  out_hidden_size columns) -- the runner allocates its buffers before calling them;
* Qwen3's position-embedding interpolation (`fast_pos_embed_interpolate`) returns zeros (it
  is added to the hidden states; keys and shapes never read it);
* the Kimi K3 tower (`prepare_forward_metadata`, `_forward_eager`) and its capture: the
  runner's dispatch (`run`, `_record_hit`) is what is compared;
* `kimi_entry`: SGLang's real Kimi K3 runner capturing one key through the real tower glue
  (KimiK3VisionTower.prepare_forward_metadata / _forward_eager, MoonViT3dEncoder.
  prepare_forward_metadata / forward, the real patch embedding, 2D rope and
  tpool_patch_merger) over an encoder of no blocks (a block keeps its input's shape; the
  final norm is a real LayerNorm) and SGLang's graph-pool helpers as no-ops (no GPU): every
  tensor the captured entry keeps is read back.

`use_data_parallel=True` keeps the runner's capture context local (no TP communicator).

`vision_attention_heads` runs SGLang's own `VisionAttention.__init__` (layers/attention/
vision.py:1115-1134) under a stubbed `get_parallel` (the attention-TP size): it sets the two
attributes the runners read (num_attention_heads_per_partition, head_size) and then stops at
the first multimodal-config read (`get_mm()`, not published on the CPU), which is asserted.
"""

from __future__ import annotations

import contextlib
import types
from collections.abc import Iterator, Sequence
from typing import Any

from tests.oracle import sglang_oracle, sglang_stubs

Grid = tuple[int, int, int]


@contextlib.contextmanager
def cpu_graphs() -> Iterator[None]:
    """SGLang importable (fake CUDA) and CUDA graph capture a no-op on the CPU."""
    import torch

    class _Graph:
        def replay(self) -> None:
            pass

    @contextlib.contextmanager
    def _graph(graph: Any, pool: Any = None, **kwargs: Any) -> Iterator[None]:
        yield

    sglang_oracle.oracle()  # installs the wheel's sources
    saved = (torch.cuda.CUDAGraph, torch.cuda.graph, torch.cuda.synchronize)
    with sglang_stubs.fake_cuda(81920):
        torch.cuda.CUDAGraph = _Graph  # type: ignore[misc,assignment]
        torch.cuda.graph = _graph  # type: ignore[assignment]
        torch.cuda.synchronize = lambda device=None: None
        try:
            yield
        finally:
            torch.cuda.CUDAGraph, torch.cuda.graph, torch.cuda.synchronize = saved  # type: ignore[misc]


def _tower_modules(hidden: int, heads: int, head_dim: int, merge_unit: int, out: int,
                   depth: int, deepstack: int, backend: str = "fa3") -> Any:
    import torch
    from torch import nn

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.attn = types.SimpleNamespace(num_attention_heads_per_partition=heads,
                                              head_size=head_dim, qkv_backend_name=backend)

        def forward(self, x: torch.Tensor, cu_seqlens: Any = None, position_embeddings: Any = None,
                    rotary_pos_emb_cos: Any = None, rotary_pos_emb_sin: Any = None,
                    output_ws: Any = None) -> torch.Tensor:
            return x

    class Merger(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x.reshape(x.shape[0] // merge_unit, -1)[:, :out].contiguous()

    blocks = nn.ModuleList([Block() for _ in range(depth)])
    mergers = nn.ModuleList([Merger() for _ in range(deepstack)])
    return blocks, Merger(), mergers


def qwen_runner(family: str, *, hidden: int, heads: int, patch: int, merge: int, out: int,
                depth: int, deepstack: int = 0, window: int | None = None,
                fullatt: Sequence[int] = (), max_context_len: int | None = None,
                dtype: str = "bfloat16", heads_per_rank: int | None = None,
                backend: str = "fa3") -> Any:
    """A Qwen2.5-VL / Qwen3-VL tower stand-in (module docstring) holding SGLang's real
    `ViTCudaGraphRunner`; call `qwen_call(tower, grids)` to run SGLang's own graph glue.
    `heads_per_rank`: VisionAttention's heads per partition (default: all `heads`);
    `backend`: the attention's qkv_backend_name (what --mm-attention-backend sets)."""
    import torch
    from sglang.srt.layers.rotary_embedding import get_rope
    from sglang.srt.models import qwen2_5_vl, qwen3_vl
    from sglang.srt.models.utils import RotaryPosMixin
    from sglang.srt.multimodal.vit_cuda_graph_runner import ViTCudaGraphRunner

    head_dim = hidden // heads
    blocks, merger, mergers = _tower_modules(hidden, heads_per_rank or heads, head_dim,
                                             merge * merge, out, depth, deepstack, backend)
    ns = types.SimpleNamespace(
        blocks=blocks, merger=merger, device=torch.device("cpu"),
        dtype=getattr(torch, dtype), spatial_merge_size=merge, spatial_merge_unit=merge * merge,
        patch_size=patch, use_data_parallel=True, rot_pos_ids=RotaryPosMixin.rot_pos_ids,
        patch_embed=lambda x: x)
    if family == "qwen2_5_vl":
        cls = qwen2_5_vl.Qwen2_5_VisionTransformer
        ns.window_size = window
        ns.fullatt_block_indexes = list(fullatt)
        ns.max_context_len = max_context_len
        ns.rotary_pos_emb = qwen2_5_vl.Qwen2_5_VisionRotaryEmbedding(head_dim // 2)
        ns.get_window_index = types.MethodType(cls.get_window_index, ns)
        ns.rot_pos_emb = types.MethodType(cls.rot_pos_emb, ns)
        ns.cuda_graph_runner = ViTCudaGraphRunner(ns)  # type: ignore[arg-type]
        ns.forward_graph = types.MethodType(cls.forward_with_cuda_graph, ns)
    else:
        cls3 = qwen3_vl.Qwen3VLMoeVisionModel
        ns.deepstack_visual_indexes = list(range(deepstack))
        ns.deepstack_merger_list = mergers
        ns.align_corners = False
        ns.fast_pos_embed_interpolate = (
            lambda grid_thw: torch.zeros(int((grid_thw[:, 0] * grid_thw[:, 1]
                                              * grid_thw[:, 2]).sum()), hidden,
                                         dtype=ns.dtype))
        ns.rotary_pos_emb = get_rope(head_size=head_dim, rotary_dim=head_dim // 2,
                                     max_position=8192, base=10000.0, is_neox_style=True)
        ns.rot_pos_emb = types.MethodType(cls3.rot_pos_emb, ns)
        ns._prepare_graph_inputs = types.MethodType(cls3._prepare_graph_inputs, ns)
        ns.graph_runners = ViTCudaGraphRunner(ns)  # type: ignore[arg-type]
        ns.cuda_graph_runner = ns.graph_runners
        ns.forward_graph = types.MethodType(cls3.forward_with_cuda_graph, ns)
    ns.hidden = hidden
    return ns


def qwen_call(tower: Any, grids: Sequence[Grid]) -> Any:
    """Run one encoder call through SGLang's glue and runner; the output tensor."""
    import torch

    tokens = sum(t * h * w for t, h, w in grids)
    x = torch.zeros(tokens, tower.hidden, dtype=tower.dtype)
    grid_thw = torch.tensor([list(g) for g in grids], dtype=torch.int64)
    return tower.forward_graph(x, grid_thw)


def qwen_state(tower: Any) -> dict[str, Any]:
    """What SGLang's runner keeps: per key the buffers' shapes / dtypes, and the rotary
    workspace allocations (rows of each pair, oldest first)."""
    r = tower.cuda_graph_runner
    per_key: dict[Any, dict[str, tuple[tuple[int, ...], str]]] = {}

    def add(name: str, table: dict[Any, Any]) -> None:
        for key, t in table.items():
            per_key.setdefault(key, {})[name] = (tuple(t.shape),
                                                 str(t.dtype).removeprefix("torch."))

    add("block_input", r.block_input)
    add("block_ws", r.block_ws)
    add("cu_seqlens", r.cu_full_len)
    add("cu_seqlens_kk", r.cu_full_len_kk)
    add("cu_window_seqlens", r.cu_window_len)
    add("cu_window_seqlens_kk", r.cu_window_len_kk)
    for key, (cos, sin) in r._sin_cos_ws_by_graph.items():
        per_key[key]["rotary_cos"] = (tuple(cos.shape), str(cos.dtype).removeprefix("torch."))
        per_key[key]["rotary_sin"] = (tuple(sin.shape), str(sin.dtype).removeprefix("torch."))
    pairs = [*r._retired_sin_cos_ws, *([r.sin_cos_ws] if r.sin_cos_ws is not None else [])]
    return {"keys": tuple(r.block_graphs), "buffers": per_key,
            "workspace_rows": tuple(int(c.shape[0]) for c, _ in pairs)}


def vision_attention_heads(*, hidden: int, heads: int, dummy: int, tp: int,
                           data_parallel: bool) -> tuple[int, int]:
    """(num_attention_heads_per_partition, head_size) as SGLang's VisionAttention computes
    them for a tower of `hidden` width and `heads` (+ `dummy`) heads on attention-TP `tp`."""
    from sglang.srt.layers.attention import vision

    saved = vision.get_parallel
    vision.get_parallel = lambda: types.SimpleNamespace(attn_tp_size=tp, attn_tp_rank=0)
    attn = vision.VisionAttention.__new__(vision.VisionAttention)
    try:
        vision.VisionAttention.__init__(attn, embed_dim=hidden, num_heads=heads,
                                        projection_size=hidden, use_qkv_parallel=True,
                                        num_dummy_heads=dummy, use_data_parallel=data_parallel)
    except ValueError as exc:  # past the head split: the multimodal config is not published
        if "'mm' not published" not in str(exc):
            raise
    finally:
        vision.get_parallel = saved
    return attn.num_attention_heads_per_partition, attn.head_size


def sglang_dummy_heads(*, heads: int, hidden: int, tp: int, config_dummy: int | None) -> int:
    """vision_config.num_dummy_heads after SGLang's own `update_vit_attn_dummy_heads_config`
    (what InternVL's and Intern-S1's constructors call first) on attention-TP `tp`, for a
    config.json that says `config_dummy` (None: nothing)."""
    from sglang.srt.layers.attention import vision_utils

    vision = types.SimpleNamespace(num_attention_heads=heads, hidden_size=hidden)
    if config_dummy is not None:
        vision.num_dummy_heads = config_dummy
    config = types.SimpleNamespace(vision_config=vision)
    saved = vision_utils.get_parallel
    vision_utils.get_parallel = lambda: types.SimpleNamespace(attn_tp_size=tp)
    try:
        vision_utils.update_vit_attn_dummy_heads_config(config)
    finally:
        vision_utils.get_parallel = saved
    return int(vision.num_dummy_heads)


def _model_source(model_file: str) -> Any:
    """The parsed source of sglang/srt/models/`model_file`.py (the wheel's, not imported)."""
    import ast

    from tests.oracle.paths import require

    return ast.parse((require("sglang") / "sglang" / "srt" / "models"
                      / f"{model_file}.py").read_text())


def tower_runs_data_parallel(model_file: str, model_class: str,
                             tower: str = "InternVisionModel") -> bool:
    """Whether `model_class` (in sglang/srt/models/`model_file`) builds its vision `tower`
    with `use_data_parallel=` (read from SGLang's source: the constructor call's keywords)."""
    import ast

    tree = _model_source(model_file)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == model_class)
    calls = [n for n in ast.walk(cls) if isinstance(n, ast.Call)
             and isinstance(n.func, ast.Name) and n.func.id == tower]
    assert len(calls) == 1, (model_class, len(calls))
    return any(k.arg == "use_data_parallel" for k in calls[0].keywords)


def entry_classes(model_file: str) -> tuple[str, ...]:
    """The class names sglang/srt/models/`model_file` registers (its `EntryClass`)."""
    return entry_classes_in(_model_source(model_file))


def entry_classes_in(tree: Any) -> tuple[str, ...]:
    """The class names a parsed SGLang model file (`ast.Module`) registers (its
    `EntryClass`)."""
    import ast

    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "EntryClass" for t in node.targets):
            return tuple(n.id for n in ast.walk(node.value) if isinstance(n, ast.Name))
    return ()


def internvl_runner(*, hidden: int, heads: int, depth: int = 2, dtype: str = "bfloat16",
                    backend: str = "fa3") -> Any:
    """SGLang's real `InternViTCudaGraphRunner` over a shape-only encoder."""
    import torch
    from sglang.srt.multimodal.internvl_vit_cuda_graph_runner import InternViTCudaGraphRunner
    from torch import nn

    head_dim = hidden // heads

    class Layer(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.attn = types.SimpleNamespace(attn=types.SimpleNamespace(
                num_attention_heads_per_partition=heads, head_size=head_dim,
                qkv_backend_name=backend))
            self.w = nn.Parameter(torch.zeros(1, dtype=getattr(torch, dtype)))

        def forward(self, x: torch.Tensor, cu_seqlens: Any = None, output_ws: Any = None
                    ) -> torch.Tensor:
            return x

    encoder = nn.Module()
    encoder.layers = nn.ModuleList([Layer() for _ in range(depth)])
    return InternViTCudaGraphRunner(encoder)


def internvl_state(runner: Any) -> dict[Any, dict[str, tuple[tuple[int, ...], str]]]:
    out: dict[Any, dict[str, tuple[tuple[int, ...], str]]] = {}
    for name, table in (("block_input", runner.inp), ("block_ws", runner.ws),
                        ("cu_seqlens", runner.cu), ("cu_seqlens_kk", runner.cu_kk)):
        for key, t in table.items():
            out.setdefault(key, {})[name] = (tuple(t.shape),
                                             str(t.dtype).removeprefix("torch."))
    return out


def kimi_outcomes(calls: Sequence[Sequence[Grid]], *, capacity: int, min_hits: int,
                  max_seqlen: int | None) -> tuple[str, ...]:
    """What SGLang's real `KimiK3ViTCudaGraphRunner.run` does with each call: "replay",
    "capture" or "eager" (the tower and the capture itself are stand-ins)."""
    import torch
    from sglang.srt.multimodal import kimi_k3_vit_cuda_graph_runner as kimi

    events: list[str] = []

    class Tower:
        def prepare_forward_metadata(self, *a: Any, **k: Any) -> Any:
            return types.SimpleNamespace()

        def _forward_eager(self, *a: Any, **k: Any) -> list[Any]:
            events.append("eager")
            return [torch.zeros(1)]

    runner = kimi.KimiK3ViTCudaGraphRunner(Tower(), capacity=capacity, min_hits=min_hits,
                                           max_seqlen=max_seqlen)

    def capture(key: Any, pixel_values: Any, grid_thws: Any, grid_thw_list: Any,
                metadata: Any) -> Any:
        events.append("capture")
        graph = types.SimpleNamespace(replay=lambda: None)
        return kimi._CapturedVisionGraph(graph=graph, input_buffer=torch.zeros(1),  # type: ignore[arg-type]
                                         outputs=(torch.zeros(1),), metadata=metadata)

    runner._capture = capture  # type: ignore[method-assign]
    saved = (kimi.graph_pool_capture_scope, kimi.graph_pool_replay_scope)
    kimi.graph_pool_capture_scope = contextlib.nullcontext  # type: ignore[assignment]
    kimi.graph_pool_replay_scope = contextlib.nullcontext  # type: ignore[assignment]
    out: list[str] = []
    try:
        for call in calls:
            events.clear()
            key = tuple((int(t), int(h), int(w)) for t, h, w in call)
            runner.run(torch.zeros(1), torch.tensor([list(g) for g in key]), key)
            out.append(events[0] if events else "replay")
    finally:
        kimi.graph_pool_capture_scope, kimi.graph_pool_replay_scope = saved
    return tuple(out)


def kimi_entry(grids: Sequence[Grid], *, hidden: int, heads: int, qkv: int | None,
               patch: int, merge: int | tuple[int, int], dtype: str = "bfloat16",
               backend: str = "auto") -> dict[str, tuple[tuple[int, ...], str, int]]:
    """What SGLang's real `KimiK3ViTCudaGraphRunner` keeps for the key of one call of
    `grids` once captured (module docstring): every tensor its `_CapturedVisionGraph`
    holds and every module buffer the tower registered during the call, by name
    (`pixel_values`: the input buffer; `outputs`: the merger's outputs, rows concatenated;
    the metadata's and its attention metadata's tensor fields by their own names;
    `rope_freqs_table`: the rope's freqs_cis; complex tensors as their real view) ->
    (shape, dtype, bytes). `merge`: the merge kernel (kh, kw), or one side of a square
    one; `backend`: the encoder's attention_backend (--mm-attention-backend, "auto" when
    not given)."""
    import dataclasses

    import torch
    from sglang.srt.models import kimi_k3_vl as k3
    from sglang.srt.multimodal import kimi_k3_vit_cuda_graph_runner as kimi
    from torch import nn

    torch_dtype = getattr(torch, dtype)

    class Encoder(nn.Module):
        prepare_forward_metadata = k3.MoonViT3dEncoder.prepare_forward_metadata
        forward = k3.MoonViT3dEncoder.forward

        def __init__(self) -> None:
            super().__init__()
            width = qkv or hidden
            self.attention_backend = backend
            self.attention_width = width
            self.rope_2d = k3.Rope2DPosEmbRepeated(width // heads, 512, 512)
            self.blocks = nn.ModuleList()
            self.final_layernorm = nn.LayerNorm(hidden)

    class Tower(nn.Module):
        dtype = k3.KimiK3VisionTower.dtype
        device = k3.KimiK3VisionTower.device
        prepare_forward_metadata = k3.KimiK3VisionTower.prepare_forward_metadata
        _forward_eager = k3.KimiK3VisionTower._forward_eager

        def __init__(self) -> None:
            super().__init__()
            self.merge_kernel_size = merge if isinstance(merge, tuple) else (merge, merge)
            self.patch_embed = k3.MoonVision3dPatchEmbed(
                out_dim=hidden, patch_size=patch, pos_emb_height=8, pos_emb_width=8,
                pos_emb_time=4, pos_emb_interpolation_mode="bilinear")
            nn.init.normal_(self.patch_embed.pos_emb.weight)
            self.encoder = Encoder()

    tower = Tower().to(torch_dtype)
    runner = kimi.KimiK3ViTCudaGraphRunner(tower, capacity=1, min_hits=1,  # type: ignore[arg-type]
                                           max_seqlen=None)
    saved = (kimi.graph_pool_capture_scope, kimi.get_or_create_global_graph_memory_pool,
             torch.cuda.memory_allocated, torch.cuda.memory_reserved)
    kimi.graph_pool_capture_scope = contextlib.nullcontext  # type: ignore[assignment]
    kimi.get_or_create_global_graph_memory_pool = lambda module: object()  # type: ignore[assignment]
    torch.cuda.memory_allocated = lambda device=None: 0  # type: ignore[assignment]
    torch.cuda.memory_reserved = lambda device=None: 0  # type: ignore[assignment]
    key = tuple((int(t), int(h), int(w)) for t, h, w in grids)
    loaded = {name for name, _ in tower.named_buffers()}  # what the constructor built
    try:
        patches = sum(t * h * w for t, h, w in key)
        pixels = torch.zeros(patches, 3, patch, patch, dtype=torch_dtype)
        runner.run(pixels, torch.tensor([list(g) for g in key]), key)
    finally:
        (kimi.graph_pool_capture_scope, kimi.get_or_create_global_graph_memory_pool,
         torch.cuda.memory_allocated, torch.cuda.memory_reserved) = saved  # type: ignore[assignment]
    entry = runner.graphs[key]

    def described(t: torch.Tensor) -> tuple[tuple[int, ...], str, int]:
        if t.is_complex():
            t = torch.view_as_real(t)
        return (tuple(t.shape), str(t.dtype).removeprefix("torch."),
                t.numel() * t.element_size())

    out = {"pixel_values": described(entry.input_buffer)}
    outputs = entry.outputs
    rows = sum(int(o.shape[0]) for o in outputs)
    out["outputs"] = ((rows, *outputs[0].shape[1:]), str(outputs[0].dtype).removeprefix(
        "torch."), sum(o.numel() * o.element_size() for o in outputs))
    for holder in (entry.metadata, entry.metadata.attention):
        for f in dataclasses.fields(holder):
            value = getattr(holder, f.name)
            if isinstance(value, torch.Tensor):
                assert f.name not in out, f.name
                out[f.name] = described(value)
    # module buffers the tower registered during the call (kept for the process): the 2D
    # rope's freqs_cis table (kimi_k3_vl.py:350-353), named as graphfit names it; any other
    # would keep its dotted name and match no planned buffer
    for name, value in tower.named_buffers():
        if name not in loaded:  # rows as get_freqs_cis reads them: (y, x) flattened (:358-363)
            out[KIMI_LAZY_BUFFERS.get(name, name)] = described(value.flatten(end_dim=1))
    return out


KIMI_LAZY_BUFFERS = {"encoder.rope_2d.freqs_cis": "rope_freqs_table"}


def kimi_encoder_workspaces(*, hidden: int, heads: int, qkv: int | None, backend: str,
                            layers: int = 3) -> tuple[tuple[tuple[int, ...], str, int], ...]:
    """Run SGLang's own `MoonViT3dEncoder.__init__` (models/kimi_k3_vl.py:522-559) on a
    (faked) CUDA device with `--mm-attention-backend` = `backend` ("auto": none given) and
    return each distinct `attention_workspace` tensor it hands its blocks, as (shape, dtype,
    bytes). Stubbed: the multimodal config (`get_mm`), the blocks (recorders of their
    keywords) and the CUDA allocation (`torch.empty` on a cuda device lands on `meta`: the
    shape and dtype are SGLang's, no memory)."""
    import torch
    from sglang.srt.models import kimi_k3_vl as k3
    from torch import nn

    seen: list[Any] = []

    class Block(nn.Module):
        def __init__(self, **kwargs: Any) -> None:
            super().__init__()
            seen.append(kwargs.get("attention_workspace"))

    real_empty = torch.empty

    def empty(*args: Any, **kwargs: Any) -> Any:
        device = kwargs.get("device")
        if device is not None and torch.device(device).type == "cuda":
            kwargs["device"] = "meta"
        return real_empty(*args, **kwargs)

    saved = (k3.get_mm, k3.MoonViTEncoderLayer, torch.empty, torch.cuda.current_device)
    k3.get_mm = lambda: types.SimpleNamespace(  # type: ignore[assignment]
        mm_attention_backend=None if backend == "auto" else backend)
    k3.MoonViTEncoderLayer = Block  # type: ignore[assignment,misc]
    torch.empty = empty  # type: ignore[assignment]
    torch.cuda.current_device = lambda: 0
    try:
        k3.MoonViT3dEncoder(hidden, layers, {"num_heads": heads, "hidden_dim": hidden,
                                             "qkv_hidden_size": qkv})
    finally:
        (k3.get_mm, k3.MoonViTEncoderLayer, torch.empty,
         torch.cuda.current_device) = saved  # type: ignore[assignment,misc]
    assert len(seen) == layers
    distinct = {id(t): t for t in seen if t is not None}
    return tuple((tuple(t.shape), str(t.dtype).removeprefix("torch."),
                  t.numel() * t.element_size()) for t in distinct.values())


def bailing_mm_tower(vision: dict[str, Any], *, data_parallel: bool,
                     model_class: str = "BailingMMNativeForConditionalGeneration",
                     config: Any = None) -> tuple[str, dict[str, Any]]:
    """Run SGLang's own Bailing MM constructor (models/bailing_mm.py) for a config whose
    vision_config holds `vision`: (the tower class it builds, that call's keywords with the
    class's defaults filled in). Stubbed: the parallel / multimodal state (first PP rank,
    --mm-enable-dp-encoder = `data_parallel`), the text model, and the two tower classes
    (recorders: the choice and the keywords are what is compared). ValueError is SGLang's.
    `config`: a config object SGLang loaded (then `vision` is not read)."""
    import inspect

    from sglang.srt.models import bailing_mm, qwen3_vl

    built: list[tuple[str, dict[str, Any]]] = []

    def recorder(real: Any) -> Any:
        def make(*args: Any, **kwargs: Any) -> Any:
            bound = inspect.signature(real).bind(*args, **kwargs)
            bound.apply_defaults()
            built.append((real.__name__, dict(bound.arguments)))
            return types.SimpleNamespace()
        return make

    if config is None:  # else SGLang's own config object (BailingMM2Config), used as loaded
        config = types.SimpleNamespace(
            llm_config=types.SimpleNamespace(rope_parameters={}), mlp_depth=1,
            audio_config=None, vision_config=types.SimpleNamespace(**vision))
        if not hasattr(config.vision_config, "architectures"):
            config.vision_config.architectures = None
    saved = (bailing_mm.get_parallel, bailing_mm.get_mm, bailing_mm.BailingMoeV2ForCausalLM,
             bailing_mm.Qwen2_5_VisionTransformer, qwen3_vl.Qwen3VLMoeVisionModel)
    bailing_mm.get_parallel = lambda: types.SimpleNamespace(  # type: ignore[assignment]
        pp_group=types.SimpleNamespace(is_first_rank=True))
    bailing_mm.get_mm = lambda: types.SimpleNamespace(  # type: ignore[assignment]
        mm_enable_dp_encoder=data_parallel)
    bailing_mm.BailingMoeV2ForCausalLM = lambda *a, **k: types.SimpleNamespace(  # type: ignore[assignment,misc]
        config=types.SimpleNamespace(hidden_size=8))
    bailing_mm.Qwen2_5_VisionTransformer = recorder(saved[3])  # type: ignore[assignment,misc]
    qwen3_vl.Qwen3VLMoeVisionModel = recorder(saved[4])  # type: ignore[assignment,misc]
    try:
        cls = getattr(bailing_mm, model_class)
        model = cls.__new__(cls)
        cls.__init__(model, config)
    finally:
        (bailing_mm.get_parallel, bailing_mm.get_mm, bailing_mm.BailingMoeV2ForCausalLM,
         bailing_mm.Qwen2_5_VisionTransformer, qwen3_vl.Qwen3VLMoeVisionModel) = saved  # type: ignore[assignment,misc]
    assert len(built) == 1, built
    return built[0]


def radio_with_graphs(*, hidden: int, heads: int, tokens: int, images: int
                      ) -> tuple[dict[str, str], tuple[Any, ...]]:
    """Send one call down each RADIO path (models/radio.py: the fixed-size `forward`, the
    dynamic-resolution `_forward_dynamic`) with SGLang's own InternVisionEncoder.forward
    (internvl.py) under ViT CUDA graphs, over its real InternViTCudaGraphRunner: per path the
    exception it ends in ("" if none), and the keys the runner captured meanwhile. Stubbed:
    the patch generator (returns `tokens` rows per image; num_skip 1) and the encoder layers
    (shape-only, `internvl_runner`)."""
    import torch
    from sglang.srt.models import internvl, radio

    runner = internvl_runner(hidden=hidden, heads=heads)
    encoder = types.SimpleNamespace(enable_cg=True, cuda_graph_runner=runner,
                                    config=types.SimpleNamespace(output_hidden_states=False,
                                                                 use_return_dict=True))
    encoder.forward = types.MethodType(internvl.InternVisionEncoder.forward, encoder)
    class PatchGenerator:
        num_skip = 1

        def __call__(self, x: torch.Tensor) -> torch.Tensor:
            return torch.zeros(x.shape[0], tokens, hidden, dtype=torch.bfloat16)

    model = types.SimpleNamespace(encoder=encoder, patch_generator=PatchGenerator())
    outcome: dict[str, str] = {}
    try:
        radio.RadioInternVisionModel.forward(model, torch.zeros(images, 3, 4, 4))  # type: ignore[arg-type]
        outcome["forward"] = ""
    except (AssertionError, AttributeError) as exc:
        outcome["forward"] = type(exc).__name__
    outer = types.SimpleNamespace(model=model)
    try:
        radio.RadioModel._forward_dynamic(outer, [torch.zeros(1, 3, 4, 4)] * images)  # type: ignore[arg-type]
        outcome["dynamic"] = ""
    except (AssertionError, AttributeError) as exc:
        outcome["dynamic"] = f"{type(exc).__name__}: {exc}"
    return outcome, tuple(runner.graphs)


# The Qwen3-VL subclasses SGLang 0.5.23 registers: architecture -> (its model file, the config
# class SGLang parses its config.json into: configs/__init__.py; None: remote code, a plain
# PretrainedConfig). Each constructor ends in Qwen3VLForConditionalGeneration.__init__.
QWEN3_SUBCLASSES: dict[str, tuple[str, str | None]] = {
    "Qwen3_5ForConditionalGeneration": ("qwen3_5", "qwen3_5.Qwen3_5Config"),
    "Qwen3_5MoeForConditionalGeneration": ("qwen3_5", "qwen3_5.Qwen3_5MoeConfig"),
    "InternS1ProForConditionalGeneration": ("interns1pro", None),
    "Cosmos3ForConditionalGeneration": ("cosmos3", "cosmos3.Cosmos3Config"),
    "Qwen4ExpForConditionalGeneration": ("qwen4_exp", "qwen4_exp.Qwen4ExpConfig"),
    "InternS2MobiusForConditionalGeneration": ("interns2_mobius",
                                               "interns2_mobius.InternS2MobiusConfig"),
    "InternS2PreviewForConditionalGeneration": ("interns2preview",
                                                "interns2preview.InternS2PreviewConfig"),
}


# plain Qwen3-VL: its config is transformers' class (AutoConfig; no SGLang registry entry),
# whose vision defaults include deepstack_visual_indexes (8, 16, 24)
QWEN3_PLAIN: dict[str, tuple[str, str | None]] = {
    "Qwen3VLForConditionalGeneration": ("qwen3_vl", "transformers.Qwen3VLConfig"),
    "Qwen3VLMoeForConditionalGeneration": ("qwen3_vl_moe", "transformers.Qwen3VLMoeConfig"),
}


def _tower_reads(real: type, kwargs: dict[str, Any]) -> None:
    """Run the real tower constructor (`Qwen3VLMoeVisionModel.__init__`, qwen3_vl.py:367-489)
    on the recorded call with its submodules replaced by empty modules (they take values, not
    the config; the patch embedding, which reads the config, stays real): an attribute its
    vision config lacks is SGLang's own AttributeError, what a config.json without it gets."""
    import torch.nn as nn
    from sglang.srt.models import qwen3_vl

    def empty(*args: Any, **kw: Any) -> Any:
        return nn.Identity()

    def conv(*args: Any, **kw: Any) -> Any:
        return nn.Linear(1, 1)  # a weight for the tower's device property (:495-497)

    names = ("get_exec", "VocabParallelEmbedding", "is_dp_attention_enabled", "get_rope",
             "Qwen3_VisionBlock", "Qwen3VLMoeVisionPatchMerger", "Conv3dLayer",
             "graph_runners_dict", "get_parallel", "get_mm")
    saved = {n: getattr(qwen3_vl, n) for n in names}
    stubs = {
        "get_exec": lambda: types.SimpleNamespace(kernel=types.SimpleNamespace(
            enable_precise_embedding_interpolation=False)),
        "VocabParallelEmbedding": empty, "is_dp_attention_enabled": lambda: False,
        "get_rope": empty, "Qwen3_VisionBlock": empty, "Qwen3VLMoeVisionPatchMerger": empty,
        "Conv3dLayer": conv, "graph_runners_dict": {"cpu": empty, "cuda": empty},
        "get_parallel": lambda: types.SimpleNamespace(
            pp_group=types.SimpleNamespace(is_first_rank=True), tp_size=1),
        "get_mm": lambda: types.SimpleNamespace(mm_attention_backend="fa3"),
    }
    try:
        for n, stub in stubs.items():
            setattr(qwen3_vl, n, stub)
        tower = real.__new__(real)
        real.__init__(tower, **{k: v for k, v in kwargs.items() if k != "self"})
    finally:
        for n, value in saved.items():
            setattr(qwen3_vl, n, value)


class _TowerBuilt(Exception):
    """Raised by the tower recorder: the rest of the model's constructor is not needed."""


def qwen3_subclass_tower(model_class: str, config: dict[str, Any], *, data_parallel: bool
                         ) -> tuple[str, dict[str, Any]]:
    """Run SGLang's own constructor of the Qwen3-VL subclass `model_class` on `config` (a
    config.json, parsed by SGLang's own config class) up to the vision tower it builds: (the
    tower class, that call's keywords with its defaults filled in; `vision_config` the config
    object itself). Stubbed: the parallel / multimodal state (--mm-enable-dp-encoder =
    `data_parallel`) and the tower class (a recorder that stops the constructor once called)."""
    import importlib
    import inspect

    from sglang.srt.models import qwen3_vl
    from transformers import PretrainedConfig

    model_file, config_class = {**QWEN3_SUBCLASSES, **QWEN3_PLAIN}[model_class]
    if config_class is None:  # trust_remote_code: whatever the file holds, as attributes
        cfg: Any = PretrainedConfig(**{k: v for k, v in config.items()
                                       if k != "vision_config"})
        cfg.vision_config = PretrainedConfig(**config.get("vision_config", {}))
    else:
        module, name = config_class.split(".")
        package = module if module == "transformers" else f"sglang.srt.configs.{module}"
        cfg = getattr(importlib.import_module(package), name)(**config)
    built: list[tuple[str, dict[str, Any]]] = []
    real = qwen3_vl.Qwen3VLMoeVisionModel

    def recorder(*args: Any, **kwargs: Any) -> Any:
        bound = inspect.signature(real).bind(*args, **kwargs)
        bound.apply_defaults()
        built.append((real.__name__, dict(bound.arguments)))
        _tower_reads(real, dict(bound.arguments))  # SGLang's AttributeError, if any
        raise _TowerBuilt

    saved = (qwen3_vl.get_parallel, qwen3_vl.get_mm, real)
    qwen3_vl.get_parallel = lambda: types.SimpleNamespace(  # type: ignore[assignment]
        pp_group=types.SimpleNamespace(is_first_rank=True))
    qwen3_vl.get_mm = lambda: types.SimpleNamespace(  # type: ignore[assignment]
        mm_enable_dp_encoder=data_parallel)
    qwen3_vl.Qwen3VLMoeVisionModel = recorder  # type: ignore[assignment,misc]
    try:
        cls = getattr(importlib.import_module(f"sglang.srt.models.{model_file}"), model_class)
        with contextlib.suppress(_TowerBuilt):
            cls(cfg)
    finally:
        qwen3_vl.get_parallel, qwen3_vl.get_mm, qwen3_vl.Qwen3VLMoeVisionModel = saved  # type: ignore[assignment,misc]
    assert len(built) == 1, built
    return built[0]
