"""Kimi K3's ViT graphs: the buffers graphfit plans per key (graphfit/planner/engines/
sglang_vit.py `key_buffers`) vs every tensor SGLang 0.5.23's real KimiK3ViTCudaGraphRunner
keeps for a captured key, driven through the real tower glue on the CPU
(tests/oracle/sglang_vit_oracle.py `kimi_entry`); and the tower graphfit reads from a
config.json vs SGLang's own KimiK3VisionConfig."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")

from graphfit import EngineConfig  # noqa: E402
from graphfit import plan as graphfit_plan  # noqa: E402
from graphfit.inputs.sglang_vit import read_geometry  # noqa: E402
from graphfit.planner.engines import sglang_vit as sv  # noqa: E402
from graphfit.planner.engines.sglang_vit_keyed import vit_pairs  # noqa: E402
from tests.oracle import sglang_vit_oracle as vo  # noqa: E402


@st.composite
def towers(draw: Any) -> sv.VitGeometry:
    heads = draw(st.sampled_from([1, 2, 4]))
    head_dim = draw(st.sampled_from([4, 8, 12]))
    split = draw(st.booleans())  # an attention width of its own (qkv_hidden_size)
    hidden = draw(st.sampled_from([8, 16, 24])) if split else heads * head_dim
    kh = draw(st.sampled_from([1, 2]))
    kw = draw(st.sampled_from([None, 1, 2, 3]))  # None: square; else a kernel kh x kw
    return sv.VitGeometry("kimi_k3", hidden, heads, patch_size=draw(st.sampled_from([1, 2, 3])),
                          spatial_merge_size=kh, spatial_merge_width=kw,
                          qkv_hidden_size=heads * head_dim if split else None,
                          dtype=draw(st.sampled_from(["bfloat16", "float32"])),
                          attention_backend=draw(st.sampled_from(
                              [None, "flashinfer_cudnn", "flashinfer_cudnn", "fa4"])))


def _sglang(geometry: sv.VitGeometry, call: tuple[sv.Grid, ...]
            ) -> dict[str, tuple[tuple[int, ...], str, int]]:
    """What SGLang's captured graph of `call` reads: its entry's tensors, and the one
    workspace SGLang's encoder constructor hands every block (flashinfer_cudnn)."""
    backend = geometry.attention_backend or "auto"
    with vo.cpu_graphs():
        entry = vo.kimi_entry(call, hidden=geometry.hidden_size, heads=geometry.num_heads,
                              qkv=geometry.qkv_hidden_size, patch=geometry.patch_size,
                              merge=geometry.merge_kernel, dtype=geometry.dtype,
                              backend=backend)
        workspaces = _workspaces(geometry)
    assert len(workspaces) <= 1, workspaces  # one per encoder, shared by its blocks
    return {**entry, **({"attention_workspace": workspaces[0]} if workspaces else {})}


def _workspaces(geometry: sv.VitGeometry) -> tuple[tuple[tuple[int, ...], str, int], ...]:
    return vo.kimi_encoder_workspaces(hidden=geometry.hidden_size, heads=geometry.num_heads,
                                      qkv=geometry.qkv_hidden_size,
                                      backend=geometry.attention_backend or "auto")


def _ours(geometry: sv.VitGeometry, call: tuple[sv.Grid, ...]
          ) -> dict[str, tuple[tuple[int, ...], str, int]]:
    key = sv.graph_key(geometry, call)
    return {b.name: ((b.rows, *b.row_shape), b.dtype, b.bytes)
            for b in sv.key_buffers(geometry, key)}


@settings(max_examples=15)
@given(towers(), st.data())
def test_every_tensor_a_captured_key_keeps_is_a_planned_buffer(geometry: sv.VitGeometry,
                                                               data: Any) -> None:
    kh, kw = geometry.merge_kernel
    call = tuple(data.draw(st.lists(st.tuples(st.integers(1, 2),
                                              st.integers(1, 4).map(lambda k: k * kh),
                                              st.integers(1, 4).map(lambda k: k * kw)),
                                    min_size=1, max_size=11)))
    # names, shapes (complex as real pairs), dtypes and bytes: nothing SGLang keeps is missed
    assert _ours(geometry, call) == _sglang(geometry, call)


def test_the_plans_vit_component_sizes_and_references_sglangs_entries() -> None:
    """The SGLang plan's keyed component `vit` for a Kimi K3 workload: each key's rows per
    buffer are SGLang's, each capacity the largest key's, and the reference bytes what
    SGLang keeps for the cache capacity (2) of its largest captured keys."""
    geometry = sv.VitGeometry("kimi_k3", 16, 2, patch_size=2, spatial_merge_size=2,
                              qkv_hidden_size=16)
    workload = sv.VitWorkload(((1, 4, 4), (1, 6, 2), (2, 4, 8)), 2)
    config = EngineConfig.from_dict({"engine": "sglang", "max_num_seqs": 4,
                                     "options": {"vit": vit_pairs(geometry, workload)}})
    comp = graphfit_plan(config).keyed["vit"]
    entries = {key: _sglang(geometry, comp.witness(key)) for key in comp.graph_keys}
    assert len(entries) == 12  # 3 + 9 image orders, all under max_seqlen
    for key, entry in entries.items():
        assert comp.rows(key) == {name: shape[0] for name, (shape, _, _) in entry.items()}
    for buf in comp.buffers:
        assert buf.capacity == max(e[buf.name][0][0] for e in entries.values())
    # the rope table is the tower's, one whatever the graphs (the same tensor every call)
    (table,) = {e["rope_freqs_table"] for e in entries.values()}
    sizes = sorted((sum(b for n, (_, _, b) in e.items() if n != "rope_freqs_table")
                    for e in entries.values()), reverse=True)
    assert comp.reference_bytes == sum(sizes[:2]) + table[2]


