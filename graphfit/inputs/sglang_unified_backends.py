"""The target's (prefill, decode) attention backends a pasted SGLang 0.5.23 line resolves to,
for `--enable-unified-memory`'s checks (graphfit.planner.engines.sglang_unified_memory): the
speculative algorithms' audited backends (arg_groups/kv_cache_hook.py:613-641, 500-525) and
the FULL prefill graphs' fallback off fa3 / fa4 (:690-712) read both phases through
`attention_backends_of` (arg_groups/model_override_base.py:138-152): a split flag, else the
base `--attention-backend`.

* `prefill_attention_backend`: `--prefill-attention-backend`, else `--attention-backend`
  (decode_attention_backend is graphfit.inputs.sglang_runner_backends');
* `settle`: a unified-memory line naming neither for a phase gets SGLang's default base backend
  by GPU and model where graphfit restates it (`default_target_backend`,
  graphfit.inputs.sglang_draft_default), or the Gemma 4 override's: triton, trtllm_mha on
  SM100, whenever `--attention-backend` is not given (model_overrides/gemma4.py:17-44), or
  Inkling's: fa4 on Hopper / SM100, else triton, when no attention flag is given
  (inkling.py:68-73; a split flag leaves the generic default for the other phase), or
  MiMoV2's: fa4 on SM100 alone when no attention flag is given (mimo_v2.py:27-29; issue 23
  s42u), the generic default on another GPU, where the override does not fire;
  otherwise the phase stays unknown (None) and the planner refuses only where the answer
  depends on it;
* a named base fa3 with `--kv-cache-dtype fp8_e5m2` is triton by the time the unified hook
  reads it (overrides.py:1262-1270): the phases that read the base read triton (issue 23
  s41u, `_fp8_fallback`);
* the linear-attention / mamba kernels the page-major layout reads (issue 23 s42u,
  graphfit.inputs.sglang_unified_linear).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from graphfit.inputs.settings import COMMAND_LINE, Resolved, Setting

PHASES = ("prefill_attention_backend", "decode_attention_backend")
# the Gemma 4 override's architectures; the diffusion one is always triton (gemma4.py:17-34)
GEMMA4 = frozenset({"Gemma4ForConditionalGeneration", "Gemma4ForCausalLM",
                    "Gemma4UnifiedForConditionalGeneration", "DiffusionGemmaForBlockDiffusion"})
# the model overrides restated here: Gemma 4's and Inkling's (inkling.py:68-73, issue 23 s40h)
UNIFIED_OVERRIDES = GEMMA4 | {"InklingForConditionalGeneration",
                              "InklingForConditionalGenerationMTP"}
# MiMoV2's, fa4 on SM100 alone when no attention flag is given (mimo_v2.py:27-29; s42u: its
# K / V rows differ, so the page-major list is the asymmetric one)
UNIFIED_OVERRIDES |= {"MiMoV2ForCausalLM", "MiMoV2FlashForCausalLM"}


def line_settings(values: Mapping[str, Any]) -> list[Setting]:
    """The prefill phase's backend the line's flags give (none for a line naming neither)."""
    prefill = values.get("prefill_attention_backend") or values.get("attention_backend")
    if not isinstance(prefill, str) or not prefill.strip():
        return []
    flag = ("--prefill-attention-backend" if values.get("prefill_attention_backend")
            else "--attention-backend")
    return [Setting("prefill_attention_backend", prefill.strip().lower(),
                    f"{flag} {prefill} (model_override_base.py:138-152)", COMMAND_LINE)]


def settle(line: Mapping[str, Any], resolved: Resolved, gpu_given: object) -> Resolved:
    """SGLang's default base backend for the phases a unified-memory line leaves unnamed
    (module docstring); the line unchanged where graphfit does not restate the default."""
    from graphfit.inputs import sglang_unified_linear
    from graphfit.inputs.gpus import gpu_sm100
    from graphfit.inputs.sglang_draft_default import default_target_backend

    if not line.get("enable_unified_memory"):
        return resolved
    sm100 = resolved.values.get("sm100")
    resolved = sglang_unified_linear.settle(
        line, resolved, gpu_sm100(gpu_given) if sm100 is None else bool(sm100))
    resolved = _fp8_fallback(line, _forced(line, resolved, gpu_given))
    values = resolved.values
    missing = [name for name in PHASES if not values.get(name)]
    if not missing:
        return resolved
    name = default_target_backend(line, gpu_given) or _override_base(line, gpu_given)
    if name is None:
        return resolved
    said = f"SGLang's default attention backend for this GPU and model: {name}"
    new = dict.fromkeys(missing, name)
    return replace(resolved, values=MappingProxyType({**values, **new}),
                   origins=MappingProxyType({**resolved.origins, **dict.fromkeys(new, said)}))


def _forced(line: Mapping[str, Any], resolved: Resolved, gpu_given: object) -> Resolved:
    """An override that writes the base whatever the line names (DeepSeek-V4's dsv4,
    deepseek_v4.py:24; graphfit.planner.engines.sglang_arch_overrides.forced_base): the phases
    without their own split flag read it (attention_backends_of, model_override_base.py:
    138-152)."""
    from graphfit.inputs.model_config import config_path, load_config
    from graphfit.inputs.sglang_draft_default import gpu_kind
    from graphfit.planner.engines.sglang_arch_overrides import OTHER, forced_base

    model = line.get("model_path")
    path = config_path(model) if isinstance(model, str) else None
    if path is None:
        return resolved
    names = load_config(path).get("architectures")
    architecture = names[0] if isinstance(names, list) and names else None
    forced = forced_base(architecture, gpu_kind(gpu_given) or OTHER) if isinstance(
        architecture, str) else None
    if forced is None:
        return resolved
    new = {name: forced[0] for name in PHASES if not line.get(name)}
    if not new:
        return resolved
    said = f"the model override's base {forced[0]} (model_overrides/{forced[1]})"
    return replace(resolved, values=MappingProxyType({**resolved.values, **new}),
                   origins=MappingProxyType({**resolved.origins, **dict.fromkeys(new, said)}))


def _fp8_fallback(line: Mapping[str, Any], resolved: Resolved) -> Resolved:
    """A named base fa3 with `--kv-cache-dtype fp8_e5m2` is triton once the defaults ran
    (`_attention_backend_fa3_fp8_fallback`, overrides.py:1262-1270), before the unified hook
    reads the phases (pipeline.py:338): a phase without its own split flag reads triton."""
    base = str(line.get("attention_backend") or "").strip().lower()
    if base != "fa3" or str(line.get("kv_cache_dtype") or "").strip().lower() != "fp8_e5m2":
        return resolved
    new = {name: "triton" for name in PHASES if not line.get(name)}
    if not new:
        return resolved
    said = ("--attention-backend fa3 with --kv-cache-dtype fp8_e5m2: triton "
            "(overrides.py:1262-1270)")
    return replace(resolved, values=MappingProxyType({**resolved.values, **new}),
                   origins=MappingProxyType({**resolved.origins, **dict.fromkeys(new, said)}))


def _override_base(line: Mapping[str, Any], gpu_given: object) -> str | None:
    """The base backend of a model override graphfit restates for unified memory (Gemma 4,
    gemma4.py:17-44; Inkling, inkling.py:68-73: fa4 on Hopper / SM100, else triton, when the
    line names no attention backend at all), from its table (graphfit.planner.engines.
    sglang_arch_overrides.RULES); an override the line's flags keep from firing leaves SGLang's
    generic default (overrides.py:1126-1140). None for another model, no local config.json
    or no named GPU."""
    from graphfit.inputs.model_config import config_path, load_config
    from graphfit.inputs.sglang_draft_default import generic_base_backend, gpu_kind
    from graphfit.planner.engines.sglang_arch_overrides import ALL_UNSET, BASE, QWEN3_5, RULES

    kind, model = gpu_kind(gpu_given), line.get("model_path")
    path = config_path(model) if isinstance(model, str) else None
    if kind is None or path is None:
        return None
    names = load_config(path).get("architectures")
    architecture = names[0] if isinstance(names, list) and names else None
    if architecture in QWEN3_5:
        return _qwen3_5_base(line, gpu_given, kind)
    rule = next((r for r in RULES if architecture in r.architectures and r.field == BASE
                 and r.architectures <= UNIFIED_OVERRIDES), None)
    if rule is None:
        return None
    flags = ("attention_backend",) + (PHASES if rule.when == ALL_UNSET else ())
    picked = rule.pick(kind)
    if picked is None or any(line.get(name) for name in flags):  # the override does not fire
        return generic_base_backend(line, gpu_given)
    return picked


def _qwen3_5_base(line: Mapping[str, Any], gpu_given: object, kind: str) -> str | None:
    """Qwen3-Next / Qwen3.5's override (model_overrides/qwen3_5.py:17-49, issue 23 s43m): it
    writes nothing off SM100 or with `--attention-backend` on the line (:26-27), so SGLang's
    generic default applies (overrides.py:1126-1140). On SM100 with no `--attention-backend`
    it writes triton, or trtllm_mha (page size 64) when the generic default is trtllm_mha
    unless no extra-buffer strategy is given with the radix cache on and no speculation
    (:36-45; issue 23 s44m, `sm100_qwen3_5_backend`)."""
    from graphfit.inputs.sglang_draft_default import generic_base_backend

    generic = generic_base_backend(line, gpu_given)
    if kind != "sm100" or line.get("attention_backend"):
        return generic
    return None if generic is None else sm100_qwen3_5_backend(line, generic)


def sm100_qwen3_5_backend(line: Mapping[str, Any], generic: str) -> str:
    """qwen3_5.py:28-49 on SM100: triton, unless the generic default is trtllm_mha and one of
    an extra-buffer strategy, the radix cache off or a speculative algorithm holds (:39-45).
    The strategy is read as the line gives it (`mamba_extra_buffer_of`,
    model_override_base.py:260-265): the override runs before `_mamba_radix_cache_resolution`
    turns "auto" into a strategy (overrides.py:453-486), so "auto" reads as no extra buffer
    (SGLang's own resolution checked in tests/oracle/test_sglang_qwen3_5_sm100_oracle.py)."""
    if generic != "trtllm_mha":
        return "triton"
    strategy = str(line.get("mamba_radix_cache_strategy") or "auto").strip().lower()
    radix_off = bool(line.get("disable_radix_cache")) or \
        str(line.get("disaggregation_mode") or "null").strip().lower() == "decode"
    extra = strategy in ("extra_buffer", "extra_buffer_lazy")
    if extra or radix_off or line.get("speculative_algorithm"):
        return "trtllm_mha"
    return "triton"
