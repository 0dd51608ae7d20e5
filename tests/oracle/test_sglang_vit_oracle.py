"""graphfit's `vit` component (graphfit/planner/engines/sglang_vit.py) vs SGLang 0.5.23's own
ViT CUDA-graph runners, run on the CPU (tests/oracle/sglang_vit_oracle.py).

For generated towers and workloads, every reachable encoder call is sent through SGLang's
glue and runner in graphfit's enumeration order; compared: the keys SGLang captures (and
their first-seen order), every buffer it keeps per key (shape and dtype), the rotary
workspace pairs it allocates, its bytes, and the plan's proof (every key's rows within
graphfit's capacities, each capacity a row count some key needs). Kimi K3: the runner's
replay / capture / eager decision for generated call sequences.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")

from graphfit import EngineConfig  # noqa: E402
from graphfit import plan as graphfit_plan  # noqa: E402
from graphfit.planner.core.dtypes import itemsize  # noqa: E402
from graphfit.planner.core.errors import ConfigError  # noqa: E402
from graphfit.planner.engines import sglang_vit as sv  # noqa: E402
from graphfit.planner.engines.sglang_vit_keyed import vit_pairs  # noqa: E402
from tests.oracle import sglang_vit_oracle as vo  # noqa: E402


@st.composite
def qwen_cases(draw: Any) -> tuple[sv.VitGeometry, sv.VitWorkload]:
    family = draw(st.sampled_from(["qwen2_5_vl", "qwen3_vl"]))
    heads = draw(st.sampled_from([1, 2, 4]))
    head_dim = draw(st.sampled_from([8, 16]))
    merge = draw(st.sampled_from([1, 2]))
    patch = draw(st.sampled_from([2, 14]))
    geometry = sv.VitGeometry(
        family, heads * head_dim, heads, patch_size=patch, spatial_merge_size=merge,
        out_hidden_size=head_dim, deepstack=draw(st.integers(0, 2)) if family == "qwen3_vl"
        else 0,
        window_size=(draw(st.integers(1, 4)) * merge * patch if family == "qwen2_5_vl"
                     else None),
        fullatt_blocks=(1,) if family == "qwen2_5_vl" else (),
        max_context_len=(draw(st.sampled_from([None, 64, 300])) if family == "qwen2_5_vl"
                         else None))
    side = st.integers(1, 6).map(lambda k: k * merge)
    grids = draw(st.lists(st.tuples(st.integers(1, 2), side, side), min_size=1, max_size=3))
    return geometry, sv.VitWorkload(tuple(grids), draw(st.integers(1, 3 if len(grids) < 3
                                                                  else 2)))


def _sglang_run(geometry: sv.VitGeometry, workload: sv.VitWorkload) -> dict[str, Any]:
    with vo.cpu_graphs():
        tower = vo.qwen_runner(
            geometry.family, hidden=geometry.hidden_size, heads=geometry.num_heads,
            patch=geometry.patch_size, merge=geometry.spatial_merge_size,
            out=geometry.out_hidden_size or geometry.hidden_size, depth=3,
            deepstack=geometry.deepstack, window=geometry.window_size,
            fullatt=geometry.fullatt_blocks, max_context_len=geometry.max_context_len)
        for call in sv.reachable_calls(workload):
            vo.qwen_call(tower, call)
        return vo.qwen_state(tower)


def _shape(b: sv.VitBuffer) -> tuple[tuple[int, ...], str]:
    return (b.rows, *b.row_shape), b.dtype


@settings(max_examples=30)
@given(qwen_cases())
def test_qwen_keys_buffers_and_workspace_equal_sglang(case: tuple[sv.VitGeometry,
                                                                   sv.VitWorkload]) -> None:
    geometry, workload = case
    sglang = _sglang_run(geometry, workload)
    keys = sv.reachable_keys(geometry, workload)
    assert keys == sglang["keys"]
    for key in keys:
        ours = {b.name: _shape(b) for b in sv.key_buffers(geometry, key)}
        assert ours == sglang["buffers"][key], key
    tokens = [k[0] for k in keys]
    assert sv.workspace_rows(geometry, tokens) == sglang["workspace_rows"]  # type: ignore[arg-type]

    plan = sv.plan_vit(geometry, workload)
    assert plan.verify() == ()
    # SGLang's bytes: each key's own buffers plus every rotary pair it allocated
    per_key = sum(_bytes(shape, dtype) for key in keys
                  for name, (shape, dtype) in sglang["buffers"][key].items()
                  if not name.startswith("rotary_"))
    pairs = sum(2 * rows * geometry.rotary_width * itemsize(geometry.dtype)
                for rows in sglang["workspace_rows"])
    assert plan.sglang_bytes == per_key + pairs
    # each capacity is a row count SGLang's largest key of that buffer needs: tight
    for name, cap in plan.capacities:
        assert cap == max(sglang["buffers"][k][name][0][0] for k in keys)
    assert plan.total_bytes <= plan.sglang_bytes
    # the same graphs as the SGLang plan's keyed component `vit`: its keys, each key's rows
    # per buffer and its reference bytes are SGLang's
    comp = _plan_component(geometry, workload)
    assert set(comp.graph_keys) == set(sglang["keys"])
    for key in comp.graph_keys:
        assert comp.rows(key) == {name: shape[0]
                                  for name, (shape, _) in sglang["buffers"][key].items()}
    assert comp.reference_bytes == per_key + pairs


def _plan_component(geometry: sv.VitGeometry, workload: sv.VitWorkload) -> Any:
    config = EngineConfig.from_dict({"engine": "sglang", "max_num_seqs": 4,
                                     "options": {"vit": vit_pairs(geometry, workload)}})
    return graphfit_plan(config).keyed["vit"]


def _bytes(shape: tuple[int, ...], dtype: str) -> int:
    n = itemsize(dtype)
    for d in shape:
        n *= d
    return n


@settings(max_examples=20)
@given(st.sampled_from([1, 2, 4]), st.sampled_from([8, 16]), st.integers(1, 40),
       st.integers(1, 6))
def test_internvl_keys_and_buffers_equal_sglang(heads: int, head_dim: int, tokens: int,
                                                 tiles: int) -> None:
    import torch

    geometry = sv.VitGeometry("internvl", heads * head_dim, heads, tokens_per_tile=tokens)
    workload = sv.VitWorkload(((1, 1, 1),), tiles)
    with vo.cpu_graphs():
        runner = vo.internvl_runner(hidden=geometry.hidden_size, heads=heads)
        for b in range(1, tiles + 1):
            runner.run(torch.zeros(b, tokens, geometry.hidden_size, dtype=torch.bfloat16))
        state = vo.internvl_state(runner)
    keys = sv.reachable_keys(geometry, workload)
    assert keys == tuple(state)
    for key in keys:
        assert {b.name: _shape(b) for b in sv.key_buffers(geometry, key)} == state[key]
    plan = sv.plan_vit(geometry, workload)
    assert plan.verify() == ()
    assert plan.capacity("block_ws") == tiles * tokens


KIMI_GRIDS = [(1, 4, 4), (1, 8, 8), (2, 4, 4), (1, 80, 80)]


@settings(max_examples=40)
@given(st.lists(st.lists(st.sampled_from(KIMI_GRIDS), min_size=1, max_size=2), min_size=1,
                max_size=30),
       st.integers(1, 3), st.integers(1, 3), st.sampled_from([None, 64, 6144]))
def test_kimi_dispatch_equals_sglang(calls: list[list[tuple[int, int, int]]], capacity: int,
                                     min_hits: int, max_seqlen: int | None) -> None:
    with vo.cpu_graphs():
        sglang = vo.kimi_outcomes(calls, capacity=capacity, min_hits=min_hits,
                                  max_seqlen=max_seqlen)
    ours = sv.kimi_outcomes([tuple(c) for c in calls], capacity=capacity, min_hits=min_hits,
                            max_seqlen=max_seqlen)
    assert ours == sglang
    assert sum(o == "capture" for o in ours) <= capacity


def test_qwen2_5_window_layout_drops_empty_windows() -> None:
    """A grid whose merged side is a multiple of the window gets a whole row of empty
    windows (pad = W - n % W): SGLang's filter drops the repeats; so does graphfit."""
    geometry = sv.VitGeometry("qwen2_5_vl", 64, 4, patch_size=14, spatial_merge_size=2,
                              window_size=112, fullatt_blocks=(1,))
    workload = sv.VitWorkload(((1, 8, 8), (1, 8, 12)), 2)
    sglang = _sglang_run(geometry, workload)
    assert sv.reachable_keys(geometry, workload) == sglang["keys"]
    assert sv.graph_key(geometry, [(1, 8, 8)]) == (64, ((0, 0, 64), (0, 64)))


