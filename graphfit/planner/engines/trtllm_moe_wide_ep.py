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

Two environment switches finish the unforced selection (issue 23, s69o; graphfit.inputs.
trtllm_a2a reads them as written), each compared with `os.environ.get(name, "0") == "1"`:

- TRTLLM_MOE_DISABLE_ALLTOALLV "1" gives NotEnabled before the top-k test (:292-293);
- above top-k, MNNVL comes first where MNNVL is supported (:298-299, the hardware's: not
  read); else TRTLLM_CAN_USE_DEEP_EP "1" gives DeepEP or DeepEPLowLatency where DeepEP is
  installed and the layer's dtype is bfloat16 (:301-306; which of the two by the local MPI
  size, :268-280, narrowed by the EP size and the checkpoint's dtype name in
  graphfit.planner.engines.trtllm_moe_deep_ep, s70f), and anything else (unset included)
  NotEnabled (:308).

So the line names one outcome per case it can see: NotEnabled, or MNNVL where supported and
else the one fallback that TRTLLM_CAN_USE_DEEP_EP leaves.

None of its methods is the one-sided `MoeAlltoAll` workspace (trtllm_moe_cls.WIDE_EP_NOTE).
"""

from __future__ import annotations

from graphfit.planner.engines.trtllm_moe_cls import WIDE_EP
from graphfit.planner.engines.trtllm_moe_deep_ep import fallback as deep_ep_fallback

# WideEPMoE's AlltoallMethodType members (module doc)
WIDE_EP_METHODS = ("NotEnabled", "MNNVL", "DeepEP", "DeepEPLowLatency")
NEVER = "never this one-sided workspace"
# the two switches (module doc) and the one value each acts on
DISABLE = "TRTLLM_MOE_DISABLE_ALLTOALLV"
DEEP_EP = "TRTLLM_CAN_USE_DEEP_EP"
ON = "1"


def _switch(name: str, raw: str | None) -> str:
    """How the line names a switch's value: unset, or as written."""
    return f"{name} is unset" if raw is None else f"{name}={raw!r}"


def line(force_raw: str | None, ep_size: int, top_k: int | None,
         disable_raw: str | None = None, deep_ep_raw: str | None = None,
         dtype: str | None = None) -> str:
    """The WIDEEP line: the forced method's outcome; NotEnabled under
    TRTLLM_MOE_DISABLE_ALLTOALLV "1" (`disable_raw`) or at an EP size of at most `top_k`
    (None: the checkpoint's top-k not read); else MNNVL where supported and the fallback
    TRTLLM_CAN_USE_DEEP_EP (`deep_ep_raw`) gives, narrowed by the checkpoint's `dtype` name
    and the EP size (graphfit.planner.engines.trtllm_moe_deep_ep, s70f)."""
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
    if disable_raw == ON:
        return (f"{head}: {DISABLE}={disable_raw!r}, so its method is NotEnabled before the "
                f"top-k test: no all-to-all is built; {NEVER}")
    if top_k is not None and ep_size <= top_k:
        return (f"{head}: the MoE EP size {ep_size} is at most top-k {top_k}, so its method is "
                f"NotEnabled: no all-to-all is built; {NEVER}")
    above = (f"the MoE EP size {ep_size} is above top-k {top_k}" if top_k is not None else
             f"where the MoE EP size {ep_size} is above top-k (not read; at most it, "
             f"NotEnabled)")
    switches = f"{_switch(DISABLE, disable_raw)}, {_switch(DEEP_EP, deep_ep_raw)}"
    if deep_ep_raw == ON:
        fallback = deep_ep_fallback(ep_size, dtype)
    else:
        fallback = f"else NotEnabled (no all-to-all: {DEEP_EP} is not '1')"
    return (f"{head}: {above} ({switches}), so its method is MNNVL (the two-sided MnnvlMoe "
            f"workspaces; their size is not modelled) where MNNVL is supported, {fallback}; "
            f"{NEVER}")


__all__ = ["DEEP_EP", "DISABLE", "NEVER", "ON", "WIDE_EP_METHODS", "line"]
