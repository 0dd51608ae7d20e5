"""Engine-config flags shared by every CLI command, spelled as the engines spell them.

`config_options` adds the flags to a command's signature once, resolves them (with the
`--config` file, the JSON configs and the environment) into a validated EngineConfig and hands
it to the command as `config`, so commands stay short and no flag is declared twice.

A serving command pasted after `--` (`graphfit plan -- vllm serve MODEL ...`) is read with
the engine's own rules (graphfit.inputs.commandline) and joins the command line: its settings
are peers of graphfit's own flags (two different values for one field are an error naming
both), its engine's defaults and the model's config.json are weak (anything explicit wins).

Precedence: `--config FILE` < command line. On the command line, flags, JSON configs
(`--speculative-config`, `--compilation-config`, `-O`, `--cuda-graph-config`) and
`VLLM_USE_V2_MODEL_RUNNER` are peers: setting one field to two different values is an error
naming both sources. `-O<level>` only implies a default cudagraph_mode, which an explicit one
overrides (as in vLLM). Engine-only flags imply their engine (`--max-running-requests` →
sglang, `--max_batch_size` → trtllm). SGLang's and TensorRT-LLM's flags are read by their
engine's key handlers (graphfit.inputs.sglang / .trtllm FILE_KEYS), the one place that maps
an engine's key to settings.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import os
import sys
import typing
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from graphfit.planner.config import EngineConfig
from graphfit.planner.core.enums import CUDAGraphMode, Engine
from graphfit.planner.core.errors import ConfigError

if TYPE_CHECKING:
    from graphfit.inputs.commandline import PastedLine
    from graphfit.inputs.settings import Resolved, Setting

F = TypeVar("F", bound=Callable[..., Any])
Expand = Callable[[str, Any], "tuple[list[Setting], list[str]]"]

# the words after graphfit's `--`: a serving command to read (set by graphfit.cli.application.main)
PASTED: ContextVar[tuple[str, ...] | None] = ContextVar("graphfit_pasted", default=None)

VLLM_PANEL = "vLLM inputs"
SGLANG_PANEL = "SGLang inputs (imply --engine sglang)"
TRTLLM_PANEL = "TensorRT-LLM inputs (imply --engine trtllm)"


@dataclass(frozen=True)
class ConfigFlag:
    """One flag: the EngineConfig field it sets, its type, its help.

    `param` is the keyword the command receives (default: the field); `engine` is the engine
    an engine-only flag implies; `expand` turns a source flag's value (a JSON config) into
    Settings of many fields; `switch` makes a plain on-flag without a `--no-` form.
    """

    field: str
    flag: str
    kind: type
    help: str
    parse: Callable[[Any], Any] | None = None
    param: str = ""
    aliases: tuple[str, ...] = ()
    engine: Engine | None = None
    expand: Expand | None = None
    switch: bool = False
    panel: str | None = None

    @property
    def name(self) -> str:
        return self.param or self.field


def parse_sizes(text: str) -> tuple[int, ...]:
    """'1,2,4,8' or '[1, 2, 4, 8]' -> (1, 2, 4, 8); order and duplicates are validated later.

    ASCII digits only: '[1.5]', '1,,2' and '²' are refused, never rounded or skipped."""
    from graphfit.inputs.values import as_sizes

    return as_sizes("--cudagraph-capture-sizes", text)


def integer(text: str) -> int:
    """A CLI integer: ASCII digits with an optional sign, within graphfit's MAX_INT (the
    default conversion takes '١٢', '1_000' and 10,000-digit numbers)."""
    if type(text) is str and len(text) <= 18 and text.isascii() and text.isdigit():
        return int(text)  # plain digits below MAX_INT: the reading layer's import is not needed
    from graphfit.inputs.reading import parse_int
    from graphfit.planner.core.limits import MAX_INT

    try:
        return parse_int("", str(text), minimum=-MAX_INT)
    except ConfigError as exc:
        raise typer.BadParameter(str(exc)) from None


def number(text: str) -> float:
    """A CLI number: finite, >= 0, at most MAX_FLOAT (no nan, inf, 1e308)."""
    from graphfit.inputs.reading import parse_float

    try:
        return parse_float("", str(text))
    except ConfigError as exc:
        raise typer.BadParameter(str(exc)) from None


def positive_number(text: str) -> float:
    """A CLI number > 0 (a budget): finite, at most MAX_FLOAT."""
    value = number(text)
    if value <= 0:
        raise typer.BadParameter(f"must be > 0, got {str(text).strip()}")
    return value


# The engine readers are imported when a flag is used, so `graphfit plan` imports none.
def _speculative(origin: str, value: Any) -> tuple[list[Setting], list[str]]:
    from graphfit.inputs import vllm as vllm_args

    return vllm_args.speculative_config(origin, value)


def _compilation(origin: str, value: Any) -> tuple[list[Setting], list[str]]:
    from graphfit.inputs import vllm as vllm_args

    return vllm_args.compilation_config(origin, value)


def _optimization(origin: str, value: Any) -> tuple[list[Setting], list[str]]:
    """-O3 is a level, -O '{...}' a compilation config (both spellings exist in vLLM)."""
    from graphfit.inputs import vllm as vllm_args

    text = str(value).strip()
    if text.startswith("{"):
        return vllm_args.compilation_config(origin, text)
    return vllm_args.optimization_level(origin, text), []


def _cuda_graph_config(origin: str, value: Any) -> tuple[list[Setting], list[str]]:
    """SGLang's {"decode": ..., "prefill": ...} or TensorRT-LLM's CudaGraphConfig JSON."""
    from graphfit.inputs import sglang as sglang_args
    from graphfit.inputs import trtllm as trtllm_args
    from graphfit.inputs.settings import COMMAND_LINE

    if sglang_args.is_phase_config(value):
        return sglang_args.cuda_graph_config(origin, value, COMMAND_LINE)
    return trtllm_args.cuda_graph_config(origin, value, COMMAND_LINE)


def _sglang(key: str) -> Expand:
    """The flag as SGLang's argument `key` (inputs/sglang.py FILE_KEYS reads it)."""
    def expand(origin: str, value: Any) -> tuple[list[Setting], list[str]]:
        from graphfit.inputs import sglang as sglang_args
        from graphfit.inputs.settings import COMMAND_LINE

        return sglang_args.FILE_KEYS[key](origin, value, COMMAND_LINE)
    return expand


