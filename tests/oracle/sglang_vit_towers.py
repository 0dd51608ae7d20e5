"""Bailing MM v1/v2 and RADIO (Nemotron Nano VL) towers: graphfit's reading of config.json vs
SGLang 0.5.23's own code, shared by tests/oracle/test_sglang_vit_towers_oracle.py and
tests/oracle/measure_sglang_vit_towers.py.

`bailing_case` draws a Bailing MM config.json (the vision tower named by architectures[0] or
model_type, SGLang's towers and one it refuses; TP / --mm-enable-dp-encoder; a text model's
max_position_embeddings that the Bailing tower must NOT read) and an image workload.
`bailing_agrees` runs SGLang's Bailing constructor (which tower, with which keywords:
sglang_vit_oracle.bailing_mm_tower), SGLang's VisionAttention (heads per rank), then every
reachable encoder call through SGLang's real ViTCudaGraphRunner and glue built with exactly
those keywords, and compares keys, buffers, rotary workspace pairs and the plan's proof with
graphfit's plan from `read_geometry` of the same file. Call inside `cpu_graphs()`.
"""

from __future__ import annotations

import json
import random
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphfit.inputs.sglang_vit import read_geometry
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines import sglang_vit as sv
from tests.oracle import sglang_vit_oracle as vo

# the tower names a config may carry: SGLang's four (bailing_mm.py:81-90) and one it refuses
TOWER_NAMES = ("Qwen3MoeVisionTransformer", "Qwen3_VisionTransformer", "qwen3_vl_moe",
               "Qwen2_5_VisionTransformer", "SiglipVisionModel")
# SGLang's tower class -> the runner family graphfit plans it as (both drive ViTCudaGraphRunner)
SGLANG_TOWER_FAMILY = {"Qwen2_5_VisionTransformer": "qwen2_5_vl",
                       "Qwen3VLMoeVisionModel": "qwen3_vl"}


@dataclass(frozen=True)
class BailingCase:
    model_class: str
    config: dict[str, Any]
    tp: int
    dp_encoder: bool
    workload: sv.VitWorkload

    @property
    def vision(self) -> dict[str, Any]:
        vision = self.config["vision_config"]
        assert isinstance(vision, dict)
        return vision


def bailing_case(rng: random.Random) -> BailingCase:
    heads = rng.choice([1, 2, 4, 8])
    head_dim = rng.choice([8, 16])
    merge = rng.choice([1, 2])
    patch = rng.choice([2, 14, 16])
    name = rng.choice(TOWER_NAMES)
    vision: dict[str, Any] = {
        "hidden_size": heads * head_dim, "num_heads": heads, "patch_size": patch,
        "spatial_merge_size": merge, "out_hidden_size": head_dim,
        "window_size": rng.randint(1, 4) * merge * patch,
        "fullatt_block_indexes": rng.choice([[], [1], [0, 2]]),
        "deepstack_visual_indexes": list(range(rng.randint(0, 2)))}
    if rng.random() < 0.5:
        vision["architectures"] = [name]
    else:
        vision["model_type"] = name
        if rng.random() < 0.5:
            vision["architectures"] = []  # empty: SGLang falls back to model_type
    model_class = rng.choice(sv.BAILING_MM_ARCHITECTURES)
    config = {"architectures": [model_class], "max_position_embeddings": 64,
              "llm_config": {"torch_dtype": rng.choice(["bfloat16", "float16"]),
                             "max_position_embeddings": 300},
              "vision_config": vision}
    tp = rng.choice([t for t in (1, 2, 4) if heads % t == 0])
    grids = tuple((rng.randint(1, 2), rng.randint(1, 5) * merge, rng.randint(1, 5) * merge)
                  for _ in range(rng.randint(1, 3)))
    workload = sv.VitWorkload(grids, rng.randint(1, 3 if len(grids) < 3 else 2))
    return BailingCase(model_class, config, tp, rng.random() < 0.5, workload)


