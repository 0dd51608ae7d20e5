"""TensorRT-LLM (PyTorch backend) reference rules, restated from its source code.

TensorRT-LLM's wheel is too large to fetch in CI, so unlike the vLLM and SGLang oracles this
module does not run the engine's code: it restates, in our own code, the rules the files below
implement, each function's docstring naming the file, the function and the commit read (stored
copies of github.com/NVIDIA/TensorRT-LLM, read with the search tools; see PINS). Where the
stored versions differ, the newest one is modelled and the docstring says what changed.

Scope: decode CUDA graphs of the PyTorch backend (`DecodeCudaGraphConfig`), beam search
(`max_beam_width`, without speculation), mrope models, attention-DP padding; the encoder
runners' token-mode graphs (encoder-only `EncodeCudaGraphConfig`, an encoder-decoder model's
`encoder_cuda_graph_config` with or without fixed sequence slots) and the multimodal encoders'
`MultimodalEncoderGraphRunner` (sections at the end); no feature-mode encoders, no
`max_concurrency` / dynamic draft-length dispatch.

Citations: the stored copies come from the search index (the repository snapshot is 2.5 GB,
over what `fetch` brings here), which serves a file in 16,000-character pages. The lines were
counted from the pages read from offset 0 (every newline up to the cited text), so `LINES`
cites each fact as `path@commit:first-last`. `CITES` names, for each fact, the file, the
commit and the function (and the character window it was first read in); every fact has its
lines (`UNCOUNTED`, the facts without, is empty and tests/oracle/test_trtllm_citations.py
keeps it so). Inputs outside the scope raise
`NotModelled`; inputs TensorRT-LLM rejects raise `Rejected` (its pydantic ValidationError,
ValueError, AssertionError or click usage error).
"""

from __future__ import annotations

import ast
import bisect
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

REPO = "NVIDIA/TensorRT-LLM"

# The stored copies read (commit of the stored version; the 2026 main branch unless noted).
PINS: dict[str, tuple[str, str]] = {
    "llm_args": ("tensorrt_llm/llmapi/llm_args.py", "0004396720054fd8e205cbf616f21f0b57c6b412"),
    "cuda_graph_helpers": ("tensorrt_llm/_torch/pyexecutor/engine/cuda_graph.py",
                           "c0edad93fd1620b2c95e3c2add800eb2243249bc"),
    "model_engine": ("tensorrt_llm/_torch/pyexecutor/model_engine.py",
                     "c0edad93fd1620b2c95e3c2add800eb2243249bc"),
    "cuda_graph_runner": ("tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py",
                          "c0edad93fd1620b2c95e3c2add800eb2243249bc"),
    "decoder_runner": ("tensorrt_llm/_torch/pyexecutor/engine/runners/decoder/runner.py",
                       "0ea8c1debd2aae24c7fceaf5474f0c627114cc6a"),
    "serve": ("tensorrt_llm/commands/serve.py", "00209af149e7774406881a37283dce303571eb11"),
    "eagle3_dynamic_tree": ("tensorrt_llm/_torch/speculative/eagle3_dynamic_tree.py",
                            "470bb72055d5d397c60be4dda1e8f490e7002440"),
    "mtp_dynamic_tree": ("tensorrt_llm/_torch/speculative/mtp_dynamic_tree.py",
                         "40043dacba08a768dcd85e61d6157f3f986814d7"),
    "micro_batch_scheduler": ("cpp/tensorrt_llm/batch_manager/microBatchScheduler.cpp",
                              "b8b7b782622c5dc57307f42ea96628f66b34f922"),
    "runners_common": ("tensorrt_llm/_torch/pyexecutor/engine/runners/common.py",
                       "13b902ed484086bc3d00a3ee80a79edb082fb1ab"),
    "piecewise_optimizer": ("tensorrt_llm/_torch/compilation/piecewise_optimizer.py",
                            "05fff03d90c7f5ff23b19d3f25da4018e3d864ad"),
    # a 2025 copy (96,466 characters): the executor's attention-DP dummy requests
    "py_executor": ("tensorrt_llm/_torch/pyexecutor/py_executor.py",
                    "9521caf4696c1fb79b0f946f0d980f8f0ebd3e64"),
    # older copies, read to say what changed
    "model_engine_2025": ("tensorrt_llm/_torch/pyexecutor/model_engine.py",
                          "001e67005b4f64b69b0045456870be48ab7b2cf0"),
    "cuda_graph_runner_1.0.0rc4": ("tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py",
                                   "000a01de66f0eab4ab05640711f0253f50f5209c"),
    "serve_2025": ("tensorrt_llm/commands/serve.py", "4c05a74891e4df8066f08ed4ce14b0972abe4e25"),
    "llm_args_2025": ("tensorrt_llm/llmapi/llm_args.py",
                      "fcd3f31682808ae56118ae43c1d7864a3a945e6f"),
}


def cite(key: str) -> str:
    """`path@commit` of a pinned file, for test messages."""
    path, commit = PINS[key]
    return f"{REPO}/{path}@{commit[:12]}"


# fact -> (pin, function or class, first char of the 16000-char window it was read in)
CITES: dict[str, tuple[str, str, int]] = {
    "mtp_dynamic_tree": ("llm_args", "MTPDecodingConfig.use_dynamic_tree / "
                         "dynamic_tree_max_topK fields and set_max_total_draft_tokens", 112000),
    "mtp_dynamic_tree_rules": ("llm_args", "MTPDecodingConfig.set_max_total_draft_tokens "
                               "(dynamic branch)", 128000),
    "eagle_dynamic_tree": ("llm_args", "EagleDecodingConfig.validate_eagle_config", 96000),
    "dynamic_tree_max_batch_size": ("llm_args", "Eagle3DecodingConfig._max_batch_size "
                                    "(must equal the global max_batch_size)", 112000),
    "sa": ("llm_args", "SADecodingConfig.validate_sa_config", 112000),
    "pard": ("llm_args", "PARDDecodingConfig.tokens_per_gen_step (2 * max_draft_len)", 128000),
    "dflash": ("llm_args", "DFlashDecodingConfig.tokens_per_gen_step (max_draft_len + 1)",
               128000),
    "encode_graph_config": ("llm_args", "EncodeCudaGraphConfig.validate_encoder_cuda_graph_"
                            "config, _generate_cuda_graph_num_tokens / _seq_lens", 0),
    "mm_encoder_graph_config": ("llm_args", "MultimodalEncoderCudaGraphConfig._normalize",
                                16000),
    "static_tensors": ("cuda_graph_runner", "CUDAGraphRunner._create_shared_static_tensors "
                       "(rows = min(max_graph_bs * max_beam_width * tokens, max_num_tokens); "
                       "mrope position_ids (3, 1, rows), mrope_delta_read_seq_slots (rows,))",
                       0),
    "capture_tokens": ("cuda_graph_runner", "CUDAGraphRunner._get_num_tokens_for_key "
                       "(batch_size * max_beam_width * (draft_len + 1)) and capture's "
                       "static slices", 32000),
    "adp_padding": ("cuda_graph_runner", "CUDAGraphRunner._get_padded_batch (pad to the "
                    "largest rank's batch) and maybe_get_cuda_graph (lines 513-625: equal "
                    "sizes or eager)", 16000),
    "decoder_buffers": ("decoder_runner", "_allocate_decoder_buffers (gather_ids_cuda, "
                        "cache_indirection_attention, mrope_position_ids_cuda)", 12000),
    "filter_tokens": ("cuda_graph_helpers", "filter_cuda_graph_batch_sizes", 0),
    "dynamic_tree_worker": ("eagle3_dynamic_tree", "Eagle3OneModelDynamicTreeWorker.__init__",
                            3000),
    "mtp_dynamic_tree_worker": ("mtp_dynamic_tree", "MTPEagleDynamicTreeWorker.__init__", 0),
    "beam_tokens": ("micro_batch_scheduler", "MicroBatchScheduler: a generation request "
                    "costs getBeamWidthByIter() + getNumDraftTokens() tokens", 0),
}


# fact -> (first line, last line) in the pinned file, counted from offset 0 of the stored copy
LINES: dict[str, tuple[int, int]] = {
    "encode_graph_config": (305, 459),  # EncodeCudaGraphConfig; validator 346-385
    "mm_encoder_graph_config": (545, 552),
    "static_tensors": (189, 215),
    "capture_tokens": (654, 690),  # _get_num_tokens_for_key 654-658, capture's slices 674-690
    "adp_padding": (828, 884),  # _get_padded_batch; maybe_get_cuda_graph is 513-625
    "decoder_buffers": (370, 422),
    "filter_tokens": (23, 52),
    "dynamic_tree_worker": (146, 280),
    "mtp_dynamic_tree_worker": (49, 167),
    "beam_tokens": (257, 279),  # the generation branch; reqNumTokens is line 260
    "mtp_dynamic_tree": (2791, 2889),  # fields 2791-2802, set_max_total_draft_tokens 2850-2889
    "mtp_dynamic_tree_rules": (2850, 2889),
    "eagle_dynamic_tree": (2369, 2449),
    "dynamic_tree_max_batch_size": (2527, 2536),  # MTPDecodingConfig's: 2804-2805
    "sa": (2708, 2729),
    "pard": (2965, 2968),
    "dflash": (3029, 3036),
}

# facts still cited by character window only (none: tests/oracle/test_trtllm_citations.py
# keeps it empty)
UNCOUNTED: frozenset[str] = frozenset()

# pin -> the last line counted from offset 0 in that stored copy (0: none counted). A cited
# line past it cannot have been counted, so tests/oracle/test_trtllm_citations.py refuses it.
# The line skeletons behind these counts were kept outside the repository (one line per
# source line, first words only) by the helpers who counted them.
COUNTED_TO: dict[str, int] = {
    "llm_args": 6276,
    "cuda_graph_helpers": 74,  # the whole file (2,449 characters)
    "model_engine": 752,
    "cuda_graph_runner": 1872,
    "decoder_runner": 424,
    "serve": 690,
    "eagle3_dynamic_tree": 282,
    "mtp_dynamic_tree": 169,
    "micro_batch_scheduler": 279,
    "runners_common": 148,
    "piecewise_optimizer": 238,
    "py_executor": 1521,
    "model_engine_2025": 0,
    "cuda_graph_runner_1.0.0rc4": 0,
    "serve_2025": 0,
    "llm_args_2025": 0,
}


def cite_lines(key: str, first: int, last: int) -> str:
    """`path@commit:first-last` (the commit's first 10 hex digits) of a pinned file."""
    path, commit = PINS[key]
    span = str(first) if first == last else f"{first}-{last}"
    return f"{path}@{commit[:10]}:{span}"


def cite_fact(fact: str) -> str:
    """`path@commit:first-last function`, or `path@commit function [chars N..N+16000]` for a
    fact in `UNCOUNTED`, for a docstring or a test message."""
    key, where, offset = CITES[fact]
    if fact in LINES:
        return f"{cite_lines(key, *LINES[fact])} {where}"
    return f"{cite(key)} {where} [chars {offset}..{offset + 16000}]"


class Rejected(ValueError):
    """TensorRT-LLM refuses this input (validation error, assertion or click usage error)."""


class NotModelled(ValueError):
    """The input is valid for TensorRT-LLM but outside what this reference restates."""


# --------------------------------------------------------------------------------------------
# CudaGraphConfig (llm_args.py)
# --------------------------------------------------------------------------------------------

DEFAULT_GRAPH_MAX_BATCH_SIZE = 128


def generate_cuda_graph_batch_sizes(max_batch_size: int, enable_padding: bool) -> list[int]:
    """`BaseCudaGraphConfig._generate_cuda_graph_batch_sizes`
    (tensorrt_llm/llmapi/llm_args.py@0004396720:224-257).

    Padding on: 1, 2, 4, then 8..128 step 8, then +64 steps while <= max. Padding off: 1..31,
    32, 64, 128, then 2**i for i in 8..ceil(log2(max)) - 1. Both: keep sizes <= max, sorted, and
    append max unless it is already last. (TensorRT-LLM uses math.log(max, 2); for the powers of
    two where that rounds up, 2**ceil is max itself, so the list is the same as with log2.)
    """
    if enable_padding:
        sizes = [1, 2, 4, *(8 * i for i in range(1, 17))]
        while sizes[-1] + 64 <= max_batch_size:
            sizes.append(sizes[-1] + 64)
    else:
        sizes = [*range(1, 32), 32, 64, 128]
        if max_batch_size > 1:
            sizes += [2 ** i for i in range(8, math.ceil(math.log2(max_batch_size)))]
    kept = sorted(s for s in sizes if s <= max_batch_size)
    if not kept or kept[-1] != max_batch_size:
        kept.append(max_batch_size)
    return kept


@dataclass(frozen=True)
class CudaGraphConfigRef:
    """A validated `DecodeCudaGraphConfig`: batch_sizes sorted (duplicates kept, as TRT does)."""

    batch_sizes: tuple[int, ...]
    max_batch_size: int
    enable_padding: bool


GRAPH_CONFIG_KEYS = frozenset({"batch_sizes", "max_batch_size", "enable_padding", "mode"})
ENCODER_GRAPH_KEYS = frozenset({"num_tokens", "max_num_token", "seq_lens", "max_seq_len"})


def _int(where: str, value: Any, *, minimum: int | None = None) -> int:
    # pydantic's lax int accepts bools and integral strings; the reference takes plain ints.
    if isinstance(value, bool) or not isinstance(value, int):
        raise NotModelled(f"{where}: only plain integers are modelled, got {value!r}")
    if minimum is not None and value < minimum:
        raise Rejected(f"{where}: must be >= {minimum}, got {value}")
    return value


def cuda_graph_config(raw: Mapping[str, Any]) -> CudaGraphConfigRef:
    """`BaseCudaGraphConfig.validate_base_cuda_graph_config`
    (tensorrt_llm/llmapi/llm_args.py@0004396720:191-222).

    Unknown keys are rejected (StrictBaseModel). A non-empty `batch_sizes` is sorted (NOT
    de-duplicated) and max_batch_size 0 becomes max(batch_sizes); a different non-zero
    max_batch_size is an error. An empty or missing `batch_sizes` means the generated list
    for max_batch_size, 0 meaning 128. `TorchLlmArgs.infer_cuda_graph_config_mode` picks
    the encoder config when an encoder key is set (`encode_cuda_graph_config`).
    """
    unknown = set(raw) - GRAPH_CONFIG_KEYS - ENCODER_GRAPH_KEYS
    if unknown:
        raise Rejected(f"cuda_graph_config: extra fields not permitted: {sorted(unknown)}")
    if graph_config_mode(raw) == "encode":  # EncodeCudaGraphConfig: encode_cuda_graph_config
        raise NotModelled("cuda_graph_config: encoder CUDA graphs")
    if any(k in raw for k in ENCODER_GRAPH_KEYS):  # DecodeCudaGraphConfig has no such field
        raise Rejected(f"cuda_graph_config: extra fields not permitted: "
                       f"{sorted(ENCODER_GRAPH_KEYS & set(raw))}")
    max_bs = _int("cuda_graph_config.max_batch_size", raw.get("max_batch_size", 0), minimum=0)
    padding = raw.get("enable_padding", False)
    if not isinstance(padding, bool):
        raise NotModelled(f"cuda_graph_config.enable_padding: {padding!r}")
    sizes = raw.get("batch_sizes")
    if sizes is not None and not isinstance(sizes, list):
        raise Rejected(f"cuda_graph_config.batch_sizes: expected a list, got {sizes!r}")
    if sizes:
        ordered = sorted(_int("cuda_graph_config.batch_sizes", s) for s in sizes)
        if max_bs == 0:
            max_bs = ordered[-1]
        elif max_bs != ordered[-1]:
            raise Rejected("CudaGraphConfig.max_batch_size is incompatible with "
                           "CudaGraphConfig.batch_sizes: max_batch_size must equal "
                           "max(batch_sizes)")
        return CudaGraphConfigRef(tuple(ordered), max_bs, padding)
    max_bs = max_bs or DEFAULT_GRAPH_MAX_BATCH_SIZE
    return CudaGraphConfigRef(tuple(generate_cuda_graph_batch_sizes(max_bs, padding)), max_bs,
                              padding)


def merge_schedule_keys(batch_sizes: Sequence[int], schedule: Mapping[int, int]) -> list[int]:
    """`DecodeCudaGraphConfig._merge_schedule_keys`
    (tensorrt_llm/llmapi/llm_args.py@0004396720:266-302).

    The draft_len_schedule thresholds that are <= the largest batch size are merged into the
    sorted batch sizes (a threshold equal to a size is not repeated).
    """
    top = batch_sizes[-1]
    extra = sorted(k for k in schedule if k <= top)
    merged: list[int] = []
    i = j = 0
    while i < len(batch_sizes) and j < len(extra):
        if batch_sizes[i] < extra[j]:
            merged.append(batch_sizes[i])
            i += 1
        elif batch_sizes[i] > extra[j]:
            merged.append(extra[j])
            j += 1
        else:
            merged.append(batch_sizes[i])
            i += 1
            j += 1
    return merged + list(batch_sizes[i:]) + extra[j:]


# --------------------------------------------------------------------------------------------
# Speculative configs (llm_args.py)
# --------------------------------------------------------------------------------------------

BASE_SPEC_KEYS = frozenset({
    "decoding_type", "max_draft_len", "max_total_draft_tokens", "speculative_model",
    "speculative_model_dir", "max_concurrency", "draft_len_schedule", "load_format",
    "acceptance_rate_window_size", "acceptance_rate_threshold", "use_rejection_sampling",
    "allow_advanced_sampling", "advanced_sampling_mode", "enable_penalty",
})
SPEC_KEYS: dict[str, frozenset[str]] = {
    "Eagle": BASE_SPEC_KEYS | {
        "eagle_choices", "greedy_sampling", "posterior_threshold", "use_dynamic_tree",
        "dynamic_tree_max_topK", "num_eagle_layers", "max_non_leaves_per_layer",
        "eagle3_one_model", "eagle3_layers_to_capture", "eagle3_model_arch"},
    "MTP": BASE_SPEC_KEYS | {
        "use_relaxed_acceptance_for_thinking", "relaxed_topk", "relaxed_delta",
        "use_mtp_vanilla", "mtp_eagle_one_model", "use_dynamic_tree", "dynamic_tree_max_topK",
        "sa_config", "num_nextn_predict_layers", "begin_thinking_phase_token",
        "end_thinking_phase_token"},
    "NGram": BASE_SPEC_KEYS | {"max_matching_ngram_size", "is_keep_all", "is_use_oldest",
                               "is_public_pool"},
    "Draft_Target": BASE_SPEC_KEYS,
    "PARD": BASE_SPEC_KEYS | {"mask_token_id", "sa_config"},
    "DFlash": BASE_SPEC_KEYS | {"mask_token_id", "target_layer_ids", "attention_backend"},
}
SPEC_KEYS["Eagle3"] = SPEC_KEYS["Eagle"] | {"sa_config"}
# SADecodingConfig (tensorrt_llm/llmapi/llm_args.py@0004396720:2675-2732):
# standalone suffix-automaton drafting
SPEC_KEYS["SA"] = BASE_SPEC_KEYS | {"max_matching_ngram_size", "enable_global_pool",
                                    "global_pool_size"}
# "DraftTarget" was the spelling before the pydantic discriminator (llm_args.py @fcd3f31682,
# 2025); the 2026 file keeps a `_decoding_type_alias` slot whose producer was not found, so
# whether old spellings are still mapped is not asserted either way.
NOT_MODELLED_SPEC = frozenset({"User_Provided", "SaveState", "DSpark", "AUTO",
                               "DraftTarget"})


@dataclass(frozen=True)
class SpecRef:
    """A validated speculative config, as the model engine reads it."""

    decoding_type: str
    max_draft_len: int
    max_total_draft_tokens: int
    tokens_per_gen_step: int  # tokens one generation request costs against max_num_tokens
    max_draft_loop_tokens: int  # draft_tokens_cuda width per request
    dynamic_tree_max_topK: int | None = None
    eagle_choices: tuple[tuple[int, ...], ...] | None = None
    draft_len_schedule: Mapping[int, int] | None = None
    warnings: tuple[str, ...] = ()


def _draft_len_schedule(raw: Any, max_draft_len: int | None) -> dict[int, int] | None:
    """`DecodingBaseConfig.validate_draft_len_schedule_and_sort`
    (tensorrt_llm/llmapi/llm_args.py@0004396720:2059-2098).

    Thresholds >= 1, lengths >= 0, the smallest threshold maps to max_draft_len and no
    length exceeds it (both only when max_draft_len is given); returned sorted by threshold.
    """
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise Rejected(f"draft_len_schedule: expected a mapping, got {raw!r}")
    schedule = {_int("draft_len_schedule key", k): _int("draft_len_schedule value", v)
                for k, v in raw.items()}
    if not schedule:
        raise NotModelled("draft_len_schedule: empty mapping")
    for bs, length in schedule.items():
        if bs < 1 or length < 0:
            raise Rejected(f"draft_len_schedule: bad entry {bs}: {length}")
    if max_draft_len is not None:
        if schedule[min(schedule)] != max_draft_len:
            raise Rejected("draft_len_schedule: the smallest threshold must map to max_draft_len")
        if any(length > max_draft_len for length in schedule.values()):
            raise Rejected("draft_len_schedule: lengths must be <= max_draft_len")
    return dict(sorted(schedule.items()))


def _eagle_choices(raw: Any) -> list[list[int]]:
    """`EagleDecodingConfig.validate_eagle_choices`: a list, or its Python-literal string."""
    if isinstance(raw, str):
        raw = ast.literal_eval(raw.replace(" ", ""))
    if not isinstance(raw, list) or not all(isinstance(c, list) for c in raw):
        raise Rejected(f"eagle_choices: expected List[List[int]], got {raw!r}")
    return [[_int("eagle_choices", i) for i in c] for c in raw]


def _tree_total(kind: str, max_draft_len: int | None, top_k: Any, total: int | None,
                warnings: list[str]) -> int:
    """Dynamic-tree branch of `EagleDecodingConfig.validate_eagle_config`
    (tensorrt_llm/llmapi/llm_args.py@0004396720:2369-2449) and
    `MTPDecodingConfig.set_max_total_draft_tokens`
    (tensorrt_llm/llmapi/llm_args.py@0004396720:2850-2889): topK > 0 is
    required; max_total_draft_tokens defaults to topK * max_draft_len (with a warning) and,
    when given, must lie in [max_draft_len, topK * max_draft_len].
    """
    if max_draft_len is None or max_draft_len <= 0:
        raise Rejected(f"{kind}: max_draft_len must be > 0 with use_dynamic_tree")
    k = None if top_k is None else _int("dynamic_tree_max_topK", top_k)
    if k is None or k <= 0:
        raise Rejected(f"{kind}: dynamic_tree_max_topK must be > 0 with use_dynamic_tree")
    ceiling = k * max_draft_len
    if total is None:
        warnings.append(f"max_total_draft_tokens is not provided, use the default value "
                        f"{ceiling}")
        return ceiling
    if not max_draft_len <= total <= ceiling:
        raise Rejected(f"{kind}: max_total_draft_tokens ({total}) must be in "
                       f"[{max_draft_len}, {ceiling}]")
    return total


def speculative_config(raw: Mapping[str, Any]) -> SpecRef:
    """Validation of `speculative_config` (llm_args.py @0004396720), then the engine's widths.

    Per decoding type (the pydantic discriminator, exact spelling):
    - Eagle / Eagle3 (`EagleDecodingConfig.validate_eagle_config`, `validate_speculative_model`):
      max_draft_len > 0 and speculative_model required. eagle_choices: de-duplicated, every
      path's prefix must be present (assertion), max_draft_len := tree depth (warning when it
      changes), max_total_draft_tokens := number of distinct choices; eagle_choices with
      use_dynamic_tree is an error. Dynamic tree: see `_tree_total`. Linear: a missing
      max_total_draft_tokens becomes max_draft_len; a given one is KEPT as is.
      `TorchLlmArgs.validate_speculative_config` turns "Eagle" into Eagle3 (warning).
    - MTP (`_remap_deprecated_num_nextn_predict_layers`, `set_max_total_draft_tokens`):
      num_nextn_predict_layers becomes max_draft_len when that is absent (warning); otherwise
      dropped. max_draft_len <= 0 is an error; None is resolved from the checkpoint (not
      modelled). Linear: max_total_draft_tokens := max_draft_len (a given value is replaced).
    - NGram / Draft_Target: max_draft_len > 0; Draft_Target needs speculative_model;
      max_total_draft_tokens := max_draft_len.
    - PARD: tokens_per_gen_step = 2 * max_draft_len (K + 1 accepted + K - 1 masks);
      DFlash: max_draft_len + 1 (`cite_fact("pard")`, `cite_fact("dflash")`).
    - SA (standalone suffix automaton, `cite_fact("sa")`): max_draft_len > 0,
      max_matching_ngram_size -1 or > 0 (1..64 with enable_global_pool), global_pool_size
      only with enable_global_pool; linear, 1 + max_draft_len tokens.
    Every other type: tokens_per_gen_step = 1 + max_total_draft_tokens
    (`DecodingBaseConfig.tokens_per_gen_step`). The engine's draft-loop width is
    tokens_per_gen_step - 1, or topK * max_draft_len when a dynamic tree is wider
    (`PyTorchModelEngine.__init__`,
    tensorrt_llm/_torch/pyexecutor/model_engine.py@c0edad93fd:413-423).
    """
    kind = raw.get("decoding_type")
    if kind in NOT_MODELLED_SPEC:
        raise NotModelled(f"speculative_config: decoding_type {kind}")
    if kind not in SPEC_KEYS:
        raise Rejected(f"speculative_config: decoding_type {kind!r} does not match any of "
                       f"{sorted(set(SPEC_KEYS) | NOT_MODELLED_SPEC)}")
    data = dict(raw)
    warnings: list[str] = []
    if kind == "MTP" and "num_nextn_predict_layers" in data:
        warnings.append("MTPDecodingConfig: 'num_nextn_predict_layers' is deprecated")
        layers = data.pop("num_nextn_predict_layers")
        data.setdefault("max_draft_len", layers)
    unknown = set(data) - SPEC_KEYS[kind]
    if unknown:
        raise Rejected(f"speculative_config: extra fields not permitted: {sorted(unknown)}")
    if "max_concurrency" in data:
        raise NotModelled("speculative_config.max_concurrency")
    d = data.get("max_draft_len")
    if d is not None:
        d = _int("max_draft_len", d, minimum=0)
    total = data.get("max_total_draft_tokens")
    if total is not None:
        total = _int("max_total_draft_tokens", total)
    schedule = _draft_len_schedule(data.get("draft_len_schedule"), d)
    model = data.get("speculative_model", data.get("speculative_model_dir"))
    top_k = data.get("dynamic_tree_max_topK")
    dynamic = bool(data.get("use_dynamic_tree", False))
    choices_out: tuple[tuple[int, ...], ...] | None = None

    if kind in ("Eagle", "Eagle3"):
        if d is None or d == 0:
            raise Rejected("max_draft_len must be > 0 for Eagle")
        raw_choices = data.get("eagle_choices")
        if raw_choices is not None:
            warnings.append("The eagle_choices/static tree feature is deprecated")
            if dynamic:
                raise Rejected("If eagle_choices is provided, use_dynamic_tree should be False")
            unique = sorted({tuple(c) for c in _eagle_choices(raw_choices)},
                            key=lambda c: (len(c), c))
            if not unique:
                raise Rejected("eagle_choices: max() of an empty tree")
            present = set(unique)
            for c in unique:
                if len(c) > 1 and c[:-1] not in present:
                    raise Rejected(f"Error: choice {list(c)} is not connected")
            depth = max(len(c) for c in unique)
            if depth != d:
                warnings.append(f"Based on the input choices, reset the num_eagle_layers"
                                f"(max_draft_len) from {d} to {depth}")
                d = depth
            total = len(unique)
            choices_out = tuple(unique)
        if not dynamic and top_k is not None:
            warnings.append("dynamic_tree_max_topK is set but use_dynamic_tree is False")
            top_k = None
        if dynamic:
            total = _tree_total(kind, d, top_k, total, warnings)
        if total is None:
            total = d
        if model is None:
            raise Rejected("Draft model must be provided for EAGLE")
        if kind == "Eagle":
            warnings.append("speculative_config.decoding_type 'Eagle' is treated as 'Eagle3'")
            kind = "Eagle3"
    elif kind == "MTP":
        if d is not None and d <= 0:
            raise Rejected("max_draft_len must be > 0 for MTP")
        if not dynamic and top_k is not None:
            warnings.append("dynamic_tree_max_topK is set but use_dynamic_tree is False")
            top_k = None
        if dynamic:
            total = _tree_total(kind, d, top_k, total, warnings)
        elif d is not None:
            total = d
        if d is None:
            raise NotModelled("MTP max_draft_len comes from the checkpoint")
    elif kind in ("NGram", "Draft_Target"):
        if d is None or d <= 0:
            raise Rejected(f"max_draft_len must be > 0 for {kind}")
        if kind == "Draft_Target" and model is None:
            raise Rejected("speculative_model must be specified for DraftTarget")
        total = d
    elif kind == "SA":
        # SADecodingConfig.validate_sa_config: 0 is not a valid ngram size; with the global
        # pool the size is -1 or 1..64; max_draft_len > 0; global_pool_size (PositiveInt)
        # needs enable_global_pool; linear: max_total_draft_tokens := max_draft_len
        ngram = _int("max_matching_ngram_size", data.get("max_matching_ngram_size", -1))
        pool = data.get("enable_global_pool", False)
        if not isinstance(pool, bool):
            raise NotModelled(f"enable_global_pool: {pool!r}")
        if ngram == 0:
            raise Rejected("max_matching_ngram_size must be > 0 (fixed ngram) or -1")
        if pool and ngram != -1 and not 1 <= ngram <= 64:
            raise Rejected("max_matching_ngram_size must be -1 or in [1, 64] when "
                           "enable_global_pool is True")
        if d is None or d <= 0:
            raise Rejected("max_draft_len must be > 0 for SA")
        size = data.get("global_pool_size")
        if size is not None:
            if _int("global_pool_size", size) < 1:
                raise Rejected("global_pool_size: must be a positive integer")
            if not pool:
                raise Rejected("global_pool_size requires enable_global_pool=True")
        total = d
    else:  # PARD, DFlash: set_max_total_draft_tokens copies max_draft_len; their classes
        # do not check max_draft_len > 0 themselves (a 0 would make PARD's 2K step 0), so
        # the reference refuses it as the earlier reference did (not traced further)
        if d is None or d <= 0:
            raise Rejected(f"{kind} max_draft_len must be > 0")
        total = d
    assert d is not None and total is not None
    if kind == "PARD":
        step = 2 * d
    elif kind == "DFlash":
        step = d + 1
    else:
        step = 1 + total
    loop = step - 1
    if dynamic and top_k is not None and top_k > 0:
        loop = max(loop, top_k * d)
    return SpecRef(kind, d, total, step, loop, top_k if dynamic else None, choices_out,
                   schedule, tuple(warnings))


