"""SGLang 0.5.23's FlashInfer MegaMoE all-to-all backend (`--moe-a2a-backend
flashinfer_megamoe`): its start-up rules, restated so graphfit starts exactly the lines SGLang
starts.

As the graph runners see it, flashinfer_megamoe is one more live backend that needs attention
DP over the whole TP group, so every attention group is one rank and nothing is gathered for
attention (`require_attn_tp_gather`, utils/common.py:4133-4156); attention DP already gathers
the MLP input. Its prefill graphs are off unless a prefill backend is given (it is not in
cuda_graph_hook.py:223-229's validated list). No memory reserve of its own (memory_hook.py:317,
391-397 count DeepEP only). Its symmetric workspace
(SGLANG_FLASHINFER_MEGAMOE_MAX_TOKENS_PER_RANK, environ.py:1228) is sized at run time from the
largest per-rank forward (layers/moe/flashinfer_megamoe.py:146-160): no start-up check. The
draft defaults to no all-to-all and the flashinfer_trtllm runner
(layers/moe/utils.py:458-475, overrides.py:1631-1655; sglang_moe_a2a.draft_backend).

Start-up refusals, in SGLang's order (`handle_moe_kernel_config` runs before
`handle_a2a_moe`, pipeline.py:294-295):

* the runner resolved by quantization (`_moe_runner_backend_quant_constraints`,
  overrides.py:1449-1503): nvfp4_online needs an SM100 GPU and, without the W4A16 mode, makes
  the runner flashinfer_trtllm; mxfp8 makes auto -- or a runner outside
  MXFP8_MOE_RUNNER_BACKEND_CHOICES (arg_groups/choices.py:161-167) -- flashinfer_megamoe;
* `validate_flashinfer_megamoe_model` (moe_hook.py:237-282): a validated model class, and an
  MXFP8 / ModelOpt NVFP4 `--quantization`, FP4 routed experts or hybrid NVFP4 MoE metadata in
  the checkpoint (configs/model_config.py:722-797; SglangOptions.moe_fp4_checkpoint). The
  resolved --quantization is the flag; without one, on SM100 the Qwen3-MoE and GLM-4 MoE
  overrides copy the checkpoint's parsed method into it, so a ModelOpt NVFP4 checkpoint runs
  as modelopt_fp4 (graphfit.planner.engines.sglang_quantization.resolved_flag); so does the
  DeepSeek family's post-process (overrides.py:763-797), Nemotron-H on any GPU
  (nemotron_h.py:31-55), and DeepSeek-V2 / V4, Beam, Kimi K3 keep the flag
  (graphfit.planner.engines.sglang_model_quant); DeepSeek V3 without quant_method (its
  safetensors headers decide, overrides.py:791-807) is read from a local model directory
  (SglangOptions.checkpoint_fp8_experts) and refused as not modelled without one;
* `validate_flashinfer_megamoe_envs` (moe_hook.py:214-235): the combine dtype;
* attention DP == TP, the runner auto -> flashinfer_megamoe and nothing else, an SM100 GPU
  (moe_hook.py:315-345); Nemotron-H's own override has already turned auto into
  flashinfer_cutlass / marlin for a ModelOpt or unquantized line (nemotron_h.py:99-121).

The W4A16 mode (SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16=1) lets nvfp4_online through the mega
kernel: nvfp4_online's auto runner becomes flashinfer_megamoe and an explicit
flashinfer_megamoe runner is kept (overrides.py:1452-1483), nvfp4_online passes the
quantization rule (moe_hook.py:264-272); it needs the bf16 combine dtype (:216-220) and the
model dtype bfloat16 (:318-324).
"""

from __future__ import annotations

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.sglang_model_quant import (
    deepseek_v4_megamoe_runner,
    nemotron_h_megamoe_runner,
)
from graphfit.planner.engines.sglang_quantization import (
    flag_known,
    hybrid_nvfp4,
    resolved_flag,
    verified_quant,
)

BACKEND = "flashinfer_megamoe"
# validate_flashinfer_megamoe_model's classes (moe_hook.py:240-254)
VALIDATED_ARCHS = frozenset({
    "BeamForCausalLM", "DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM",
    "DeepseekV32ForCausalLM", "DeepseekV4ForCausalLM", "Glm4MoeForCausalLM",
    "GlmMoeDsaForCausalLM", "NemotronHForCausalLM", "NemotronHPuzzleForCausalLM",
    "Qwen2MoeForCausalLM", "Qwen3MoeForCausalLM", "KimiK3ForConditionalGeneration",
    "KimiK3LinearForCausalLM",
})
QUANTIZATIONS = ("mxfp8", "modelopt_fp4")  # moe_hook.py:266-267
MXFP8_RUNNERS = ("cutlass", "deep_gemm", "flashinfer_megamoe", "flashinfer_trtllm",
                 "flashinfer_trtllm_routed")  # arg_groups/choices.py:161-167
NVFP4_ONLINE_RUNNERS = ("flashinfer_trtllm", "flashinfer_trtllm_routed",
                        "flashinfer_cutedsl")  # overrides.py:1467-1479
COMBINE_DTYPES = ("bf16", "mxfp8", "nvfp4")  # moe_hook.py:222-226


def _refuse(why: str) -> ConfigError:
    return ConfigError(f"flashinfer_megamoe: {why}")