def test_flashinfer_cudnn_workspace_is_planned_once_for_every_key() -> None:
    """Under flashinfer_cudnn SGLang's encoder allocates one workspace its blocks share
    (kimi_k3_vl.py:531-537, 549-555): every key's graph reads it, so the plan's component
    has it on every key at SGLang's size, and the reference bytes count it once beside the
    cache capacity (2) of the largest captured entries; no other backend allocates one."""
    geometry = sv.VitGeometry("kimi_k3", 16, 2, patch_size=2, spatial_merge_size=2,
                              qkv_hidden_size=16, attention_backend="flashinfer_cudnn")
    workload = sv.VitWorkload(((1, 4, 4), (1, 6, 2), (2, 4, 8)), 2)
    config = EngineConfig.from_dict({"engine": "sglang", "max_num_seqs": 4,
                                     "options": {"vit": vit_pairs(geometry, workload)}})
    comp = graphfit_plan(config).keyed["vit"]
    with vo.cpu_graphs():
        (workspace,) = _workspaces(geometry)
        entries = [vo.kimi_entry(comp.witness(key), hidden=16, heads=2, qkv=16, patch=2,
                                 merge=2, backend="flashinfer_cudnn")
                   for key in comp.graph_keys]
        others = {b: vo.kimi_encoder_workspaces(hidden=16, heads=2, qkv=16, backend=b)
                  for b in ("auto", *sv.ATTENTION_BACKENDS) if b != "flashinfer_cudnn"}
    assert all(comp.rows(key)["attention_workspace"] == workspace[0][0]
               for key in comp.graph_keys)
    buf = next(b for b in comp.buffers if b.name == "attention_workspace")
    assert (buf.capacity, buf.dtype) == (workspace[0][0], workspace[1])
    (table,) = {e["rope_freqs_table"] for e in entries}
    sizes = sorted((sum(b for n, (_, _, b) in e.items() if n != "rope_freqs_table")
                    for e in entries), reverse=True)
    assert comp.reference_bytes == sum(sizes[:2]) + workspace[2] + table[2]
    assert sv.plan_vit(geometry, workload).sglang_bytes == comp.reference_bytes
    assert not any(others.values()), others


def test_flashinfer_cudnn_pads_past_the_first_bucket() -> None:
    """The oracle reaches flashinfer_cudnn's padding: nine images take the second bucket
    (16) in SGLang's own metadata, and graphfit's rows say the same."""
    geometry = sv.VitGeometry("kimi_k3", 8, 2, patch_size=1, spatial_merge_size=1,
                              spatial_merge_width=2, qkv_hidden_size=8,
                              attention_backend="flashinfer_cudnn")
    call = ((1, 1, 2),) * 9
    theirs = _sglang(geometry, call)
    assert theirs["sequence_lengths"][0] == (16, 1, 1, 1)
    assert theirs["packed_indptrs"][0] == (3 * 17,)
    assert _ours(geometry, call) == theirs


@st.composite
def kimi_vision(draw: Any) -> dict[str, Any]:
    """A vision_config with some of the keys graphfit reads (the rest: the class default)."""
    heads = draw(st.sampled_from([2, 4, 16]))
    present = {
        "vt_hidden_size": heads * draw(st.sampled_from([8, 72])),
        "vt_num_attention_heads": heads,
        "qkv_hidden_size": draw(st.sampled_from([None, heads * 8, heads * 96])),
        "patch_size": draw(st.sampled_from([14, 16])),
        "merge_kernel_size": draw(st.sampled_from([[2, 2], [1, 1], [3, 3], [1, 2], [2, 3]])),
        "hidden_size": 7168, "num_attention_heads": 64,  # overwritten by the vt_ aliases
    }
    keep = draw(st.sets(st.sampled_from(sorted(present))))
    vision = {k: present[k] for k in keep}
    if "vt_num_attention_heads" not in vision:  # the default 12 heads must divide the widths
        vision.pop("qkv_hidden_size", None)
        vision.pop("vt_hidden_size", None)
    return vision


@settings(max_examples=30)
@given(kimi_vision())
def test_the_tower_read_from_config_json_is_sglangs(tmp_path_factory: Any,
                                                    vision: dict[str, Any]) -> None:
    with vo.cpu_graphs():
        from sglang.srt.configs.kimi_k3 import KimiK3VisionConfig

        cfg = KimiK3VisionConfig(**vision)
    # what KimiK3VisionTower / MoonViT3dEncoder read (kimi_k3_vl.py:703-714, 526, 552-554)
    hidden = getattr(cfg, "vt_hidden_size", None) or cfg.hidden_size
    heads = getattr(cfg, "vt_num_attention_heads", None) or cfg.num_attention_heads
    width = cfg.qkv_hidden_size or hidden
    path = Path(tmp_path_factory.mktemp("k3")) / "config.json"
    path.write_text(json.dumps({"architectures": ["KimiK3ForConditionalGeneration"],
                                "vision_config": vision}))
    g = read_geometry(path)
    assert (g.hidden_size, g.num_heads, g.head_dim, g.patch_size) == (
        hidden, heads, width // heads, cfg.patch_size)
    assert g.merge_kernel == tuple(cfg.merge_kernel_size)