def bailing_agrees(case: BailingCase) -> int:
    """Assert graphfit == SGLang for `case` (module docstring); the keys compared (0 when
    both refuse the tower)."""
    with tempfile.TemporaryDirectory() as where:
        path = Path(where) / "config.json"
        path.write_text(json.dumps(case.config))
        try:
            tower, kwargs = vo.bailing_mm_tower(case.vision, data_parallel=case.dp_encoder,
                                                model_class=case.model_class)
        except ValueError as exc:
            assert "Unsupported Bailing vision architecture" in str(exc)
            try:
                read_geometry(path, tp=case.tp, dp_encoder=case.dp_encoder)
            except ConfigError as ours:
                assert "not a tower Bailing MM builds" in str(ours)
                return 0
            raise AssertionError("graphfit plans a tower SGLang refuses") from exc
        geometry = read_geometry(path, tp=case.tp, dp_encoder=case.dp_encoder)
    v = case.vision
    assert geometry.family == SGLANG_TOWER_FAMILY[tower]
    heads = vo.vision_attention_heads(hidden=v["hidden_size"], heads=v["num_heads"], dummy=0,
                                      tp=case.tp, data_parallel=kwargs["use_data_parallel"])
    assert (geometry.heads_per_rank, geometry.head_dim) == heads
    dtype = case.config["llm_config"]["torch_dtype"]  # SGLang's model dtype: the text config's
    assert geometry.dtype == dtype
    return _runner_agrees(geometry, v, dtype, kwargs.get("max_context_len"), heads[0],
                          case.workload)


def _runner_agrees(geometry: sv.VitGeometry, v: dict[str, Any], dtype: str,
                   max_context_len: int | None, heads_per_rank: int,
                   workload: sv.VitWorkload) -> int:
    """Every reachable call through SGLang's runner and glue built from the tower's values
    `v` equals graphfit's plan of `geometry`: keys, buffers, rotary pairs, tight capacities."""
    qwen2_5 = geometry.family == "qwen2_5_vl"
    runner = vo.qwen_runner(
        geometry.family, hidden=v["hidden_size"], heads=v["num_heads"], patch=v["patch_size"],
        merge=v["spatial_merge_size"], out=v["out_hidden_size"], depth=3,
        deepstack=0 if qwen2_5 else len(v["deepstack_visual_indexes"]),
        window=v["window_size"] if qwen2_5 else None,
        fullatt=v["fullatt_block_indexes"] if qwen2_5 else (),
        max_context_len=max_context_len, dtype=dtype, heads_per_rank=heads_per_rank)
    for call in sv.reachable_calls(workload):
        vo.qwen_call(runner, call)
    sglang = vo.qwen_state(runner)
    keys = sv.reachable_keys(geometry, workload)
    assert keys == sglang["keys"]
    for key in keys:
        ours = {b.name: ((b.rows, *b.row_shape), b.dtype)
                for b in sv.key_buffers(geometry, key)}
        assert ours == sglang["buffers"][key], key
    tokens = [int(str(k[0])) for k in keys]
    assert sv.workspace_rows(geometry, tokens) == sglang["workspace_rows"]
    plan = sv.plan_vit(geometry, workload)
    assert plan.verify() == ()
    for name, cap in plan.capacities:  # tight: the largest key's rows
        assert cap == max(sglang["buffers"][k][name][0][0] for k in keys)
    return len(keys)


@dataclass(frozen=True)
class SubclassCase:
    """A config.json of one of the Qwen3-VL subclasses (vo.QWEN3_SUBCLASSES), as the others."""

    model_class: str
    config: dict[str, Any]
    tp: int
    dp_encoder: bool
    workload: sv.VitWorkload


