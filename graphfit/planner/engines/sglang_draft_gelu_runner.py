"""A GELU MoE draft under the DeepGEMM MoE runner in SGLang 0.5.23 (issue 23, s68i): the
draft's FusedMoE layers build DeepGemmRunnerCore, which asserts a gated SiLU activation.

Why its own rule: the Gemma 4 unified assistant (a FROZEN_KV_MTP draft, s68m:
graphfit.planner.engines.sglang_draft_moe_classes) makes its experts with
`activation="gelu"` (paths under sglang/srt/: models/gemma4_causal.py:236, 295, through
`get_moe_impl_class`, :285). FusedMoE's constructor makes the runner
(`quant_method.create_moe_runner`, layers/moe/fused_moe_triton/layer.py:576) before the
dispatcher (:595) and before DeepEPMoE's body asserts (layers/moe/ep_moe/layer.py:135-178,
graphfit.planner.engines.sglang_draft_deepep), so under a DeepGEMM runner
`DeepGemmRunnerCore.__init__` raises first: `assert self.config.activation in ("silu",
"situ")` (layers/moe/moe_runner/runner.py:108-109; moe_runner/deep_gemm.py:352), whatever
the draft's a2a backend, quantization or JIT DeepGEMM. The runner is DeepGEMM where:

* the draft's runner (sglang_draft_deepep.draft_runner, passed in:
  `--speculative-moe-runner-backend`, else the one SGLang defaults it to) is deep_gemm:
  the unquantized method picks it (layers/quantization/unquant.py:1183-1184) and so does FP8's
  (`is_deepgemm_moe_runner_backend_enabled`, layers/quantization/fp8.py:1528-1529);
* or an FP8 draft (`fp8` given or inherited, no checkpoint config) whose runner is auto,
  under a draft a2a backend deepep, mooncake or nixl, with JIT DeepGEMM on
  (fp8.py:1530-1541).

The draft is built in the worker's runner and a2a contexts (frozen_kv_mtp_worker_v2.py:
140-158; sglang_draft_dispatch.in_context).

s69l: without `--speculative-moe-a2a-backend` / `--speculative-moe-runner-backend` the draft
inherits the target's backend and runner (`_default_speculative_a2a_backend` /
`_default_speculative_moe_runner_backend`, layers/moe/utils.py:463-476, seeded by
`initialize_moe_config`, :479-502): graphfit.inputs.sglang_draft_a2a reads the draft's class
on such lines too (for `GELU_DRAFTS` only), and the FP8 auto branch reads the inherited
backend (sglang_moe_a2a.draft_backend). On a dense target the scheduler seeds no MoE flag
(managers/scheduler.py:991-1008): the runner context reads auto (utils.py:531-539), the a2a
context none (:541-549), so the draft's runner is never DeepGEMM: `in_context` is false there
(with a backend given, SglangOptions.dense_model) or the reader sets no class (without one).
"""

from __future__ import annotations

from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines import sglang_class_picks as picks
from graphfit.planner.engines import sglang_draft_dispatch, sglang_moe_a2a

# the MoE draft classes whose experts are GELU -> where SGLang passes the activation
GELU_DRAFTS: dict[str, str] = {
    "Gemma4UnifiedAssistantForCausalLM": "models/gemma4_causal.py:236, 295",
}
# the draft a2a backends under which FP8's auto runner becomes DeepGEMM (fp8.py:1533-1537)
AUTO_DEEPGEMM_A2A = frozenset({"deepep", "mooncake", "nixl"})


def deepgemm_runner(config: EngineSettings, runner: str | None) -> bool:
    """Whether the draft's MoE layers run DeepGEMM (module docstring), `runner` the draft's
    (sglang_draft_deepep.draft_runner, which calls this rule: passed in, not imported)."""
    if runner == "deep_gemm":
        return True
    fp8 = config.draft_quantization == "fp8" and config.draft_quant_config is None
    # s69l: the draft's backend as given, else the target's it inherits (utils.py:463-468)
    draft = sglang_moe_a2a.draft_backend(sglang_moe_a2a.runtime_backend(config),
                                         config.speculative_moe_a2a_backend)
    return (runner == "auto" and fp8 and draft in AUTO_DEEPGEMM_A2A
            and picks.jit_deepgemm(config.jit_deepgemm, config.gpu_capability) is True)


def problem(config: EngineSettings, runner: str | None) -> str | None:
    """SGLang's DeepGemmRunnerCore assert on a GELU MoE draft (module docstring) whose runner
    is `runner` (sglang_draft_deepep.draft_runner), or None."""
    name = config.draft_moe_class
    if name not in GELU_DRAFTS or not sglang_draft_dispatch.in_context(config):
        return None
    if not deepgemm_runner(config, runner):
        return None
    return (f"DeepGEMM MoE runner needs gated SiLU (AssertionError, moe_runner/deep_gemm.py:"
            f"352): the draft's {name} has gelu experts ({GELU_DRAFTS[name]})")


__all__ = ["AUTO_DEEPGEMM_A2A", "GELU_DRAFTS", "deepgemm_runner", "problem"]