@settings(max_examples=30)
@given(st.sampled_from([1, 2, 4, 8]), st.integers(1, 32), st.integers(0, 8),
       st.sampled_from([16, 64, 80]), st.booleans())
def test_heads_per_rank_equal_sglangs_vision_attention(tp: int, heads: int, dummy: int,
                                                       head_dim: int, dp: bool) -> None:
    """The heads a rank's attention workspace holds (`block_ws`' middle axis): SGLang's own
    VisionAttention vs graphfit; --mm-enable-dp-encoder keeps every head (graphfit: tp 1).
    A split SGLang cannot make (its divide() asserts) graphfit refuses."""
    ranks = 1 if dp else tp
    if (heads + dummy) % ranks:
        with pytest.raises(ConfigError):
            sv.VitGeometry("internvl", heads * head_dim, heads, tokens_per_tile=5,
                           dummy_heads=dummy, tp=ranks)
        return
    with vo.cpu_graphs():
        theirs = vo.vision_attention_heads(hidden=heads * head_dim, heads=heads, dummy=dummy,
                                           tp=tp, data_parallel=dp)
    geometry = sv.VitGeometry("internvl", heads * head_dim, heads, tokens_per_tile=5,
                              dummy_heads=dummy, tp=ranks)
    assert (geometry.heads_per_rank, geometry.head_dim) == theirs


