"""A MoE draft's Mooncake / NixlEP dispatcher under `--speculative-moe-a2a-backend` in SGLang
0.5.23 (issue 23, s54e): the draft model's FusedMoE layers make the draft backend's
dispatcher, which raises in a mode that enables normal dispatch.

Why in the planner: SGLang builds the draft model after its arguments resolved and after the
target's model (so after every start-up check graphfit restates and the target's own
dispatcher rule, graphfit.planner.engines.sglang_deepep_class); only the draft's class is
read from its checkpoint (graphfit.inputs.sglang_draft_a2a -> SglangOptions.draft_moe_class).
SGLang raises where all of these hold (paths under sglang/srt/):

* the target is a MoE model: the scheduler seeds the MoE flags, the draft backend among
  them, only then (managers/scheduler.py:991-1008; on a dense target, SglangOptions.
  dense_model, the draft builds under none: `in_context`);
* the EAGLE worker builds the draft inside `speculative_moe_a2a_backend_context`
  (layers/moe/utils.py:957-975; EagleDraftWorker, speculative/eagle_worker_v2.py:178-231):
  EAGLE / EAGLE3 / NEXTN (NEXTN is EAGLE's alias, arg_groups/speculative_hook.py:109) without
  multi-layer EAGLE, whose worker never enters it (speculative/spec_info.py:354-359;
  multi_layer_eagle_worker_v2.py), and FROZEN_KV_MTP (frozen_kv_mtp_worker_v2.py:144). Not
  STANDALONE (standalone_worker_v2.py:78-86), DFLASH or DSPARK;
* the draft's class builds FusedMoE layers (`MOE_DRAFTS`): the draft ModelConfig renames
  Qwen3MoeForCausalLM to Qwen3MoeForCausalLMMTP (configs/model_config.py:1155-1157), whose
  one decoder layer is sparse (models/qwen3_moe_mtp.py:56; every Qwen3-MoE layer is,
  qwen3_moe.py:873-886); MixtralForCausalLM keeps its class, every layer a MixtralMoE
  (mixtral.py:100, 227). s60d: the DeepSeek-V3 / V3.2, GLM-MoE-DSA, GLM-4-MoE(-Lite) and
  Bailing drafts become their NextN classes (configs/model_config.py:1032-1065, 1115-1121),
  whose one decoder layer is sparse even where `first_k_dense_replace` would make a target's
  layer 0 dense (`_is_layer_sparse`: `is_nextn or ...`, e.g. deepseek_v2.py:2785-2791).
  Other draft classes are not restated (planned);
* `--deepep-mode` auto or normal: Mooncake raises a bare NotImplementedError
  (token_dispatcher/mooncake.py:343-344), NixlEP "Normal mode is not supported for Nixl EP
  yet." (token_dispatcher/nixl.py:481-482); the context changes the backend, not the mode.

Where the target's own backend (after Waterfill) is mooncake / nixl too, the target's model
raises first (the target rule), so this one is not reached.

s63d: `--speculative-moe-a2a-backend pplx` makes the same DeepEP-style dispatcher
(`create_moe_dispatcher`, layers/moe/fused_moe_triton/layer.py:194-212), whose pplx half
raises "pplx MoE A2A backend supports low-latency mode only." under a mode that enables
normal dispatch (token_dispatcher/pplx.py:442-445; `pplx_problem`). No start-up hook checks
the draft's pplx: the moe hook's pplx checks read the target's backend (arg_groups/
moe_hook.py:575-587), which turns auto into low_latency only where the target's backend is
pplx too.
"""

from __future__ import annotations

from graphfit.planner.core.enums import SpecMethod
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines import (
    sglang_dispatch_budget,
    sglang_moe_a2a,
    sglang_mori_ep,
    sglang_waterfill,
)
from graphfit.planner.engines import sglang_spec_runners as spec_runners
from graphfit.planner.engines.sglang_deepep_class import NO_NORMAL_MODE, NORMAL_MODES
from graphfit.planner.engines.sglang_draft_moe_classes import DRAFT_MOE_CLASSES, MOE_DRAFTS

# the class SGLang builds -> where its MoE layer is made
SITES = {name: site for name, site in MOE_DRAFTS.values()}


def _builds(config: EngineSettings) -> str | None:
    """The draft class that makes a Mooncake / NixlEP dispatcher on this line (module
    docstring), or None."""
    name = config.draft_moe_class
    if name is None or (config.speculative_moe_a2a_backend or "") not in NO_NORMAL_MODE:
        return None
    return name if in_context(config) else None