def subclass_case(rng: random.Random, model_class: str | None = None) -> SubclassCase:
    """Keys a config class defaults (spatial_merge_size, deepstack_visual_indexes,
    out_hidden_size) are left out at random: SGLang's class default (or, for a remote-code
    config, SGLang's AttributeError) is then what graphfit must match."""
    heads = rng.choice([1, 2, 4, 8])
    head_dim = rng.choice([8, 16])
    merge = rng.choice([1, 2])
    vision: dict[str, Any] = {"hidden_size": heads * head_dim, "num_heads": heads,
                              "patch_size": rng.choice([2, 14, 16])}
    if rng.random() < 0.2:  # the tower's width and heads left to the class (1152, 16)
        del vision["hidden_size"], vision["num_heads"]
        heads = 16
    if rng.random() < 0.2:
        del vision["patch_size"]
    if rng.random() < 0.7:
        vision["spatial_merge_size"] = merge
    else:
        merge = 2
    if rng.random() < 0.7:
        vision["out_hidden_size"] = head_dim
    if rng.random() < 0.5:
        vision["deepstack_visual_indexes"] = list(range(rng.randint(0, 2)))
    # keys the tower reads with no default (qwen3_vl.py:380, 387, 446, 448, 455; the patch
    # embedding's in_channels, :189): each left out now and then (a remote-code config then
    # fails in SGLang's constructor)
    for key, value in (("num_position_embeddings", 64), ("temporal_patch_size", 2),
                       ("in_channels", 3), ("depth", rng.choice([0, 2])),
                       ("intermediate_size", 4 * heads * head_dim),
                       ("hidden_act", "gelu_pytorch_tanh")):
        if rng.random() < 0.85:
            vision[key] = value
    model_class = model_class or rng.choice(sorted({**vo.QWEN3_SUBCLASSES,
                                                    **vo.QWEN3_PLAIN}))
    config: dict[str, Any] = {
        "architectures": [model_class], "vision_config": vision,
        "text_config": {"torch_dtype": rng.choice(["bfloat16", "float16"])}}
    if rng.random() < 0.1 and model_class not in sv.QWEN3_REMOTE_CONFIG:
        # no vision_config: the config class builds its default one
        del config["vision_config"]
        heads, merge = 16, 2
    tp = rng.choice([t for t in (1, 2, 4) if heads % t == 0])
    grids = tuple((rng.randint(1, 2), rng.randint(1, 5) * merge, rng.randint(1, 5) * merge)
                  for _ in range(rng.randint(1, 3)))
    workload = sv.VitWorkload(grids, rng.randint(1, 3 if len(grids) < 3 else 2))
    return SubclassCase(model_class, config, tp, rng.random() < 0.5, workload)


def subclass_agrees(case: SubclassCase) -> int:
    """Assert graphfit == SGLang for `case`: SGLang's own constructor (on its own config
    class) builds Qwen3-VL's tower with the vision config and use_data_parallel it passes;
    graphfit plans the family `qwen3_vl` with those values (heads per rank through SGLang's
    VisionAttention, then every key and buffer through SGLang's runner); the keys compared,
    0 when both refuse (SGLang's AttributeError: a key the remote-code config lacks)."""
    with tempfile.TemporaryDirectory() as where:
        path = Path(where) / "config.json"
        path.write_text(json.dumps(case.config))
        try:
            tower, kwargs = vo.qwen3_subclass_tower(case.model_class, case.config,
                                                    data_parallel=case.dp_encoder)
            vc = kwargs["vision_config"]
            v = {k: getattr(vc, k) for k in ("hidden_size", "num_heads", "patch_size",
                                             "spatial_merge_size", "out_hidden_size",
                                             "deepstack_visual_indexes")}
        except AttributeError as exc:
            try:
                read_geometry(path, tp=case.tp, dp_encoder=case.dp_encoder)
            except ConfigError as ours:
                assert "missing" in str(ours), ours
                return 0
            raise AssertionError(f"graphfit plans what SGLang cannot build: {exc}") from exc
        geometry = read_geometry(path, tp=case.tp, dp_encoder=case.dp_encoder)
    assert tower == "Qwen3VLMoeVisionModel"
    assert geometry.family == SGLANG_TOWER_FAMILY[tower]
    assert geometry.deepstack == len(v["deepstack_visual_indexes"])
    assert (geometry.patch_size, geometry.spatial_merge_size) == (v["patch_size"],
                                                                  v["spatial_merge_size"])
    assert geometry.out_hidden_size == v["out_hidden_size"]
    assert (geometry.hidden_size, geometry.num_heads) == (v["hidden_size"], v["num_heads"])
    heads = vo.vision_attention_heads(hidden=v["hidden_size"], heads=v["num_heads"], dummy=0,
                                      tp=case.tp, data_parallel=kwargs["use_data_parallel"])
    assert (geometry.heads_per_rank, geometry.head_dim) == heads
    dtype = case.config["text_config"]["torch_dtype"]
    assert geometry.dtype == dtype
    return _runner_agrees(geometry, v, dtype, None, heads[0], case.workload)


