"""SGLang adaptive speculation kept on (graphfit.planner.engines.sglang_adaptive): one graph
set per candidate step, each proven for every batch; SGLang's own code is the oracle in
tests/oracle/test_sglang_adaptive_oracle.py."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit import ConfigError, CUDAGraphMode, EngineConfig, plan
from graphfit.planner.engines import sglang as sglang_engine
from graphfit.planner.engines.sglang_adaptive import (
    candidate_steps,
    fallback_reason,
    initial_steps,
)
from graphfit.planner.engines.sglang_pool import request_pool
from graphfit.planner.engines.sglang_shared import LOGITS_SHARED, numel
from graphfit.planner.engines.sglang_tbo import TBO_SPLIT_BUFFER
from graphfit.planner.plan import Plan
from graphfit.testing import sglang_configs
from tests.helpers import run_cli

ADAPTIVE = {"engine": "sglang", "spec_method": "eagle", "speculative_adaptive": True}


def sg(**kw: object) -> EngineConfig:
    return EngineConfig.from_dict({**ADAPTIVE, **kw})


def test_default_config_candidates() -> None:
    """DEFAULT_ADAPTIVE_CONFIG (adaptive_spec_params.py:28-53): union [0, 1, 3, 5, 7], the
    middle one the start-up step (speculative_hook.py:1410-1415)."""
    assert candidate_steps() == (0, 1, 3, 5, 7)
    assert initial_steps() == 3


def test_one_graph_set_per_candidate_step() -> None:
    p = plan(sg(max_num_seqs=33))
    assert (p.config.num_speculative_tokens, p.config.speculative_eagle_topk,
            p.config.speculative_num_draft_tokens) == (3, 1, 4)
    names = set(p.components) - {"prefill"}
    assert names == {"target", "drafter", "draft_extend",
                     *(f"{r}.s{s}" for s in (0, 1, 5, 7) for r in ("target", "draft_extend")),
                     "drafter.s5", "drafter.s7"}  # a draft-decode runner only for steps > 1
    for steps in (0, 1, 5, 7):
        target, extend = p.components[f"target.s{steps}"], p.components[f"draft_extend.s{steps}"]
        assert target.tables.uniform_query_len == steps + 1
        assert target.buffer("input_ids").shape == (33 * (steps + 1),)
        assert extend.buffer("num_accept_tokens").fill.value == steps + 1
        assert p.graph_sizes(f"target.s{steps}") == p.graph_sizes("target")
    assert p.components["drafter.s7"].buffer("out_cache_loc").shape == (33 * 7,)
    assert p.verify().ok


def test_resolution_follows_sglang() -> None:
    with pytest.raises(ConfigError, match="not an adaptive candidate"):
        plan(sg(max_num_seqs=8, num_speculative_tokens=2))  # speculative_hook.py:1417-1421
    fallback = plan(sg(max_num_seqs=8, num_speculative_tokens=3, speculative_eagle_topk=4,
                       speculative_num_draft_tokens=8))  # topk 4: SGLang falls back (:76-80)
    assert not fallback.config.speculative_adaptive
    assert not any("." in name for name in fallback.components)
    assert plan(sg(max_num_seqs=8, num_speculative_tokens=7)).config.num_speculative_tokens == 7
    off = plan(sg(max_num_seqs=8, cudagraph_mode="NONE"))
    assert not any("." in name for name in off.components)


@given(sglang_configs(max_seqs=64), st.sampled_from((None, 1, 3, 5, 7)), st.integers(1, 64))
def test_every_set_pads_within_its_buffers(config: EngineConfig, steps: int | None,
                                           bs: int) -> None:
    """Any batch can be routed to any set: each set's padded batch fits its buffers."""
    try:
        config = config.replace(spec_method="eagle", frozen_kv_mtp=False,
                                multi_layer_eagle=False, speculative_eagle_topk=None,
                                speculative_num_draft_tokens=None,
                                num_speculative_tokens=steps or 0, speculative_adaptive=True)
        p = plan(config)
    except ConfigError as exc:  # SGLang's own refusals: no aligned size, or (where it falls
        # back to the static parameters) the static path's (tests/planner/
        # test_engines_sglang.py)
        assert "cuda_graph_bs_decode" in str(exc) or "speculative" in str(exc), exc
        return
    # kept on exactly where SGLang keeps it on
    assert p.config.speculative_adaptive == (fallback_reason(p.config) is None)
    assert p.verify().ok
    bs = min(bs, request_pool(p.config))
    for name, comp in p.components.items():
        if name == "prefill" or not comp.buffers:
            continue
        width = comp.tables.uniform_query_len
        d = p.pad(bs * width, uniform_decode=True, component=name)
        if d.mode is CUDAGraphMode.NONE:
            continue
        rows = d.num_reqs if d.num_reqs is not None else d.padded // width
        assert rows >= bs
        for buf in comp.buffers:
            if buf.axis.value == "requests":
                assert rows * (buf.demands[0].scale or 1) <= buf.capacity, (name, buf.name)
            elif buf.axis.value == "tokens":
                assert rows * width * (buf.demands[0].scale or 1) <= buf.capacity, (name,
                                                                                     buf.name)


