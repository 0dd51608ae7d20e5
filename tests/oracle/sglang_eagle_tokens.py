"""The EAGLE draft runners' `global_num_tokens` entries (issue 23, s69p;
graphfit.planner.engines.sglang_eagle_tokens): SGLang 0.5.23's own
`EAGLEDraftCudaGraphRunner` / `EAGLEDraftExtendCudaGraphRunner` constructors (built by
tests.oracle.sglang_oracle under the draft's all-to-all backend context, as
eagle_worker_v2.py:286-296 builds them) against graphfit's plan of the same pasted line.

`rows` compares `global_num_tokens_gpu` and `global_num_tokens_for_logprob_gpu` on every
runner in both directions (entries and dtype; a buffer one side has and the other lacks),
which the buffer comparison leaves out as fixed-axis. `verdict` adds every aspect the a2a
oracle compares (tests.oracle.sglang_moe_a2a_compare). The lines drawn are EAGLE lines on
the oracle's MoE model: a target all-to-all backend, TP / attention DP, the DP LM head,
`--moe-dense-tp-size`, a draft backend, one to three steps.
"""

from __future__ import annotations

from typing import Any

from tests.oracle import sglang_moe_a2a_compare as mc

NAMES = ("global_num_tokens_gpu", "global_num_tokens_for_logprob_gpu")
DENSE = "--moe-dense-tp-size"


def eagle(steps: int) -> tuple[str, ...]:
    """EAGLE with the oracle's model as its own draft, top-k 1."""
    return ("--speculative-algorithm", "EAGLE", "--speculative-num-steps", str(steps),
            "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", str(steps + 1),
            "--speculative-draft-model-path", mc.model_dir())


def rows(sg: Any, gf: Any) -> list[str]:
    """One line per runner buffer whose entries or dtype differ, or that one side lacks;
    nothing where either side refuses the line or builds no runners."""
    from tests.oracle import sglang_compare as sc

    if sg.rejected is not None or gf.rejected is not None or sg.runners is None:
        return []
    out = []
    for name, run in sg.runners.items():
        component = gf.plan.components.get(sc.GF_COMPONENT.get(name, name))
        if component is None:
            continue
        planned = {b.name: b for b in component.buffers}
        for buf in NAMES:
            theirs, ours = run.buffers.get(buf), planned.get(buf)
            sg_side = None if theirs is None else (int(theirs.shape[0]), theirs.dtype)
            gf_side = None if ours is None else (ours.capacity, ours.dtype)
            if sg_side != gf_side:
                out.append(f"{name}.{buf}: SGLang {sg_side}, graphfit {gf_side}")
    return out


def draw(rng: Any) -> tuple[str, ...]:
    """One EAGLE line (`rng`: a random.Random)."""
    backend = rng.choice(("none", "none", "deepep", "deepep", "mooncake"))
    argv = ["--moe-a2a-backend", backend]
    if backend == "deepep" and rng.random() < 0.5:
        argv += ["--deepep-mode", "low_latency"]
    tp = rng.choice((1, 2, 4, 4, 8))
    if tp > 1:
        argv += ["--tp-size", str(tp)]
        if rng.random() < 0.6:
            argv += ["--attn-dp-size", str(rng.choice([d for d in (2, 4, 8) if tp % d == 0]))]
            if rng.random() < 0.6:
                argv.append("--enable-dp-lm-head")
    dense = rng.choice((None, None, 1, 1, tp))
    if dense is not None:
        argv += [DENSE, str(dense)]
    if rng.random() < 0.5:
        argv += ["--max-running-requests", str(rng.randint(1, 64))]
    argv += eagle(rng.randint(1, 3))
    if rng.random() < 0.6:
        argv += ["--speculative-moe-a2a-backend",
                 rng.choice(("none", "deepep", "mooncake", "ascend_tp"))]
    return tuple(argv)


def verdict(argv: tuple[str, ...]) -> tuple[str, str]:
    """("agree" | "differ" | "other", the line and what differs): the a2a oracle's aspects,
    then `rows`; "other" where graphfit refuses as not modelled a line SGLang starts."""
    return mc.verdict_with(argv, rows)


__all__ = ["DENSE", "NAMES", "draw", "eagle", "rows", "verdict"]
