"""A pasted SGLang UNO line that leaves an attention side to SGLang's default while graphfit
lacks an input to restate it (the GPU given in GiB, no local config.json, or an architecture
whose model override graphfit does not restate): refused with SGLang's own reason when no
value of the missing input could make that side FA3, which `_handle_uno` requires
(speculative_hook.py:606-611). Otherwise graphfit.inputs.sglang_uno refuses saying which
input it lacks.

Two cases are decided without the missing input:

* `--kv-cache-dtype fp8_e5m2`: the attention hook turns a base backend of fa3 into triton
  after the model overrides and the default (`_attention_backend_fa3_fp8_fallback`,
  overrides.py:1262-1270, attention_hook.py:239; the overrides run first, pipeline.py:225-
  242), and a side the line leaves unnamed falls back to that base
  (`attention_backends_of`, model_override_base.py:138-152). The model overrides that write
  the split sides themselves write other backends (trtllm_mla, cutedsl_mla, aiter: kimi_k3.py
  :92-149; dsv4: deepseek_v4.py:59-60; flashinfer: qwen3_vl.py:130, moss_vl.py:21) or map
  sides the line named (minicpm.py:35-43). So that side is never fa3, on any GPU and model.
* The GPU given in GiB with a model graphfit restates: SGLang's default is evaluated on one
  GPU of every generation SGLang's probes tell apart (graphfit.planner.engines.
  sglang_attn_default.GPU_KINDS); when none gives fa3, no GPU name would.

With the GPU named and a local config.json, an architecture with a model override graphfit
restates (graphfit.planner.engines.sglang_arch_overrides.RESTATED) gets its whole resolved pair
from `override_sides`: SGLang's model hook runs the override (arg_groups/pipeline.py:225,
model_hook.py), then the attention hook's default (pipeline.py:242, overrides.py:1126-1140)
and fp8_e5m2 fallback (overrides.py:1262-1270), all before `_handle_uno` reads
`attention_backends_of` (pipeline.py:306, speculative_hook.py:606-611). That order is
`draft_extend_default`'s; a side is its answer for the phase (its `mode`), since a UNO line
names no draft backend and no override writes one for UNO (nemotron_h.py:123-148 writes it
for EAGLE / NEXTN / DFLASH / DSPARK only).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from graphfit.inputs.sglang_draft_default import (
    default_base_backend,
    default_inputs,
    gpu_kind,
    override_inputs,
)
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines.sglang_arch_overrides import (
    MODES,
    QWEN4_EXP,
    RESTATED,
    RULES,
    SPECIAL_WHERE,
    draft_extend_default,
)
from graphfit.planner.engines.sglang_attn_default import GPU_KINDS, DefaultBackend

# one GPU graphfit knows for each generation (graphfit.inputs.gpus, sglang_draft_default)
KIND_GPUS = {"turing": "T4", "ampere": "A100", "ada": "L40S", "hopper": "H100",
             "sm100": "B200", "sm120": "RTX5090", "rocm": "MI300X"}
NEEDS = "UNO needs FA3 (speculative_hook.py:606-611)"
PIN = "--attention-backend fa3"
__all__ = ["KIND_GPUS", "every_gpu_sides", "never_fa3", "override_sides", "override_where"]


def _fp8_e5m2(values: Mapping[str, Any]) -> bool:
    return str(values.get("kv_cache_dtype") or "").strip().lower() == "fp8_e5m2"


def never_fa3(values: Mapping[str, Any], gpu_given: object) -> str | None:
    """SGLang's reason a side left to its default is never FA3 whatever graphfit lacks (module
    docstring), as one error line; None when the missing input could decide it."""
    if _fp8_e5m2(values):
        return (f"--speculative-algorithm: {NEEDS}; with --kv-cache-dtype fp8_e5m2 a side left "
                f"to SGLang is never fa3 on any GPU or model (overrides.py:1262-1270)")
    if gpu_kind(gpu_given) is not None:
        return None
    found: set[str] = set()
    for kind in GPU_KINDS:
        backend, _ = default_base_backend(values, KIND_GPUS[kind], PIN)
        if backend.name is None or backend.name == "fa3":
            return None  # an input still missing (the model), or FA3 on some GPU
        found.add(backend.name)
    return (f"--speculative-algorithm: {NEEDS}; SGLang's default for this line and model is "
            f"{'/'.join(sorted(found))} on every GPU, never fa3: name {PIN}")[:200]


def override_where(architecture: str) -> str:
    """The file:line of the architecture's model override (arg_groups/model_overrides/)."""
    for rule in RULES:
        if architecture in rule.architectures:
            return rule.where
    return next((where for archs, where in SPECIAL_WHERE if architecture in archs), "")


def override_sides(values: Mapping[str, Any], gpu_given: object, mem_gb: float | None = None
                   ) -> tuple[DefaultBackend, DefaultBackend] | None:
    """SGLang's resolved (prefill, decode) backends for a UNO line on an architecture whose
    model override graphfit restates (module docstring), each name None with the reason where
    graphfit does not restate it (Kimi-K3 with --dcp-size > 1, an MLA-shaped config outside
    graphfit's list); None for another architecture, a GPU not named or no local
    config.json (the generic default's path). ConfigError where SGLang refuses the line in
    the override or its checks of the resolved set, with SGLang's reason. `mem_gb`: the
    GPU's memory the override reads (the named GPU's where None)."""
    found, inputs = default_inputs(values, gpu_given)
    if inputs is None or inputs.architecture not in RESTATED:
        return None
    base = replace(override_inputs(values, gpu_given, inputs, found),
                   draft_flag=None, checked_topk=1)
    if mem_gb is not None:
        base = replace(base, gpu_mem_gb=mem_gb)
    if inputs.architecture in QWEN4_EXP and base.qsa:
        # compressed QSA's page size 64 reaches the default (qwen4_exp.py:89-96); the pair,
        # not QSA's own draft-extend backend, is what UNO reads
        base = replace(base, qsa=False, default=replace(inputs, page_size=64))
    prefill, decode = (draft_extend_default(replace(base, mode=mode)) for mode in MODES)
    return prefill, decode


def _gib(gpu_given: object) -> float | None:
    try:
        return float(str(gpu_given))
    except ValueError:
        return None


def every_gpu_sides(values: Mapping[str, Any], gpu_given: object
                    ) -> tuple[DefaultBackend, DefaultBackend] | None:
    """With the GPU given in GiB, an architecture whose model override graphfit restates:
    `override_sides` on one GPU of every generation SGLang's probes tell apart (KIND_GPUS),
    each with the given memory (the overrides read it, qwen3_5.py:25-49). Where every
    generation gives the same answer, no GPU name could change it: that pair, or that
    refusal (ConfigError); None where they differ (the GPU's name decides) or the
    architecture takes the generic default's path."""
    mem_gb = _gib(gpu_given)
    if gpu_kind(gpu_given) is not None or mem_gb is None:
        return None
    answers: set[tuple[str, ...]] = set()
    pair: tuple[DefaultBackend, DefaultBackend] | None = None
    for kind in GPU_KINDS:
        try:
            sides = override_sides(values, KIND_GPUS[kind], mem_gb)
        except ConfigError as exc:
            answers.add(("refused", str(exc)))
            continue
        if sides is None or None in (sides[0].name, sides[1].name):
            return None  # not an override graphfit restates, or a side it does not
        pair = sides
        answers.add(("pair", str(sides[0].name), str(sides[1].name)))
    if len(answers) != 1:
        return None
    (answer,) = answers
    if answer[0] == "refused":
        raise ConfigError(f"{answer[1]} (on every GPU)"[:200])
    return pair
