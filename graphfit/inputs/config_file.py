"""`--config FILE`: a YAML or JSON mapping of engine settings, like `vllm serve --config`.

Keys may be vLLM serve arguments (`max-num-seqs`, `speculative-config`...), SGLang server
arguments (`cuda-graph-max-bs-decode`...), TensorRT-LLM LLM API options (`cuda_graph_config`...) or
EngineConfig field names; dashes and underscores are interchangeable. Settings of the engine
that graphfit does not model (ports, parallelism, memory fractions...) are listed as ignored;
a key close to a modelled one is taken for a typo and rejected; any other key is reported as
unknown and ignored, so whole serve configs can be read.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from graphfit.inputs import (
    model_config,
    sglang_beam_build,
    sglang_context_length,
    sglang_draft_a2a,
    sglang_dsa_backends_file,
    sglang_dsa_dcp_hicache,
    sglang_file_choices,
    sglang_file_dp_attention,
    sglang_file_drafts,
    sglang_file_dtype,
    sglang_kv_dtype,
    sglang_mamba_flags,
    sglang_minimax_target,
    sglang_ngram,
    sglang_prefill_cp,
    sglang_prefill_cp_bcg,
    sglang_qwen_moe_experts,
    sglang_server_serving_sources,
    sglang_unified_switches,
    target_overrides,
)
from graphfit.inputs import sglang as sglang_args
from graphfit.inputs import trtllm as trtllm_args
from graphfit.inputs import vllm as vllm_args
from graphfit.inputs.gpus import (
    gpu_capability,
    gpu_memory_gb,
    gpu_mnnvl_fabric,
    gpu_rocm,
    gpu_sm90,
    gpu_sm100,
)
from graphfit.inputs.keys import Handler, field_key, raw
from graphfit.inputs.model_config import config_path
from graphfit.inputs.reading import load_data, shown_path
from graphfit.inputs.settings import CONFIG_FIELDS, FILE, Setting, merge
from graphfit.inputs.values import (
    as_bool,
    as_sizes,
    close_match,
    normalize_key,
)
from graphfit.planner.core.enums import Engine
from graphfit.planner.core.errors import ConfigError, brief, excerpt, listed

VLLM_IGNORED = frozenset({
    "model", "tokenizer", "host", "port", "served_model_name", "tensor_parallel_size",
    "pipeline_parallel_size", "data_parallel_size", "data_parallel_size_local",
    "enable_expert_parallel", "gpu_memory_utilization", "trust_remote_code", "seed",
    "quantization", "kv_cache_dtype", "enable_prefix_caching", "enable_chunked_prefill",
    "max_num_partial_prefills", "swap_space", "disable_log_requests", "disable_log_stats",
    "enable_log_requests", "api_key", "download_dir", "load_format", "revision",
    "tokenizer_mode", "max_logprobs", "uvicorn_log_level", "enable_lora", "max_loras",
    "max_lora_rank", "lora_modules", "chat_template", "generation_config",
    "override_generation_config", "distributed_executor_backend", "kv_transfer_config",
    "reasoning_parser", "tool_call_parser", "enable_auto_tool_choice", "limit_mm_per_prompt",
    "mm_processor_kwargs", "disable_custom_all_reduce", "async_scheduling", "hf_overrides",
    "scheduling_policy", "long_prefill_token_threshold", "cpu_offload_gb",
    "calculate_kv_scales", "allowed_local_media_path", "root_path",
    "ssl_keyfile", "ssl_certfile", "middleware", "response_role", "max_seq_len_to_capture",
    "no_enable_prefix_caching", "enable_sleep_mode", "kv_cache_memory_bytes",
})


def _speculative(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """vLLM's and TensorRT-LLM's files share the key; TensorRT-LLM's has a decoding_type."""
    if isinstance(value, dict) and any(normalize_key(k) == "decoding_type" for k in value):
        return trtllm_args.speculative_config(origin, value, layer)
    return vllm_args.speculative_config(origin, value, layer)


def _cuda_graph_config(origin: str, value: Any, layer: int
                       ) -> tuple[list[Setting], list[str]]:
    """SGLang's per-phase {"decode": ..., "prefill": ...} or TensorRT-LLM's CudaGraphConfig."""
    if sglang_args.is_phase_config(value):
        return sglang_args.cuda_graph_config(origin, value, layer)
    return trtllm_args.cuda_graph_config(origin, value, layer)


