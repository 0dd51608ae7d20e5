"""`--json-model-override-args` on the TARGET model: SGLang 0.5.23's own resolve vs graphfit.

SGLang side: `so.resolve` of the line (its real `prepare_server_args` + `resolve_once`, which
builds the target `ModelConfig` with the override args applied, configs/model_config.py:
612-626 -> utils/hf_transformers/config.py:405-424), then what it resolved from that config:
the model facts graphfit sizes buffers with (`ModelConfig.hidden_size`, `.vocab_size`,
`.context_len`, `.num_hidden_layers`, `hf_config.architectures[0]`, `model_config_of`,
arg_groups/model_override_base.py:192) and the architecture-dependent defaults of the
multi-layer EAGLE line (the draft-extend backend and its graph count,
tests/oracle/sglang_mtp_oracle.default_case: the model overrides, attention defaults and
`_capture_cuda_graphs` run on the overridden config).

graphfit side: the same pasted line through `build_config` (the merge `graphfit plan` runs)
and `plan`. The override draws move what graphfit reads from config.json: the architecture
(among the Llama-shaped ones whose model overrides pick another backend), widths, vocabulary,
length, layers, learned sinks, a narrower V head, `rope_scaling` merged into the written one.
"""

from __future__ import annotations

import json
import random
import tempfile
from collections.abc import Mapping
from functools import cache
from typing import Any

from tests.oracle import sglang_mtp_oracle as mo
from tests.oracle import sglang_oracle as so

# Llama-shaped directories (sglang_mtp_oracle.model_dirs / override_model_dirs) the draws
# start from, and architectures a Llama-shaped config loads under in SGLang
BASES = ("llama", "sinks", "asym", "olmo2", "GptOssForCausalLM", "Llama4ForCausalLM",
         "MiniCPMForCausalLM")
ARCHITECTURES = ("LlamaForCausalLM", "Olmo2ForCausalLM", "GptOssForCausalLM",
                 "Llama4ForCausalLM", "MiniCPMForCausalLM", "Gemma4ForCausalLM",
                 "IQuestQ1ForCausalLM", "MistralForCausalLM", "Qwen2ForCausalLM")
GPUS = ("A100", "H100", "B200", "RTX5090")


@cache
def dirs() -> dict[str, str]:
    """The model directories (BASES among them), written once per process."""
    root = tempfile.mkdtemp(prefix="graphfit-target-overrides-")
    out = mo.model_dirs(root)
    out.update(mo.override_model_dirs(root))
    return out


def draw_overrides(rng: random.Random) -> dict[str, Any]:
    """One override object: 1-3 keys, in a drawn order."""
    pool: list[tuple[str, Any]] = [
        ("architectures", [rng.choice(ARCHITECTURES)]),
        ("hidden_size", rng.choice((1024, 2048, 4096, 5120))),
        ("vocab_size", rng.choice((32000, 151936, 262144))),
        ("max_position_embeddings", rng.choice((2048, 8192, 32768, 262144))),
        ("num_hidden_layers", rng.choice((2, 4, 16))),
        ("learnable_sink", rng.choice((True, False))),
        ("v_head_dim", rng.choice((64, 128))),
        ("rope_scaling", {"factor": 2.0, "rope_type": "linear"}),
    ]
    picked = rng.sample(pool, rng.randint(1, 3))
    return dict(picked)


def line(overrides: Mapping[str, Any], topk: int) -> tuple[str, ...]:
    """A multi-layer EAGLE line naming no backend (its default depends on the architecture
    and the config's facts) with the override args."""
    return ("--max-running-requests", "33", "--speculative-algorithm", "EAGLE",
            "--speculative-num-steps", "3", "--speculative-num-draft-tokens", "4",
            "--enable-multi-layer-eagle", "--speculative-eagle-topk", str(topk),
            "--json-model-override-args", json.dumps(overrides))


def sglang_facts(argv: tuple[str, ...], model: str, gpu: str) -> dict[str, Any] | str:
    """SGLang's model facts for the line (its ModelConfig on the overridden config), or its
    refusal."""
    from graphfit.inputs.gpus import GPU_MEMORY_GB

    so.oracle()
    r = so.resolve(argv, gpu_mem_gb=GPU_MEMORY_GB[gpu], model=model,
                   capability=mo.CAPABILITIES[gpu])
    if not isinstance(r, so.Resolved):
        return r.text
    from sglang.srt.arg_groups.model_override_base import model_config_of

    mc = model_config_of(r.record)
    return {"architecture": mc.hf_config.architectures[0], "hidden_size": mc.hidden_size,
            "vocab_size": mc.vocab_size, "max_model_len": mc.context_len}