def _draft_backend(origin: str, value: Any) -> tuple[list[Setting], list[str]]:
    """`--mtp-draft-backend`: SGLang's `--speculative-draft-attention-backend` (the backend
    multi-layer EAGLE's draft-extend steps run, graphfit.planner.engines.sglang_mtp_graphs)
    on graphfit's own flag line, where no pasted line names one."""
    from graphfit.inputs.settings import Setting
    from graphfit.planner.engines.sglang_mtp_graphs import check_draft_extend_backend

    return [Setting("mtp_draft_backend", check_draft_extend_backend(value), origin),
            Setting("engine", Engine.SGLANG, origin)], []


def _runner_backend(field: str) -> Callable[[str, Any], tuple[list[Setting], list[str]]]:
    """`--decode-attention-backend` / `--draft-attention-backend`: the backend whose
    seq_lens fill pads the target / draft-decode runner (graphfit.planner.engines.
    sglang_seq_len_fill), on graphfit's own flag line."""
    def expand(origin: str, value: Any) -> tuple[list[Setting], list[str]]:
        from graphfit.inputs.settings import Setting
        from graphfit.planner.engines.sglang_mtp_graphs import backend_name

        return [Setting(field, backend_name(field, value), origin),
                Setting("engine", Engine.SGLANG, origin)], []
    return expand


def _true_false(value: Any) -> bool:
    from graphfit.inputs.values import as_bool

    return as_bool("--dspark-sample-from-anchor", value)


def _attention_backend(value: Any) -> str | None:
    from graphfit.inputs import vllm as vllm_args

    return vllm_args.attention_backend("--attention-backend", value)


def _trtllm(key: str) -> Expand:
    """The flag as TensorRT-LLM's LLM API key or trtllm-serve option `key`."""
    def expand(origin: str, value: Any) -> tuple[list[Setting], list[str]]:
        from graphfit.inputs import trtllm as trtllm_args
        from graphfit.inputs.settings import COMMAND_LINE

        handler = trtllm_args.FILE_KEYS.get(key) or trtllm_args.SERVE_KEYS[key]
        return handler(origin, value, COMMAND_LINE)
    return expand


def _sglang_model(origin: str, value: Any) -> tuple[list[Setting], list[str]]:
    from graphfit.inputs import sglang as sglang_args
    from graphfit.inputs.settings import COMMAND_LINE

    return sglang_args.model_path(origin, value, COMMAND_LINE)


def _gpu(origin: str, value: Any) -> tuple[list[Setting], list[str]]:
    from graphfit.inputs.gpus import (
        gpu_capability,
        gpu_memory_gb,
        gpu_mnnvl_fabric,
        gpu_rocm,
        gpu_sm90,
        gpu_sm100,
    )
    from graphfit.inputs.settings import Setting

    settings = [Setting("gpu_memory_gb", gpu_memory_gb(origin, value), origin)]
    # a GPU name tells its generation too (SglangOptions.sm90 / sm100 / gpu_capability), and
    # an AMD one the ROCm platform (gpu_rocm, issue 23 s68l)
    for field, known in (("sm90", gpu_sm90(value)), ("sm100", gpu_sm100(value)),
                         ("gpu_capability", gpu_capability(value)),
                         ("mnnvl_fabric", gpu_mnnvl_fabric(value)),
                         ("gpu_rocm", gpu_rocm(value))):
        if known is not None:
            settings.append(Setting(field, known, origin))
    return settings, []


def _set(field: str, value: Any, engine: Engine) -> Expand:
    def expand(origin: str, given: Any) -> tuple[list[Setting], list[str]]:
        from graphfit.inputs.settings import Setting

        if not given:
            return [], []
        return [Setting(field, value, origin), Setting("engine", engine, origin)], []
    return expand


