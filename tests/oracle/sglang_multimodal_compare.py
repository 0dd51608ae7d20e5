"""`graphfit plan` for a multimodal model against SGLang 0.5.23's own code: the prefill runner's
input-embeds and M-RoPE buffers and the decode runner's, per pasted line.

The prefill component is compared by tests/oracle/sglang_plan_prefill.compare on the model
directory (SGLang's ModelConfig of that directory decides `is_multimodal`, the hidden size
and dtype of `input_embeds`, prefill_cuda_graph_runner.py:337, 435-482; every aspect there,
fills included). The decode (target) runner is SGLang's DecodeCudaGraphRunner buffers and
registry (sglang_oracle.runners) built with the same ModelConfig's hidden size and vocabulary,
compared by sglang_compare's buffer and fill checks (input_embeds [tokens, hidden] and
mrope_positions [3, tokens] are allocated for every model, runner/base_runner.py:97-102),
and its capture list against graphfit's decode ladder.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from tests.oracle import sglang_compare as sc
from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_plan_prefill as spp

ASPECTS = (*spp.ASPECTS, "target_ladder", "target_buffers", "fills_target")


def write_cohere2_vision_model_dir(directory: Path) -> Path:
    """A small Command-A-Vision-shaped config.json (HF's Cohere2VisionConfig: a cohere2
    text_config and a SigLIP vision_config). Its architecture is on SGLang's breakable-prefill
    allowlist (configs/model_config.py:2501-2516) and multimodal (:820-828), so SGLang keeps
    its prefill graphs on with the multimodal buffers."""
    directory.mkdir(parents=True, exist_ok=True)
    text = {"model_type": "cohere2", "hidden_size": 2048, "intermediate_size": 6144,
            "num_attention_heads": 16, "num_key_value_heads": 8, "num_hidden_layers": 4,
            "vocab_size": 256000, "max_position_embeddings": 131072, "head_dim": 128,
            "sliding_window": 4096,
            "layer_types": ["sliding_attention"] * 3 + ["full_attention"],
            "torch_dtype": "bfloat16"}
    vision = {"model_type": "siglip_vision_model", "hidden_size": 1152,
              "num_hidden_layers": 27, "intermediate_size": 4304, "num_attention_heads": 16,
              "patch_size": 14, "image_size": 512}
    (directory / "config.json").write_text(json.dumps({
        "architectures": ["Cohere2VisionForConditionalGeneration"],
        "model_type": "cohere2_vision", "text_config": text, "vision_config": vision,
        "torch_dtype": "bfloat16", "image_token_id": 255036, "downsample_factor": 2,
        "alignment_intermediate_size": 4096}))
    return directory


def write_gemma3_model_dir(directory: Path) -> Path:
    """A small Gemma-3-shaped config.json (a gemma3_text text_config and a SigLIP
    vision_config): multimodal by its sub-config, but an architecture SGLang serves text-only
    unless --enable-multimodal (configs/model_config.py:690-702), so its prefill runner holds
    no input_embeds / mrope_positions and keeps its breakable graphs."""
    directory.mkdir(parents=True, exist_ok=True)
    text = {"model_type": "gemma3_text", "hidden_size": 2560, "intermediate_size": 10240,
            "num_attention_heads": 8, "num_key_value_heads": 4, "num_hidden_layers": 4,
            "head_dim": 256, "vocab_size": 262208, "max_position_embeddings": 131072,
            "sliding_window": 1024, "torch_dtype": "bfloat16"}
    vision = {"model_type": "siglip_vision_model", "hidden_size": 1152,
              "num_hidden_layers": 27, "intermediate_size": 4304, "num_attention_heads": 16,
              "patch_size": 14, "image_size": 896}
    (directory / "config.json").write_text(json.dumps({
        "architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3",
        "text_config": text, "vision_config": vision, "torch_dtype": "bfloat16",
        "mm_tokens_per_image": 256}))
    return directory


@functools.lru_cache(maxsize=256)
def model_config(argv: tuple[str, ...], gb: float | None, model: str,
                 capability: tuple[int, int] | None = None) -> Any:
    """SGLang's ModelConfig of the resolved line (None when SGLang rejects it)."""
    r = so.resolve(argv, gpu_mem_gb=gb, model=model, capability=capability)
    if isinstance(r, so.Rejected):
        return None
    from sglang.srt.arg_groups.model_override_base import model_config_of

    with so.published(r):
        return model_config_of(r.record)


def sglang_target(argv: tuple[str, ...], gb: float | None, model: str,
                  capability: tuple[int, int] | None = None) -> sc.SglangAnswer:
    """SGLang's target decode runner for the line on `model` (its hidden size and vocabulary
    from SGLang's ModelConfig of the directory)."""
    r = so.resolve(argv, gpu_mem_gb=gb, model=model, capability=capability)
    if isinstance(r, so.Rejected):
        return sc.SglangAnswer(r, None)
    mc = model_config(argv, gb, model, capability)
    runs = so.runners(r, hidden_size=int(mc.hidden_size), vocab_size=int(mc.vocab_size))
    return sc.SglangAnswer(r, {k: v for k, v in runs.items() if k == "target"})


def compare(argv: tuple[str, ...], gb: float | None, model: str,
            capability: tuple[int, int] | None = None) -> spp.Outcome:
    """The prefill aspects (spp.compare) plus the target decode runner's ladder, buffers and
    fills, for a line on the model directory `model` (SGLang resolving it on a device of
    `capability`, a Hopper unless given)."""
    out = spp.compare(argv, gb, model, capability)
    if not out.compared:
        return out
    sg = sglang_target(argv, gb, model, capability)
    if sg.runners is None or "target" not in sg.runners:
        return out
    plan = spp.graphfit_plan(argv, gb, model)
    gf = sc.GraphfitAnswer(argv, None, plan)
    diffs = dict(out.diffs)
    theirs = tuple(sg.runners["target"].capture_bs)
    if tuple(plan.capture_sizes) != theirs:
        diffs.setdefault("target_ladder", []).append(
            f"SGLang {theirs}, graphfit {tuple(plan.capture_sizes)}")
    for d in (*sc.compare_buffers(sg, gf, extra=True), *sc.compare_fills(sg, gf)):
        aspect = "fills_target" if d.aspect == "fills" else d.aspect
        diffs.setdefault(aspect, []).append(str(d))
    out.diffs = diffs
    return out
