"""SGLang 0.5.23's own rules across keys of a pasted line that graphfit's fields do not hold:
what it refuses at start-up about speculative decoding, and what a disaggregation role turns
off.

Refusals (arg_groups/speculative_hook.py), checked on the values SGLang settles (the draft
tree's topk comes from the engine model when the line leaves it open, as SGLang's own
auto-parameters come before these checks, :1165-1174):

* `trtllm_mha` as the prefill or decode attention backend with topk > 1 (:1176-1180);
* `--speculative-use-rejection-sampling` with an algorithm other than EAGLE / EAGLE3 /
  NEXTN (:1215-1219: STANDALONE), with topk != 1 (:1222-1224), or with an accept threshold
  other than 1.0 (:1232-1240);
* `--speculative-adaptive` where SGLang keeps it on (`adaptive_fallback`): planned with one
  graph set per candidate step (graphfit.planner.engines.sglang_adaptive); where SGLang
  turns it off, the static line is planned;
* topk > 1 with page size > 1 on a backend outside flashinfer / fa3 / triton (EAGLE family,
  :1271-1282) or outside flashinfer (NGRAM, :1355-1365). Only a backend named on the line is
  checked: SGLang's automatic choice depends on the GPU.

Roles (arg_groups/cuda_graph_hook.py:557-576): `--disaggregation-mode prefill` disables the
decode graphs unless a decode backend was given explicitly (`_cuda_graph_config_locked`,
:32-101); `decode` disables the prefill graphs unless a prefill backend was given (the
engine model's rule on the `disaggregation_mode` field, graphfit.planner.engines.sglang_prefill).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs.settings import COMMAND_LINE, Setting
from graphfit.inputs.sglang import REJECTION_SAMPLING
from graphfit.planner.config import EngineConfig
from graphfit.planner.core.enums import CUDAGraphMode, SpecMethod
from graphfit.planner.core.errors import ConfigError

HOOK = "speculative_hook.py"
EAGLE_FAMILY = frozenset({SpecMethod.EAGLE, SpecMethod.EAGLE3, SpecMethod.MTP,
                          SpecMethod.DRAFT_MODEL})
PAGE_TREE_BACKENDS = ("flashinfer", "fa3", "triton")  # _PAGE_TREE_SPEC_BACKENDS, :1271
DECODE_BACKEND_KEYS = ("disable_cuda_graph", "disable_decode_cuda_graph",
                       "cuda_graph_backend_decode")
ROLE = "--disaggregation-mode"


def _backends(values: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """`attention_backends_of` (model_override_base.py:138-152): (prefill, decode)."""
    base = values.get("attention_backend")
    return (values.get("prefill_attention_backend") or base,
            values.get("decode_attention_backend") or base)


ADAPTIVE = "speculative/adaptive_spec_params.py"
ADAPTIVE_STATES = "eagle_worker_v2.py:1387-1414, 1777-1859"


def adaptive_fallback(values: Mapping[str, Any], fields: Mapping[str, Any]) -> str | None:
    """Why SGLang turns `--speculative-adaptive` off and runs the static parameters
    (`adaptive_unsupported_reason`, adaptive_spec_params.py:57-101, applied by
    `_maybe_disable_adaptive`, speculative_hook.py:1374-1389); None: it stays on.
    `values`: the line's SGLang arguments; `fields`: graphfit's settled fields (before the
    engine model resolves them: adaptive speculation fills topk 1 itself, :1392-1414)."""
    from graphfit.planner.engines.sglang_spec_runners import AUTO_ARCHITECTURES

    method = SpecMethod(fields.get("spec_method") or SpecMethod.NONE)
    if method not in (SpecMethod.EAGLE, SpecMethod.EAGLE3, SpecMethod.MTP) or (
            fields.get("frozen_kv_mtp")):  # NEXTN is EAGLE by then (speculative_hook.py:109)
        return "only EAGLE / EAGLE3 are supported"
    if values.get("speculative_eagle_topk") not in (None, 1):
        return "only topk 1 is supported"
    if (fields.get("attn_dp_size") or 1) > 1:
        return "attention DP is not supported"
    if values.get("enable_multi_layer_eagle") or (
            method is not SpecMethod.EAGLE3 and fields.get("architecture") in AUTO_ARCHITECTURES):
        return "multi-layer EAGLE does not implement it"
    if fields.get("two_batch_overlap"):
        return "two-batch overlap is not supported"
    if values.get("enable_pdmux"):
        return "PD multiplexing is not supported"
    return None


def needs_check(values: Mapping[str, Any]) -> bool:
    """Whether the line holds anything these refusals look at (else no config is built)."""
    page = values.get("page_size")
    return (bool(values.get("speculative_use_rejection_sampling"))
            or bool(values.get("speculative_adaptive"))
            or "trtllm_mha" in _backends(values)
            or (isinstance(page, int) and page > 1))


def refuse(values: Mapping[str, Any], config: EngineConfig) -> None:
    """Raise SGLang's refusal (its own words first, then where) for the settled config."""
    method, topk = config.spec_method, config.speculative_eagle_topk or 1
    if method is SpecMethod.NONE:
        return
    if method in EAGLE_FAMILY and topk > 1 and "trtllm_mha" in _backends(values):
        raise ConfigError(f"use --speculative-eagle-topk 1 or another attention backend: "
                          f"trtllm_mha supports only topk 1, got {topk} (SGLang refuses, "
                          f"{HOOK}:1176-1180)")
    if values.get("speculative_use_rejection_sampling") and method in EAGLE_FAMILY:
        if method is SpecMethod.DRAFT_MODEL:
            raise ConfigError("drop --speculative-use-rejection-sampling: it is for EAGLE / "
                              f"EAGLE3 / NEXTN only, not STANDALONE (SGLang refuses, "
                              f"{HOOK}:1215-1219)")
        if topk != 1:
            raise ConfigError(f"use --speculative-eagle-topk 1 with "
                              f"--speculative-use-rejection-sampling (topk is {topk}; SGLang "
                              f"refuses, {HOOK}:1222-1224)")
        for key in ("speculative_accept_threshold_single", "speculative_accept_threshold_acc"):
            value = values.get(key)
            if value is not None and value != 1.0:
                raise ConfigError(f"drop --{key.replace('_', '-')}: rejection sampling "
                                  f"ignores accept thresholds (SGLang refuses, "
                                  f"{HOOK}:1232-1240)")
    if values.get("speculative_use_rejection_sampling"):
        # a line SGLang's own checks above let through: graphfit does not plan rejection
        # sampling's buffers
        raise ConfigError("--speculative-use-rejection-sampling: True is not modelled "
                          f"({REJECTION_SAMPLING})")
    page = values.get("page_size")
    backend = values.get("attention_backend")
    if not (isinstance(page, int) and page > 1 and topk > 1 and backend):
        return
    if method is SpecMethod.UNO:
        return  # `_handle_uno` has no page-size rule (speculative_hook.py:449-611)
    allowed = PAGE_TREE_BACKENDS if method in EAGLE_FAMILY else ("flashinfer",)
    where = "1271-1282" if method in EAGLE_FAMILY else "1355-1365"
    if backend not in allowed:
        raise ConfigError(f"use --page-size 1 or --attention-backend {' / '.join(allowed)}: "
                          f"topk {topk} with page size {page} is unsupported on {backend} "
                          f"(SGLang refuses, {HOOK}:{where})")