CONFIG_FLAGS: list[ConfigFlag] = [
    ConfigFlag("max_num_seqs", "--max-num-seqs", int, "Max sequences per batch (S)."),
    ConfigFlag("max_num_batched_tokens", "--max-num-batched-tokens", int,
               "Max tokens per batch (T). Default 8192."),
    ConfigFlag("max_model_len", "--max-model-len", int, "Max model length. Default 8192."),
    ConfigFlag("num_speculative_tokens", "--num-speculative-tokens", int,
               "Speculative tokens per step (k)."),
    ConfigFlag("spec_method", "--method", str,
               "Speculative method: none, eagle, eagle3, mtp, draft_model, dflash, dspark, "
               "ngram, ngram_gpu, suffix, extract_hidden_states, uno (SGLang's LoRA self-draft)."),
    ConfigFlag("cudagraph_capture_sizes", "--cudagraph-capture-sizes", str,
               "Explicit capture sizes, e.g. 1,2,4,8 or [1,2,4,8].", parse_sizes),
    ConfigFlag("max_cudagraph_capture_size", "--max-cudagraph-capture-size", int,
               "Largest capture size."),
    ConfigFlag("cudagraph_mode", "--cudagraph-mode", str,
               "NONE, PIECEWISE, FULL, FULL_DECODE_ONLY, FULL_AND_PIECEWISE (default)."),
    ConfigFlag("ladder", "--ladder", str,
               "Ladder policy: auto (the engine's own, default), vllm, vllm-legacy, explicit, "
               "sglang, sglang-spec, trtllm."),
    ConfigFlag("hidden_size", "--hidden-size", int, "Model hidden size. Default 4096."),
    ConfigFlag("dtype", "--dtype", str, "Model dtype. Default bfloat16."),
    ConfigFlag("runner", "--runner", str,
               "vLLM model runner: v1 or v2 (default: what vLLM 0.33 picks with "
               "VLLM_USE_V2_MODEL_RUNNER unset: v2, v1 for the suffix method)."),
    ConfigFlag("ceiling_family", "--ceiling-family", str,
               "default (ceiling 512) or blackwell (1024)."),
    ConfigFlag("performance_mode", "--performance-mode", str,
               "balanced (default), interactivity, throughput."),
    ConfigFlag("multimodal", "--multimodal", bool,
               "Allocate inputs_embeds and mrope positions buffers.", switch=True),
    ConfigFlag("engine", "--engine", str,
               "Engine to model: vllm (default), sglang, trtllm."),
    ConfigFlag("engine_version", "--engine-version", str,
               "Engine release to model, e.g. 0.33.0 (default: the newest release "
               "graphfit models for the engine; an unknown one lists the known)."),
    ConfigFlag("engine_file", "--engine-file", str,
               "An engine description (TOML/YAML/JSON: components, ladders, dispatch, "
               "families, buffers) to plan instead of a modelled engine."),
    ConfigFlag("config_file", "--config", str,
               "YAML/JSON file of engine settings (vllm serve --config style); flags win."),
    # vLLM's own inputs
    ConfigFlag("speculative_config", "--speculative-config", str,
               "vLLM speculative config JSON, e.g. '{\"method\": \"dflash\", "
               "\"num_speculative_tokens\": 3}'.",
               expand=_speculative, panel=VLLM_PANEL),
    ConfigFlag("compilation_config", "--compilation-config", str,
               "vLLM compilation config JSON (cudagraph_capture_sizes, "
               "max_cudagraph_capture_size, cudagraph_mode).",
               expand=_compilation, panel=VLLM_PANEL),
    ConfigFlag("optimization_level", "--optimization-level", str,
               "vLLM -O0..-O3 (a default cudagraph_mode) or -O '{compilation config JSON}'.",
               aliases=("-O",), expand=_optimization, panel=VLLM_PANEL),
    ConfigFlag("enforce_eager", "--enforce-eager", bool, "vLLM: no CUDA graphs.",
               expand=_set("cudagraph_mode", CUDAGraphMode.NONE, Engine.VLLM), switch=True,
               panel=VLLM_PANEL),
    ConfigFlag("attention_backend", "--attention-backend", str,
               "vLLM attention backend (FLASH_ATTN, FLASHINFER, TRITON_ATTN, ...): its "
               "cudagraph support level(s); auto: unknown, every level is covered.",
               parse=_attention_backend, engine=Engine.VLLM, panel=VLLM_PANEL),
    ConfigFlag("attention_cudagraph_support", "--attention-cudagraph-support", str,
               "vLLM attention backends' cudagraph support: NEVER, "
               "UNIFORM_SINGLE_TOKEN_DECODE, UNIFORM_BATCH, ALWAYS (default: from "
               "--attention-backend, else unknown and every level is covered).",
               engine=Engine.VLLM, panel=VLLM_PANEL),
    ConfigFlag("drafter_attention_cudagraph_support", "--drafter-cudagraph-support",
               str, "vLLM: the MRV2 DFlash/DSpark draft attention's own support level.",
               engine=Engine.VLLM, panel=VLLM_PANEL),
    ConfigFlag("dspark_sample_from_anchor", "--dspark-sample-from-anchor", str,
               "vLLM DSpark: the draft's hf_config sample_from_anchor, true (default) or "
               "false (the 1 + k fill-in layout).", parse=_true_false, engine=Engine.VLLM,
               panel=VLLM_PANEL),
    # SGLang server arguments (0.5.23 spellings; read by graphfit.inputs.sglang)
    ConfigFlag("max_num_seqs", "--max-running-requests", int,
               "SGLang: max running requests (S; default 48 with speculation, else the "
               "KV-sized pool).", param="max_running_requests",
               expand=_sglang("max_running_requests"), panel=SGLANG_PANEL),
    ConfigFlag("max_cudagraph_capture_size", "--cuda-graph-max-bs-decode", int,
               "SGLang: largest decode graph batch size (default from GPU memory and TP).",
               param="cuda_graph_max_bs_decode", expand=_sglang("cuda_graph_max_bs_decode"),
               panel=SGLANG_PANEL),
    ConfigFlag("cudagraph_capture_sizes", "--cuda-graph-bs-decode", str,
               "SGLang: decode batch sizes to capture, space separated: 1 2 4 8.",
               param="cuda_graph_bs_decode", expand=_sglang("cuda_graph_bs_decode"),
               panel=SGLANG_PANEL),
    ConfigFlag("cudagraph_mode", "--cuda-graph-backend-decode", str,
               "SGLang: full, breakable or disabled.", param="cuda_graph_backend_decode",
               expand=_sglang("cuda_graph_backend_decode"), panel=SGLANG_PANEL),
    ConfigFlag("cudagraph_mode", "--disable-decode-cuda-graph", bool,
               "SGLang: no decode CUDA graphs.", param="disable_decode_cuda_graph",
               expand=_sglang("disable_decode_cuda_graph"), switch=True, panel=SGLANG_PANEL),
    ConfigFlag("cudagraph_mode", "--disable-cuda-graph", bool,
               "SGLang (deprecated): no CUDA graphs.", param="disable_cuda_graph",
               expand=_sglang("disable_cuda_graph"), switch=True, panel=SGLANG_PANEL),
    ConfigFlag("cuda_graph_padding", "--disable-cuda-graph-padding", bool,
               "SGLang: replay graphs only for exact batch sizes.",
               param="disable_cuda_graph_padding",
               expand=_sglang("disable_cuda_graph_padding"), switch=True, panel=SGLANG_PANEL),
    ConfigFlag("max_cudagraph_capture_size", "--cuda-graph-max-bs", str,
               "SGLang before 0.5.23; now ambiguous (use --cuda-graph-max-bs-decode).",
               param="cuda_graph_max_bs", expand=_sglang("cuda_graph_max_bs"),
               panel=SGLANG_PANEL),
    ConfigFlag("cudagraph_capture_sizes", "--cuda-graph-bs", str,
               "SGLang before 0.5.23; now ambiguous (use --cuda-graph-bs-decode).",
               param="cuda_graph_bs", expand=_sglang("cuda_graph_bs"), panel=SGLANG_PANEL),
    ConfigFlag("spec_method", "--speculative-algorithm", str,
               "SGLang: EAGLE, EAGLE3, NEXTN, STANDALONE, NGRAM.",
               param="speculative_algorithm", expand=_sglang("speculative_algorithm"),
               panel=SGLANG_PANEL),
    ConfigFlag("num_speculative_tokens", "--speculative-num-steps", int,
               "SGLang: draft steps.", param="speculative_num_steps",
               expand=_sglang("speculative_num_steps"), panel=SGLANG_PANEL),
    ConfigFlag("speculative_eagle_topk", "--speculative-eagle-topk", int,
               "SGLang: draft branching (draft runner width; NGRAM: its BFS breadth).",
               expand=_sglang("speculative_eagle_topk"), panel=SGLANG_PANEL),
    ConfigFlag("speculative_num_draft_tokens", "--speculative-num-draft-tokens", int,
               "SGLang: tokens verified per request (verify width).",
               expand=_sglang("speculative_num_draft_tokens"), panel=SGLANG_PANEL),
    ConfigFlag("tp_size", "--tp-size", int, "SGLang: tensor parallel size.",
               aliases=("--tp",), expand=_sglang("tp_size"), panel=SGLANG_PANEL),
    ConfigFlag("attn_dp_size", "--attn-dp-size", int,
               "SGLang: attention data-parallel groups (the request pool is split).",
               expand=_sglang("attn_dp_size"), panel=SGLANG_PANEL),
    ConfigFlag("attn_cp_size", "--attn-cp-size", int, "SGLang: attention context parallel.",
               expand=_sglang("attn_cp_size"), panel=SGLANG_PANEL),
    ConfigFlag("two_batch_overlap", "--enable-two-batch-overlap", bool,
               "SGLang: two-batch overlap (even batch sizes).",
               param="enable_two_batch_overlap", expand=_sglang("enable_two_batch_overlap"),
               switch=True, panel=SGLANG_PANEL),
    ConfigFlag("enable_dp_lm_head", "--enable-dp-lm-head", bool,
               "SGLang: the LM head on the attention-TP group (DFLASH / DSPARK need it under "
               "attention DP).", param="enable_dp_lm_head",
               expand=_sglang("enable_dp_lm_head"), switch=True, panel=SGLANG_PANEL),
    ConfigFlag("multi_layer_eagle", "--enable-multi-layer-eagle", bool,
               "SGLang: multi-layer EAGLE (one draft-extend graph per step, no draft-decode "
               "graphs).", param="enable_multi_layer_eagle",
               expand=_sglang("enable_multi_layer_eagle"), switch=True, panel=SGLANG_PANEL),
    ConfigFlag("mtp_draft_backend", "--mtp-draft-backend", str,
               "SGLang: multi-layer EAGLE's draft attention backend (fa3/fa4: one "
               "draft-extend graph per size, others one per step). Default: SGLang's own "
               "for the GPU --gpu-memory-gb names and --model-path.",
               expand=_draft_backend, panel=SGLANG_PANEL),
    ConfigFlag("decode_attention_backend", "--decode-attention-backend", str,
               "SGLang: the target's decode attention backend (aiter pads seq_lens with "
               "the draft tokens).",
               expand=_runner_backend("decode_attention_backend"), panel=SGLANG_PANEL),
    ConfigFlag("draft_attention_backend", "--draft-attention-backend", str,
               "SGLang: the EAGLE draft runner's attention backend (else the decode "
               "one).",
               expand=_runner_backend("draft_attention_backend"), panel=SGLANG_PANEL),
    ConfigFlag("enable_dp_attention", "--enable-dp-attention", bool,
               "SGLang (deprecated): use --attn-dp-size.",
               expand=_sglang("enable_dp_attention"), switch=True, panel=SGLANG_PANEL),
    ConfigFlag("dp_size", "--dp-size", int, "SGLang: data-parallel replicas (each alike).",
               expand=_sglang("dp_size"), panel=SGLANG_PANEL),
    ConfigFlag("chunked_prefill_size", "--chunked-prefill-size", int,
               "SGLang: prefill chunk in tokens (default from GPU memory): the largest "
               "prefill graph by default.",
               expand=_sglang("chunked_prefill_size"), panel=SGLANG_PANEL),
    ConfigFlag("cuda_graph_backend_prefill", "--cuda-graph-backend-prefill", str,
               "SGLang: prefill graphs breakable (default), full or disabled.",
               expand=_sglang("cuda_graph_backend_prefill"), panel=SGLANG_PANEL),
    ConfigFlag("cuda_graph_max_bs_prefill", "--cuda-graph-max-bs-prefill", int,
               "SGLang: largest prefill graph in tokens (default chunked_prefill_size).",
               expand=_sglang("cuda_graph_max_bs_prefill"), panel=SGLANG_PANEL),
    ConfigFlag("cuda_graph_bs_prefill", "--cuda-graph-bs-prefill", str,
               "SGLang: prefill token counts to capture, space separated: 256 512 1024.",
               expand=_sglang("cuda_graph_bs_prefill"), panel=SGLANG_PANEL),
    ConfigFlag("cuda_graph_backend_prefill", "--disable-prefill-cuda-graph", bool,
               "SGLang: no prefill CUDA graphs.", param="disable_prefill_cuda_graph",
               expand=_sglang("disable_prefill_cuda_graph"), switch=True, panel=SGLANG_PANEL),
    ConfigFlag("disaggregation_mode", "--disaggregation-mode", str,
               "SGLang PD role: null (default), prefill (no decode graphs) or decode (no "
               "prefill graphs).", expand=_sglang("disaggregation_mode"), panel=SGLANG_PANEL),
    ConfigFlag("moe_a2a_backend", "--moe-a2a-backend", str,
               "SGLang: MoE all-to-all backend (none, deepep, mooncake, nixl, "
               "ascend_fuseep, ascend_tp, mori, pplx): aligns the decode ladder to the "
               "attention-TP width.",
               expand=_sglang("moe_a2a_backend"), panel=SGLANG_PANEL),
    ConfigFlag("max_model_len", "--context-length", int, "SGLang: context length.",
               param="context_length", expand=_sglang("context_length"), panel=SGLANG_PANEL),
    ConfigFlag("model_path", "--model-path", str,
               "SGLang: a local checkpoint DIR; its config.json gives the model class, "
               "hidden and vocab size, dtype and length.", expand=_sglang_model,
               panel=SGLANG_PANEL),
    ConfigFlag("gpu_memory_gb", "--gpu-memory-gb", str,
               "GPU memory in GiB or a GPU name (H100, H200, B200, A10...): SGLang's default "
               "decode max_bs. TensorRT-LLM: an NVIDIA GPU's name, its SM version "
               "(moe_config.backend AUTO).", expand=_gpu, panel=SGLANG_PANEL),
    ConfigFlag("weights_gb", "--weights-gb", float,
               "SGLang hybrid mamba models: GiB one rank's weights take (the 'mem usage' of "
               "SGLang's 'Load weight end' log): with --gpu-memory-gb, sizes the state "
               "cache from memory.", engine=Engine.SGLANG, panel=SGLANG_PANEL),
    ConfigFlag("preload_avail_gb", "--preload-avail-gb", float,
               "SGLang: free GiB before the weights load ('Load weight begin. avail mem'); "
               "default: --gpu-memory-gb.", engine=Engine.SGLANG, panel=SGLANG_PANEL),
    ConfigFlag("architecture", "--architecture", str,
               "The model's class (e.g. LlamaForCausalLM): SGLang's EAGLE defaults.",
               panel=SGLANG_PANEL),
    ConfigFlag("vocab_size", "--vocab-size", int, "Vocabulary size (logits buffers).",
               panel=SGLANG_PANEL),
    # TensorRT-LLM LLM API options and trtllm-serve flags
    ConfigFlag("max_num_seqs", "--max-batch-size", int,
               "TensorRT-LLM: max_batch_size (S, default 2048).", param="max_batch_size",
               aliases=("--max_batch_size",), expand=_trtllm("max_batch_size"),
               panel=TRTLLM_PANEL),
    ConfigFlag("max_num_batched_tokens", "--max-num-tokens", int,
               "TensorRT-LLM: max_num_tokens (T, default 8192).", param="max_num_tokens",
               aliases=("--max_num_tokens",), expand=_trtllm("max_num_tokens"),
               panel=TRTLLM_PANEL),
    ConfigFlag("max_model_len", "--max_seq_len", int, "TensorRT-LLM: max_seq_len.",
               param="max_seq_len", expand=_trtllm("max_seq_len"), panel=TRTLLM_PANEL),
    ConfigFlag("tensor_parallel_size", "--tp_size", int,
               "trtllm-serve: tensor parallel size (feature-mode encoders stay eager above 1; "
               "the attention-DP rank count).",
               param="trtllm_tp_size", aliases=("--tensor_parallel_size",),
               expand=_trtllm("tp_size"), panel=TRTLLM_PANEL),
    ConfigFlag("config_file", "--extra_llm_api_options", str,
               "trtllm-serve: the LLM API options YAML (like --config; implies trtllm).",
               param="extra_llm_api_options", panel=TRTLLM_PANEL),
    ConfigFlag("cuda_graph_config", "--cuda-graph-config", str,
               "SGLang's per-phase JSON ('{\"decode\": {\"max_bs\": 64}}') or TensorRT-LLM's "
               "CudaGraphConfig JSON (batch_sizes, max_batch_size, enable_padding).",
               expand=_cuda_graph_config, panel=TRTLLM_PANEL),
]


