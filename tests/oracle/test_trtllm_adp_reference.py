"""Attention DP's idle ranks and the ranks' gathered counts: graphfit against the restated
engine (tests/oracle/trtllm_reference.py).

* A rank holding no request joins the step with the executor's dummy generation request
  (`ref.cite_fact("adp_idle_dummy")`, the expected count `ref.cite_fact(
  "adp_expected_requests")`): over generated configs and per-rank request counts with idle
  ranks, graphfit's `plan_adp_dispatch` is the engine's padding of the batches the ranks
  all-gather after the dummies; with no request anywhere no step runs and graphfit refuses.
* The prefill graphs' attention-DP padding reads the ranks' token and context counts the
  engine all-gathers only with enable_attention_dp, one per tensor-parallel rank
  (`ref.cite_fact("adp_all_rank_counts")`): graphfit's `plan_prefill_padding` is
  `get_padding_params` on those lists, and refuses, in one line, a list of another length,
  a list without attention DP, none with it, or one that omits the rank's own count.
* Disaggregated serving (`ref.cite_fact("adp_disagg_idle")`, issue 23 s37t): on a
  generation-only server a rank's requests still receiving their KV cache (new
  generation-only requests start so) are held but not active, so a rank holding only those
  gets the dummy while any rank holds a request; graphfit's `plan_adp_dispatch(..,
  waiting=)` is the engine's padding of the batches after those dummies. On a context-only
  server a rank that takes a context-only request counts it, so no dummy is ever a context
  request.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import ConfigError, Plan, plan
from graphfit.planner.engines.trtllm import (
    attention_dp_ranks,
    plan_adp_dispatch,
    plan_prefill_padding,
    with_idle_dummies_disaggregated,
)
from tests.oracle import trtllm_reference as ref
from tests.oracle.test_trtllm_parallel_reference import parallel_lines
from tests.oracle.test_trtllm_reference import graphfit_config


def _engine_and_plan(raw: dict[str, Any]) -> tuple[Any, Plan, tuple[int, ...], int]:
    """A generated line's restated engine, graphfit's plan, its capture sizes (none without
    graphs) and its attention-DP ranks."""
    engine = ref.model_engine(ref.llm_args(raw))
    p = plan(graphfit_config(raw))
    sizes = p.capture_sizes if p.has_graphs else ()
    return engine, p, sizes, attention_dp_ranks(p.config)


@settings(max_examples=40, deadline=None)
@given(parallel_lines())
def test_idle_ranks_join_with_the_executors_dummy(case: tuple[dict[str, Any], int]) -> None:
    raw, seed = case
    engine, p, sizes, ranks = _engine_and_plan(raw)
    if ranks == 1:
        return
    rng = random.Random(seed)
    for _ in range(20):
        active = [rng.choice([0, 0, rng.randint(1, raw["max_batch_size"])])
                  for _ in range(ranks)]
        joined = ref.adp_batches_with_dummies(active, ranks)
        if joined is None:
            with pytest.raises(ConfigError, match="no rank holds a request"):
                plan_adp_dispatch(p.config, sizes, tuple(active))
            continue
        assert plan_adp_dispatch(p.config, sizes, tuple(active)) == engine.adp_dispatch(
            joined), (ref.cite_fact("adp_idle_dummy"), raw, active)
    with pytest.raises(ConfigError, match=">= 0"):
        plan_adp_dispatch(p.config, sizes, (-1,) + (1,) * (ranks - 1))


@st.composite
def prefill_cases(draw: st.DrawFn) -> tuple[dict[str, Any], list[int], list[int], int]:
    raw: dict[str, Any] = {"max_batch_size": draw(st.integers(1, 64)),
                           "max_num_tokens": draw(st.integers(64, 4096)),
                           "tensor_parallel_size": draw(st.integers(1, 6)),
                           "enable_attention_dp": draw(st.booleans()),
                           "prefill_cuda_graph_backend": draw(st.sampled_from(
                               ["piecewise", "breakable", "disabled"]))}
    if draw(st.booleans()):
        raw["prefill_capture_num_tokens"] = draw(st.lists(st.integers(1, 4096), min_size=1,
                                                          max_size=6))
    tp = raw["tensor_parallel_size"]
    tokens = draw(st.lists(st.integers(1, 5000), min_size=tp, max_size=tp))
    contexts = draw(st.lists(st.integers(0, 3), min_size=tp, max_size=tp))
    return raw, tokens, contexts, draw(st.integers(0, tp - 1))


@settings(max_examples=60, deadline=None)
@given(prefill_cases())
def test_prefill_padding_reads_the_ranks_counts_the_engine_gathers(
        case: tuple[dict[str, Any], list[int], list[int], int]) -> None:
    raw, tokens, contexts, me = case
    p = plan(graphfit_config(raw))
    sizes = p.graph_sizes("prefill") if "prefill" in p.components else ()
    tp, adp = raw["tensor_parallel_size"], raw["enable_attention_dp"]
    own, own_ctx = tokens[me], contexts[me]
    others = tokens[:me] + tokens[me + 1:]
    other_ctx = contexts[:me] + contexts[me + 1:]
    all_tokens = ref.all_rank_counts(own, others, adp, tp)
    all_ctx = ref.all_rank_counts(own_ctx, other_ctx, adp, tp)
    backend = "piecewise" if sizes else "disabled"
    want = ref.get_padding_params(own, own_ctx, all_tokens, backend, list(sizes), all_ctx)
    got = plan_prefill_padding(p.config, tuple(sizes), own, own_ctx,
                               None if all_tokens is None else tuple(all_tokens),
                               None if all_ctx is None else tuple(all_ctx))
    assert (got[0], got[1], None if got[2] is None else list(got[2])) == want, (
        ref.cite_fact("adp_all_rank_counts"), raw)
    if adp:  # one count more, or none at all, is not what the engine gathers
        for bad, match in (((*(all_tokens or ()), own), "rank token count"),
                           (None, "give one per rank")):
            with pytest.raises(ConfigError, match=match) as err:
                plan_prefill_padding(p.config, tuple(sizes), own, own_ctx, bad)
            assert "\n" not in str(err.value) and len(str(err.value)) <= 200
        missing = tuple(t + own for t in tokens)  # no entry is this rank's count
        with pytest.raises(ConfigError, match="none of the ranks"):
            plan_prefill_padding(p.config, tuple(sizes), own, own_ctx, missing)
    else:
        with pytest.raises(ConfigError, match="enable_attention_dp is off"):
            plan_prefill_padding(p.config, tuple(sizes), own, own_ctx, tuple(tokens))


def test_parallel_sizes_read_refused_or_noted(tmp_path: Any) -> None:
    """pipeline_parallel_size above 1 is refused as not modelled (one error line, exit 2), on
    the serve line and in its YAML; 1 plans as before, and so does context_parallel_size 1
    (above 1: tests/oracle/test_trtllm_context_parallel_reference.py). A
    moe_expert_parallel_size is read and noted: the plan is the same document but for that
    option (kept for the mapping's refusal beside context parallelism; the graph
    padding and the ranks' counts gather over the tp group, `ref.cite_fact("adp_padding")`,
    `ref.cite_fact("adp_all_rank_counts")`). A vLLM config file's pipeline_parallel_size
    stays a key graphfit ignores there."""
    import yaml

    from tests.helpers import run_cli

    base = ["trtllm-serve", "meta-llama/Llama-3.1-8B", "--tp_size", "4", "--max_batch_size",
            "64"]
    for flag, word in (("--pp_size", "pipeline stages"),
                       ("--pipeline_parallel_size", "pipeline stages")):
        code, _, err = run_cli(["plan", "--", *base, flag, "2"])
        lines = err.strip().splitlines()
        assert code == 2 and len(lines) == 1 and word in lines[0] and len(lines[0]) <= 200
    options = tmp_path / "o.yaml"
    options.write_text(yaml.safe_dump({"pipeline_parallel_size": 2}))
    code, _, err = run_cli(["plan", "--", *base, "--extra_llm_api_options", str(options)])
    assert code == 2 and "pipeline stages are not modelled" in err
    code, plain, _ = run_cli(["plan", "--json", "--", *base])
    assert code == 0
    for extra in (["--pp_size", "1"], ["--cp_size", "1"], ["--ep_size", "4"]):
        code, out, err = run_cli(["plan", "--json", "--", *base, *extra])
        doc = json.loads(out)
        if extra[0] == "--ep_size":  # kept as an option (for non-helix CP's refusal) only
            assert doc["config"]["options"].pop("moe_expert_parallel_size") == 4
            doc["config"]["options"]["moe_expert_parallel_size"] = None
        assert code == 0 and doc == json.loads(plain), extra
    code, out, err = run_cli(["plan", "--", *base, "--ep_size", "4"])
    assert code == 0 and "moe_expert_parallel_size 4: read" in out + err
    vllm = tmp_path / "vllm.yaml"
    vllm.write_text(yaml.safe_dump({"pipeline_parallel_size": 2, "max_num_seqs": 64}))
    code, out, err = run_cli(["plan", "--config", str(vllm)])
    assert code == 0, err


def _disagg_ranks(rng: random.Random, ranks: int, top: int, states: tuple[str, ...]
                  ) -> list[list[str]]:
    return [[rng.choice(states) for _ in range(rng.choice([0, 0, rng.randint(1, top)]))]
            for _ in range(ranks)]


@settings(max_examples=40, deadline=None)
@given(parallel_lines())
def test_generation_servers_idle_ranks_join_with_the_executors_dummy(
        case: tuple[dict[str, Any], int]) -> None:
    raw, seed = case
    engine, p, sizes, ranks = _engine_and_plan(raw)
    if ranks == 1:
        return
    rng = random.Random(seed)
    top = raw["max_batch_size"]
    for _ in range(20):
        active = _disagg_ranks(rng, ranks, top, (ref.GEN_READY, ref.GEN_INIT,
                                                 ref.GEN_TRANSFER))
        new = [(ref.GENERATION_ONLY, rng.randint(1, 64))
               for _ in range(rng.choice([0, 0, rng.randint(1, ranks)]))]
        theirs = ref.adp_disagg_dummies(active, new, ranks)
        # what each rank holds once the new requests are spread (the engine's rule)
        _, taken = ref.adp_assign_new_requests([len(a) for a in active],
                                               [n for _, n in new], ranks)
        ready = tuple(a.count(ref.GEN_READY) for a in active)
        waiting = tuple(len(a) - r + len(t) for a, r, t in zip(active, ready, taken,
                                                               strict=True))
        if theirs is None:
            with pytest.raises(ConfigError, match="no rank holds a request"):
                plan_adp_dispatch(p.config, sizes, ready, waiting)
            continue
        assert all(d in (None, "generation") for _, d in theirs), theirs
        joined = [c + (d is not None) for c, d in theirs]
        assert plan_adp_dispatch(p.config, sizes, ready, waiting) == engine.adp_dispatch(
            joined), (ref.cite_fact("adp_disagg_idle"), raw, active, new)
    with pytest.raises(ConfigError, match="waiting counts"):
        plan_adp_dispatch(p.config, sizes, (1,) * ranks, (0,) * (ranks + 1))


def test_context_servers_dummies_are_generation_requests() -> None:
    """A context-only server's rank that takes a context-only request counts it active, so
    `has_context_request` never meets an idle rank: every dummy is a generation request."""
    rng = random.Random(7)
    seen = 0
    for _ in range(400):
        ranks = rng.randint(2, 8)
        active = _disagg_ranks(rng, ranks, 6, (ref.CTX, ref.GEN_READY))
        new = [(ref.CONTEXT_ONLY, rng.randint(1, 64))
               for _ in range(rng.choice([0, rng.randint(1, 2 * ranks)]))]
        theirs = ref.adp_disagg_dummies(active, new, ranks)
        if theirs is None:
            continue
        _, taken = ref.adp_assign_new_requests([len(a) for a in active],
                                               [n for _, n in new], ranks)
        for (counted, dummy), mine in zip(theirs, taken, strict=True):
            assert dummy != "context", (ref.cite_fact("adp_disagg_idle"), active, new)
            if mine:
                assert counted >= 1 and dummy is None
        seen += sum(d is not None for _, d in theirs)
        ready = tuple(c for c, _ in theirs)
        assert with_idle_dummies_disaggregated(ready, (0,) * ranks) == tuple(
            c + (d is not None) for c, d in theirs)
    assert seen > 0  # idle ranks occurred
