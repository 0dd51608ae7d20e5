"""Data-parallel padding agreement (vLLM's `coordinate_batch_across_dp`).

The rule: docs/engines/vllm.md#dispatch.

DP ranks run collectives inside the model (MoE all-to-all), so every rank must replay a graph
of the same size in the same mode. One all-reduce carries (padded, -mode rank)
with MAX: the agreed mode is the minimum rank over ranks (NONE < PIECEWISE < FULL); unless it
is NONE, every rank pads to the largest padded size and re-dispatches it with that mode.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.distributed as dist

from graphfit.planner import BatchError, CUDAGraphMode, Dispatch, GraphfitError, Plan, excerpt


def sync_dp_padding(dispatch: Dispatch, group: Any = None, *, plan: Plan, num_tokens: int,
                    uniform_decode: bool = False, component: str = "target") -> Dispatch:
    """This rank's dispatch after agreeing on mode and padded size with every rank of `group`.

    `dispatch` is the rank's own (`plan.pad(num_tokens, ...)`), `num_tokens` its unpadded
    count. If any rank runs eagerly (NONE), all do, unpadded. Without an initialised process
    group, or with one rank, the dispatch is returned unchanged.
    """
    _check_arguments(dispatch, plan, num_tokens)
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
    if agreed.padded != padded or agreed.mode.rank > mode_rank or agreed.padded < num_tokens:
        raise GraphfitError(f"dp: re-dispatching {padded} tokens gave {agreed}, not a "
                            f"mode of rank <= {mode_rank} (do all ranks share the plan?)")
    return agreed


def _check_arguments(dispatch: object, plan: object, num_tokens: object) -> None:
    """BatchError for arguments no rank could agree on: a dispatch that is not one, a token
    count that is not a positive integer, or more tokens than the dispatch pads to (a
    padded size below the batch would hand the graph a short batch on every rank)."""
    if not isinstance(dispatch, Dispatch):
        raise BatchError(f"dispatch: expected a Dispatch, got {excerpt(dispatch)}")
    if not isinstance(plan, Plan):
        raise BatchError(f"plan: expected a Plan, got {type(plan).__name__}")
    if type(num_tokens) is not int or num_tokens < 1:
        raise BatchError(f"num_tokens: must be an integer >= 1, got {excerpt(num_tokens)}")
    if num_tokens > dispatch.padded:
        raise BatchError(f"num_tokens: {num_tokens} tokens do not fit the dispatch's padded "
                         f"size {dispatch.padded} (pass this rank's own plan.pad(num_tokens))")
