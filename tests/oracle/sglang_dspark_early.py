"""A static DSPARK line under SGLANG_OPT_DSV41_TARGET_METADATA_EARLY: SGLang 0.5.23's own
runners built with the variable set, under its GraphSharedOutput and input pool, against
graphfit's shared buffers of the same pasted line with the variable in front of it
(issue 23, s54d; tests.oracle.sglang_static_sharing without the variable).

SGLang reads the variable when its target verify runner is built
(`_wants_early_verify_metadata`, decode_cuda_graph_runner.py:1814-1827, checked by the
`share_buffers(exclude=...)` call at :505-509), so the oracle sets it in the process
environment around `built_shared` only; the line's resolution does not read it. The
oracle's target runner (tests.oracle.sglang_oracle._target_runner) builds its buffers itself,
so `staged_exclude` asks SGLang's own predicate which slots to exclude.
"""

from __future__ import annotations

import os
import types
from typing import Any
from unittest import mock

from tests.oracle import sglang_adaptive_oracle as sa
from tests.oracle import sglang_compare as sc
from tests.oracle import sglang_dflash_compare as dc
from tests.oracle import sglang_oracle as so
from tests.oracle.sglang_static_sharing import built_shared

ENV = "SGLANG_OPT_DSV41_TARGET_METADATA_EARLY"


def staged_exclude(mr: Any, gathered: bool) -> frozenset[str]:
    """The slots the oracle's target runner keeps out of the pool: SGLang's own
    `DecodeCudaGraphRunner._wants_early_verify_metadata` (decode_cuda_graph_runner.py:
    1814-1827) on a stand-in of the runner (the oracle builds its target runner's buffers
    itself, tests.oracle.sglang_oracle._target_runner) with the facts that runner has: the
    TARGET_VERIFY mode of a speculative line, its model runner's worker (a draft runner is
    built here too), SGLang's own ragged-verify switch (:397-401),
    the runner's gathered buffer, the resolved two-batch overlap, attention DP from the
    parallel state; its device a CUDA one (graphfit plans CUDA; the oracle builds on CPU)."""
    with so.sglang_stubs.imports():
        from sglang.srt.environ import envs
        from sglang.srt.model_executor.forward_batch_info import ForwardMode
        from sglang.srt.model_executor.runner import decode_cuda_graph_runner as module
        from sglang.srt.model_executor.runner.early_verify_metadata import STAGED_SLOTS
        from sglang.srt.runtime_context import get_exec

    if not envs.SGLANG_OPT_DSV41_TARGET_METADATA_EARLY.get():
        return frozenset()  # the predicate's first test (:1818), before any other is read
    algorithm = mr.spec_algorithm
    mode = ForwardMode.DECODE if algorithm.is_none() else ForwardMode.TARGET_VERIFY
    runner = types.SimpleNamespace(
        capture_forward_mode=mode,
        model_runner=types.SimpleNamespace(
            is_draft_worker=bool(getattr(mr, "is_draft_worker", False)),
            spec_algorithm=algorithm, device="cuda"),
        ragged_verify_mode=(module.ragged_verify_compact_graphs_enabled(algorithm)
                            and mode == ForwardMode.TARGET_VERIFY),
        require_gathered_buffer=gathered,
        enable_two_batch_overlap=get_exec().overlap.enable_two_batch_overlap)
    wants = module.DecodeCudaGraphRunner._wants_early_verify_metadata(runner)
    return frozenset(STAGED_SLOTS) if wants else frozenset()


def compare(flags: tuple[str, ...], value: str | None
            ) -> tuple[list[str], dict[str, int], Any, dict[str, so.Runner]] | None:
    """(differences, figures, graphfit's plan, SGLang's runners) of the shared tensors of
    the line `flags` with ENV=value (None: unset); None where a side refuses the line or
    SGLang builds no DSPARK draft runner."""
    sg = sc.sglang(flags, 80)
    if sg.rejected is not None or not sg.runners or "dspark_draft" not in sg.runners:
        return None
    r = sg.resolved
    assert isinstance(r, so.Resolved)
    env = {} if value is None else {ENV: value}
    prefix = tuple(f"{k}={v}" for k, v in env.items())
    plan = dc.pasted((*prefix, *flags), 80).plan
    if plan is None or plan.config.speculative_adaptive:
        return None
    with mock.patch.dict(os.environ, env):
        if value is None:
            os.environ.pop(ENV, None)
        built = built_shared(r)
    states = {int(plan.config.num_speculative_tokens): built}
    diffs, figures = sa.compare_sharing(plan, r, states)
    ours = sa.graphfit_groups(plan, sa.modelled_users(plan, states))
    figures["graphfit_bytes"] = sum(t.numel * t.element_size for t in ours)
    return diffs, figures, plan, built
