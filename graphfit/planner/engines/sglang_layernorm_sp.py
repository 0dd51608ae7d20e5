"""SGLang 0.5.23's LayerNorm sequence parallelism (`--enable-layernorm-sp`, with
`--enable-megamoe-for-layernorm-sp` for Muse Spark): its start-up checks, restated so graphfit
refuses the lines SGLang refuses; a line they pass is not modelled (issue 23, s64k). Paths
under sglang/srt/.

`handle_layernorm_sp` (arg_groups/layernorm_sp_hook.py:15-106) runs after the speculative
hook (pipeline.py:312-315), on the resolved arguments:

* `--enable-megamoe-for-layernorm-sp` needs `--enable-layernorm-sp` (:23-28); without
  `--enable-layernorm-sp` nothing else is read.
* `validate_layernorm_sp` (:109-190): the megamoe switch only for Muse Spark (:128-129); the
  model class among Muse Spark and Qwen3ForCausalLM (:130-134; layers/layernorm_sp.py:53-54);
  TP above 1 (:135-139); for Muse Spark TP4/EP4 or TP8/EP8 on the resolved EP size
  (:140-145, overrides.py:1611-1620), serialized NVFP4 (`--quantization modelopt_fp4`) or BF16
  with the megamoe switch (:146-155), `--moe-a2a-backend` none / flashinfer with it and
  flashinfer without it (:156-166), the flashinfer_trtllm MoE runner (:167-171); no
  attention DP (:172-177); speculation only Muse Spark's DFLASH (:178-185); no PP (:186-191).
* Muse Spark with the megamoe switch: not with `--enable-mixed-chunk` (:45-50), and
  `validate_muse_megamoe_token_budget` (:58-63, 194-209): the prefill chunk (else
  `--max-prefill-tokens`) and SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK positive,
  ceil(chunk / TP) <= that budget. Its breakable-prefill checks (:72-86) are past what
  graphfit restates: such a line is not modelled.
* Muse Spark without the switch: SGLANG_MOE_NVFP4_DISPATCH must read 0 (:101-106). Unset,
  FlashInfer A2A turns it on for NVFP4 (moe_hook.py:497-507); given
  `--flashinfer-a2a-dispatch-type` instead, the runner is renamed and :167-171 refuses.

A line that passes: SP shards the sequence over the TP group in prefill; Muse Spark's megamoe
prefill turns the prefill graphs off unless breakable (:68-93). graphfit does not plan that,
so it says not modelled (`check_modelled`, after every other rule). FlashInfer A2A's topology
assert admits Muse Spark's SP group without attention DP (moe_hook.py:43-67, 471-488;
`flashinfer_sp_topology`, read by graphfit.planner.engines.sglang_flashinfer_a2a).
"""

from __future__ import annotations

from graphfit.planner.core.enums import SpecMethod
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.sglang_prefill import chunk_or

MUSE = "MuseSparkForConditionalGeneration"
SUPPORTED = (MUSE, "Qwen3ForCausalLM")  # layers/layernorm_sp.py:53-54
MUSE_TOPOLOGIES = ((4, 4), (8, 8))
HOOK = "arg_groups/layernorm_sp_hook.py"
BUDGET = "SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK"
NOT_MODELLED = "not modelled"


def _a2a(config: EngineSettings) -> str:
    """The all-to-all backend the hook sees (after Waterfill's override)."""
    from graphfit.planner.engines.sglang_waterfill import resolved_a2a

    return resolved_a2a(config.moe_a2a_backend, config.enable_waterfill)


def _ep(config: EngineSettings) -> int:
    """The resolved EP size (`_a2a_ep_size`, overrides.py:1611-1620)."""
    from graphfit.planner.engines.sglang_eplb_checks import resolved_ep_size

    return resolved_ep_size(config.ep_size, config.tp_size, _a2a(config))


def flashinfer_sp_topology(config: EngineSettings) -> bool:
    """Muse Spark's SP group that FlashInfer A2A's topology assert admits without attention
    DP (`_flashinfer_a2a_topology_is_supported`, moe_hook.py:43-67)."""
    return (config.architecture == MUSE and config.enable_layernorm_sp
            and config.attn_dp_size == 1
            and (config.tp_size, _ep(config)) in MUSE_TOPOLOGIES)


def _refuse(what: str, lines: str) -> ConfigError:
    return ConfigError(f"{what}: SGLang refuses ({HOOK}:{lines})")


