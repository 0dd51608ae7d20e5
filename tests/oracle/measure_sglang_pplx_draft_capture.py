"""pplx's dispatch assert at the capture of a MoE draft's graphs (issue 23, s67m;
graphfit.planner.engines.sglang_pplx_capture.draft_problem) over drawn EAGLE lines: the
oracle's Qwen3-MoE model as its own MTP draft, a drawn pplx budget, the target's backend none
or pplx, the draft's given as pplx or left to inherit, `--deepep-mode` low_latency (sometimes
auto, which the draft's pplx refuses at build, sglang_draft_dispatch.pplx_problem), chains of
1-4 steps or a top-2 tree, half of them decode instances; s68m: a quarter of the lines take a
Gemma 4 unified assistant draft (with MoE blocks or without), whose FROZEN_KV_MTP draft loop
is captured in the same context (frozen_kv_mtp_worker_v2.py:222-230).

SGLang: its pipeline and runners (tests.oracle.sglang_moe_a2a_compare), then its own pplx
assert (tests.oracle.sglang_pplx_capture_oracle.dispatch_asserts) on every captured target
batch where the target resolved to pplx, then on the draft runners in capture order where the
draft's backend is pplx (`sglang_draft`). A line agrees when both refuse at start-up, both
plan with no batch past the budget, or graphfit names the first runner and largest batch that
assert. "other rule": SGLang's pipeline and runners start, the target's graphs pass, and
graphfit refuses without naming the budget: a model-build rule this oracle does not run, which
SGLang meets before any draft capture (the draft's pplx dispatcher in auto mode,
token_dispatcher/pplx.py:442-445).

    python -m tests.oracle.measure_sglang_pplx_draft_capture [COUNT] [SEED] [BEFORE_ROOT]"""

from __future__ import annotations

import sys
from typing import Any

from tests.oracle.measure_root import main_with_before, tally_verdicts
from tests.oracle.measure_sglang_pplx_capture import BUDGETS

# graphfit's runner names for the oracle's (graphfit.planner.engines.sglang._eagle_drafts)
GRAPHFIT_NAMES = {"draft": "drafter", "draft_extend": "draft_extend",
                  "frozen_drafter": "frozen_drafter"}


def draw(rng: Any) -> tuple[str, ...]:
    """One line (module docstring)."""
    from tests.oracle import sglang_moe_a2a_compare as mc
    from tests.oracle import sglang_pplx_capture_oracle as po

    steps, topk = rng.choice(((1, 1), (2, 1), (3, 1), (4, 1), (3, 2)))
    tokens = steps + 1 if topk == 1 else 6
    argv = [f"{po.PPLX_ENV}={rng.choice(BUDGETS)}", "--tp-size", "2", "--attn-dp-size", "2",
            "--deepep-mode", rng.choice(("low_latency", "low_latency", "low_latency", "auto"))]
    if rng.random() < 0.3:
        argv += ["--moe-a2a-backend", "pplx"]
    if rng.random() < 0.8:
        argv += ["--speculative-moe-a2a-backend", "pplx"]
    if rng.random() < 0.5:
        argv += ["--disaggregation-mode", "decode"]
    argv += ["--speculative-algorithm", "EAGLE", "--speculative-num-steps", str(steps),
             "--speculative-eagle-topk", str(topk), "--speculative-num-draft-tokens",
             str(tokens), "--speculative-draft-model-path", mc.model_dir(),
             "--model-path", mc.model_dir()]
    if rng.random() < 0.25:  # s68m: a Gemma 4 unified assistant, FROZEN_KV_MTP's draft loop
        i = argv.index("--speculative-draft-model-path")
        argv[i + 1] = po.unified_draft(rng.random() < 0.7)
        # its loop is one row a request: budgets near the captured batches
        argv[0] = f"{po.PPLX_ENV}={rng.choice((4, 8, 16, 64))}"
    return tuple(argv)


def verdict(line: tuple[str, ...]) -> tuple[str, str | None]:
    """("agree" / "differ" / "not modelled" / "other rule", the detail of a difference)."""
    from tests.oracle import sglang_moe_a2a_compare as mc
    from tests.oracle import sglang_oracle as so
    from tests.oracle import sglang_pplx_capture_oracle as po

    answer = mc.sglang(line)
    ours = mc.graphfit_cli(line).rejected
    if ours is not None and "not modelled" in ours:
        return "not modelled", None
    if answer.rejected is not None or answer.runners is None:
        return (("agree", None) if ours is not None
                else ("differ", f"SGLang refuses: {answer.rejected}"))
    assert isinstance(answer.resolved, so.Resolved)
    batch = (po.sglang(line)[1] if answer.resolved.record.moe_a2a_backend == "pplx"
             else None)
    if batch is not None:
        named = ours is not None and f"decode batch {batch} x" in ours
        return ("agree", None) if named else ("differ", f"target asserts at {batch}: {ours}")
    if ours is not None and po.PPLX_ENV not in ours:  # e.g. the draft's build in auto mode
        return "other rule", f"SGLang's pipeline starts; {ours}"
    frozen = any("graphfit-unified-" in word for word in line)
    # a dense unified draft makes no dispatcher: SGLang's own decoder decides (s68m)
    found = po.sglang_draft(line) if not frozen or po.gemma4_draft_is_moe(line) else None
    if found is not None:
        runner, bs = found
        named = ours is not None and f"{GRAPHFIT_NAMES[runner]} batch {bs} x" in ours
        return ("agree", None) if named else ("differ", f"{runner} asserts at {bs}: {ours}")
    return ("agree", None) if ours is None else ("differ", f"SGLang starts; {ours}")


def measure(count: int, seed: int) -> dict[str, int]:
    return tally_verdicts(count, seed, draw, verdict)


if __name__ == "__main__":
    raise SystemExit(main_with_before("measure_sglang_pplx_draft_capture", measure,
                                      sys.argv[1:], 40, "pplx draft lines"))
