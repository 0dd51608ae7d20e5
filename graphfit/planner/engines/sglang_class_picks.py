"""Two MoE-runner picks of SGLang 0.5.23's model overrides that hang on inputs outside the
quantization flag, and the config.json dict those overrides read, restated so graphfit's
runner checks see the runner SGLang's later hooks see.

* Nemotron-H's expert remap (model_overrides/nemotron_h.py:57-63): `--enable-eplb`, a
  redundant expert (`--ep-num-redundant-experts` > 0) or a non-trivial
  `--init-expert-location`. It refuses the flashinfer_trtllm runner, and with EPLB the
  flashinfer_cutedsl runner without an a2a backend (`_validate_expert_remap`, :152-168);
  NemotronHPuzzle needs one routed-expert count over its block_configs' MoE blocks
  (:169-180; graphfit.inputs.model_config reads them). Without W4A16
  experts, an auto runner on SM100 without an a2a backend becomes flashinfer_trtllm_routed
  (:87-98), whose quantization assert (moe_hook.py:135-146) takes neither modelopt_fp8
  nor compressed-tensors.
* HYV4 (model_overrides/deepseek_v2.py:80-97): when config.json's quantization_config,
  ModelOpt-unwrapped (configs/model_config.py:116-121), names quant_algo MXFP8 in any
  case, and JIT DeepGEMM is on (deep_gemm_wrapper/configurer.py:32-55: the
  SGLANG_ENABLE_JIT_DEEPGEMM variable, an SM90+ GPU, deep_gemm importable -- assumed, as in
  SGLang's CUDA install; SM120/121 also probe DeepGEMM's APIs, so they stay unknown), an
  auto runner becomes deep_gemm, which every restricted a2a backend but flashinfer_megamoe
  takes (moe_hook.py:531-540).
* The overrides read `hf_config.quantization_config`: config.json's dict after
  `_parse_quant_hf_config`'s in-place ModelOpt parse (model_config.py:1727-1741), NOT the
  config `_verify_quantization` took from a ModelSlim description or a local
  hf_quant_config.json (model_config.py:1814-1836), which never reaches hf_config. So a
  Nemotron-H checkpoint whose ModelOpt config (W4A16 layers included) sits in
  hf_quant_config.json stops with an AttributeError in its override (nemotron_h.py:66-71
  for modelopt_mixed; :45-46 for a plain `modelopt`), and HYV4 sees no MXFP8.

`hf_quant` below is that dict: a mapping, ABSENT (a local config.json without one), or None
(not read: the caller's checkpoint config stands in for it, as before these rules).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.planner.core.errors import ConfigError

ABSENT = "absent"  # a local config.json read, without quantization_config
HYV4 = ("HYV4ForCausalLM", "HYV4ForCausalLMNextN")  # deepseek_v2.py:61, 80
PUZZLE = "NemotronHPuzzleForCausalLM"  # nemotron_h.py:169
ROUTED = "flashinfer_trtllm_routed"
JIT_DEEPGEMM_PROBED_SMS = (120, 121)  # configurer.py:42-44


def expert_remap(enable_eplb: bool, redundant_experts: int, init_expert_location: str) -> bool:
    """`uses_expert_remap` (nemotron_h.py:57-61)."""
    return enable_eplb or redundant_experts > 0 or init_expert_location != "trivial"


def hf_dict(hf_quant: Mapping[str, Any] | str | None,
            fallback: Mapping[str, Any] | None) -> Mapping[str, Any] | str | None:
    """The dict the overrides read: `hf_quant` when graphfit read config.json, else the
    line's checkpoint config (unknown stays None)."""
    return fallback if hf_quant is None else hf_quant


def check_expert_remap(arch: str | None, runner: str, a2a: str, enable_eplb: bool,
                       remap: bool, block_experts: tuple[int, ...] | None = None) -> None:
    """`_validate_expert_remap` (nemotron_h.py:152-180), run by Nemotron-H's override
    whenever an expert remap is on, before any runner pick. `block_experts`:
    NemotronHPuzzle's routed-expert count of each MoE block (config.json block_configs;
    None: not read)."""
    if not remap:
        return
    if runner == "flashinfer_trtllm":
        raise ConfigError(f"{arch}: flashinfer_trtllm cannot take EPLB or redundant experts: "
                          f"SGLang refuses (model_overrides/nemotron_h.py:153-158); use "
                          f"--moe-runner-backend flashinfer_trtllm_routed")
    if enable_eplb and runner == "flashinfer_cutedsl" and a2a == "none":
        raise ConfigError(f"{arch}: flashinfer_cutedsl without an a2a backend cannot migrate "
                          f"expert scales under EPLB: SGLang refuses (model_overrides/"
                          f"nemotron_h.py:159-168)")
    if arch == PUZZLE and block_experts is None:
        raise ConfigError(f"{arch}: EPLB / redundant experts need one routed-expert count "
                          f"on every MoE block (nemotron_h.py:169-180); block_configs was "
                          f"not read (give the model directory): not modelled")
    if arch == PUZZLE and len(set(block_experts or ())) > 1:
        raise ConfigError(f"{arch}: EPLB / redundant experts need the same routed-expert "
                          f"count on every MoE block, block_configs has "
                          f"{sorted(set(block_experts or ()))}: SGLang refuses "
                          f"(model_overrides/nemotron_h.py:169-180)")


