"""SGLang 0.5.23's model hook's backend asserts on a prefill-CP line, before the attention
hook's refusals and the CP hook's (issue 23 s67p).

Why a step of its own: SGLang runs `handle_model_specific_adjustments` (arg_groups/
pipeline.py:225) before the attention hook (:242), data parallelism (:274) and the
context-parallel hook (:278). Its asserts on the backend set (GPT-OSS, model_hook.py:515-543;
Llama 4, :615-630; Gemma 4, :636-660; Exaone 4 with a sliding-window pattern, :668-681;
Olmo2, :682-692; LFM2, :716-722) therefore answer a prefill-CP line before the attention
hook's GPU refusals (graphfit.inputs.sglang_prefill_cp_platform.attention_first), the DP
refusal, the HIP sentence and the strategy checks. graphfit's prefill-CP reading
(graphfit.inputs.sglang_prefill_cp.line) raises them right after the checks SGLang makes
earlier (`--prefill-only-disable-kv-cache`, :170; `--dcp-size`, :171), on the pasted line and
on graphfit's own config file alike (before, a config file met no model-hook check at all).

The asserts read the backends after the model override and SGLang's first pass: the old
names renamed (`compressed`, `tokenspeed_mla`: serving_hook.py:303-330), an unset base filled
by the overrides that always write one (Gemma 4, Llama 4, Olmo2, Exaone: the
override's pick is on its model's list, graphfit.planner.engines.sglang_arch_overrides.
BASE_WRITERS), GPT-OSS's override writing one only where the line names none
(model_overrides/gpt_oss.py:24-45). None of that depends on the GPU, so neither does the
refusal; only the backend SGLang names for a Gemma 4 phase the line leaves to the override
does (trtllm_mha on SM100, else triton, model_overrides/gemma4.py:30-44). graphfit's sentence
names triton where the GPU is not yet known; the refusal carries SGLang's SM100 words
(`AfterHip.sm100_words`), which the CLI gives once it knows the GPU is SM100 (issue 23 s68p;
graphfit.inputs.sglang_prefill_cp_platform.after_hip).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs.sglang_prefill_cp_platform import AfterHip, renamed
from graphfit.planner.core.errors import ConfigError

# the fill Gemma 4's override writes for an unset base (model_overrides/gemma4.py:30-44):
# trtllm_mha on SM100, else triton; `check` words its refusal with both
GEMMA4_FILL_SM100, GEMMA4_FILL = "trtllm_mha", "triton"


def _text(data: Mapping[str, Any]) -> Mapping[str, Any]:
    text = data.get("text_config")
    return text if isinstance(text, dict) else data


def check(values: Mapping[str, Any], data: Mapping[str, Any] | None, arch: str | None
          ) -> None:
    """The model hook's refusal of the line's backends (module docstring), as a ConfigError
    in graphfit's words citing model_hook.py; nothing where the config.json names no
    architecture or the line names no backend (each override's own pick passes)."""
    from graphfit.planner.engines.sglang_arch_overrides import BASE_WRITERS
    from graphfit.planner.engines.sglang_backend_checks import GEMMA4, check_model_hook

    base, prefill, decode = renamed(values)
    if arch is None or data is None or not (base or prefill or decode):
        return
    swa = _text(data).get("sliding_window_pattern") is not None  # model_hook.py:669
    if base is not None or arch not in BASE_WRITERS:
        check_model_hook(arch, base, prefill, decode, swa_pattern=swa)
        return
    try:  # the override's pick fills the base, on its model's list
        check_model_hook(arch, GEMMA4_FILL, prefill, decode, swa_pattern=swa)
    except ConfigError as refused:
        if arch not in GEMMA4:
            raise
        try:
            check_model_hook(arch, GEMMA4_FILL_SM100, prefill, decode, swa_pattern=swa)
        except ConfigError as on_sm100:
            raised = AfterHip(str(refused), None)
            raised.sm100_words = str(on_sm100)
            raise raised from None
        raise


__all__ = ["check"]
