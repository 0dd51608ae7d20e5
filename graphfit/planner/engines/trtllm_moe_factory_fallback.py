"""What ConfigurableMoE's communication factory builds when NVLinkOneSided cannot be built
(issue 23, s70f).

Why this module exists: unforced, `CommunicationFactory.create_strategy`
(tensorrt_llm/_torch/modules/fused_moe/communication/communication_factory.py@03c36d6222:81-292)
tries NVLinkOneSided first and catches any exception its constructor raises (:170-192); the
one-sided line only said "where MNNVL is supported". What follows is the factory's own order,
and two of its tests are the line's:

- an expert count that is not a multiple of the MoE EP size gives AllGatherReduceScatter at
  once (:194-200): NVLinkTwoSided and the DeepEP methods need the division;
- otherwise it tries NVLinkTwoSided (:202-224), then NcclEP where its prerequisites hold and
  its library loads (:226-252), then, when `os.environ.get("TRTLLM_CAN_USE_DEEP_EP", "1") ==
  "1"` and the activation dtype is bfloat16 (:254-255), DeepEP (:256-269) and
  DeepEPLowLatency (:271-287); AllGatherReduceScatter is the last resort (:289-292). The
  activation dtype is ModelConfig.torch_dtype, the checkpoint's or bfloat16 when it has none
  (:129; tensorrt_llm/_torch/model_config.py@1a0dc5f700:204-210), so an untyped checkpoint is
  bfloat16 here (unlike WideEPMoE: graphfit.planner.engines.trtllm_moe_deep_ep).

Which of the tried ones builds is the machine's (MNNVL, the NCCL-EP library, DeepEP), so the
line names the order the factory tries, narrowed by the expert count (`moe_eplb_experts`,
read for the architectures graphfit.inputs.trtllm_a2a knows), TRTLLM_CAN_USE_DEEP_EP as
written and the checkpoint's dtype name (`moe_a2a_dtype`). A forced TRTLLM_FORCE_COMM_METHOD
has no fallback (`_create_forced_method` raises), so it gets no clause.
"""

from __future__ import annotations

DEEP_EP_SWITCH = "TRTLLM_CAN_USE_DEEP_EP"
# the factory's tries after NVLinkOneSided, in order (module doc)
TRIED = ("NVLinkTwoSided", "NcclEP", "DeepEP", "DeepEPLowLatency")
LAST = "AllGatherReduceScatter"
HEAD = "if NVLinkOneSided cannot be built, ConfigurableMoE's factory"


def _deep_ep(deep_ep_raw: str | None, dtype: str | None) -> str | None:
    """Why the factory skips the DeepEP methods, or None where it tries them."""
    if deep_ep_raw is not None and deep_ep_raw != "1":
        return f"{DEEP_EP_SWITCH}={deep_ep_raw!r} is not '1'"
    if dtype in ("float16", "float32"):
        return f"the activation dtype, {dtype}, is not bfloat16"
    return None


def clause(ep_size: int, num_experts: int | None, deep_ep_raw: str | None,
           dtype: str | None) -> str:
    """The factory's fallback named on the line (module doc): `num_experts` None when not
    read, `deep_ep_raw` TRTLLM_CAN_USE_DEEP_EP as written (None: unset, read as "1"),
    `dtype` the checkpoint's dtype name (None: not read; "untyped" is bfloat16 here)."""
    if num_experts is not None and num_experts % ep_size:
        return (f"{HEAD} builds {LAST} ({num_experts} experts are not a multiple of the MoE "
                f"EP size {ep_size})")
    skip = _deep_ep(deep_ep_raw, dtype)
    tried = TRIED if skip is None else TRIED[:2]
    switch = (f"{DEEP_EP_SWITCH} unset, read as '1'" if deep_ep_raw is None
              else f"{DEEP_EP_SWITCH}={deep_ep_raw!r}")
    typed = ("" if dtype in ("bfloat16", "untyped") else
             ", where the activation dtype is bfloat16 (not read)")
    why = (f" (no deep_ep method: {skip})" if skip is not None else
           f" ({switch}{typed})")
    divides = ("" if num_experts is not None else
               f" where the experts are a multiple of the MoE EP size {ep_size} (else {LAST})")
    return (f"{HEAD} tries {', then '.join(tried)}{why}{divides}, whichever builds first, "
            f"else {LAST}")


__all__ = ["DEEP_EP_SWITCH", "HEAD", "LAST", "TRIED", "clause"]