# SGLang's list flags take their values space separated (argparse nargs="+")
LIST_FLAGS = frozenset({"--cuda-graph-bs-decode", "--cuda-graph-bs", "--cuda-graph-bs-prefill"})


def join_list_flags(args: list[str]) -> list[str]:
    """`--cuda-graph-bs-decode 1 2 4` -> `--cuda-graph-bs-decode "1 2 4"` (click options take
    one value): the numbers after a list flag, up to the next option, become its value."""
    out: list[str] = []
    i = 0
    while i < len(args):
        token = args[i]
        out.append(token)
        i += 1
        if token == "--":  # a pasted serving command: the engine's parser reads it as is
            return out + args[i:]
        if token in LIST_FLAGS:
            values: list[str] = []
            while i < len(args) and args[i].replace(",", " ").split() and all(
                    v.isdigit() for v in args[i].replace(",", " ").split()):
                values.append(args[i])
                i += 1
            if values:
                out.append(" ".join(values))
    return out


@functools.cache  # one Option per flag, shared by every command (they are only read)
def _parameter(flag: ConfigFlag, axis: bool = False) -> inspect.Parameter:
    names = (flag.flag, *flag.aliases)
    kind = str if axis else flag.kind
    text = f"{flag.help} Swept: a range, e.g. 1..64, 8..64/8 or 1,2,4." if axis else flag.help
    if flag.switch:
        option = typer.Option(f"{flag.flag}/", help=text, show_default=False,
                              rich_help_panel=flag.panel)
    elif kind is bool:
        option = typer.Option(f"{flag.flag}/--no-{flag.flag[2:]}", help=text,
                              show_default=False, rich_help_panel=flag.panel)
    else:
        option = typer.Option(*names, help=text, show_default=False,
                              rich_help_panel=flag.panel,
                              parser=integer if kind is int else None)
    annotation = Annotated[kind | None, option]  # type: ignore[valid-type]
    return inspect.Parameter(flag.name, inspect.Parameter.KEYWORD_ONLY, default=None,
                             annotation=annotation)


