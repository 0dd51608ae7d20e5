"""Bailing MM v1/v2 and RADIO (Nemotron Nano VL) ViT towers: graphfit vs SGLang 0.5.23's own
code on the CPU (tests/oracle/sglang_vit_towers.py, sglang_vit_oracle.py).

Bailing MM: SGLang's constructor picks the tower (and its keywords) from the generated
config; SGLang's runner, glue and VisionAttention then give the keys and buffers graphfit's
plan of the same config.json must equal. RADIO: SGLang's own encoder and RADIO forwards show
that no call survives the graph path, which is why graphfit refuses the architecture.
"""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")

from graphfit.inputs.sglang_vit import read_geometry  # noqa: E402
from graphfit.planner.core.errors import ConfigError  # noqa: E402
from graphfit.planner.engines import sglang_vit as sv  # noqa: E402
from tests.oracle import sglang_vit_oracle as vo  # noqa: E402
from tests.oracle import sglang_vit_towers as towers  # noqa: E402


@settings(max_examples=10)
@given(st.integers(0, 2**32 - 1))
def test_bailing_mm_keys_and_buffers_equal_sglang(seed: int) -> None:
    case = towers.bailing_case(random.Random(seed))
    with vo.cpu_graphs():
        towers.bailing_agrees(case)


@pytest.mark.parametrize("name", towers.TOWER_NAMES)
@pytest.mark.parametrize("model_class", sv.BAILING_MM_ARCHITECTURES)
def test_every_bailing_mm_tower_name(name: str, model_class: str) -> None:
    """Non-vacuity: each tower name (and SGLang's refusal) is met, by architectures and by
    model_type, with the encoder split over TP 2 and data-parallel."""
    rng = random.Random(7)
    for by_arch, dp in ((True, False), (False, True)):
        case = towers.bailing_case(rng)
        vision = {k: v for k, v in case.vision.items() if k not in ("architectures",
                                                                    "model_type")}
        vision["hidden_size"], vision["num_heads"] = 64, 4
        vision.update({"architectures": [name]} if by_arch else {"model_type": name})
        config = {**case.config, "architectures": [model_class], "vision_config": vision}
        case = towers.BailingCase(model_class, config, 2, dp, case.workload)
        with vo.cpu_graphs():
            keys = towers.bailing_agrees(case)
        assert (keys == 0) == (name not in sv.BAILING_MM_TOWERS)


def test_bailing_mm_entry_classes_and_vision_config_without_a_name() -> None:
    assert vo.entry_classes("bailing_mm") == sv.BAILING_MM_ARCHITECTURES
    with tempfile.TemporaryDirectory() as where:
        path = Path(where) / "config.json"
        path.write_text(json.dumps({"architectures": [sv.BAILING_MM_ARCHITECTURES[1]],
                                    "vision_config": {"hidden_size": 64, "num_heads": 4}}))
        with pytest.raises(ConfigError, match="the transformers class"):
            read_geometry(path)


def test_radio_graphs_never_serve_a_call_and_graphfit_refuses() -> None:
    """SGLang's InternVisionEncoder.forward under ViT graphs hands RADIO a tuple: the
    fixed-size path trips its BaseModelOutput assert, the dynamic path reads
    `.last_hidden_state` off the tuple; both after the runner captured the call's graph."""
    with vo.cpu_graphs():
        outcome, captured = vo.radio_with_graphs(hidden=32, heads=2, tokens=5, images=3)
    assert outcome["forward"] == "AssertionError"
    assert outcome["dynamic"].startswith("AttributeError")
    assert "last_hidden_state" in outcome["dynamic"]
    # captured first (the dynamic path's key ignores its cu_seqlens: one 15-row sequence)
    assert captured == ((3, 5), (1, 15))
    entries = vo.entry_classes("nano_nemotron_vl")
    assert entries == tuple(a for a, why in sv.REFUSED_ARCHITECTURES.items() if "RADIO" in why)
    assert not vo.tower_runs_data_parallel("nano_nemotron_vl", "NemotronH_Nano_VL_V2",
                                           "RadioModel")
    for arch in entries:
        with tempfile.TemporaryDirectory() as where:
            path = Path(where) / "config.json"
            path.write_text(json.dumps({"architectures": [arch], "vision_config": {}}))
            said = towers.radio_refused(path)
        assert f"{arch}: not planned" in said and "internvl.py:356-357" in said