def remap_runner(runner: str, a2a: str, sm100: bool | None) -> tuple[bool, str] | None:
    """Nemotron-H's pick for an expert remap without W4A16 experts (nemotron_h.py:87-98):
    (known, runner), or None where this branch does not apply."""
    if runner != "auto" or a2a != "none" or sm100 is False:
        return None
    return (True, ROUTED) if sm100 else (False, runner)


def modelopt_flag(model_quant: str, hf_quant: Mapping[str, Any] | str | None
                  ) -> tuple[bool, str]:
    """Nemotron-H's `--quantization` for a ModelOpt ModelConfig quantization (nemotron_h.py:
    38-55): a plain `modelopt` is named by hf_config.quantization_config["quant_algo"]
    (unknown where that is missing: `check_plain_modelopt` refuses it, or not read)."""
    if model_quant != "modelopt":
        return True, model_quant
    if not isinstance(hf_quant, Mapping) or "quant_algo" not in hf_quant:
        return False, model_quant
    algo = hf_quant["quant_algo"]
    if algo == "MIXED_PRECISION":
        return True, "modelopt_mixed"
    return True, "modelopt_fp4" if algo == "NVFP4" else "modelopt_fp8"


def check_plain_modelopt(arch: str | None, model_quant: str | None,
                         hf_quant: Mapping[str, Any] | str | None) -> None:
    """A plain `modelopt` ModelConfig quantization without config.json's quant_algo stops
    Nemotron-H's override (nemotron_h.py:45-46: AttributeError / KeyError)."""
    if model_quant != "modelopt" or hf_quant is None:
        return
    if not isinstance(hf_quant, Mapping) or "quant_algo" not in hf_quant:
        raise ConfigError(f"{arch}: a plain modelopt quantization is named by config.json's "
                          f"quantization_config.quant_algo, which this checkpoint lacks: "
                          f"SGLang stops with an AttributeError / KeyError "
                          f"(model_overrides/nemotron_h.py:45-46)")


def check_mixed_dict(arch: str | None, quant: str | None,
                     hf_quant: Mapping[str, Any] | str | None) -> None:
    """Nemotron-H's W4A16 test reads hf_config.quantization_config for modelopt_mixed
    (nemotron_h.py:66-71): without it (the ModelOpt config came from hf_quant_config.json,
    or the flag alone) SGLang stops with an AttributeError."""
    if quant == "modelopt_mixed" and hf_quant == ABSENT:
        raise ConfigError(f"{arch}: modelopt_mixed's W4A16 test reads config.json's "
                          f"quantization_config, which this checkpoint lacks (its ModelOpt "
                          f"config is hf_quant_config.json's or none): SGLang stops with an "
                          f"AttributeError (model_overrides/nemotron_h.py:66-71)")


def hyv4_mxfp8(hf_quant: Mapping[str, Any] | str | None) -> bool | None:
    """HYV4's test (deepseek_v2.py:81-85): the unwrapped quant_algo, upper-cased, is MXFP8;
    None: config.json was not read."""
    if hf_quant is None:
        return None
    if not isinstance(hf_quant, Mapping):
        return False
    inner: Any = hf_quant.get("quantization", hf_quant)
    if not isinstance(inner, Mapping):
        return False
    nested = inner.get("quantization")
    inner = nested if isinstance(nested, Mapping) else inner
    return str(inner.get("quant_algo", "")).upper() == "MXFP8"


def jit_deepgemm(env: bool, capability: int | None) -> bool | None:
    """`ENABLE_JIT_DEEPGEMM` on CUDA (configurer.py:32-55), deep_gemm taken as installed;
    None where it hangs on the GPU (unknown, or SM120/121's API probe)."""
    if not env:
        return False
    if capability is None or capability in JIT_DEEPGEMM_PROBED_SMS:
        return None
    return capability >= 90


def hyv4_runner(arch: str | None, runner: str, hf_quant: Mapping[str, Any] | str | None,
                deepgemm: bool | None) -> tuple[bool, str] | None:
    """HYV4's pick (deepseek_v2.py:80-97): (known, runner), or None for another class or a
    named runner."""
    if arch not in HYV4 or runner != "auto":
        return None
    mxfp8 = hyv4_mxfp8(hf_quant)
    if mxfp8 is False or deepgemm is False:
        return True, runner
    if mxfp8 is None or deepgemm is None:
        return False, runner
    return True, "deep_gemm"


__all__ = ["ABSENT", "HYV4", "PUZZLE", "check_expert_remap", "check_mixed_dict",
           "check_plain_modelopt",
           "expert_remap", "hf_dict", "hyv4_mxfp8", "hyv4_runner", "jit_deepgemm",
           "modelopt_flag", "remap_runner"]