def command_line_settings(values: Mapping[str, Any],
                          skip: frozenset[str] = frozenset()) -> tuple[list[Setting], list[str],
                                                                       Path | None]:
    """Settings from the flags the user gave (None = not given), notes, the config file."""
    from graphfit.inputs.settings import Setting

    settings: list[Setting] = []
    notes: list[str] = []
    config_file: Path | None = None
    for flag in CONFIG_FLAGS:
        value = values.get(flag.name)
        if value is None or flag.name in skip:
            continue
        if flag.field == "engine_file":
            from graphfit.inputs.engine_file import load_engine_file

            model = load_engine_file(str(value))
            settings += [Setting("engine", model.engine, flag.flag),
                         Setting("engine_version", model.release, flag.flag)]
        elif flag.field == "config_file":
            if config_file is not None:
                raise ConfigError(f"{flag.flag}: give one config file (--config or "
                                  f"--extra_llm_api_options)")
            config_file = Path(value)
            if flag.name == "extra_llm_api_options":
                settings.append(Setting("engine", Engine.TRTLLM, flag.flag))
        elif flag.expand is not None:
            found, more = flag.expand(flag.flag, value)
            settings += found
            notes += more
        else:
            parsed = flag.parse(value) if flag.parse else value
            settings.append(Setting(flag.field, parsed, flag.flag))
            if flag.engine is not None:
                settings.append(Setting("engine", flag.engine, flag.flag))
    return settings, notes, config_file


