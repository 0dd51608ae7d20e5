"""The tensors a static (non-adaptive) speculative line's runners share in SGLang 0.5.23,
observed on SGLang's own objects, against graphfit's shared buffers of the same pasted line.

SGLang's sharing does not depend on adaptive speculation: the process-wide
`GraphSharedOutput` hands every target runner and the EAGLE draft-extend runner a view of one
`(max_rows, vocab)` tensor per vocabulary (graph_shared_output.py:62-73;
decode_cuda_graph_runner.py:466-477; eagle_draft_extend_cuda_graph_runner.py:249-253), and
every runner that calls `share_buffers()` coalesces its same-named, same-sized inputs through
the process-wide pool (input_buffers.py:16-41; decode_cuda_graph_runner.py:507-509;
eagle_draft_cuda_graph_runner.py:287; eagle_draft_extend_cuda_graph_runner.py:297). So a
static line is the adaptive oracle's comparison (tests/oracle/sglang_adaptive_oracle.
compare_sharing) over one state: the runners SGLang builds at start-up, built under SGLang's
own GraphSharedOutput and an empty pool.

Shared by test_sglang_static_sharing_oracle.py and measure_sglang_static_sharing.py.
"""

from __future__ import annotations

from typing import Any

from tests.oracle import sglang_adaptive_oracle as sa
from tests.oracle import sglang_compare as sc
from tests.oracle import sglang_dflash_compare as dc
from tests.oracle import sglang_oracle as so


def built_shared(r: so.Resolved) -> dict[str, so.Runner]:
    """SGLang's start-up runners of `r` with its sharing live (sglang_oracle.sharing), every
    runner on one device, as on the GPU."""
    with so.sharing(sa.shared_output(r)):
        return so.runners(r, device="cpu")


def compare(argv: tuple[str, ...]) -> tuple[list[str], dict[str, int], Any] | None:
    """(differences, figures, graphfit's plan) of the tensors shared among the target, draft
    and draft-extend runners of a static speculative line; None when either side refuses
    the line, SGLang builds no draft runner, or the line is adaptive (the adaptive oracle's)."""
    sg = sc.sglang(argv, 80)
    if sg.rejected is not None or not sg.runners or not (
            {"draft_extend", "dflash_draft", "mtp_draft_extend", "dspark_draft"}
            & set(sg.runners)):
        return None
    r = sg.resolved
    assert isinstance(r, so.Resolved)
    plan = dc.pasted(argv, 80).plan
    if plan is None or plan.config.speculative_adaptive:
        return None
    built = {int(plan.config.num_speculative_tokens): built_shared(r)}
    diffs, figures = sa.compare_sharing(plan, r, built)
    # graphfit's bytes of the same modelled buffers, each shared buffer once
    ours = sa.graphfit_groups(plan, sa.modelled_users(plan, built))
    figures["graphfit_bytes"] = sum(t.numel * t.element_size for t in ours)
    return diffs, figures, plan