def test_every_entry_class_on_a_modelled_tower_is_planned_or_refused_by_name() -> None:
    """Across every SGLang 0.5.23 model file (parsed, not imported): each registered
    architecture whose class derives from a model graphfit plans ViT graphs for (so its
    constructor builds that tower, ViT graphs on) is planned, or refused with its own reason
    (the Qwen3-VL subclasses graphfit does not restate), never told it has no ViT graph."""
    import ast

    from tests.oracle.paths import require

    models = require("sglang") / "sglang" / "srt" / "models"
    bases: dict[str, set[str]] = {}
    entries: set[str] = set()
    for path in sorted(models.glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases.setdefault(node.name, set()).update(
                    b.id if isinstance(b, ast.Name) else getattr(b, "attr", "")
                    for b in node.bases)
        entries.update(vo.entry_classes_in(tree))  # the same parse, not a second one

    def derives(name: str, roots: set[str], seen: frozenset[str] = frozenset()) -> bool:
        if name in roots:
            return True
        return any(derives(b, roots, seen | {name}) for b in bases.get(name, ())
                   if b not in seen)

    roots = {"Qwen2_5_VLForConditionalGeneration", "Qwen3VLForConditionalGeneration",
             "InternVLChatModel", "KimiK3ForConditionalGeneration"}
    found = sorted(e for e in entries if derives(e, roots))
    unplanned = [e for e in found if e not in sv.VIT_ARCHITECTURES]
    assert len(found) > len(roots), found  # non-vacuity: SGLang has such subclasses
    for arch in unplanned:
        assert arch in sv.REFUSED_ARCHITECTURES, arch
        with tempfile.TemporaryDirectory() as where:
            path = Path(where) / "config.json"
            path.write_text(json.dumps({"architectures": [arch], "vision_config": {}}))
            with pytest.raises(ConfigError) as said:
                read_geometry(path)
        assert str(said.value).startswith(f"{arch}: not planned")
        assert len(f"error: {said.value}") <= 200
    # every Qwen3-VL subclass is one the constructor oracle below runs
    qwen3 = {e for e in found if derives(e, {"Qwen3VLForConditionalGeneration"})}
    assert qwen3 - {"Qwen3VLForConditionalGeneration", "Qwen3VLMoeForConditionalGeneration",
                    "BailingMoeV3VLForConditionalGeneration"} == set(vo.QWEN3_SUBCLASSES)


@settings(max_examples=10)
@given(st.integers(0, 2**32 - 1))
def test_qwen3_subclass_keys_and_buffers_equal_sglang(seed: int) -> None:
    """Qwen3.5 / -MoE, Intern-S1-Pro, Intern-S2, Cosmos3, Qwen4-Exp: SGLang's own constructor
    and config class vs graphfit's plan of the same config.json (towers.subclass_agrees)."""
    case = towers.subclass_case(random.Random(seed))
    with vo.cpu_graphs():
        towers.subclass_agrees(case)


# keys Qwen3-VL's tower reads with no default beyond the sized ones (qwen3_vl.py:380, 387,
# 446, 448, 455, 189): a class config defaults them, Intern-S1-Pro's remote code does not
REMOTE_KEYS = {"num_position_embeddings": 64, "temporal_patch_size": 2, "in_channels": 3,
               "depth": 2, "intermediate_size": 64, "hidden_act": "gelu_pytorch_tanh"}


@pytest.mark.parametrize("model_class", sorted({**vo.QWEN3_SUBCLASSES, **vo.QWEN3_PLAIN}))
def test_every_qwen3_subclass_is_planned_as_sglang_builds_it(model_class: str) -> None:
    """Non-vacuity per class: a config with every key (keys compared > 0), then ones without
    the defaulted keys, or only out_hidden_size (SGLang's class default, or for Intern-S1-Pro's
    remote-code config the refusal by both)."""
    rng = random.Random(3)
    case = towers.subclass_case(rng, model_class)
    full = {"hidden_size": 32, "num_heads": 2, "patch_size": 14, "spatial_merge_size": 1,
            "out_hidden_size": 16, "deepstack_visual_indexes": [0], **REMOTE_KEYS}
    bare = {"hidden_size": 32, "num_heads": 2, "patch_size": 14, **REMOTE_KEYS}
    no_out = {k: v for k, v in full.items() if k != "out_hidden_size"}
    outcomes = []
    # {}: every tower key the class's default (hidden 1152, 16 heads, patch 16, ...: s37v)
    for vision, dp in ((full, False), (bare, True), (no_out, False), ({}, False)):
        config = {**case.config, "vision_config": vision}
        grids = ((1, 2, 4), (2, 4, 2))
        one = towers.SubclassCase(model_class, config, 2, dp, sv.VitWorkload(grids, 2))
        with vo.cpu_graphs():
            outcomes.append(towers.subclass_agrees(one))
    assert outcomes[0] > 0
    for n in outcomes[1:]:
        assert (n == 0) == (model_class in sv.QWEN3_REMOTE_CONFIG)


@pytest.mark.parametrize("model_class", ["InternS1ProForConditionalGeneration",
                                         "Qwen3VLForConditionalGeneration"])
@pytest.mark.parametrize("key", sorted(REMOTE_KEYS))
def test_a_tower_key_without_a_default_is_refused_as_sglang_fails(model_class: str,
                                                                    key: str) -> None:
    """One key the tower reads unconditionally left out: Intern-S1-Pro's remote-code config
    makes SGLang's constructor fail (its AttributeError) and graphfit refuses with one error
    naming the key; plain Qwen3-VL's class default fills it and both plan."""
    vision = {"hidden_size": 32, "num_heads": 2, "patch_size": 14, "spatial_merge_size": 1,
              "out_hidden_size": 16, **{k: v for k, v in REMOTE_KEYS.items() if k != key}}
    config = {"architectures": [model_class], "vision_config": vision,
              "text_config": {"torch_dtype": "bfloat16"}}
    one = towers.SubclassCase(model_class, config, 1, False,
                              sv.VitWorkload(((1, 2, 4),), 1))
    with vo.cpu_graphs():
        compared = towers.subclass_agrees(one)
    assert (compared == 0) == (model_class in sv.QWEN3_REMOTE_CONFIG)


@pytest.mark.parametrize(("drop", "extra", "planned"), [
    (("intermediate_size", "hidden_act"), {"depth": 0}, True),  # no block built: not read
    (("out_hidden_size",), {"disable_merger_proj": True}, False),  # :459 reads it anyway
])
def test_intern_s1_pro_keys_read_only_sometimes(drop: tuple[str, ...], extra: dict[str, Any],
                                                planned: bool) -> None:
    """The edges of Intern-S1-Pro's required keys: the per-block keys with depth 0 (SGLang
    builds no block, graphfit plans), out_hidden_size under disable_merger_proj (the merger
    still reads it: both refuse)."""
    model_class = "InternS1ProForConditionalGeneration"
    vision = {"hidden_size": 32, "num_heads": 2, "patch_size": 14, "spatial_merge_size": 1,
              "out_hidden_size": 16, **REMOTE_KEYS, **extra}
    vision = {k: v for k, v in vision.items() if k not in drop}
    config = {"architectures": [model_class], "vision_config": vision,
              "text_config": {"torch_dtype": "bfloat16"}}
    one = towers.SubclassCase(model_class, config, 1, False,
                              sv.VitWorkload(((1, 2, 4),), 1))
    with vo.cpu_graphs():
        compared = towers.subclass_agrees(one)
    assert (compared > 0) == planned


@pytest.mark.parametrize("model_class", sorted(towers.DEFAULTED_CLASSES))
def test_qwen3_omni_and_bailing_v3_defaults_are_their_config_classes(model_class: str) -> None:
    """Qwen3-Omni MoE (transformers' Qwen3OmniMoeConfig) and Bailing MoE V3 VL (SGLang's
    BailingMoeV3VLConfig): a vision config with every key, with none, none at all, and
    generated ones with keys left out; every tower value graphfit reads is the config
    class's, and SGLang's runner gives graphfit's keys and buffers."""
    grids = sv.VitWorkload(((1, 2, 4), (2, 4, 2)), 2)
    full = {"hidden_size": 32, "num_heads": 2, "patch_size": 14, "spatial_merge_size": 1,
            "out_hidden_size": 16, "deepstack_visual_indexes": [0]}
    nest = towers.DEFAULTED_CLASSES[model_class][2]
    configs: list[dict[str, Any]] = []
    for inner in ({"vision_config": full}, {"vision_config": {}}, {}):
        configs.append(inner if nest is None else {nest: inner})
    if nest is not None:
        configs.append({})  # no thinker_config: the class's default thinker
    compared = []
    with vo.cpu_graphs():
        for body in configs:
            case = towers.SubclassCase(model_class, {"architectures": [model_class], **body},
                                       2, False, grids)
            compared.append(towers.defaulted_agrees(case))
        rng = random.Random(5)
        for _ in range(4):
            compared.append(towers.defaulted_agrees(towers.defaulted_case(rng, model_class)))
    assert all(n > 0 for n in compared), compared


MM2_FULL = {"hidden_size": 32, "num_heads": 2, "patch_size": 14, "spatial_merge_size": 1,
            "out_hidden_size": 16, "deepstack_visual_indexes": [0], "window_size": 28,
            "fullatt_block_indexes": [1]}


def _mm2(model_class: str, body: dict[str, Any], tp: int = 2) -> towers.BailingCase:
    config = {"architectures": [model_class], "model_type": towers.MM2_MODEL_TYPE,
              "llm_config": {"torch_dtype": "bfloat16"}, **body}
    return towers.BailingCase(model_class, config, tp, False,
                              sv.VitWorkload(((1, 2, 4), (2, 4, 2)), 2))


@pytest.mark.parametrize("model_class", sv.BAILING_MM_ARCHITECTURES)
def test_bailing_mm2_config_defaults_are_sglangs(model_class: str) -> None:
    """A config.json of model_type bailingmm_moe_v2_lite is SGLang's BailingMM2Config
    (configs/bailing_moe_v2.py:128-154): loaded by SGLang's own class, the Bailing
    constructor picks the tower from it and SGLang's runner gives the keys and buffers
    graphfit's plan must equal; what SGLang refuses (an audio_config, a Qwen2.5 tower without
    window_size / fullatt_block_indexes, which the Qwen3-VL vision config class lacks)
    graphfit refuses. Planned (keys compared > 0) or refused (0) as listed."""
    qwen2_5 = {"architectures": ["Qwen2_5_VisionTransformer"]}
    bodies: list[tuple[dict[str, Any], bool]] = [
        ({"vision_config": MM2_FULL}, True),  # no tower named: the class's qwen3_vl_moe
        ({"vision_config": {}}, True),  # every key the class's
        ({"vision_config": None}, True),
        ({}, True),
        ({"vision_config": {**MM2_FULL, **qwen2_5}}, True),
        ({"vision_config": {**qwen2_5, "window_size": 64, "fullatt_block_indexes": []}},
         True),  # the Qwen2.5 tower with the Qwen3-VL class's sizes
        ({"vision_config": qwen2_5}, False),  # window_size: AttributeError in SGLang
        ({"vision_config": {k: v for k, v in {**MM2_FULL, **qwen2_5}.items()
                            if k != "fullatt_block_indexes"}}, False),  # the same
        ({"vision_config": {"model_type": "SiglipVisionModel"}}, False),
        ({"vision_config": MM2_FULL, "audio_config": {}}, False),
        ({"vision_config": {"num_attention_heads": 4, "hidden_size": 128}}, True),
    ]
    compared = []
    with vo.cpu_graphs():
        for body, planned in bodies:
            keys = towers.mm2_agrees(_mm2(model_class, body))
            assert (keys > 0) == planned, body
            compared.append(keys)
        rng = random.Random(11)
        for _ in range(6):
            towers.mm2_agrees(towers.mm2_case(rng))
    assert sum(compared) > 0


def test_bailing_mm2_audio_refused_in_one_line(tmp_path: Path) -> None:
    """graphfit's refusal of a BailingMM2Config checkpoint with audio quotes SGLang's reason."""
    (tmp_path / "config.json").write_text(json.dumps(
        _mm2(sv.BAILING_MM_ARCHITECTURES[1], {"audio_config": {}}).config))
    with pytest.raises(ConfigError, match="Audio is not supported by the Bailing SGLang port"):
        read_geometry(tmp_path)
