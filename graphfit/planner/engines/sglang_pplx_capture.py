"""pplx's per-dispatch assert at decode-graph capture in SGLang 0.5.23 (issue 23, s66k).

Why a rule of its own: SGLang's start-up check of the pplx budget (arg_groups/moe_hook.py:
614-621, graphfit.planner.engines.sglang_moe_a2a.check_dispatch) does not bound what the
decode graphs dispatch. It is skipped with chunked prefill off or on a decode instance
(:614), and where it runs it compares the budget with `--cuda-graph-max-bs-decode`, a count of
requests, not of tokens (`required_pplx_dispatch_tokens_per_rank`, :840-846). A verify graph
carries several tokens per request. Every dispatch then asserts its own rows against the
budget, SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK, in `_PplxDispatcherImpl.dispatch_a`
(layers/moe/token_dispatcher/pplx.py:290-295, after it made pplx-kernels' AllToAll with that
budget at :289). Capturing the target's decode runner runs that dispatch on each captured batch,
so a captured batch whose tokens pass the budget fails the server's start.

The rows one rank dispatches: with one attention rank per DP group (tp = attention DP, no
attention CP) nothing is gathered or scattered (sglang_moe_a2a.gathers_attention), so they are
the batch times the runner's tokens per request. With wider attention groups the rows are
sharded in ways graphfit does not restate: a batch whose tokens pass the budget is then not
modelled. A budget of 0 or below is sglang_budget_floor's (checked earlier). A class whose
experts make no dispatcher (sglang_deepep_class.NO_DISPATCHER) never reaches the assert.

A MoE draft (issue 23 s67m): the EAGLE worker captures its draft-decode and draft-extend graphs
inside `speculative_moe_a2a_backend_context` (speculative/eagle_worker_v2.py:286-296, the
draft runner first, :476-600), where the draft's FusedMoE layers dispatch through the draft's
backend: `--speculative-moe-a2a-backend`, else the target's (layers/moe/utils.py:463-468,
498-502). Under pplx each captured draft batch meets the same assert, and no start-up hook
checks the draft's pplx (the moe hook reads the target's backend): with a target that is not
pplx, e.g. none, and a small budget, SGLang fails at the draft's capture while graphfit
planned the line (`draft_problem`).
"""

from __future__ import annotations

from collections.abc import Sequence

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines import sglang_moe_a2a
from graphfit.planner.engines.batch import BatchRunner
from graphfit.planner.engines.sglang_deepep_class import NO_DISPATCHER
from graphfit.planner.engines.sglang_draft_dispatch import in_context
from graphfit.planner.engines.sglang_spec_runners import FROZEN_RUNNER

ENV = "SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK"
SITE = "token_dispatcher/pplx.py:290-295"


def problem(config: EngineSettings, captured: Sequence[int]) -> str | None:
    """The assert's reason for the target decode runner's `captured` batch sizes (requests),
    naming the largest batch past the budget; `not modelled` where the rows per rank are
    sharded (module docstring); None where every batch fits or no pplx dispatch runs."""
    if (not captured or config.architecture in NO_DISPATCHER
            or sglang_moe_a2a.runtime_backend(config) != "pplx"):
        return None
    budget = config.pplx_dispatch_tokens_per_rank
    width = config.uniform_query_len
    if budget <= 0:  # graphfit.planner.engines.sglang_budget_floor
        return None
    over = [bs for bs in captured if bs * width > budget]
    if not over:
        return None
    bs = max(over)
    said = f"{ENV}={budget} < decode batch {bs} x {width} = {bs * width} tokens"
    if config.tp_size != config.attn_dp_size:  # attention TP or CP: rows sharded
        return f"{said}: not modelled: rows per rank follow the attention sharding ({SITE})"
    return f"{said}: pplx's dispatch asserts at capture ({SITE})"


def check(config: EngineSettings, captured: Sequence[int]) -> None:
    """Raise `problem`'s reason."""
    said = problem(config, captured)
    if said:
        raise ConfigError(said)


# the draft runners captured inside the draft's a2a context: the EAGLE worker's
# (graphfit.planner.engines.sglang._eagle_drafts) and FROZEN_KV_MTP's draft loop
# (frozen_kv_mtp_worker_v2.py:222-230; s68m)
DRAFT_RUNNERS = ("drafter", "draft_extend", FROZEN_RUNNER)


def draft_problem(config: EngineSettings, runners: Sequence[BatchRunner]) -> str | None:
    """The assert's reason for the first EAGLE draft runner (in capture order) with a captured
    batch past the budget, naming its largest such batch, when a MoE draft built inside the
    a2a context dispatches through pplx (module docstring); None otherwise, and with more than
    one attention rank per DP group, whose rows per rank graphfit does not restate (such
    lines stay planned, as before: test_sglang_draft_dispatch_oracle's lines without
    attention DP)."""
    if config.draft_moe_class is None or not in_context(config):
        return None
    target = sglang_moe_a2a.runtime_backend(config)
    budget = config.pplx_dispatch_tokens_per_rank
    if sglang_moe_a2a.draft_backend(target, config.speculative_moe_a2a_backend) != "pplx" \
            or budget <= 0 or config.tp_size != config.attn_dp_size:
        return None  # sharded rows (attention TP / CP): planned as before, not restated
    for runner in runners:
        if not runner.name.startswith(DRAFT_RUNNERS):
            continue
        over = [bs for bs in runner.sizes if bs * runner.width > budget]
        if not over:
            continue
        bs = max(over)
        return (f"{ENV}={budget} < {runner.name} batch {bs} x {runner.width} = "
                f"{bs * runner.width} tokens: the MoE draft's pplx dispatch asserts at capture "
                f"({SITE})")
    return None


def check_drafts(config: EngineSettings, runners: Sequence[BatchRunner]) -> None:
    """Raise `draft_problem`'s reason."""
    said = draft_problem(config, runners)
    if said:
        raise ConfigError(said)


__all__ = ["DRAFT_RUNNERS", "ENV", "SITE", "check", "check_drafts", "draft_problem", "problem"]
