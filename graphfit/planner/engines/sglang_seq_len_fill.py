"""The `seq_lens` padding fill of each SGLang 0.5.23 graph runner: its attention backend's
`get_cuda_graph_seq_len_fill_value()`.

Every runner pads the `seq_lens` / `seq_lens_cpu` rows of a padded batch with the fill its
backend names, and the target's flat tree mask is sized from it too (`custom_mask`:
`(max_bs * fill + max_num_token) * width`, model_executor/runner_utils/buffers.py:171-174):

* the target decode / target-verify runner: the model runner's backend
  (`seq_len_fill_value`, model_executor/runner/decode_cuda_graph_runner.py:433-434; the
  hybrid prefill/decode wrapper answers with its decode backend,
  layers/attention/hybrid_attn_backend.py:156-159), i.e. `--decode-attention-backend`, else
  `--attention-backend` (arg_groups/model_override_base.py:138-152);
* the single-layer EAGLE draft-decode runner: its multi-step backend's first step
  (speculative/eagle_draft_cuda_graph_runner.py:165-167), made by
  `DraftBackendFactory.create_decode_backend` from `--speculative-draft-attention-backend`,
  else the decode backend (speculative/draft_utils.py:47-66, 85-118);
* the single-layer EAGLE draft-extend runner (`resolve_draft_extend_seq_len_fill_value`,
  speculative/eagle_draft_extend_cuda_graph_runner.py:62-71, 160) and multi-layer EAGLE's
  composite (multi_layer_eagle_draft_extend_cuda_graph_runner.py:209-211, 595): the
  draft-extend backend (`create_draft_extend_backend`, draft_utils.py:120-149), which
  `SglangOptions.mtp_draft_backend` names.

Every CUDA / ROCm backend answers 1 (flashinfer_backend.py:1353-1354, triton_backend.py:
1440-1441, flashattention_backend.py:3393-3395, trtllm_mha_backend.py:1054-1056, ...) except
aiter, which answers its `num_draft_tokens` (layers/attention/aiter_backend.py:3416-3417),
set from the process-wide `speculative_num_draft_tokens` in its constructor (:370): None (so
1) without speculative decoding, else the tokens one request verifies, for the target and
the draft backends alike. Ascend (NPU) answers 0
(hardware_backend/npu/attention/ascend_backend.py:1132-1133).

The single-layer EAGLE draft-extend runner then raises its backend's fill when that backend
pools the DSA index (`resolve_draft_extend_seq_len_fill_value`,
eagle_draft_extend_cuda_graph_runner.py:62-71): a backend (or the `full_attn_backend` it
wraps) whose `dsa_index_kpool` is above 1 pads with at least the captured width
(`speculative_num_draft_tokens`, speculative/spec_utils.py:102-103; runner :153, 160) + that
kpool. Only `DeepseekSparseAttnBackend` holds the attribute (dsa_backend.py:533:
`get_dsa_index_kpool`, the draft model's config.json `index_kpool`, default 1,
configs/model_config.py:530-531); the draft-extend factory builds it for `dsa` and its alias
`nsa` (draft_utils.py:139-140, 214-218), and the only wrapper it applies (Inkling, Dots3:
attention_registry.py:310-326) wraps no DSA model. Multi-layer EAGLE's composite takes the
step backends' plain fill (multi_layer_eagle_draft_extend_cuda_graph_runner.py:209-211), so
the kpool rule is the single-layer runner's alone.
"""

from __future__ import annotations

from graphfit.planner.core.enums import SpecMethod
from graphfit.planner.core.settings import EngineSettings

AITER = "aiter"
# backends whose fill is not 1, with where SGLang says so
ZERO_FILL = frozenset({"ascend"})  # ascend_backend.py:1132-1133
# draft-extend backends that are DeepseekSparseAttnBackend (draft_utils.py:139-140, 214-218)
DSA_BACKENDS = frozenset({"dsa", "nsa"})


def backend_fill(backend: str | None, num_draft_tokens: int | None) -> int:
    """`get_cuda_graph_seq_len_fill_value()` of the backend named `backend` (None: not
    known, every backend graphfit plans for but aiter and ascend answers 1), in a process
    whose resolved `speculative_num_draft_tokens` is `num_draft_tokens` (None without
    speculative decoding)."""
    if backend == AITER:
        return 1 if num_draft_tokens is None else num_draft_tokens  # aiter_backend.py:3417
    if backend in ZERO_FILL:
        return 0
    return 1


def num_draft_tokens(config: EngineSettings) -> int | None:
    """SGLang's resolved `speculative_num_draft_tokens` as the backends read it
    (`get_spec()`, aiter_backend.py:370): None without speculative decoding."""
    if config.spec_method is SpecMethod.NONE:
        return None
    return config.uniform_query_len


def target_backend(config: EngineSettings) -> str | None:
    """The target model runner's decode backend: `--decode-attention-backend`, else
    `--attention-backend` (model_override_base.py:138-152); None when neither is known."""
    return config.decode_attention_backend


def draft_decode_backend(config: EngineSettings) -> str | None:
    """The single-layer EAGLE draft-decode backend: `--speculative-draft-attention-backend`,
    else the decode backend (draft_utils.py:45, 55-61)."""
    return config.draft_attention_backend or config.decode_attention_backend


def target_fill(config: EngineSettings) -> int:
    """The target decode / target-verify runner's seq_lens fill."""
    return backend_fill(target_backend(config), num_draft_tokens(config))


def draft_decode_fill(config: EngineSettings) -> int:
    """The single-layer EAGLE draft-decode runner's seq_lens fill."""
    return backend_fill(draft_decode_backend(config), num_draft_tokens(config))


def draft_extend_fill(config: EngineSettings) -> int:
    """The single-layer EAGLE draft-extend runner's seq_lens fill: its backend's, raised to
    the captured width + the DSA index kpool when that backend is DSA and the kpool is above
    1 (module docstring; multi-layer EAGLE's composite: sglang_spec_runners.mtp_seq_len_fill)."""
    drafts = num_draft_tokens(config)
    fill = backend_fill(config.mtp_draft_backend, drafts)
    kpool = config.dsa_index_kpool
    if config.mtp_draft_backend in DSA_BACKENDS and kpool > 1 and drafts is not None:
        fill = max(fill, drafts + kpool)  # eagle_draft_extend_cuda_graph_runner.py:68-70
    return fill