INTERN_TOWERS = [("InternVLChatModel", "internvl"),
                 ("InternS1ForConditionalGeneration", "interns1")]


@settings(max_examples=40)
@given(st.sampled_from(INTERN_TOWERS), st.sampled_from([1, 2, 3, 4, 8]), st.integers(1, 32),
       st.sampled_from([16, 64, 80]), st.booleans(), st.sampled_from([None, 0, 3, 7]))
def test_intern_towers_dummy_heads_and_split_equal_sglangs(
        tower: tuple[str, str], tp: int, heads: int, head_dim: int, dp: bool,
        config_dummy: int | None) -> None:
    """InternVL and Intern-S1 (one InternVisionModel tower): the heads a rank holds as
    SGLang computes them -- its constructor's dummy-head rule on the attention TP size (which
    overwrites config.json's num_dummy_heads), whether the tower is built data-parallel under
    --mm-enable-dp-encoder (read from the model class's own source), then VisionAttention --
    against graphfit's read_geometry of the same config.json."""
    import json
    import tempfile

    from graphfit.inputs.sglang_vit import read_geometry

    arch, model_file = tower
    hidden = heads * head_dim
    data_parallel = dp and vo.tower_runs_data_parallel(model_file, arch)
    with vo.cpu_graphs():
        dummy = vo.sglang_dummy_heads(heads=heads, hidden=hidden, tp=tp,
                                      config_dummy=config_dummy)
        theirs = vo.vision_attention_heads(hidden=hidden, heads=heads, dummy=dummy, tp=tp,
                                           data_parallel=data_parallel)
    vision: dict[str, Any] = {"hidden_size": hidden, "num_attention_heads": heads,
                              "image_size": [448, 448], "patch_size": [14, 14]}
    if config_dummy is not None:
        vision["num_dummy_heads"] = config_dummy
    with tempfile.TemporaryDirectory() as where:
        path = Path(where) / "config.json"
        path.write_text(json.dumps({"architectures": [arch], "vision_config": vision}))
        geometry = read_geometry(path, tp=tp, dp_encoder=dp)
    assert (geometry.heads_per_rank, geometry.head_dim) == theirs
    assert geometry.tokens_per_tile == 32 * 32 + 1


def test_only_internvl_builds_its_tower_data_parallel() -> None:
    """Non-vacuity of the above: the two model classes differ on --mm-enable-dp-encoder."""
    assert vo.tower_runs_data_parallel("internvl", "InternVLChatModel")
    assert not vo.tower_runs_data_parallel("interns1", "InternS1ForConditionalGeneration")