def read_pasted(words: Sequence[str] | None,
                values: Mapping[str, Any] | None = None) -> PastedLine | None:
    """The pasted serving command (None when there is none), read with the release the user
    named (`--engine-version`, else `engine_version` in the `--config` file), if any."""
    if words is None:
        return None
    from graphfit.inputs.commandline import read, shell_words
    from graphfit.inputs.sglang_dspark_env import line_environment
    from graphfit.inputs.sglang_prefill_cp_platform import AfterHip, after_hip

    try:
        return read(words, _asked_version(values or {}))
    except AfterHip as exc:  # SGLang's HIP refusal comes first on a ROCm GPU (issue 23 s60r)
        # the attention hook reads the line's environment too (skip-softmax, issue 23 s67p)
        with line_environment(shell_words(words)[0]):
            raise after_hip(exc, (values or {}).get("gpu_memory_gb")) from None


def _asked_version(values: Mapping[str, Any]) -> str | None:
    """The engine release the user named explicitly: the flag, else the config file's key."""
    version = values.get("engine_version")
    if version is not None:
        return str(version)
    path = values.get("config_file")
    if path is None:
        return None
    from graphfit.inputs.config_file import file_settings

    found, _ = file_settings(Path(path))
    named = [s.value for s in found if s.field == "engine_version" and not s.weak]
    return str(named[-1]) if named else None


