"""SGLang's MoE all-to-all rules (graphfit.planner.engines.sglang_moe_a2a), as invariants:
plans with a live backend are proven by the verification, capture only multiples of the
attention-TP width, pad each decode to the smallest captured size >= it, and rehearse on the
CPU runtime with every graph equal to eager. Agreement with SGLang's own code:
tests/oracle/test_sglang_moe_a2a_oracle.py."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import graphfit
from graphfit import EngineConfig
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines import sglang_moe_a2a as a2a

LIVE = ("deepep", "mooncake", "nixl", "ascend_fuseep")


@st.composite
def configs(draw: st.DrawFn) -> EngineConfig:
    tp = draw(st.sampled_from((1, 2, 4, 8)))
    dp = draw(st.sampled_from([d for d in (1, 2, 4, 8) if tp % d == 0]))
    backend, tbo = draw(st.sampled_from((*LIVE, "none", "ascend_tp"))), draw(st.booleans())
    if tbo and dp == 1 and backend in ("none", "ascend_tp"):
        # SGLang refuses two-batch overlap with neither a resolved a2a backend nor attention
        # DP (validation_hook.py:756-772): such a line carries a live backend
        backend = draw(st.sampled_from(LIVE))
    return EngineConfig.from_dict({
        "engine": "sglang", "max_num_seqs": draw(st.integers(1, 160)),
        "options": {"tp_size": tp, "attn_dp_size": dp, "moe_a2a_backend": backend,
                    "two_batch_overlap": tbo, "cuda_graph_backend_prefill": "disabled"}})


@settings(max_examples=25, deadline=None)
@given(configs())
def test_plans_are_proven_and_aligned(config: EngineConfig) -> None:
    try:
        p = graphfit.plan(config)
    except ConfigError as exc:  # SGLang's own assertion: nothing aligned fits the pool
        assert "base_cuda_graph_runner.py:104" in str(exc)
        assume(False)
    assert p.verify().ok
    gathered = config.attn_dp_size > 1 or a2a.gathers_attention(
        config.moe_a2a_backend, config.tp_size, config.attn_dp_size)
    attn_tp = config.tp_size // config.attn_dp_size
    align = (2 if config.two_batch_overlap else 1) * (attn_tp if gathered else 1)
    sizes = list(p.capture_sizes)
    assert sizes and all(s % align == 0 for s in sizes)
    pool = config.max_num_seqs // config.attn_dp_size
    for bs in range(1, min(pool, max(sizes)) + 1):
        padded = p.pad(bs, uniform_decode=True, component="target").padded
        assert padded >= bs and padded == min(s for s in sizes if s >= bs)


def test_a_live_backend_aligns_without_attention_dp() -> None:
    def sizes(backend: str) -> tuple[int, ...]:
        return graphfit.plan(EngineConfig.from_dict({
            "engine": "sglang", "max_num_seqs": 32,
            "options": {"tp_size": 4, "moe_a2a_backend": backend,
                        "cuda_graph_backend_prefill": "disabled"}})).capture_sizes

    assert sizes("deepep") == (4, 8, 12, 16, 24, 32)
    assert sizes("none")[:3] == (1, 2, 4)
    assert sizes("ascend_tp") == sizes("none")  # moe_hook.py:463-470: resolved to none


def test_refused_backends_say_why() -> None:
    # every SGLang choice is modelled now (flashinfer_megamoe: sglang_flashinfer_megamoe);
    # a backend put back into REFUSED must still say why
    assert set(a2a.REFUSED) <= set(a2a.BACKENDS) and "flashinfer_megamoe" not in a2a.REFUSED
    for backend in sorted(a2a.REFUSED):
        with pytest.raises(ConfigError, match="is not modelled"):
            EngineConfig.from_dict({"engine": "sglang", "max_num_seqs": 8,
                                    "options": {"moe_a2a_backend": backend}})
    with pytest.raises(ConfigError, match="is not one of"):
        a2a.check_backend("nccl")


def test_prefill_rules() -> None:
    def prefill(backend: str) -> bool:
        p = graphfit.plan(EngineConfig.from_dict({
            "engine": "sglang", "max_num_seqs": 16,
            "options": {"tp_size": 2, "moe_a2a_backend": backend}}))
        return any(name.startswith("prefill") for name in p.components)

    assert prefill("none") and not prefill("mooncake")  # cuda_graph_hook.py:223-229
    assert prefill("deepep")  # breakable, with 8-aligned buckets (cuda_graph_hook.py:315-342)


def test_rehearsed_on_cpu_graph_equals_eager() -> None:
    pytest.importorskip("torch")
    from graphfit.cudagraph.rehearsal import rehearse

    p = graphfit.plan(EngineConfig.from_dict({
        "engine": "sglang", "max_num_seqs": 24,
        "options": {"tp_size": 4, "moe_a2a_backend": "deepep",
                    "cuda_graph_backend_prefill": "disabled"}}))
    report = rehearse(p)
    assert report.ok and report.replayed == report.graphs > 0


@st.composite
def deepep_prefill(draw: st.DrawFn) -> EngineConfig:
    tp = draw(st.sampled_from((1, 2, 4, 8)))
    dp = draw(st.sampled_from([d for d in (1, 2, 4, 8) if tp % d == 0]))
    options: dict[str, object] = {"tp_size": tp, "attn_dp_size": dp, "moe_a2a_backend": "deepep",
                                  "gpu_memory_gb": draw(st.sampled_from((24, 40, 80, 141)))}
    knob = draw(st.sampled_from(("none", "max", "list", "chunk")))
    if knob == "max":
        options["cuda_graph_max_bs_prefill"] = draw(st.integers(1, 9000))
    elif knob == "list":
        options["cuda_graph_bs_prefill"] = draw(st.lists(st.integers(1, 4000), min_size=1,
                                                         max_size=5, unique=True))
    elif knob == "chunk":
        options["chunked_prefill_size"] = draw(st.sampled_from((512, 1024, 2048, 16384)))
    return EngineConfig.from_dict({"engine": "sglang", "max_num_seqs": 32, "options": options})


@settings(max_examples=25, deadline=None)
@given(deepep_prefill())
def test_deepep_breakable_prefill_buckets(config: EngineConfig) -> None:
    """cuda_graph_hook.py:315-342: with DeepEP the breakable buckets are multiples of 8 and
    the default ladder stops at 2048 tokens, unless the attention-DP clamp regenerates it
    (parallel_hook.py:345-363); every prefill pads to the smallest bucket >= it or runs
    eagerly past the padding factor, and the plan is proven."""
    from graphfit.planner.engines.sglang_prefill_plan import prefill_graphs

    p = graphfit.plan(config)
    assert p.verify().ok
    graphs = prefill_graphs(p.config)
    if not graphs.on:
        return
    sizes = graphs.captured
    cps = graphs.chunked_prefill_size  # already divided by the attention-DP size
    clamped = (config.attn_dp_size > 1 and config.cuda_graph_max_bs_prefill is None
               and cps < 2048)
    if not clamped or config.cuda_graph_bs_prefill is not None:
        assert all(t % 8 == 0 for t in graphs.tokens)
    if config.cuda_graph_max_bs_prefill is None and config.cuda_graph_bs_prefill is None:
        assert sizes[-1] <= a2a.DEEPEP_DEFAULT_PREFILL_MAX
    for n in range(1, sizes[-1] + 1, 7):
        padded = graphs.pad(n)
        smallest = min(s for s in sizes if s >= n)
        assert padded == (smallest if smallest <= 2 * n else None)


def test_deepep_prefill_rehearsed_on_cpu() -> None:
    pytest.importorskip("torch")
    from graphfit.cudagraph.rehearsal import rehearse

    p = graphfit.plan(EngineConfig.from_dict({
        "engine": "sglang", "max_num_seqs": 8,
        "options": {"tp_size": 2, "moe_a2a_backend": "deepep",
                    "cuda_graph_max_bs_prefill": 40}}))
    # generate(40) = 4..32 step 4, rounded up to 8s (cuda_graph_hook.py:480-497, 330)
    assert p.components["prefill"].tables.sizes == (8, 16, 24, 32)
    report = rehearse(p)
    assert report.ok and report.replayed == report.graphs > 0


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(("mori", "pplx")), st.sampled_from((1, 2, 4, 8)),
       st.sampled_from((1, 2, 4, 8)), st.sampled_from((None, 128, 256, 1024, 8192)),
       st.sampled_from(("auto", "normal", "low_latency")),
       st.sampled_from(("auto", "deep_gemm", "triton")), st.sampled_from((None, 64, 200)))
def test_mori_and_pplx_start_up_checks(backend: str, tp: int, dp: int, chunk: int | None,
                                       mode: str, runner: str, decode_max: int | None) -> None:
    """moe_hook.py:543-622: the per-rank dispatch tokens (chunk // attention DP; pplx also a
    given decode max) within the default budget (4096 mori, 128 pplx); pplx also needs 2+
    attention-DP groups, low-latency dispatch and the deep_gemm / auto runner. A line that
    passes plans, proven, and gathers like any live backend."""
    assume(tp % dp == 0)
    tokens = (chunk or 8192) // dp if dp > 1 else (chunk or 8192)
    if backend == "mori":
        ok = tokens <= a2a.MORI_DISPATCH_TOKENS
    else:
        ok = (mode != "normal" and runner in a2a.PPLX_RUNNERS and dp >= 2
              and max(tokens, decode_max or 0) <= a2a.PPLX_DISPATCH_TOKENS)
    try:  # the model resolves (and so checks) the config as it is built
        p = graphfit.plan(EngineConfig.from_dict({
            "engine": "sglang", "max_num_seqs": 32, "max_cudagraph_capture_size": decode_max,
            "options": {"tp_size": tp, "attn_dp_size": dp, "moe_a2a_backend": backend,
                        "chunked_prefill_size": chunk, "deepep_mode": mode,
                        "moe_runner_backend": runner, "gpu_memory_gb": 80}}))
    except ConfigError as exc:
        assert not ok, str(exc)
        assert "moe_hook.py" in str(exc) or "base_cuda_graph_runner.py:104" in str(exc)
        return
    assert ok
    assert p.verify().ok
    assert a2a.gathers_attention(backend, tp, dp) == (dp == 1 or dp < tp)


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(("none", "deepep", "mooncake", "ascend_tp")),
       st.sampled_from((None, "none", "deepep", "nixl", "ascend_tp")),
       st.sampled_from((1, 2, 4, 8)), st.booleans())
def test_draft_runners_follow_the_draft_backend(target: str, draft: str | None, tp: int,
                                                dp_split: bool) -> None:
    """eagle_worker_v2.py:286-296: the EAGLE draft runners align to the draft backend's
    gather rule (the target's as resolved when none is given; a given ascend_tp is live),
    the target verify runner to the target's; every plan is proven."""
    dp = 2 if dp_split and tp >= 4 else 1
    p = graphfit.plan(EngineConfig.from_dict({
        "engine": "sglang", "max_num_seqs": 48, "spec_method": "eagle",
        "num_speculative_tokens": 3, "speculative_eagle_topk": 1,
        "speculative_num_draft_tokens": 4,
        "options": {"tp_size": tp, "attn_dp_size": dp, "moe_a2a_backend": target,
                    "speculative_moe_a2a_backend": draft}}))
    assert p.verify().ok
    live_draft = draft if draft is not None else a2a.live_backend(target)
    gathers = dp > 1 or (live_draft != "none" and (dp == 1 or dp < tp))
    align = tp // dp if gathers else 1
    for name in ("drafter", "draft_extend"):
        sizes = p.graph_sizes(name)
        assert sizes and all(s % align == 0 for s in sizes), (name, sizes, align)