def in_context(config: EngineSettings) -> bool:
    """Whether the draft worker builds the draft inside `speculative_moe_a2a_backend_context`
    (module docstring; graphfit.planner.engines.sglang_draft_deepep too, s61e) with the
    draft's backend live in it: on a dense target the scheduler never seeds the flag the
    context swaps in, so the draft builds under none (managers/scheduler.py:991-1008,
    layers/moe/utils.py:541-548; issue 23 s68m)."""
    if sglang_moe_a2a.dense(config):
        return False
    # EAGLE / EAGLE3 / NEXTN (SpecMethod.MTP, graphfit.inputs.sglang.ALGORITHMS; so is
    # FROZEN_KV_MTP, whose worker builds its draft inside the context too,
    # frozen_kv_mtp_worker_v2.py:144); not the multi-layer worker, switched or auto
    if config.spec_method not in (SpecMethod.EAGLE, SpecMethod.EAGLE3, SpecMethod.MTP):
        return False
    return not (spec_runners.multi_layer_eagle(config) or spec_runners.auto_multi_layer(config))


def draft_builds(config: EngineSettings) -> str | None:
    """The draft class that makes a Mooncake / NixlEP dispatcher on this line, or None (the
    first dispatch's budget, graphfit.planner.engines.sglang_first_dispatch, issue 23 s60k)."""
    return _builds(config)


def problem(config: EngineSettings) -> str | None:
    """SGLang's draft-build raise for a resolved line (module docstring), or None. s55e: in
    auto / low_latency mode the dispatcher's low-latency half asserts its token budget first
    (graphfit.planner.engines.sglang_dispatch_budget)."""
    name = _builds(config)
    draft = config.speculative_moe_a2a_backend or ""
    if name is None:
        return None
    mode = sglang_mori_ep.deepep_mode(config)  # a mori target's hook rewrites it (s70j)
    tokens = sglang_dispatch_budget.budget(config, draft)
    said = sglang_dispatch_budget.problem(
        draft, mode, tokens,
        f"the draft {name}'s MoE")
    if said:  # reached only where the target's own dispatcher passed (checked before)
        return said
    found = NO_NORMAL_MODE[draft]
    if mode not in NORMAL_MODES:
        return None
    target = sglang_waterfill.resolved_a2a(config.moe_a2a_backend or "none",
                                           config.enable_waterfill)
    if target in NO_NORMAL_MODE:
        return None  # the target's dispatcher raises first (sglang_deepep_class)
    said, where = found
    return (f"--speculative-moe-a2a-backend {draft}: the draft's {name} builds its MoE inside "
            f"speculative_moe_a2a_backend_context (layers/moe/utils.py:957-975; "
            f"{SITES[name]}), whose dispatcher raises NotImplementedError under --deepep-mode "
            f"{mode}{': ' + said if draft == 'nixl' else ''} ({where}); "
            f"use low_latency")


PPLX_NORMAL = ("pplx MoE A2A backend supports low-latency mode only.",
               "token_dispatcher/pplx.py:442-445")


def pplx_problem(config: EngineSettings) -> str | None:
    """The draft's pplx dispatcher raise for a resolved line (module docstring, s63d), or
    None: a draft class in MOE_DRAFTS built inside the a2a context with
    --speculative-moe-a2a-backend pplx under --deepep-mode auto / normal, the target's own
    backend not pplx (then the mode is low_latency, or the hook refused normal)."""
    name = config.draft_moe_class
    if name is None or config.speculative_moe_a2a_backend != "pplx" or not in_context(config):
        return None
    target = sglang_waterfill.resolved_a2a(config.moe_a2a_backend or "none",
                                           config.enable_waterfill)
    mode = sglang_mori_ep.deepep_mode(config)  # a mori target's hook rewrites it (s70j)
    if mode not in NORMAL_MODES or target == "pplx":
        return None
    said, where = PPLX_NORMAL
    return (f"--speculative-moe-a2a-backend pplx: the draft's {name} builds its MoE inside "
            f"speculative_moe_a2a_backend_context (layers/moe/utils.py:957-975; "
            f"{SITES[name]}), whose pplx dispatcher raises NotImplementedError under "
            f"--deepep-mode {mode}: {said} ({where}); use low_latency")


def check(config: EngineSettings) -> None:
    """Raise `problem`'s reason."""
    said = problem(config)
    if said:
        raise ConfigError(said)


__all__ = ["DRAFT_MOE_CLASSES", "MOE_DRAFTS", "PPLX_NORMAL", "check", "draft_builds", "in_context",
           "pplx_problem", "problem"]
