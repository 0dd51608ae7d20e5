"""The attention backends a pasted SGLang 0.5.23 line names for the target model runner and
the single-layer EAGLE draft-decode runner: their `get_cuda_graph_seq_len_fill_value()` pads
each runner's seq_lens (graphfit.planner.engines.sglang_seq_len_fill; aiter's fill is
speculative_num_draft_tokens, layers/attention/aiter_backend.py:370, 3416-3417).

* `decode_attention_backend`: `--decode-attention-backend`, else `--attention-backend`
  (`attention_backends_of`, arg_groups/model_override_base.py:138-152);
* `draft_attention_backend`: `--speculative-draft-attention-backend`, which the draft model
  runner takes as its own (`resolve_draft_attention_backend`, model_executor/model_runner.py:
  306-320) and the draft backend factory prefers (speculative/draft_utils.py:45, 55-61).

* `dsa_index_kpool`: the draft model's config.json `index_kpool` (`kpool_settings`; the
  draft is `--speculative-draft-model-path`, else the target, as SGLang defaults it for the
  DSA architectures, arg_groups/speculative_hook.py:1120-1145), which a DSA draft-extend
  backend reads (`get_dsa_index_kpool`, configs/model_config.py:530-531; dsa_backend.py:533).

The draft-extend backend is `mtp_draft_backend` (graphfit.inputs.sglang_mtp_backend). A
speculative line naming no `--attention-backend` gets SGLang's default base backend by GPU
and model (`settle`, graphfit.inputs.sglang_draft_default.default_target_backend: aiter on
ROCm, attention_hook.py) for each of the target, draft-decode and draft-extend runners whose
own flag it leaves out (split flags naming one backend for both phases make that the base,
overrides.py:1125-1139); where graphfit does not restate it the fill stays 1, with a note
(every CUDA backend's fill is 1 anyway: only ROCm's aiter differs).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from graphfit.inputs.settings import COMMAND_LINE, FILE, Resolved, Setting
from graphfit.planner.core.errors import ConfigError, excerpt


def line_settings(values: Mapping[str, Any]) -> list[Setting]:
    """The two settings the line's flags give (none for a flag it lacks)."""
    out = []
    decode = values.get("decode_attention_backend") or values.get("attention_backend")
    if isinstance(decode, str) and decode.strip():
        flag = ("--decode-attention-backend" if values.get("decode_attention_backend")
                else "--attention-backend")
        out.append(Setting("decode_attention_backend", decode.strip().lower(),
                           f"{flag} {decode} (model_override_base.py:138-152)", COMMAND_LINE))
    draft = values.get("speculative_draft_attention_backend")
    if isinstance(draft, str) and draft.strip():
        out.append(Setting("draft_attention_backend", draft.strip().lower(),
                           f"--speculative-draft-attention-backend {draft} "
                           f"(draft_utils.py:45, 55-61)", COMMAND_LINE))
    return [*out, *kpool_settings(values)]


def kpool_settings(values: Mapping[str, Any]) -> list[Setting]:
    """`dsa_index_kpool` from the draft model's config.json on a speculative line (module
    docstring): nothing for 1 / absent, a hub id or no speculation; a ConfigError for a value
    a DSA model's backend cannot use (its `> 1` test and page split, dsa_backend.py:533-534,
    want an integer >= 1; another architecture's value is never read: nothing)."""
    from graphfit.inputs.model_config import config_path, local_config
    from graphfit.inputs.reading import shown_path
    from graphfit.planner.engines.sglang_attn_default import DSA_ARCHITECTURES

    model = values.get("speculative_draft_model_path") or values.get("model_path")
    if not values.get("speculative_algorithm") or not isinstance(model, str):
        return []
    data = local_config(model)
    if data is None or "index_kpool" not in data:
        return []
    value = data["index_kpool"]
    where = f"{shown_path(config_path(model) or model)}: index_kpool"
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        archs = data.get("architectures")
        if not (isinstance(archs, list) and archs and archs[0] in DSA_ARCHITECTURES):
            return []
        raise ConfigError(f"{where}: expected an integer >= 1 (SGLang's DSA index kpool, "
                          f"dsa_backend.py:533-534), got {excerpt(value)}")
    if value == 1:
        return []
    return [Setting("dsa_index_kpool", value, f"{where} (the draft's DSA index kpool, "
                    f"configs/model_config.py:530-531)", FILE)]


def settle(line: Mapping[str, Any], resolved: Resolved, gpu_given: object) -> Resolved:
    """A speculative line naming no `--attention-backend`: SGLang's default base backend
    (module docstring; chosen whenever the base is unset and the split flags do not name one
    backend for both phases, `_attention_backend_default`, overrides.py:1125-1139) for every
    runner whose own flag the line leaves out: the target's decode backend and, where nothing
    set it yet, the draft-extend one (`attention_backends_of` falls back to the base for each
    phase, model_override_base.py:138-152; draft_utils.py:47-66)."""
    from graphfit.inputs.sglang_draft_default import default_target_backend, multi_layer_line

    values = resolved.values
    prefill = line.get("prefill_attention_backend")
    if (not line.get("speculative_algorithm") or line.get("attention_backend")
            or (prefill and prefill == line.get("decode_attention_backend"))
            or ("decode_attention_backend" in values and "mtp_draft_backend" in values)):
        return resolved
    name = default_target_backend(line, gpu_given)
    said = f"SGLang's default attention backend for this GPU and model: {name}"
    if name is None:
        from graphfit.inputs.sglang_draft_default import rocm_by_class

        name = rocm_by_class(line, values.get("architecture"), gpu_given)
        said = (f"SGLang's default attention backend on ROCm for {values.get('architecture')} "
                f"(--architecture; no local config.json): {name}")
    if name is None:
        return _unknown_on_rocm(resolved, gpu_given)
    new = {} if "decode_attention_backend" in values else {"decode_attention_backend": name}
    if "mtp_draft_backend" not in values and not multi_layer_line(values):
        # (multi-layer EAGLE's is sglang_draft_default's, which may keep the per-step bound)
        new["mtp_draft_backend"] = name
    return replace(resolved, values=MappingProxyType({**values, **new}),
                   origins=MappingProxyType({**resolved.origins, **dict.fromkeys(new, said)}))


def _unknown_on_rocm(resolved: Resolved, gpu_given: object) -> Resolved:
    """A note when SGLang's default backend is not restated on a ROCm GPU: there it may be
    aiter (MHA models; MLA ones with 16 or 128 KV heads per rank, model_override_base.py:
    325-346), whose fill is the draft tokens, not the 1 graphfit then plans. (On a CUDA GPU
    every backend SGLang may pick fills 1: no note.)"""
    from graphfit.inputs.gpus import gpu_name
    from graphfit.inputs.sglang_draft_default import ROCM

    if gpu_name(gpu_given) not in ROCM:
        return resolved
    note = ("seq_lens fills: SGLang's default attention backend on ROCm (aiter for MHA "
            "models, model_override_base.py:325-346) is not restated for this line (no local "
            "config.json, or a model override): graphfit pads with 1; name --attention-backend "
            "(or, without a config.json, graphfit's --architecture)")
    return replace(resolved, notes=(*resolved.notes, note))
