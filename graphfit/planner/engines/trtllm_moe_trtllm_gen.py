"""TRTLLMGenFusedMoE's own all-to-all and its SM bar (issue 23, s69h).

Why this module exists: `get_moe_cls` builds TRTLLMGenFusedMoE for a TRTLLM backend over a
quant config with a mode it serves (graphfit.planner.engines.trtllm_moe_cls), and without
ConfigurableMoE `create_moe` builds it bare, with its communication (s67t, s68t). Until s69h
the line said that its own all-to-all selection was not modelled: the one stored copy with a
commit on NVIDIA's repository predates the pinned create_moe (its constructor takes no
`without_comm`) and builds only the two-sided `MnnvlMoe` workspaces, where the MoE EP size
exceeds top-k under attention DP and MNNVL is supported
(tensorrt_llm/_torch/modules/fused_moe/fused_moe_trtllm_gen.py@7b437aaa73:112-132).

The copy read now is the fork xxi-nv/TensorRT-LLM's stored one (48,448 characters, counted
from offset 0 to line 326 over its first page). Its constructor takes `without_comm` and
`activation_type`
(tensorrt_llm/_torch/modules/fused_moe/fused_moe_trtllm_gen.py@69264cd3dd:162-184), as the
pinned create_moe passes them, so it is of create_moe's era. There:

- the constructor raises NotImplementedError "TRTLLMGenFusedMoE does not support SM120 and
  above." on SM 120 and later (:204-207), before any communication is built, so on either
  route (ConfigurableMoE builds it with `without_comm` too) such a line starts no engine;
  the older copy raises the same
  (tensorrt_llm/_torch/modules/fused_moe/fused_moe_trtllm_gen.py@7b437aaa73:91-94);
- without `without_comm` (the legacy route) it selects its all-to-all (:218-266) with
  `select_alltoall_method_type` (:289-316), which is CutlassFusedMoE's: NotEnabled at
  dp_size 1, under MoE TP, or without MNNVL (:291-299); a set TRTLLM_FORCE_ALLTOALL_METHOD
  looked up by member name, DeepEP / DeepEPLowLatency raising NotImplementedError
  (:301-310); else NVLinkOneSided (:316);
- NVLinkTwoSided builds the two-sided `MnnvlMoe` workspaces (:229-234); NVLinkOneSided
  builds `MoeAlltoAll` with `calculate_required_workspace_size(ep_size, experts_per_token,
  max_num_tokens, hidden_size, self.dtype or bfloat16, num_experts with a load balancer)`
  (:235-258): the same call, so the same bytes, as CutlassFusedMoE's one-sided workspace
  (graphfit.planner.engines.trtllm_moe_a2a).

So a bare TRTLLMGenFusedMoE's line is the restated workspace, read as CutlassFusedMoE's
(the forced method too); on a named GPU of SM 120 or later the line names the raise and
gives no bytes; without a named GPU it keeps the bytes and names the SM bar.
"""

from __future__ import annotations

from graphfit.planner.engines.trtllm_moe_cls import TRTLLM_GEN

# the first SM version TRTLLMGenFusedMoE's constructor refuses (module doc)
SM_BAR = 120
RAISES = (f"{TRTLLM_GEN}'s constructor raises NotImplementedError (\"TRTLLMGenFusedMoE does "
          f"not support SM120 and above.\") before it builds any all-to-all")
# what a line without a named GPU adds where the class is TRTLLMGenFusedMoE (module doc)
BAR = (f"on SM {SM_BAR} and later {TRTLLM_GEN}'s constructor raises NotImplementedError "
       f"instead (the GPU is not named)")
SELECTS = (f"{TRTLLM_GEN} (get_moe_cls's class for this quant config) selects its all-to-all "
           f"as CutlassFusedMoE does and sizes the same workspace; {BAR}")


def raises(sm_version: int | None) -> bool:
    """Whether TRTLLMGenFusedMoE's constructor raises on an SM `sm_version` GPU (None: not
    named, so not known to raise): SM_BAR and later (module doc)."""
    return sm_version is not None and sm_version >= SM_BAR


def note(sm_version: int | None) -> str | None:
    """The clause a line building TRTLLMGenFusedMoE carries: the raise on a named GPU at or
    past SM_BAR, the SM bar where no GPU is named, None on a named GPU below it."""
    if raises(sm_version):
        return f"on SM {sm_version} {RAISES}"
    return SELECTS if sm_version is None else None


__all__ = ["BAR", "RAISES", "SELECTS", "SM_BAR", "note", "raises"]
