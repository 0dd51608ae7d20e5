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
from graphfit.planner.core.errors import ConfigError

DEEPSEEK_V4 = "DeepseekV4ForCausalLM"  # parallel_hook.py:117


def check(values: Mapping[str, Any], gpu_given: object) -> None:
    """SGLang's HIP refusal (module docstring) for a prefill-CP line on a named ROCm GPU whose
    local config.json names another architecture; nothing where graphfit cannot tell."""
    from graphfit.inputs.gpus import gpu_name
    from graphfit.inputs.sglang_draft_default import ROCM

    if values.get("enable_prefill_cp") is not True or gpu_name(gpu_given) not in ROCM:
        return
    model = values.get("model_path")
    data = local_config(model) if isinstance(model, str) else None
    found = data.get("architectures") if data is not None else None
    arch = found[0] if isinstance(found, list) and found and isinstance(found[0], str) else None
    if arch is None or arch == DEEPSEEK_V4:
        return
    first = attention_first(backends_of(values), gpu_given)
    raise first if first is not None else ConfigError(_hip_sentence(arch))


def backends_of(values: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """The line's prefill and decode attention backends as given (`attention_backends_of`,
    model_override_base.py:138-152); None where a phase's is left to SGLang's default, which
    is never trtllm_mha on ROCm (graphfit.planner.engines.sglang_rocm_default)."""
    def named(key: str) -> str | None:
        value = values.get(key)
        return value.strip().lower() or None if isinstance(value, str) else None

    base = named("attention_backend")
    return (named("prefill_attention_backend") or base,
            named("decode_attention_backend") or base)


def attention_first(backends: tuple[str | None, str | None], gpu_given: object
                    ) -> ConfigError | None:
    """On a named ROCm GPU, the attention hook's refusal of trtllm_mha for the prefill or
    decode phase (`backends`, attention_hook.py:199-206, 222-227), which SGLang meets
    (pipeline.py:242) before its HIP check (:278; issue 23 s64p); else None."""
    from graphfit.inputs.gpus import gpu_name
    from graphfit.inputs.sglang_draft_default import ROCM
    from graphfit.planner.engines.sglang_backend_checks import trtllm_mha_gpu

    if gpu_name(gpu_given) not in ROCM:
        return None
    try:
        trtllm_mha_gpu("rocm", *backends)
    except ConfigError as refused:
        return refused
    return None


class AfterHip(ConfigError):
    """A prefill-CP reading's answer that SGLang gives only after its HIP check (module
    docstring): the reading's message, and the line's architecture."""

    def __init__(self, message: str, architecture: str | None, trtllm_cp: bool = False,
                 backends: tuple[str | None, str | None] = (None, None)) -> None:
        super().__init__(message)
        self.architecture = architecture
        # the line's prefill / decode attention backends, whose trtllm_mha GPU check SGLang's
        # attention hook makes before the HIP check (`attention_first`; issue 23 s64p)
        self.backends = backends
        # the trtllm_mha prefill backend with a resolved attention CP width above 1, which
        # SGLang's attention hook refuses off SM100 before the CP hook's checks
        # (attention_hook.py:228-237 at pipeline.py:242; issue 23 s63p)
        self.trtllm_cp = trtllm_cp


def after_hip(exc: AfterHip, gpu_given: object) -> ConfigError:
    """The error a line `exc` answers should carry on `gpu_given`: SGLang's HIP sentence on a
    named ROCm GPU for an architecture other than DeepSeek-V4 (parallel_hook.py:114-121),
    after the attention hook's trtllm_mha GPU refusal there (`attention_first`, s64p);
    on a named GPU other than SM100, the attention hook's trtllm_mha refusal where
    `exc.trtllm_cp` (it runs first, attention_hook.py:228-237; issue 23 s63p); else the
    reading's own answer."""
    from graphfit.inputs.gpus import gpu_name, gpu_sm100
    from graphfit.inputs.sglang_draft_default import ROCM
    from graphfit.planner.engines.sglang_prefill_cp_bcg import check_trtllm_mha

    first = attention_first(exc.backends, gpu_given)
    if first is not None:
        return first
    if exc.trtllm_cp and gpu_name(gpu_given) not in ROCM and gpu_sm100(gpu_given) is False:
        try:
            check_trtllm_mha("trtllm_mha", 2, False)
        except ConfigError as refused:
            return refused
    arch = exc.architecture
    if arch is None or arch == DEEPSEEK_V4 or gpu_name(gpu_given) not in ROCM:
        return exc
    return ConfigError(_hip_sentence(arch))


def _hip_sentence(arch: str) -> str:
    return (f"--enable-prefill-cp: Prefill CP on HIP is only supported for {DEEPSEEK_V4}, "
            f"got {arch!r}. (SGLang refuses, parallel_hook.py:114-121)")


__all__ = ["AfterHip", "after_hip", "attention_first", "backends_of", "check"]
