"""SGLang 0.5.23's DSPARK lines: SGLang's own argument pipeline and runners against graphfit.

SGLang's side is `sglang_compare.sglang` (prepare_server_args + resolve_once with
`_handle_dspark`, then the target runner and the DSPARK draft runner + folded sampler built by
sglang_dspark_oracle.dspark_runner on CPU). graphfit reads the very same line pasted
(`graphfit plan --json -- python -m sglang.launch_server ...`), and the model-level aspects
are compared as for every other SGLang line (sglang_compare.compare_model: graphfit given
SGLang's resolved values).
"""

from __future__ import annotations

import json

from hypothesis import strategies as st

from tests.oracle import sglang_compare as sc
from tests.oracle.sglang_dflash_compare import pasted, with_draft

RUNNER = "dspark_draft"


def compare_line(argv: tuple[str, ...], gpu_mem_gb: float | None = 80
                 ) -> tuple[str, list[sc.Difference]]:
    """(outcome, differences): outcome "runner" (both plan; SGLang builds the DSPARK draft
    runner), "no_runner" (both plan, no draft graphs), "rejected" (both refuse) or
    "differs"."""
    sg = sc.sglang(argv, gpu_mem_gb)
    gf = pasted(argv, gpu_mem_gb)
    diffs = sc.compare_acceptance(sg, gf)
    if diffs:
        return "differs", diffs
    if sg.rejected is not None:
        return "rejected", []
    diffs += sc.compare_target_ladder(sg, gf) + sc.compare_components(sg, gf)
    diffs += sc.compare_draft_ladder(sg, gf)
    assert sg.runners is not None and gf.plan is not None
    if RUNNER in sg.runners and sc._gf_graphs(gf):  # the pasted line's own widths
        for name in ("target", RUNNER):
            ours = sg.runners[name].width
            theirs = gf.plan.components[name].tables.uniform_query_len
            if ours != theirs:
                diffs.append(sc.Difference(f"{name}_width", f"SGLang {ours}, graphfit "
                                                            f"{theirs}"))
    for found in sc.compare_model(sg).values():
        diffs += found
    outcome = "runner" if RUNNER in sg.runners else "no_runner"
    return ("differs" if diffs else outcome), diffs


def dspark(*extra: str, draft: bool = True) -> tuple[str, ...]:
    argv = ["--speculative-algorithm", "DSPARK", *extra]
    return tuple(with_draft(argv) if draft else argv)


@st.composite
def dspark_lines(draw: st.DrawFn) -> tuple[tuple[str, ...], float | None]:
    """Generated DSPARK lines: gamma by --speculative-dspark-block-size or the verify window
    by --speculative-num-draft-tokens (or both, equal or clashing, or out of range), steps /
    topk SGLang overrides, the decode graph settings, TP / attention DP / CP, two-batch
    overlap, a draft path mostly given. Not drawn (graphfit refuses, SGLang starts; see
    docs/engines/sglang-coverage.md): neither flag (gamma from the draft config)."""
    argv: list[str] = []
    if draw(st.integers(0, 4)) > 0:
        argv += ["--max-running-requests", str(draw(st.sampled_from(
            (draw(st.integers(1, 600)), draw(st.integers(1, 64))))))]
    argv += ["--speculative-algorithm", draw(st.sampled_from(("DSPARK", "dspark")))]
    gamma = draw(st.integers(1, 15))
    how = draw(st.sampled_from(("drafts", "drafts", "block", "block", "both", "both",
                                "clash", "low")))
    if how in ("drafts", "both"):
        argv += ["--speculative-num-draft-tokens", str(gamma + 1)]
    if how in ("block", "both"):
        argv += ["--speculative-dspark-block-size", str(gamma)]
    if how == "clash":  # speculative_hook.py:826-835
        argv += ["--speculative-num-draft-tokens", str(gamma),
                 "--speculative-dspark-block-size", str(gamma)]
    if how == "low":  # a window below 2 or a block below 1 (:807-812, :846-850)
        argv += draw(st.sampled_from((["--speculative-num-draft-tokens", "1"],
                                      ["--speculative-dspark-block-size", "0"])))
    if draw(st.integers(0, 3)) == 0:
        argv += ["--speculative-num-steps", str(draw(st.integers(1, 5))),
                 "--speculative-eagle-topk", str(draw(st.sampled_from((1, 2, 4))))]
    graphs = draw(st.sampled_from(("default", "max_bs", "bs", "padding_off", "off", "json")))
    if graphs == "max_bs":
        argv += ["--cuda-graph-max-bs-decode", str(draw(st.integers(1, 400)))]
    elif graphs == "bs":
        sizes = draw(st.lists(st.integers(1, 300), min_size=1, max_size=6, unique=True))
        argv += ["--cuda-graph-bs-decode", *map(str, sizes)]
    elif graphs == "padding_off":
        argv.append("--disable-cuda-graph-padding")
    elif graphs == "off":
        argv.append(draw(st.sampled_from(("--disable-decode-cuda-graph",
                                          "--disable-cuda-graph"))))
    elif graphs == "json":
        argv += ["--cuda-graph-config",
                 json.dumps({"decode": {"max_bs": draw(st.integers(1, 300))}})]
    tp = draw(st.sampled_from((1, 1, 2, 4)))
    if tp > 1:
        argv += ["--tp-size", str(tp)]
        split = draw(st.sampled_from(("none", "none", "dp", "cp")))
        if split == "dp":
            argv += ["--attn-dp-size", "2"]
        elif split == "cp":
            argv += ["--attn-cp-size", "2"]
    if draw(st.integers(0, 3)) == 0:
        argv.append("--enable-two-batch-overlap")
    if draw(st.integers(0, 7)) > 0:
        argv = with_draft(argv)
    gb = draw(st.sampled_from((16, 24, 48, 80, 141, 192)))
    return tuple(argv), gb
