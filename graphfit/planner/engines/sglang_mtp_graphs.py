"""How many graphs SGLang 0.5.23 captures for multi-layer EAGLE's draft-extend steps.

The multi-layer EAGLE worker captures ONE graph per batch size for all draft steps (the
single-CG runner) only when both hold (`_capture_cuda_graphs`,
speculative/multi_layer_eagle_worker_v2.py:431-451):

* `SGLANG_ENABLE_SINGLE_CG_DRAFT` is on (environ.py:1921, on by default; an unparsable
  value falls back to the default, environ.py:67-86), and
* every step's draft-extend attention backend refreshes its replay metadata inside the graph
  (`draft_extend_metadata_captured_in_graph`) or stages it
  (`supports_draft_extend_metadata_staging`). The base backend does neither
  (layers/attention/base_attn_backend.py:153-160); FlashAttention (`fa3`, `fa4`: both build
  `FlashAttentionBackend`, speculative/draft_utils.py:482-502) refreshes in the graph unless
  its KV index translates (a unified mamba / SWA allocator or a fused draft pool,
  mem_cache/kv_index_translator.py:136-147) or its sliding-window pool has no mapping tensor
  (flashattention_backend.py:553-560; staging, :531-537, needs the same plus topk 1, so it
  never adds a case). No other backend overrides either capability.

Otherwise every step captures its own graph at every size: steps x sizes graphs.

Which backend the draft-extend steps run (`DraftBackendFactory.create_draft_extend_backend`
and `_create_backend`, draft_utils.py:47-66, 122-154) is the line's
`--speculative-draft-attention-backend`, else the prefill attention backend (the decode one
with `--speculative-attention-mode decode`), each falling back to `--attention-backend`
(`attention_backends_of`, arg_groups/model_override_base.py:138-152). `hybrid_linear_attn`
builds FlashAttention except on Blackwell (triton) and AMX CPUs (draft_utils.py:281-286).
graphfit reads that name from the line (graphfit.inputs.sglang_mtp_backend) into
`SglangOptions.mtp_draft_backend`.

Assumed, and said in the plan's note: a plain full-attention KV pool (no translating index,
no sliding-window pool), a GPU other than Blackwell for `hybrid_linear_attn`, no Qwen sparse
attention draft (its own `QwenSparseAttnBackend`, draft_utils.py:123-124, 171-181: per step)
and no hook that names the draft backend itself (SM100 NVFP4 and Kimi-K3 pick `trtllm_mha`,
arg_groups/kv_cache_hook.py:215-224, kimi_k3_hook.py:50: per step). With no backend on the
line SGLang picks one by GPU and model: graphfit.inputs.sglang_draft_default restates it
(graphfit.planner.engines.sglang_attn_default) when the GPU is named and the model's config.json
is local; otherwise (backend None here) the count is per step (the larger), saying so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.core.settings import EngineSettings

WORKER = "multi_layer_eagle_worker_v2.py:431-451"
# `create_draft_extend_backend`'s backend map (speculative/draft_utils.py:126-144); any other
# name is refused there: "EAGLE is not supported in attention backend ..." (:63-64)
DRAFT_EXTEND_BACKENDS = frozenset({
    "flashinfer", "triton", "intel_amx", "intel_xpu", "aiter", "fa3", "hybrid_linear_attn",
    "flashmla", "trtllm_mha", "trtllm_mla", "cutedsl_mla", "dsa", "nsa", "ascend", "fa4",
    "dsv4",
})
# the names that build FlashAttentionBackend for the draft-extend steps (module docstring)
FLASH_ATTENTION = frozenset({"fa3", "fa4", "hybrid_linear_attn"})
# the server-args keys `draft_extend_backend` reads
BACKEND_KEYS = ("speculative_draft_attention_backend", "speculative_attention_mode",
                "prefill_attention_backend", "decode_attention_backend", "attention_backend")
_NAME = re.compile(r"[a-z][a-z0-9_]{0,39}")


def check_draft_extend_backend(value: object) -> str:
    """An attention backend name (lower case), else ConfigError. Names outside
    DRAFT_EXTEND_BACKENDS are kept here (the option is read only for multi-layer EAGLE):
    SGLang refuses them when that worker starts (draft_utils.py:63-64), and so does
    `mtp_graph_count`."""
    return backend_name("mtp_draft_backend", value)


def backend_name(field: str, value: object) -> str:
    """An attention backend name (lower case) for the option `field`, else ConfigError."""
    if not isinstance(value, str) or not _NAME.fullmatch(value.strip().lower()):
        raise ConfigError(f"{field}: expected an attention backend name, got "
                          f"{excerpt(value)}")
    return value.strip().lower()


def draft_extend_backend(values: Mapping[str, Any]) -> tuple[str, str] | None:
    """(backend name, the flag that gave it) for the draft-extend steps from SGLang's
    server-args keys (a pasted line's or a live server's); None when none is named (module
    docstring: `_create_backend`, draft_utils.py:47-66, 145-149)."""
    draft = values.get("speculative_draft_attention_backend")
    if draft:
        return str(draft), "--speculative-draft-attention-backend"
    phase = "decode" if values.get("speculative_attention_mode") == "decode" else "prefill"
    split = values.get(f"{phase}_attention_backend")
    if split:
        return str(split), f"--{phase}-attention-backend"
    base = values.get("attention_backend")
    if base:
        return str(base), "--attention-backend"
    return None


@dataclass(frozen=True)
class MtpGraphCount:
    """`per_size` graphs at each capture size (1: the single-CG runner; else one per step),
    and why, in SGLang's words and places."""

    per_size: int
    why: str

    def __post_init__(self) -> None:
        if isinstance(self.per_size, bool) or not isinstance(self.per_size, int) or (
                self.per_size < 1):
            raise ConfigError(f"per_size: must be an int >= 1, got {excerpt(self.per_size)}")


def mtp_graph_count(config: EngineSettings) -> MtpGraphCount:
    """The draft-extend graphs per capture size SGLang captures (module docstring); a backend
    SGLang's draft-extend factory refuses is refused (ConfigError), graphs on or off."""
    steps = config.num_speculative_tokens
    backend = config.mtp_draft_backend
    if backend is not None and backend not in DRAFT_EXTEND_BACKENDS:
        raise ConfigError(f"use another attention backend for the draft: SGLang's EAGLE "
                          f"draft-extend refuses {backend} when the worker starts "
                          f"(speculative/draft_utils.py:63-64, 126-144)")
    if not config.single_cg_draft:
        return MtpGraphCount(steps, f"SGLANG_ENABLE_SINGLE_CG_DRAFT off: one graph per step "
                                    f"({WORKER})")
    if backend is None:
        return MtpGraphCount(steps, "no draft attention backend known (SGLang's default is "
                                    "restated for a named GPU and a local config.json: "
                                    "graphfit.inputs.sglang_draft_default): counted per step "
                                    "(the most); pass --attention-backend to be sure")
    if backend in FLASH_ATTENTION:
        return MtpGraphCount(1, f"draft-extend backend {backend} refreshes its metadata in "
                                f"the graph: one graph for all steps ({WORKER}; assumes a "
                                f"plain full-attention KV pool"
                                + (", not Blackwell" if backend == "hybrid_linear_attn"
                                   else "") + ")")
    return MtpGraphCount(steps, f"draft-extend backend {backend} neither refreshes nor "
                                f"stages its metadata in the graph: one graph per step "
                                f"({WORKER}, base_attn_backend.py:153-160)")