# architectures whose vision config class is not one the subclass oracle runs, with the class
# SGLang loads their config.json with (Qwen3-Omni: transformers', SGLang registers none;
# Bailing MoE V3 VL: SGLang's own, configs/bailing_hybrid.py:239-261) and where the tower's
# vision config sits in it
DEFAULTED_CLASSES = {
    "Qwen3OmniMoeForConditionalGeneration": ("transformers", "Qwen3OmniMoeConfig",
                                             "thinker_config"),
    "BailingMoeV3VLForConditionalGeneration": ("sglang.srt.configs.bailing_hybrid",
                                               "BailingMoeV3VLConfig", None),
}
TOWER_KEYS = ("hidden_size", "num_heads", "patch_size", "spatial_merge_size",
              "out_hidden_size", "deepstack_visual_indexes")


def defaulted_case(rng: random.Random, model_class: str | None = None) -> SubclassCase:
    """A Qwen3-Omni MoE or Bailing MoE V3 VL config.json whose vision keys (or whole
    vision_config, or Qwen3-Omni's whole thinker_config) are left out at random."""
    model_class = model_class or rng.choice(sorted(DEFAULTED_CLASSES))
    heads = rng.choice([1, 2, 4])
    vision: dict[str, Any] = {"hidden_size": heads * 8, "num_heads": heads,
                              "patch_size": rng.choice([2, 14]), "spatial_merge_size": 1,
                              "out_hidden_size": 24, "deepstack_visual_indexes": [0, 1]}
    for key in ("patch_size", "spatial_merge_size", "out_hidden_size",
                "deepstack_visual_indexes"):
        if rng.random() < 0.35:
            del vision[key]
    if rng.random() < 0.3:
        del vision["hidden_size"], vision["num_heads"]
        heads = 16
    merge = vision.get("spatial_merge_size", 2)
    inner: dict[str, Any] = {"vision_config": vision}
    if rng.random() < 0.15:
        del inner["vision_config"]
        heads, merge = 16, 2
    _module, _name, nest = DEFAULTED_CLASSES[model_class]
    config: dict[str, Any] = {"architectures": [model_class]}
    if nest is None:
        config.update(inner)
    elif rng.random() < 0.85:
        config[nest] = inner
    else:
        heads, merge = 16, 2
    tp = rng.choice([t for t in (1, 2, 4) if heads % t == 0])
    grids = tuple((rng.randint(1, 2), rng.randint(1, 4) * merge, rng.randint(1, 4) * merge)
                  for _ in range(rng.randint(1, 2)))
    return SubclassCase(model_class, config, tp, False, sv.VitWorkload(grids, 2))


def defaulted_vision(case: SubclassCase) -> dict[str, Any]:
    """The tower's values from the vision config SGLang's config loading builds for
    `case.config` (the config class named in DEFAULTED_CLASSES, run on the file's keys)."""
    import importlib

    module, name, nest = DEFAULTED_CLASSES[case.model_class]
    cfg = getattr(importlib.import_module(module), name)(**case.config)
    holder = cfg if nest is None else getattr(cfg, nest)
    vc = holder.vision_config
    return {k: getattr(vc, k) for k in TOWER_KEYS}


