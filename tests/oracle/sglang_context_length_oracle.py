"""SGLang's context length (ModelConfig.context_len) vs graphfit's max_model_len on SGLang lines.

SGLang side: `so.resolve` of the line on a generated config.json (its real
`prepare_server_args` + `resolve_once` build the target `ModelConfig`, whose
`_derive_context_length`, configs/model_config.py:1291-1329, calls `get_context_length`,
utils/hf_transformers/common.py:677-700, on the config transformers loaded), read back as
`model_config_of(record).context_len`, or its refusal.
graphfit side: the same pasted line (its environment assignments included) through
`build_config`, read as `max_model_len`, or its error.

Draws: which of SGLang's length keys the file writes (one or several, with values that make
the first-key and smallest-key rules differ), the RoPE dict (none, linear / dynamic / yarn /
longrope / llama3 / default under `rope_type` or `type`, integer or fractional factors, with or
without original_max_position_embeddings; written, or given by --json-model-override-args),
a `--context-length` at, below or above the derived length, and the environment variable
that allows a longer one. Issue 23 (s37c): a file with NO length key under a drawn
`model_type` (one graphfit knows the class default of, BLOOM's class without one, or a class
graphfit does not know: graphfit then asks for --context-length), the GPT-2 family's
`n_positions` spelling of max_position_embeddings (transformers' attribute_map), and a local
draft model whose derived length is below the target's (`draft_verdict`). Issue 23 (s41c): a
`rope_theta` inside the drawn dict now and then (graphfit.inputs.sglang_own_rope), and
the llm_config / language_config classes (graphfit.inputs.sglang_sub_configs).
"""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path
from typing import Any

from tests.oracle import sglang_oracle as so
from tests.oracle.environ_patch import patched_environ as environment  # SGLang reads os.environ

LENGTH_KEYS = ("max_sequence_length", "seq_length", "max_seq_len", "model_max_length",
               "max_position_embeddings")
TYPES = ("linear", "dynamic", "yarn", "longrope", "llama3", "default")
ALLOW = "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN"
BASE = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
        "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8,
        "num_hidden_layers": 32, "vocab_size": 128256, "rms_norm_eps": 1e-5,
        "rope_theta": 500000.0, "torch_dtype": "bfloat16", "hidden_act": "silu",
        "tie_word_embeddings": False}


# model types drawn for a file with no length key: classes whose default graphfit restates,
# BLOOM (no length default: get_context_length's 2048) and classes graphfit does not know
KNOWN_TYPES = ("llama", "mistral", "qwen2", "qwen3", "gemma2", "granite", "falcon",
               "deepseek_v3", "gpt2", "gptj", "gpt_bigcode", "olmoe", "glm4_moe",
               "starcoder2", "cohere",
               # SGLang's own config classes (issue 23, s39c): graphfit.inputs.
               # sglang_class_lengths.OWN_CLASS_KEYS / NO_LENGTH_CLASSES
               "qwen3_next", "nemotron_h", "olmo3", "kimi_linear", "chatglm", "dbrx",
               "step3p5", "mamba", "hy_v4",
               # transformers' XGLMConfig, restated since issue 23 s45l
               "xglm")
UNKNOWN_TYPES = ("biogpt",)
# SGLang's own multimodal classes (issue 23, s40c): graphfit.inputs.sglang_class_lengths.
# TEXT_CLASS_KEYS; the generator writes their text keys top-level or nested in text_config
MULTIMODAL_TYPES = ("qwen3_5", "qwen3_5_moe", "qwen4_exp", "interns2_mobius", "step3_vl",
                    "step3p7", "kimi_vl", "locateanything", "intern_s2_preview")
# SGLang's own llm_config / language_config classes (issue 23, s41c): graphfit.inputs.
# sglang_sub_configs; the generator nests their text keys there half the time (Dots-VLM
# reads the top level), InternVL's under a drawn architecture
SUB_CONFIG_TYPES = {"internvl_chat": "llm_config", "multi_modality": "language_config",
                    "deepseek_vl_v2": "language_config", "bailingmm_moe_v2_lite": "llm_config",
                    "dots_vlm": None, "minimax_m3_vl": "text_config"}