def graphfit_facts(argv: tuple[str, ...], model: str, gpu: str) -> dict[str, Any] | str:
    """graphfit's reading of the same line (build_config), or its error."""
    from graphfit.cli.options import build_config
    from graphfit.planner.core.errors import GraphfitError

    try:
        config = build_config({"gpu_memory_gb": gpu}, environ={}, pasted=[
            "python", "-m", "sglang.launch_server", "--model-path", model, *argv])
    except GraphfitError as exc:
        return str(exc)
    return {"architecture": config.architecture, "hidden_size": config.hidden_size,
            "vocab_size": config.vocab_size, "max_model_len": config.max_model_len}


def facts_verdict(argv: tuple[str, ...], model: str, gpu: str) -> str:
    """"agree" / "refused" (both) / "differ: ..." on the model facts."""
    sg, gf = sglang_facts(argv, model, gpu), graphfit_facts(argv, model, gpu)
    if isinstance(sg, str) or isinstance(gf, str):
        if isinstance(sg, str) and isinstance(gf, str):
            return "refused"
        return f"differ: SGLang {str(sg)[:120]}, graphfit {str(gf)[:120]}"
    # the length too on rope_scaling lines: graphfit reads SGLang's context length
    # (graphfit.inputs.sglang_context_length, get_context_length's RoPE factor)
    diff = {k: (sg[k], gf[k]) for k in sg if sg[k] != gf[k]}
    return "agree" if not diff else f"differ: (SGLang, graphfit) {diff}"


def default_verdict(argv: tuple[str, ...], model: str, gpu: str) -> str:
    """The architecture-dependent default (multi-layer EAGLE's draft-extend backend and
    graph count): tests.oracle.test_sglang_mtp_oracle.default_verdict on this line."""
    from tests.oracle import test_sglang_mtp_oracle as t

    return t.default_verdict(argv, gpu, model, None)


def case(rng: random.Random) -> tuple[str, str, tuple[str, ...]]:
    """(gpu, base directory name, line) drawn from `rng`."""
    base = rng.choice(BASES)
    return rng.choice(GPUS), base, line(draw_overrides(rng), rng.choice((1, 2)))


# (model_type, architecture, dict-valued keys) whose override SUB_CASES draws: sub-configs
# of their class (merged by SGLang) and plain dict attributes (replaced)
SUB_CASES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("qwen3_omni_moe", "Qwen3OmniMoeForConditionalGeneration",
     ("thinker_config", "talker_config", "code2wav_config")),
    ("qwen2_5_omni", "Qwen2_5OmniModel", ("thinker_config", "talker_config",
                                          "token2wav_config")),
    ("bailingmm_moe_v2_lite", "BailingMoeV2ForCausalLM", ("llm_config",)),
    ("deepseek_vl_v2", "DeepseekVL2ForCausalLM", ("language_config", "projector_config")),
    ("llama", "LlamaForCausalLM", ("quantization_config", "linear_attn_config")),
)


def sub_case(rng: random.Random) -> tuple[dict[str, Any], dict[str, Any], str]:
    """(config.json object, override object, the dict-valued key drawn)."""
    kind, arch, keys = rng.choice(SUB_CASES)
    key = rng.choice(keys)
    written = {name: rng.choice((1, 2, 3)) for name in rng.sample(("a", "b", "c", "d"), 2)}
    override = {name: rng.choice((7, 8)) for name in rng.sample(("a", "b", "c", "d"), 2)}
    return {"model_type": kind, "architectures": [arch], key: written}, {key: override}, key


def sub_verdict(config: dict[str, Any], overrides: dict[str, Any], key: str) -> str:
    """The drawn key's a/b/c/d after the override: SGLang's get_config (its sub-config's
    attributes, or the dict) vs graphfit's loader under the same override text."""
    from pathlib import Path

    from graphfit.inputs import model_config, target_overrides
    from tests.oracle import sglang_stubs as ss

    so.oracle()
    with tempfile.TemporaryDirectory(prefix="graphfit-sub-config-") as root:
        path = Path(root) / "config.json"
        path.write_text(json.dumps(config))
        with ss.fake_cuda():
            from sglang.srt.utils.hf_transformers.config import get_config

            value = getattr(get_config(root, trust_remote_code=False,
                                       model_override_args=overrides), key, None)
        sg = {k: (value.get(k) if isinstance(value, dict) else getattr(value, k, None))
              for k in "abcd"}
        with target_overrides.applied(path, json.dumps(overrides)):
            data = model_config.load_config(path).get(key)
        gf = {k: data.get(k) if isinstance(data, dict) else None for k in "abcd"}
    return "agree" if sg == gf else f"differ: {key} SGLang {sg}, graphfit {gf}"