def defaulted_agrees(case: SubclassCase) -> int:
    """Assert graphfit == SGLang for a DEFAULTED_CLASSES config: every tower value graphfit
    reads equals the config class's, the heads per rank SGLang's VisionAttention's (these
    towers split their heads: Qwen3-Omni always, qwen3_omni_moe.py:441-446; Bailing V3 with
    the encoder not data-parallel, as drawn), and every reachable call through SGLang's runner
    gives graphfit's keys and buffers; the keys compared."""
    v = defaulted_vision(case)
    with tempfile.TemporaryDirectory() as where:
        path = Path(where) / "config.json"
        path.write_text(json.dumps(case.config))
        geometry = read_geometry(path, tp=case.tp)
    assert geometry.family == "qwen3_vl"
    assert (geometry.hidden_size, geometry.num_heads, geometry.patch_size,
            geometry.spatial_merge_size, geometry.out_hidden_size, geometry.deepstack) == (
        v["hidden_size"], v["num_heads"], v["patch_size"], v["spatial_merge_size"],
        v["out_hidden_size"], len(v["deepstack_visual_indexes"] or ())), v
    heads = vo.vision_attention_heads(hidden=v["hidden_size"], heads=v["num_heads"], dummy=0,
                                      tp=case.tp, data_parallel=False)
    assert (geometry.heads_per_rank, geometry.head_dim) == heads
    # the dtype is not what these cases vary (bfloat16 when absent, the reader's rule)
    return _runner_agrees(geometry, v, geometry.dtype, None, heads[0], case.workload)


# Bailing MM v2's registered config class (issue 23, s41v): config.json files of model_type
# "bailingmm_moe_v2_lite" are loaded by SGLang's BailingMM2Config.from_pretrained, as
# get_config does for a registered model_type (utils/hf_transformers/config.py:281-295)
MM2_MODEL_TYPE = "bailingmm_moe_v2_lite"
MM2_KEYS = ("hidden_size", "num_heads", "patch_size", "spatial_merge_size",
            "out_hidden_size", "deepstack_visual_indexes", "window_size",
            "fullatt_block_indexes")


def mm2_case(rng: random.Random) -> BailingCase:
    """A Bailing MM config.json of model_type bailingmm_moe_v2_lite: its vision_config absent,
    null, or with keys left out at random (the tower's name too: architectures, model_type,
    neither), now and then an audio_config (SGLang refuses it) or num_attention_heads instead
    of num_heads (which the config class does not read)."""
    heads = rng.choice([1, 2, 4])
    merge = rng.choice([1, 2])
    patch = rng.choice([2, 14])
    vision: dict[str, Any] = {
        "hidden_size": heads * 8, "num_heads": heads, "patch_size": patch,
        "spatial_merge_size": merge, "out_hidden_size": 8,
        "window_size": rng.randint(1, 3) * merge * patch,
        "fullatt_block_indexes": rng.choice([[], [1]]),
        "deepstack_visual_indexes": list(range(rng.randint(0, 2)))}
    for key in ("patch_size", "spatial_merge_size", "out_hidden_size",
                "deepstack_visual_indexes", "window_size", "fullatt_block_indexes"):
        if rng.random() < 0.3:
            del vision[key]
    if rng.random() < 0.25:
        del vision["hidden_size"], vision["num_heads"]
        heads = 16
    elif rng.random() < 0.15:  # heads under the other name: the class keeps num_heads 16
        vision["num_attention_heads"] = vision.pop("num_heads")
        vision["hidden_size"] = 16 * 8
        heads = 16
    if "window_size" in vision:  # whole merged patches of the class-defaulted sizes too
        vision["window_size"] = (rng.randint(1, 3) * vision.get("patch_size", 16)
                                 * vision.get("spatial_merge_size", 2))
    name = rng.choice((*TOWER_NAMES, None))
    if name is not None and rng.random() < 0.5:
        vision["architectures"] = [name]
    elif name is not None:
        vision["model_type"] = name
    config: dict[str, Any] = {
        "architectures": [rng.choice(sv.BAILING_MM_ARCHITECTURES)],
        "model_type": MM2_MODEL_TYPE,
        "llm_config": {"torch_dtype": rng.choice(["bfloat16", "float16"])}}
    roll = rng.random()
    if roll < 0.8:
        config["vision_config"] = vision
    elif roll < 0.9:
        config["vision_config"] = None
    if rng.random() < 0.1:
        config["audio_config"] = {}
    if "vision_config" not in config or config["vision_config"] is None:
        heads = 16
    tp = rng.choice([t for t in (1, 2, 4) if heads % t == 0])
    grids = tuple((rng.randint(1, 2), rng.randint(1, 3) * 2, rng.randint(1, 3) * 2)
                  for _ in range(rng.randint(1, 2)))
    return BailingCase(config["architectures"][0], config, tp, rng.random() < 0.3,
                       sv.VitWorkload(grids, 2))


