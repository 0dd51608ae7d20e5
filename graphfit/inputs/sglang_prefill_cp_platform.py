"""SGLang 0.5.23's platform refusal of prefill context parallelism on ROCm (issue 23 s55g).

`handle_context_parallelism` (arg_groups/parallel_hook.py:95-121) refuses `--enable-prefill-cp`
on a HIP platform for every architecture but DeepseekV4ForCausalLM: "Prefill CP on HIP is
only supported for DeepseekV4ForCausalLM, got '<arch>'." (:114-121). graphfit reads the
platform off the named GPU (an AMD Instinct name is ROCm, graphfit.inputs.sglang_draft_default.
ROCM), which it knows only once the GPU is settled (graphfit.inputs.line_defaults.settle; a
config file's settle in graphfit.cli.options), after the line's other prefill-CP reading
(graphfit.inputs.sglang_prefill_cp.line). A line it plans is refused at settle, as SGLang
refuses it.

SGLang meets the HIP check after the model-specific adjustments (pipeline.py:225), data
parallelism (:274) and the boundary check (LongCat, parallel_hook.py:78-81), and before the
V3.2 / MiMo-V2 / CP-TP sharing / strategy checks and the width asserts (:123-192). So the
reading's refusals and "not modelled" from that point on are `AfterHip` (issue 23 s60r): a
ConfigError that names the architecture; graphfit.cli.options.read_pasted, which knows the
GPU flag, hands it to `after_hip`, which gives SGLang's HIP sentence on a named ROCm GPU
(and the reading's own answer elsewhere).

MUSA's refusal (`validate_prefill_cp_platform`, :819-826) is not restated: graphfit names no
MUSA GPU, so no line reaches it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs.model_config import local_config
from graphfit.inputs.sglang_prefill_cp_hook_line import (
    OVERRIDE_READS,
    HookLine,
    default_base,
    hook_line,
    renamed,
)
from graphfit.planner.core.errors import ConfigError

DEEPSEEK_V4 = "DeepseekV4ForCausalLM"  # parallel_hook.py:117


def check(values: Mapping[str, Any], gpu_given: object) -> None:
    """For a prefill-CP line graphfit plans: on a named GPU the attention hook's refusal of
    its backends (`attention_first`, issue 23 s66p: a config file's line meets no other
    reading of them), then on a named ROCm GPU SGLang's HIP refusal (module docstring) where
    the local config.json names an architecture other than DeepSeek-V4; nothing where
    graphfit cannot tell."""
    from graphfit.inputs.gpus import gpu_name
    from graphfit.inputs.sglang_draft_default import ROCM

    if values.get("enable_prefill_cp") is not True:
        return
    model = values.get("model_path")
    data = local_config(model) if isinstance(model, str) else None
    found = data.get("architectures") if data is not None else None
    arch = found[0] if isinstance(found, list) and found and isinstance(found[0], str) else None
    first = attention_first(hook_line(values) if arch != DEEPSEEK_V4 else None, gpu_given)
    if first is not None:
        raise first
    if arch is None or arch == DEEPSEEK_V4 or gpu_name(gpu_given) not in ROCM:
        return
    raise ConfigError(_hip_sentence(arch))


def backends_of(values: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """The line's prefill and decode attention backends as given (`attention_backends_of`,
    model_override_base.py:138-152); None where a phase's is left to SGLang's default, which
    is never trtllm_mha on ROCm (graphfit.planner.engines.sglang_rocm_default)."""
    hook = hook_line(values)
    return hook.prefill or hook.base, hook.decode or hook.base


def attention_first(hook: HookLine | None, gpu_given: object) -> ConfigError | None:
    """On a named GPU, the attention hook's refusal of the line's backends (trtllm_mla and
    cutedsl_mla off their GPUs or KV dtypes, trtllm_mha per phase, FMHAv2's fp8_e4m3 or
    skip-softmax prefill on SM120: graphfit.planner.engines.sglang_backend_checks.
    attention_hook; the base SGLang's default writes, `default_base`, issue 23 s67p), which SGLang
    meets (pipeline.py:242) before the DP refusal (:274) and the CP hook (:278): its HIP
    check on ROCm (issue 23 s64p for trtllm_mha, s66p for the rest); else None (no hook:
    a DeepSeek-V4 line, whose model hook sets its own backends first)."""
    from graphfit.inputs.sglang_draft_default import gpu_kind
    from graphfit.planner.engines.sglang_backend_checks import attention_hook

    gpu = gpu_kind(gpu_given)
    if hook is None or gpu is None:
        return None
    from graphfit.inputs.sglang_kv_auto import resolved as resolved_kv
    from graphfit.inputs.sglang_prefill_cp_hook_set import hook_set, kv4_checks
    from graphfit.inputs.sglang_skip_softmax import line_active

    kv = resolved_kv(hook.kv_cache_dtype, hook.kv_rule, gpu)  # the model's `auto` (s67p)
    try:  # the pasted line's skip-softmax variable (graphfit.inputs.sglang_skip_softmax)
        # the set the override, the nvfp4 hook and the default leave, then the KV4 checks
        # (kv_cache_hook.py:112-318, pipeline.py:254) on it (s68p)
        found = hook_set(hook, gpu_given)
        attention_hook(gpu, found.base, found.prefill, found.decode, kv, line_active())
        if found.known:
            kv4_checks(gpu, found, kv)
    except ConfigError as refused:
        return refused
    return None


DSV4 = "dsv4"


def v4_hip(values: Mapping[str, Any]) -> str | None:
    """DeepSeek-V4's prefill-CP check on HIP (`validate_deepseek_v4_cp`, deepseek_v4_hook.py:
    177-186, in the model hook at pipeline.py:225, before the attention hook): the V4
    override makes the base dsv4 whatever the line names (model_overrides/deepseek_v4.py:
    24), so a split flag naming another backend is refused; SGLang's sentence, or None."""
    _, prefill, decode = renamed(values)
    prefill, decode = prefill or DSV4, decode or DSV4
    if (prefill, decode) == (DSV4, DSV4):
        return None
    return (f"--enable-prefill-cp: DeepSeekV4 prefill CP on HIP requires the dsv4 attention "
            f"backend for both phases, got prefill={prefill!r}, decode={decode!r}. (SGLang "
            f"refuses, deepseek_v4_hook.py:177-186)")