def _native() -> dict[str, Handler]:
    """EngineConfig's own field names, typed lightly (EngineConfig validates the rest)."""
    readers: dict[str, Any] = {
        "cudagraph_capture_sizes": lambda o, v: as_sizes(o, v),
        "multimodal": as_bool,
        "cuda_graph_padding": as_bool,
        "two_batch_overlap": as_bool,
        "multi_layer_eagle": as_bool,
        "frozen_kv_mtp": as_bool,
        "dspark_samples_anchor": as_bool,
        "dspark_mid_fold": as_bool,
        "dspark_post_forward_graph": as_bool,
        "dflash_eager_sampler": as_bool,
        "dp_spec_prefill_coordination": as_bool,
        "sm90": as_bool,
        "sm100": as_bool,
        "mnnvl_fabric": as_bool,
        "gpu_rocm": as_bool,  # issue 23 s68l
        "draft_len_schedule": lambda o, v: as_sizes(o, v),
    }
    keys = {name: field_key(name, readers.get(name, raw)) for name in CONFIG_FIELDS}
    keys["gpu_memory_gb"] = _gpu_memory_gb
    return keys


def _gpu_memory_gb(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """`gpu_memory_gb: T4` tells the GPU's generation as `--gpu-memory-gb T4` does
    (graphfit.cli.options._gpu): sm90 / sm100 / gpu_capability, which SGLang's GPU-bound
    rules read (a config class's GPU reason, awq/awq.py:282-284); a GiB figure tells none."""
    settings = [Setting("gpu_memory_gb", gpu_memory_gb(origin, value), origin, layer)]
    for field, known in (("sm90", gpu_sm90(value)), ("sm100", gpu_sm100(value)),
                         ("gpu_capability", gpu_capability(value)),
                         ("mnnvl_fabric", gpu_mnnvl_fabric(value)),
                         ("gpu_rocm", gpu_rocm(value))):  # issue 23 s68l
        if known is not None:
            settings.append(Setting(field, known, origin, layer))
    return settings, []


VLLM_KEYS: dict[str, Handler] = {**vllm_args.FILE_KEYS, "speculative_config": _speculative,
                                  "o": vllm_args.FILE_KEYS["optimization_level"]}
KEYS: dict[str, Handler] = {**_native(), **VLLM_KEYS, **sglang_args.FILE_KEYS,
                            **sglang_args.MODEL_KEYS, **trtllm_args.FILE_KEYS,
                            # mamba_hook.py's cross-flag checks read them (`mapping_settings`)
                            **sglang_mamba_flags.FILE_KEYS,
                            "cuda_graph_config": _cuda_graph_config}
IGNORED = VLLM_IGNORED | sglang_args.IGNORED | trtllm_args.IGNORED
# per engine, the keys its files are read with on top of KEYS once the engine is known; they
# are not in KEYS (nor read as EngineConfig's own names): another engine's file ignores them
ENGINE_ONLY_KEYS: dict[str, Mapping[str, Handler]] = {"trtllm": trtllm_args.TRTLLM_ONLY_KEYS}
for _own in ENGINE_ONLY_KEYS.values():
    for _key in _own:
        KEYS.pop(_key, None)
# SGLang's --kv-cache-dtype, an option field since issue 23 s48k, under a name vLLM's files
# share (VLLM_IGNORED): read only in an SGLang file (SGLANG_FILE_KEYS), ignored elsewhere
KEYS.pop("kv_cache_dtype", None)
# SGLang's --enable-lora (read for DeepSeek-V4.1's encoder replay, issue 23 s50k), a name
# vLLM's files share (VLLM_IGNORED) likewise
KEYS.pop("enable_lora", None)
# SGLang's --max-lora-rank (the LoRA MoE runners' checks, issue 23 s65d), a vLLM name too
KEYS.pop("max_lora_rank", None)
# SGLang's deprecated enable_dp_attention, read with the file's dp_size (issue 23 s70g)
KEYS[sglang_file_dp_attention.KEY] = sglang_file_dp_attention.key


OVERRIDES = "json_model_override_args"
# keys SGLang and vLLM spell alike, read as SGLang's in a file naming `engine: sglang` (kept in
# KEYS as vLLM's otherwise; issue 23 s44m)
SGLANG_FILE_KEYS: dict[str, Handler] = {"attention_backend": sglang_args.file_attention_backend,
                                        # SGLang's --dtype (issue 23 s45r)
                                        "dtype": sglang_file_dtype.file_dtype,
                                        # SGLang's --kv-cache-dtype (issue 23 s48k)
                                        "kv_cache_dtype": sglang_kv_dtype.kv_cache_dtype,
                                        # SGLang's --enable-lora (issue 23 s50k)
                                        "enable_lora": sglang_args.FILE_KEYS["enable_lora"],
                                        # SGLang's --max-lora-rank (issue 23 s65d)
                                        "max_lora_rank": sglang_args.FILE_KEYS["max_lora_rank"]}


def _names_sglang(data: Mapping[Any, Any]) -> bool:
    """Whether the file's own `engine` key names SGLang."""
    engine = next((v for k, v in data.items()
                   if isinstance(k, str) and normalize_key(k) == "engine"), None)
    return isinstance(engine, str) and engine.strip().lower() == Engine.SGLANG.value


def _target(data: Mapping[Any, Any]) -> contextlib.AbstractContextManager[None]:
    """SGLang's `json_model_override_args` beside `model_path` in one file: applied to that
    model's config.json as SGLang applies it (graphfit.inputs.target_overrides)."""
    keys = {normalize_key(k): v for k, v in data.items() if isinstance(k, str)}
    model = keys.get("model_path")
    if OVERRIDES not in keys or not isinstance(model, str):
        return contextlib.nullcontext()
    return target_overrides.applied(config_path(model), keys[OVERRIDES])


_FLAG_MODEL: ContextVar[str | None] = ContextVar("graphfit_flag_model", default=None)


@contextlib.contextmanager
def flag_target(model: object) -> Iterator[None]:
    """graphfit's own `--model-path` flag while a config file is read: the target of a file
    naming no `model_path`, as SGLang's `--model-path` beside its `--config` file is
    (utils/server_args_config_parser.py:75-106; issue 23 s62c)."""
    token = _FLAG_MODEL.set(model if isinstance(model, str) else None)
    try:
        yield
    finally:
        _FLAG_MODEL.reset(token)


def with_target(keys: Mapping[str, Any], model: object = None) -> dict[str, Any]:
    """The file's normalized keys with graphfit's `--model-path` (`model`, else the one
    `flag_target` holds) as `model_path` where the file names none (issue 23 s62c)."""
    flag = model if isinstance(model, str) else _FLAG_MODEL.get()
    if "model_path" in keys or flag is None:
        return dict(keys)
    return {**keys, "model_path": flag}


def read_mapping(path: Path) -> dict[str, Any]:
    """The file's top-level mapping (graphfit.inputs.reading: bounded, strict JSON or YAML)."""
    origin = shown_path(path)
    data = load_data(path, "config")
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{origin}: expected a mapping of settings, got {type(data).__name__}")
    return data


def file_settings(path: Path, own: Mapping[str, Handler] | None = None
                  ) -> tuple[list[Setting], list[str]]:
    """Settings (layer FILE) and notes from one config file (`own`: see mapping_settings)."""
    return mapping_settings(read_mapping(path), path.name, own)


def mapping_settings(data: dict[str, Any], name: str, own: Mapping[str, Handler] | None = None
                     ) -> tuple[list[Setting], list[str]]:
    """Settings (layer FILE) and notes from a mapping of engine keys (a config file's, or
    TensorRT-LLM's LLM API options as a dict); `name` prefixes every origin. `own`: handlers
    for keys another engine spells alike but ignores, read first when the file is known to
    be one engine's (TensorRT-LLM's `tensor_parallel_size`, ENGINE_ONLY_KEYS)."""
    settings: list[Setting] = []
    notes: list[str] = []
    ignored: list[str] = []
    unknown: list[str] = []
    # a file naming `engine: sglang` holds SGLang's attention_backend, not vLLM's (s44m)
    own = {**(own or {}), **(SGLANG_FILE_KEYS if _names_sglang(data) else {})}
    if SGLANG_FILE_KEYS.keys() <= own.keys():  # SGLang's file: its parser's choices first
        data = sglang_file_choices.check(data, name)  # (issue 23 s47l, s50l)
    implied = False  # another key of the file implies SGLang (its `model_path` spelling)
    for key, value in data.items():
        if not isinstance(key, str):
            raise ConfigError(f"{brief(name)}: keys must be strings, got {excerpt(key)}")
        normalized = normalize_key(key)
        origin = f"{brief(name)}: {brief(key)}"
        handler = own.get(normalized) or KEYS.get(normalized)
        if handler is not None:
            with _target(data):
                try:
                    found, more = handler(origin, value, FILE)
                except ConfigError as exc:  # SGLang's prefill-CP refusal first (s60r)
                    sglang_prefill_cp.file_refusal_first(data, brief(name), exc)
                    raise
            settings += found
            notes += more
            implied = implied or (normalized not in SGLANG_FILE_KEYS and any(
                s.field == "engine" and str(getattr(s.value, "value", s.value)) ==
                Engine.SGLANG.value for s in found))
        elif normalized == OVERRIDES:  # read with model_path (`_target`)
            target_overrides.parse(value)
        elif normalized in IGNORED:
            ignored.append(key)
        elif (normalized in sglang_server_serving_sources.KEYS  # read below (issue 23 s68h)
              or normalized in sglang_dsa_backends_file.KEYS):  # and these (s69m)
            pass
        else:
            typo = close_match(normalized, KEYS)
            if typo is not None:
                spelled = typo.replace("_", "-") if "-" in key else typo
                raise ConfigError(f"{brief(name)}: unknown key {excerpt(key)} (did you mean "
                                  f"{spelled}?)")
            unknown.append(key)
    if implied and not SGLANG_FILE_KEYS.keys() <= own.keys() \
            and SGLANG_FILE_KEYS.keys() & {normalize_key(k) for k in data if isinstance(k, str)}:
        # an SGLang file without an `engine` key: its attention_backend is SGLang's too, as
        # in a file naming `engine: sglang` (issue 23 s45m)
        return mapping_settings(data, name, {**own, **SGLANG_FILE_KEYS})
    if ignored and sglang_file_drafts.reads_draft(with_target(
            {normalize_key(k): v for k, v in data.items() if isinstance(k, str)})):
        # a DFLASH / DSPARK draft is read (sglang_file_drafts, issue 23 s60m)
        ignored = [k for k in ignored if normalize_key(k) != "speculative_draft_model_path"]
    # SGLang's file (named, or beside a pasted SGLang line): `port` alone is its --port (s70g)
    sglang_file = SGLANG_FILE_KEYS.keys() <= own.keys()
    served = sglang_server_serving_sources.read(data, sglang=sglang_file)  # (s69j)
    ignored = [k for k in ignored if normalize_key(k) not in served]
    if ignored:
        notes.append(f"{brief(name)}: not modelled, ignored: {listed(ignored)}")
    if unknown:
        notes.append(f"{brief(name)}: unknown keys, ignored: {listed(unknown)}")
    # mamba_hook.py's checks across keys, in a file as on a pasted line
    notes += sglang_mamba_flags.file(data, brief(name))
    # --dcp-size / --dcp-comm-backend, read as on a pasted line (issue 23 s43l)
    settings += sglang_unified_switches.file(data, brief(name))
    with _target(data):  # --enable-prefill-cp with the file's widths (issue 23 s52c)
        notes += sglang_prefill_cp.file(data, brief(name))
        settings += sglang_prefill_cp.file_family(data, brief(name))  # s60p
    settings += sglang_prefill_cp_bcg.file_settings(data, brief(name))  # its strategy (s55g)
    # check_server_args' serving keys, as on a pasted line (issue 23 s68h)
    settings += sglang_server_serving_sources.file(data, brief(name), sglang=sglang_file)
    # --dp-size N --enable-dp-attention, read as a Python caller's record (issue 23 s70g)
    settings = sglang_file_dp_attention.settings(data, brief(name), settings)
    # the target: the file's model_path, else graphfit's --model-path flag (s62c)
    keys = with_target({normalize_key(k): v for k, v in data.items() if isinstance(k, str)})
    # the DSA backends, read as on a pasted line (issue 23 s69m)
    settings += sglang_dsa_backends_file.settings(keys, brief(name))
    sglang_dsa_backends_file.kv_asserts(keys)  # and the DSA dtype asserts (s69m)
    sglang_dsa_dcp_hicache.check(keys)  # HiCache under DSA DCP (s69r)
    if "model_path" in keys:  # SGLang's spelling: a MiniMax-M3 target it cannot build
        # (json_model_override_args read with it); a GPU-dependent answer is settled on
        # the GPU (sglang_minimax_target.settle_file, issue 23 s53m)
        sglang_minimax_target.line(keys, gpu_later=True)
        sglang_beam_build.line(keys)  # Beam's class refusals, as on a pasted line (s69n)
        sglang_qwen_moe_experts.line(keys)  # Qwen MoE: TP above the expert count (s69n)
        # a DFLASH / DSPARK draft's config.json, read as on a pasted line (issue 23 s60m)
        settings = sglang_file_drafts.settings(keys, settings, notes)
    # a MoE draft's class under speculative_moe_a2a_backend, read from the file's
    # speculative_draft_model_path (or the one SGLang fills in) as on a pasted line (s55e)
    settings += sglang_draft_a2a.settings(keys)
    # SGLang's NGRAM topk is its BFS breadth, in a file as on a pasted line
    return sglang_ngram.file(data, settings, notes, brief(name)), notes


def sglang_length_check(path: Path, settings: list[Setting], environ: Mapping[str, str]
                        ) -> list[str]:
    """A config file's `model_path` on an SGLang plan, checked as SGLang checks it
    (graphfit.inputs.sglang_context_length.check_flag, configs/model_config.py:1295-1316): a
    context length (the file's `context_length` or graphfit's flag) above the model's derived
    one is refused unless the environment allows it; none given where graphfit does not know
    the class default SGLang takes: a warning asking for one (model_config.ask_length)."""
    data = read_mapping(path)
    # graphfit's --model-path is the target of a file naming none (`flag_target`), checked
    # as SGLang checks the `--model-path` beside its `--config` file
    keys = with_target({normalize_key(k): v for k, v in data.items() if isinstance(k, str)})
    given = merge([s for s in settings if s.field == "max_model_len" and not s.weak]
                  ).values.get("max_model_len")
    model = keys.get("model_path")
    notes: list[str] = []
    if isinstance(model, str):
        with _target(keys):
            sglang_context_length.check_flag(given, model_config.sglang_length(model), environ)
            notes += model_config.ask_length(model, given)
    return notes + _draft_length_check(with_target(keys), given, environ)


def _draft_length_check(keys: Mapping[str, Any], given: object, environ: Mapping[str, str]
                        ) -> list[str]:
    """The file's draft checked at the target's length, as on a pasted line (issue 23 s62c):
    every draft worker builds its ModelConfig with the target's context length (managers/
    tp_worker.py:481, speculative/draft_worker_common.py:100) and refuses one above the
    draft's derived length (configs/model_config.py:1295-1316,
    graphfit.inputs.sglang_context_length.check_draft). The draft: the file's
    `speculative_draft_model_path`, or DSPARK's filled-in one (sglang_dspark.fill); the
    target: the file's `model_path`, or graphfit's `--model-path` (`with_target`); the
    draft's config gets the file's `json_model_override_args` too (model_config.py:962).
    NGRAM has no draft model. A draft class whose default length graphfit does not know: a
    warning (model_config.ask_draft_length)."""
    from graphfit.inputs import sglang_dspark

    model = keys.get("model_path")
    algorithm = str(keys.get("speculative_algorithm") or "").upper()
    if not isinstance(model, str) or not algorithm or algorithm == "NGRAM":
        return []
    values = dict(keys)
    sglang_dspark.fill(values)
    draft = values.get("speculative_draft_model_path")
    if not isinstance(draft, str):
        return []
    target = given if given is not None else model_config.sglang_length(model)
    with target_overrides.applied(config_path(draft), keys.get(OVERRIDES)):
        sglang_context_length.check_draft(target, model_config.sglang_length(draft), environ)
        return model_config.ask_draft_length(draft)
