"""Whether a target config seeds SGLang's MoE runner flags: graphfit's
graphfit.inputs.sglang_a2a.dense_model against SGLang 0.5.23's own
`Scheduler.init_moe_gemm_config` on the text config its `get_config` reads (issue 23, s70h;
tests.oracle.sglang_moe_seed_oracle). A dense Gemma 4 config.json without `top_k_experts`
is seeded: its transformers text config declares the key."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("torch")

from tests.oracle import sglang_moe_seed_oracle as ms


def test_dense_model_agrees_with_sglang_moe_seed() -> None:
    from graphfit.inputs.sglang_a2a import dense_model

    pairs = [(kind, topk) for kind in ms.KINDS for topk in (False, True)]
    rng = random.Random(70)
    pairs += [ms.draw(rng) for _ in range(2)]
    wrong = [f"{kind} top-k {topk}: SGLang seeds {seeds}, graphfit dense {dense}"
             for kind, topk in pairs
             for model in (ms.model_dir(kind, topk),)
             for seeds, dense in ((ms.seeds(model), dense_model(str(model))),)
             if seeds == dense]
    assert not wrong, "\n".join(wrong)
    # the case this restates: a dense Gemma 4 config.json, seeded all the same
    gemma = ms.model_dir(ms.KINDS[0], False)
    assert ms.seeds(gemma) and not dense_model(str(gemma))


def test_unified_draft_on_dense_gemma4_target_agrees() -> None:
    """End to end: a unified assistant draft naming no draft a2a backend on a dense Gemma 4
    target under deep_gemm. The target is seeded, so the draft inherits the runner and its
    GELU experts meet DeepGemmRunnerCore's assert (graphfit.planner.engines.
    sglang_draft_gelu_runner via graphfit.inputs.sglang_draft_a2a.dense_target)."""
    from tests.oracle import sglang_draft_deepep_oracle as ddo
    from tests.oracle import sglang_draft_gelu_oracle as dg

    paths = dict(dg.paths())
    paths["llama"] = ms.gemma4_dense_target(paths["llama"])
    drawn = dg.line("unified", "none", "low_latency", "deep_gemm", True, inherited=True,
                    dense=True)
    theirs, (code, said) = ddo.answers(paths, drawn[1:], True, "H100", dense=True)
    assert theirs is not None and dg.agree(theirs, code, said), (theirs, code, said)