class AfterHip(ConfigError):
    """A prefill-CP reading's answer that SGLang gives only after its HIP check (module
    docstring): the reading's message, and the line's architecture."""

    def __init__(self, message: str, architecture: str | None, trtllm_cp: bool = False,
                 hook: HookLine | None = None, hip_first: str | None = None) -> None:
        super().__init__(message)
        self.architecture = architecture
        # the line's backends, whose GPU checks SGLang's attention hook makes before the DP
        # refusal and the CP hook (`attention_first`; issue 23 s64p, s66p); None for
        # DeepSeek-V4, whose model hook sets its own
        self.hook = hook
        # the trtllm_mha prefill backend with a resolved attention CP width above 1, which
        # SGLang's attention hook refuses off SM100 before the CP hook's checks
        # (attention_hook.py:228-237 at pipeline.py:242; issue 23 s63p)
        self.trtllm_cp = trtllm_cp
        # a refusal SGLang's model hook gives on HIP before all of those (`v4_hip`, s66p)
        self.hip_first = hip_first
        # (s68p) the model hook's refusal as SGLang words it on SM100, where the override's
        # fill there differs from the one `message` names (Gemma 4's trtllm_mha for triton,
        # graphfit.inputs.sglang_prefill_cp_model_hook): first on every GPU
        self.sm100_words: str | None = None


def after_hip(exc: AfterHip, gpu_given: object) -> ConfigError:
    """The error a line `exc` answers should carry on `gpu_given`, in SGLang's order: the
    model hook's refusal worded for the GPU (`exc.sm100_words`, s68p); on a
    named ROCm GPU DeepSeek-V4's backend check (`exc.hip_first`, s66p); on a named GPU the
    attention hook's refusal of the line's backends (`attention_first`, s64p / s66p); off
    SM100 on CUDA its trtllm_mha refusal where `exc.trtllm_cp` (attention_hook.py:228-237;
    issue 23 s63p); on a named ROCm GPU SGLang's HIP sentence for an architecture other than
    DeepSeek-V4 (parallel_hook.py:114-121); else the reading's own answer."""
    from graphfit.inputs.gpus import gpu_name, gpu_sm100
    from graphfit.inputs.sglang_draft_default import ROCM
    from graphfit.planner.engines.sglang_prefill_cp_bcg import check_trtllm_mha

    rocm = gpu_name(gpu_given) in ROCM
    if exc.sm100_words is not None:  # the model hook's refusal, before everything below
        return ConfigError(exc.sm100_words if gpu_sm100(gpu_given) else str(exc))
    if exc.hip_first is not None and rocm:
        return ConfigError(exc.hip_first)
    first = attention_first(exc.hook, gpu_given)
    if first is not None:
        return first
    if exc.trtllm_cp and not rocm and gpu_sm100(gpu_given) is False:
        try:
            check_trtllm_mha("trtllm_mha", 2, False)
        except ConfigError as refused:
            return refused
    arch = exc.architecture
    if arch is None or arch == DEEPSEEK_V4 or not rocm:
        return exc
    return ConfigError(_hip_sentence(arch))


def _hip_sentence(arch: str) -> str:
    return (f"--enable-prefill-cp: Prefill CP on HIP is only supported for {DEEPSEEK_V4}, "
            f"got {arch!r}. (SGLang refuses, parallel_hook.py:114-121)")


# HookLine, default_base, hook_line, renamed, OVERRIDE_READS: graphfit.inputs.
# sglang_prefill_cp_hook_line's, re-exported (s68p)
__all__ = ["OVERRIDE_READS", "AfterHip", "HookLine", "after_hip", "attention_first",
           "backends_of", "check", "default_base", "hook_line", "renamed", "v4_hip"]
