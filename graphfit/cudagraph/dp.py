"""Data-parallel padding agreement (vLLM's `coordinate_batch_across_dp`, domain.md §2).

DP ranks run collectives inside the model (MoE all-to-all), so every rank must replay a graph
of the same size in the same mode. One all-reduce carries (padded, -mode rank)
with MAX: the agreed mode is the minimum rank over ranks (NONE < PIECEWISE < FULL); unless it
is NONE, every rank pads to the largest padded size and re-dispatches it with that mode.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.distributed as dist

from graphfit.planner.core.dispatch import Dispatch
from graphfit.planner.core.enums import CUDAGraphMode
from graphfit.planner.core.errors import GraphfitError
from graphfit.planner.plan import Plan


def sync_dp_padding(dispatch: Dispatch, group: Any = None, *, plan: Plan, num_tokens: int,
                    uniform_decode: bool = False, component: str = "target") -> Dispatch:
    """This rank's dispatch after agreeing on mode and padded size with every rank of `group`.

    `dispatch` is the rank's own (`plan.pad(num_tokens, ...)`), `num_tokens` its unpadded
    count. If any rank runs eagerly (NONE), all do, unpadded. Without an initialised process
    group, or with one rank, the dispatch is returned unchanged.
    """
    if not dist.is_available() or not dist.is_initialized():
        return dispatch
    if dist.get_world_size(group) == 1:
        return dispatch
    device = torch.device("cpu")
    if dist.get_backend(group) == "nccl":
        device = torch.device("cuda", torch.cuda.current_device())
    local = torch.tensor([dispatch.padded, -dispatch.mode.rank], dtype=torch.int64,
                         device=device)
    dist.all_reduce(local, op=dist.ReduceOp.MAX, group=group)
    padded, mode_rank = int(local[0]), -int(local[1])
    if mode_rank == CUDAGraphMode.NONE.rank:
        return Dispatch(CUDAGraphMode.NONE, num_tokens, dispatch.num_reqs)
    tables = plan.component(component).tables
    q, S = tables.uniform_query_len, tables.max_num_seqs
    full = mode_rank >= CUDAGraphMode.FULL.rank
    if uniform_decode and full and padded % q == 0 and padded <= S * q:
        agreed = plan.pad(padded, uniform_decode=True, component=component)
    else:
        agreed = plan.pad(padded, component=component)
    if agreed.padded != padded or agreed.mode.rank > mode_rank:
        raise GraphfitError(f"dp: re-dispatching {padded} tokens gave {agreed}, not a "
                            f"mode of rank <= {mode_rank} (do all ranks share the plan?)")
    return agreed