def test_rehearse_captures_every_set() -> None:
    code, out, text = run_cli(["rehearse", "--engine", "sglang", "--hidden-size", "64", "--",
                               "python", "-m", "sglang.launch_server", "--model-path",
                               "/nonexistent", "--max-running-requests", "4",
                               "--speculative-algorithm", "EAGLE", "--speculative-adaptive"])
    assert code == 0, text[-400:]
    for name in ("target.s0", "draft_extend.s1", "drafter.s5", "target.s7"):
        assert f"{name}:" in out and "replayed == eager" in out
    assert "REHEARSED" in out


def test_custom_adaptive_config_is_refused_with_its_reason() -> None:
    code, _, text = run_cli(["plan", "--", "python", "-m", "sglang.launch_server",
                             "--model-path", "/nonexistent", "--speculative-algorithm", "EAGLE",
                             "--speculative-adaptive", "--speculative-adaptive-config", "c.json"])
    assert code == 2 and "--speculative-adaptive-config: a custom candidate-step file" in text


# --------------------------------------------------------------------------------------------
# Buffers SGLang shares across runners and states (graphfit.planner.engines.sglang_shared);
# SGLang's own pool is the oracle in tests/oracle/test_sglang_adaptive_oracle.py
# --------------------------------------------------------------------------------------------

def _unshared(config: EngineConfig, monkeypatch: pytest.MonkeyPatch) -> Plan:
    """The plan as before shared buffers: every set with its own copy of each buffer."""
    with monkeypatch.context() as m:
        m.setattr(sglang_engine, "share_like_sglang", lambda comps: comps)
        return plan(config)


