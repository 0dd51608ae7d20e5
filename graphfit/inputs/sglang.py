"""SGLang 0.5.23's server arguments that shape its decode graphs (`sglang serve` /
`python -m sglang.launch_server`), as command-line flags or keys of its `--config` YAML.

FILE_KEYS is the one map from an SGLang argument (underscores, as SGLang's dataclass fields
spell them) to Settings; graphfit's CLI flags of the SGLang panel call these handlers too.
Spellings and precedence follow SGLang's own parser and `parse_cuda_graph_config`
(arg_groups/fields/exec_.py:606-666, arg_groups/cuda_graph_hook.py:32-101): the JSON
`--cuda-graph-config` beats the per-phase flags, which beat `--disable-decode-cuda-graph`,
which beats the deprecated `--disable-cuda-graph`. The old `--cuda-graph-max-bs` /
`--cuda-graph-bs` are no longer flags: argparse finds them ambiguous prefixes of the -decode
and -prefill flags and refuses them, and so does graphfit.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs import (
    mamba_state,
    model_config,
    sglang_a2a,
    sglang_draft,
    sglang_dspark,
    sglang_dsv4,
    sglang_dtype,
    sglang_eplb,
    sglang_file_choice,
    sglang_instance,
    sglang_kv_dtype,
    sglang_lora,
    sglang_mamba_flags,
    sglang_post_capture,
    sglang_server_flags,
)
from graphfit.inputs.keys import Handler, field_key
from graphfit.inputs.reading import parse_json
from graphfit.inputs.settings import COMMAND_LINE, Setting
from graphfit.inputs.values import as_bool, as_int, as_object, as_sizes, as_str, normalize_key
from graphfit.planner.core.enums import CUDAGraphMode, Engine, SpecMethod
from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.core.limits import MAX_INT

ALGORITHMS = {  # --speculative-algorithm (case-insensitive in SGLang)
    "EAGLE": SpecMethod.EAGLE,
    "EAGLE3": SpecMethod.EAGLE3,
    "NEXTN": SpecMethod.MTP,  # SGLang runs NEXTN (MTP) through its EAGLE workers
    "STANDALONE": SpecMethod.DRAFT_MODEL,
    "NGRAM": SpecMethod.NGRAM,
    "DFLASH": SpecMethod.DFLASH,  # graphfit.planner.engines.sglang_dflash
    "DSPARK": SpecMethod.DSPARK,  # graphfit.planner.engines.sglang_dspark
    "UNO": SpecMethod.UNO,  # graphfit.planner.engines.sglang_uno, graphfit.inputs.sglang_uno
}
SG = Engine.SGLANG
BACKENDS = {"full": CUDAGraphMode.FULL, "breakable": CUDAGraphMode.FULL,
            "disabled": CUDAGraphMode.NONE}
PHASE_KEYS = {"decode": ("backend", "max_bs", "bs"),
              "prefill": ("backend", "max_bs", "bs", "max_context_size", "full_prefill_max_req",
                          "full_prefill_prefix_chunk_tokens", "max_seq_len")}
# precedence of SGLang's own spellings of one setting (cuda_graph_hook.py:54-94)
LEGACY, OFF_SWITCH, PER_PHASE, JSON_CONFIG = 0, 1, 2, 3


# SGLang's other builtin algorithms (speculative/spec_info.py:39-47): their graph runners are
# not modelled (issue 23: left for their size), so a line naming one is refused, never
# planned as something else
UNMODELLED_ALGORITHMS: dict[str, str] = {}  # reasons short enough for one error line
# FROZEN_KV_MTP is an MTP draft over the target's frozen KV: spec_method MTP with
# SglangOptions.frozen_kv_mtp (graphfit.planner.engines.sglang_spec_runners)
FROZEN_KV_MTP = "FROZEN_KV_MTP"


def algorithm(origin: str, value: Any) -> SpecMethod:
    name = as_str(origin, value).upper()
    if name == FROZEN_KV_MTP:
        return SpecMethod.MTP
    if name in UNMODELLED_ALGORITHMS:
        raise ConfigError(f"{origin}: SGLang's {name} is not modelled by graphfit: "
                          f"{UNMODELLED_ALGORITHMS[name]}")
    if name not in ALGORITHMS:
        raise ConfigError(f"{origin}: {value!r} is not one of {', '.join(ALGORITHMS)}")
    return ALGORITHMS[name]


def _speculative_algorithm(origin: str, value: Any, layer: int
                           ) -> tuple[list[Setting], list[str]]:
    """`--speculative-algorithm`: the method, and whether it is FROZEN_KV_MTP (an MTP draft
    reading the target's frozen KV, speculative/spec_info.py:102-115, 343)."""
    method = algorithm(origin, value)
    frozen = as_str(origin, value).upper() == FROZEN_KV_MTP
    return [Setting("spec_method", method, origin, layer),
            Setting("frozen_kv_mtp", frozen, origin, layer),
            Setting("engine", SG, origin, layer)], []


def dflash_line(values: Mapping[str, Any], settings: list[Setting],
                notes: list[str] | None = None) -> list[Setting]:
    """A pasted line's DFLASH rules that need two keys: the draft model path is required
    (speculative_hook.py:324-327); the draft's config.json gives the block size when the
    line does not (graphfit.inputs.sglang_draft, its notes appended to `notes`);
    --speculative-dflash-block-size is read only for DFLASH (speculative_hook.py:368), so
    another algorithm's line drops it."""
    name = str(values.get("speculative_algorithm") or "").upper()
    if name == "DFLASH" and not values.get("speculative_draft_model_path"):
        raise ConfigError("--speculative-algorithm: SGLang's DFLASH requires "
                          "--speculative-draft-model-path (speculative_hook.py:324-327)")
    if name == "DFLASH":
        window = values.get("speculative_draft_window_size")
        block = values.get("speculative_num_draft_tokens") or values.get(
            "speculative_dflash_block_size")
        # the draft's config.json: the block when the line gives none, the draft's head
        # (graphfit.inputs.sglang_draft)
        found, said = sglang_draft.dflash_draft_settings(values, isinstance(block, int))
        if notes is not None:
            notes += said
        if block is None and found:
            block = found[0].value
        if isinstance(window, int) and isinstance(block, int) and window < block:
            raise ConfigError(f"--speculative-draft-window-size: {window} is below the DFLASH "
                              f"block size {block}; SGLang refuses (speculative_hook.py:"
                              f"427-434)")
        return settings + found
    return [s for s in settings if "dflash-block-size" not in s.origin]


def _positive(origin: str, value: Any) -> int:
    return as_int(origin, value)


def _dflash_block(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """`--speculative-dflash-block-size B`: DFLASH's --speculative-num-draft-tokens, which
    must equal it when both are given (speculative_hook.py:368-386; the planner's
    sglang_dflash refuses a mismatch it cannot see here as a conflicting setting)."""
    if value is None:
        return [], []
    block = as_int(origin, value)  # >= 1, as SGLang requires (speculative_hook.py:369-373)
    return [Setting("speculative_num_draft_tokens", block, origin, layer),
            Setting("engine", SG, origin, layer)], []


def _fraction(origin: str, value: Any) -> float | None:
    """`--mem-fraction-static F` (SglangOptions checks 0 < F < 1)."""
    if value is None:
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{origin}: expected a number, got {excerpt(value)}") from None


def _optional_str(origin: str, value: Any) -> str | None:
    return None if value is None else as_str(origin, value)


def _sizes(origin: str, value: Any) -> tuple[int, ...]:
    """`--cuda-graph-bs-decode 1 2 4` (nargs, space separated) or a list; SGLang sorts and
    dedupes it when it captures (base_cuda_graph_runner.py:101)."""
    return as_sizes(origin, value, normalize=True)


def _setting(field: str, value: Any, origin: str, layer: int, priority: int = 0
             ) -> list[Setting]:
    return [Setting(field, value, origin, layer, priority=priority),
            Setting("engine", SG, origin, layer)]


def _ranked(field: str, read: Any, priority: int) -> Handler:
    def handle(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
        return _setting(field, read(origin, value), origin, layer, priority), []
    return handle


def _padding_disabled(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    if not as_bool(origin, value):
        return [Setting("engine", SG, origin, layer)], []
    return _setting("cuda_graph_padding", False, origin, layer), []


def _off_switch(priority: int, *, prefill: bool = False) -> Handler:
    """`--disable-decode-cuda-graph` and the deprecated `--disable-cuda-graph` (which turns
    the prefill graphs off too, at the lowest precedence: cuda_graph_hook.py:54-63)."""
    def handle(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
        if not as_bool(origin, value):
            return [Setting("engine", SG, origin, layer)], []
        out = _setting("cudagraph_mode", CUDAGraphMode.NONE, origin, layer, priority)
        if prefill:
            out.append(Setting("cuda_graph_backend_prefill", "disabled", origin, layer,
                               priority=priority))
        return out, []
    return handle


def _prefill_off(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """`--disable-prefill-cuda-graph` (cuda_graph_hook.py:64-66)."""
    if not as_bool(origin, value):
        return [Setting("engine", SG, origin, layer)], []
    return _setting("cuda_graph_backend_prefill", "disabled", origin, layer, OFF_SWITCH), []


def _prefill_backend(origin: str, value: Any) -> str:
    name = as_str(origin, value).lower()
    if name == "tc_piecewise":
        raise ConfigError(f"{origin}: tc_piecewise was removed; select breakable, full, or "
                          f"disabled")
    if name not in BACKENDS:
        raise ConfigError(f"{origin}: {value!r} is not one of full, breakable, disabled")
    return name


def _chunked_prefill(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """`--chunked-prefill-size`: the prefill graphs' default largest token count
    (memory_hook.py:233-237), any sign as SGLang's `type=int` reads it: <= 0 turns chunking
    off, which the planner models where the chunk is read (issue 23 s68b)."""
    return _setting("chunked_prefill_size", as_int(origin, value, -MAX_INT), origin,
                    layer), []


GRAPHLESS_ATTENTION = ("torch_native", "flex_attention")
AFTER_ALL = 9  # a resolution hook that overrides every spelling of the backends


def _attention_backend(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """torch_native and flex_attention turn both phases' graphs off whatever the flags say
    (attention_hook.py:122-160); any other backend keeps the graphs planned."""
    name = as_str(origin, value).lower()
    if name not in GRAPHLESS_ATTENTION:
        return [Setting("engine", SG, origin, layer)], []
    return ([Setting("cudagraph_mode", CUDAGraphMode.NONE, origin, layer, priority=AFTER_ALL),
             Setting("cuda_graph_backend_prefill", "disabled", origin, layer,
                     priority=AFTER_ALL), Setting("engine", SG, origin, layer)],
            [f"{origin}: {name} disables CUDA graphs (attention_hook.py:122-160)"])


def file_attention_backend(origin: str, value: Any, layer: int
                           ) -> tuple[list[Setting], list[str]]:
    """SGLang's `attention_backend` in a config file that names `engine: sglang` (elsewhere
    the key is vLLM's EngineConfig field): read as on a pasted line (`_attention_backend`),
    plus the field as given for the no_buffer mamba check (mamba_hook.py:161-163, issue 23
    s44m). The backend's other readers take a pasted line's flags only; the file's
    per-phase keys are ignored likewise (IGNORED). A name outside SGLang's choices is
    refused with SGLang's argparse message (graphfit.inputs.sglang_file_choice, issue 23
    s46f)."""
    # the value as written (SGLang's parser does not strip it)
    sglang_file_choice.check(origin, value if isinstance(value, str) else as_str(origin, value))
    found, notes = _attention_backend(origin, value, layer)
    name = as_str(origin, value).strip().lower()
    return ([*found, Setting("attention_backend_flag", name,
                             f"{origin} (SGLang mamba_hook.py:161)", layer)],
            [*notes, f"{origin}: read for the graph and mamba checks only; SGLang's default "
                     f"backend and the phases' checks read a pasted line's flags"])


def _disaggregation(origin: str, value: Any) -> str:
    name = as_str(origin, value).lower()
    if name not in ("null", "prefill", "decode"):
        raise ConfigError(f"{origin}: {value!r} is not one of null, prefill, decode")
    return name


def _backend(origin: str, value: Any) -> CUDAGraphMode:
    """A decode backend's graph mode (the names are the prefill phase's too)."""
    return BACKENDS[_prefill_backend(origin, value)]


def _backend_decode(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    notes = []
    if as_str(origin, value).lower() == "breakable":
        notes.append(f"{origin}: breakable graphs capture the same batch sizes and buffers")
    return _setting("cudagraph_mode", _backend(origin, value), origin, layer, PER_PHASE), notes


def _ambiguous(flag: str) -> Handler:
    def handle(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
        raise ConfigError(f"use --{flag}-decode ({origin} was renamed, SGLang 0.5.23): "
                          f"ambiguous option: --{flag} could match --{flag}-decode, "
                          f"--{flag}-prefill")
    return handle


def cuda_graph_config(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """`--cuda-graph-config '{"decode": {...}, "prefill": {...}}'`: phases and keys checked as
    `parse_cuda_graph_config_arg` does (cuda_graph_config.py:246-283); each phase wins over
    every other spelling of its keys."""
    obj = as_object(origin, value)
    out: list[Setting] = [Setting("engine", SG, origin, layer)]
    notes: list[str] = []
    for phase, settings in obj.items():
        if phase not in PHASE_KEYS:
            raise ConfigError(f"{origin}: unknown phase {phase!r}, expected one of "
                              f"{', '.join(PHASE_KEYS)}")
        where = f"{origin}: {phase}"
        settings = as_object(where, settings)
        for key in settings:
            if key not in PHASE_KEYS[phase]:
                raise ConfigError(f"{where}: unknown key {key!r}, expected one of "
                                  f"{', '.join(PHASE_KEYS[phase])}")
        if phase == "prefill":
            out += _prefill_phase(where, settings, layer)
            continue
        if settings.get("backend") is not None:
            key = f"{where}.backend"
            out.append(Setting("cudagraph_mode", _backend(key, settings["backend"]), key, layer,
                               priority=JSON_CONFIG))
        if settings.get("max_bs") is not None:
            key = f"{where}.max_bs"
            out.append(Setting("max_cudagraph_capture_size", _positive(key, settings["max_bs"]),
                               key, layer, priority=JSON_CONFIG))
        if settings.get("bs") is not None:
            key = f"{where}.bs"
            out.append(Setting("cudagraph_capture_sizes", _sizes(key, settings["bs"]), key,
                               layer, priority=JSON_CONFIG))
    return out, notes


_PREFILL_PHASE = {"backend": ("cuda_graph_backend_prefill", _prefill_backend),
                  "max_bs": ("cuda_graph_max_bs_prefill", _positive),
                  "bs": ("cuda_graph_bs_prefill", _sizes),
                  "full_prefill_max_req": ("full_prefill_max_req", _positive)}


def _prefill_phase(where: str, settings: Mapping[str, Any], layer: int) -> list[Setting]:
    """The JSON "prefill" phase (the highest precedence, cuda_graph_hook.py:86-94); the keys
    that bound replays by context length are refused (not modelled)."""
    out: list[Setting] = []
    for key, value in settings.items():
        if value is None:
            continue
        if key not in _PREFILL_PHASE:
            raise ConfigError(f"{where}.{key}: not modelled (context-bounded prefill replay "
                              f"or chunked-prefix capture)")
        field, read = _PREFILL_PHASE[key]
        if key == "bs" and not value:  # an empty list: no prefill graphs, no error
            out.append(Setting("cuda_graph_backend_prefill", "disabled", f"{where}.bs", layer,
                               priority=JSON_CONFIG))
            continue
        out.append(Setting(field, read(f"{where}.{key}", value), f"{where}.{key}", layer,
                           priority=JSON_CONFIG))
    return out


def is_phase_config(value: Any) -> bool:
    """Whether a `cuda_graph_config` value is SGLang's per-phase form (else TensorRT-LLM's)."""
    if isinstance(value, str):
        try:  # the one bounded reader (depth, size, numbers), as for a file's JSON
            value = parse_json(value)
        except ConfigError:  # not JSON here: the reader of the value names the problem
            return False
    return isinstance(value, dict) and any(
        isinstance(k, str) and normalize_key(k) in PHASE_KEYS for k in value)


def model_path(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """`--model-path DIR`: a local checkpoint's config.json (graphfit.inputs.model_config)
    gives the model class (SGLang's EAGLE defaults), hidden and vocab size, dtype and length;
    explicit flags win over them. Not in FILE_KEYS: a pasted line's reader reads the model
    itself."""
    sglang_instance.check_connector(origin, value)  # a connector path (instance://, s3://...)
    found, notes = model_config.model_settings(as_str(origin, value), origin, sglang=True)
    vision = model_config.vision_settings(as_str(origin, value))
    vision += mamba_state.mamba_state_settings(as_str(origin, value))
    vision += model_config.quant_settings(as_str(origin, value))
    vision += sglang_post_capture.hybrid_swa_settings(as_str(origin, value))
    vision += sglang_dsv4.shape_settings(as_str(origin, value))
    return [*found, *vision, Setting("engine", SG, origin, layer)], notes


def _enable_dp_attention(origin: str, value: Any, layer: int
                         ) -> tuple[list[Setting], list[str]]:
    """Alone (a flag or a config-file key) the deprecated spelling cannot be read: its width
    is --dp-size's. A pasted line reads both (`deprecated_dp_attention`)."""
    if as_bool(origin, value):
        raise ConfigError(f"{origin}: deprecated in SGLang 0.5.23 (--dp-size N "
                          f"--enable-dp-attention is --attn-dp-size N); pass --attn-dp-size")
    return [Setting("engine", SG, origin, layer)], []


def _dp_attention_in_line(origin: str, value: Any, layer: int
                          ) -> tuple[list[Setting], list[str]]:
    return [Setting("engine", SG, origin, layer)], []  # read with --dp-size, see below


def deprecated_dp_attention(values: Mapping[str, Any]) -> list[Setting]:
    """`handle_deprecated_dp_attention` (arg_groups/parallel_hook.py:39-62): with
    --enable-dp-attention and no --attn-dp-size, --dp-size is the attention-DP width. An
    explicit `--attn-dp-size 1` is what SGLang replaces too (:50-57), so the width wins over
    it within the line (priority 1; issue 23 s70o), where both once refused as a conflict."""
    if values.get("enable_dp_attention") is not True or values.get("attn_dp_size") not in (
            None, 1):
        return []
    width = values.get("dp_size") or 1
    return [Setting("attn_dp_size", as_int("--dp-size", width), "--dp-size with "
                    "--enable-dp-attention", COMMAND_LINE, priority=1)]


def _not_default(default: Any, why: str) -> Handler:
    """A key graphfit does not model that changes the decode graphs unless left at default."""
    def handle(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
        if value is None or value == default or (isinstance(value, str)
                                                 and value.strip().lower() == str(default)):
            return [Setting("engine", SG, origin, layer)], []
        raise ConfigError(f"{origin}: {value!r} is not modelled ({why})")
    return handle


DP_NOTE = "data-parallel replicas each capture the same graphs; planned per replica"


def _noted(why: str) -> Handler:
    def handle(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
        return [Setting("engine", SG, origin, layer)], [f"{origin}: {why}"]
    return handle


def _declines_post_capture(origin: str, value: Any, layer: int
                           ) -> tuple[list[Setting], list[str]]:
    """A flag graphfit reads only as one that turns post-capture KV sizing off
    (`post_capture_kv_sizing_planned`, arg_groups/overrides.py:1799-1800, 1811-1814;
    graphfit.planner.engines.sglang_post_capture); its other effects are not modelled."""
    if not as_bool(origin, value):
        return [Setting("engine", SG, origin, layer)], []
    return ([Setting("post_capture_declined", True, origin, layer),
             Setting("engine", SG, origin, layer)],
            [f"{origin}: read only as turning post-capture KV sizing off (overrides.py:"
             f"1791-1821); its other effects are not modelled"])


def _dense_tp(origin: str, value: Any) -> int | None:
    """`--moe-dense-tp-size` (issue 23 s69c): an int (argparse's type) or null (unset). The
    values SGLang starts with (None, 1, --tp-size) are checked against the resolved TP size
    where `check_server_args` checks them (graphfit.planner.engines.sglang_server_nodes); a
    value below 1 is refused here, which SGLang refuses there too."""
    return None if value is None else as_int(origin, value)


REJECTION_SAMPLING = ("rejection sampling adds the drafter's draft_probs (max_bs x vocab, "
                      "float32), eagle_draft_cuda_graph_runner.py:199-205")


def _after_the_engine(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """A pasted line's rejection sampling: SGLang's own refusals of it come first (they say
    the fix), then graphfit's "not modelled" (graphfit.inputs.sglang_rules.refuse)."""
    return [Setting("engine", SG, origin, layer)], []


def _read_across(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """A config file's key read with the file's other keys after this loop (`--dcp-size` /
    `--dcp-comm-backend`: graphfit.inputs.sglang_unified_switches.file); here it only says
    the file is SGLang's."""
    return [Setting("engine", SG, origin, layer)], []


FILE_KEYS: dict[str, Handler] = {
    "max_running_requests": field_key("max_num_seqs", _positive, SG),
    "cuda_graph_max_bs_decode": _ranked("max_cudagraph_capture_size", _positive, PER_PHASE),
    "cuda_graph_bs_decode": _ranked("cudagraph_capture_sizes", _sizes, PER_PHASE),
    "cuda_graph_backend_decode": _backend_decode,
    "disable_decode_cuda_graph": _off_switch(OFF_SWITCH),
    "disable_cuda_graph": _off_switch(LEGACY, prefill=True),
    "cuda_graph_max_bs": _ambiguous("cuda-graph-max-bs"),
    "cuda_graph_bs": _ambiguous("cuda-graph-bs"),
    "disable_cuda_graph_padding": _padding_disabled,
    "speculative_algorithm": _speculative_algorithm,
    "speculative_num_steps": field_key("num_speculative_tokens", _positive, SG),
    "speculative_eagle_topk": field_key("speculative_eagle_topk", _positive, SG),
    "speculative_num_draft_tokens": field_key("speculative_num_draft_tokens", _positive, SG),
    "speculative_dflash_block_size": _dflash_block,
    "speculative_dspark_block_size": sglang_dspark.block_size,
    "context_length": field_key("max_model_len", _positive, SG),
    "tp_size": field_key("tp_size", _positive, SG),
    "tp": field_key("tp_size", _positive, SG),
    "attn_dp_size": field_key("attn_dp_size", _positive, SG),
    "attention_data_parallel_size": field_key("attn_dp_size", _positive, SG),
    "attn_cp_size": field_key("attn_cp_size", _positive, SG),
    "attention_context_parallel_size": field_key("attn_cp_size", _positive, SG),
    "enable_two_batch_overlap": field_key("two_batch_overlap", as_bool, SG),
    "enable_dp_attention": _enable_dp_attention,
    "dp_size": sglang_dsv4.file_dp_size(DP_NOTE),  # + the replicas (s44k)
    "chunked_prefill_size": _chunked_prefill,
    "disaggregation_mode": field_key("disaggregation_mode", _disaggregation, SG),
    "max_total_tokens": field_key("max_total_tokens", _positive, SG),
    # the hybrid mamba state cache and its slots per request (sglang_mamba_pool)
    "max_mamba_cache_size": field_key("max_mamba_cache_size", _positive, SG),
    "disable_radix_cache": field_key("disable_radix_cache", as_bool, SG),
    "mamba_radix_cache_strategy": field_key("mamba_radix_cache_strategy", as_str, SG),
    "disable_overlap_schedule": field_key("disable_overlap_schedule", as_bool, SG),
    "page_size": field_key("page_size", _positive, SG),
    # the state cache sized from GPU memory (sglang_mamba_memory)
    "mamba_ssm_dtype": field_key("mamba_ssm_dtype", _optional_str, SG),
    "mamba_full_memory_ratio": field_key("mamba_full_memory_ratio", _fraction, SG),
    "linear_attn_backend": field_key("linear_attn_backend", as_str, SG),
    "mamba_track_interval": field_key("mamba_track_interval", _positive, SG),
    # a multimodal model's GPU feature-transport pool, reserved before the state cache is
    # sized (kv_cache_configurator.py:202-219)
    "mm_feature_transport": field_key("mm_feature_transport", _optional_str, SG),
    # either keeps the speculative states on a disaggregated prefill server
    # (kv_cache_configurator.py:172-181; sglang_mamba_memory)
    "enable_pd_role_switch": field_key("enable_pd_role_switch", as_bool, SG),
    "enable_unified_memory": field_key("enable_unified_memory", as_bool, SG),
    # DFLASH / DSPARK under attention DP need it (graphfit.planner.engines.sglang_spec_dp)
    "enable_dp_lm_head": field_key("enable_dp_lm_head", as_bool, SG),
    # a decode server's radix cache is off (pd_disaggregation_hook.py:98-127; the mamba pool
    # reads that, sglang_mamba_pool.radix_off); turning it back on is experimental there
    # ReplaySSM speculative verify: its replay ring and the state cache sized without the
    # intermediate states (kv_cache_configurator.py:3262-3296, attention_hook.py:440-475)
    "enable_linear_replayssm_spec": _not_default(
        False, "ReplaySSM speculative verify, kv_cache_configurator.py:3269"),
    "mem_fraction_static": field_key("mem_fraction_static", _fraction, SG),
    # serving a multimodal model's language model alone: not modelled (SGLang's own checks,
    # architectures and roles: arg_groups/model_hook.py:1075-1110, pd_disaggregation_hook.py:
    # 351-376; the memory reserve: memory_hook.py:283-289)
    "language_only": _not_default(False, "encoder disaggregation's language-only server"),
    "language_model_only": _not_default(False, "text-only serving of a multimodal model"),
    "moe_a2a_backend": field_key("moe_a2a_backend", sglang_a2a.backend, SG),
    "deepep_mode": field_key("deepep_mode", sglang_a2a.deepep_mode, SG),
    "moe_runner_backend": field_key("moe_runner_backend", sglang_a2a.runner, SG),
    "speculative_moe_a2a_backend": field_key("speculative_moe_a2a_backend",
                                             sglang_a2a.draft, SG),
    # s63d: the draft's MoE runner (graphfit.planner.engines.sglang_draft_deepep)
    "speculative_moe_runner_backend": field_key("speculative_moe_runner_backend",
                                                sglang_a2a.draft_runner, SG),
    # SGLang's server_args.quantization: megamoe's NVFP4 rule (mega_moe_hook.py:67-75)
    "quantization": field_key("quant_method", _optional_str, SG),
    # speculative runners / buffers graphfit does not model: refused unless off
    "enable_multi_layer_eagle": field_key("multi_layer_eagle", as_bool, SG),
    "speculative_adaptive": _not_default(False, "adaptive speculation switches the draft "
                                         "length at run time, arg_groups/fields/spec.py:237"),
    "speculative_adaptive_config": _not_default(None, "adaptive speculation"),
    "speculative_use_rejection_sampling": _not_default(False, REJECTION_SAMPLING),
    # the dense MLP's TP size: the MLP / attention gathers (graphfit.planner.engines.
    # sglang_mlp_gather, sglang_moe_a2a) and check_server_args' values (issue 23 s69c)
    "moe_dense_tp_size": field_key("moe_dense_tp_size", _dense_tp, SG),
    # no attention-TP gather: the runners' alignment and gathered buffers (issue 23 s68l;
    # graphfit.planner.engines.sglang_moe_a2a)
    "disable_attn_tp_gather": field_key("disable_attn_tp_gather", as_bool, SG),
    "cuda_graph_config": cuda_graph_config,
    "pp_size": field_key("pp_size", _positive, SG),
    # prefill-graph settings graphfit does not model: refused unless off
    # read with the file's other keys (graphfit.inputs.sglang_prefill_cp.file, issue 23 s52c)
    "enable_prefill_cp": _read_across,
    "enable_mis": _not_default(False, "multi-item scoring, attention_hook.py:535-553"),
    "debug_tensor_dump_output_folder": _not_default(None, "tensor dump mode, "
                                                    "serving_hook.py:542-561"),
    # read across the file's keys (graphfit.inputs.sglang_unified_switches.file), as a
    # pasted line reads them (issue 23 s43l)
    "dcp_size": _read_across,
    # inputs of post_capture_kv_sizing_planned that turn it off (sglang_post_capture)
    "enable_kv_cache_sharding": _declines_post_capture,
    "enable_memory_saver": _declines_post_capture,
    "prefill_only_disable_kv_cache": _declines_post_capture,
    "cuda_graph_max_seq_len_prefill": _not_default(None, "context-bounded prefill replay"),
    "cuda_graph_prefill_max_context": _not_default(None, "context-bounded prefill replay"),
    "cuda_graph_max_bs_prefill": _ranked("cuda_graph_max_bs_prefill", _positive, PER_PHASE),
    "cuda_graph_bs_prefill": _ranked("cuda_graph_bs_prefill", _sizes, PER_PHASE),
    "cuda_graph_backend_prefill": _ranked("cuda_graph_backend_prefill", _prefill_backend,
                                          PER_PHASE),
    "disable_prefill_cuda_graph": _prefill_off,
    "speculative_ngram_max_bfs_breadth": _noted(
        "NGRAM's BFS breadth is its topk (a pasted line's or a config file's, sglang_ngram); "
        "it sets no graph shape (the verify width is --speculative-num-draft-tokens)"),
    # post-capture KV sizing's other inputs (graphfit.inputs.sglang_post_capture)
    "device": sglang_post_capture.device,
    "disaggregation_transfer_backend": field_key("disaggregation_transfer_backend", as_str, SG),
    "enable_dynamic_chunking": field_key("dynamic_chunking", as_bool, SG),
    "max_prefill_tokens": field_key("max_prefill_tokens", _positive, SG),
    # value checks SGLang runs for every model (arg_groups/mamba_hook.py:19-28)
    "mamba_cache_philox_rounds": sglang_mamba_flags.philox_rounds,
    "mamba_max_states_per_path": sglang_mamba_flags.max_states_per_path,
    # Nemotron-H's expert-remap rules, EPLB's start-up checks (graphfit.inputs.sglang_eplb)
    **sglang_eplb.KEYS,
    # Inkling's stream conv states sharded over attention TP (sglang_mamba_inkling)
    "enable_scattered_sconv": field_key("enable_scattered_sconv", as_bool, SG),
    # a capped FULL-prefill PD prefill server keeps no pre-capture slack for the mamba state
    # (kv_cache_configurator.py:3011-3030; graphfit.planner.engines.sglang_mamba_memory)
    "prefill_max_requests": field_key("prefill_max_requests", _positive, SG),
    # DeepSeek-V4's KV pools (graphfit.inputs.sglang_dsv4; the decode server's radix cache
    # is refused for other models by graphfit.planner.engines.sglang_dsv4_plan.check)
    **sglang_dsv4.KEYS,
    "dcp_comm_backend": _read_across,  # with dcp_size (issue 23 s43l)
    # the per-mode linear-attention kernels, read across keys by sglang_mamba_flags.settle /
    # settle_file (graphfit.inputs.sglang_linear_sm100; issue 23 s44m)
    "linear_attn_decode_backend": sglang_mamba_flags.linear_kernel,
    "linear_attn_prefill_backend": sglang_mamba_flags.linear_kernel,
    "linear_attn_verify_backend": sglang_mamba_flags.linear_kernel,
    "cp_strategy": _read_across,  # with enable_prefill_cp (issue 23 s52c)
    # LayerNorm SP's start-up checks, else not modelled (graphfit.planner.engines.
    # sglang_layernorm_sp; issue 23 s64k)
    "enable_layernorm_sp": field_key("enable_layernorm_sp", as_bool, SG),
    "enable_megamoe_for_layernorm_sp": field_key("enable_megamoe_for_layernorm_sp", as_bool,
                                                 SG),
    # the LoRA MoE runners' start-up checks (graphfit.planner.engines.sglang_lora_runner;
    # issue 23 s65d)
    **sglang_lora.KEYS,
    # check_server_args's node-count, torch-compile and PP checks (graphfit.planner.engines.
    # sglang_server_checks; issue 23 s67b)
    **sglang_server_flags.KEYS,
}
# keys a config file may hold that a pasted line's reader consumes itself
MODEL_KEYS: dict[str, Handler] = {"model_path": model_path}
# a pasted line's keys: its reader sees every key at once (deprecated_dp_attention)
# (a config file's attention_backend is vLLM's EngineConfig field; a pasted SGLang line's is
# SGLang's own, read here)
def _line_dtype(origin: str, value: Any) -> str | None:
    """A pasted line's --dtype: the target ModelConfig's dtype when explicit
    (`_get_and_verify_dtype`, model_config.py:2300-2323, graphfit.inputs.sglang_dtype);
    auto leaves the config.json's (graphfit.inputs.model_config.model_settings)."""
    return sglang_dtype.flag_dtype(as_str(origin, value))


LINE_KEYS: dict[str, Handler] = {**FILE_KEYS, "enable_dp_attention": _dp_attention_in_line,
                                  "dp_size": _noted(DP_NOTE),  # replicas: sglang_dsv4
                                  "attention_backend": _attention_backend,
                                  "speculative_use_rejection_sampling": _after_the_engine,
                                  # SGLang may turn adaptive speculation off itself
                                  # (graphfit.inputs.sglang_rules.adaptive_fallback)
                                  "speculative_adaptive": _after_the_engine,
                                  "speculative_adaptive_config": _after_the_engine,
                                  # refused as not modelled after SGLang's unified-memory
                                  # checks on such a line (graphfit.inputs.
                                  # sglang_unified_switches), else at once there
                                  "dcp_size": _after_the_engine,
                                  # the target ModelConfig's dtype (graphfit.inputs.
                                  # sglang_dtype); a config file's is not read
                                  "dtype": field_key("dtype", _line_dtype, SG),
                                  # DeepSeek-V4's backend default and trtllm assert
                                  # (graphfit.inputs.sglang_kv_dtype; issue 23 s48k)
                                  "kv_cache_dtype": sglang_kv_dtype.kv_cache_dtype,
                                  # SGLang's refusals, else planned or not modelled
                                  # (graphfit.inputs.sglang_prefill_cp, issue 23 s51c)
                                  "enable_prefill_cp": _after_the_engine}
IGNORED = frozenset({
    "tokenizer_path",
    "decode_attention_backend", "prefill_attention_backend", "speculative_draft_model_path",
    "speculative_draft_model_revision", "schedule_policy",
    "torch_compile_max_bs", "log_level", "random_seed",
    "enable_metrics", "speculative_accept_threshold_single",
    "speculative_accept_threshold_acc", "speculative_token_map", "speculative_attention_mode",
    "kv_cache_dtype", "served_model_name", "trust_remote_code", "host",
    "port", "max_queued_requests", "load_format", "revision",
})
