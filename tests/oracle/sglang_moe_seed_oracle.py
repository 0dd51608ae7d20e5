"""SGLang 0.5.23's own answer on whether a target config seeds the MoE runner flags (issue
23, s70h; not a test): `Scheduler.init_moe_gemm_config` (managers/scheduler.py:991-1012) on
the text config its ModelConfig reads (`get_config`, then `get_hf_text_config`,
utils/hf_transformers/common.py:547; configs/model_config.py:619-636), with
`initialize_moe_config` replaced by a recorder. Its test is `hasattr` on the transformers
config, which reads the class's declared defaults: Gemma4TextConfig declares
`top_k_experts` (transformers 5.25, models/gemma4/configuration_gemma4.py:177), so a dense
Gemma 4 config.json without the key is still seeded. graphfit's side is
graphfit.inputs.sglang_a2a.dense_model (its negation)."""

from __future__ import annotations

import json
import random
import shutil
import tempfile
import types
from pathlib import Path
from typing import Any

from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_stubs

# (model_type, architecture, nested text_config model_type or None)
KINDS = (("gemma4", "Gemma4ForConditionalGeneration", "gemma4_text"),
         ("gemma4", "Gemma4ForConditionalGeneration", None),
         ("gemma4_unified", "Gemma4UnifiedForConditionalGeneration", None),
         ("llama", "LlamaForCausalLM", None),
         ("qwen3", "Qwen3ForCausalLM", None))
# what init_moe_gemm_config calls besides initialize_moe_config (scheduler.py:1011-1016)
OTHERS = ("initialize_fp8_gemm_config", "initialize_fp4_gemm_config",
          "initialize_bf16_gemm_config", "require_mlp_sync")
SHAPE = {"hidden_size": 64, "intermediate_size": 128, "num_attention_heads": 4,
         "num_key_value_heads": 2, "num_hidden_layers": 2, "vocab_size": 256,
         "head_dim": 16}


def model_dir(kind: tuple[str, str, str | None], topk: bool) -> Path:
    """A config.json of `kind` (KINDS), its text config with `top_k_experts` (and the MoE
    fields) where `topk`, else none of the per-token expert keys."""
    model_type, arch, nested = kind
    text: dict[str, Any] = {**SHAPE, **({"enable_moe_block": True, "num_experts": 8,
                                          "top_k_experts": 2, "moe_intermediate_size": 64}
                                        if topk else {})}
    data: dict[str, Any] = {"architectures": [arch], "model_type": model_type}
    if model_type.startswith("gemma4"):
        data["text_config"] = {**text, **({"model_type": nested} if nested else {})}
    else:
        data.update(text)
    root = Path(tempfile.mkdtemp(prefix="graphfit-moe-seed-"))
    (root / "config.json").write_text(json.dumps(data))
    return root


def seeds(model: Path) -> bool:
    """Whether SGLang's scheduler seeds the MoE runner flags for `model` (module docstring)."""
    so.oracle()
    calls: list[bool] = []
    with sglang_stubs.stubbed(), sglang_stubs.fake_cuda():
        from sglang.srt.managers import scheduler as sched
        from sglang.srt.utils.hf_transformers.common import get_hf_text_config
        from sglang.srt.utils.hf_transformers_utils import get_config

        config = get_config(str(model), trust_remote_code=False)
        saved = [(name, getattr(sched, name)) for name in (*OTHERS, "initialize_moe_config")]
        for name in OTHERS:  # the GEMM configs and the MLP sync read published bags
            setattr(sched, name, lambda: None)
        sched.initialize_moe_config = lambda: calls.append(True)  # type: ignore[attr-defined]
        try:
            me = types.SimpleNamespace(model_config=types.SimpleNamespace(
                hf_text_config=get_hf_text_config(config)))
            sched.Scheduler.init_moe_gemm_config(me)
        finally:
            for name, value in saved:
                setattr(sched, name, value)
    return bool(calls)


def draw(rng: random.Random) -> tuple[tuple[str, str, str | None], bool]:
    """One drawn (kind, top-k present) pair."""
    return rng.choice(KINDS), rng.random() < 0.4


def draw_words(rng: random.Random) -> tuple[str, ...]:
    """`draw` as words (model_type, architecture, nested model_type or "", "topk" or "")
    for measure_sglang_moe_seed."""
    (model_type, arch, nested), topk = draw(rng)
    return model_type, arch, nested or "", "topk" if topk else ""


def verdict(words: tuple[str, ...]) -> tuple[str, str | None]:
    """("agree" / "differ", the detail) for `draw_words`' words: SGLang seeds the MoE flags
    exactly where graphfit's dense_model says not dense."""
    from graphfit.inputs.sglang_a2a import dense_model

    model = model_dir((words[0], words[1], words[2] or None), words[3] == "topk")
    seeded, dense = seeds(model), dense_model(str(model))
    if seeded != dense:
        return "agree", None
    return "differ", f"{words}: SGLang seeds {seeded}, graphfit dense {dense}"


def gemma4_dense_target(llama: Path) -> Path:
    """A dense Gemma 4 target beside the oracle's dense Llama target directory: its files,
    its config.json nested as a `gemma4` config's `gemma4_text` text config (no MoE
    fields), for the draft oracle (tests.oracle.sglang_draft_deepep_oracle.answers)."""
    root = llama.parent / "gemma4-dense"
    if not root.exists():
        shutil.copytree(llama, root)
        data = json.loads((root / "config.json").read_text())
        text = {k: v for k, v in data.items() if k not in ("architectures", "model_type")}
        (root / "config.json").write_text(json.dumps({
            "architectures": ["Gemma4ForConditionalGeneration"], "model_type": "gemma4",
            "text_config": {**text, "model_type": "gemma4_text"}}))
    return root


__all__ = ["KINDS", "draw", "draw_words", "gemma4_dense_target", "model_dir", "seeds", "verdict"]