# --------------------------------------------------------------------------------------------
# LLM args (llm_args.py)
# --------------------------------------------------------------------------------------------

DEFAULT_MAX_BATCH_SIZE = 2048
DEFAULT_MAX_NUM_TOKENS = 8192
DEFAULT_MAX_BEAM_WIDTH = 1

# TorchLlmArgs / BaseLlmArgs fields seen in llm_args.py @0004396720 (a subset: the model has
# more; a key outside this set is treated as unknown, i.e. rejected like pydantic's
# extra="forbid" would for a real typo).
LLM_ARGS_KEYS = frozenset({
    "model", "tokenizer", "tokenizer_mode", "custom_tokenizer", "skip_tokenizer_init",
    "trust_remote_code", "tensor_parallel_size", "dtype", "revision", "tokenizer_revision",
    "model_kwargs", "pipeline_parallel_size", "context_parallel_size", "gpus_per_node",
    "moe_cluster_parallel_size", "moe_tensor_parallel_size", "moe_expert_parallel_size",
    "enable_attention_dp", "enable_lm_head_tp_in_adp", "pp_partition", "cp_config",
    "load_format", "enable_lora", "lora_config", "kv_cache_config", "enable_chunked_prefill",
    "guided_decoding_backend", "iter_stats_max_iterations", "request_stats_max_iterations",
    "peft_cache_config", "scheduler_config", "cache_transceiver_config",
    "sparse_attention_config", "speculative_config", "max_batch_size", "max_input_len",
    "max_seq_len", "max_beam_width", "max_num_tokens", "gather_generation_logits",
    "num_postprocess_workers", "postprocess_tokenizer_dir", "reasoning_parser", "backend",
    "return_perf_metrics", "orchestrator_type", "env_overrides", "telemetry_config",
    "generation_config", "garbage_collection_gen0_threshold", "cuda_graph_config",
    "multimodal_config", "attention_dp_config", "disable_overlap_scheduler", "moe_config",
    "nvfp4_gemm_config", "attn_backend", "enable_iter_perf_stats", "enable_iter_req_stats",
    "print_iter_log", "batch_wait_timeout_ms", "batch_wait_timeout_iters",
    "batch_wait_max_tokens_ratio", "torch_compile_config", "prefill_cuda_graph_backend",
    "prefill_capture_num_tokens", "enable_autotuner", "enable_layerwise_nvtx_marker",
    "enable_min_latency", "stream_interval", "force_dynamic_quantization",
    "allreduce_strategy", "checkpoint_format", "mm_encoder_only", "encode_only",
    "sleep_config", "max_stats_len", "num_serve_frontends",
})


@dataclass(frozen=True)
class LlmArgsRef:
    """The validated fields that shape decode graphs, plus the warnings TRT logs."""

    max_batch_size: int = DEFAULT_MAX_BATCH_SIZE
    max_num_tokens: int = DEFAULT_MAX_NUM_TOKENS
    max_seq_len: int | None = None
    max_beam_width: int = DEFAULT_MAX_BEAM_WIDTH
    tensor_parallel_size: int = 1
    enable_attention_dp: bool = False
    cuda_graph: CudaGraphConfigRef | None = field(
        default_factory=lambda: cuda_graph_config({}))
    spec: SpecRef | None = None
    warnings: tuple[str, ...] = ()


def llm_args(raw: Mapping[str, Any]) -> LlmArgsRef:
    """`TorchLlmArgs(**raw)` for the fields that shape decode graphs (llm_args.py @0004396720).

    - Defaults: max_batch_size 2048, max_num_tokens 8192, max_beam_width 1; an explicit None
      is normalised to the default (`normalize_optional_fields_to_defaults`).
    - `validate_runtime_args`: max_batch_size > max_num_tokens only logs a WARNING.
    - cuda_graph_config: missing -> `CudaGraphConfig()` (graphs on, default list); None ->
      no decoder graphs; a mapping -> `cuda_graph_config`.
    - speculative_config -> `speculative_config`; then `validate_speculative_config`: with a
      draft_len_schedule and graphs on, enable_padding is forced True and the schedule's
      thresholds are merged into batch_sizes (`merge_schedule_keys`).
    Unknown top-level keys are rejected (extra="forbid").
    """
    unknown = set(raw) - LLM_ARGS_KEYS
    if unknown:
        raise Rejected(f"extra fields not permitted: {sorted(unknown)}")
    warnings: list[str] = []

    def size(name: str, default: int | None) -> int | None:
        value = raw.get(name)
        return default if value is None else _int(name, value)

    max_bs = size("max_batch_size", DEFAULT_MAX_BATCH_SIZE)
    max_tokens = size("max_num_tokens", DEFAULT_MAX_NUM_TOKENS)
    beam = size("max_beam_width", DEFAULT_MAX_BEAM_WIDTH)
    assert max_bs is not None and max_tokens is not None and beam is not None
    if beam < 1:
        raise NotModelled(f"max_beam_width {beam}")
    if beam > 1 and raw.get("speculative_config") is not None:
        raise NotModelled("max_beam_width > 1 with speculative decoding")
    adp = raw.get("enable_attention_dp", False)
    if not isinstance(adp, bool):
        raise NotModelled(f"enable_attention_dp: {adp!r}")
    if max_bs > max_tokens:
        warnings.append(f"max_batch_size [{max_bs}] should be less than or equal to "
                        f"max_num_tokens [{max_tokens}]")
    if "cuda_graph_config" in raw:
        value = raw["cuda_graph_config"]
        if value is not None and not isinstance(value, Mapping):
            raise Rejected(f"cuda_graph_config: expected a mapping or null, got {value!r}")
        graph = None if value is None else cuda_graph_config(value)
    else:
        graph = cuda_graph_config({})
    spec = None
    if raw.get("speculative_config") is not None:
        value = raw["speculative_config"]
        if not isinstance(value, Mapping):
            raise Rejected("speculative_config: expected a mapping")
        spec = speculative_config(value)
        warnings += spec.warnings
        if graph is not None and spec.draft_len_schedule is not None:
            graph = CudaGraphConfigRef(
                tuple(merge_schedule_keys(graph.batch_sizes, spec.draft_len_schedule)),
                graph.max_batch_size, True)
    return LlmArgsRef(max_bs, max_tokens, size("max_seq_len", None), beam,
                      size("tensor_parallel_size", 1) or 1, adp, graph, spec, tuple(warnings))


# --------------------------------------------------------------------------------------------
# Model engine and CUDA graph runner
# --------------------------------------------------------------------------------------------


