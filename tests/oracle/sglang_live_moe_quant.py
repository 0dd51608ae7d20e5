"""The live check on a quantized MoE checkpoint against SGLang 0.5.23 (issue 23, s64c): the
comparison of tests.oracle.sglang_live_quant (s63c, Llama checkpoints) on a Qwen3-MoE and a
DeepSeek-V3 config.json, whose model-class overrides copy the checkpoint's method into
`--quantization` on SM100 (arg_groups/model_overrides/qwen3_moe.py:38-50, the DeepSeek
family's post-process, arg_groups/overrides.py:763-812).

One case is (architecture, config.json quantization_config layout, `--quantization` flag,
GPU). SGLang's answer: the class's own override functions on the flag and layout
(tests.oracle.sglang_model_quant_oracle.resolve, on the fake SM100 platform for B200 and the
SM90 one for H100), then its ModelConfig and model loader on the flag they leave
(tests.oracle.sglang_quant_capability_oracle.load on that GPU's capability). A case where
SGLang reads the checkpoint's weights (DeepSeek-V3 with no quant_method on SM100) is not
judged. graphfit's answer: `graphfit.integrations.sglang.from_sglang` on a ServerArgs-like
record naming the directory and the flag as given, planned on that GPU.
"""

from __future__ import annotations

import functools
import json
import random
import tempfile
import types
from pathlib import Path
from typing import Any

from graphfit.inputs.gpus import gpu_capability
from tests.oracle import sglang_live_quant as lq
from tests.oracle import sglang_model_quant_oracle as mo
from tests.oracle import sglang_quant_capability_oracle as co
from tests.oracle import sglang_quantization_oracle as qo

_QWEN3_MOE = {"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe",
              "hidden_size": 1024, "intermediate_size": 2816, "moe_intermediate_size": 256,
              "num_experts": 16, "num_experts_per_tok": 2, "num_hidden_layers": 4,
              "num_attention_heads": 16, "num_key_value_heads": 4, "head_dim": 64,
              "vocab_size": 32000, "max_position_embeddings": 4096,
              "torch_dtype": "bfloat16", "decoder_sparse_step": 1, "mlp_only_layers": []}
_DEEPSEEK_V3 = {"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3",
                "hidden_size": 1024, "intermediate_size": 2816, "moe_intermediate_size": 256,
                "n_routed_experts": 16, "n_shared_experts": 1, "num_experts_per_tok": 2,
                "num_hidden_layers": 4, "first_k_dense_replace": 1, "num_attention_heads": 16,
                "num_key_value_heads": 16, "kv_lora_rank": 512, "q_lora_rank": 1536,
                "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
                "vocab_size": 32000, "n_group": 1, "topk_group": 1,
                "max_position_embeddings": 4096, "torch_dtype": "bfloat16"}
CONFIGS = {"Qwen3MoeForCausalLM": _QWEN3_MOE, "DeepseekV3ForCausalLM": _DEEPSEEK_V3}
ARCHS = tuple(CONFIGS)
GPUS = ("H100", "B200")  # the override oracle's two platforms (SM90, SM100)
FLAGS = lq.FLAGS
LAYOUTS = lq.LAYOUTS
Case = tuple[str, "str | None", "str | None", str]  # (architecture, layout, flag, GPU)
WEIGHTS = "not judged: SGLang reads the weights"


@functools.cache
def folder(arch: str, layout: str | None) -> str:
    """A small checkpoint directory of the class whose config.json carries the layout."""
    root = Path(tempfile.mkdtemp(prefix="graphfit-live-moe-"))
    config: dict[str, Any] = dict(CONFIGS[arch])
    if layout is not None:
        config["quantization_config"] = qo.LAYOUTS[layout]
    (root / "config.json").write_text(json.dumps(config))
    return str(root)


def cases(count: int, seed: int) -> list[Case]:
    """`count` distinct drawn cases."""
    rng = random.Random(seed)
    every = [(a, lay, f, g) for a in ARCHS for lay in LAYOUTS for f in FLAGS for g in GPUS]
    return rng.sample(every, min(count, len(every)))


def sglang(case: Case) -> str:
    """"passed", "refused: <stage>", or WEIGHTS, as SGLang answers the case."""
    arch, layout, flag, gpu = case
    cap = gpu_capability(gpu)
    assert cap is not None
    written = None if layout is None else qo.LAYOUTS[layout]
    state, quant, _ = mo.resolve(arch, flag, written, cap >= 100,
                                 model_dir=folder(arch, layout))
    if state == "weights":
        return WEIGHTS
    if state != "ok":
        return f"refused: override ({state})"
    answer = co.load(quant, written, cap, folder(arch, layout), architecture=arch)
    if co.dtype_refused(answer):
        return "refused: dtype"
    return "passed" if answer.stage in ("passed", "none") else f"refused: {answer.stage}"


def record(case: Case) -> Any:
    """A ServerArgs-like record of the case (tp 4, as the override oracle's arguments)."""
    arch, layout, flag, _ = case
    return types.SimpleNamespace(model_path=folder(arch, layout), quantization=flag,
                                 max_running_requests=16, tp_size=4)


def live(case: Case) -> str:
    """"passed" or "refused: <graphfit's error>" for the live check of the case, with the
    functions of whichever graphfit is imported (main's for the measure's "before")."""
    from graphfit.integrations.sglang import from_sglang
    from graphfit.planner.core.errors import GraphfitError
    from graphfit.planner.plan import plan

    try:
        plan(from_sglang(record(case), environ={}, gpu_memory_gb=case[3]))
    except GraphfitError as exc:
        return f"refused: {exc}"[:200]
    return "passed"


def agree(theirs: str, ours: str) -> bool:
    return theirs.startswith("refused") == ours.startswith("refused")
