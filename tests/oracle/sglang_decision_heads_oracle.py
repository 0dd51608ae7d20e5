"""Qwen3.5 decision checkpoints and Clef / Kev heads (SGLang 0.5.23's configs/model_config.py:
263-293, 636-656; arg_groups/model_hook.py:206-221, 990-1021) beside graphfit's CLI (issue 23,
s70a; not a test). The targets are the Qwen3.5 config of tests.oracle.sglang_mamba_memory_oracle
with one class named and the side files SGLang's ModelConfig looks for: decision_config.json
(noncausal, causal, an unknown version / mode / pooling), joint_head_config.json (Clef, also
behind a decision backbone), head.pt (Kev), and the same classes without them. SGLang: its
resolution then its whole `check_server_args` (tests.oracle.sglang_lora_runner_oracle.sglang);
graphfit: its CLI (tests.oracle.sglang_server_args_oracle.compare)."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

from tests.oracle import sglang_chunk_off_hooks_oracle as hooks
from tests.oracle.sglang_mamba_memory_oracle import QWEN35_VL_CONFIG

NONCAUSAL = {"format_version": 1, "attention_mode": "noncausal_full_attention"}
# name: (architecture, text-only config.json, side files)
TARGETS: dict[str, tuple[str, bool, dict[str, Any]]] = {
    "decision_nc": ("Qwen3_5Model", False, {"decision_config.json": NONCAUSAL}),
    "decision": ("Qwen3_5Model", False, {"decision_config.json": {"format_version": 1}}),
    "decision_v2": ("Qwen3_5Model", False, {"decision_config.json": {"format_version": 2}}),
    "decision_mode": ("Qwen3_5Model", False, {"decision_config.json": {
        "format_version": 1, "attention_mode": "bidirectional"}}),
    "decision_pool": ("Qwen3_5Model", False, {"decision_config.json": {
        "format_version": 1, "pooling": "mean"}}),
    "backbone": ("Qwen3_5Model", False, {}),
    "clef": ("Qwen3_5ForConditionalGeneration", False, {"joint_head_config.json": {}}),
    "clef_decision": ("Qwen3_5Model", False, {"joint_head_config.json": {},
                                              "decision_config.json": NONCAUSAL}),
    "kev": ("Qwen3_5TextModel", True, {"head.pt": {"head_dim": 256}}),
    "kev_no_head": ("Qwen3_5TextModel", True, {}),
    # head.pt's refused switches beside a weight tensor (configs/model_config.py:342-344)
    "kev_isolated": ("Qwen3_5TextModel", True, {"head.pt": {"option_isolation": True,
                                                            "weight": "tensor"}}),
    "kev_special": ("Qwen3_5TextModel", True, {"head.pt": {"special_embeddings": True}}),
    "qwen35": ("Qwen3_5ForConditionalGeneration", False, {}),
}
# the hooks' models: SGLang starts the chunk-off lines on them (hooks.PAGE, hooks.PDMUX)
OFF = ("decision_nc", "clef", "clef_decision", "kev")
TP2 = ("--tp-size", "2")


def targets(root: Path) -> dict[str, Path]:
    """Each TARGETS checkpoint folder under `root`."""
    import torch

    out = {}
    for name, (arch, text_only, files) in TARGETS.items():
        folder = root / name
        folder.mkdir(parents=True, exist_ok=True)
        config = copy.deepcopy(QWEN35_VL_CONFIG)
        config = ({**config["text_config"]} if text_only else config) | {
            "architectures": [arch]}
        (folder / "config.json").write_text(json.dumps(config))
        for file, body in files.items():
            if file.endswith(".pt"):
                torch.save({k: torch.zeros(2, 2) if v == "tensor" else v
                            for k, v in body.items()}, folder / file)
            else:
                (folder / file).write_text(json.dumps(body))
        out[name] = folder
    return out


def draw(rng: random.Random) -> tuple[str, tuple[str, ...]]:
    """(target name, one line after --model-path): tests.oracle.sglang_chunk_off_hooks_oracle's
    chunk / page / attention DP / PD multiplexing line, with a TP or PP size now and then."""
    name = rng.choice(sorted(TARGETS))
    line = list(hooks.draw(rng)[1])
    if "--tp-size" not in line and rng.random() < 0.2:
        line += list(TP2)
    if rng.random() < 0.15:
        line += ["--pp-size", "2"]
    return name, tuple(line)


def draw_file(rng: random.Random) -> tuple[str, dict[str, object]]:
    """(a tests.oracle.sglang_chunk_off_hooks_oracle target, a config file's keys): the
    multimodal switch (false, true or absent), `language_model_only`, PD multiplexing and the
    overlap schedule (no page: graphfit's file side names no GPU)."""
    name = rng.choice(sorted([*hooks.TARGETS, "dense"]))
    data: dict[str, object] = {}
    switch = rng.choice((False, True, None))
    if switch is not None:
        data["enable_multimodal"] = switch
    if rng.random() < 0.2:
        data["language_model_only"] = True
    if rng.random() < 0.7:
        data["enable_pdmux"] = True
    if rng.random() < 0.7:
        data["disable_overlap_schedule"] = True
    return name, data