def _refused(path: Path, case: BailingCase, *words: str) -> int:
    """0 when graphfit refuses `path` with one of `words` in its reason (SGLang refused)."""
    try:
        read_geometry(path, tp=case.tp, dp_encoder=case.dp_encoder)
    except ConfigError as ours:
        assert any(w in str(ours) for w in words), ours
        return 0
    raise AssertionError(f"graphfit plans what SGLang refuses: {case.config}")


def mm2_agrees(case: BailingCase) -> int:
    """Assert graphfit == SGLang for a `mm2_case`: SGLang's BailingMM2Config.from_pretrained
    loads the file, SGLang's Bailing constructor picks the tower from that config object, the
    Qwen2.5 tower's reads of window_size / fullatt_block_indexes (qwen2_5_vl.py:379-380) run
    on it, and graphfit refuses exactly what fails there (the config class's TypeError, the
    model's ValueError, the tower's AttributeError); otherwise graphfit's tower family, every
    tower value it reads, heads per rank (SGLang's VisionAttention) and every reachable call
    through SGLang's runner equal SGLang's. The keys compared (0: both refuse)."""
    from sglang.srt.configs.bailing_moe_v2 import BailingMM2Config

    with tempfile.TemporaryDirectory() as where:
        path = Path(where) / "config.json"
        path.write_text(json.dumps(case.config))
        try:
            cfg = BailingMM2Config.from_pretrained(where)
            tower, kwargs = vo.bailing_mm_tower({}, data_parallel=case.dp_encoder,
                                                model_class=case.model_class, config=cfg)
            vc = kwargs["vision_config"]
            if tower == "Qwen2_5_VisionTransformer":
                _ = (vc.fullatt_block_indexes, vc.window_size)  # qwen2_5_vl.py:379-380
        except ValueError as exc:
            if "Unsupported Bailing vision architecture" in str(exc):
                return _refused(path, case, "not a tower Bailing MM builds",
                                "names no architectures")
            assert "Audio is not supported" in str(exc), exc
            return _refused(path, case, "Audio is not supported")
        except AttributeError:
            return _refused(path, case, "missing")
        geometry = read_geometry(path, tp=case.tp, dp_encoder=case.dp_encoder)
    v = {k: getattr(vc, k, None) for k in MM2_KEYS}
    assert geometry.family == SGLANG_TOWER_FAMILY[tower]
    qwen2_5 = geometry.family == "qwen2_5_vl"
    assert (geometry.hidden_size, geometry.num_heads, geometry.patch_size,
            geometry.spatial_merge_size, geometry.out_hidden_size) == (
        v["hidden_size"], v["num_heads"], v["patch_size"], v["spatial_merge_size"],
        v["out_hidden_size"]), v
    if qwen2_5:
        assert (geometry.window_size, geometry.fullatt_blocks) == (
            v["window_size"], tuple(v["fullatt_block_indexes"] or ())), v
    else:
        assert geometry.deepstack == len(v["deepstack_visual_indexes"] or ()), v
    heads = vo.vision_attention_heads(hidden=v["hidden_size"], heads=v["num_heads"], dummy=0,
                                      tp=case.tp, data_parallel=kwargs["use_data_parallel"])
    assert (geometry.heads_per_rank, geometry.head_dim) == heads
    dtype = case.config["llm_config"]["torch_dtype"]
    assert geometry.dtype == dtype
    return _runner_agrees(geometry, v, dtype, kwargs.get("max_context_len"), heads[0],
                          case.workload)


def radio_refused(model: Path) -> str:
    """graphfit's refusal for a Nemotron Nano VL config.json (its ConfigError text)."""
    try:
        read_geometry(model)
    except ConfigError as exc:
        return str(exc)
    raise AssertionError("graphfit planned a RADIO tower")


__all__ = ["BailingCase", "SubclassCase", "bailing_agrees", "bailing_case", "defaulted_agrees",
           "defaulted_case", "mm2_agrees", "mm2_case", "radio_refused",
           "subclass_agrees", "subclass_case"]
