"""SGLang 0.5.23's model hooks that turn chunked prefill off (arg_groups/model_hook.py:
768-781, 848-887, 1024-1032), as `check_server_args` reads the chunk (validation_hook.py:
243-262), beside graphfit's CLI (issue 23, s69a; not a test). The targets are small
config.json files SGLang's ModelConfig loads: HRM-Text with and without `prefix_lm`,
EmbeddingGemma2, EmbeddingGemma (gemma3_text with bidirectional attention) and a plain
gemma3_text, three of the six multimodal classes and a LLaVA one served `language_model_only`,
and the oracle's dense Llama. SGLang: its resolution then its whole `check_server_args`
(tests.oracle.sglang_lora_runner_oracle.sglang); graphfit: its CLI
(tests.oracle.sglang_server_args_oracle.compare)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_stubs

GEMMA3 = {"head_dim": 128, "query_pre_attn_scalar": 128, "sliding_window": 512}
# name: (architecture, model_type, extra config.json keys)
TARGETS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "hrm": ("HrmTextForCausalLM", "hrm_text", {}),  # prefix_lm defaults to True: off
    "hrm_causal": ("HrmTextForCausalLM", "hrm_text", {"prefix_lm": False}),  # chunk kept
    "egemma2": ("EmbeddingGemma2Model", "gemma2", {}),
    "egemma": ("Gemma3TextModel", "gemma3_text", {**GEMMA3,
                                                  "use_bidirectional_attention": True}),
    "gemma3": ("Gemma3TextModel", "gemma3_text", GEMMA3),  # causal: chunk kept
    "llava": ("LlavaLlamaForCausalLM", "llava", {}),
    "llava_lm": ("LlavaLlamaForCausalLM", "llava", {"language_model_only": True}),  # kept
    "mllama": ("MllamaForConditionalGeneration", "mllama", {}),
    "clip": ("CLIPModel", "clip", {}),
}
PAGE = ("--page-size", "64", "--chunked-prefill-size", "96")
PDMUX = ("--enable-pdmux", "--disable-overlap-schedule")


def targets(root: Path) -> dict[str, Path]:
    """Each TARGETS config.json (Llama-3-8B shapes otherwise), and the oracle's "dense"."""
    out = {"dense": so.oracle().model_dir}
    for name, (arch, model_type, extra) in TARGETS.items():
        d = sglang_stubs.write_model_dir(root / name, arch)
        data = json.loads((d / "config.json").read_text())
        (d / "config.json").write_text(json.dumps(data | {"model_type": model_type} | extra))
        out[name] = d
    return out


def draw(rng: random.Random) -> tuple[str, tuple[str, ...]]:
    """(target name, one line after --model-path): the chunk (given, off or the default),
    the page, attention DP, PD multiplexing and the overlap schedule, a decode role."""
    name = rng.choice(sorted([*TARGETS, "dense"]))
    out: list[str] = []
    if rng.random() < 0.4:
        out += ["--tp-size", "2", "--attn-dp-size", "2"]
    if rng.random() < 0.7:
        out += ["--page-size", str(rng.choice((1, 16, 64)))]
    if rng.random() < 0.7:
        out += ["--chunked-prefill-size", str(rng.choice((96, 128, 4096, -1, 0)))]
    if rng.random() < 0.5:
        out.append("--enable-pdmux")
    if rng.random() < 0.6:
        out.append("--disable-overlap-schedule")
    if rng.random() < 0.1:
        out += ["--disaggregation-mode", "decode"]
    return name, tuple(out)
