"""SGLang adaptive speculation kept on (graphfit.planner.engines.sglang_adaptive): one graph
set per candidate step, each proven for every batch; SGLang's own code is the oracle in
tests/oracle/test_sglang_adaptive_oracle.py."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit import ConfigError, CUDAGraphMode, EngineConfig, plan
from graphfit.planner.engines.sglang_adaptive import (
    candidate_steps,
    fallback_reason,
    initial_steps,
)
from graphfit.planner.engines.sglang_pool import request_pool
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