INTERNVL_ARCHITECTURES = ("LlamaForCausalLM", "InternLM2ForCausalLM", "Qwen2ForCausalLM",
                          "Qwen3MoeForCausalLM", "Qwen3ForCausalLM", "GptOssForCausalLM",
                          "MistralForCausalLM")  # the last one refused (internvl.py:322-325)
_TEXT_KEYS = ("hidden_size", "intermediate_size", "num_attention_heads", "num_key_value_heads",
              "num_hidden_layers", "vocab_size", "rms_norm_eps", "rope_theta", "hidden_act")
ALIASED = ("gpt2", "gptj", "gpt_bigcode")  # max_position_embeddings -> n_positions
ASKED = "--context-length"  # graphfit's question names the flag


def draw_rope(rng: random.Random) -> dict[str, Any] | None:
    """A RoPE scaling dict (None: no rope_scaling)."""
    if rng.random() < 0.2:
        return None
    kind = rng.choice(TYPES)
    rope: dict[str, Any] = {rng.choice(("rope_type", "type")): kind,
                            "factor": rng.choice((2, 2.0, 4.0, 1.5, 2.5, 8.0))}
    if kind == "llama3":
        rope.update(low_freq_factor=1.0, high_freq_factor=4.0)
    if kind == "longrope":
        rope.update(short_factor=[1.0] * 64, long_factor=[2.0] * 64)
    if kind == "llama3" or rng.random() < 0.3:
        rope["original_max_position_embeddings"] = rng.choice((2048, 4096, 8192))
    if rng.random() < 0.1:  # in the dict: llama3's validation and HY-V4 read it (s41c)
        rope["rope_theta"] = 1000000.0
    return rope


def case(rng: random.Random, root: str) -> tuple[str, tuple[str, ...], dict[str, str]]:
    """(model directory, flags, environment) for one generated line."""
    config = dict(BASE)
    keys = rng.sample(LENGTH_KEYS, rng.randint(1, 3)) if rng.random() < 0.7 else []
    if rng.random() < 0.4 or not keys:
        config["model_type"] = rng.choice(KNOWN_TYPES + UNKNOWN_TYPES + MULTIMODAL_TYPES
                                          + tuple(SUB_CONFIG_TYPES))
    for key in keys:
        config[key] = rng.choice((2048, 4096, 8192, 32768, 131072))
    if config["model_type"] in ALIASED and rng.random() < 0.5:
        config["n_positions"] = rng.choice((2048, 16384))
    rope = draw_rope(rng)
    argv: list[str] = []
    name = rng.choice(("rope_scaling", "rope_scaling", "rope_parameters"))
    if rope is not None and rng.random() < 0.3:
        argv += ["--json-model-override-args", json.dumps({name: rope})]
    elif rope is not None:
        config[name] = rope
    if config["model_type"] in MULTIMODAL_TYPES and rng.random() < 0.5:
        moved = set(_TEXT_KEYS) | set(LENGTH_KEYS) | {"rope_scaling", "rope_parameters"}
        config["text_config"] = {k: config.pop(k) for k in list(config) if k in moved}
    nest = SUB_CONFIG_TYPES.get(config["model_type"])
    if nest is not None and rng.random() < 0.5:
        moved = set(_TEXT_KEYS) | set(LENGTH_KEYS) | {"rope_scaling", "rope_parameters"}
        config[nest] = {k: config.pop(k) for k in list(config) if k in moved}
        if config["model_type"] == "internvl_chat" and rng.random() < 0.9:
            config[nest]["architectures"] = [rng.choice(INTERNVL_ARCHITECTURES)]
    directory = Path(tempfile.mkdtemp(dir=root))
    (directory / "config.json").write_text(json.dumps(config))
    env: dict[str, str] = {}
    if rng.random() < 0.4:  # the request pool then follows the context length
        argv += ["--max-total-tokens", str(rng.choice((100000, 400000, 1500000)))]
    if rng.random() < 0.35:
        argv += ["--context-length", str(rng.choice((1024, 8192, 65536, 262144, 1048576)))]
        if rng.random() < 0.4:
            env[ALLOW] = rng.choice(("1", "true", "0", "maybe"))
    return str(directory), tuple(argv), env


def sglang_length(model: str, argv: tuple[str, ...], env: dict[str, str]) -> int | str:
    """SGLang's ModelConfig.context_len for the line, or its refusal."""
    so.oracle()
    with environment(env):
        r = so.resolve(argv, model=model)
    if not isinstance(r, so.Resolved):
        return r.text
    from sglang.srt.arg_groups.model_override_base import model_config_of

    return int(model_config_of(r.record).context_len)


