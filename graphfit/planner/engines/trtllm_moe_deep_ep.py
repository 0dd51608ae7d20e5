"""Which DeepEP method WideEPMoE picks where MNNVL is not supported (issue 23, s70f).

Why this module exists: s69o's WIDEEP line said "DeepEP or DeepEPLowLatency ... where the
layer's dtype is bfloat16" under TRTLLM_CAN_USE_DEEP_EP "1", naming both. Past MNNVL,
`select_alltoall_method_type`
(tensorrt_llm/_torch/modules/fused_moe/fused_moe_wide_ep.py@99bca89296:301-306) picks a DeepEP
method only when `deep_ep_installed` and the layer's `dtype == torch.bfloat16`, and then DeepEP
when `is_deepep_feasible(mapping.moe_ep_size)`, else DeepEPLowLatency; anything else falls
through to NotEnabled (:308). Two of those inputs are the line's:

- the dtype is the one the model class passes to the MoE layer, config.json's torch_dtype
  (graphfit.inputs.trtllm_a2a; the constructor hands its `dtype` to the selection at
  :187-189). float16, float32 and an untyped checkpoint (None) are not bfloat16, so the
  method is NotEnabled there whatever the node looks like. graphfit reads the name
  (`moe_a2a_dtype`), because the workspace's itemsize cannot tell bfloat16 from float16;
- `is_deepep_feasible(num_ranks)` (:268-280) with `mpi_size = local_mpi_size()`: True when
  `num_ranks == mpi_size` and num_ranks is 2, 4 or 8 (intranode); else False unless
  `mpi_size == 8` and `num_ranks // mpi_size` is 2, 4, 8 or 16 (internode). So an EP size
  that is none of 2, 4, 8 and whose `// 8` is none of 2, 4, 8, 16 (3, 5-7, 9-15, 24-31, ...)
  is never feasible: DeepEPLowLatency. For 2, 4, 8 it is DeepEP only when the node runs
  exactly EP MPI ranks, for the internode sizes only when it runs 8; graphfit does not know
  the local MPI size (ranks per node), so it names both with their condition.

Whether DeepEP is installed is the machine's, so every bfloat16 outcome keeps "else
NotEnabled". DeepEPLowLatency's buffer and its token limit (TRTLLM_DEEP_EP_TOKEN_LIMIT, else
min(max_num_tokens, moe_max_num_tokens): :211-223) are not sized here.
"""

from __future__ import annotations

# is_deepep_feasible's constants (module doc)
INTRANODE_RANKS = (2, 4, 8)
LOCAL_MPI_SIZE = 8
INTERNODE_NODES = (2, 4, 8, 16)
BFLOAT16 = "bfloat16"
INSTALLED = "where the deep_ep package is installed (deep_ep_installed)"


def fallback(ep_size: int, dtype: str | None) -> str:
    """What the line says WideEPMoE picks after MNNVL under TRTLLM_CAN_USE_DEEP_EP "1":
    NotEnabled for a checkpoint dtype (`dtype`, `moe_a2a_dtype`; None: not read) other than
    bfloat16; else DeepEP and / or DeepEPLowLatency by what `is_deepep_feasible` may give for
    `ep_size` (module doc), each where DeepEP is installed, else NotEnabled."""
    if dtype is not None and dtype != BFLOAT16:
        shown = "an untyped checkpoint's None" if dtype == "untyped" else dtype
        return (f"else NotEnabled (no all-to-all: the layer's dtype, {shown}, is not "
                f"bfloat16)")
    typed = "" if dtype == BFLOAT16 else " and the layer's dtype is bfloat16 (not read)"
    if ep_size in INTRANODE_RANKS:
        pick = (f"DeepEP where the node runs exactly {ep_size} MPI ranks, else "
                f"DeepEPLowLatency (is_deepep_feasible)")
    elif ep_size // LOCAL_MPI_SIZE in INTERNODE_NODES:
        pick = (f"DeepEP where each node runs {LOCAL_MPI_SIZE} MPI ranks "
                f"({ep_size // LOCAL_MPI_SIZE} nodes), else DeepEPLowLatency "
                f"(is_deepep_feasible)")
    else:
        pick = (f"DeepEPLowLatency (is_deepep_feasible is false for EP size {ep_size} on any "
                f"node)")
    return f"else {pick} {INSTALLED}{typed}, else NotEnabled"


__all__ = ["BFLOAT16", "INSTALLED", "INTERNODE_NODES", "INTRANODE_RANKS", "LOCAL_MPI_SIZE",
           "fallback"]