def _muse(config: EngineSettings, megamoe: bool) -> None:
    """validate_layernorm_sp's Muse Spark rules (:140-171)."""
    from graphfit.planner.engines.sglang_quantization import (
        class_runner,
        flag_known,
        resolved_flag,
    )

    ep = _ep(config)
    if (config.tp_size, ep) not in MUSE_TOPOLOGIES:
        raise _refuse(f"Muse Spark --enable-layernorm-sp needs TP4/EP4 or TP8/EP8, got "
                      f"TP{config.tp_size}/EP{ep}", "140-145")
    if not flag_known(config):
        raise ConfigError(f"--enable-layernorm-sp: {NOT_MODELLED}: the --quantization SGLang "
                          f"resolves for this checkpoint is not known ({HOOK}:146-155)")
    quant = resolved_flag(config)
    if quant != "modelopt_fp4" and not (quant is None and megamoe):
        raise _refuse(f"Muse Spark --enable-layernorm-sp needs --quantization modelopt_fp4, "
                      f"or BF16 with --enable-megamoe-for-layernorm-sp, got {quant}",
                      "146-155")
    a2a = _a2a(config)
    if megamoe and a2a not in ("none", "flashinfer"):
        raise _refuse(f"Muse MegaMoE prefill needs --moe-a2a-backend none or flashinfer, "
                      f"not {a2a}", "156-160")
    if not megamoe and a2a != "flashinfer":
        raise _refuse(f"Muse Spark --enable-layernorm-sp needs --moe-a2a-backend flashinfer, "
                      f"not {a2a}", "161-166")
    known, runner = class_runner(config)
    if not known:
        raise ConfigError(f"--enable-layernorm-sp: {NOT_MODELLED}: the MoE runner SGLang "
                          f"resolves here is not known ({HOOK}:167-171)")
    if runner != "flashinfer_trtllm":
        raise _refuse(f"Muse Spark --enable-layernorm-sp needs --moe-runner-backend "
                      f"flashinfer_trtllm, not {runner}", "167-171")


def megamoe_budget(tp_size: int, chunk: int, max_prefill_tokens: int, capacity: int
                   ) -> str | None:
    """`validate_muse_megamoe_token_budget` (:194-209): its refusal, or None."""
    budget = chunk if chunk > 0 else max_prefill_tokens
    if capacity <= 0 or budget <= 0:
        return (f"Muse MegaMoE needs positive prefill and per-rank token budgets, got "
                f"{budget} and {BUDGET}={capacity}")
    per_rank = -(-budget // tp_size)
    if per_rank > capacity:
        return (f"Muse MegaMoE needs {per_rank} tokens per rank (prefill {budget} over TP"
                f"{tp_size}) > {BUDGET}={capacity}")
    return None


def check(config: EngineSettings, chunk_default: int) -> None:
    """`handle_layernorm_sp`'s refusals (module docstring); `chunk_default`: the
    chunked-prefill default of the line's GPU."""
    megamoe = config.enable_megamoe_for_layernorm_sp
    if not config.enable_layernorm_sp:
        if megamoe:
            raise _refuse("--enable-megamoe-for-layernorm-sp needs --enable-layernorm-sp",
                          "23-28")
        return
    arch = config.architecture
    if megamoe and arch != MUSE:
        raise _refuse(f"--enable-megamoe-for-layernorm-sp is for Muse Spark only, not {arch}",
                      "128-129")
    if arch not in SUPPORTED:
        raise _refuse(f"--enable-layernorm-sp is for {' and '.join(SUPPORTED)} only, not "
                      f"{arch}", "130-134")
    if config.tp_size <= 1:
        raise _refuse("--enable-layernorm-sp needs --tp-size above 1", "135-139")
    if arch == MUSE:
        _muse(config, megamoe)
    if config.attn_dp_size > 1:
        raise _refuse("--enable-layernorm-sp is not compatible with attention DP", "172-177")
    drafted = config.spec_method is not SpecMethod.NONE
    if drafted and not (arch == MUSE and config.spec_method is SpecMethod.DFLASH):
        raise _refuse(f"--enable-layernorm-sp takes speculation only as Muse Spark's DFLASH, "
                      f"not {config.spec_method.value}", "178-185")
    if config.pp_size > 1:
        raise _refuse("--enable-layernorm-sp is not compatible with PP", "186-191")
    if arch == MUSE and megamoe:
        if config.enable_mixed_chunk:
            raise _refuse("--enable-megamoe-for-layernorm-sp is incompatible with "
                          "--enable-mixed-chunk", "45-50")
        said = megamoe_budget(config.tp_size, chunk_or(config.chunked_prefill_size,
                                                       chunk_default),
                              config.max_prefill_tokens, config.megamoe_tokens_per_rank)
        if said:
            raise _refuse(said, "58-63, 194-209")
    elif arch == MUSE and config.moe_nvfp4_dispatch is not False:
        # unset: FlashInfer A2A turns it on for modelopt_fp4 (moe_hook.py:497-507; with
        # --flashinfer-a2a-dispatch-type given instead, the runner becomes
        # flashinfer_trtllm_routed, :512-519, and :167-171 refuses)
        raise _refuse(f"Muse Spark --enable-layernorm-sp needs SGLANG_MOE_NVFP4_DISPATCH=0 "
                      f"(here {'1' if config.moe_nvfp4_dispatch else 'unset'})", "101-106")


def check_modelled(config: EngineSettings) -> None:
    """A line `check` passed: not modelled (module docstring)."""
    if config.enable_layernorm_sp:
        raise ConfigError(f"--enable-layernorm-sp: {NOT_MODELLED}: the sequence-parallel "
                          f"prefill SGLang builds past its start-up checks ({HOOK}:42-106; "
                          f"layers/layernorm_sp.py)")


__all__ = ["MUSE", "SUPPORTED", "check", "check_modelled", "flashinfer_sp_topology",
           "megamoe_budget"]