def test_the_towers_graphfit_maps_are_sglangs_entry_classes_with_their_tower() -> None:
    """Each architecture graphfit maps to a family is an EntryClass of the SGLang model file
    that builds that family's tower: Intern-S1 builds InternVL's InternVisionModel, Bailing
    MoE V3 VL Qwen3-VL's Qwen3VLMoeVisionModel (data-parallel with --mm-enable-dp-encoder,
    as graphfit's qwen3_vl family is)."""
    from graphfit.inputs.sglang_vit import read_geometry

    assert "InternS1ForConditionalGeneration" in vo.entry_classes("interns1")
    assert "BailingMoeV3VLForConditionalGeneration" in vo.entry_classes("bailing_mm_v3")
    assert sv.VIT_ARCHITECTURES["InternS1ForConditionalGeneration"] == "internvl"
    assert sv.VIT_ARCHITECTURES["BailingMoeV3VLForConditionalGeneration"] == "qwen3_vl"
    assert vo.tower_runs_data_parallel("bailing_mm_v3", "BailingMoeV3VLForConditionalGeneration",
                                       "Qwen3VLMoeVisionModel")
    import json
    import tempfile

    with tempfile.TemporaryDirectory() as where:
        path = Path(where) / "config.json"
        path.write_text(json.dumps({
            "architectures": ["BailingMoeV3VLForConditionalGeneration"],
            "vision_config": {"hidden_size": 1152, "num_heads": 16, "patch_size": 16,
                              "spatial_merge_size": 2, "out_hidden_size": 4096,
                              "deepstack_visual_indexes": [8, 16, 24]}}))
        split = read_geometry(path, tp=4)
        whole = read_geometry(path, tp=4, dp_encoder=True)
    assert (split.family, split.heads_per_rank, whole.heads_per_rank) == ("qwen3_vl", 4, 16)
    with vo.cpu_graphs():  # SGLang's VisionAttention for the same tower and TP
        assert vo.vision_attention_heads(hidden=1152, heads=16, dummy=0, tp=4,
                                         data_parallel=False) == (4, 72)
        assert vo.vision_attention_heads(hidden=1152, heads=16, dummy=0, tp=4,
                                         data_parallel=True) == (16, 72)


def test_qwen3_omni_maps_to_the_qwen3_tower_always_split() -> None:
    """Qwen3-Omni MoE: SGLang's entry class builds its thinker's Qwen3OmniMoeVisionEncoder (a
    Qwen3VLMoeVisionModel subclass) without use_data_parallel, so --mm-enable-dp-encoder
    leaves its heads split; graphfit reads the tower under thinker_config."""
    import json
    import tempfile

    from graphfit.inputs.sglang_vit import read_geometry

    assert "Qwen3OmniMoeForConditionalGeneration" in vo.entry_classes("qwen3_omni_moe")
    assert not vo.tower_runs_data_parallel(
        "qwen3_omni_moe", "Qwen3OmniMoeThinkerForConditionalGeneration",
        "Qwen3OmniMoeVisionEncoder")
    assert sv.VIT_ARCHITECTURES["Qwen3OmniMoeForConditionalGeneration"] == "qwen3_vl"
    vision = {"hidden_size": 1152, "num_heads": 16, "patch_size": 16,
              "spatial_merge_size": 2, "out_hidden_size": 2048,
              "deepstack_visual_indexes": [8, 16, 24]}
    with tempfile.TemporaryDirectory() as where:
        path = Path(where) / "config.json"
        path.write_text(json.dumps({
            "architectures": ["Qwen3OmniMoeForConditionalGeneration"],
            "thinker_config": {"vision_config": vision,
                               "text_config": {"torch_dtype": "bfloat16"}}}))
        geometry = read_geometry(path, tp=2, dp_encoder=True)
    with vo.cpu_graphs():
        theirs = vo.vision_attention_heads(hidden=1152, heads=16, dummy=0, tp=2,
                                           data_parallel=False)
    assert (geometry.family, geometry.deepstack) == ("qwen3_vl", 3)
    assert (geometry.heads_per_rank, geometry.head_dim) == theirs == (8, 72)
