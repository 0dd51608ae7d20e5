"""The eager share of uniform decodes (graphfit.planner.analysis.eager): counted from the
dispatch segments, it equals a batch-by-batch walk of Plan.pad; the flag it names, applied,
captures what it says; a trace's steps are counted the same way."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import CUDAGraphMode, EngineConfig, GraphfitError, Unit, plan
from graphfit.planner.analysis.eager import eager_share, uniform_family


def brute_eager(p: Any) -> tuple[int, int]:
    comp = p.components["target"]
    family = uniform_family(comp)
    assert family is not None
    eager = 0
    for r in range(family.first, family.last + 1):
        d = p.pad(r * family.step, uniform_decode=True, num_reqs=r)
        eager += d.mode is CUDAGraphMode.NONE
    return eager, family.last - family.first + 1


configs = st.one_of(
    st.builds(dict, engine=st.just("vllm"), max_num_seqs=st.integers(1, 1500),
              num_speculative_tokens=st.sampled_from([0, 1, 3, 4]),
              max_cudagraph_capture_size=st.one_of(st.none(), st.integers(1, 600))),
    st.builds(dict, engine=st.just("sglang"), max_num_seqs=st.integers(1, 700),
              max_cudagraph_capture_size=st.one_of(st.none(), st.integers(1, 300))),
    st.builds(dict, engine=st.just("trtllm"), max_num_seqs=st.integers(1, 400)))


def build(cfg: dict[str, Any]) -> Any:
    cfg = {k: v for k, v in cfg.items() if v is not None}
    if cfg.get("num_speculative_tokens"):
        cfg["spec_method"] = "mtp"
    try:
        return plan(EngineConfig(**cfg))
    except GraphfitError:
        return None


@settings(max_examples=40, deadline=None)
@given(cfg=configs, trace=st.dictionaries(st.integers(1, 2000), st.integers(1, 50),
                                          max_size=6))
def test_share_matches_a_walk_of_pad(cfg: dict[str, Any], trace: dict[int, int]) -> None:
    p = build(cfg)
    if p is None:
        return
    share = eager_share(p, trace)
    assert share is not None
    assert (share.eager, share.reachable) == brute_eager(p)
    family = uniform_family(p.components["target"])
    assert family is not None
    if p.unit is Unit.REQUESTS:  # request counts: uniform decodes
        steps = {r: n for r, n in trace.items() if r <= family.last}
        eager_steps = sum(n for r, n in steps.items() if p.pad(
            r * family.step, uniform_decode=True, num_reqs=r).mode is CUDAGraphMode.NONE)
    else:  # token counts, dispatched as a step of that many tokens
        steps = {t: n for t, n in trace.items() if t <= p.config.max_num_batched_tokens}
        eager_steps = sum(n for t, n in steps.items()
                          if p.pad(t).mode is CUDAGraphMode.NONE)
    if trace:
        assert (share.trace_eager, share.trace_steps) == (eager_steps, sum(steps.values()))
    else:
        assert share.trace_steps is None
    if share.flag is not None:  # the remedy, planned, leaves what it says
        assert share.eager_after is not None and share.eager_after < share.eager


def test_issue_example_mtp_k4_at_1024() -> None:
    """The issue's measurement: Qwen3-Next MTP k=4 at the default 1024 sequences."""
    p = plan(EngineConfig(max_num_seqs=1024, spec_method="mtp", num_speculative_tokens=4))
    share = eager_share(p)
    assert share is not None and (share.eager, share.reachable) == (922, 1024)
    assert share.flag == "--max-cudagraph-capture-size 5120" and share.eager_after == 0
    wider = plan(p.config.replace(max_cudagraph_capture_size=5120))
    assert share.graphs_added == len(wider.graph_keys()) - len(p.graph_keys())
    assert share.bytes_added == wider.total_bytes - p.total_bytes