def resolve_values(values: Mapping[str, Any], environ: Mapping[str, str] | None = None,
                   skip: frozenset[str] = frozenset(),
                   pasted: PastedLine | None = None) -> Resolved:
    """Merge flags, the pasted command, the config file and the environment (os.environ
    unless given; the pasted line's `VAR=value` prefixes over it)."""
    from graphfit.inputs.resolve import resolve

    settings, notes, config_file = command_line_settings(values, skip)
    env = dict(os.environ if environ is None else environ)
    if pasted is not None:
        settings += [s for s in pasted.settings if s.field not in _skipped_fields(skip)]
        notes = [*pasted.notes, *notes]
        env.update(pasted.environ)
    try:  # graphfit's --model-path: the target of a file naming none (issue 23 s62c)
        with _flag_target(values, config_file, pasted):
            resolved = resolve(settings, config_file=config_file, environ=env, notes=notes)
    except ConfigError as exc:  # the file's prefill-CP reading: on a ROCm GPU SGLang's HIP
        raise _after_hip(exc, values, config_file) from None  # refusal first (s60r)
    if pasted is not None:
        from dataclasses import replace

        from graphfit.inputs.commandline import default_notes
        from graphfit.inputs.line_defaults import settle

        resolved = replace(resolved, notes=(
            *resolved.notes, *default_notes(pasted, resolved.origins, resolved.values)))
        resolved = settle(pasted, resolved, values.get("gpu_memory_gb"),
                          _skipped_fields(skip))
        if pasted.engine is Engine.SGLANG:
            from graphfit.inputs.commandline import target
            from graphfit.inputs.sglang_quant_config_file import check_gpu

            # the found quantization file's class on the line's GPU (issue 23 s53q), on the
            # config.json the line's --json-model-override-args make, as the reader saw it
            with target(pasted.engine, pasted.model, pasted.values):
                check_gpu(pasted.values.get("quantization"), pasted.model,
                          resolved.values.get("gpu_capability"), pasted.values)  # s67q
    if config_file is not None:
        from graphfit.inputs.config_file import read_mapping
        from graphfit.inputs.sglang_mamba_flags import settle_file

        # stochastic rounding's GPU checks on the file's SGLang keys (sglang_mamba_flags)
        resolved = settle_file(read_mapping(config_file), config_file.name, resolved,
                               values.get("gpu_memory_gb"))
        from graphfit.inputs import sglang_file_tokenizer, sglang_minimax_target

        # a MiniMax-M3 target on the GPU's platform (issue 23 s53m: AMD skips DeepEP asserts)
        # (the target: the file's model_path, else graphfit's --model-path, issue 23 s62c)
        from graphfit.inputs.config_file import with_target
        from graphfit.inputs.sglang_file_drafts import settle as drafts_settle
        from graphfit.inputs.values import normalize_key

        targeted = with_target({normalize_key(k): v for k, v in read_mapping(
            config_file).items() if isinstance(k, str)},
            values.get("model_path") if pasted is None else None)
        sglang_minimax_target.settle_file(targeted, values.get("gpu_memory_gb"),
                                          env)  # the NVFP4 hook's environment check (s57m)
        # a MiniMax DSPARK draft's deferred refusal, after the hook's (issue 23 s60m)
        drafts_settle(targeted, resolved)
        if pasted is None:  # prefill CP's breakable graphs: the file's prefill backend, else
            # SGLang's default on the named GPU (graphfit.inputs.sglang_prefill_cp_bcg, s55g)
            from graphfit.inputs.sglang_prefill_cp_bcg import settle_file as cp_bcg_settle

            resolved = cp_bcg_settle(read_mapping(config_file), resolved,
                                     values.get("gpu_memory_gb"))

        # the file's tokenizer_path: s45l's connector-scheme rule (issue 23 s46f)
        sglang_file_tokenizer.check(read_mapping(config_file), resolved.values.get("engine"),
                                    pasted.values if pasted is not None else None)
        from dataclasses import replace as replaced

        # a hub-id target's processor note on the file's tokenizer_path (issue 23 s62c)
        resolved = replaced(resolved, notes=(*resolved.notes, *sglang_file_tokenizer.note(
            read_mapping(config_file), resolved.values.get("engine"),
            pasted.values if pasted is not None else None)))
        from graphfit.inputs import sglang_file_chunk_off

        # the model hooks' chunking off / Clef-Kev TP on the file and line (issue 23, s70a)
        resolved = sglang_file_chunk_off.settle(
            read_mapping(config_file), pasted.values if pasted is not None else None,
            resolved, values.get("model_path"))
    if pasted is None and config_file is not None:
        from dataclasses import replace

        from graphfit.inputs import sglang_quant_config_file
        from graphfit.inputs.config_file import read_mapping

        # the file's quantization on its (or graphfit's) model_path: the loader's file search
        resolved = replace(resolved, notes=(*resolved.notes, *sglang_quant_config_file.check_file(
            resolved.values, values.get("model_path"), read_mapping(config_file))))
    if pasted is None and config_file is None and isinstance(values.get("model_path"), str):
        given = next((values[k] for k in ("context_length", "max_model_len")
                      if values.get(k) is not None), None)  # --context-length's own key
        resolved = _flag_length_check(resolved, values["model_path"], given, env)
    if pasted is None and values.get("model_path") is not None:
        from graphfit.inputs.sglang_draft_default import settle_flags

        # graphfit's own SGLang flags: multi-layer EAGLE's draft backend, SGLang's default
        resolved = settle_flags(resolved, values["model_path"], values.get("gpu_memory_gb"))
    return resolved


def _flag_length_check(resolved: Resolved, model: str, given: object,
                       environ: Mapping[str, str]) -> Resolved:
    """graphfit's own SGLang flags (`--model-path DIR --context-length N`) checked as SGLang
    checks the same line: a length above the model's derived one refused unless the
    environment allows it (configs/model_config.py:1295-1316), a warning where graphfit does
    not know the class default SGLang takes (as for a pasted line or a config file)."""
    engine = resolved.values.get("engine")
    if str(getattr(engine, "value", engine)) != "sglang":
        return resolved
    from dataclasses import replace

    from graphfit.inputs import model_config, sglang_context_length

    sglang_context_length.check_flag(given, model_config.sglang_length(model), environ)
    return replace(resolved, notes=(*resolved.notes, *model_config.ask_length(model, given)))


def _flag_target(values: Mapping[str, Any], config_file: Path | None,
                 pasted: PastedLine | None) -> contextlib.AbstractContextManager[None]:
    """graphfit's --model-path as the target of a config file naming no `model_path`
    (graphfit.inputs.config_file.flag_target, issue 23 s62c); the file's module is imported
    only when a file is given."""
    if config_file is None or pasted is not None:
        return contextlib.nullcontext()
    from graphfit.inputs.config_file import flag_target

    return flag_target(values.get("model_path"))


def _after_hip(exc: ConfigError, values: Mapping[str, Any], config_file: Path | None
               ) -> ConfigError:
    """A config file's prefill-CP answer SGLang gives after its HIP check
    (graphfit.inputs.sglang_prefill_cp_platform.AfterHip) on the GPU of graphfit's flag, else
    the file's own `gpu_memory_gb` (issue 23 s60r); any other error unchanged."""
    from graphfit.inputs.sglang_prefill_cp_platform import AfterHip, after_hip

    if not isinstance(exc, AfterHip):
        return exc
    gpu = values.get("gpu_memory_gb")
    if gpu is None and config_file is not None:
        from graphfit.inputs.config_file import read_mapping
        from graphfit.inputs.values import normalize_key

        gpu = {normalize_key(k): v for k, v in read_mapping(config_file).items()
               if isinstance(k, str)}.get("gpu_memory_gb")
    return after_hip(exc, gpu)


