"""SGLang 0.5.23's checks of the linear-attention kernels on SM100 and later GPUs
(`handle_linear_attn_backend`, arg_groups/attention_hook.py:281-395, run for every model at
pipeline.py:253; issue 23 s44m). They read the flags as given: nothing earlier in the pipeline
sets `--mamba-ssm-dtype` (the ReplaySSM default of attention_hook.py:506-516 comes later), and
the SM100 default decode kernel (flashinfer, :289-307) is picked only with bfloat16 state, so
it never trips them:

* the decode kernel, `--linear-attn-decode-backend` else `--linear-attn-backend` (:310; an
  inherited flashkda becomes triton, :316-330), flashinfer on a GPU of compute capability 10 or
  more needs `--mamba-ssm-dtype bfloat16` (:334-345);
* the verify kernel, `--linear-attn-verify-backend`, else flashinfer when the decode kernel is
  (:347-349), likewise (:367-377). Under SGLANG_ENABLE_PP_SPEC a KDA model's verify kernel
  becomes triton first (:350-366): the environment is not read here, so for a KDA model
  (Kimi-Linear, Kimi-K3) that check is noted instead;
* the prefill kernel, `--linear-attn-prefill-backend` else `--linear-attn-backend`, flashinfer
  there needs CUDA 13 (:381-395): a fact of the serving machine's torch build graphfit is not
  given, noted.

Why: SGLang refuses such a line at start-up, and graphfit planned it. None of these kernels
changes a graph buffer graphfit plans. The GPU is the one graphfit is given (a figure in GiB
leaves its generation unknown: noted)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from graphfit.inputs.gpus import GPU_CAPABILITY_MAJOR, gpu_name
from graphfit.inputs.settings import Resolved
from graphfit.planner.core.errors import ConfigError

HOOK = "SGLang arg_groups/attention_hook.py"
BF16 = "bfloat16"


def _name(values: Mapping[str, Any], key: str) -> str | None:
    value = values.get(key)
    return value.strip().lower() if isinstance(value, str) and value.strip() else None


def kernels(values: Mapping[str, Any]) -> tuple[str, str | None, str]:
    """(decode, verify, prefill) kernels as `handle_linear_attn_backend` reads them, leaving
    out the SM100 bfloat16 default (it needs bfloat16 state, which passes the checks) and the
    verify kernel a flashinfer decode implies (the decode check refuses first)."""
    base = _name(values, "linear_attn_backend") or "triton"  # fields/exec_.py:542-548
    decode = _name(values, "linear_attn_decode_backend") or base
    if decode == "flashkda":  # an explicit one is refused earlier (sglang_unified_linear)
        decode = "triton"
    # an unset verify kernel follows a flashinfer decode (:347-349), whose own check has
    # refused the line first wherever the verify check would: only the flag can trip it
    verify = _name(values, "linear_attn_verify_backend")
    return decode, verify, _name(values, "linear_attn_prefill_backend") or base


def settle(values: Mapping[str, Any], resolved: Resolved, gpu_given: object) -> Resolved:
    """The checks (module docstring) once the GPU is known: refused with SGLang's words on a
    named GPU of compute capability 10 or more; noted where the GPU is a figure in GiB."""
    notes = check(values, resolved.values.get("architecture"), gpu_given)
    return replace(resolved, notes=(*resolved.notes, *notes)) if notes else resolved


def check(values: Mapping[str, Any], architecture: object, gpu_given: object) -> list[str]:
    """The notes of `settle`, or ConfigError with SGLang's words (module docstring)."""
    decode, verify, prefill = kernels(values)
    dtype = _name(values, "mamba_ssm_dtype")
    wrong = [(kind, lines) for kind, kernel, lines in (("decode", decode, "334-345"),
                                                        ("verify", verify, "367-377"))
             if kernel == "flashinfer" and dtype != BF16]
    if not wrong and prefill != "flashinfer":
        return []
    name = gpu_name(gpu_given)
    major = GPU_CAPABILITY_MAJOR.get(name) if name else None
    if name and major is None:  # not CUDA's (get_platform().is_cuda is False)
        return []
    if major is not None and major < 10:
        return []
    notes: list[str] = []
    for kind, lines in wrong:
        text = (f"--linear-attn-{kind}-backend flashinfer on SM100+ requires --mamba-ssm-dtype "
                f"bfloat16, got {dtype!r} ({HOOK}:{lines})")
        if major is not None and not (kind == "verify" and _pp_spec_kda(architecture)):
            raise ConfigError(text[:200])
        notes.append(f"{text} (where the GPU is SM100 or later; a KDA model's verify kernel is "
                     f"triton under SGLANG_ENABLE_PP_SPEC)" if major is not None else
                     f"{text} (where the GPU is SM100 or later: name it to check)")
    if prefill == "flashinfer":
        notes.append(f"--linear-attn-prefill-backend flashinfer: SGLang refuses it on SM100+ "
                     f"unless its torch is built for CUDA 13+ ({HOOK}:381-395)"
                     + ("" if major is not None else " (on a GPU of compute capability 10+)"))
    return notes


LIVE_KEYS = ("linear_attn_backend", "linear_attn_decode_backend", "linear_attn_verify_backend",
             "linear_attn_prefill_backend", "mamba_ssm_dtype")


def live(server_args: Any, architecture: object, gpu_given: object) -> None:
    """The live path's form (graphfit.integrations.sglang.from_sglang, issue 23 s45m): a
    ServerArgs' fields are the flags as given (resolution declares into
    `_resolved_overrides`, arg_groups/overrides.py:110-134), which is what
    `handle_linear_attn_backend` reads; checked where the caller names the GPU
    (`gpu_memory_gb="B200"`), ConfigError with SGLang's words where it refuses. The notes
    (CUDA 13, a figure in GiB) have no place on that path."""
    if gpu_name(gpu_given):  # a mapping of fields, or the ServerArgs object
        fields = {key: server_args.get(key) if isinstance(server_args, Mapping)
                  else getattr(server_args, key, None) for key in LIVE_KEYS}
        check(fields, architecture, gpu_given)


def _pp_spec_kda(architecture: object) -> bool:
    """Whether the verify kernel may have become triton first: SGLANG_ENABLE_PP_SPEC
    (layers/attention/linear/utils.py:16-17) with a KDA model (:350-366). The environment is
    not read here, so a KDA model's verify check is noted rather than refused."""
    from graphfit.planner.engines.sglang_mamba_pool import KDA_ARCHITECTURES

    return architecture in KDA_ARCHITECTURES


__all__ = ["LIVE_KEYS", "check", "kernels", "live", "settle"]
