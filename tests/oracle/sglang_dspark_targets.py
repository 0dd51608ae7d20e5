"""DSPARK lines on a Qwen3-MoE target (issue 23, s69k): SGLang 0.5.23's own resolution and
runners against graphfit's plan of the same pasted line.

Why its own module: the block-draft oracle (sglang_block_drafts.compare_line) pastes the
oracle's Llama model and also compares graphfit given SGLang's resolved values
(`translated`), whose flags carry neither the target's all-to-all backend nor
`--moe-dense-tp-size` (graphfit has no such `graphfit plan` flags). Here SGLang's side is the
a2a oracle's (`sglang_moe_a2a_compare.sglang`: the fake device of a named GPU, so megamoe's
SM90 / SM100 check passes as on an H100; the runners sized by the Qwen3-MoE fixture's own
hidden size and vocabulary) and graphfit's is the pasted line with the GPU named
(`sglang_moe_a2a_compare.graphfit_cli`).

Compared: acceptance; the target and DSPARK draft ladders, components, every buffer both
ways, the draft's padding and the folded sampler's names (sglang_compare, as
sglang_block_drafts does), then under attention DP each runner's gather requirements
(SGLang's own `decode_graph_gather_requirements`), its `global_num_tokens` entries and every
rank's padded batch (sglang_spec_dp_compare.per_rank against graphfit's `target_gather` /
`draft_gather` / `graph_batch`).
"""

from __future__ import annotations

from tests.oracle import sglang_block_drafts as bd
from tests.oracle import sglang_compare as sc
from tests.oracle import sglang_dspark_compare as kc
from tests.oracle import sglang_moe_a2a_compare as mc
from tests.oracle import sglang_spec_dp_compare as sd

RUNNER = "dspark_draft"


def spec(gamma: int = 4, anchor: bool = False) -> tuple[str, ...]:
    """The DSPARK flags with the oracle's working draft naming its block size."""
    return ("--speculative-algorithm", "DSPARK", kc.DRAFT, kc.draft_dir("block_size", gamma,
                                                                        anchor))


def compare(argv: tuple[str, ...], gpu: float | str = "H100"
            ) -> tuple[str, list[sc.Difference]]:
    """(outcome, differences): "runner" / "no_runner" when both plan and agree, "rejected"
    when both refuse, else "differs" (module docstring). `argv` names no --model-path: the
    a2a oracle's Qwen3-MoE fixture (`sglang_moe_a2a_compare.model_dir`)."""
    sg, gf = mc.sglang(argv, gpu), mc.graphfit_cli(argv, gpu)
    settled = sc.settled_by_acceptance(sg, gf)
    if settled is not None:
        return settled
    assert sg.runners is not None and gf.plan is not None
    diffs = (sc.compare_target_ladder(sg, gf) + sc.compare_components(sg, gf)
             + sc.compare_draft_ladder(sg, gf))
    if RUNNER in sg.runners and sc._gf_graphs(gf):
        diffs += (sc.compare_buffers(sg, gf, extra=True) + sc.compare_padding(sg, gf, RUNNER)
                  + bd.compare_sampler_names(sg, gf, RUNNER))
        if sg.resolved.attn_dp_size > 1:  # type: ignore[union-attr]
            diffs += sd.per_rank(sg, gf, "DSPARK")
    outcome = "runner" if RUNNER in sg.runners else "no_runner"
    return ("differs" if diffs else outcome), diffs


def gathers(argv: tuple[str, ...], gpu: float | str = "H100"
            ) -> tuple[dict[str, tuple[bool, bool]], dict[str, tuple[bool, bool]]]:
    """(SGLang's, graphfit's) (mlp, attn) gather requirements of each runner SGLang builds
    on the line: SGLang's own `decode_graph_gather_requirements`, graphfit's `target_gather`
    / `draft_gather` on the pasted plan's config."""
    from graphfit.planner.engines.sglang_spec_dp import draft_gather, target_gather

    sg, gf = mc.sglang(argv, gpu), mc.graphfit_cli(argv, gpu)
    assert sg.runners is not None and gf.plan is not None, (sg.rejected, gf.rejected)
    ours = sd.sglang_gathers(sg, "DSPARK")
    config = gf.plan.config
    theirs = {}
    for name in ours:
        gather = target_gather(config) if name == "target" else draft_gather(config)
        theirs[name] = (gather.mlp, gather.attn)
    return ours, theirs


__all__ = ["RUNNER", "compare", "gathers", "spec"]