@given(sglang_configs(max_seqs=64), st.sampled_from((None, 1, 3, 5, 7)))
def test_shared_buffers_follow_sglangs_rules(config: EngineConfig, steps: int | None) -> None:
    """Every shared buffer is one SGLang tensor: the logits of target and draft-extend
    runners (sized for the largest view), or pooled fields of one name and element count;
    the private ones (select_index, the draft sampling attributes, the TBO plugin's) never;
    the proof still covers every user, and the total counts each shared tensor once."""
    try:
        p = plan(config.replace(spec_method="eagle", frozen_kv_mtp=False,
                                multi_layer_eagle=False, speculative_eagle_topk=None,
                                speculative_num_draft_tokens=None,
                                num_speculative_tokens=steps or 0, speculative_adaptive=True))
    except ConfigError:
        return  # refusals: test_every_set_pads_within_its_buffers
    assert p.verify().ok
    if p.config.cudagraph_mode is CUDAGraphMode.NONE:
        assert not p.shared
        return
    private = {"select_index", "temperatures", "top_ks", TBO_SPLIT_BUFFER}
    for name, sb in p.shared.items():
        users = sb.users
        assert len({u.component for u in users}) == len(users) > 1
        assert not {u.name for u in users} & private
        assert sb.capacity == max(u.capacity for u in users)
        assert all(u.capacity == sb.capacity for u in users)
        if name == LOGITS_SHARED:
            assert {u.name for u in users} == {"next_token_logits_buffer"}
            assert {u.component.split(".")[0] for u in users} == {"target", "draft_extend"}
            assert sb.reference_capacity == max(u.reference_capacity for u in users)
        else:
            assert len({(u.name, numel(u.spec)) for u in users}) == 1, name
    # every pooled field of the same name and size is one tensor, whichever runner holds it
    seen: dict[tuple[str, int, str], str] = {}
    for comp in p.components.values():
        for b in comp.buffers:
            if b.shared and b.shared != LOGITS_SHARED:
                assert seen.setdefault((b.name, numel(b.spec), b.dtype), b.shared) == b.shared
    assert p.total_bytes == (sum(c.total_bytes for c in p.components.values())
                             + sum(sb.bytes for sb in p.shared.values()))


def test_shared_buffers_count_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """S=48, EAGLE adaptive: one logits tensor for the five states' target and draft-extend
    runners (48 x 8 rows: the 7-step verify), one pooled seq_lens for all 13 runners."""
    config = sg(max_num_seqs=48, gpu_memory_gb=80)
    after, before = plan(config), _unshared(config, monkeypatch)
    assert not before.shared and after.verify().ok
    logits = after.shared[LOGITS_SHARED]
    assert logits.shape == (48 * 8, after.config.vocab_size) and len(logits.users) == 10
    assert len(after.shared["pool_seq_lens"].users) == 13
    # each user's own copy before, against the one tensor now (up to the arena alignment of
    # the buffers that left their components' arenas)
    saved = sum(sum(before.buffer(u.key).bytes for u in sb.users) - sb.bytes
                for sb in after.shared.values())
    moved = sum(len(sb.users) for sb in after.shared.values())
    assert saved > 0
    assert abs(after.total_bytes - (before.total_bytes - saved)) <= 256 * moved
    assert after.total_bytes < before.total_bytes / 2


def test_runtime_allocates_each_shared_buffer_once() -> None:
    """graphfit's runtime: every state's runner views the one logits tensor."""
    torch = pytest.importorskip("torch")
    from graphfit.cudagraph import SharedBuffers, StaticBuffers

    p = plan(sg(max_num_seqs=4, hidden_size=64, vocab_size=128))
    pool = SharedBuffers.allocate(p, "cpu")
    assert pool.total_bytes == sum(sb.bytes for sb in p.shared.values())
    views = [StaticBuffers.allocate(p, "cpu", name, shared=pool)
             for name in ("target", "target.s7", "draft_extend.s1")]
    ptrs = {v["next_token_logits_buffer"].data_ptr() for v in views}
    assert ptrs == {pool[LOGITS_SHARED].data_ptr()}
    assert isinstance(pool[LOGITS_SHARED], torch.Tensor)


def test_shared_users_may_differ_in_scaled_axis_only() -> None:
    """The logits users index rows by tokens (target) or by requests (draft-extend): one
    tensor; a fixed buffer and a scaled one never are."""
    from dataclasses import replace

    from graphfit.planner.plan import SharedBufferPlan

    p = plan(sg(max_num_seqs=8))
    users = p.shared[LOGITS_SHARED].users
    assert {u.axis.value for u in users} == {"tokens", "requests"}
    fixed = p.buffer("target.global_num_tokens_gpu")
    scaled = p.buffer("drafter.seq_lens")
    clash = replace(scaled, spec=replace(scaled.spec, dtype=fixed.dtype),
                    capacity=fixed.capacity)
    with pytest.raises(ConfigError, match="shared buffer x"):
        SharedBufferPlan("x", (fixed, clash))