def graphfit_length(model: str, argv: tuple[str, ...], env: dict[str, str]) -> int | str:
    """graphfit's max_model_len for the same pasted line, or its error."""
    from graphfit.cli.options import build_config
    from graphfit.planner.core.errors import GraphfitError

    words = [f"{k}={v}" for k, v in env.items()]
    try:
        config = build_config({"gpu_memory_gb": "H100"}, environ={}, pasted=[
            *words, "python", "-m", "sglang.launch_server", "--model-path", model, *argv])
    except GraphfitError as exc:
        return str(exc)
    return config.max_model_len


def graphfit_asks(model: str, argv: tuple[str, ...], env: dict[str, str]) -> str | None:
    """graphfit's warning asking for --context-length on the line (None: none)."""
    from graphfit.cli.options import read_pasted, resolve_values
    from graphfit.planner.core.errors import GraphfitError

    words = [f"{k}={v}" for k, v in env.items()]
    values: dict[str, object] = {"gpu_memory_gb": "H100"}
    try:
        notes = resolve_values(values, environ={}, pasted=read_pasted([
            *words, "python", "-m", "sglang.launch_server", "--model-path", model, *argv],
            values)).notes
    except GraphfitError:
        return None
    return next((n for n in notes if "class default" in n), None)


def verdict(model: str, argv: tuple[str, ...], env: dict[str, str]) -> str:
    """"agree" / "refused" (both) / "asked" (graphfit asks for --context-length where it
    does not know the class default SGLang takes, and warns) / "differ: ..."."""
    sg, gf = sglang_length(model, argv, env), graphfit_length(model, argv, env)
    if isinstance(sg, str) and isinstance(gf, str):
        return "refused"
    if isinstance(sg, int) and sg != gf and graphfit_asks(model, argv, env):
        return "asked"
    if sg == gf:
        return "agree"
    return f"differ: SGLang {str(sg)[:100]}, graphfit {str(gf)[:100]}"


def sglang_pool(model: str, argv: tuple[str, ...], env: dict[str, str]) -> int | str:
    """SGLang's request pool (req_to_token_pool.size) for a line with --max-total-tokens:
    its own `resolve_max_num_reqs` (kv_cache_configurator.py:3119-3132) on its real
    ModelConfig (context_len) with the token capacity capped at --max-total-tokens
    (:3096-3105; the GPU's own capacity taken as larger, as sglang_oracle does)."""
    import types

    so.oracle()
    with environment(env):
        r = so.resolve(argv, model=model)
    if not isinstance(r, so.Resolved):
        return r.text
    from sglang.srt.arg_groups.model_override_base import model_config_of

    from tests.oracle import sglang_stubs

    with sglang_stubs.imports():
        from sglang.srt.mem_cache.kv_cache_configurator import KVCacheConfigurator
    this = types.SimpleNamespace(attn_dp_size=max(1, r.attn_dp_size), mambaish_config=None,
                                 model_config=model_config_of(r.record))
    capacity = min(so.DEFAULT_TOKEN_CAPACITY, int(r.record.max_total_tokens))
    with so.published(r):
        return int(KVCacheConfigurator.resolve_max_num_reqs(this, capacity))


def graphfit_pool(model: str, argv: tuple[str, ...], env: dict[str, str]) -> int | str:
    """graphfit's request pool for the same pasted line (sglang_pool.request_pool)."""
    from graphfit.cli.options import build_config
    from graphfit.planner.core.errors import GraphfitError
    from graphfit.planner.engines.sglang_pool import request_pool

    words = [f"{k}={v}" for k, v in env.items()]
    try:
        return request_pool(build_config({"gpu_memory_gb": "H100"}, environ={}, pasted=[
            *words, "python", "-m", "sglang.launch_server", "--model-path", model, *argv]))
    except GraphfitError as exc:
        return str(exc)