def refuse_adaptive(values: Mapping[str, Any], fields: Mapping[str, Any]) -> str | None:
    """`--speculative-adaptive`: where SGLang keeps it on, the note that graphfit plans one
    graph set per candidate step (the caller sets the `speculative_adaptive` option;
    a custom `--speculative-adaptive-config` is not modelled: raised); else the note that
    SGLang turns it off, or None when the line does not ask for it."""
    if not values.get("speculative_adaptive"):
        return None
    why = adaptive_fallback(values, fields)
    if why is None:
        if values.get("speculative_adaptive_config") is not None:
            raise ConfigError("--speculative-adaptive-config: a custom candidate-step file "
                              f"is not modelled; drop it to plan SGLang's built-in one "
                              f"({ADAPTIVE}:28-53, 104-139)")
        return (f"--speculative-adaptive: SGLang keeps it on; graphfit plans one graph set "
                f"per candidate step ({ADAPTIVE_STATES})")
    return (f"--speculative-adaptive: SGLang turns it off ({why}) and runs the static "
            f"parameters ({ADAPTIVE}:57-101)")


def role_settings(values: Mapping[str, Any]) -> tuple[list[Setting], list[str]]:
    """What a disaggregation role turns off (module docstring)."""
    mode = values.get("disaggregation_mode")
    if mode == "prefill":
        if any(values.get(k) not in (None, False) for k in DECODE_BACKEND_KEYS) or (
                _json_decode_backend(values.get("cuda_graph_config"))):
            return [], [f"{ROLE} prefill: the decode backend given on the line is kept "
                        "(cuda_graph_hook.py:557-566)"]
        return ([Setting("cudagraph_mode", CUDAGraphMode.NONE, f"{ROLE} prefill",
                         COMMAND_LINE, weak=True)],
                [f"{ROLE} prefill: a prefill server captures no decode graphs "
                 "(cuda_graph_hook.py:557-566)"])
    if mode == "decode":
        return [], [f"{ROLE} decode: a decode server captures no prefill graphs unless a "
                    "prefill backend is given (cuda_graph_hook.py:567-576)"]
    return [], []


def _json_decode_backend(value: Any) -> bool:
    import json

    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            return False
    decode = value.get("decode") if isinstance(value, dict) else None
    return isinstance(decode, dict) and decode.get("backend") is not None
