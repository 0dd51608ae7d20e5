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
    return EngineConfig.from_dict({
        "engine": "sglang", "max_num_seqs": draw(st.integers(1, 160)),
        "options": {"tp_size": tp, "attn_dp_size": dp,
                    "moe_a2a_backend": draw(st.sampled_from((*LIVE, "none", "ascend_tp"))),
                    "two_batch_overlap": draw(st.booleans()),
                    "cuda_graph_backend_prefill": "disabled"}})


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


@pytest.mark.parametrize("backend", sorted(a2a.REFUSED))
def test_refused_backends_say_why(backend: str) -> None:
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
    with pytest.raises(ConfigError, match="--disable-prefill-cuda-graph"):
        prefill("deepep")


def test_rehearsed_on_cpu_graph_equals_eager() -> None:
    pytest.importorskip("torch")
    from graphfit.cudagraph.rehearsal import rehearse

    p = graphfit.plan(EngineConfig.from_dict({
        "engine": "sglang", "max_num_seqs": 24,
        "options": {"tp_size": 4, "moe_a2a_backend": "deepep",
                    "cuda_graph_backend_prefill": "disabled"}}))
    report = rehearse(p)
    assert report.ok and report.replayed == report.graphs > 0
