"""Which all-to-all WideEPMoE builds on a line: its forced method and its top-k test (issue 23,
s69h).

Why this module exists: s68t's WIDEEP line named WideEPMoE's possible methods without
picking one. Two of its tests need nothing graphfit cannot see
(tensorrt_llm/_torch/modules/fused_moe/fused_moe_wide_ep.py@99bca89296:259-308, the one
stored copy with a commit):

- a set TRTLLM_FORCE_ALLTOALL_METHOD comes first and is returned as
  `AlltoallMethodType[value]` in WideEPMoE's own enum, NotEnabled / MNNVL / DeepEP /
  DeepEPLowLatency (:29-38, :282-284): another name, NVLinkOneSided included, raises
  KeyError; DeepEP and DeepEPLowLatency are taken (no NotImplementedError, unlike
  CutlassFusedMoE), and the constructor then builds a DeepEP buffer, MNNVL the two-sided
  `MnnvlMoe` workspaces, NotEnabled none (:187-227);
- unforced, with attention DP over more than one rank (the only lines that show this line),
  it gives NotEnabled when the MoE EP size is at most the model's top-k (:295-296), before it
  looks at MNNVL or DeepEP.

None of its methods is the one-sided `MoeAlltoAll` workspace (trtllm_moe_cls.WIDE_EP_NOTE).
"""

from __future__ import annotations

from graphfit.planner.engines.trtllm_moe_cls import WIDE_EP, WIDE_EP_NOTE

# WideEPMoE's AlltoallMethodType members (module doc)
WIDE_EP_METHODS = ("NotEnabled", "MNNVL", "DeepEP", "DeepEPLowLatency")
NEVER = "never this one-sided workspace"


def line(force_raw: str | None, ep_size: int, top_k: int | None) -> str:
    """The WIDEEP line: the forced method's outcome, NotEnabled at an EP size of at most
    `top_k` (None: the checkpoint's top-k not read), else `WIDE_EP_NOTE` (module doc)."""
    head = f"moe_config backend WIDEEP builds {WIDE_EP}, not wrapped in ConfigurableMoE"
    if force_raw is not None:
        given = f"TRTLLM_FORCE_ALLTOALL_METHOD={force_raw!r}"
        if force_raw not in WIDE_EP_METHODS:
            return (f"{head}: {given} is not a name of its AlltoallMethodType "
                    f"({', '.join(WIDE_EP_METHODS)}): KeyError when it selects its all-to-all; "
                    f"{NEVER}")
        built = {"NotEnabled": "no all-to-all", "MNNVL": "the two-sided MnnvlMoe workspaces",
                 "DeepEP": "a DeepEP buffer", "DeepEPLowLatency": "a low-latency DeepEP buffer"}
        return (f"{head}: {given} selects {force_raw}, so it builds {built[force_raw]} (not "
                f"sized by graphfit); {NEVER}")
    if top_k is not None and ep_size <= top_k:
        return (f"{head}: the MoE EP size {ep_size} is at most top-k {top_k}, so its method is "
                f"NotEnabled: no all-to-all is built; {NEVER}")
    return WIDE_EP_NOTE


__all__ = ["NEVER", "WIDE_EP_METHODS", "line"]