def _skipped_fields(skip: frozenset[str]) -> frozenset[str]:
    return frozenset(f.field for f in CONFIG_FLAGS if f.name in skip)


def build_config(values: dict[str, Any], environ: Mapping[str, str] | None = None,
                 pasted: Sequence[str] | None = None) -> EngineConfig:
    """EngineConfig from the flags the user gave (None = not given, take the default) and
    an optional pasted serving command (its words)."""
    return resolve_values(values, environ, pasted=read_pasted(pasted, values)).config()


@dataclass(frozen=True)
class GridInputs:
    """What a sweep command receives: the resolved base and the swept fields' values."""

    base: Resolved
    axes: Mapping[str, tuple[int, ...]]


def _print_notes(notes: tuple[str, ...]) -> None:
    from graphfit.cli.errors import printable

    for note in dict.fromkeys(notes):  # an input's warning keeps its own word
        label = "" if note.startswith("warning: ") else "note: "
        print(f"{label}{printable(note)}", file=sys.stderr)


def config_options(func: F | None = None, *,
                   axes: Mapping[str, Callable[[str, str], tuple[int, ...]]] | None = None
                   ) -> Any:
    """Decorator: add every CONFIG_FLAGS flag to `func` and pass it `config=EngineConfig`.

    If `func` declares `config: EngineConfig | None = None`, giving no config flag at all
    passes None (e.g. `check --plan FILE` reads its config from the file). With `axes`
    (field -> range parser) those fields' main flags take ranges instead, and the command
    receives `grid=GridInputs` instead of `config`. Notes (ignored keys) go to stderr after
    the command, and never on bad input, which stays one `error:` line.
    """
    if func is None:
        return lambda f: config_options(f, axes=axes)
    axis_parsers = dict(axes or {})
    signature = inspect.signature(func)
    hints = typing.get_type_hints(func, include_extras=True)
    injected = "grid" if axis_parsers else "config"
    optional = signature.parameters[injected].default is None
    own = [p.replace(annotation=hints.get(p.name, p.annotation))
           for p in signature.parameters.values() if p.name != injected]
    axis_flags = {f.name: f for f in CONFIG_FLAGS if f.name in axis_parsers}
    names = [flag.name for flag in CONFIG_FLAGS]

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        values = {name: kwargs.pop(name, None) for name in names}
        output_format = kwargs.pop(FORMAT_PARAM, None) or "table"
        from graphfit.cli.errors import fail
        from graphfit.cli.output import FORMAT, FORMATS

        if output_format not in FORMATS:
            raise fail(f"format: {output_format!r} is not one of {', '.join(FORMATS)}")
        from graphfit.inputs.reading import one_read_per_file

        token = FORMAT.set(output_format)
        try:
            with one_read_per_file():  # the command's readers share each JSON file's parse
                return _run(values, args, kwargs)
        finally:
            FORMAT.reset(token)

    def _run(values: dict[str, Any], args: Any, kwargs: dict[str, Any]) -> Any:
        from graphfit.cli.errors import EXIT_BAD_INPUT, handled

        injected_value: Any = None
        notes: tuple[str, ...] = ()
        with handled():
            pasted = read_pasted(PASTED.get(), values)
            if optional and pasted is None and all(
                    v is None for k, v in values.items() if k != "engine_file"):
                if values.get("engine_file") is not None:  # `check --plan FILE` of its plan
                    from graphfit.inputs.engine_file import load_engine_file

                    load_engine_file(str(values["engine_file"]))
            elif axis_parsers:
                injected_value = _grid(values, axis_flags, axis_parsers, pasted)
                notes = injected_value.base.notes
            else:
                resolved = resolve_values(values, pasted=pasted)
                injected_value = resolved.config()
                notes = resolved.notes + resolved.implied(injected_value)
        try:
            result = func(*args, **{injected: injected_value}, **kwargs)
        except typer.Exit as exc:
            if exc.exit_code != EXIT_BAD_INPUT:
                _print_notes(notes)
            raise
        _print_notes(notes)
        return result

    params = own + [_format_parameter()] + [_parameter(flag, flag.name in axis_parsers)
                                            for flag in CONFIG_FLAGS]
    wrapper.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in params}
    del wrapper.__wrapped__
    return wrapper


FORMAT_PARAM = "output_format"


def _format_parameter() -> inspect.Parameter:
    option = typer.Option("--format", help="table (default) or markdown (tables to paste "
                          "into an issue or a pull request).", show_default=False)
    return inspect.Parameter(FORMAT_PARAM, inspect.Parameter.KEYWORD_ONLY, default=None,
                             annotation=Annotated[str | None, option])


def _grid(values: dict[str, Any], axis_flags: Mapping[str, ConfigFlag],
          parsers: Mapping[str, Callable[[str, str], tuple[int, ...]]],
          pasted: PastedLine | None = None) -> GridInputs:
    axes: dict[str, tuple[int, ...]] = {}
    swept: dict[str, ConfigFlag] = {}
    for name, flag in axis_flags.items():
        text = values.get(name)
        if text is not None:  # an axis not given is not swept (the base value is used)
            axes[flag.field] = parsers[name](flag.flag, str(text))
            swept[flag.field] = flag
    settings, _, _ = command_line_settings(values, frozenset(axis_flags))
    if pasted is not None:
        settings += [s for s in pasted.settings if not s.weak]
    for s in settings:
        if s.field in swept:
            raise ConfigError(f"{s.field}: swept by {swept[s.field].flag}; "
                              f"{s.origin} cannot also set it")
    base = resolve_values(values, skip=frozenset(axis_flags), pasted=pasted)
    return GridInputs(base, axes)