def resolved_runner(runner: str, quant: str | None, sm100: bool | None,
                    w4a16: bool = False) -> str:
    """The MoE runner after `_moe_runner_backend_quant_constraints` (overrides.py:1449-1510)
    for a flashinfer_megamoe line (`w4a16`: SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16=1)."""
    if quant == "nvfp4_online":
        if not sm100:
            raise _refuse("--quantization nvfp4_online needs an SM100 GPU: SGLang refuses "
                          "(arg_groups/overrides.py:1457-1461)")
        if runner == "auto":
            return BACKEND if w4a16 else "flashinfer_trtllm"  # :1462-1465
        if runner not in NVFP4_ONLINE_RUNNERS and not (runner == BACKEND and w4a16):
            raise _refuse(f"--quantization nvfp4_online does not take the {runner} runner "
                          f"without SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16=1: SGLang refuses "
                          f"(arg_groups/overrides.py:1467-1479)")
    if quant == "mxfp8" and (runner == "auto" or runner not in MXFP8_RUNNERS):
        return BACKEND  # overrides.py:1499-1510
    return runner


def check(config: EngineSettings) -> None:
    """Every flashinfer_megamoe start-up rule above for one line."""
    if config.moe_a2a_backend != BACKEND or config.enable_waterfill:
        return  # Waterfill: moe_hook.py:315 reads deepep (sglang_waterfill_megamoe)
    w4a16 = config.nvfp4_w4a16
    known = flag_known(config)
    quant = resolved_flag(config)
    runner = (resolved_runner(config.moe_runner_backend, quant, config.sm100, w4a16) if known
              else config.moe_runner_backend)
    arch = config.architecture
    if arch is None:
        raise _refuse("SGLang accepts only some model classes (moe_hook.py:237-262): give "
                      "the checkpoint's config.json (--model-path DIR) or --architecture")
    if arch not in VALIDATED_ARCHS:
        raise _refuse(f"{arch} is not a validated model class: SGLang refuses "
                      f"(moe_hook.py:237-262)")
    if not known and config.sm100 is None:
        raise _refuse("needs an SM100-family GPU (moe_hook.py:335-339), on which the "
                      "checkpoint's quantization may become --quantization: the GPU is "
                      "unknown: name it (--gpu-memory-gb B200 / GB200) or set sm100 in a config "
                      "file")
    if not known:
        raise _refuse(f"{arch}'s override sets --quantization from what graphfit does not "
                      f"read (DeepSeek V3 without quant_method: safetensors headers not "
                      f"local, overrides.py:791-807; Nemotron-H with unquant: nemotron_h.py:"
                      f"31-55): not modelled; give --quantization")
    fp4 = config.moe_fp4_checkpoint
    online = quant == "nvfp4_online" and w4a16  # moe_hook.py:266-270
    if quant not in QUANTIZATIONS and not online and not fp4:
        if fp4 is None:
            raise _refuse("whether this DeepSeek-V4 checkpoint has FP4 routed experts is read "
                          "from its weights (configs/model_config.py:744-761): not modelled; "
                          "set routed_experts_quant_method in its quantization_config")
        given = f"--quantization {quant}" if quant is not None else "no --quantization (bf16)"
        raise _refuse(f"{given} without FP4 routed experts or hybrid NVFP4 MoE metadata in the "
                      f"checkpoint: SGLang refuses (moe_hook.py:264-282)")
    combine = config.megamoe_combine_dtype.strip().lower()
    if w4a16 and combine != "bf16":
        raise _refuse(f"SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16=1 needs SGLANG_FLASHINFER_MEGAMOE_"
                      f"COMBINE_DTYPE=bf16, not {combine!r}: SGLang refuses (moe_hook.py:"
                      f"216-220)")
    if combine not in COMBINE_DTYPES:
        raise _refuse(f"SGLANG_FLASHINFER_MEGAMOE_COMBINE_DTYPE={combine!r} is not one of "
                      f"{', '.join(COMBINE_DTYPES)}: SGLang refuses (moe_hook.py:222-226)")
    if combine != "bf16" and config.megamoe_fc2_reduce:
        raise _refuse(f"SGLANG_FLASHINFER_MEGAMOE_COMBINE_DTYPE={combine} with SGLANG_FLASHINFER_"
                      f"MEGAMOE_IN_KERNEL_FC2_REDUCE=1: SGLang refuses (moe_hook.py:227-235)")
    if w4a16 and config.dtype != "bfloat16":
        raise _refuse(f"SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16=1 needs the model dtype bfloat16, "
                      f"not {config.dtype}: SGLang refuses (moe_hook.py:318-324)")
    if not (config.attn_dp_size > 1 and config.attn_dp_size == config.tp_size):
        raise _refuse(f"needs attention DP over the whole TP group (--attn-dp-size == "
                      f"--tp-size, here {config.attn_dp_size} and {config.tp_size}): SGLang "
                      f"asserts (moe_hook.py:325-327)")
    nemotron_h_megamoe_runner(arch, runner, verified_quant(config))
    deepseek_v4_megamoe_runner(arch, runner, config.quant_algo, fp4, hybrid_nvfp4(config))
    if runner not in ("auto", BACKEND):
        raise _refuse(f"runs only with --moe-runner-backend flashinfer_megamoe or auto, not "
                      f"{runner} (as resolved by --quantization): SGLang asserts "
                      f"(moe_hook.py:328-334)")
    if not config.sm100:
        hint = ("" if config.sm100 is False else "; the GPU is unknown: name it "
                "(--gpu-memory-gb B200 / GB200) or set sm100 in a config file")
        raise _refuse(f"needs an SM100-family GPU: SGLang refuses (moe_hook.py:335-339){hint}")


__all__ = ["BACKEND", "COMBINE_DTYPES", "MXFP8_RUNNERS", "NVFP4_ONLINE_RUNNERS", "QUANTIZATIONS",
           "VALIDATED_ARCHS", "check", "resolved_runner"]