def filter_cuda_graph_batch_sizes(sizes: Sequence[int], max_batch_size: int,
                                  max_num_tokens: int, tokens_per_request: int,
                                  enable_padding: bool) -> tuple[list[int], list[str]]:
    """`filter_cuda_graph_batch_sizes`
    (tensorrt_llm/_torch/pyexecutor/engine/cuda_graph.py@c0edad93fd:23-52), with the warning.

    cap = min(max_batch_size, max_num_tokens // tokens_per_request); cap < 1 -> [] (no graph,
    no warning). Walk the sorted sizes, keeping those <= cap; at the first larger one, with
    padding on, append cap unless it is already last (WARNING "We will pad batches to cap"),
    then stop.
    Older copies (model_engine.py @001e670050, 2025: `_filter_cuda_graph_batch_sizes`) used
    int(max_num_tokens / (1 + max_draft_len)) and had no cap < 1 early return, so padding
    with cap 0 produced [0]; an intermediate version used 1 + max_total_draft_tokens.
    """
    cap = min(max_batch_size, max_num_tokens // tokens_per_request)
    if cap < 1:
        return [], []
    kept: list[int] = []
    warnings: list[str] = []
    for index, size in enumerate(sizes):
        if size <= cap:
            kept.append(size)
            continue
        if enable_padding and (index == 0 or kept[index - 1] != cap):
            warnings.append(f"CUDA graph padding is enabled, but one of the given CUDA graph "
                            f"batch sizes ({size}) is larger than the executor's max batch "
                            f"size ({cap}). We will pad batches to {cap}.")
            kept.append(cap)
        break
    return kept, warnings


@dataclass(frozen=True)
class EngineRef:
    """What `PyTorchModelEngine` + `CUDAGraphRunner` derive from validated LLM args."""

    args: LlmArgsRef
    tokens_per_request: int
    graphs_enabled: bool
    graph_batch_sizes: tuple[int, ...]  # after the filter, duplicates removed (one graph each)
    padding: bool
    warnings: tuple[str, ...]
    use_mrope: bool = False  # the model's rope (Qwen2-VL style), not an LLM API key

    @property
    def beam(self) -> int:
        return self.args.max_beam_width

    @property
    def max_graph_batch_size(self) -> int:
        """`_max_cuda_graph_batch_size`: the last filtered size, 0 without any."""
        return self.graph_batch_sizes[-1] if self.graph_batch_sizes else 0

    def dispatch(self, batch_size: int) -> int | None:
        """Graph batch size a pure generation batch of `batch_size` requests replays, or None.

        `CUDAGraphRunner._get_padded_batch`
        (tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:828-884,
        which rounds up with
        `_round_up_batch_size_with_draft_len`) / `maybe_get_cuda_graph`
        (tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:513-625):
        with padding, a batch no larger than the largest
        graph gets dummy generation requests up to the next captured size (bisect_left), but
        not beyond max_batch_size; without padding only an exact captured size replays; any
        other batch (and every batch with graphs off) runs eagerly, unpadded.
        """
        sizes = self.graph_batch_sizes
        if not self.graphs_enabled or not sizes or batch_size > sizes[-1]:
            return None
        if self.padding:
            padded = sizes[bisect.bisect_left(sizes, batch_size)]
            if padded > self.args.max_batch_size:
                return batch_size if batch_size in sizes else None
            return padded
        return batch_size if batch_size in sizes else None

    def reachable_generation_batches(self) -> range:
        """Generation-only batches the scheduler can form: <= max_batch_size requests and
        <= max_num_tokens tokens. A generation request costs max_beam_width + draft tokens
        (`cite_fact("beam_tokens")`); beam search and speculation are not combined here,
        so that is max_beam_width * tokens_per_request."""
        per_request = self.beam * self.tokens_per_request
        return range(1, min(self.args.max_batch_size,
                            self.args.max_num_tokens // per_request) + 1)

    def capture_tokens(self, batch_size: int) -> int:
        """Tokens a graph of `batch_size` requests is captured with, sliced from the static
        tensors: batch_size * max_beam_width * (draft_len + 1) (`cite_fact("capture_tokens")`;
        draft_len + 1 is tokens_per_request for a pure generation key)."""
        return batch_size * self.beam * self.tokens_per_request

    def static_rows(self) -> int:
        """Rows of the graph runner's static input_ids / position_ids
        (`cite_fact("static_tensors")`), 0 with graphs off."""
        if not self.graphs_enabled:
            return 0
        return min(self.max_graph_batch_size * self.beam * self.tokens_per_request,
                   self.args.max_num_tokens)

    def short_graphs(self) -> tuple[int, ...]:
        """Graph batch sizes whose capture needs more tokens than the static rows hold: the
        slice `[:tokens]` of a shorter tensor is short. The filter divides max_num_tokens by
        tokens_per_request only (`cite_fact("filter_tokens")`), not by the beam width, so
        with beams the largest graphs can need up to max_beam_width x the rows."""
        rows = self.static_rows()
        return tuple(s for s in self.graph_batch_sizes if self.capture_tokens(s) > rows)

    def adp_dispatch(self, batches: Sequence[int]) -> tuple[int | None, ...]:
        """Attention DP (enable_attention_dp, tensor_parallel_size > 1 ranks): the graph batch
        each rank replays for generation-only batches `batches` (one per rank, >= 1), None =
        eager (`cite_fact("adp_padding")`).

        `_get_padded_batch`: the ranks all-gather (can_run_cuda_graph, batch_size); when all
        can run graphs, a rank pads towards the LARGEST rank's batch: rounded up to the next
        captured size (padding on, largest <= the largest graph), no padding when the padded
        size would exceed max_batch_size. `maybe_get_cuda_graph` all-gathers again after
        padding: unless every rank has the same batch size, every rank runs eagerly; else the
        size replays when it was captured.
        """
        sizes = self.graph_batch_sizes
        if not self.graphs_enabled:
            return tuple(None for _ in batches)
        largest = max(batches)
        after = []
        for bs in batches:
            new = bs
            if self.padding and sizes and largest <= sizes[-1]:
                target = sizes[bisect.bisect_left(sizes, largest)]
                if target != bs and target <= self.args.max_batch_size:
                    new = target
            after.append(new)
        if len(set(after)) != 1 or after[0] not in sizes:
            return tuple(None for _ in batches)
        return tuple(after)

    def buffers(self) -> dict[str, int]:
        """Persistent device buffers (elements) graph replays and eager steps read.

        Engine (`PyTorchModelEngine.__init__`,
        tensorrt_llm/_torch/pyexecutor/model_engine.py@c0edad93fd:673-752; the same in
        `_allocate_decoder_buffers`,
        tensorrt_llm/_torch/pyexecutor/engine/runners/decoder/runner.py@0ea8c1debd:370-422):
        input_ids_cuda, position_ids_cuda, previous_batch_indices_cuda: [max_num_tokens];
        with speculation draft_tokens_cuda: [max_draft_loop_tokens * max_batch_size],
        gather_ids_cuda, previous_pos_indices_cuda, previous_pos_id_offsets_cuda:
        [max_num_tokens], num_accepted_draft_tokens_cuda, previous_kv_lens_offsets_cuda:
        [max_batch_size]. (model_engine.py @001e670050 sized draft_tokens_cuda with
        max_draft_len * max_batch_size.)
        Graph runner (`CUDAGraphRunner._create_shared_static_tensors`,
        tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:189-215),
        only when graphs are on: static input_ids and position_ids of
        min(max_graph_batch_size * max_beam_width * (1 + original_max_total_draft_tokens),
        max_num_tokens) rows, shared by every graph. (1.0.0rc4 allocated them per graph,
        batch_size * (max_draft_len + 1).)
        With max_beam_width > 1: cache_indirection_attention (max_batch_size, max_beam_width,
        max_seq_len) int32; with mrope: mrope_position_ids_cuda (3, 1, max_num_tokens), the
        static position_ids (3, 1, rows) and mrope_delta_read_seq_slots (rows,) int64
        (`cite_fact("decoder_buffers")`, `cite_fact("static_tensors")`). A dynamic-tree
        Eagle3 or MTP adds its worker's batch-indexed buffers (`dynamic_tree_buffers`).
        """
        S, T = self.args.max_batch_size, self.args.max_num_tokens
        out = {"input_ids": T, "position_ids": T, "previous_batch_indices": T}
        spec = self.args.spec
        if spec is not None:
            out.update(draft_tokens=spec.max_draft_loop_tokens * S, gather_ids=T,
                       previous_pos_indices=T, previous_pos_id_offsets=T,
                       num_accepted_draft_tokens=S, previous_kv_lens_offsets=S)
            if spec.dynamic_tree_max_topK:
                out.update(dynamic_tree_buffers(S, spec.dynamic_tree_max_topK,
                                                spec.max_draft_len, spec.tokens_per_gen_step,
                                                mtp=spec.decoding_type == "MTP"))
        if self.beam > 1:
            if self.args.max_seq_len is None:
                raise NotModelled("max_seq_len from the checkpoint (cache_indirection)")
            out["cache_indirection"] = S * self.beam * self.args.max_seq_len
        if self.use_mrope:
            out["mrope_position_ids"] = 3 * T
        if self.graphs_enabled:
            rows = self.static_rows()
            out.update(graph_input_ids=rows,
                       graph_position_ids=3 * rows if self.use_mrope else rows)
            if self.use_mrope:
                out["graph_mrope_delta_read_seq_slots"] = rows
        return out


def dynamic_tree_buffers(S: int, K: int, d: int, q: int, *, mtp: bool = False
                         ) -> dict[str, int]:
    """`Eagle3OneModelDynamicTreeWorker.__init__` (`cite_fact("dynamic_tree_worker")`): the
    worker's pre-allocated buffers, indexed by batch_idx in [0, max_batch_size) without a
    bounds check, which is why `Eagle3DecodingConfig._max_batch_size` must be the global
    max_batch_size (`cite_fact("dynamic_tree_max_batch_size")`). Elements per buffer for
    max_batch_size S, topK K, max_draft_len d, tokens_per_gen_step q. The lazily allocated
    hidden-state buffers (`_step0_hidden_states_buf`, `_hs_write_buffer`) are left out.
    `mtp`: `MTPEagleDynamicTreeWorker.__init__` (`cite_fact("mtp_dynamic_tree_worker")`) has
    no _accept_token, _current_mask_buf, _new_pos_offset_buf, _arange_max_batch, and sizes
    _hs_read_map K * d like Eagle3's d * K.
    """
    L = K * d  # loop_max_tokens
    H = K + K * K * (d - 1)
    P = d + 1  # max_path_len
    buf_dim = max(q, L)  # max(max_total_draft_tokens + 1, K * max_draft_len)
    out = {
        "tree_draft_tokens": S * L, "tree_position_ids": S * L,
        "tree_history_draft_tokens": S * H, "tree_history_score": S * H,
        "tree_history_draft_tokens_parent": S * max(K * (d - 1) + 1, K + 1),
        "tree_mask": S * L * L, "tree_mask_init": S * K * K,
        "tree_accepted_draft_indices": S * d, "tree_accept_token": S * P,
        "tree_hs_read_map": S * d * K, "tree_accepted_tokens": S * P, "tree_num_accepted_tokens": S,
        "tree_target_tokens": S * q, "tree_candidates": S * q, "tree_target_predict": S * q,
        "tree_step0_input_ids": S * q, "tree_step0_position_ids": S * q, "tree_gather_ids": S * q,
        "tree_current_mask": S * L * L, "tree_new_pos_offset": S * L,
        "tree_mask_repack": S * buf_dim * ((buf_dim + 31) // 32), "tree_arange_max_batch": S,
    }
    if mtp:
        for name in ("tree_accept_token", "tree_current_mask", "tree_new_pos_offset",
                     "tree_arange_max_batch"):
            del out[name]
    return out


def model_engine(args: LlmArgsRef, *, use_mrope: bool = False) -> EngineRef:
    """The decode-graph part of `PyTorchModelEngine.__init__`
    (tensorrt_llm/_torch/pyexecutor/model_engine.py@c0edad93fd:557-564).

    tokens_per_request = 1 + original_max_total_draft_tokens, where
    original_max_total_draft_tokens = spec_config.tokens_per_gen_step - 1 (0 without
    speculation). cuda_graph_config None -> batch_sizes = CudaGraphConfig's field default
    (None) -> no graphs, and `CUDAGraphRunnerConfig.use_cuda_graph` is False. Otherwise the
    config's batch sizes go through `filter_cuda_graph_batch_sizes` with
    max_batch_size = llm_args.max_batch_size. An empty result is not an error: the runner
    captures "0 batch sizes" and every batch runs eagerly.
    """
    q = args.spec.tokens_per_gen_step if args.spec is not None else 1
    graph = args.cuda_graph
    if graph is None:
        return EngineRef(args, q, False, (), False, args.warnings, use_mrope)
    kept, warnings = filter_cuda_graph_batch_sizes(
        graph.batch_sizes, args.max_batch_size, args.max_num_tokens, q, graph.enable_padding)
    return EngineRef(args, q, True, tuple(sorted(set(kept))), graph.enable_padding,
                     args.warnings + tuple(warnings), use_mrope)


# --------------------------------------------------------------------------------------------
# Prefill and encoder graph ladders (not planned by graphfit; restated for the reader)
# --------------------------------------------------------------------------------------------

CITES.update({
    "piecewise_filter": ("model_engine", "_filter_piecewise_capture_num_tokens (= "
                         "_filter_prefill_capture_num_tokens)", 4000),
})
LINES["piecewise_filter"] = (207, 248)


def filter_piecewise_capture_num_tokens(candidates: Sequence[int], max_num_tokens: int,
                                        max_batch_size: int, max_seq_len: int
                                        ) -> tuple[list[int], list[int]]:
    """`_filter_piecewise_capture_num_tokens`
    (tensorrt_llm/_torch/pyexecutor/model_engine.py@c0edad93fd:207-248):
    ceiling max(0, bs * (seq - 1)); limit min(tokens, ceiling); kept = sorted set of
    min(c, limit) for 0 < c <= tokens (empty when limit <= 0); unrecordable = sorted set of
    c with ceiling < c <= tokens."""
    ceiling = max(0, max_batch_size * (max_seq_len - 1))
    limit = min(max_num_tokens, ceiling)
    kept: set[int] = set()
    if limit > 0:
        for c in candidates:
            if 0 < c <= max_num_tokens:
                kept.add(c if c < limit else limit)
    return sorted(kept), sorted({c for c in candidates if ceiling < c <= max_num_tokens})


CITES.update({
    "prefill_backend_enum": ("llm_args", "PrefillCudaGraphBackend (disabled / piecewise / "
                             "breakable) and _DEFAULT_PREFILL_CAPTURE_NUM_TOKENS", 224000),
    "prefill_fields": ("llm_args", "TorchLlmArgs.prefill_cuda_graph_backend (default disabled) "
                       "/ prefill_capture_num_tokens (Optional[List[int]])", 256000),
    "prefill_normalize": ("llm_args", "TorchLlmArgs.normalize_prefill_cuda_graph_config",
                          256000),
    "torch_compile_config": ("llm_args", "TorchCompileConfig.enable_piecewise_cuda_graph / "
                             "capture_num_tokens (deprecated; PositiveInt, sorted set)", 240000),
    "prefill_padding": ("runners_common", "get_padding_params", 0),
    "piecewise_replay": ("piecewise_optimizer", "PiecewiseRunner.__call__ (replays an entry "
                         "only at exactly a captured num_tokens, else the default callable)",
                         0),
})
LINES.update({"prefill_padding": (84, 145), "piecewise_replay": (159, 235),
              "prefill_backend_enum": (5504, 5513),  # the enum 5504-5509, the list 5512-5513
              "prefill_fields": (5872, 5884), "prefill_normalize": (6216, 6273),
              "torch_compile_config": (5516, 5549)})

DEFAULT_PREFILL_CAPTURE_NUM_TOKENS = [2 ** i for i in range(8)] + list(range(256, 3073, 256))


def normalize_prefill(raw: Mapping[str, Any]) -> tuple[str, list[int] | None]:
    """`TorchLlmArgs.normalize_prefill_cuda_graph_config`
    (tensorrt_llm/llmapi/llm_args.py@0004396720:6216-6273) on the raw top-level keys:
    (backend, capture list). The legacy torch_compile_config.enable_piecewise_cuda_graph
    means piecewise and conflicts with an explicit other backend; its capture_num_tokens (a
    sorted set, PositiveInt) fills an unset prefill_capture_num_tokens and conflicts with an
    explicit one of another set; a backend that is on without a list gets the default list."""
    backend = raw.get("prefill_cuda_graph_backend")
    explicit_backend = "prefill_cuda_graph_backend" in raw
    backend = "disabled" if backend is None else str(backend)
    if backend not in ("disabled", "piecewise", "breakable"):
        raise Rejected("prefill_cuda_graph_backend: not a PrefillCudaGraphBackend")
    buckets = raw.get("prefill_capture_num_tokens")
    explicit_buckets = "prefill_capture_num_tokens" in raw
    compile_config = raw.get("torch_compile_config")
    if compile_config is not None:
        if compile_config.get("enable_piecewise_cuda_graph"):
            if explicit_backend and backend != "piecewise":
                raise Rejected("torch_compile_config.enable_piecewise_cuda_graph conflicts "
                               "with prefill_cuda_graph_backend")
            backend = "piecewise"
        legacy = compile_config.get("capture_num_tokens")
        if legacy is not None:
            if any(_int("capture_num_tokens", v) < 1 for v in legacy):
                raise Rejected("capture_num_tokens: PositiveInt")
            legacy = sorted(set(legacy), reverse=True)
            if explicit_buckets and buckets is not None and sorted(set(legacy)) != sorted(
                    set(buckets)):
                raise Rejected("torch_compile_config.capture_num_tokens conflicts with "
                               "prefill_capture_num_tokens")
            if not explicit_buckets:
                buckets = list(legacy)
    if backend != "disabled" and buckets is None:
        buckets = list(DEFAULT_PREFILL_CAPTURE_NUM_TOKENS)
    if backend == "breakable" and compile_config is not None:
        raise Rejected("breakable prefill CUDA graph does not support torch_compile_config")
    return backend, (None if buckets is None else list(buckets))


def get_padding_params(total_num_tokens: int, num_ctx_requests: int,
                       attn_all_rank_num_tokens: list[int] | None, backend: str,
                       prefill_cuda_graph_num_tokens: list[int],
                       all_rank_ctx_requests: list[int] | None = None
                       ) -> tuple[int, bool, list[int] | None]:
    """`get_padding_params`
    (tensorrt_llm/_torch/pyexecutor/engine/runners/common.py@13b902ed48:84-145),
    with the all-gathered context counts (`get_all_rank_ctx_requests`) passed in."""
    if backend != "disabled" and prefill_cuda_graph_num_tokens:
        sizes = prefill_cuda_graph_num_tokens
        max_captured = sizes[-1]
        if attn_all_rank_num_tokens is not None:
            has_ctx = num_ctx_requests != 0 or (all_rank_ctx_requests is not None and any(
                c != 0 for c in all_rank_ctx_requests))
            if has_ctx and max(attn_all_rank_num_tokens) <= max_captured:
                padded = sizes[_bisect_left(sizes, max(attn_all_rank_num_tokens))]
                return padded, True, [padded] * len(attn_all_rank_num_tokens)
            return total_num_tokens, False, attn_all_rank_num_tokens
        if num_ctx_requests != 0 and total_num_tokens <= max_captured:
            return sizes[_bisect_left(sizes, total_num_tokens)], True, None
        return total_num_tokens, False, None
    return total_num_tokens, False, attn_all_rank_num_tokens


def _bisect_left(values: Sequence[int], x: int) -> int:
    """bisect.bisect_left, written out."""
    lo, hi = 0, len(values)
    while lo < hi:
        mid = (lo + hi) // 2
        if values[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


def generate_encoder_num_tokens(max_num_token: int, enable_padding: bool) -> list[int]:
    """`EncodeCudaGraphConfig._generate_cuda_graph_num_tokens`
    (tensorrt_llm/llmapi/llm_args.py@0004396720:387-422)."""
    if enable_padding:
        sizes = [1, 2, 4, 8, 16, 32, 64, 128, *range(256, 3073, 256)]
    else:
        sizes = [1, 2, 4, 8, 16, *range(16, 65, 16), *range(96, 257, 32),
                 *range(384, 1025, 128), *range(1280, 3073, 256)]
    p = 4096
    while p < max_num_token:
        sizes.append(p)
        p *= 2
    out = sorted({s for s in sizes if s <= max_num_token})
    if not out or out[-1] != max_num_token:
        out.append(max_num_token)
    return out


def generate_encoder_seq_lens(max_seq_len: int, enable_padding: bool) -> list[int]:
    """`EncodeCudaGraphConfig._generate_cuda_graph_seq_lens`
    (tensorrt_llm/llmapi/llm_args.py@0004396720:424-459)."""
    if enable_padding:
        sizes = [1, 2, 4, 8, 16, 32, 64, *range(128, 1025, 128)]
    else:
        sizes = [*range(1, 9), *range(16, 65, 8), *range(96, 257, 32), *range(320, 513, 64),
                 *range(640, 1025, 128)]
    p = 2048
    while p < max_seq_len:
        sizes.append(p)
        p *= 2
    out = sorted({s for s in sizes if s <= max_seq_len})
    if not out or out[-1] != max_seq_len:
        out.append(max_seq_len)
    return out


def filter_encoder_buckets(values: Sequence[int], limit: int, enable_padding: bool
                           ) -> list[int]:
    """`_filter_cuda_graph_num_tokens` / `_filter_cuda_graph_seq_lens`
    (`cite_fact("encoder_bucket_filters")`; later moved to engine/cuda_graph.py without the
    underscore)."""
    result: list[int] = []
    for index, value in enumerate(values):
        if value <= limit:
            result.append(value)
            continue
        if enable_padding and (index == 0 or result[index - 1] != limit):
            result.append(limit)
        break
    return result


def mm_encoder_buckets(buckets: Sequence[Sequence[int]]) -> list[tuple[int, int]]:
    """`MultimodalEncoderCudaGraphConfig`
    (tensorrt_llm/llmapi/llm_args.py@0004396720:501-552): PositiveInt
    pairs, min_length 1, `_normalize` requires total_tokens >= num_contexts and returns
    sorted(set(buckets))."""
    if len(buckets) < 1:
        raise Rejected("buckets: min_length 1")
    pairs = []
    for total, contexts in buckets:
        if _int("total_tokens", total) < 1 or _int("num_contexts", contexts) < 1:
            raise Rejected("buckets: PositiveInt")
        if total < contexts:
            raise Rejected("`buckets` entries must have total_tokens >= num_contexts.")
        pairs.append((total, contexts))
    return sorted(set(pairs))


# --------------------------------------------------------------------------------------------
# trtllm-serve (commands/serve.py) and the YAML merge (llm_args.py)
# --------------------------------------------------------------------------------------------

# option spelling -> (llm_args key or None when it does not reach LlmArgs, takes a value)
SERVE_OPTIONS: dict[str, tuple[str | None, bool]] = {
    "--max_batch_size": ("max_batch_size", True),
    "--max_num_tokens": ("max_num_tokens", True),
    "--max_seq_len": ("max_seq_len", True),
    "--max_beam_width": ("max_beam_width", True),
    "--tensor_parallel_size": ("tensor_parallel_size", True),
    "--tp_size": ("tensor_parallel_size", True),
    "--pipeline_parallel_size": ("pipeline_parallel_size", True),
    "--pp_size": ("pipeline_parallel_size", True),
    "--context_parallel_size": ("context_parallel_size", True),
    "--cp_size": ("context_parallel_size", True),
    "--moe_expert_parallel_size": ("moe_expert_parallel_size", True),
    "--ep_size": ("moe_expert_parallel_size", True),
    "--gpus_per_node": ("gpus_per_node", True),
    "--free_gpu_memory_fraction": (None, True),
    "--kv_cache_free_gpu_memory_fraction": (None, True),
    "--backend": ("backend", True),
    "--tokenizer": ("tokenizer", True),
    "--host": (None, True),
    "--port": (None, True),
    "--log_level": (None, True),
    "--num_postprocess_workers": ("num_postprocess_workers", True),
    "--trust_remote_code": ("trust_remote_code", False),
    "--enable_chunked_prefill": ("enable_chunked_prefill", False),
    "--config": (None, True),
    "--extra_llm_api_options": (None, True),
}
INT_OPTIONS = frozenset({"max_batch_size", "max_num_tokens", "max_seq_len", "max_beam_width",
                         "tensor_parallel_size", "pipeline_parallel_size",
                         "context_parallel_size", "moe_expert_parallel_size", "gpus_per_node",
                         "num_postprocess_workers"})


def parse_serve_argv(argv: Sequence[str]) -> tuple[dict[str, Any], str | None]:
    """`trtllm-serve MODEL [OPTIONS]` options (`serve`,
    tensorrt_llm/commands/serve.py@00209af149:388-687).

    Click options with underscores (`--max_batch_size`, not `--max-batch-size`); aliases
    `--tp_size`, `--pp_size`, `--cp_size`, `--ep_size`, `--kv_cache_free_gpu_memory_fraction`,
    and `--config` for `--extra_llm_api_options` (the YAML path; the older serve.py
    @4c05a74891 had only `--extra_llm_api_options` and `--tp_size`). `--opt value` and
    `--opt=value`; a repeated option keeps the last value; an unknown option is a usage error.
    Returns the explicitly given llm_args keys and the YAML path.
    """
    explicit: dict[str, Any] = {}
    yaml_path: str | None = None
    items = list(argv)
    i = 0
    while i < len(items):
        token = items[i]
        name, eq, inline = token.partition("=")
        if name not in SERVE_OPTIONS:
            raise Rejected(f"No such option: {name}")
        key, takes_value = SERVE_OPTIONS[name]
        if takes_value:
            if eq:
                value: Any = inline
            else:
                if i + 1 >= len(items):
                    raise Rejected(f"Option '{name}' requires an argument.")
                i += 1
                value = items[i]
        else:
            if eq:
                raise Rejected(f"Option '{name}' does not take a value.")
            value = True
        i += 1
        if name in ("--config", "--extra_llm_api_options"):
            yaml_path = value
            continue
        if key is None:
            continue
        if key in INT_OPTIONS:
            try:
                value = int(value)
            except (TypeError, ValueError):
                raise Rejected(f"Invalid value for '{name}': {value!r} is not a valid "
                               f"integer.") from None
        explicit[key] = value
    return explicit, yaml_path


def merge_yaml(cli: Mapping[str, Any], yaml_dict: Mapping[str, Any], explicit: set[str], *,
               cli_wins: bool = True) -> dict[str, Any]:
    """`update_llm_args_with_extra_dict` (llm_args.py @0004396720), top-level keys only.

    With `explicit_cli_keys` (what the 2026 CLI entry points pass) a flag the user typed wins
    over the YAML (with a warning); an untyped CLI default loses to the YAML. Without them
    (tensorrt_llm/commands/serve.py@00209af149:650 and older:
    `update_llm_args_with_extra_dict(llm_args, yaml)`) the YAML wins over every flag
    (`cli_wins=False`).
    """
    merged = dict(cli)
    for key, value in yaml_dict.items():
        if cli_wins and key in explicit:
            continue
        merged[key] = value
    return merged


def trtllm_serve(argv: Sequence[str], read_yaml: Any = None, *,
                 cli_wins: bool = False) -> LlmArgsRef:
    """`trtllm-serve MODEL argv...`: flags, then the YAML merge, then `llm_args`.

    `serve` (tensorrt_llm/commands/serve.py@00209af149:650) calls
    `update_llm_args_with_extra_dict(llm_args, yaml)` without explicit_cli_keys (its option
    help: "a YAML file that overwrites the parameters specified by trtllm-serve"), so the
    YAML wins over every flag it sets (`cli_wins=False`, the default here); `cli_wins=True` is
    what an entry point passing explicit_cli_keys gets.

    CLI defaults are the LlmArgs defaults (2048 / 8192 / None; serve.py @00209af149 takes
    them from BuildConfig's fields, commands/common_llm_options.py from BaseLlmArgs'). The
    YAML (`--extra_llm_api_options FILE` or `--config FILE`) is read with yaml.safe_load; an
    empty file is {}, a non-mapping root is an error. `read_yaml(path)` returns the parsed
    document (tests pass the mapping they wrote).
    """
    explicit, yaml_path = parse_serve_argv(argv)
    cli = {"max_batch_size": DEFAULT_MAX_BATCH_SIZE, "max_num_tokens": DEFAULT_MAX_NUM_TOKENS,
           "max_seq_len": None, "max_beam_width": DEFAULT_MAX_BEAM_WIDTH, **explicit}
    if yaml_path is not None:
        if read_yaml is None:
            raise Rejected(f"cannot read {yaml_path}")
        document = read_yaml(yaml_path)
        if document is None:
            document = {}
        if not isinstance(document, Mapping):
            raise Rejected("Configuration file root must be a mapping.")
        cli = merge_yaml(cli, document, set(explicit), cli_wins=cli_wins)
    # every CLI key is an LLM API field; a YAML key that is not one is rejected by
    # TorchLlmArgs(extra="forbid") like any other unknown field, not dropped
    return llm_args(cli)


# --------------------------------------------------------------------------------------------
# Encoder-only CUDA graphs: capture keys and dispatch (graphfit.planner.engines.trtllm_encoder)
# --------------------------------------------------------------------------------------------

PINS.update({
    "encoder_runner": ("tensorrt_llm/_torch/pyexecutor/engine/runners/encoder.py",
                       "0e91ee39beb5203f65290f94bd53345a0b86f0a6"),
    # the same file at the decoder pin: its bucket filters were still private there
    "encoder_runner_c0edad93fd": ("tensorrt_llm/_torch/pyexecutor/engine/runners/encoder.py",
                                  "c0edad93fd1620b2c95e3c2add800eb2243249bc"),
})
COUNTED_TO.update({"encoder_runner": 527, "encoder_runner_c0edad93fd": 291})

CITES.update({
    "encoder_bucket_filters": ("encoder_runner_c0edad93fd", "_filter_cuda_graph_num_tokens / "
                               "_filter_cuda_graph_seq_lens", 0),
    "encoder_filters": ("encoder_runner", "EncoderConfigMixin.create (filter_cuda_graph_"
                        "batch_sizes(.., 1, ..), filter_cuda_graph_num_tokens, filter_cuda_"
                        "graph_seq_lens; enabled when both token lists keep a value)", 0),
    "encoder_capture_shapes": ("encoder_runner", "EncoderMixin._encoder_capture_shapes and "
                               "_run_encoder_capture_pass (build_capture_sequence_lengths per "
                               "shape, then prepare_tokens)", 16000),
    # cuda_graph_runner.py: first read in a stored 131,905-character version whose commit the
    # index does not give; the pinned @c0edad93fd copy (105,846 characters) has the same
    # EncoderCUDAGraphRunner (class at line 1193), read in the windows 48000..96000
    "encoder_graph_key": ("cuda_graph_runner", "EncoderCUDAGraphRunner._get_valid_graph_key / "
                          "get_graph_key", 64000),
    "encoder_pad_batch": ("cuda_graph_runner", "EncoderCUDAGraphRunner.pad_batch / "
                          "_resolve_graph_key / maybe_get_cuda_graph", 64000),
})

LINES.update({
    "encoder_bucket_filters": (248, 287),  # num_tokens 248-266, seq_lens 269-287
    # EncoderConfigMixin.create is 74-214: the three filters 130-158, graphs on when both token
    # lists keep a value 178-180
    "encoder_filters": (130, 180),
    # _encoder_capture_shapes 443-466 (yields (batch size, num_tokens, seq_len) at 466),
    # _run_encoder_capture_pass 486-525 (build_capture_sequence_lengths 501, prepare_tokens 519)
    "encoder_capture_shapes": (443, 525),
    # cuda_graph_runner.py@c0edad93fd: _get_valid_graph_key 1542-1560, get_graph_key 1562-1606
    "encoder_graph_key": (1542, 1606),
    # pad_batch 1621-1684 (token-mode padding 1669-1684), _resolve_graph_key 1728-1748,
    # maybe_get_cuda_graph 1779-1870
    "encoder_pad_batch": (1621, 1870),
})


def encoder_round_up(value: int, supported: Sequence[int]) -> int:
    """`EncoderCUDAGraphRunner._round_up`: smallest element >= value, or 0."""
    if not supported:
        return 0
    idx = bisect.bisect_left(supported, value)
    return 0 if idx == len(supported) else supported[idx]


def encoder_build_capture_sequence_lengths(batch_size: int, num_tokens: int,
                                           max_seq_len: int) -> list[int] | None:
    """`EncoderCUDAGraphRunner.build_capture_sequence_lengths`."""
    if batch_size <= 0 or num_tokens < batch_size or num_tokens > batch_size * max_seq_len:
        return None
    if batch_size == 1:
        return [num_tokens]
    if num_tokens >= max_seq_len + batch_size - 1:
        remaining_tokens = num_tokens - max_seq_len
        base, extra = divmod(remaining_tokens, batch_size - 1)
        return [max_seq_len] + [base + 1] * extra + [base] * (batch_size - 1 - extra)
    return [num_tokens - batch_size + 1] + [1] * (batch_size - 1)


@dataclass
class EncoderRunnerRef:
    """The encoder-only `EncoderCUDAGraphRunner` state graphfit models (token mode)."""

    batch_sizes: list[int]
    num_tokens: list[int]
    seq_lens: list[int]
    padding: bool
    max_batch_size: int
    max_num_tokens: int
    enabled: bool = field(init=False)

    def __post_init__(self) -> None:
        self.batch_sizes = sorted(self.batch_sizes)
        self.num_tokens = sorted(self.num_tokens)
        self.seq_lens = sorted(self.seq_lens)
        self.enabled = bool(self.num_tokens and self.seq_lens)

    @property
    def max_supported_num_tokens(self) -> int:
        return self.num_tokens[-1] if self.num_tokens else 0

    def static_rows(self) -> int:
        """`_create_shared_static_tensors` (encoder-only): input_ids (rows,), position_ids
        (1, rows), rows = min(max_supported_num_tokens, max_num_tokens); allocated only when
        the graphs are on (`cite_fact("encoder_seq_lens_host")`, line 1268): 0 rows
        otherwise."""
        if not self.enabled:
            return 0
        return min(self.max_supported_num_tokens, self.max_num_tokens)

    def seq_lens_rows(self) -> int:
        """`cite_fact("encoder_seq_lens_host")`: the pinned host seq_lens
        (max_supported_batch_size,), allocated only when graphs are on."""
        return self.batch_sizes[-1] if self.enabled and self.batch_sizes else 0

    def get_valid_graph_key(self, batch_size: int, num_tokens: int, max_seq_len: int
                            ) -> tuple[int, int, int]:
        i = bisect.bisect_left(self.num_tokens, num_tokens)
        j = bisect.bisect_left(self.seq_lens, max_seq_len)
        while i < len(self.num_tokens) and j < len(self.seq_lens):
            padded_num_tokens, padded_max_seq_len = self.num_tokens[i], self.seq_lens[j]
            if padded_num_tokens > batch_size * padded_max_seq_len:
                j += 1
            elif padded_max_seq_len > padded_num_tokens:
                i += 1
            else:
                return batch_size, padded_num_tokens, padded_max_seq_len
        return batch_size, 0, 0

    def get_graph_key(self, seq_lens: list[int]) -> tuple[tuple[int, int, int], bool, bool]:
        num_tokens = sum(seq_lens)
        batch_size = len(seq_lens)
        max_seq_len = max(seq_lens) if batch_size > 0 else 0
        key = self.get_valid_graph_key(batch_size, num_tokens, max_seq_len)
        performed = key[1] != num_tokens or key[2] != max_seq_len
        successful = key[1] != 0 and key[2] != 0
        return key, performed, successful

    def pad_batch(self, seq_lens: list[int]) -> list[int]:
        """`pad_batch` on seq_lens (input_ids has sum(seq_lens) entries)."""
        if not self.enabled or not self.padding:
            return seq_lens
        padded_batch_size = encoder_round_up(len(seq_lens), self.batch_sizes)
        if padded_batch_size in (0, len(seq_lens)):
            return seq_lens
        padding_size = padded_batch_size - len(seq_lens)
        if sum(seq_lens) + padding_size > self.max_supported_num_tokens:
            return seq_lens
        return list(seq_lens) + [1] * padding_size

    def maybe_get_key(self, seq_lens: list[int], captured: set[tuple[int, int, int]] | None
                      ) -> tuple[int, int, int] | None:
        """`maybe_get_cuda_graph` (TRT-LLM attention, no expert statistics, no multi-item):
        the key, or None for eager; `captured` None is the capture pass (capture allowed)."""
        if not self.enabled or len(seq_lens) not in self.batch_sizes:
            return None
        key, performed, successful = self.get_graph_key(seq_lens)
        if (not self.padding and performed) or not successful:
            return None
        if captured is not None and key not in captured:
            return None
        return key

    def capture_shapes(self) -> list[tuple[int, int, int]]:
        """`EncoderMixin._encoder_capture_shapes` (encoder-only):
        tensorrt_llm/_torch/pyexecutor/engine/runners/encoder.py@0e91ee39be:443-466."""
        out = []
        for batch_size in sorted(self.batch_sizes, reverse=True):
            if batch_size > self.max_batch_size:
                continue
            for j, max_seq_len in reversed(list(enumerate(self.seq_lens))):
                previous_seq_len = self.seq_lens[j - 1] if j > 0 else 0
                for i, num_tokens in reversed(list(enumerate(self.num_tokens))):
                    previous_num_tokens = self.num_tokens[i - 1] if i > 0 else 0
                    if (num_tokens < previous_seq_len + batch_size
                            or previous_num_tokens >= batch_size * max_seq_len
                            or num_tokens > batch_size * max_seq_len
                            or max_seq_len > num_tokens):
                        continue
                    out.append((batch_size, num_tokens, max_seq_len))
        return out

    def captured_keys(self) -> set[tuple[int, int, int]]:
        """`_run_encoder_capture_pass`
        (tensorrt_llm/_torch/pyexecutor/engine/runners/encoder.py@0e91ee39be:486-525): each shape's
        layout through `prepare_tokens` (pad_batch, then maybe_get_cuda_graph with capture
        allowed)."""
        keys = set()
        if not self.enabled:
            return keys
        for shape in self.capture_shapes():
            seq = encoder_build_capture_sequence_lengths(*shape)
            if seq is None:
                continue
            key = self.maybe_get_key(self.pad_batch(seq), None)
            if key is not None:
                keys.add(key)
        return keys

    def replay_key(self, seq_lens: list[int], captured: set[tuple[int, int, int]]
                   ) -> tuple[int, int, int] | None:
        """A runtime batch: pad_batch, then maybe_get_cuda_graph (uncaptured keys eager)."""
        return self.maybe_get_key(self.pad_batch(seq_lens), captured)


def encoder_runner_ref(batch_sizes: Sequence[int], num_tokens: Sequence[int],
                       seq_lens: Sequence[int], padding: bool, max_batch_size: int,
                       max_num_tokens: int, max_seq_len: int) -> EncoderRunnerRef:
    """`EncoderConfigMixin.create` (token mode;
    tensorrt_llm/_torch/pyexecutor/engine/runners/encoder.py@0e91ee39be:130-180): the three filters
    on the sorted lists."""
    bs, _ = (filter_cuda_graph_batch_sizes(sorted(set(batch_sizes)), max_batch_size,
                                           max_num_tokens, 1, padding)
             if batch_sizes else ([], []))
    nt = filter_encoder_buckets(sorted(set(num_tokens)), max_num_tokens, padding) \
        if num_tokens else []
    sl = filter_encoder_buckets(sorted(set(seq_lens)), max_seq_len, padding) \
        if seq_lens else []
    return EncoderRunnerRef(bs, nt, sl, padding, max_batch_size, max_num_tokens)


# --------------------------------------------------------------------------------------------
# cuda_graph_config mode encode (EncodeCudaGraphConfig) -> the encoder-only runner
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EncodeGraphConfigRef:
    """A validated `EncodeCudaGraphConfig` (tensorrt_llm/llmapi/llm_args.py@0004396720:305-385):
    the base fields as `validate_base_cuda_graph_config` leaves them, and num_tokens /
    seq_lens sorted, or generated from max_num_token / max_seq_len, or None (unset)."""

    base: CudaGraphConfigRef
    num_tokens: tuple[int, ...] | None
    seq_lens: tuple[int, ...] | None


def graph_config_mode(raw: Mapping[str, Any]) -> str:
    """`TorchLlmArgs.infer_cuda_graph_config_mode`
    (tensorrt_llm/llmapi/llm_args.py@0004396720:5634-5644): without a `mode`, "encode" when
    any of num_tokens / max_num_token / seq_lens / max_seq_len is set to something other than
    None or 0, else "decode"; the discriminator then picks the class
    (tensorrt_llm/llmapi/llm_args.py@0004396720:495-498)."""
    if "mode" in raw:
        mode = raw["mode"]
        if mode not in ("decode", "encode"):
            raise Rejected(f"cuda_graph_config.mode: {mode!r} is not 'decode' or 'encode'")
        return str(mode)
    return "encode" if any(k in raw and raw[k] not in (None, 0)
                           for k in ENCODER_GRAPH_KEYS) else "decode"


def _encode_list(raw: Mapping[str, Any], name: str, limit: str, padding: bool,
                 generate: Any) -> tuple[int, ...] | None:
    top = _int(f"cuda_graph_config.{limit}", raw.get(limit, 0), minimum=0)
    given = raw.get(name)
    if given is not None:
        if not isinstance(given, list) or len(given) < 1:
            raise Rejected(f"cuda_graph_config.{name}: min_length 1")
        values = sorted(_int(f"cuda_graph_config.{name}", v, minimum=1) for v in given)
    else:
        values = []
    if values:
        if top not in (0, values[-1]):
            raise Rejected(f"CudaGraphConfig.{limit} is incompatible with "
                           f"CudaGraphConfig.{name}")
        return tuple(values)
    return tuple(generate(top, padding)) if top > 0 else None


def encode_cuda_graph_config(raw: Mapping[str, Any]) -> EncodeGraphConfigRef:
    """`EncodeCudaGraphConfig(**raw)`: StrictBaseModel (unknown keys rejected), the base
    validator on its batch fields, then `validate_encoder_cuda_graph_config`."""
    unknown = set(raw) - GRAPH_CONFIG_KEYS - ENCODER_GRAPH_KEYS
    if unknown:
        raise Rejected(f"cuda_graph_config: extra fields not permitted: {sorted(unknown)}")
    base = cuda_graph_config({k: v for k, v in raw.items() if k in GRAPH_CONFIG_KEYS - {"mode"}})
    padding = base.enable_padding
    return EncodeGraphConfigRef(
        base, _encode_list(raw, "num_tokens", "max_num_token", padding,
                           generate_encoder_num_tokens),
        _encode_list(raw, "seq_lens", "max_seq_len", padding, generate_encoder_seq_lens))


def encoder_runner_from_args(raw: Mapping[str, Any]) -> EncoderRunnerRef:
    """The encoder-only runner an `encode_only` LLM with these LLM-API arguments builds
    (`_initialize_encoder_runner` passes the EncodeCudaGraphConfig and the engine's
    max_batch_size, max_num_tokens and max_seq_len to `EncoderRunnerConfig.create`). Only
    plain arguments: max_batch_size / max_num_tokens default as `llm_args` does, max_seq_len
    must be given (TensorRT-LLM would read it from the checkpoint)."""
    graph = raw.get("cuda_graph_config")
    if not isinstance(graph, Mapping) or graph_config_mode(graph) != "encode":
        raise NotModelled("not an encode cuda_graph_config")
    if raw.get("max_seq_len") is None:
        raise NotModelled("max_seq_len from the checkpoint")
    cfg = encode_cuda_graph_config({k: v for k, v in graph.items() if k != "mode"})
    args = llm_args({k: v for k, v in raw.items() if k != "cuda_graph_config"})
    assert args.max_seq_len is not None
    return encoder_runner_ref(list(cfg.base.batch_sizes), list(cfg.num_tokens or ()),
                              list(cfg.seq_lens or ()), cfg.base.enable_padding,
                              args.max_batch_size, args.max_num_tokens, args.max_seq_len)


# --------------------------------------------------------------------------------------------
# Encoder-decoder encoder CUDA graphs (encoder_cuda_graph_config, token mode):
# graphfit.planner.engines.trtllm_encdec
# --------------------------------------------------------------------------------------------

CITES.update({
    "encdec_capture_layouts": ("cuda_graph_runner", "EncoderCUDAGraphRunner.__init__ (the "
                               "encoder-decoder capture_keys) and _build_encoder_decoder_"
                               "capture_layouts", 56000),
    "encdec_dynamic_key": ("cuda_graph_runner", "_get_dynamic_capture_key / "
                           "_get_sequence_slot_mapping", 56000),
    "encdec_dispatch": ("cuda_graph_runner", "get_graph_key / pad_batch / _resolve_graph_key "
                        "(the encoder-decoder branches)", 72000),
    "encdec_static_rows": ("cuda_graph_runner", "_create_shared_static_tensors (encoder-"
                           "decoder rows = max_num_tokens)", 56000),
    "encdec_config": ("llm_args", "encoder_cuda_graph_config, encoder_max_batch_size / "
                      "encoder_max_num_tokens, validate_encoder_cuda_graph_config", 240000),
    "encdec_bucket_check": ("encoder_runner", "EncoderConfigMixin.create: "
                            "validate_token_encoder_bucket_config raises for an encoder-decoder "
                            "model", 0),
    "encdec_fixed_slots": ("encoder_runner", "EncoderConfigMixin.create: "
                           "use_fixed_sequence_slots = is_encoder_decoder and the pretrained "
                           "config has relative_attention_num_buckets", 0),
    "encdec_slot_replay": ("cuda_graph_runner", "prepare_encoder_decoder_inputs: with fixed "
                           "slots, ValueError when the batch fits no slot of its key", 56000),
    "encdec_replay_call": ("encoder_runner", "EncoderMixin._prepare_encoder_graph_inputs: "
                           "pad_batch, maybe_get_cuda_graph, then prepare_encoder_decoder_"
                           "inputs on every encoder-decoder replay", 0),
    "encoder_seq_lens_host": ("cuda_graph_runner", "EncoderCUDAGraphRunner: "
                              "max_supported_batch_size, the static tensors only when enabled, "
                              "the pinned host seq_lens (max_batch_size,) int32", 56000),
    "encoder_runtime_sizes": ("model_engine", "PyTorchModelEngine.__init__: encoder_batch_size "
                              "/ encoder_max_num_tokens fall back to max_batch_size / "
                              "max_num_tokens", 9000),
})
LINES.update({
    # __init__'s encoder-decoder capture_keys 1238-1258; _build_encoder_decoder_capture_layouts
    # 1415-1440
    "encdec_capture_layouts": (1238, 1440),
    # _get_dynamic_capture_key 1442-1484, _get_sequence_slot_mapping 1486-1523
    "encdec_dynamic_key": (1442, 1523),
    # get_graph_key 1562-1606 (encoder-decoder 1578-1592), pad_batch 1621-1684 (1628-1634),
    # _resolve_graph_key 1728-1748 (1743)
    "encdec_dispatch": (1562, 1748),
    "encdec_static_rows": (1307, 1312),
    # the keyword of the runner config 204-210 (inside create, 74-214)
    "encdec_fixed_slots": (204, 210),
    # prepare_encoder_decoder_inputs 1686-1726, the ValueError 1709-1712
    "encdec_slot_replay": (1686, 1726),
    # _prepare_encoder_graph_inputs 363-392 (the call 375-383)
    "encdec_replay_call": (363, 392),
    # the field 5615-5622, encoder_max_batch_size 5685-5695, encoder_max_num_tokens 5697-5707,
    # validate_encoder_runtime_sizes 5723-5728, validate_encoder_cuda_graph_config 5730-5747
    "encdec_config": (5615, 5747),
    "encdec_bucket_check": (102, 112),
    "encoder_runtime_sizes": (352, 360),
    # max_supported_batch_size 1217 (= max_cuda_graph_batch_size, the largest filtered batch
    # size: runners/encoder.py@0e91ee39be:180-181), created when enabled 1268,
    # max_batch_size 1312, seq_lens 1373-1380
    "encoder_seq_lens_host": (1217, 1380),
})


@dataclass
class EncDecRunnerRef:
    """The encoder-decoder `EncoderCUDAGraphRunner` (token mode) on lists of request lengths:
    `fixed_slots` is `use_fixed_sequence_slots` (a model with relative attention, T5)."""

    batch_sizes: list[int]
    num_tokens: list[int]
    seq_lens: list[int]
    padding: bool
    max_num_tokens: int
    fixed_slots: bool
    enabled: bool = field(init=False)
    layouts: dict[tuple[int, int, int], list[int]] = field(init=False)
    capture_keys: frozenset[tuple[int, int, int]] = field(init=False)

    def __post_init__(self) -> None:
        self.batch_sizes = sorted(self.batch_sizes)
        self.num_tokens = sorted(self.num_tokens)
        self.seq_lens = sorted(self.seq_lens)
        self.enabled = bool(self.num_tokens and self.seq_lens)
        self.capture_keys = frozenset()  # empty while the layouts are built, as in __init__
        self.layouts = {}
        for bs in self.batch_sizes:
            for nt in self.num_tokens:
                for sl in self.seq_lens:
                    seq = encoder_build_capture_sequence_lengths(bs, nt, sl)
                    if seq is None:
                        continue
                    key, _, valid = self.get_graph_key(seq)
                    if valid:
                        self.layouts.setdefault(key, seq)
        self.capture_keys = frozenset(self.layouts)

    @property
    def max_supported_num_tokens(self) -> int:
        return self.num_tokens[-1] if self.num_tokens else 0

    def static_rows(self) -> int:
        """`cite_fact("encdec_static_rows")`: the encoder's max_num_tokens, allocated only
        when graphs are on (`cite_fact("encoder_seq_lens_host")`, line 1268)."""
        return self.max_num_tokens if self.enabled else 0

    def seq_lens_rows(self) -> int:
        """`cite_fact("encoder_seq_lens_host")`, as the encoder-only runner's."""
        return self.batch_sizes[-1] if self.enabled and self.batch_sizes else 0

    def slot_mapping(self, key: tuple[int, int, int], seq: list[int]) -> list[int] | None:
        capture = self.layouts.get(key)
        if capture is None or len(capture) != len(seq):
            return None
        if all(s <= c for s, c in zip(seq, capture, strict=True)):
            return list(range(len(seq)))
        order = sorted(range(len(seq)), key=lambda i: (-seq[i], i))
        slots = sorted(range(len(capture)), key=lambda i: (-capture[i], i))
        out = [0] * len(seq)
        for src, slot in zip(order, slots, strict=True):
            if seq[src] > capture[slot]:
                return None
            out[src] = slot
        return out

    def dynamic_key(self, seq: list[int], allow_batch_padding: bool
                    ) -> tuple[int, int, int] | None:
        b = len(seq)
        longest = max(seq) if seq else 0
        for padded in (self.batch_sizes if allow_batch_padding else [b]):
            if padded < b:
                continue
            padded_seq = seq + [1] * (padded - b)
            required = sum(padded_seq)
            for key in sorted(k for k in self.capture_keys if k[0] == padded):
                _, kn, kl = key
                if (kn < required or kn > self.max_supported_num_tokens or kl < longest
                        or kl not in self.seq_lens or kn > padded * kl):
                    continue
                if self.fixed_slots and self.slot_mapping(key, padded_seq) is None:
                    continue
                return key
        return None

    def get_graph_key(self, seq: list[int]) -> tuple[tuple[int, int, int], bool, bool]:
        n, b = sum(seq), len(seq)
        longest = max(seq) if b else 0
        if self.padding and self.capture_keys:
            key = self.dynamic_key(seq, False)
            if key is None:
                return (b, 0, 0), False, False
            return key, key[1] != n or key[2] != longest, True
        bucket = encoder_round_up(longest, self.seq_lens)
        return (b, n, bucket), False, n <= self.max_supported_num_tokens and bucket > 0

    def pad_batch(self, seq: list[int]) -> list[int]:
        if not self.enabled or not self.padding:
            return seq
        if self.capture_keys:
            key = self.dynamic_key(seq, True)
            padded = key[0] if key is not None else 0
        else:
            padded = encoder_round_up(len(seq), self.batch_sizes)
        if padded in (0, len(seq)):
            return seq
        if sum(seq) + padded - len(seq) > self.max_supported_num_tokens:
            return seq
        return list(seq) + [1] * (padded - len(seq))

    def resolve(self, seq: list[int]) -> tuple[int, int, int] | None:
        """`_resolve_graph_key` (no expert statistics)."""
        if not self.enabled or len(seq) not in self.batch_sizes:
            return None
        key, performed, successful = self.get_graph_key(seq)
        if key not in self.capture_keys:
            return None
        if (not self.padding and performed) or not successful:
            return None
        return key

    def captured_keys(self) -> set[tuple[int, int, int]]:
        """The capture pass: each key's layout (largest key first) through pad_batch and
        `_resolve_graph_key`; what it resolves to is captured."""
        out = set()
        for key in sorted(self.capture_keys, reverse=True):
            resolved = self.resolve(self.pad_batch(list(self.layouts[key])))
            if resolved is not None:
                out.add(resolved)
        return out

    def replay_key(self, seq: list[int], captured: set[tuple[int, int, int]]
                   ) -> tuple[int, int, int] | None:
        key = self.resolve(self.pad_batch(list(seq)))
        return key if key is not None and key in captured else None

    def replay_raises(self, seq: list[int], captured: set[tuple[int, int, int]]) -> bool:
        """`cite_fact("encdec_replay_call")` then `cite_fact("encdec_slot_replay")`: a batch
        that resolves to a captured key is prepared for replay, and with fixed slots
        `prepare_encoder_decoder_inputs` raises ValueError when the padded lengths have no
        slot mapping for that key (reachable only without padding: the dynamic key was
        chosen by the same mapping)."""
        padded = self.pad_batch(list(seq))
        key = self.resolve(padded)
        return (self.fixed_slots and key is not None and key in captured
                and self.slot_mapping(key, padded) is None)


def encdec_runner_ref(batch_sizes: Sequence[int], num_tokens: Sequence[int],
                      seq_lens: Sequence[int], padding: bool, max_batch_size: int,
                      max_num_tokens: int, max_seq_len: int, fixed_slots: bool
                      ) -> EncDecRunnerRef:
    """`EncoderConfigMixin.create` for a token encoder-decoder model
    (tensorrt_llm/_torch/pyexecutor/engine/runners/encoder.py@0e91ee39be:74-214): both bucket
    lists required (102-112), then the three filters."""
    if not num_tokens or not seq_lens:
        raise Rejected("encoder-decoder encoder CUDA graphs need num_tokens and seq_lens")
    only = encoder_runner_ref(batch_sizes, num_tokens, seq_lens, padding, max_batch_size,
                              max_num_tokens, max_seq_len)
    return EncDecRunnerRef(only.batch_sizes, only.num_tokens, only.seq_lens, padding,
                           max_num_tokens, fixed_slots)


def encdec_runner_from_args(raw: Mapping[str, Any], fixed_slots: bool = False
                            ) -> tuple[EncDecRunnerRef, tuple[int, int, int]]:
    """The runner and its (requests, tokens, longest) bounds for LLM-API arguments with
    `encoder_cuda_graph_config`: encoder_max_batch_size required, the encoder's token budget
    encoder_max_num_tokens or max_num_tokens (`cite_fact("encdec_config")`,
    `cite_fact("encoder_runtime_sizes")`), max_seq_len given."""
    graph = raw.get("encoder_cuda_graph_config")
    if not isinstance(graph, Mapping):
        raise NotModelled("no encoder_cuda_graph_config")
    if raw.get("encoder_max_batch_size") is None:
        raise Rejected("encoder_cuda_graph_config requires encoder_max_batch_size.")
    if raw.get("max_seq_len") is None:
        raise NotModelled("max_seq_len from the checkpoint")
    if graph.get("mode", "encode") != "encode":
        raise Rejected("encoder_cuda_graph_config: mode must be encode")
    cfg = encode_cuda_graph_config({k: v for k, v in graph.items() if k != "mode"})
    rest = {k: v for k, v in raw.items()
            if k not in ("encoder_cuda_graph_config", "encoder_max_batch_size",
                         "encoder_max_num_tokens")}
    args = llm_args(rest)
    assert args.max_seq_len is not None
    S = _int("encoder_max_batch_size", raw["encoder_max_batch_size"], minimum=1)
    T = raw.get("encoder_max_num_tokens")
    T = args.max_num_tokens if T is None else _int("encoder_max_num_tokens", T, minimum=1)
    runner = encdec_runner_ref(list(cfg.base.batch_sizes), list(cfg.num_tokens or ()),
                               list(cfg.seq_lens or ()), cfg.base.enable_padding, S, T,
                               args.max_seq_len, fixed_slots)
    return runner, (S, T, args.max_seq_len)


# --------------------------------------------------------------------------------------------
# Multimodal-encoder CUDA graphs (multimodal_config.encoder_cuda_graph):
# graphfit.planner.engines.trtllm_mm_encoder
# --------------------------------------------------------------------------------------------

PINS.update({
    "mm_encoder_graph": ("tensorrt_llm/_torch/models/multimodal_encoder_graph.py",
                         "a1510015fcd787198352d3b57ecaa4e9d151f64e"),
})
COUNTED_TO.update({"mm_encoder_graph": 377})
CITES.update({
    "mm_encoder_capture": ("mm_encoder_graph", "MultimodalEncoderGraphRunner.__init__ (sorted "
                           "buckets), capture_all, _padded_key_for_bucket, "
                           "_dummy_padded_seq_lengths, _capture_key (static inputs per key)", 0),
    "mm_encoder_dispatch": ("mm_encoder_graph", "MultimodalEncoderGraphRunner.maybe_run / "
                            "_select_bucket / _padded_seq_lengths", 0),
})
LINES.update({
    # buckets sorted 193-196; capture_all 209-220; _padded_key_for_bucket 323-333;
    # _dummy_padded_seq_lengths 335-359; _capture_key 365-377 (static inputs 374-377)
    "mm_encoder_capture": (193, 377),
    # maybe_run 222-279; _select_bucket 285-304; _padded_seq_lengths 306-321
    "mm_encoder_dispatch": (222, 321),
})
PADDING_TOKEN_RESERVE = 1


@dataclass
class MmEncoderRunnerRef:
    """`MultimodalEncoderGraphRunner` on lists of context lengths."""

    buckets: list[tuple[int, int]]
    enable_padding: bool

    def __post_init__(self) -> None:
        self.buckets = sorted(self.buckets)

    def padded_key_for_bucket(self, bucket: tuple[int, int]) -> tuple[int, int]:
        total, contexts = bucket
        if self.enable_padding:
            return total + PADDING_TOKEN_RESERVE, contexts + 1
        return total, contexts

    def dummy_padded_seq_lengths(self, bucket: tuple[int, int], key: tuple[int, int]
                                 ) -> list[int]:
        total, contexts = bucket
        if key[1] == contexts:
            return [total - (contexts - 1)] + [1] * (contexts - 1)
        padding = key[0] - contexts
        if padding <= 0:
            raise Rejected("bucket cannot host a dummy padding context")
        return [1] * contexts + [padding]

    def capture_all(self) -> dict[tuple[int, int], list[int]]:
        captured: dict[tuple[int, int], list[int]] = {}
        for bucket in self.buckets:
            key = self.padded_key_for_bucket(bucket)
            if key in captured:
                continue
            captured[key] = self.dummy_padded_seq_lengths(bucket, key)
        return captured

    def select_bucket(self, contexts: int, tokens: int) -> tuple[int, int] | None:
        for bucket in self.buckets:
            if bucket[1] != contexts:
                continue
            if tokens > bucket[0]:
                continue
            if self.enable_padding:
                return bucket
            if tokens == bucket[0]:
                return bucket
        return None

    def maybe_run(self, seq_lengths: list[int], captured: Mapping[tuple[int, int], Any]
                  ) -> tuple[tuple[int, int], list[int]] | None:
        """(key, padded lengths) of the graph replayed, or None (eager)."""
        tokens = sum(seq_lengths)
        bucket = self.select_bucket(len(seq_lengths), tokens)
        if bucket is None:
            return None
        padded = list(seq_lengths)
        if self.enable_padding:
            padded = [*padded, bucket[0] - tokens + PADDING_TOKEN_RESERVE]
        key = self.padded_key_for_bucket(bucket)
        if key not in captured:
            return None
        return key, padded

    def static_rows(self) -> int:
        """`_capture_key`: every captured key materializes its own inputs of key[0] rows."""
        return sum(key[0] for key in self.capture_all())


# --------------------------------------------------------------------------------------------
# Feature-mode encoder CUDA graphs (an encoder-decoder model whose class has
# `encoder_graph_spec()`, e.g. Whisper): graphfit.planner.engines.trtllm_features; and the
# T5 model's config class (fixed sequence slots, graphfit.inputs.trtllm_slots)
# --------------------------------------------------------------------------------------------

PINS.update({
    "modeling_t5": ("tensorrt_llm/_torch/models/modeling_t5.py",
                    "e18ea371f26b74ea99c1533dd6e9752158a74818"),
})
COUNTED_TO.update({"modeling_t5": 39})
CITES.update({
    "t5_config_class": ("modeling_t5", "from transformers import T5Config: the T5 model's "
                        "pretrained config is transformers' T5Config", 0),
    "feature_mode_create": ("encoder_runner", "EncoderConfigMixin.create: encoder_graph_spec(), "
                            "token buckets validated only without it, feature mode for an "
                            "encoder-decoder target at TP 1, batch sizes filtered with "
                            "fixed_seq_len tokens a request, eager when none is left", 0),
    "feature_mode_replay": ("encoder_runner", "EncoderMixin._prepare_encoder_feature_graph_"
                            "inputs: every request fixed_seq_len long with a (1, *feature_shape) "
                            "feature of feature_dtype, then pad_batch and the graph key", 0),
    "feature_mode_runner": ("cuda_graph_runner", "EncoderCUDAGraphRunnerConfig's feature fields "
                            "(Whisper's [480000] fp32 waveform), MAX_FEATURE_PADDING_RATIO, "
                            "FEATURE_MIRROR_SLOTS, the feature keys in __init__, the "
                            "feature-mode static tensors", 48000),
    "feature_mode_pad": ("cuda_graph_runner", "EncoderCUDAGraphRunner.pad_batch: feature mode "
                         "pads with fixed_seq_len requests only within 9/8 of the batch", 64000),
})
LINES.update({
    "t5_config_class": (39, 39),
    # encoder_graph_spec 98-100, validation 102-112, feature mode 114-128, batch filter
    # 130-140, none left 160-169, spec without feature mode 170-176, enabled 180
    "feature_mode_create": (98, 180),
    # _prepare_encoder_feature_graph_inputs 394-441 (the contract check 406-418, pad_batch and
    # the key 420-430)
    "feature_mode_replay": (394, 441),
    # the feature fields 1183-1190, MAX_FEATURE_PADDING_RATIO 1206, FEATURE_MIRROR_SLOTS 1209,
    # the feature keys 1222-1251, the feature-mode static tensors 1314-1353
    "feature_mode_runner": (1183, 1353),
    # pad_batch 1621-1684 (the dynamic padded size, then the 9/8 rule)
    "feature_mode_pad": (1621, 1684),
})
MAX_FEATURE_PADDING_RATIO = 9 / 8
FEATURE_MIRROR_SLOTS = 2


@dataclass
class FeatureRunnerRef:
    """`EncoderCUDAGraphRunner` in feature mode (an encoder-decoder model) on lists of request
    lengths: `cite_fact("feature_mode_runner")`, `cite_fact("feature_mode_pad")`,
    `cite_fact("feature_mode_replay")`. `batch_sizes` are the filtered ones; empty: eager."""

    batch_sizes: list[int]
    padding: bool
    feature_shape: tuple[int, ...]
    feature_dtype: str
    fixed_seq_len: int

    def __post_init__(self) -> None:
        self.supported_batch_sizes = sorted(self.batch_sizes)
        self.enabled = bool(self.supported_batch_sizes)
        self.max_supported_batch_size = (self.supported_batch_sizes[-1]
                                         if self.enabled else 0)
        fixed = self.fixed_seq_len
        self.supported_num_tokens = sorted(bs * fixed for bs in self.supported_batch_sizes)
        self.max_supported_num_tokens = self.max_supported_batch_size * fixed
        self.supported_seq_lens = [fixed]
        self.capture_sequence_lengths = {(bs, bs * fixed, fixed): [fixed] * bs
                                         for bs in self.supported_batch_sizes}
        self.capture_keys = frozenset(self.capture_sequence_lengths)
        self.keys_by_batch_size: dict[int, list[tuple[int, int, int]]] = {}
        for key in sorted(self.capture_keys):
            self.keys_by_batch_size.setdefault(key[0], []).append(key)

    def static_tensors(self) -> dict[str, tuple[tuple[int, ...], str]]:
        """`_create_shared_static_tensors` in feature mode (only when enabled): name ->
        (shape, dtype), the host mirrors included."""
        if not self.enabled:
            return {}
        shape = (self.max_supported_batch_size, *self.feature_shape)
        out = {"input_features": (shape, self.feature_dtype),
               "seq_lens": ((self.max_supported_batch_size,), "int32")}
        for i in range(FEATURE_MIRROR_SLOTS):
            out[f"mirror{i}"] = (shape, self.feature_dtype)
        return out

    def dynamic_key(self, seq: list[int], allow_batch_padding: bool
                    ) -> tuple[int, int, int] | None:
        """`_get_dynamic_capture_key` without fixed slots."""
        b = len(seq)
        longest = max(seq) if seq else 0
        for padded in (self.supported_batch_sizes if allow_batch_padding else [b]):
            if padded < b:
                continue
            required = sum(seq + [1] * (padded - b))
            for key in self.keys_by_batch_size.get(padded, []):
                _, nt, sl = key
                if (nt < required or nt > self.max_supported_num_tokens or sl < longest
                        or sl not in self.supported_seq_lens or nt > padded * sl):
                    continue
                return key
        return None

    def pad_batch(self, seq: list[int]) -> list[int]:
        if not self.enabled or not self.padding:
            return seq
        b = len(seq)
        found = self.dynamic_key(seq, True) if self.capture_keys else None
        padded = found[0] if found is not None else 0
        if padded in (0, b):
            return seq
        if b == 0 or padded > b * MAX_FEATURE_PADDING_RATIO:
            return seq
        return seq + [self.fixed_seq_len] * (padded - b)

    def get_graph_key(self, seq: list[int]) -> tuple[tuple[int, int, int], bool, bool]:
        """The encoder-decoder branch of `get_graph_key`."""
        n, b = sum(seq), len(seq)
        longest = max(seq) if b else 0
        if self.padding and self.capture_keys:
            key = self.dynamic_key(seq, False)
            if key is None:
                return (b, 0, 0), False, False
            return key, key[1] != n or key[2] != longest, True
        bucket = encoder_round_up(longest, self.supported_seq_lens)
        return (b, n, bucket), False, n <= self.max_supported_num_tokens and bucket > 0

    def resolve(self, seq: list[int]) -> tuple[int, int, int] | None:
        """`_resolve_graph_key`."""
        if not self.enabled or len(seq) not in self.supported_batch_sizes:
            return None
        key, performed, ok = self.get_graph_key(seq)
        if key not in self.capture_keys:
            return None
        if (not self.padding and performed) or not ok:
            return None
        return key

    def replay_key(self, seq: list[int]) -> tuple[int, int, int] | None:
        """The graph a batch of requests (each with a contract-conforming feature) replays:
        any request not fixed_seq_len long keeps the batch eager."""
        if not self.enabled or any(s != self.fixed_seq_len for s in seq):
            return None
        return self.resolve(self.pad_batch(list(seq)))


def feature_runner_ref(batch_sizes: Sequence[int], padding: bool, max_batch_size: int,
                       max_num_tokens: int, spec: tuple[tuple[int, ...], str, int],
                       tp_size: int = 1) -> FeatureRunnerRef:
    """`cite_fact("feature_mode_create")` for an encoder-decoder target model with
    `encoder_cuda_graph_config` and a model spec: TP > 1 stays eager (no batch size kept);
    else the batch sizes filtered with fixed_seq_len tokens a request."""
    shape, dtype, fixed = spec
    kept: list[int] = []
    if tp_size == 1 and batch_sizes:
        kept = filter_cuda_graph_batch_sizes(sorted(batch_sizes), max_batch_size,
                                             max_num_tokens, fixed, padding)[0]
    return FeatureRunnerRef(kept, padding, tuple(shape), dtype, fixed)


# --------------------------------------------------------------------------------------------
# Tensor parallelism: the attention-DP rank count; the feature-mode host mirrors' replay
# --------------------------------------------------------------------------------------------

# cuda_graph_runner.py @c0edad93fd, lines 1872-2205 counted from the pages at characters 80,000
# and 96,000 (to the file's end), starting at `def _contains_nested_tensor` (1872, right after
# the encoder `maybe_get_cuda_graph`, whose `return graph_attn_metadata, key` the count from
# offset 0 puts at 1870)
COUNTED_TO["cuda_graph_runner"] = 2205
CITES.update({
    "adp_ranks": ("cuda_graph_runner", "CUDAGraphRunner._get_padded_batch: with graphs on, "
                  "enable_attention_dp and mapping.tp_size > 1 the ranks all-gather "
                  "(can_run_cuda_graph, batch_size) and pad towards the largest", 32000),
    "feature_mode_mirrors": ("cuda_graph_runner", "_prepare_feature_capture (the input H2D "
                             "never captured; mirrors pooled across keys) and "
                             "_replay_features (rotate the mirror slot, fill the batch's "
                             "features and zero the padding up to the key's batch size, "
                             "eager H2D of those rows, replay)", 96000),
})
LINES.update({
    "adp_ranks": (835, 846),
    # _prepare_feature_capture 2129-2157; _replay_features 2165-2205 (slot rotation 2177-2178,
    # the fill 2187-2194, the H2D 2199-2200)
    "feature_mode_mirrors": (2129, 2205),
})


def attention_dp_ranks(args: LlmArgsRef) -> int:
    """`cite_fact("adp_ranks")`: the ranks whose batches one decode step's padding agrees
    over: the TP ranks (the all-gather is over mapping.tp_size ranks) when attention DP is on
    and tp_size > 1; otherwise the runner pads the one rank's batch alone."""
    if args.enable_attention_dp and args.tensor_parallel_size > 1:
        return args.tensor_parallel_size
    return 1


@dataclass
class FeatureMirrorsRef:
    """`cite_fact("feature_mode_mirrors")`: FEATURE_MIRROR_SLOTS pinned host tensors of
    (max_supported_batch_size, *feature_shape) (`cite_fact("feature_mode_runner")`), used in
    rotation: replay i fills slot i % slots, rows [0, b) with the b requests' features (one
    row each: a feature is (1, *feature_shape)), rows [b, p) with zeros, p the key's batch
    size, then copies rows [0, p) to the device `input_features`. An out-of-range slice would
    raise in torch; this restatement records the rows each replay touches instead."""

    rows: int  # each mirror's first dim
    slots: int = FEATURE_MIRROR_SLOTS
    slot: int = 0
    touched: list[tuple[int, int]] = field(default_factory=list)  # (slot, rows) per replay

    def replay(self, key: tuple[int, int, int], batch_size: int) -> tuple[int, int]:
        """The (slot, rows) one replay of `key` for `batch_size` requests writes and reads."""
        padded = key[0]
        if batch_size > padded:
            raise Rejected(f"a batch of {batch_size} replaying key {key}")
        slot = self.slot
        self.slot = (slot + 1) % self.slots
        self.touched.append((slot, padded))
        return slot, padded

    def fits(self) -> bool:
        """Whether every recorded replay stays within the mirror's rows."""
        return all(rows <= self.rows for _, rows in self.touched)


# --------------------------------------------------------------------------------------------
# Where the encoder runners' static tensors live (device or host): graphfit's placements
# --------------------------------------------------------------------------------------------

# cuda_graph_runner.py @c0edad93fd (counted from offset 0, as encoder_seq_lens_host above):
# `_create_shared_static_tensors` 1307-1384; token mode from 1355: the device dict 1355-1361,
# `shared_static_tensors_cpu` 1362-1381 (input_ids 1363-1367, position_ids 1368-1372, the
# seq_lens comment and entry 1373-1380), `_arange_max` 1383-1384; feature mode 1314-1353
CITES.update({
    "encoder_token_placement": ("cuda_graph_runner", "EncoderCUDAGraphRunner._create_shared_"
                                "static_tensors, token mode: device input_ids / position_ids, "
                                "pinned host copies of both and seq_lens "
                                "(shared_static_tensors_cpu), host _arange_max", 56000),
})
LINES.update({"encoder_token_placement": (1307, 1384)})

DEVICE, HOST = "device", "host"


def token_mode_tensors(max_total_tokens: int, max_batch_size: int
                       ) -> dict[tuple[str, str], tuple[tuple[int, ...], str]]:
    """`cite_fact("encoder_token_placement")`: (placement, the engine's name) -> (shape,
    dtype) of every tensor a token-mode `EncoderCUDAGraphRunner` allocates (only when its
    graphs are on): on the device `input_ids` (rows,) and `position_ids` (1, rows); in host
    memory (pinned when `prefer_pinned()`) copies of both of the same shapes and `seq_lens`
    (max_batch_size,), and the pageable `_arange_max` (rows,), all int32. rows =
    max_total_tokens (min(largest token bucket, max_num_tokens) encoder-only, max_num_tokens
    encoder-decoder: `cite_fact("encdec_static_rows")`), max_batch_size the largest kept
    batch size."""
    rows = (max_total_tokens,)
    return {(DEVICE, "input_ids"): (rows, "int32"),
            (DEVICE, "position_ids"): ((1, max_total_tokens), "int32"),
            (HOST, "input_ids"): (rows, "int32"),
            (HOST, "position_ids"): ((1, max_total_tokens), "int32"),
            (HOST, "seq_lens"): ((max_batch_size,), "int32"),
            (HOST, "_arange_max"): (rows, "int32")}


def feature_mode_tensors(runner: FeatureRunnerRef
                         ) -> dict[tuple[str, str], tuple[tuple[int, ...], str]]:
    """`cite_fact("feature_mode_runner")`: (placement, name) -> (shape, dtype) in feature
    mode: the device `input_features`; the pinned host `seq_lens` (the only entry of
    `shared_static_tensors_cpu` there) and the FEATURE_MIRROR_SLOTS host mirrors."""
    return {(HOST if name != "input_features" else DEVICE, name): value
            for name, value in runner.static_tensors().items()}


def placed_bytes(tensors: Mapping[tuple[str, str], tuple[tuple[int, ...], str]],
                 placement: str) -> int:
    """The bytes of the tensors at `placement` (int32 / float32: 4 bytes, bfloat16 /
    float16: 2)."""
    size = {"int32": 4, "float32": 4, "bfloat16": 2, "float16": 2}
    return sum(size[dtype] * math.prod(shape)
               for (where, _), (shape, dtype) in tensors.items() if where == placement)


# --------------------------------------------------------------------------------------------
# Attention DP's idle ranks (the executor's dummy requests) and the ranks' gathered counts
# --------------------------------------------------------------------------------------------

# py_executor.py @9521caf469 (the index's one stored version with a commit, a 2025 copy):
# lines counted from offset 0 through the pages at 16,000 .. 64,000 (to line 1521). A newer
# stored copy (117,686 characters, commit not given by the index) keeps the same rule and
# always adds a generation dummy (is_gen=True) with max_total_draft_tokens draft tokens.
CITES.update({
    "adp_idle_dummy": ("py_executor", "PyExecutor._pad_attention_dp_dummy_request (a rank "
                       "with no active request while expected_num_active_requests > 0 adds "
                       "one dummy request, id 0, generation unless the rank took a context "
                       "request, with max_draft_tokens draft tokens)", 64000),
    "adp_expected_requests": ("py_executor", "PyExecutor._fetch_new_requests: the ranks "
                              "all-gather their active counts; expected_num_active_requests "
                              "= max(ceil((total + new) / tp_size), the largest rank's)",
                              48000),
    "adp_all_rank_counts": ("runners_common", "get_all_rank_num_tokens / "
                            "get_all_rank_ctx_requests: tp_allgather of the rank's count with "
                            "enable_attention_dp, None otherwise (helix CP: ceil(tokens / "
                            "cp_size) over tp x cp ranks)", 0),
})
LINES.update({
    # _pad_attention_dp_dummy_request 1490-1520 (the dummy 1509-1520); called before
    # scheduling in every executor loop (713, 870, 1014)
    "adp_idle_dummy": (1490, 1520),
    # _fetch_new_requests 1184-1307: the all-gather 1186-1191, expected 1241-1246,
    # has_context_request 1248 and 1289-1297
    "adp_expected_requests": (1184, 1307),
    # get_all_rank_num_tokens 22-41 (helix CP 32-39), get_all_rank_ctx_requests 44-53
    "adp_all_rank_counts": (22, 53),
})


def adp_batches_with_dummies(active: Sequence[int], tp_size: int,
                             new_requests: int = 0) -> list[int] | None:
    """`cite_fact("adp_expected_requests")`, `cite_fact("adp_idle_dummy")`: each attention-DP
    rank's active requests once the executor pads the idle ones, for ranks holding `active`
    requests (generation requests, no disaggregated transfer) and `new_requests` new ones
    arriving (0: a generation-only step). None when no step runs (no rank holds or receives a
    request). expected = max(ceil((sum(active) + new) / tp_size), max(active)); a rank with
    no active request while expected > 0 gets one dummy request (a generation request: it
    took no context request)."""
    if len(active) != tp_size:
        raise Rejected(f"{len(active)} ranks' counts for tp_size {tp_size}")
    expected = max(-(-(sum(active) + new_requests) // tp_size), max(active))
    if expected == 0:
        return None
    return [1 if a == 0 else a for a in active]


def all_rank_counts(own: int, others: Sequence[int], enable_attention_dp: bool,
                    tp_size: int) -> list[int] | None:
    """`cite_fact("adp_all_rank_counts")`: what `get_all_rank_num_tokens` /
    `get_all_rank_ctx_requests` return on a rank holding `own` (no helix CP): the tp group's
    all-gather (this rank's count at its place, the others' around it) with
    enable_attention_dp, None without."""
    if not enable_attention_dp:
        return None
    if len(others) != tp_size - 1:
        raise Rejected(f"{len(others)} other ranks for tp_size {tp_size}")
    return [own, *others]


# --------------------------------------------------------------------------------------------
# Token mode's host staging: what a replay writes in the pinned copies and copies to the device
# --------------------------------------------------------------------------------------------

# cuda_graph_runner.py @c0edad93fd, counted on from 2205 (the end of `_replay_features`) and
# back from `_prepare_feature_capture` (2129), over the page at characters 88,500 (read from
# `return graph_attn_metadata, key`, 1870): `_stage_inputs` 1884-1931 (the host dict chosen
# 1891 when `_capture_h2d_copy`, input_ids 1897-1907, packed positions from `_arange_max`
# 1911-1918, their zero tail 1931); `_prepare_token_capture` 2065-2127 (the slices 2078-2090,
# `copy_inputs` 2096-2101: host -> device, the key's padded_num_tokens rows; captured into the
# graph in pinned mode, `capture_h2d` 2117-2125); the token `replay` 2207-2231
# (`retire_staging` 2220, `_stage_inputs` 2225, the graph replay 2231)
COUNTED_TO["cuda_graph_runner"] = 2231
CITES.update({
    "encoder_token_staging": ("cuda_graph_runner", "EncoderCUDAGraphRunner._stage_inputs / "
                              "_prepare_token_capture.copy_inputs / replay: the batch's ids "
                              "and packed positions written in the pinned host copies, zeros "
                              "up to the key's padded_num_tokens, those rows copied host -> "
                              "device before the graph runs", 88000),
})
LINES.update({"encoder_token_staging": (1884, 2231)})

# host copy -> the device tensor it refills (token mode, pinned: `_capture_h2d_copy`)
TOKEN_STAGING = {(HOST, "input_ids"): (DEVICE, "input_ids"),
                 (HOST, "position_ids"): (DEVICE, "position_ids")}


def token_mode_staged_rows(padded_num_tokens: int, input_ids: Sequence[int],
                           seq_lens: Sequence[int]) -> dict[str, list[int]]:
    """`cite_fact("encoder_token_staging")`: the device rows [0, padded_num_tokens) a token-
    mode replay of a key with that token count reads after its host-to-device copy, for a
    batch without caller position ids: `input_ids` the batch's ids then 0s, `position_ids`
    (row 0 of the (1, rows) tensor) each request's 0..len-1 (the `_arange_max` slices) then
    0s. Every other row is untouched by the replay."""
    n = len(input_ids)
    if sum(seq_lens) != n or n > padded_num_tokens:
        raise Rejected(f"{n} tokens (lengths {list(seq_lens)}) into {padded_num_tokens} rows")
    positions = [p for length in seq_lens for p in range(length)]
    pad = [0] * (padded_num_tokens - n)
    return {"input_ids": [int(i) for i in input_ids] + pad, "position_ids": positions + pad}


# --------------------------------------------------------------------------------------------
# Each encoder graph's device sequence lengths (`_seq_lens_cuda`); which host tensors are pinned
# --------------------------------------------------------------------------------------------

# cuda_graph_runner.py @c0edad93fd, counted from offset 0 (the count that put
# `return graph_attn_metadata, key` at 1870, and back from it): `maybe_get_cuda_graph`'s first
# sighting of a key 1835-1870 (`create_cuda_graph_metadata(padded_batch_size, False, 0,
# self.cuda_graph_meta_buffers, encode_only=True)` 1839-1845, kept as
# `graph_metadata[key]["attn_metadata"]` by `capture`; `bind_encoder_cuda_graph_seq_lens` on
# the runner's host seq_lens 1852-1855); `_prepare_token_capture`'s warm-up copy into
# `_seq_lens_cuda` 2104-2113 and `capture_h2d` 2118-2125 (the copy recorded in the graph);
# `_prepare_feature_capture`'s one eager copy 2151-2155. `__init__`: `_capture_h2d_copy =
# prefer_pinned()` with its comment 1289-1292 (the count from offset 0: `if self.enabled:` is
# 1268). The (b,) int32 shape of each key's `_seq_lens_cuda`: the graph metadata's seq_lens
# (ones of padded_batch_size, encode_only) copied to the device by the seq_lens setter, in
# attention_backend/interface.py, pinned below (`cite_fact("graph_metadata_fresh_seq_lens")`,
# `cite_fact("seq_lens_setter")`): `create_cuda_graph_metadata` sets `_seq_lens_cuda = None`,
# so the setter allocates a fresh device tensor per key.
CITES.update({
    "encoder_graph_seq_lens_cuda": ("cuda_graph_runner", "EncoderCUDAGraphRunner."
                                    "maybe_get_cuda_graph: one graph attention metadata per "
                                    "new key (its own _seq_lens_cuda of the key's padded "
                                    "batch size), bound to the host seq_lens; refilled by a "
                                    "copy captured in the graph (token mode) or copied once "
                                    "(feature mode)", 72000),
    "encoder_pinned_capture": ("cuda_graph_runner", "EncoderCUDAGraphRunner.__init__: "
                               "_capture_h2d_copy = prefer_pinned() (captured H2D copies "
                               "need pinned host sources; pageable: copied before the "
                               "replay)", 56000),
})
LINES.update({"encoder_graph_seq_lens_cuda": (1835, 2157),
              "encoder_pinned_capture": (1289, 1292)})

# host copy -> the device tensor it refills, the graphs' lengths included
TOKEN_STAGING_ALL = {**TOKEN_STAGING, (HOST, "seq_lens"): (DEVICE, "_seq_lens_cuda")}


def graph_seq_lens_cuda(captured: Sequence[tuple[int, ...]] | set[tuple[int, int, int]]
                        ) -> dict[tuple[int, ...], tuple[tuple[int, ...], str]]:
    """`cite_fact("encoder_graph_seq_lens_cuda")`: captured key -> (shape, dtype) of the
    device `_seq_lens_cuda` its graph attention metadata owns: (key[0],) int32, one tensor per
    captured key, alive as long as the graph."""
    return {tuple(key): ((key[0],), "int32") for key in captured}


def pinned_host_tensors(feature_mode: bool) -> frozenset[str]:
    """`cite_fact("encoder_token_placement")`, `cite_fact("feature_mode_runner")`: the host
    tensors allocated with `pin_memory=prefer_pinned()` (pinned on a system where
    `prefer_pinned()` holds: `cite_fact("encoder_pinned_capture")`): token mode's copies of
    `input_ids` / `position_ids` and `seq_lens` (not `_arange_max`, a plain `torch.arange`);
    feature mode's `seq_lens` and every mirror."""
    if feature_mode:
        return frozenset({"seq_lens", *(f"mirror{i}" for i in range(FEATURE_MIRROR_SLOTS))})
    return frozenset({"input_ids", "position_ids", "seq_lens"})


# --------------------------------------------------------------------------------------------
# Attention DP's idle ranks in disaggregated serving (context-only / generation-only servers)
# --------------------------------------------------------------------------------------------

# py_executor.py @9521caf469 (counted as adp_idle_dummy above): with a KV cache transceiver
# (disaggregated serving) `_pad_attention_dp_dummy_request` counts only the active requests
# not in generation-init state and not in generation-side transmission (1499-1506); a rank
# counting none gets one dummy while expected > 0 (1508-1520), `is_gen=not
# has_context_request`. `_fetch_new_requests` all-gathers len(active_requests), waiting ones
# included (1186-1191), computes expected from it (1241-1246), spreads the new requests over
# the ranks below expected, longest first, on a heap of (tokens, requests left, rank)
# (1250-1287), and with a transceiver sets has_context_request only when the rank took a
# context-only request (1289-1295).
CITES.update({
    "adp_disagg_idle": ("py_executor", "PyExecutor._pad_attention_dp_dummy_request with a "
                        "kv_cache_transceiver: requests in generation init or KV "
                        "transmission are not counted active; _fetch_new_requests: "
                        "has_context_request only for a context-only request", 48000),
})
LINES.update({"adp_disagg_idle": (1184, 1520)})

GEN_READY, CTX, GEN_INIT, GEN_TRANSFER = "generation", "context", "gen_init", "gen_transfer"
WAITING = frozenset({GEN_INIT, GEN_TRANSFER})  # a generation request whose KV is arriving
CONTEXT_ONLY, GENERATION_ONLY = "context_only", "generation_only"


def adp_assign_new_requests(active: Sequence[int], new_lengths: Sequence[int], tp_size: int
                            ) -> tuple[int, list[list[int]]]:
    """`cite_fact("adp_disagg_idle")` (`_fetch_new_requests`): expected, and the indices of
    the new requests each rank takes: the ranks below expected, on a heap of (context tokens
    taken, requests still to take, rank), take the new requests longest first."""
    if len(active) != tp_size:
        raise Rejected(f"{len(active)} ranks' counts for tp_size {tp_size}")
    expected = max(-(-(sum(active) + len(new_lengths)) // tp_size), max(active))
    taken: list[list[int]] = [[] for _ in range(tp_size)]
    if not new_lengths:
        return expected, taken
    heap = [(0, expected - a, rank) for rank, a in enumerate(active) if expected - a > 0]
    import heapq
    heapq.heapify(heap)
    order = sorted(range(len(new_lengths)), key=lambda i: new_lengths[i], reverse=True)
    for i in order:  # a stable sort on the length, longest first, as `sorted(.., reverse)`
        tokens, left, rank = heapq.heappop(heap)
        taken[rank].append(i)
        if left - 1 > 0:
            heapq.heappush(heap, (tokens + new_lengths[i], left - 1, rank))
    return expected, taken


def adp_disagg_dummies(active: Sequence[Sequence[str]], new: Sequence[tuple[str, int]],
                       tp_size: int) -> list[tuple[int, str | None]] | None:
    """`cite_fact("adp_disagg_idle")`: per rank, with a KV cache transceiver, the requests
    it counts active after the step's new requests (`active`: each rank's requests by
    state; `new`: (request type, input length) of the requests arriving) and the dummy it
    adds: None, "generation" or "context" (`is_gen=not has_context_request`). A new
    generation-only request starts in generation init (not counted); a context-only one is
    a context request (counted). None when no rank adds anything and none counts a request
    (every rank idle: no step)."""
    expected, taken = adp_assign_new_requests([len(a) for a in active],
                                              [n for _, n in new], tp_size)
    out: list[tuple[int, str | None]] = []
    for rank in range(tp_size):
        mine = [new[i][0] for i in taken[rank]]
        states = [*active[rank], *(GEN_INIT if t == GENERATION_ONLY else CTX for t in mine)]
        assert expected >= len(states)  # the executor's own assertion
        counted = sum(s not in WAITING for s in states)
        has_context = CONTEXT_ONLY in mine
        dummy = None
        if expected - counted > 0 and counted == 0:
            dummy = "context" if has_context else "generation"
        out.append((counted, dummy))
    if all(c == 0 and d is None for c, d in out):
        return None
    return out


# --------------------------------------------------------------------------------------------
# Fixed sequence slots' boundaries: each encoder-decoder graph's `capture_offsets_cuda`
# --------------------------------------------------------------------------------------------

# cuda_graph_runner.py @c0edad93fd, counted on from `return graph_attn_metadata, key` (1870)
# and from `_get_sequence_slot_mapping`'s end (1523; `_get_valid_graph_key` at 1542 agrees):
# `maybe_get_cuda_graph` with `use_fixed_sequence_slots` allocates, per new key,
# `capture_offsets_cuda = torch.tensor(capture_offsets, dtype=torch.int32, device="cuda")`
# and sets it as cu_q_seqlens and cu_kv_seqlens (1856-1865); `_get_capture_sequence_offsets`
# 0 then the running sum of the key's capture layout, ValueError unless the last is key[1]
# (1531-1540); `_stage_inputs` hands a slotted batch to `_stage_encoder_decoder_inputs`
# (1893-1895), which zeroes the key's token rows and copies each source request's ids and
# `_arange_max[:len]` positions to its slot's offset (1933-1991); `restore_encoder_decoder_
# output` gathers each request's rows from its slot's offset, in request order (1993-2013).
CITES.update({
    "encdec_capture_offsets": ("cuda_graph_runner", "EncoderCUDAGraphRunner."
                               "maybe_get_cuda_graph: with fixed sequence slots, one (b + 1,) "
                               "int32 device capture_offsets_cuda per new key, its "
                               "cu_q_seqlens and cu_kv_seqlens", 88000),
    "encdec_capture_offset_values": ("cuda_graph_runner", "EncoderCUDAGraphRunner."
                                     "_get_capture_sequence_offsets", 72000),
    "encdec_slot_scatter": ("cuda_graph_runner", "EncoderCUDAGraphRunner."
                            "_stage_encoder_decoder_inputs / restore_encoder_decoder_output",
                            88000),
})
LINES.update({"encdec_capture_offsets": (1856, 1865),
              "encdec_capture_offset_values": (1531, 1540),
              "encdec_slot_scatter": (1893, 2013)})


def capture_sequence_offsets(runner: EncDecRunnerRef, key: tuple[int, int, int]) -> list[int]:
    """`cite_fact("encdec_capture_offset_values")`: 0, then the running sum of the key's
    capture layout; Rejected (the engine's ValueError) unless it ends at key[1]."""
    offsets = [0]
    for length in runner.layouts[key]:
        offsets.append(offsets[-1] + length)
    if offsets[-1] != key[1]:
        raise Rejected(f"layout of {key} holds {offsets[-1]} tokens")
    return offsets


def graph_capture_offsets(runner: EncDecRunnerRef
                          ) -> dict[tuple[int, int, int], tuple[list[int], str]]:
    """`cite_fact("encdec_capture_offsets")`: captured key -> (values, dtype) of the device
    tensor its graph metadata owns, with fixed slots only (none without)."""
    if not runner.fixed_slots:
        return {}
    return {key: (capture_sequence_offsets(runner, key), "int32")
            for key in runner.captured_keys()}


def slotted_replay(runner: EncDecRunnerRef, key: tuple[int, int, int], seq: list[int],
                   input_ids: list[int], output_rows: Sequence[Any]
                   ) -> tuple[list[int], list[int], list[int], list[Any]]:
    """`cite_fact("encdec_slot_replay")` then `cite_fact("encdec_slot_scatter")`: a replay of
    `seq` (the real requests' lengths, request order) on captured `key`: the staged device
    input_ids and position_ids rows [0, key[1]), the slot-ordered seq_lens the metadata reads
    (dummies 1), and the rows `restore_encoder_decoder_output` returns from a graph output
    `output_rows` (one item per row)."""
    padded = list(seq) + [1] * (key[0] - len(seq))
    mapping = runner.slot_mapping(key, padded)
    if mapping is None:
        raise Rejected(f"Encoder sequence lengths {padded} are not compatible with {key}")
    slot_lens = [0] * len(padded)
    for src, slot in enumerate(mapping):
        slot_lens[slot] = padded[src]
    offsets = capture_sequence_offsets(runner, key)
    ids, positions = [0] * key[1], [0] * key[1]
    source = 0
    out: list[Any] = []
    for src, length in enumerate(seq):
        dest = offsets[mapping[src]]
        ids[dest:dest + length] = input_ids[source:source + length]
        positions[dest:dest + length] = list(range(length))
        out += list(output_rows[dest:dest + length])
        source += length
    return ids, positions, slot_lens, out


# --------------------------------------------------------------------------------------------
# The graph attention metadata's `_seq_lens_cuda`, pinned (attention_backend/interface.py);
# why one device buffer shared by every encoder graph reads what the engine's per-key tensors do
# --------------------------------------------------------------------------------------------

# attention_backend/interface.py @51ea5c9637: the one stored copy whose commit the index gives
# (25,803 characters), counted from offset 0 through `return cuda_graph_metadata` (321). Its
# `create_cuda_graph_metadata` has no `encode_only` parameter, which the pinned runner passes
# (cuda_graph_runner.py @c0edad93fd:1839-1845): it is older than the runner. The newer stored
# copy (44,753 characters, commit not given) has the same seq_lens setter and, with
# `encode_only`, the same `_seq_lens_cuda = None` then `seq_lens = torch.ones((b,), int)`;
# what is cited here reads the same in both. `seq_lens` setter 174-196: pins the host lengths;
# when the metadata is a CUDA graph's and already holds `_seq_lens_cuda`, copies into it in
# place (185-190: "do not reallocate if we are using CUDA graphs"), else allocates it with
# `.cuda()` (192); a cross sub-metadata gets the same tensor (194-196).
# `create_cuda_graph_metadata` 279-321: a copy of the metadata, `is_cuda_graph` True (293-295);
# unless it is the cross sub-metadata, `_seq_lens_cuda = None` then `seq_lens = ones((b,))`
# (299-304), so the setter allocates a fresh (b,) int32 device tensor for this graph.
# cuda_graph_runner.py @c0edad93fd: `maybe_get_cuda_graph` falls back to eager for metadata
# with a cross sub-metadata (1827-1833), so no encoder graph shares its tensor with one.
PINS["attention_interface"] = ("tensorrt_llm/_torch/attention_backend/interface.py",
                               "51ea5c963794a4818ad8396a77d147fa901435d9")
COUNTED_TO["attention_interface"] = 321
CITES.update({
    "seq_lens_setter": ("attention_interface", "AttentionMetadata.seq_lens setter: a CUDA "
                        "graph's metadata holding _seq_lens_cuda is copied into in place, "
                        "else _seq_lens_cuda is allocated from the host lengths", 0),
    "graph_metadata_fresh_seq_lens": ("attention_interface", "AttentionMetadata."
                                      "create_cuda_graph_metadata: _seq_lens_cuda = None, "
                                      "then seq_lens = ones((max_batch_size,), int)", 0),
    "encoder_graph_no_cross": ("cuda_graph_runner", "EncoderCUDAGraphRunner."
                               "maybe_get_cuda_graph: eager for attention metadata with a "
                               "cross sub-metadata", 84000),
})
LINES.update({"seq_lens_setter": (174, 196),
              "graph_metadata_fresh_seq_lens": (299, 304),
              "encoder_graph_no_cross": (1827, 1833)})


class GraphSeqLensRef:
    """The engine's device lengths over a run of encoder graph replays: one (b,) int32 tensor
    per captured key (`cite_fact("graph_metadata_fresh_seq_lens")`, allocated by
    `cite_fact("seq_lens_setter")` from ones), and a replay of key k first refills k's tensor
    from the host lengths (the copy captured in the graph, or, pageable, copied before it:
    `cite_fact("encoder_graph_seq_lens_cuda")`), then the graph reads it. No other metadata
    aliases it (`cite_fact("encoder_graph_no_cross")`)."""

    def __init__(self, captured: Sequence[tuple[int, ...]]) -> None:
        self.tensors = {tuple(key): [1] * key[0] for key in captured}

    def replay(self, key: tuple[int, ...], host_lens: Sequence[int]) -> tuple[list[int],
                                                                               list[int]]:
        """(what key's tensor held before this replay, what its graph reads in it)."""
        before = list(self.tensors[tuple(key)])
        self.tensors[tuple(key)] = [int(v) for v in host_lens[:key[0]]]
        return before, list(self.tensors[tuple(key)])


# --------------------------------------------------------------------------------------------
# MoE all-to-all workspace (NVLinkOneSided): read, not planned (docs/engines/trtllm-coverage.md,
# "Left")
# --------------------------------------------------------------------------------------------

# distributed/moe_alltoall.py @97317b1d7b (15,361 characters; the one stored copy), counted
# from offset 0 to 200. `MoeAlltoAll._WORKSPACE`: one workspace per process (40);
# `get_aux_data_size`: a C++ op, `torch.ops.trtllm.moe_a2a_get_aux_data_size(ep_size,
# max_num_tokens, eplb_stats_num_experts)` (45-51), read since (s51t block at the end);
# `calculate_required_workspace_size` 54-88: the aux size, then ep_size * max_num_tokens rows of
# hidden_size * itemsize (dispatch), top_k * 4 twice (expert ids, scales), the extra payload
# bytes and hidden_size * itemsize again (combine), each padded to 128 bytes;
# `TRTLLM_MOE_A2A_WORKSPACE_MB` replaces the size (143-151); the first instance allocates it as
# `MnnvlMemory(mapping, workspace_size_per_rank)` and `moe_a2a_initialize` (180-198), later
# ones assert the same size, tokens, ranks and EPLB experts (199-).
PINS["moe_alltoall"] = ("tensorrt_llm/_torch/distributed/moe_alltoall.py",
                        "97317b1d7b2e2b700ba79b60fcfda1897fab32c6")
COUNTED_TO["moe_alltoall"] = 200
CITES.update({
    "moe_a2a_aux_size": ("moe_alltoall", "MoeAlltoAll.get_aux_data_size: a C++ op "
                         "(moe_a2a_get_aux_data_size)", 0),
    "moe_a2a_workspace_size": ("moe_alltoall", "MoeAlltoAll.calculate_required_workspace_"
                               "size: aux + ep_size x max_num_tokens x (2 hidden_size x "
                               "itemsize + 8 top_k + extra), 128-byte aligned", 0),
    "moe_a2a_env_override": ("moe_alltoall", "MoeAlltoAll.__init__: TRTLLM_MOE_A2A_"
                             "WORKSPACE_MB replaces the computed size", 0),
    "moe_a2a_singleton": ("moe_alltoall", "MoeAlltoAll.__init__: the first instance "
                          "allocates the process's MNNVL workspace", 0),
})
LINES.update({"moe_a2a_aux_size": (45, 51),
              "moe_a2a_workspace_size": (54, 88),
              "moe_a2a_env_override": (143, 151),
              "moe_a2a_singleton": (180, 198)})


# models/modeling_utils.py @cb4c622cf5 (39,573 characters; the one stored copy whose commit the
# index gives), counted from offset 0 to 323 (the end of `DecoderModel.__pp_init__`): read for
# the pipeline-parallel refusal (docs/engines/trtllm-coverage.md, s41t). `skip_forward` swaps a
# module's forward for its `skip_forward` (149-160); `forward_after_recv` receives the stage's
# hidden states (and residual) with `pp_recv` into the tensors the layer is called with, inside
# the forward (163-188); `DecoderModel.__pp_init__` skips the embedding on a later stage and the
# norm on an earlier one (274-295), skips the layers outside `mapping.pp_layers` (299-314) and
# wraps the stage's first layer with `forward_after_recv`, its last with `forward_before_send`
# (315-322).
PINS["modeling_utils"] = ("tensorrt_llm/_torch/models/modeling_utils.py",
                          "cb4c622cf5bb97009451f7f44609498a48a2b11d")
COUNTED_TO["modeling_utils"] = 323


# --------------------------------------------------------------------------------------------
# Context parallelism (issue 23, s44t): which CP lines capture decode graphs at all
# --------------------------------------------------------------------------------------------

# mapping.py @b35ac1b643 (19,194 characters; the one stored copy whose commit the index gives),
# counted from offset 0 to 127: `CpType` ULYSSES 0, STAR 1, RING 2, HELIX 3 (24-32);
# `MappingBase.__init__` (42-): cp_type is ULYSSES without a cp_config or without its key
# (64-65); moe_ep_size, when not given, becomes 1 (68-70); moe_ep_size != 1 with cp_size > 1 and
# a cp_type other than HELIX raises NotImplementedError("CP {cp_type} doesn't support MoE tp/ep
# yet") (118-120); the cp_config kept is {} when None (127).
# model_engine.py @c0edad93fd, lines 753-1491 counted on from 752 (the mrope buffer that ends
# the persistent inputs, 732-752) over the pages at characters 32,000, 48,000 and 64,000:
# `warmup` 1374-1416 (decorators 1374-1375, def 1376; the runner branch without a KV cache
# 1384-1387; no KV cache 1401-1403; cp_size > 1 and cp_config's cp_type (None when absent) not
# HELIX: log and return, 1410-1416); the capture, the only `allow_capture()` of the decode
# runner, comes later (1481-1490).
# cuda_graph_runner.py @c0edad93fd: `_capture_allowed = False` in `__init__` with its comment
# (183-186, after the static tensors created when enabled, 179-180); `maybe_get_cuda_graph`
# (513-625): a key not captured while capture is not allowed gets no graph (594-599: the
# comment 594-597, the check 598-599); `allow_capture` 630-643.
PINS["mapping"] = ("tensorrt_llm/mapping.py", "b35ac1b64368513d215c57d2ed01d62d910df8da")
COUNTED_TO["mapping"] = 127
COUNTED_TO["model_engine"] = 1491
CITES.update({
    "cp_types": ("mapping", "CpType: ULYSSES 0, STAR 1, RING 2, HELIX 3", 0),
    "cp_moe_refused": ("mapping", "MappingBase.__init__: moe_ep_size != 1 with cp_size > 1 "
                       "and a cp_type other than HELIX raises NotImplementedError", 0),
    "cp_warmup_skipped": ("model_engine", "PyTorchModelEngine.warmup: with cp_size > 1 and a "
                          "cp_type other than HELIX (or none) it returns before the CUDA "
                          "graph capture", 64000),
    "capture_gate": ("cuda_graph_runner", "CUDAGraphRunner.maybe_get_cuda_graph: a key not "
                     "captured gets no graph unless capture is allowed", 24000),
    "allow_capture": ("cuda_graph_runner", "CUDAGraphRunner.allow_capture: the only switch "
                      "that lets a graph be captured", 24000),
})
LINES.update({"cp_types": (24, 32), "cp_moe_refused": (118, 120),
              "cp_warmup_skipped": (1374, 1416), "capture_gate": (594, 599),
              "allow_capture": (630, 643)})

CP_TYPES = ("ULYSSES", "STAR", "RING", "HELIX")


@dataclass(frozen=True)
class ContextParallelRef:
    """A decode engine (`EngineRef`) at context_parallel_size `cp_size` with `cp_type` (None:
    no cp_type in cp_config). `cite_fact("cp_warmup_skipped")`: above 1 with a cp_type other
    than HELIX the warmup returns before the capture, and `cite_fact("capture_gate")`: no
    graph is captured afterwards, so every batch runs eagerly; the runner still allocates its
    static tensors (it is enabled, and allocates them in `__init__`)."""

    engine: EngineRef
    cp_size: int
    cp_type: str | None

    @property
    def captures(self) -> bool:
        return self.cp_size == 1 or self.cp_type == "HELIX"

    @property
    def captured_sizes(self) -> tuple[int, ...]:
        return self.engine.graph_batch_sizes if self.captures else ()

    def dispatch(self, batch_size: int) -> int | None:
        """The graph a generation batch replays (None = eager): the runner pads as at cp 1,
        but only a captured key replays."""
        padded = self.engine.dispatch(batch_size)
        return padded if padded is not None and padded in self.captured_sizes else None

    def buffers(self) -> dict[str, int]:
        return self.engine.buffers()


def context_parallel(raw: Mapping[str, Any], engine: EngineRef) -> ContextParallelRef:
    """`context_parallel_size` and `cp_config.cp_type` of an LLM-API mapping as the mapping
    reads them. A string cp_type is taken by its upper-cased `CpType` name
    (`cite_fact("cp_types")`); another is Rejected. With cp_size > 1, an MoE EP size other
    than 1 (given, or derived by `moe_mapping`) and a cp_type other than HELIX, the mapping
    raises (`cite_fact("cp_moe_refused")`); `moe_mapping`'s other refusals apply too. HELIX
    above 1 is NotModelled: its graphs are captured, over ranks whose token counts the helix
    split changes."""
    cp_size = raw.get("context_parallel_size")
    cp_size = 1 if cp_size is None else _int("context_parallel_size", cp_size)
    if cp_size < 1:
        raise Rejected(f"context_parallel_size {cp_size}")
    cp_config = raw.get("cp_config")
    cp_type: str | None = None
    if cp_config is not None:
        if not isinstance(cp_config, Mapping):
            raise Rejected("cp_config: expected a mapping")
        given = cp_config.get("cp_type")
        if given is not None:
            if not isinstance(given, str) or given.upper() not in CP_TYPES:
                raise Rejected(f"Invalid cp_type: {given}. Must be one of: "
                               f"{', '.join(CP_TYPES)}")
            cp_type = given.upper()
    moe_mapping(raw, cp_size, cp_type)  # the mapping's MoE checks (`cite_fact("moe_sizes")`)
    if cp_size > 1 and cp_type == "HELIX":
        raise NotModelled(helix_reason(cp_size, bool(raw.get("enable_attention_dp"))))
    return ContextParallelRef(engine, cp_size, cp_type)


# --------------------------------------------------------------------------------------------
# The MoE sizes the mapping derives and checks (issue 23, s47t)
# --------------------------------------------------------------------------------------------

# mapping.py @b35ac1b643, counted from offset 0 (the same count as above, to 127):
# `MappingBase.__init__` 42-58 takes moe_cluster_size, moe_tp_size and moe_ep_size with -1 for
# "not given" (52-54); a missing cluster size is 1 (61-62); cp_type (64-65) picks the MoE world:
# tp_size for ULYSSES, else tp_size * cp_size (66); the missing sizes are derived by integer
# division (68-76); the product must equal the MoE world, else ValueError (104-109);
# NotImplementedError for MoE EP beside non-helix CP (118-120), with the CpType formatted by
# f-string (an IntEnum: its number); a cluster above 1 asserts moe_ep_size == 1 (122-123).
# The LLM API passes its moe_*_parallel_size fields to the mapping with None as -1
# (`BaseLlmArgs.validate_parallel_config`, by name: its line in the pinned llm_args was not
# counted here).
CITES.update({
    "moe_sizes": ("mapping", "MappingBase.__init__: the MoE sizes' defaults, derivation and "
                  "checks (product == MoE world, EP beside non-helix CP, cluster => EP 1)", 0),
})
LINES.update({"moe_sizes": (59, 123)})


@dataclass(frozen=True)
class MoeSizesRef:
    """The mapping's moe_tp_size, moe_ep_size and moe_cluster_size after its derivation."""

    tp: int
    ep: int
    cluster: int


def moe_mapping(raw: Mapping[str, Any], cp_size: int, cp_type: str | None) -> MoeSizesRef:
    """`cite_fact("moe_sizes")`: the three sizes as `MappingBase.__init__` fills and checks
    them for a line at `cp_size` / `cp_type` (upper-case CpType name, None: not given);
    Rejected with the mapping's message where it raises."""
    def given(key: str) -> int:
        value = raw.get(key)
        return -1 if value is None else _int(key, value, minimum=1)

    cluster, moe_tp, moe_ep = (given("moe_cluster_parallel_size"),
                               given("moe_tensor_parallel_size"),
                               given("moe_expert_parallel_size"))
    tp = raw.get("tensor_parallel_size")
    tp = 1 if tp is None else _int("tensor_parallel_size", tp, minimum=1)
    if cluster == -1:
        cluster = 1
    kind = cp_type or "ULYSSES"
    world = tp if kind == "ULYSSES" else tp * cp_size
    if moe_tp == -1 and moe_ep == -1:
        moe_tp, moe_ep = world // cluster, 1
    elif moe_tp == -1:
        moe_tp = world // (moe_ep * cluster)
    elif moe_ep == -1:
        moe_ep = world // (moe_tp * cluster)
    if moe_tp * moe_ep * cluster != world:
        raise Rejected("moe_tp_size * moe_ep_size * moe_cluster_size must equal to "
                       f"moe_world_size, but got {moe_tp * moe_ep * cluster} != {world}")
    if moe_ep != 1 and cp_size > 1 and kind != "HELIX":
        raise Rejected(f"CP {CP_TYPES.index(kind)} doesn't support MoE tp/ep yet")
    if cluster > 1 and moe_ep != 1:
        raise Rejected("moe_ep_size == 1 (AssertionError)")
    return MoeSizesRef(moe_tp, moe_ep, cluster)


# --------------------------------------------------------------------------------------------
# Helix: what a helix rank changes, for the refusal's reason (issue 23, s48t)
# --------------------------------------------------------------------------------------------

# mapping.py @b35ac1b643, counted on from 127 to 304 over the same page (offset 0): without
# attn_tp_size / attn_cp_size (-1, 55-56) the attention sizes fall back (78-86): ULYSSES gives
# attn_tp tp_size * cp_size and attn_cp 1 (79-82), any other type attn_tp tp_size and attn_cp
# cp_size (83-86); `has_cp_helix` is cp_size > 1 with cp_config's cp_type HELIX (229-231);
# `pp_layers` gives each pipeline stage its `torch.tensor_split` share of the layers, the
# first num_layers % pp_size stages one more (301-304).
# runners/common.py @13b902ed48 (counted to 148): `get_all_rank_num_tokens` (22-41) reads helix
# only under attention DP: the count each rank reports is ceil(num_tokens / cp_size), gathered
# over the tp x cp ranks (32-39); without attention DP it returns None (41).
COUNTED_TO["mapping"] = 304
CITES.update({
    "attn_cp_fallback": ("mapping", "MappingBase.__init__: attn_tp_size / attn_cp_size "
                         "fallback (ULYSSES: tp*cp and 1; else tp and cp)", 0),
    "has_cp_helix": ("mapping", "MappingBase.has_cp_helix", 0),
    "pp_layers": ("mapping", "MappingBase.pp_layers (torch.tensor_split of the layers)", 0),
    "helix_adp_counts": ("runners_common", "get_all_rank_num_tokens: helix under attention "
                         "DP reports ceil(num_tokens / cp_size) over tp x cp ranks", 0),
})
LINES.update({"attn_cp_fallback": (78, 86), "has_cp_helix": (229, 231),
              "pp_layers": (301, 304), "helix_adp_counts": (32, 39)})


def helix_reason(cp_size: int, attention_dp: bool) -> str:
    """What a helix rank (`cite_fact("has_cp_helix")`) runs that this reference does not
    restate. Under attention DP each rank's gathered token count is ceil(tokens / cp_size)
    (`cite_fact("helix_adp_counts")`); without it, the attention runs split over cp_size
    context ranks (attn_cp_size = cp_size, `cite_fact("attn_cp_fallback")`). Either way the
    warmup goes on and captures (`cite_fact("cp_warmup_skipped")` returns only for other
    types)."""
    if attention_dp:
        return f"ceil(tokens / {cp_size})"
    return f"attn_cp_size {cp_size}"


# py_executor.py @9521caf469 (the 2025 copy, counted to 1521): `num_micro_batches` is the
# pipeline size (238-239: "list of requests in each PP micro batch", `self.dist.pp_size`); with
# pp_size > 1 the event loop is `_executor_loop_pp` (260-263).
CITES.update({
    "pp_micro_batches": ("py_executor", "PyExecutor.__init__: num_micro_batches = "
                         "dist.pp_size; pp_size > 1 picks _executor_loop_pp", 0),
})
LINES.update({"pp_micro_batches": (238, 263)})


def pp_stage_layers(num_layers: int, pp_size: int) -> list[int]:
    """`cite_fact("pp_layers")`: how many layers each pipeline stage holds, as
    `torch.tensor_split(torch.arange(num_layers), pp_size)` splits them: num_layers // pp_size
    each, the first num_layers % pp_size stages one more."""
    if pp_size < 1:
        raise Rejected(f"pipeline_parallel_size {pp_size}")
    base, extra = divmod(num_layers, pp_size)
    return [base + (stage < extra) for stage in range(pp_size)]


def pp_micro_batches(pp_size: int) -> int:
    """`cite_fact("pp_micro_batches")`: the micro batches the executor keeps in flight."""
    if pp_size < 1:
        raise Rejected(f"pipeline_parallel_size {pp_size}")
    return pp_size


# --------------------------------------------------------------------------------------------
# MoE all-to-all workspace bytes (NVLinkOneSided), the C++ auxiliary part read (issue 23, s51t)
# --------------------------------------------------------------------------------------------

# cpp/tensorrt_llm/thop/moeAlltoAllOp.cpp @af87f05030 (31,573 characters; the one stored copy),
# counted from offset 0 to 631 (both 16,000-character pages, to the end of the bindings'
# fragment): CACHELINE_ALIGNMENT = 128 (36); `alignOffset` rounds up to it
# (40-43); `calculateOffsets(epSize, maxNumTokens, eplbStatsNumExperts)` (45-103) lays out
# flag_val and local_token_counter (4 bytes each), send and recv counters (epSize x 4 each),
# then, each aligned first: dispatch and combine completion flags (epSize x 4 each),
# topk_target_ranks and topk_send_indices (maxNumTokens x kMaxTopK x 4 each), the EPLB gathered
# stats (epSize x eplbStatsNumExperts x 4) and the payload start (aligned); `moeA2AInitializeOp`
# zeroes the rank's row and returns those offsets (117-150). `moeA2AGetAuxDataSizeOp` (587-595)
# reads a missing EPLB count as 0, refuses a negative one and returns the payload offset of
# `calculateOffsets(ep_size, max_num_tokens, eplb)`; the fragment registers it as
# `moe_a2a_get_aux_data_size(int ep_size, int max_num_tokens, int? eplb_stats_num_experts=None)
# -> int` (629-630), the three arguments the pinned Python caller passes
# (`cite_fact("moe_a2a_aux_size")`); newer copies add a fourth, `can_use_cft_counted_writes`,
# not modelled.
# cpp/tensorrt_llm/kernels/communicationKernels/moeAlltoAllKernels.h @97317b1d7b (8,977
# characters, the commit of the pinned Python file), counted to 31: kMaxTopK = 22 (29),
# kMaxPayloads = 4 (30), kMaxRanks = 64 (31). The .cpp's stored copy includes this header but
# its own commit differs; the header's one stored copy is this one.
PINS.update({
    "moe_alltoall_op": ("cpp/tensorrt_llm/thop/moeAlltoAllOp.cpp",
                        "af87f05030a11812ee591aefcfa4ff38ca158cfa"),
    "moe_alltoall_kernels_h": ("cpp/tensorrt_llm/kernels/communicationKernels/"
                               "moeAlltoAllKernels.h",
                               "97317b1d7b2e2b700ba79b60fcfda1897fab32c6"),
})
COUNTED_TO.update({"moe_alltoall_op": 631, "moe_alltoall_kernels_h": 31})
CITES.update({
    "moe_a2a_aux_layout": ("moe_alltoall_op", "calculateOffsets: counters, flags, top-k "
                           "routing and EPLB stats, 128-byte aligned; the payload offset", 0),
    "moe_a2a_cacheline": ("moe_alltoall_op", "CACHELINE_ALIGNMENT = 128, alignOffset", 0),
    "moe_a2a_initialize": ("moe_alltoall_op", "moeA2AInitializeOp: zero the rank's row, "
                           "return the offsets", 0),
    "moe_a2a_max_top_k": ("moe_alltoall_kernels_h", "kMaxTopK = 22, kMaxPayloads = 4, "
                          "kMaxRanks = 64", 0),
    "moe_a2a_aux_op": ("moe_alltoall_op", "moeA2AGetAuxDataSizeOp: EPLB None read as 0, the "
                       "payload offset of calculateOffsets", 16000),
    "moe_a2a_aux_op_def": ("moe_alltoall_op", "TORCH_LIBRARY_FRAGMENT: moe_a2a_get_aux_data_"
                           "size(int ep_size, int max_num_tokens, int? eplb=None) -> int",
                           16000),
})
LINES.update({"moe_a2a_aux_layout": (45, 103), "moe_a2a_cacheline": (36, 43),
              "moe_a2a_initialize": (117, 150), "moe_a2a_max_top_k": (29, 31),
              "moe_a2a_aux_op": (587, 595), "moe_a2a_aux_op_def": (629, 630)})

MOE_A2A_K_MAX_TOP_K = 22
MOE_A2A_FIELDS = ("flag_val", "local_token_counter", "send_counters", "recv_counters",
                  "dispatch_completion_flags", "combine_completion_flags", "topk_target_ranks",
                  "topk_send_indices", "eplb_gathered_stats", "payload_data")


def moe_a2a_offsets(ep_size: int, max_num_tokens: int, eplb_stats_num_experts: int | None = None
                    ) -> dict[str, int]:
    """`cite_fact("moe_a2a_aux_layout")`: each field's byte offset in a rank's row, walked
    field by field as `calculateOffsets` does (`cite_fact("moe_a2a_cacheline")` for the
    rounding); the payload's offset is what `moe_a2a_get_aux_data_size` returns
    (`cite_fact("moe_a2a_aux_op")`, EPLB None read as 0)."""
    if eplb_stats_num_experts is not None and eplb_stats_num_experts < 0:
        raise Rejected("eplbStatsNumExperts must be positive if not None.")
    eplb = eplb_stats_num_experts or 0

    def align(value: int) -> int:
        return (value + 127) & ~127

    sizes = {"flag_val": (False, 4), "local_token_counter": (False, 4),
             "send_counters": (False, ep_size * 4), "recv_counters": (False, ep_size * 4),
             "dispatch_completion_flags": (True, ep_size * 4),
             "combine_completion_flags": (True, ep_size * 4),
             "topk_target_ranks": (True, max_num_tokens * MOE_A2A_K_MAX_TOP_K * 4),
             "topk_send_indices": (True, max_num_tokens * MOE_A2A_K_MAX_TOP_K * 4),
             "eplb_gathered_stats": (True, ep_size * eplb * 4),
             "payload_data": (True, 0)}
    offsets: dict[str, int] = {}
    offset = 0
    for name in MOE_A2A_FIELDS:
        aligned, size = sizes[name]
        if aligned:
            offset = align(offset)
        offsets[name] = offset
        offset += size
    return offsets


def moe_a2a_workspace_size(ep_size: int, top_k: int, max_num_tokens: int, hidden_size: int,
                           itemsize: int, eplb_stats_num_experts: int | None = None,
                           extra_payload_bytes_per_token: int = 0,
                           env_mb: str | None = None) -> int:
    """`cite_fact("moe_a2a_workspace_size")`: the aux size, then the dispatch, expert-id,
    scale, extra and combine regions of ep_size x max_num_tokens rows, `pad_up(..., 128)`
    after each; `cite_fact("moe_a2a_env_override")`: a non-empty TRTLLM_MOE_A2A_WORKSPACE_MB
    replaces it with int(value) MiB."""
    computed = moe_a2a_offsets(ep_size, max_num_tokens, eplb_stats_num_experts)["payload_data"]
    rows = ep_size * max_num_tokens
    for per_token in (hidden_size * itemsize, top_k * 4, top_k * 4,
                      extra_payload_bytes_per_token, hidden_size * itemsize):
        computed += rows * per_token
        computed = -(-computed // 128) * 128
    if env_mb:
        return int(env_mb) * 1024 * 1024
    return computed


# --------------------------------------------------------------------------------------------
# Which MoE lines build the one-sided all-to-all, and with what (issue 23, s54t)
# --------------------------------------------------------------------------------------------

# _torch/modules/fused_moe/fused_moe_cutlass.py @97317b1d7b (42,102 characters; the commit of
# the pinned distributed/moe_alltoall.py, so its MoeAlltoAll calls match that signature),
# counted from offset 0 to 275 over the first 16,000-character page. `CutlassFusedMoE.__init__`
# (58-): with a W4A16 MXFP4 quant config the hidden size is padded up to a multiple of 128
# (104-108); unless `without_comm`, it picks the method (`select_alltoall_method_type`) and,
# when that is not NotEnabled, builds its communication (143-152); for NVLinkOneSided it sizes
# the workspace with `calculate_required_workspace_size(mapping.moe_ep_size, experts_per_token,
# model_config.max_num_tokens, self.hidden_size, self.dtype or torch.float16, num_experts if
# a layer load balancer is set else None)` and builds `MoeAlltoAll` with the same
# max_num_tokens and EPLB count (160-184). `select_alltoall_method_type` (242-269):
# NotEnabled when mapping.dp_size == 1 (244-245), when moe_tp_size != 1 (248-249) or when
# `MnnvlMemory.supports_mnnvl()` is false (251-252); `TRTLLM_FORCE_ALLTOALL_METHOD` names
# another method (254-263); otherwise NVLinkOneSided (269).
# mapping.py @b35ac1b643, within the counted part: `dp_size` is tp_size with
# enable_attention_dp, else 1 (221-223).
PINS["fused_moe_cutlass"] = ("tensorrt_llm/_torch/modules/fused_moe/fused_moe_cutlass.py",
                             "97317b1d7b2e2b700ba79b60fcfda1897fab32c6")
COUNTED_TO["fused_moe_cutlass"] = 275
CITES.update({
    "moe_a2a_select": ("fused_moe_cutlass", "CutlassFusedMoE.select_alltoall_method_type: "
                       "NotEnabled without attention DP, with MoE TP or without MNNVL; the "
                       "env may force one; else NVLinkOneSided", 0),
    "moe_a2a_build": ("fused_moe_cutlass", "CutlassFusedMoE.__init__: NVLinkOneSided sizes "
                      "the workspace from moe_ep_size, top-k, model_config.max_num_tokens, "
                      "hidden_size, dtype or float16 and the EPLB count", 0),
    "moe_a2a_hidden_pad": ("fused_moe_cutlass", "CutlassFusedMoE.__init__: W4A16 MXFP4 pads "
                           "hidden_size to a multiple of 128", 0),
    "mapping_dp_size": ("mapping", "MappingBase.dp_size: tp_size with enable_attention_dp", 0),
})
LINES.update({"moe_a2a_select": (242, 269), "moe_a2a_build": (160, 184),
              "moe_a2a_hidden_pad": (104, 108), "mapping_dp_size": (221, 223)})


def moe_a2a_one_sided(raw: Mapping[str, Any], sizes: MoeSizesRef) -> bool:
    """Whether `CutlassFusedMoE` builds the one-sided all-to-all on a line whose mapping
    gives `sizes` (`cite_fact("moe_a2a_select")`): the mapping's dp_size
    (`cite_fact("mapping_dp_size")`) above 1 and moe_tp_size 1, on hardware with MNNVL and
    without TRTLLM_FORCE_ALLTOALL_METHOD (both assumed here)."""
    tp = raw.get("tensor_parallel_size")
    tp = 1 if tp is None else _int("tensor_parallel_size", tp, minimum=1)
    dp_size = tp if raw.get("enable_attention_dp") else 1
    return dp_size != 1 and sizes.tp == 1

# _mnnvl_utils.py @021fb1ee74 (28,883 characters; the one stored copy, a 2026 commit, not the
# pinned MoeAlltoAll's), counted from offset 0 to 213 over the first page. `MnnvlMemory`
# (54-): the fabric page is 1 << 29 bytes (60); `MnnvlMemory(mapping, size)` opens the memory
# (91-94); `get_allocation_granularity` asks the driver for its recommended granularity once
# (156-167); `open_mnnvl_memory` checks that every rank of the communicator asks the same size,
# rounds the size up to that granularity and creates the physical allocation of the rounded
# size (196-213); a new virtual address range reserves each rank a stride of whole fabric
# pages (170-182), address space, not memory.
PINS["mnnvl_utils"] = ("tensorrt_llm/_mnnvl_utils.py",
                       "021fb1ee74ee19f5079c706ca37f3943b242cfa3")
COUNTED_TO["mnnvl_utils"] = 213
CITES.update({
    "mnnvl_granularity": ("mnnvl_utils", "MnnvlMemory.open_mnnvl_memory: the size rounded up "
                          "to the driver's recommended allocation granularity, cuMemCreate of "
                          "the rounded size", 0),
    "mnnvl_fabric_stride": ("mnnvl_utils", "MnnvlMemory.new_mnnvl_memory_address: each rank's "
                            "virtual stride in whole 512 MiB fabric pages", 0),
})
LINES.update({"mnnvl_granularity": (196, 213), "mnnvl_fabric_stride": (170, 182)})


# --------------------------------------------------------------------------------------------
# TRTLLM_FORCE_ALLTOALL_METHOD (issue 23, s60t)
# --------------------------------------------------------------------------------------------

# _torch/modules/fused_moe/fused_moe_cutlass.py @97317b1d7b (the pin above), counted part:
# `select_alltoall_method_type` reads TRTLLM_FORCE_ALLTOALL_METHOD with os.environ.get after
# its three NotEnabled returns and, when it `is not None`, looks it up as
# `AlltoallMethodType[value]`, raising NotImplementedError for DeepEP / DeepEPLowLatency and
# returning the member otherwise (254-263). `__init__` then builds: nothing when the method is
# NotEnabled (`enable_alltoall`, 151), the two-sided MnnvlMoe workspaces for NVLinkTwoSided
# (154-159), the one-sided workspace for NVLinkOneSided (160-184). The enum's member names are
# the five the pinned file uses; a stored copy of `_torch/modules/fused_moe/interface.py` (the
# index gives no commit for it) defines exactly NotEnabled 0, NVLinkOneSided 1,
# NVLinkTwoSided 2, DeepEP 3, DeepEPLowLatency 4.
CITES.update({
    "moe_a2a_force": ("fused_moe_cutlass", "CutlassFusedMoE.select_alltoall_method_type: a set "
                      "TRTLLM_FORCE_ALLTOALL_METHOD is AlltoallMethodType[value]; DeepEP and "
                      "DeepEPLowLatency raise NotImplementedError", 0),
    "moe_a2a_two_sided": ("fused_moe_cutlass", "CutlassFusedMoE.__init__: NVLinkTwoSided gets "
                          "MnnvlMoe's workspaces", 0),
})
LINES.update({"moe_a2a_force": (254, 263), "moe_a2a_two_sided": (154, 159)})
# _torch/modules/fused_moe/create_moe.py @01f8de52fe (20,462 characters; the stored copy the
# index gives, a later commit than the pinned CutlassFusedMoE), counted from offset 0 to 390:
# `get_moe_cls` maps moe_backend.upper() to a class, "CUTLASS" to CutlassFusedMoE (25-85);
# `create_moe` reads ENABLE_CONFIGURABLE_MOE with a default of "1" and, when it is "1", builds
# DeepGemm / TRTLLMGen / CuteDsl / Cutlass / DenseGEMM backends inside ConfigurableMoE
# (385-390), which builds the backend without its communication (the pinned CutlassFusedMoE:
# `without_comm`, "ConfigurableMoE will handle it", 142-143) and selects the all-to-all with
# its CommunicationFactory (TRTLLM_FORCE_COMM_METHOD; not restated).
PINS["create_moe"] = ("tensorrt_llm/_torch/modules/fused_moe/create_moe.py",
                      "01f8de52fefe0a885a9cb5d31a271f3576f9cf32")
COUNTED_TO["create_moe"] = 390
CITES.update({
    "moe_configurable": ("create_moe", "create_moe: ENABLE_CONFIGURABLE_MOE (default \"1\") "
                         "wraps a CUTLASS backend in ConfigurableMoE", 16000),
    "moe_without_comm": ("fused_moe_cutlass", "CutlassFusedMoE.__init__: without_comm skips "
                         "its communication (ConfigurableMoE handles it)", 0),
})
LINES.update({"moe_configurable": (385, 390), "moe_without_comm": (142, 143)})


def moe_a2a_selected(tp: int, attention_dp: bool, ep: int | None) -> bool:
    """`moe_a2a_one_sided` for a serving line `--tp_size tp [--ep_size ep]` with
    enable_attention_dp `attention_dp`: whether an all-to-all method is selected at all."""
    raw = {"tensor_parallel_size": tp, "enable_attention_dp": attention_dp,
           "moe_expert_parallel_size": ep}
    return moe_a2a_one_sided(raw, moe_mapping(raw, 1, None))


def moe_a2a_selects_itself(enable_configurable_moe: str | None) -> bool:
    """Whether a CUTLASS backend selects its own all-to-all, and so reads
    TRTLLM_FORCE_ALLTOALL_METHOD (`cite_fact("moe_configurable")`,
    `cite_fact("moe_without_comm")`): only outside ConfigurableMoE, which `create_moe` uses
    when ENABLE_CONFIGURABLE_MOE (unset: "1") is "1"."""
    return os_environ_get(enable_configurable_moe, "1") != "1"


def os_environ_get(value: str | None, default: str) -> str:
    """`os.environ.get(name, default)` for a variable whose value (None: unset) is given."""
    return default if value is None else value


# _torch/modules/fused_moe/communication/communication_factory.py @03c36d6222 (19,364
# characters; the stored copy the index gives, 2026), counted from offset 0 to 192:
# `CommunicationFactory.create_strategy` (81-): the activation dtype is model_config.torch_dtype
# (129), max_num_tokens model_config.max_num_tokens (131); no strategy without attention DP or
# at dp_size 1 (137-138); AllGatherReduceScatter under MoE TP (142-143); TRTLLM_FORCE_COMM_METHOD
# forces a method (146-165); else NVLinkOneSided is tried first, with the EPLB count when
# model_config.moe_load_balancer is set (170-192). Counted on to 420 (the second page too):
# `_create_forced_method` (294-) upper-cases the name (325), refuses a method other than
# NVLINK_ONE_SIDED and ALLGATHER when num_experts is not a multiple of moe_ep_size (327-334),
# builds NVLINK_TWO_SIDED (337-355), NVLINK_ONE_SIDED (356-374), DEEPEP (375-384),
# DEEPEPLOWLATENCY (385-396), NCCL_EP (397-416), ALLGATHER (417-418), and raises ValueError
# for any other name (419-420).
PINS["communication_factory"] = (
    "tensorrt_llm/_torch/modules/fused_moe/communication/communication_factory.py",
    "03c36d6222ad928c6956cf65ab168836b208aee5")
COUNTED_TO["communication_factory"] = 420
CITES.update({
    "moe_factory_select": ("communication_factory", "CommunicationFactory.create_strategy: "
                           "none without attention DP, allgather under MoE TP, the forced "
                           "method, else NVLinkOneSided first", 0),
    "moe_factory_eplb": ("communication_factory", "CommunicationFactory.create_strategy: the "
                         "EPLB count when a load balancer is configured", 0),
    "moe_get_cls": ("create_moe", "get_moe_cls: moe_backend.upper() to a MoE class", 0),
    "moe_comm_force": ("communication_factory", "CommunicationFactory._create_forced_method: "
                       "the upper-cased name's strategy; ValueError for another name", 16000),
    "moe_eplb_count": ("fused_moe_cutlass", "CutlassFusedMoE.__init__: num_experts as the "
                       "EPLB count when the layer has a load balancer", 0),
})
LINES.update({"moe_comm_force": (325, 420), "moe_factory_select": (137, 192),
              "moe_factory_eplb": (171, 171), "moe_get_cls": (25, 85),
              "moe_eplb_count": (173, 173)})
CONFIGURABLE_MOE_BACKENDS = ("DEEPGEMM", "TRTLLM", "CUTEDSL", "CUTLASS", "DENSEGEMM")


COMM_METHODS = ("NVLINK_TWO_SIDED", "NVLINK_ONE_SIDED", "DEEPEP", "DEEPEPLOWLATENCY",
                "NCCL_EP", "ALLGATHER")


def moe_comm_forced(value: str) -> str:
    """The strategy `_create_forced_method` builds for TRTLLM_FORCE_COMM_METHOD=`value`
    (`cite_fact("moe_comm_force")`), num_experts a multiple of the EP size: the upper-cased
    name; ValueError for a name it does not know."""
    method = value.upper()
    if method not in COMM_METHODS:
        raise ValueError(f"Unknown communication method: {method}")
    return method


# The same copy, past NVLinkOneSided (issue 23, s70f): its constructor's exception is caught
# (191-192); num_experts not a multiple of moe_ep_size gives AllGatherReduceScatter (194-200);
# else NVLinkTwoSided is tried (202-224), NcclEP where its prerequisites hold (226-252),
# DeepEP (256-269) and DeepEPLowLatency (271-287) only when
# os.environ.get("TRTLLM_CAN_USE_DEEP_EP", "1") == "1" and act_dtype == torch.bfloat16 (255),
# and AllGatherReduceScatter last (289-292). act_dtype is model_config.torch_dtype (129).
CITES["moe_factory_fallback"] = ("communication_factory", "CommunicationFactory."
                                 "create_strategy past NVLinkOneSided", 0)
LINES["moe_factory_fallback"] = (191, 292)


def moe_factory_after_one_sided(num_experts: int, ep: int, can_use_deep_ep: str | None,
                                act_dtype: str) -> tuple[str, ...]:
    """The strategies `create_strategy` tries, in order, once NVLinkOneSided's constructor
    has raised (`cite_fact("moe_factory_fallback")`); the last always builds.
    `can_use_deep_ep` is TRTLLM_CAN_USE_DEEP_EP (None: unset), `act_dtype` the name of
    ModelConfig.torch_dtype."""
    if num_experts % ep != 0:
        return ("AllGatherReduceScatter",)
    tried = ["NVLinkTwoSided", "NcclEP"]
    if os_environ_get(can_use_deep_ep, "1") == "1" and act_dtype == "bfloat16":
        tried += ["DeepEP", "DeepEPLowLatency"]
    return (*tried, "AllGatherReduceScatter")


def model_config_torch_dtype(checkpoint_dtype: str | None) -> str:
    """ModelConfig.torch_dtype for a checkpoint whose dtype is `checkpoint_dtype` (None:
    untyped): `pretrained_config.torch_dtype or torch.bfloat16`
    (`cite_fact("model_config_torch_dtype")`)."""
    return checkpoint_dtype or "bfloat16"


def moe_a2a_backend_sized(backend: str | None, enable_configurable_moe: str | None) -> bool:
    """Whether the one-sided workspace of a line whose `moe_config.backend` is `backend`
    (None: not given, CUTLASS assumed) is the one restated here: CutlassFusedMoE's own
    selection outside ConfigurableMoE (`moe_a2a_selects_itself`); inside it, a backend
    `create_moe` wraps (`cite_fact("moe_configurable")`), whose all-to-all the factory picks
    under the same conditions, NVLinkOneSided first (`cite_fact("moe_factory_select")`)."""
    name = "CUTLASS" if backend is None else backend.upper()
    if moe_a2a_selects_itself(enable_configurable_moe):
        return name == "CUTLASS"
    return name in CONFIGURABLE_MOE_BACKENDS


# _torch/model_config.py @008e0af898 (76,303 characters; the copy read_file serves without a
# commit, later than the pinned 1a0dc5f700), counted from offset 0 to 1315 (issue 23, s64t):
# the architecture sets `_DEEPSEEK_V4_ARCHITECTURES` (62) and `_KIMI_K3_ARCHITECTURES`
# (65-68); `ModelConfig.resolve_moe_backend` (448-486): a name other than AUTO is kept, AUTO
# is TRTLLM for Kimi-K3, TRTLLM for DeepSeek-V4 on SM 100-119, for W4A16_NVFP4 CUTEDSL on
# SM 120/121 and MARLIN on SM 90-99, for GptOssForCausalLM TRTLLM on SM 100-119, TRITON on
# SM 90-99, CUTLASS elsewhere, TRTLLM for FP8_BLOCK_SCALES where is_sm_100f(), else CUTLASS;
# `load_hf_quant_config` (599-703): an inline modelopt config goes to the modelopt builder
# (604-607), quant_method fp8 with a weight_block_size or a static activation_scheme is
# FP8_BLOCK_SCALES (615-618), mxfp4 an MXFP4 algorithm (636-653, 585-596), mxfp8 MXFP8
# (655-671), nvfp4 NVFP4 (676-688); `from_pretrained` (1250-1315): the requested backend
# defaults to AUTO (1250), the architecture is architectures[0] or "" (1251-1252), the quant
# config comes from hf_quant_config.json first (1260-1298), else config.json's
# quantization_config (1300-1306), else dtypes.json (1307-1309), and the model's moe_backend
# is resolve_moe_backend of the three (1311-1315).
PINS["model_config_2026"] = ("tensorrt_llm/_torch/model_config.py",
                             "008e0af8980fc560003631ba4ac37828836a91c8")
COUNTED_TO["model_config_2026"] = 1315
CITES.update({
    "moe_auto_archs": ("model_config_2026", "_DEEPSEEK_V4_ARCHITECTURES, "
                       "_KIMI_K3_ARCHITECTURES", 0),
    "moe_auto_resolve": ("model_config_2026", "ModelConfig.resolve_moe_backend: AUTO by "
                         "architecture, quant algorithm and SM version", 16000),
    "moe_auto_fp8_block": ("model_config_2026", "ModelConfig.load_hf_quant_config: fp8 with "
                           "weight_block_size or static activations is FP8_BLOCK_SCALES",
                           24000),
    "moe_auto_quant_methods": ("model_config_2026", "ModelConfig.load_hf_quant_config: the "
                               "modelopt, mxfp4, mxfp8 and nvfp4 branches", 24000),
    "moe_auto_call": ("model_config_2026", "ModelConfig.from_pretrained: requested backend "
                      "(default AUTO), architectures[0], the quant config, "
                      "resolve_moe_backend", 56000),
})
LINES.update({"moe_auto_archs": (62, 68), "moe_auto_resolve": (448, 486),
              "moe_auto_fp8_block": (615, 618), "moe_auto_quant_methods": (599, 688),
              "moe_auto_call": (1250, 1315)})
MOE_AUTO_KIMI_K3 = ("KimiK3ForConditionalGeneration", "KimiLinearForCausalLM")
MOE_AUTO_DEEPSEEK_V4 = ("DeepseekV4ForCausalLM",)
# the SM versions of the GPUs TensorRT-LLM serves MoE on (Ampere to Blackwell consumer)
MOE_AUTO_SMS = (80, 86, 89, 90, 100, 103, 110, 120, 121)


def moe_auto_backend(requested: str, architecture: str, quant_algo: str | None, sm: int,
                     sm_100f: bool) -> str:
    """`ModelConfig.resolve_moe_backend` (`cite_fact("moe_auto_resolve")`,
    `cite_fact("moe_auto_archs")`) on an SM `sm` GPU whose `is_sm_100f()` is `sm_100f`."""
    if requested.upper() != "AUTO":
        return requested
    if architecture in MOE_AUTO_KIMI_K3:
        return "TRTLLM"
    if architecture in MOE_AUTO_DEEPSEEK_V4 and sm in range(100, 120):
        return "TRTLLM"
    if quant_algo == "W4A16_NVFP4":
        if sm in (120, 121):
            return "CUTEDSL"
        if sm in range(90, 100):
            return "MARLIN"
    if architecture == "GptOssForCausalLM":
        if sm in range(100, 120):
            return "TRTLLM"
        return "TRITON" if sm in range(90, 100) else "CUTLASS"
    if quant_algo == "FP8_BLOCK_SCALES" and sm_100f:
        return "TRTLLM"
    return "CUTLASS"


# What an hf_quant_config.json and a ModelOpt quantization_config set (issue 23, s66t), in the
# same copy (model_config_2026): `_build_modelopt_quant_config` (498-582) sets the global
# algorithm to QuantAlgo(quant_algo) when the key is not None (509-511) and keeps it for
# MIXED_PRECISION (524-571: only the per-layer configs are built there);
# `load_hf_quant_config`'s compressed-tensors branch (673-675) calls
# update_quant_config_from_compressed_tensors (below) and no branch of the chain 615-688
# names another method, which then sets no algorithm; `from_pretrained` reads
# hf_quant_config.json through read_modelopt_quant_config into the builder (1260-1277) and
# hands over to config.json's quantization_config when the file sets no global algorithm
# and the inline one does (1278-1298). tensorrt_llm/quantization/modelopt_config.py, two
# stored copies whose commits the index does not give (5,742 and 7,542 characters, lines not
# counted): `is_modelopt_quant_config` is a dict whose quant_method, as str and lower-cased,
# starts with "modelopt", or whose producer's name is "modelopt"; `read_modelopt_quant_config`
# takes the dict under "quantization" (legacy shape; not a dict: ValueError), else the flat
# config when it is a modelopt one (else ValueError), and renames the alias "fp8_pb_wo" to
# FP8_BLOCK_SCALES (the smaller copy: exactly that spelling; the larger: any case, the
# smaller's QuantAlgo then raising for the others). QuantAlgo is a StrEnum looked up by exact
# value (its metaclass overrides __contains__ only).
CITES.update({
    "moe_auto_modelopt_builder": ("model_config_2026", "ModelConfig._build_modelopt_quant_"
                                  "config: quant_algo = QuantAlgo(quant_algo) or None", 16000),
    "moe_auto_compressed": ("model_config_2026", "ModelConfig.load_hf_quant_config: "
                            "compressed-tensors branch, the end of the method chain", 24000),
    "moe_auto_hf_file": ("model_config_2026", "ModelConfig.from_pretrained: hf_quant_config.json "
                         "through the modelopt builder, config.json's when it sets no "
                         "quant_algo", 48000),
})
LINES.update({"moe_auto_modelopt_builder": (498, 571), "moe_auto_compressed": (673, 688),
              "moe_auto_hf_file": (1260, 1298)})
# tensorrt_llm/models/quant_config_utils.py @2a26169d0b (4,517 characters, one page; the one
# stored copy), counted from offset 0 to 76 (s66t): `update_quant_config_from_compressed_
# tensors` (22-76) reads config_groups["group_0"]'s weights and input_activations (26-33):
# 8-bit weights of strategy "channel" with token inputs are FP8_PER_CHANNEL_PER_TOKEN, of
# strategy "block" with group inputs FP8_BLOCK_SCALES with group_size 128 only (35-49), 4-bit
# float tensor_group weights NVFP4 (56-71); every other shape raises ValueError (a missing key
# KeyError).
PINS["quant_config_utils"] = ("tensorrt_llm/models/quant_config_utils.py",
                              "2a26169d0b200a5b81356d09ee7ed7691d95f116")
COUNTED_TO["quant_config_utils"] = 76
CITES["moe_auto_compressed_algo"] = ("quant_config_utils", "update_quant_config_from_"
                                     "compressed_tensors: FP8_BLOCK_SCALES for block weights",
                                     0)
LINES["moe_auto_compressed_algo"] = (22, 76)
MOE_AUTO_ANY = (None, "FP8_BLOCK_SCALES", "W4A16_NVFP4")
# QuantAlgo's members (tensorrt_llm/quantization/mode.py, the 17,986-character copy the index
# serves without a commit, lines not counted; MXFP8 and W4A16_NVFP4 from model_config_2026,
# whose branches and resolve_moe_backend name them), looked up by exact value (s68t)
QUANT_ALGOS = frozenset({
    "W8A16", "W4A16", "W4A16_AWQ", "W4A8_AWQ", "W8A16_GPTQ", "W4A16_GPTQ",
    "W8A8_SQ_PER_CHANNEL", "W8A8_SQ_PER_TENSOR_PLUGIN", "W8A8_SQ_PER_CHANNEL_PER_TOKEN_PLUGIN",
    "W8A8_SQ_PER_CHANNEL_PER_TENSOR_PLUGIN", "W8A8_SQ_PER_TENSOR_PER_TOKEN_PLUGIN",
    "W4A8_QSERVE_PER_GROUP", "W4A8_QSERVE_PER_CHANNEL", "FP8", "FP8_PER_CHANNEL_PER_TOKEN",
    "FP8_BLOCK_SCALES", "INT8", "MIXED_PRECISION", "NVFP4", "W4A8_NVFP4_FP8", "W4A8_MXFP4_FP8",
    "W4A8_MXFP4_MXFP8", "W4A16_MXFP4", "NO_QUANT", "MXFP8", "W4A16_NVFP4"})
# the algorithms `get_mxfp4_quant_algo` gives an mxfp4 checkpoint: W4A16_MXFP4 below SM 100,
# W4A8_MXFP4_FP8 for a TRITON backend hint and W4A8_MXFP4_MXFP8 otherwise on SM 100 and
# later, or the one OVERRIDE_QUANT_ALGO names of the three (`cite_fact("moe_mxfp4_algo")`)
MXFP4_ALGOS = ("W4A16_MXFP4", "W4A8_MXFP4_FP8", "W4A8_MXFP4_MXFP8")
CITES["moe_mxfp4_algo"] = ("model_config_2026", "ModelConfig.get_mxfp4_quant_algo: "
                           "OVERRIDE_QUANT_ALGO, else by SM version and backend", 24000)
LINES["moe_mxfp4_algo"] = (585, 596)


def _compressed_algo(hf: Mapping[str, Any]) -> str | None:
    """`update_quant_config_from_compressed_tensors`'s algorithm
    (`cite_fact("moe_auto_compressed_algo")`); where it raises the model does not load
    ("OTHER": no backend at all)."""
    try:
        group = hf["config_groups"]["group_0"]
        weights, inputs = group["weights"], group["input_activations"]
        bits, strategy, given = weights["num_bits"], weights["strategy"], inputs["strategy"]
        if bits == 8 and strategy == "block" and given == "group" \
                and inputs["group_size"] == 128:
            return "FP8_BLOCK_SCALES"
        if bits == 8 and strategy == "channel" and given == "token":  # s68t
            return "FP8_PER_CHANNEL_PER_TOKEN"
        if bits == 4 and weights.get("type") == "float" and strategy == "tensor_group" \
                and given == "tensor_group" and weights["group_size"] == 16:
            return "NVFP4"  # s68t
    except (KeyError, TypeError, AttributeError):
        pass
    return "OTHER"
# a hf_quant_config.json that is not JSON (the test's and the measure's stand-in for one)
NOT_JSON = object()


class _Raises(Exception):
    """TensorRT-LLM raises while it reads the quant config (the model does not load)."""


def _modelopt_inner(raw: Any) -> dict[str, Any]:
    """`read_modelopt_quant_config` (module comment above), the alias left to the caller."""
    if not isinstance(raw, dict):
        raise _Raises("not a dict")
    if "quantization" in raw:
        if not isinstance(raw["quantization"], dict):
            raise _Raises("quantization not a dict")
        return dict(raw["quantization"])
    marker = str(raw.get("quant_method", "")).lower().startswith("modelopt")
    producer = raw.get("producer") or {}
    if not marker and not (isinstance(producer, dict) and producer.get("name") == "modelopt"):
        raise _Raises("not modelopt")
    return {key: value for key, value in raw.items()
            if key not in ("producer", "quant_method", "ignore", "kv_cache_scheme",
                           "config_groups")}


def _builder_algo(inner: Mapping[str, Any]) -> str | None:
    """The global algorithm `_build_modelopt_quant_config` sets
    (`cite_fact("moe_auto_modelopt_builder")`): another QuantAlgo value, or a ValueError
    (no model), is neither algorithm resolve_moe_backend tests ("OTHER")."""
    value = inner.get("quant_algo")
    if value is None:
        return None
    if isinstance(value, str) and value.lower() == "fp8_pb_wo":
        value = "FP8_BLOCK_SCALES"
    return value if value in QUANT_ALGOS else "OTHER"  # each algorithm kept: s68t


def _inline_algos(hf: Any) -> tuple[str | None, ...]:
    """`load_hf_quant_config` of config.json's quantization_config `hf`
    (`cite_fact("moe_auto_fp8_block")`, `cite_fact("moe_auto_quant_methods")`,
    `cite_fact("moe_auto_compressed")`)."""
    if not isinstance(hf, dict):
        return MOE_AUTO_ANY
    producer = hf.get("producer") or {}
    if str(hf.get("quant_method", "")).lower().startswith("modelopt") or (
            isinstance(producer, dict) and producer.get("name") == "modelopt"):
        try:
            return (_builder_algo(_modelopt_inner(hf)),)
        except _Raises:
            return MOE_AUTO_ANY
    method = hf.get("quant_method")
    if method == "fp8":
        # s68t: no branch of the chain names another fp8 config, so it sets no algorithm
        # (s67t had FP8 here; `cite_fact("moe_auto_quant_methods")`)
        block = hf.get("weight_block_size") or hf.get("activation_scheme") == "static"
        return ("FP8_BLOCK_SCALES",) if block else (None,)
    if method == "compressed-tensors":
        return (_compressed_algo(hf),)
    if method == "mxfp4":  # one of the three, by the GPU and the backend hint (s68t)
        return MXFP4_ALGOS
    return {"mxfp8": ("MXFP8",), "nvfp4": ("NVFP4",)}.get(method, (None,))


def moe_auto_quant_algos(config_json: Mapping[str, Any], hf_quant_config: Any = None
                         ) -> tuple[str | None, ...]:
    """The quant algorithms `from_pretrained` may build for a checkpoint whose config.json is
    `config_json` and whose hf_quant_config.json holds `hf_quant_config` (None: no such file;
    `NOT_JSON`: not JSON), as far as `resolve_moe_backend` tells them apart
    (`cite_fact("moe_auto_call")`, `cite_fact("moe_auto_hf_file")`): where TensorRT-LLM raises
    reading the file, anything."""
    hf = config_json.get("quantization_config")
    if hf_quant_config is not None:
        if hf_quant_config is NOT_JSON:
            return MOE_AUTO_ANY
        try:
            algo = _builder_algo(_modelopt_inner(hf_quant_config))
        except _Raises:
            return MOE_AUTO_ANY
        if algo is not None or hf is None:
            return (algo,)
        return _inline_algos(hf)  # an inline None keeps the file's None
    if hf is None:
        return (None,)  # dtypes.json gives MXFP4 or nothing
    return _inline_algos(hf)


def moe_auto_backends(requested: str | None, config_json: Mapping[str, Any],
                      hf_quant_config: Any) -> set[str]:
    """Every backend a line's MoE gets, over `MOE_AUTO_SMS` and both `is_sm_100f()` values,
    for `moe_config.backend` `requested` (None: not given, AUTO) and a local checkpoint
    (`cite_fact("moe_auto_call")`)."""
    names = config_json.get("architectures") or []
    architecture = names[0] if names else ""
    return {moe_auto_backend(requested or "AUTO", architecture, algo, sm, flag)
            for algo in moe_auto_quant_algos(config_json, hf_quant_config)
            for sm in MOE_AUTO_SMS for flag in (False, True)}


def moe_a2a_auto_sized(requested: str | None, enable_configurable_moe: str | None,
                       config_json: Mapping[str, Any] | None,
                       hf_quant_config: Any = None) -> bool:
    """`moe_a2a_backend_sized` with AUTO (or no backend) resolved for a local checkpoint's
    config.json `config_json` (None: not read, and then no backend is CUTLASS, AUTO not
    sized): sized only where every backend it may resolve to is."""
    if config_json is None:
        return moe_a2a_backend_sized(requested, enable_configurable_moe)
    return all(moe_a2a_class_sized(backend, algo, config_json, enable_configurable_moe)
               for backend, algo in _requested_pairs(requested, config_json, hf_quant_config,
                                                     None))


def moe_a2a_eplb_aux(ep_size: int, max_num_tokens: int, num_experts: int) -> int:
    """The auxiliary bytes with EPLB statistics for `num_experts` experts
    (`cite_fact("moe_eplb_count")`, `cite_fact("moe_factory_eplb")`)."""
    return moe_a2a_offsets(ep_size, max_num_tokens, num_experts)["payload_data"]


ALLTOALL_METHOD_TYPES = ("NotEnabled", "NVLinkOneSided", "NVLinkTwoSided", "DeepEP",
                         "DeepEPLowLatency")


def moe_a2a_forced_method(value: str) -> str:
    """The method `select_alltoall_method_type` returns with TRTLLM_FORCE_ALLTOALL_METHOD set
    to `value`, past its NotEnabled tests (`cite_fact("moe_a2a_force")`): KeyError for a name
    the enum lacks (a member-name lookup), NotImplementedError for the DeepEP methods."""
    if value not in ALLTOALL_METHOD_TYPES:
        raise KeyError(value)
    if value in ("DeepEP", "DeepEPLowLatency"):
        raise NotImplementedError(
            "DeepEP and DeepEPLowLatency are not supported for CutlassFusedMoE yet")
    return value


# --------------------------------------------------------------------------------------------
# The EPLB expert count and an untyped checkpoint's payload dtype (issue 23, s61t)
# --------------------------------------------------------------------------------------------

# _torch/models/modeling_mixtral.py @b35ac1b643 (8,016 characters, one page), counted from
# offset 0 to 57: `MixtralMoE.__init__` sets num_experts from config.num_local_experts (35)
# and builds `create_moe(num_experts=self.num_experts, ..., dtype=config.torch_dtype, ...)`
# (48-57, dtype at 54).
# _torch/models/modeling_qwen3_moe.py @a678b91aaf (16,200 characters), counted from offset 0
# to 120: `Qwen3MoE.__init__` sets num_experts from config.num_experts (93) and builds
# `create_moe(num_experts=self.num_experts, ..., dtype=config.torch_dtype, ...)` (110-120,
# dtype at 116).
# _torch/model_config.py @1a0dc5f700 (26,037 characters; the one stored copy), counted from
# offset 0 to 210: `ModelConfig.torch_dtype` is `pretrained_config.torch_dtype or
# torch.bfloat16` (204-210), the dtype CommunicationFactory hands NVLinkOneSided (its :129).
PINS["modeling_mixtral"] = ("tensorrt_llm/_torch/models/modeling_mixtral.py",
                            "b35ac1b64368513d215c57d2ed01d62d910df8da")
PINS["modeling_qwen3_moe"] = ("tensorrt_llm/_torch/models/modeling_qwen3_moe.py",
                              "a678b91aafbeff265cd0b764abb59d7def624ac2")
PINS["model_config"] = ("tensorrt_llm/_torch/model_config.py",
                        "1a0dc5f70054f66d892df6a964996fc5ead6f81e")
COUNTED_TO.update({"modeling_mixtral": 57, "modeling_qwen3_moe": 120, "model_config": 210})
CITES.update({
    "mixtral_num_experts": ("modeling_mixtral", "MixtralMoE.__init__: num_experts = "
                            "config.num_local_experts", 0),
    "mixtral_create_moe": ("modeling_mixtral", "MixtralMoE.__init__: create_moe(num_experts, "
                           "dtype=config.torch_dtype)", 0),
    "qwen3_moe_num_experts": ("modeling_qwen3_moe", "Qwen3MoE.__init__: num_experts = "
                              "config.num_experts", 0),
    "qwen3_moe_create_moe": ("modeling_qwen3_moe", "Qwen3MoE.__init__: create_moe(num_experts, "
                             "dtype=config.torch_dtype)", 0),
    "model_config_torch_dtype": ("model_config", "ModelConfig.torch_dtype: the pretrained "
                                 "config's torch_dtype or bfloat16", 0),
})
LINES.update({"mixtral_num_experts": (35, 35), "mixtral_create_moe": (48, 57),
              "qwen3_moe_num_experts": (93, 93), "qwen3_moe_create_moe": (110, 120),
              "model_config_torch_dtype": (204, 210)})
# _torch/models/modeling_deepseekv3.py @000561df0b (64,254 characters; the copy read_file
# serves without a commit), counted from offset 0 to 669 (issue 23, s62t):
# `DeepseekV3DecoderLayer.__init__` sets num_experts from config.n_routed_experts (619),
# builds a MoE layer only when n_routed_experts is not None, past first_k_dense_replace and
# on moe_layer_freq (651-653), as `Deepseekv3MoE(num_experts=self.num_experts, ...,
# dtype=config.torch_dtype, ...)` (658-669, dtype at 665), whose `__init__` builds
# `create_moe(num_experts=num_experts, ..., dtype=dtype, ...)` (451-468, dtype at 456).
PINS["modeling_deepseekv3"] = ("tensorrt_llm/_torch/models/modeling_deepseekv3.py",
                               "000561df0bd751d793257102bbe59cb4a64b2fd5")
COUNTED_TO["modeling_deepseekv3"] = 669
CITES.update({
    "deepseekv3_num_experts": ("modeling_deepseekv3", "DeepseekV3DecoderLayer.__init__: "
                               "num_experts = config.n_routed_experts", 16000),
    "deepseekv3_moe_layer": ("modeling_deepseekv3", "DeepseekV3DecoderLayer.__init__: a MoE "
                             "layer when n_routed_experts is not None", 16000),
    "deepseekv3_moe": ("modeling_deepseekv3", "DeepseekV3DecoderLayer.__init__: "
                       "Deepseekv3MoE(num_experts, dtype=config.torch_dtype)", 16000),
    "deepseekv3_create_moe": ("modeling_deepseekv3", "Deepseekv3MoE.__init__: "
                              "create_moe(num_experts, dtype)", 16000),
})
LINES.update({"deepseekv3_num_experts": (619, 619), "deepseekv3_moe_layer": (651, 653),
              "deepseekv3_moe": (658, 669), "deepseekv3_create_moe": (451, 468)})
# _torch/models/modeling_qwen_moe.py @6a5351c32c (9,522 characters, one page), counted from
# offset 0 to 61 (s62t): `QwenMoE.__init__` (every decoder layer's mlp) sets num_experts from
# config.num_experts (39) and builds `create_moe(num_experts=self.num_experts, ...,
# dtype=config.torch_dtype, ...)` (52-61, dtype at 58).
PINS["modeling_qwen_moe"] = ("tensorrt_llm/_torch/models/modeling_qwen_moe.py",
                             "6a5351c32cc7710a7076440764beef6c616b78ae")
COUNTED_TO["modeling_qwen_moe"] = 61
CITES.update({
    "qwen2_moe_num_experts": ("modeling_qwen_moe", "QwenMoE.__init__: num_experts = "
                              "config.num_experts", 0),
    "qwen2_moe_create_moe": ("modeling_qwen_moe", "QwenMoE.__init__: create_moe(num_experts, "
                             "dtype=config.torch_dtype)", 0),
})
LINES.update({"qwen2_moe_num_experts": (39, 39), "qwen2_moe_create_moe": (52, 61)})
# _torch/models/modeling_gpt_oss.py @7924c7f1d3 (41,186 characters; the one stored copy),
# counted from offset 0 to 189 (issue 23, s63t): `MLPBlock.__init__` (every TransformerBlock's
# mlp) sets num_experts from pretrained_config.num_local_experts (142) and builds
# `create_moe(**moe_params)` (174-189) with 'num_experts': pretrained_config.num_local_experts
# (176) and 'dtype': pretrained_config.torch_dtype (179).
PINS["modeling_gpt_oss"] = ("tensorrt_llm/_torch/models/modeling_gpt_oss.py",
                            "7924c7f1d3b4a3286b62c13fc890900295dc39cb")
COUNTED_TO["modeling_gpt_oss"] = 189
CITES.update({
    "gpt_oss_num_experts": ("modeling_gpt_oss", "MLPBlock.__init__: 'num_experts': "
                            "pretrained_config.num_local_experts", 0),
    "gpt_oss_create_moe": ("modeling_gpt_oss", "MLPBlock.__init__: create_moe(**moe_params), "
                           "dtype=pretrained_config.torch_dtype", 0),
})
LINES.update({"gpt_oss_num_experts": (176, 176), "gpt_oss_create_moe": (174, 189)})
# _torch/models/modeling_qwen3_next.py @b93e14ca09 (64,182 characters; the one stored copy),
# counted from offset 0 to 411 (s63t): `Qwen3NextSparseMoeBlock.__init__` sets num_experts
# from config.num_experts (384) and builds `create_moe(num_experts=self.num_experts, ...,
# dtype=config.torch_dtype, ...)` (401-411, dtype at 407).
PINS["modeling_qwen3_next"] = ("tensorrt_llm/_torch/models/modeling_qwen3_next.py",
                               "b93e14ca093e446615f3009cae6ca5a33c4f2f56")
COUNTED_TO["modeling_qwen3_next"] = 411
CITES.update({
    "qwen3_next_num_experts": ("modeling_qwen3_next", "Qwen3NextSparseMoeBlock.__init__: "
                               "num_experts = config.num_experts", 16000),
    "qwen3_next_create_moe": ("modeling_qwen3_next", "Qwen3NextSparseMoeBlock.__init__: "
                              "create_moe(num_experts, dtype=config.torch_dtype)", 16000),
})
LINES.update({"qwen3_next_num_experts": (384, 384), "qwen3_next_create_moe": (401, 411)})
# _torch/models/modeling_llama.py @3a5901cd0d (57,552 characters; the one stored copy), counted
# from offset 0 to 1259 (s63t): `Llama4ForConditionalGeneration.__init__` swaps the model
# config's pretrained_config for its text_config (keeping the architectures) and builds
# Llama4Model on it (1255-1259); Llama4DecoderLayer's MoE layers are
# `Llama4MoE(num_experts=config.num_local_experts, ..., dtype=config.torch_dtype, ...)`
# (427-436), whose `__init__` builds `create_moe(..., num_experts=num_experts, ...,
# dtype=dtype, ...)` (284-295).
PINS["modeling_llama"] = ("tensorrt_llm/_torch/models/modeling_llama.py",
                          "3a5901cd0d77bed18baaf402d1d12fab468d44a9")
COUNTED_TO["modeling_llama"] = 1259
CITES.update({
    "llama4_text_config": ("modeling_llama", "Llama4ForConditionalGeneration.__init__: "
                           "pretrained_config = pretrained_config.text_config", 48000),
    "llama4_num_experts": ("modeling_llama", "Llama4DecoderLayer.__init__: "
                           "Llama4MoE(num_experts=config.num_local_experts, "
                           "dtype=config.torch_dtype)", 16000),
    "llama4_create_moe": ("modeling_llama", "Llama4MoE.__init__: create_moe(num_experts, "
                          "dtype)", 0),
})
LINES.update({"llama4_text_config": (1255, 1259), "llama4_num_experts": (427, 436),
              "llama4_create_moe": (284, 295)})
# _torch/models/modeling_deepseekv4.py @02586bf0b0 (121,459 characters; the copy read_file
# serves without a commit), counted from offset 0 to 1854 (issue 23, s64t):
# `DeepseekV4DecoderLayer.__init__` (every layer of DeepseekV4Model, no dense layers) sets
# num_experts from config.n_routed_experts (1773) and builds
# `DeepseekV4MoE(num_experts=self.num_experts, ..., dtype=config.torch_dtype, ...)` (1843-1854,
# dtype at 1849), whose `__init__` builds `create_moe(num_experts=num_experts, ..., dtype=dtype,
# ...)` (1554-1574, dtype at 1559).
PINS["modeling_deepseekv4"] = ("tensorrt_llm/_torch/models/modeling_deepseekv4.py",
                               "02586bf0b0f59d29967bf4aa27d5714a0b4788f6")
COUNTED_TO["modeling_deepseekv4"] = 1854
CITES.update({
    "deepseekv4_num_experts": ("modeling_deepseekv4", "DeepseekV4DecoderLayer.__init__: "
                               "num_experts = config.n_routed_experts", 64000),
    "deepseekv4_moe": ("modeling_deepseekv4", "DeepseekV4DecoderLayer.__init__: "
                       "DeepseekV4MoE(num_experts, dtype=config.torch_dtype)", 80000),
    "deepseekv4_create_moe": ("modeling_deepseekv4", "DeepseekV4MoE.__init__: "
                              "create_moe(num_experts, dtype)", 64000),
})
LINES.update({"deepseekv4_num_experts": (1773, 1773), "deepseekv4_moe": (1843, 1854),
              "deepseekv4_create_moe": (1554, 1574)})
# the config.json key each architecture's MoE class reads as num_experts
MOE_EXPERT_KEY = {"MixtralForCausalLM": "num_local_experts",
                  "Qwen3MoeForCausalLM": "num_experts",
                  "DeepseekV3ForCausalLM": "n_routed_experts",
                  "Qwen2MoeForCausalLM": "num_experts",
                  "GptOssForCausalLM": "num_local_experts",
                  "Qwen3NextForCausalLM": "num_experts",
                  "Llama4ForConditionalGeneration": "num_local_experts",
                  "DeepseekV4ForCausalLM": "n_routed_experts"}
# the architectures whose language model is built on config.json's text_config
MOE_TEXT_CONFIG = frozenset({"Llama4ForConditionalGeneration"})
DTYPE_ITEMSIZE = {"bfloat16": 2, "float16": 2, "float32": 4}


def moe_num_experts(config_json: Mapping[str, Any]) -> int:
    """The num_experts the served architecture's MoE class passes to `create_moe`
    (`cite_fact("mixtral_num_experts")`, `cite_fact("qwen3_moe_num_experts")`,
    `cite_fact("deepseekv3_num_experts")`, `cite_fact("qwen2_moe_num_experts")`,
    `cite_fact("gpt_oss_num_experts")`, `cite_fact("qwen3_next_num_experts")`,
    `cite_fact("deepseekv4_num_experts")`); Llama 4's
    from its text_config (`cite_fact("llama4_text_config")`, `cite_fact("llama4_num_experts")`)."""
    arch = config_json["architectures"][0]
    config = config_json["text_config"] if arch in MOE_TEXT_CONFIG else config_json
    return int(config[MOE_EXPERT_KEY[arch]])


# A float32 checkpoint (issue 23, s66t): `from_pretrained` copies the transformers config's
# dtype (a composite config's text_config dtype when the top has none) into its torch_dtype
# (model_config_2026, 1187-1195, counted by s64t); tensorrt_llm/_torch/pyexecutor/
# model_loader.py @b51992a331 (63,976 characters, the one stored copy; counted from offset 0
# to 1210 over its four pages in s68t, the skeleton kept outside the repository):
# `ModelLoader._load_and_validate_config` (1167-1210) calls the checkpoint loader's
# load_config (1210) with no dtype of the LLM API (its keyword list, 1171-1203: mapping,
# spec, sizes, moe_config fields, backends; model_kwargs only when set, 1206-1208), and
# `ModelLoader.load` (406-439) builds the model from that config
# (AutoModelForCausalLM.from_config, 431 under MetaInitMode, 438 as the fallback).
CITES["moe_a2a_float32"] = ("model_config_2026", "ModelConfig.from_pretrained: "
                            "pretrained_config.torch_dtype = the config's dtype", 48000)
LINES["moe_a2a_float32"] = (1187, 1195)
PINS["model_loader"] = ("tensorrt_llm/_torch/pyexecutor/model_loader.py",
                        "b51992a331532b80cb943098d3b1891762feb5f5")
COUNTED_TO["model_loader"] = 1210
CITES.update({
    "model_loader_config": ("model_loader", "ModelLoader._load_and_validate_config: "
                            "load_config without a dtype of the LLM API", 48000),
    "model_loader_load": ("model_loader", "ModelLoader.load: the model built from the "
                          "validated config", 16000),
})
LINES.update({"model_loader_config": (1167, 1210), "model_loader_load": (406, 439)})


def moe_a2a_itemsize(torch_dtype: str | None, configurable: bool) -> int:
    """The itemsize the one-sided workspace is sized with for a checkpoint whose
    transformers torch_dtype is `torch_dtype` (None: untyped): the factory's
    ModelConfig.torch_dtype, bfloat16 when None (`cite_fact("model_config_torch_dtype")`), on
    ConfigurableMoE; else CutlassFusedMoE's `self.dtype or torch.float16`
    (`cite_fact("moe_a2a_build")`), self.dtype the model's config.torch_dtype
    (`cite_fact("mixtral_create_moe")`); a float32 checkpoint's stays float32
    (`cite_fact("moe_a2a_float32")`, `cite_fact("model_loader_config")`,
    `cite_fact("model_loader_load")`, the comment above)."""
    if torch_dtype is None:
        return DTYPE_ITEMSIZE["bfloat16" if configurable else "float16"]
    return DTYPE_ITEMSIZE[torch_dtype]


# The GPU of a line (issue 23, s64g). resolve_moe_backend reads `get_sm_version()`, the
# device's compute capability major * 10 + minor (`cite_fact("moe_auto_resolve")`), and
# `is_sm_100f()`: SM 100 or 103 (tensorrt_llm/_utils.py, a stored copy whose commit the index
# does not give; its lines were not counted). The compute capabilities of the NVIDIA GPUs
# graphfit names, as NVIDIA lists them (restated here, not taken from graphfit's table).
GPU_SM = {"T4": 75, "A10": 86, "A10G": 86, "L4": 89, "RTX4090": 89, "RTX5090": 120,
          "A100-40GB": 80, "A100-80GB": 80, "A100": 80, "L40": 89, "L40S": 89, "H100": 90,
          "H100-NVL": 90, "H20": 90, "H200": 90, "B200": 100, "GB200": 100, "GB300": 103}


def is_sm_100f(sm: int) -> bool:
    """`is_sm_100f()` on an SM `sm` GPU (module comment above)."""
    return sm in (100, 103)


def moe_auto_backends_on(requested: str | None, config_json: Mapping[str, Any],
                         hf_quant_config: Any, sm: int) -> set[str]:
    """`moe_auto_backends` on one GPU, SM `sm`: what AUTO (or no backend) resolves to for
    each quant algorithm the checkpoint may build (`cite_fact("moe_auto_call")`)."""
    names = config_json.get("architectures") or []
    architecture = names[0] if names else ""
    return {moe_auto_backend(requested or "AUTO", architecture, algo, sm, is_sm_100f(sm))
            for algo in moe_auto_quant_algos(config_json, hf_quant_config)}


def moe_a2a_auto_sized_on(requested: str | None, enable_configurable_moe: str | None,
                          config_json: Mapping[str, Any], hf_quant_config: Any,
                          sm: int) -> bool:
    """`moe_a2a_auto_sized` on one GPU, SM `sm`."""
    return all(moe_a2a_class_sized(backend, algo, config_json, enable_configurable_moe, sm)
               for backend, algo in _requested_pairs(requested, config_json, hf_quant_config,
                                                     sm))


# --------------------------------------------------------------------------------------------
# The class a backend builds without ConfigurableMoE (issue 23, s67t)
# --------------------------------------------------------------------------------------------

# _torch/modules/fused_moe/create_moe.py @01f8de52fe (the pin above), counted on from 390 to
# the file's end, 447, over the second page (offset 15,000). `get_moe_cls` (25-85), with the
# model's quant config or the layer's override (28-31): CUTLASS is CutlassFusedMoE (32-33);
# CUTEDSL is CuteDslFusedMoE when the quant mode has FP8 block scales or NVFP4, else
# CutlassFusedMoE with a warning (36-46); DENSEGEMM is CutlassFusedMoE without NVFP4 (49-55),
# else DenseGEMMFusedMoE on its SM versions (56-64); TRTLLM is TRTLLMGenFusedMoE when the mode
# has FP8 block scales, NVFP4, W4A16 MXFP4, W4A8 NVFP4-FP8, W4A8 MXFP4-FP8 or W4A8
# MXFP4-MXFP8, else CutlassFusedMoE with a warning (65-79); VANILLA, DEEPGEMM, WIDEEP and
# TRITON their own classes (34-35, 47-48, 80-83); another name raises ValueError (84-85).
# `create_moe` wraps the class in ConfigurableMoE when ENABLE_CONFIGURABLE_MOE (default "1")
# is "1" or the class is CuteDslFusedMoE, and it is one of DeepGemm, TRTLLMGen, CuteDsl,
# Cutlass or DenseGEMM (385-408); otherwise it logs a warning (409-426) and builds the class
# bare through `create_moe_backend` (428-447), whose CutlassFusedMoE is built with
# without_comm False, so it selects its own all-to-all (`cite_fact("moe_a2a_select")`).
COUNTED_TO["create_moe"] = 447
CITES.update({
    "moe_legacy_cls": ("create_moe", "get_moe_cls: TRTLLM, CUTEDSL and DENSEGEMM fall back to "
                       "CutlassFusedMoE for a quant mode they do not serve", 0),
    "moe_legacy_wrap": ("create_moe", "create_moe: ConfigurableMoE when ENABLE_CONFIGURABLE_MOE "
                        "is 1 or the class is CuteDslFusedMoE", 16000),
    "moe_legacy_bare": ("create_moe", "create_moe: otherwise create_moe_backend builds the "
                        "class bare", 16000),
})
LINES.update({"moe_legacy_cls": (25, 85), "moe_legacy_wrap": (385, 408),
              "moe_legacy_bare": (428, 447)})
# The quant-mode tests get_moe_cls makes that hold for an algorithm restated here: no
# algorithm has no mode; FP8_BLOCK_SCALES has FP8 block scales (and no NVFP4 or MXFP4 mode).
# s68t: `QuantMode.from_quant_algo` (tensorrt_llm/quantization/mode.py, the 17,986-character
# copy the index serves without a commit; lines not counted) gives each of NVFP4,
# W4A16_MXFP4, W4A8_NVFP4_FP8, W4A8_MXFP4_FP8 and W4A8_MXFP4_MXFP8 its own flag (tested by
# has_nvfp4, has_w4a16_mxfp4, ...: `_any` of that one flag); FP8 sets FP8_QDQ,
# FP8_PER_CHANNEL_PER_TOKEN the rowwise flags, W4A8_AWQ / W4A16_AWQ / W4A16_GPTQ int4
# weights per group, W8A16(_GPTQ) / W4A16 weight-only, the W8A8_SQ algorithms SmoothQuant,
# the W4A8_QSERVE ones QServe, NO_QUANT nothing: none of the six get_moe_cls reads.
# MIXED_PRECISION (per-layer configs), INT8 (not in QUANT_ALGO_LIST: from_quant_algo
# asserts), MXFP8 and W4A16_NVFP4 (not in that copy's table) stay NotModelled.
_LEGACY_MODES: dict[str | None, frozenset[str]] = {
    None: frozenset(), "FP8_BLOCK_SCALES": frozenset({"fp8_block_scales"}),
    "NVFP4": frozenset({"nvfp4"}), "W4A16_MXFP4": frozenset({"w4a16_mxfp4"}),
    "W4A8_NVFP4_FP8": frozenset({"w4a8_nvfp4_fp8"}),
    "W4A8_MXFP4_FP8": frozenset({"w4a8_mxfp4_fp8"}),
    "W4A8_MXFP4_MXFP8": frozenset({"w4a8_mxfp4_mxfp8"}),
    **{algo: frozenset() for algo in (
        "FP8", "FP8_PER_CHANNEL_PER_TOKEN", "W4A8_AWQ", "W4A16_AWQ", "W4A16_GPTQ", "W8A16",
        "W8A16_GPTQ", "W4A16", "W8A8_SQ_PER_CHANNEL", "W8A8_SQ_PER_TENSOR_PLUGIN",
        "W8A8_SQ_PER_CHANNEL_PER_TOKEN_PLUGIN", "W8A8_SQ_PER_CHANNEL_PER_TENSOR_PLUGIN",
        "W8A8_SQ_PER_TENSOR_PER_TOKEN_PLUGIN", "W4A8_QSERVE_PER_GROUP",
        "W4A8_QSERVE_PER_CHANNEL", "NO_QUANT")}}
# DenseGEMMFusedMoE's SM versions, as the pinned get_moe_cls's comment names them ("DenseGEMM
# CuTe DSL kernels only support SM100/SM103", create_moe.py:56, within `moe_legacy_cls`)
DENSE_GEMM_SMS = (100, 103)
# _torch/modules/fused_moe/fused_moe_densegemm.py @3e17afe390 (24,779 characters, the one
# stored copy with a commit; counted from offset 0 to 273, s68t): DenseGEMMFusedMoE
# subclasses CutlassFusedMoE (153) and overrides `select_alltoall_method_type` to return
# NotEnabled (272-273), so a bare one builds no all-to-all. Two later stored copies (19,955
# and 20,882 characters, commits not given) keep the override.
PINS["fused_moe_densegemm"] = ("tensorrt_llm/_torch/modules/fused_moe/fused_moe_densegemm.py",
                               "3e17afe39080dc6af92e3f0546573e7bbdc4e9d4")
COUNTED_TO["fused_moe_densegemm"] = 273
CITES["moe_densegemm_no_a2a"] = ("fused_moe_densegemm", "DenseGEMMFusedMoE."
                                 "select_alltoall_method_type: NotEnabled", 0)
LINES["moe_densegemm_no_a2a"] = (272, 273)
_TRTLLM_GEN_MODES = frozenset({"fp8_block_scales", "nvfp4", "w4a16_mxfp4", "w4a8_nvfp4_fp8",
                               "w4a8_mxfp4_fp8", "w4a8_mxfp4_mxfp8"})
_OWN_CLASSES = {"CUTLASS": "CutlassFusedMoE", "VANILLA": "VanillaMoE",
                "DEEPGEMM": "DeepGemmFusedMoE", "WIDEEP": "WideEPMoE",
                "TRITON": "TritonFusedMoE"}
_WRAPPABLE = ("DeepGemmFusedMoE", "TRTLLMGenFusedMoE", "CuteDslFusedMoE", "CutlassFusedMoE",
              "DenseGEMMFusedMoE")

# Why get_moe_cls's class stays NotModelled for the QuantAlgo members outside _LEGACY_MODES
# (issue 23, s68k). W4A16_NVFP4 and MXFP8 are named by model_config_2026 (resolve_moe_backend
# and load_hf_quant_config, `cite_fact("moe_auto_resolve")`, `cite_fact("moe_auto_quant_
# methods")`) but by no stored QuantMode table at a commit: NVIDIA's
# tensorrt_llm/quantization/mode.py@d879430b040ea30c65220c9171a8a70607398748 (7,012
# characters, the only NVIDIA copy with a commit) has no QuantAlgo class at all; the fork
# ai-blaise/TensorRT-LLM's mode.py@76204896f1c646d53f50232efde16333a9d57ed4 (19,006
# characters) and the 17,986-character copy without a commit end QuantAlgo without either
# (their members: QUANT_ALGOS less these two, plus the fork's own NVFP4_AWQ / NVFP4_ARC /
# KVARN). So "table": which mode they set is not read. MIXED_PRECISION: both copies'
# from_quant_algo fall to QuantMode(0) for it, but the layer's override_quant_config (create_moe
# 28-31, within `cite_fact("moe_legacy_cls")`) is what a model's experts pass: "override".
# INT8 is left out of QUANT_ALGO_LIST, so from_quant_algo asserts: "asserts". A name that is
# not a member raises ValueError in QuantAlgo(...) (`cite_fact("moe_auto_modelopt_builder")`):
# "name".
_LEGACY_UNREAD = {"W4A16_NVFP4": "table", "MXFP8": "table", "MIXED_PRECISION": "override",
                  "INT8": "asserts"}


def moe_legacy_unread(algo: str) -> str:
    """Why `moe_get_cls` is NotModelled for a quant algorithm `algo` outside the restated
    modes: "table", "override", "asserts" or "name" (the comment above)."""
    if algo in _LEGACY_MODES:
        raise ValueError(f"{algo}'s modes are restated")
    return _LEGACY_UNREAD.get(algo, "name" if algo not in QUANT_ALGOS else "unlisted")


def moe_get_cls(backend: str, algo: str | None, architecture: str, sm: int | None = None
                ) -> str:
    """The class `get_moe_cls` returns for `moe_backend` `backend` and a quant config whose
    algorithm is `algo` on an SM `sm` GPU (None: any) (`cite_fact("moe_legacy_cls")`).
    NotModelled where the modes are not restated, where DENSEGEMM's class turns on an
    unknown GPU, and for DeepSeek-V4, whose routed experts pass a per-layer override quant
    config read from the safetensors header (s66t's section of the coverage doc)."""
    name = backend.upper()
    if name in _OWN_CLASSES:
        return _OWN_CLASSES[name]
    if name not in ("CUTEDSL", "DENSEGEMM", "TRTLLM"):
        raise NotModelled(f"get_moe_cls of this copy has no {name} branch (ValueError)")
    if architecture in MOE_AUTO_DEEPSEEK_V4 or algo not in _LEGACY_MODES:
        raise NotModelled(f"quant modes of {algo} for {architecture}")
    modes = _LEGACY_MODES[algo]
    if name == "CUTEDSL":
        return "CuteDslFusedMoE" if modes & {"fp8_block_scales", "nvfp4"} else "CutlassFusedMoE"
    if name == "DENSEGEMM":
        if "nvfp4" not in modes:
            return "CutlassFusedMoE"
        if sm is None:
            raise NotModelled("DenseGEMMFusedMoE or CutlassFusedMoE, by the GPU")
        return "DenseGEMMFusedMoE" if sm in DENSE_GEMM_SMS else "CutlassFusedMoE"
    return "TRTLLMGenFusedMoE" if modes & _TRTLLM_GEN_MODES else "CutlassFusedMoE"


def moe_a2a_class_sized(backend: str | None, algo: str | None,
                        config_json: Mapping[str, Any],
                        enable_configurable_moe: str | None, sm: int | None = None) -> bool:
    """Whether `backend` (None: CUTLASS assumed, as `moe_a2a_backend_sized`) builds the
    restated workspace for a checkpoint `config_json` whose quant algorithm is `algo`. With
    ConfigurableMoE on, `moe_a2a_backend_sized`. Without it, the class `moe_get_cls` gives:
    wrapped all the same when it is CuteDslFusedMoE (`cite_fact("moe_legacy_wrap")`, the
    factory selects), else built bare (`cite_fact("moe_legacy_bare")`), where only
    CutlassFusedMoE's own selection is restated; a bare DenseGEMMFusedMoE builds none
    (`cite_fact("moe_densegemm_no_a2a")`, s68t). s69h: a bare TRTLLMGenFusedMoE selects and
    sizes as CutlassFusedMoE (`cite_fact("moe_trtllm_gen_select")`), and on a GPU where its
    constructor raises (`moe_trtllm_gen_raises`) no class is built on either route."""
    names = config_json.get("architectures") or []
    try:
        cls: str | None = moe_get_cls(backend or "CUTLASS", algo, names[0] if names else "", sm)
    except NotModelled:
        cls = None
    if cls == "TRTLLMGenFusedMoE" and moe_trtllm_gen_raises(sm):
        return False
    if not moe_a2a_selects_itself(enable_configurable_moe):
        return moe_a2a_backend_sized(backend, enable_configurable_moe)
    if cls is None:
        return False
    wrapped = cls in _WRAPPABLE and (
        os_environ_get(enable_configurable_moe, "1") == "1" or cls == "CuteDslFusedMoE")
    return wrapped or cls in ("CutlassFusedMoE", "TRTLLMGenFusedMoE")


def _requested_pairs(requested: str | None, config_json: Mapping[str, Any],
                     hf_quant_config: Any, sm: int | None) -> set[tuple[str | None, str | None]]:
    """(backend, quant algorithm) pairs a line may build: a named backend with each algorithm
    the checkpoint may set; AUTO (or none) resolved for each, on SM `sm` or over
    `MOE_AUTO_SMS` and both `is_sm_100f()` values."""
    algos = moe_auto_quant_algos(config_json, hf_quant_config)
    if requested is not None and requested.upper() != "AUTO":
        return {(requested, algo) for algo in algos}
    names = config_json.get("architectures") or []
    architecture = names[0] if names else ""
    gpus = [(sm, is_sm_100f(sm))] if sm is not None else [
        (each, flag) for each in MOE_AUTO_SMS for flag in (False, True)]
    return {(moe_auto_backend(requested or "AUTO", architecture, algo, each, flag), algo)
            for algo in algos for each, flag in gpus}


# cpp/tensorrt_llm/thop/moeOp.cpp @fbbc05dd14 (64,183 characters; the commit the index gives
# for it, also that of _torch/modules/fused_moe/ops/moe_op_cutlass.py), counted from offset 0
# to 232 over the first page (issue 23, s67t). `FusedMoeRunner`'s constructor (123-): for
# unquantized activation / weight dtypes it builds a CutlassMoeFCRunner for half / half,
# bfloat16 / bfloat16 and bfloat16 / float8_e4m3fn only (137-153); the quantized modes follow
# (155-223); with no runner built it raises "Could not construct fused moe op with the
# requested input combination" (224-230). A stored older copy (10,355 characters, commit not
# given) also had a float / float runner.
PINS["moe_op_cpp"] = ("cpp/tensorrt_llm/thop/moeOp.cpp",
                      "fbbc05dd1445fb8545148cfcb51b8e2bdcf28cfa")
COUNTED_TO["moe_op_cpp"] = 232
CITES["moe_cutlass_dtypes"] = ("moe_op_cpp", "FusedMoeRunner::FusedMoeRunner: the unquantized "
                               "dtype pairs, else 'Could not construct fused moe op'", 0)
LINES["moe_cutlass_dtypes"] = (123, 230)
_CUTLASS_UNQUANTIZED = {("float16", "float16"), ("bfloat16", "bfloat16"),
                        ("bfloat16", "float8_e4m3fn")}


def moe_cutlass_runner_builds(activation: str, weight: str) -> bool:
    """Whether `FusedMoeRunner` builds a kernel runner for an unquantized layer of these
    activation / weight dtypes (`cite_fact("moe_cutlass_dtypes")`); where it does not, the
    constructor raises."""
    return (activation, weight) in _CUTLASS_UNQUANTIZED


# tensorrt_llm/quantization/modelopt_config.py @2edf354d4b (9,348 characters, one page; the
# commit the index gives for the path), counted from offset 0 to 173 (issue 23, s67t): the
# copy s66t's two uncommitted ones (5,742 and 7,542 characters) are cited beside.
# `is_modelopt_quant_config` (100-112): a dict whose quant_method, as str and lower-cased,
# starts with "modelopt", or whose `(producer or {}).get("name")` is "modelopt".
# `parse_modelopt_quant_config` (146-173): not a dict raises ValueError (155-156); a
# "quantization" key reads the legacy shape (157-158; `_read_legacy`, 115-131, raises
# ValueError when it is not a dict, 118-121), else a ModelOpt marker the flat shape (159-160;
# `_read_flat`, 134-143, quant_algo from the top level), else ValueError (161-167); the alias
# "fp8_pb_wo", exactly that spelling, becomes "FP8_BLOCK_SCALES" (169-172). The reader
# `_modelopt_inner` / `_builder_algo` above follows the 7,542-character copy, which takes the
# alias in any case; in this pinned copy another spelling reaches QuantAlgo unchanged.
PINS["modelopt_config"] = ("tensorrt_llm/quantization/modelopt_config.py",
                           "2edf354d4b92161efd50b10b71e8e20fb6c5925a")
COUNTED_TO["modelopt_config"] = 173
CITES.update({
    "modelopt_marker": ("modelopt_config", "is_modelopt_quant_config: quant_method starting "
                        "with modelopt, or producer name modelopt", 0),
    "modelopt_parse": ("modelopt_config", "parse_modelopt_quant_config: the legacy shape under "
                       "quantization, else a marked flat one, else ValueError; the fp8_pb_wo "
                       "alias", 0),
})
LINES.update({"modelopt_marker": (100, 112), "modelopt_parse": (146, 173)})


# --------------------------------------------------------------------------------------------
# A float32 checkpoint in the class the line builds (issue 23, s68t)
# --------------------------------------------------------------------------------------------

# _torch/modules/fused_moe/fused_moe_trtllm_gen.py @7b437aaa73 (27,965 characters; the one
# stored copy, older than the pinned create_moe: its constructor takes no `without_comm`),
# counted from offset 0 to 252 over the first page. `TRTLLMGenFusedMoE._get_quant_method`
# (142-162) raises NotImplementedError "TRTLLMGenFusedMoE doesn't support fp16/bf16/fp32 MoE."
# without a quant config (162); `forward_impl` (241-) asserts `x.dtype == torch.bfloat16`
# (252), so float32 activations fail at the layer's first forward.
PINS["fused_moe_trtllm_gen"] = ("tensorrt_llm/_torch/modules/fused_moe/fused_moe_trtllm_gen.py",
                                "7b437aaa73bf5a44b1102aee5c631074da763b8f")
COUNTED_TO["fused_moe_trtllm_gen"] = 252
CITES["moe_trtllm_gen_bf16"] = ("fused_moe_trtllm_gen", "TRTLLMGenFusedMoE.forward_impl: "
                                "assert x.dtype == torch.bfloat16", 0)
LINES["moe_trtllm_gen_bf16"] = (241, 252)


def moe_float32_fails(cls: str, algo: str | None) -> bool:
    """Whether MoE class `cls` over a checkpoint of quant algorithm `algo` fails on float32
    activations: CutlassFusedMoE's unquantized runner has no float32 pair
    (`cite_fact("moe_cutlass_dtypes")`), TRTLLMGenFusedMoE asserts bfloat16
    (`cite_fact("moe_trtllm_gen_bf16")`); NotModelled for any other class or a quantized
    CutlassFusedMoE."""
    if cls == "CutlassFusedMoE" and algo is None:
        return not moe_cutlass_runner_builds("float32", "float32")
    if cls == "TRTLLMGenFusedMoE":
        return True
    raise NotModelled(f"{cls} on float32 activations ({algo})")


# --------------------------------------------------------------------------------------------
# WIDEEP's own all-to-all (issue 23, s68t)
# --------------------------------------------------------------------------------------------

# _torch/modules/fused_moe/fused_moe_wide_ep.py @99bca89296 (52,776 characters; the one stored
# copy with a commit, older than the pinned create_moe: its constructor takes no
# activation_type), counted from offset 0 to 308 over the first page. WideEPMoE defines its
# own AlltoallMethodType: NotEnabled, MNNVL, DeepEP, DeepEPLowLatency (29-38); it asserts
# attention DP (91); its constructor selects (187-190) and builds the two-sided MnnvlMoe
# workspaces for MNNVL, a DeepEP buffer or a low-latency one (192-227);
# `select_alltoall_method_type` (259-308): a set TRTLLM_FORCE_ALLTOALL_METHOD looked up in that
# enum (282-284), NotEnabled without attention DP, at TP 1, with TRTLLM_MOE_DISABLE_ALLTOALLV=1
# or moe_ep_size <= top-k (286-296), MNNVL where supported (298-299), DeepEP /
# DeepEPLowLatency with TRTLLM_CAN_USE_DEEP_EP=1 and bfloat16 (301-306), else NotEnabled
# (308). create_moe builds it for WIDEEP (`cite_fact("moe_legacy_cls")`, 80-81) and wraps it
# on neither route (`cite_fact("moe_legacy_wrap")`: not in the wrapped list).
PINS["fused_moe_wide_ep"] = ("tensorrt_llm/_torch/modules/fused_moe/fused_moe_wide_ep.py",
                             "99bca89296987c62d28be210a30502bdab8e6a2f")
COUNTED_TO["fused_moe_wide_ep"] = 308
CITES.update({
    "moe_wideep_methods": ("fused_moe_wide_ep", "WideEPMoE's AlltoallMethodType: NotEnabled, "
                           "MNNVL, DeepEP, DeepEPLowLatency", 0),
    "moe_wideep_select": ("fused_moe_wide_ep", "WideEPMoE.select_alltoall_method_type", 0),
})
LINES.update({"moe_wideep_methods": (29, 38), "moe_wideep_select": (259, 308)})
WIDEEP_METHODS = ("NotEnabled", "MNNVL", "DeepEP", "DeepEPLowLatency")


def moe_wideep_one_sided() -> bool:
    """Whether a WIDEEP line's WideEPMoE can build the one-sided MoeAlltoAll workspace: none of
    its methods is the one-sided one (`cite_fact("moe_wideep_methods")`,
    `cite_fact("moe_wideep_select")`), and it is not wrapped in ConfigurableMoE
    (`cite_fact("moe_legacy_wrap")`)."""
    return "NVLinkOneSided" in WIDEEP_METHODS


# --------------------------------------------------------------------------------------------
# TRTLLMGenFusedMoE's own all-to-all and its SM bar (issue 23, s69h)
# --------------------------------------------------------------------------------------------

# _torch/modules/fused_moe/fused_moe_trtllm_gen.py, the fork xxi-nv/TensorRT-LLM's stored copy
# @69264cd3dd (48,448 characters; NVIDIA's own stored copy, 7b437aaa73 above, predates the
# pinned create_moe), counted from offset 0 to 326 over the first page. Its constructor takes
# `without_comm` and `activation_type` (162-184), the arguments the pinned create_moe passes.
# It raises NotImplementedError "TRTLLMGenFusedMoE does not support SM120 and above." when
# `get_sm_version() >= 120` (204-207), before any communication is built (the older copy
# too: 91-94 of 7b437aaa73). Without `without_comm` it selects (218-266):
# `select_alltoall_method_type` (289-316) gives NotEnabled at dp_size 1, under MoE TP or
# without MNNVL (291-299), a set TRTLLM_FORCE_ALLTOALL_METHOD by member name with DeepEP /
# DeepEPLowLatency raising NotImplementedError (301-310), else NVLinkOneSided (316);
# NVLinkOneSided builds MoeAlltoAll with `calculate_required_workspace_size(ep_size,
# experts_per_token, max_num_tokens, hidden_size, self.dtype or bfloat16, num_experts with a
# load balancer)` (235-258), the call CutlassFusedMoE makes (`cite_fact("moe_a2a_select")`).
PINS["fused_moe_trtllm_gen_fork"] = (
    "tensorrt_llm/_torch/modules/fused_moe/fused_moe_trtllm_gen.py",
    "69264cd3dda070a87d6f16500837d980e4ff5c45")
COUNTED_TO["fused_moe_trtllm_gen_fork"] = 326
CITES.update({
    "moe_trtllm_gen_sm": ("fused_moe_trtllm_gen_fork", "TRTLLMGenFusedMoE.__init__: "
                          "NotImplementedError on SM 120 and above", 0),
    "moe_trtllm_gen_select": ("fused_moe_trtllm_gen_fork", "TRTLLMGenFusedMoE.__init__ and "
                              "select_alltoall_method_type: CutlassFusedMoE's selection and "
                              "one-sided workspace", 0),
})
LINES.update({"moe_trtllm_gen_sm": (204, 207), "moe_trtllm_gen_select": (218, 316)})
TRTLLM_GEN_SM_BAR = 120


def moe_trtllm_gen_raises(sm: int | None) -> bool:
    """Whether TRTLLMGenFusedMoE's constructor raises on an SM `sm` GPU (None: not named, so
    not known to) (`cite_fact("moe_trtllm_gen_sm")`)."""
    return sm is not None and sm >= TRTLLM_GEN_SM_BAR


def moe_trtllm_gen_forced_method(value: str) -> str:
    """The method a bare TRTLLMGenFusedMoE's `select_alltoall_method_type` returns with
    TRTLLM_FORCE_ALLTOALL_METHOD set to `value`, past its NotEnabled tests: a member-name
    lookup (KeyError otherwise), NotImplementedError for the DeepEP methods, else the member
    (`cite_fact("moe_trtllm_gen_select")`, its lines 301-310)."""
    if value not in ALLTOALL_METHOD_TYPES:
        raise KeyError(value)
    if value in ("DeepEP", "DeepEPLowLatency"):
        raise NotImplementedError(
            "DeepEP and DeepEPLowLatency are not supported for CutlassFusedMoE yet")
    return value


def moe_wideep_method(forced: str | None, attention_dp: bool, tp: int, ep: int,
                      top_k: int, disable_alltoallv: str | None = None,
                      can_use_deep_ep: str | None = None) -> str:
    """The method WideEPMoE's `select_alltoall_method_type` returns where it does not turn on
    the hardware (`cite_fact("moe_wideep_select")`): a set TRTLLM_FORCE_ALLTOALL_METHOD
    first, by member name of WIDEEP_METHODS (KeyError for another name, NVLinkOneSided
    included); NotEnabled without attention DP, at TP 1, with TRTLLM_MOE_DISABLE_ALLTOALLV
    (`disable_alltoallv`, None: unset, read with a default of "0") "1", or with moe_ep_size <=
    top-k; else "MNNVL|DeepEP" when TRTLLM_CAN_USE_DEEP_EP (`can_use_deep_ep`, same reading)
    is "1" (MNNVL where supported, else DeepEP or DeepEPLowLatency where DeepEP is installed
    and the dtype is bfloat16, else NotEnabled) and "MNNVL|NotEnabled" otherwise (issue 23,
    s69h; the two switches s69o)."""
    if forced is not None:
        if forced not in WIDEEP_METHODS:
            raise KeyError(forced)
        return forced
    if not attention_dp or tp == 1:
        return "NotEnabled"
    if os_environ_get(disable_alltoallv, "0") == "1" or ep <= top_k:
        return "NotEnabled"
    if os_environ_get(can_use_deep_ep, "0") == "1":
        return "MNNVL|DeepEP"
    return "MNNVL|NotEnabled"


# The same copy (issue 23, s70f): past MNNVL, under TRTLLM_CAN_USE_DEEP_EP "1", a DeepEP method
# only when deep_ep_installed and dtype == torch.bfloat16 (301-302), DeepEP when
# is_deepep_feasible(moe_ep_size) (303-305), else DeepEPLowLatency (306); otherwise NotEnabled
# (308). is_deepep_feasible (268-280): local_mpi_size() as mpi_size; True when num_ranks ==
# mpi_size and num_ranks is in {2, 4, 8}; else False unless mpi_size == 8 and
# num_ranks // mpi_size is in {2, 4, 8, 16}. The constructor passes its `dtype` (187-189).
CITES.update({
    "moe_wideep_deep_ep": ("fused_moe_wide_ep", "WideEPMoE.select_alltoall_method_type: DeepEP "
                           "or DeepEPLowLatency for bfloat16 with DeepEP installed", 0),
    "moe_wideep_feasible": ("fused_moe_wide_ep", "select_alltoall_method_type's "
                            "is_deepep_feasible", 0),
})
LINES.update({"moe_wideep_deep_ep": (301, 308), "moe_wideep_feasible": (268, 280)})


def moe_wideep_deepep_feasible(num_ranks: int, mpi_size: int) -> bool:
    """`is_deepep_feasible(num_ranks)` with `local_mpi_size()` == `mpi_size`
    (`cite_fact("moe_wideep_feasible")`)."""
    if num_ranks == mpi_size and num_ranks in {2, 4, 8}:
        return True
    if mpi_size != 8:
        return False
    return num_ranks // mpi_size in {2, 4, 8, 16}


def moe_wideep_deep_ep(ep: int, dtype: str | None, installed: bool, mpi_size: int) -> str:
    """WideEPMoE's method past MNNVL with TRTLLM_CAN_USE_DEEP_EP "1"
    (`cite_fact("moe_wideep_deep_ep")`): `dtype` is the name of the torch dtype the layer gets
    (None: an untyped checkpoint), `installed` deep_ep_installed, `mpi_size` local_mpi_size()."""
    if installed and dtype == "bfloat16":
        if moe_wideep_deepep_feasible(ep, mpi_size):
            return "DeepEP"
        return "DeepEPLowLatency"
    return "NotEnabled"
