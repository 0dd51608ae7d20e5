"""SGLang 0.5.23's refusals of a DSA line under `--dcp-size` above 1 (issue 23, s69r).

Why: the DeepSeek family's config-time override `_dsa_dcp_overrides`
(arg_groups/model_overrides/deepseek_v2.py:18-34), declared for the family's architectures
(:37-50) and run where the config is DSA (`is_deepseek_dsa`, an `index_topk`: :97-98), refuses
three things before it fills the DSA backends with trtllm (graphfit.planner.engines.
sglang_dsa_backends.given), in this order:

* HiSparse or HiCache (:21-22). HiSparse is judged here; HiCache is not one of graphfit's
  settings, so graphfit.inputs.sglang_dsa_dcp_hicache refuses it where the flags are read;
* PD disaggregation, any `--disaggregation-mode` but `null` (:23-24);
* an EAGLE `--speculative-eagle-topk` other than 1, where one is given (:25-26).

It runs on every platform, before `check_server_args`. HYV4 refuses `--dcp-size` above 1 on its
own first (:68-75), so its lines are left to that rule.
"""

from __future__ import annotations

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.sglang_attn_default import DSA_ARCHITECTURES
from graphfit.planner.engines.sglang_hisparse_dsa import FAMILY

WHERE = "arg_groups/model_overrides/deepseek_v2.py"
HYV4 = frozenset({"HYV4ForCausalLM", "HYV4ForCausalLMNextN"})  # their own refusal, :68-75


def applies(config: EngineSettings) -> bool:
    """Whether `_dsa_dcp_overrides` meets this line with DCP on: a DSA checkpoint graphfit read
    (`dsa_checkpoint`) of the family, HYV4 aside, and `--dcp-size` above 1 (:19-20)."""
    return (config.dcp_size > 1 and config.architecture in FAMILY
            and config.architecture in DSA_ARCHITECTURES and config.architecture not in HYV4
            and config.dsa_checkpoint is True)


def problem(config: EngineSettings) -> str | None:
    """`_dsa_dcp_overrides`' first refusal of this line (:21-26), or None."""
    if not applies(config):
        return None
    if config.enable_hisparse:
        return f"DSA DCP does not support HiSparse or HiCache (ValueError, {WHERE}:21-22)"
    if config.disaggregation_mode != "null":
        return ("DSA DCP does not support PD disaggregation; got --disaggregation-mode "
                f"{config.disaggregation_mode} (ValueError, {WHERE}:23-24)")
    topk = config.speculative_eagle_topk
    if topk not in (None, 1):
        return (f"DSA DCP requires --speculative-eagle-topk 1; got {topk} "
                f"(ValueError, {WHERE}:25-26)")
    return None


def check(config: EngineSettings) -> None:
    """ConfigError with `problem`'s words, where it has some."""
    said = problem(config)
    if said:
        raise ConfigError(said)


__all__ = ["applies", "check", "problem"]