def pool_verdict(model: str, argv: tuple[str, ...], env: dict[str, str]) -> str:
    """The request pool on a --max-total-tokens line: "agree" / "refused" / "differ: ..."
    ("n/a" without the flag)."""
    if "--max-total-tokens" not in argv:
        return "n/a"
    sg, gf = sglang_pool(model, argv, env), graphfit_pool(model, argv, env)
    if isinstance(sg, str) and isinstance(gf, str):
        return "refused"
    if isinstance(sg, int) and sg != gf and graphfit_asks(model, argv, env):
        return "asked"
    return "agree" if sg == gf else f"differ: SGLang {str(sg)[:100]}, graphfit {str(gf)[:100]}"


# a draft with no length key: classes graphfit knows (transformers' and SGLang's own) and
# one it does not (graphfit then warns that it cannot check the draft: "asked")
DRAFT_TYPES = ("llama", "qwen2", "mistral", "olmo3", "mamba", "qwen3_next", "xglm", "biogpt")


def draft_case(rng: random.Random, root: str) -> tuple[str, str, tuple[str, ...], dict[str, str]]:
    """(target, draft, flags, environment): a STANDALONE line whose local draft writes its
    own length (sometimes none, under a class default), maybe below the target's."""
    target, argv, env = case(rng, root)
    draft = dict(BASE, num_hidden_layers=2)
    if rng.random() < 0.8:
        draft["max_position_embeddings"] = rng.choice((2048, 4096, 32768, 131072))
    else:
        draft["model_type"] = rng.choice(DRAFT_TYPES)
    directory = Path(tempfile.mkdtemp(dir=root))
    (directory / "config.json").write_text(json.dumps(draft))
    return target, str(directory), (*argv, *standalone(str(directory))), env


def standalone(draft: str) -> tuple[str, ...]:
    """The flags of a STANDALONE draft `draft` (two steps, top-1, three draft tokens)."""
    return ("--speculative-algorithm", "STANDALONE", "--speculative-draft-model-path", draft,
            "--speculative-num-steps", "2", "--speculative-eagle-topk", "1",
            "--speculative-num-draft-tokens", "3")


def sglang_draft_length(model: str, draft: str, argv: tuple[str, ...], env: dict[str, str]
                        ) -> int | str:
    """The draft worker's ModelConfig.context_len as SGLang builds it (from_server_args with
    the target's context_len, managers/tp_worker.py:481, draft_worker_common.py:100), or the
    refusal of the target's line or of the draft's config."""
    so.oracle()
    with environment(env):
        r = so.resolve(argv, model=model)
        if not isinstance(r, so.Resolved):
            return r.text
        from sglang.srt.arg_groups.model_override_base import model_config_of
        from sglang.srt.configs.model_config import ModelConfig

        target = model_config_of(r.record).context_len
        try:
            built = ModelConfig.from_server_args(r.record, model_path=draft,
                                                 is_draft_model=True, context_length=target)
        except Exception as exc:  # SGLang's refusal, as text
            return f"{type(exc).__name__}: {exc}"
    return int(built.context_len)


def draft_verdict(model: str, draft: str, argv: tuple[str, ...], env: dict[str, str]) -> str:
    """"agree" (graphfit plans the line at the draft's length) / "refused" / "asked" /
    "differ: ..." for a line with a local draft."""
    sg, gf = sglang_draft_length(model, draft, argv, env), graphfit_length(model, argv, env)
    if isinstance(sg, str) and isinstance(gf, str):
        return "refused"
    if isinstance(sg, int) and sg != gf and graphfit_asks(model, argv, env):
        return "asked"
    if sg != gf and isinstance(gf, int) and draft_asked(model, argv, env):
        return "asked"  # a draft class default graphfit does not know: warned, not checked
    return "agree" if sg == gf else f"differ: SGLang {str(sg)[:100]}, graphfit {str(gf)[:100]}"


def draft_asked(model: str, argv: tuple[str, ...], env: dict[str, str]) -> bool:
    """Whether graphfit warns that it cannot check the line's draft (its class default
    unknown) and no other asking warning stands for the target."""
    from graphfit.cli.options import read_pasted, resolve_values
    from graphfit.planner.core.errors import GraphfitError

    words = [f"{k}={v}" for k, v in env.items()]
    values: dict[str, object] = {"gpu_memory_gb": "H100"}
    try:
        notes = resolve_values(values, environ={}, pasted=read_pasted([
            *words, "python", "-m", "sglang.launch_server", "--model-path", model, *argv],
            values)).notes
    except GraphfitError:
        return False
    return any("class default" in n and "(not checked)" in n for n in notes)
