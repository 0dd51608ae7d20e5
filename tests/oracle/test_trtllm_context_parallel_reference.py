"""TensorRT-LLM context parallelism as graph planning sees it: graphfit against the restated
engine (tests/oracle/trtllm_reference.py, `ref.context_parallel`).

* `context_parallel_size` > 1 with a cp_type other than HELIX (none given included): the
  warmup returns before the capture (`ref.cite_fact("cp_warmup_skipped")`) and no graph is
  captured afterwards (`ref.cite_fact("capture_gate")`), so every generation batch runs
  eagerly while the runner's static tensors keep their rows. graphfit's per-rank plan must
  dispatch every reachable batch as the restated engine does and plan every buffer with the
  engine's elements.
* A cp_type that is no `CpType` name (`ref.cite_fact("cp_types")`) and a moe_expert_parallel_size
  other than 1 beside non-helix CP (`ref.cite_fact("cp_moe_refused")`): TensorRT-LLM refuses
  them; graphfit refuses both with TensorRT-LLM's message. HELIX above 1: graphfit
  refuses it as not modelled, one line naming helix.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import ConfigError, plan
from tests.helpers import run_cli
from tests.oracle import trtllm_reference as ref
from tests.oracle.measure_trtllm_context_parallel import element_counts
from tests.oracle.test_trtllm_reference import graph_sizes, graphfit_config, graphfit_dispatch

CP_SPELLINGS = (None, "ULYSSES", "ulysses", "Star", "RING", "HELIX", "helix")


@st.composite
def cp_lines(draw: st.DrawFn) -> dict[str, Any]:
    raw: dict[str, Any] = {"max_batch_size": draw(st.integers(1, 200)),
                           "max_num_tokens": draw(st.integers(1, 2000)),
                           "context_parallel_size": draw(st.sampled_from([None, 1, 2, 4, 8])),
                           "tensor_parallel_size": draw(st.integers(1, 4))}
    kind = draw(st.sampled_from((*CP_SPELLINGS, "missing")))
    if kind != "missing":
        raw["cp_config"] = {} if kind is None else {"cp_type": kind}
    graph = draw(st.sampled_from(["missing", "null", "map"]))
    if graph == "null":
        raw["cuda_graph_config"] = None
    elif graph == "map":
        cfg: dict[str, Any] = {"enable_padding": draw(st.booleans())}
        if draw(st.booleans()):
            cfg["batch_sizes"] = draw(st.lists(st.integers(1, 200), min_size=1, max_size=6))
        raw["cuda_graph_config"] = cfg
    if draw(st.booleans()):
        raw["speculative_config"] = {"decoding_type": "MTP",
                                     "max_draft_len": draw(st.integers(1, 3))}
    if draw(st.integers(0, 4)) == 0:
        raw["moe_expert_parallel_size"] = draw(st.sampled_from([1, 2, 4]))
    return raw


@settings(max_examples=80, deadline=None)
@given(cp_lines())
def test_context_parallel_ranks_plan_as_the_engine_runs(raw: dict[str, Any]) -> None:
    """Every reachable generation batch replays the graph the restated engine replays (none
    above cp 1 without helix), and the buffers are the engine's elements, the graph runner's
    static tensors included; helix is refused, naming it."""
    engine = ref.model_engine(ref.llm_args(raw))
    try:
        theirs = ref.context_parallel(raw, engine)
    except ref.NotModelled as exc:  # helix, with the reason `ref.helix_reason` gives
        with pytest.raises(ConfigError, match=f"helix.*{re.escape(str(exc))}"):
            plan(graphfit_config(raw))
        return
    except ref.Rejected as exc:  # the mapping's MoE refusals (`cite_fact("cp_moe_refused")`,
        # `cite_fact("moe_sizes")`)
        with pytest.raises(ConfigError, match=re.escape(str(exc))):
            plan(graphfit_config(raw))
        return
    p = plan(graphfit_config(raw))
    why = (ref.cite_fact("cp_warmup_skipped"), ref.cite_fact("capture_gate"), raw)
    assert graph_sizes(p) == theirs.captured_sizes, why
    for b in engine.reachable_generation_batches():
        assert graphfit_dispatch(p, b) == theirs.dispatch(b), (b, why)
    want = theirs.buffers()
    got = element_counts(p)
    for name, elems in want.items():
        assert got.get(name, 0) == elems, (name, elems, got.get(name), raw)
    if not theirs.captures:
        assert not p.has_graphs and engine.graphs_enabled == (
            raw.get("cuda_graph_config", {}) is not None)
        shown = dict(p.engine_inputs)["context_parallel_size"]
        assert shown.startswith(f"{theirs.cp_size}, cp_type ") and "no graph" in shown
    assert p.verify().ok


def test_the_engine_captures_with_cp_1_and_not_above() -> None:
    """The same line at cp 1 and cp 2 (ulysses): cp 1 replays graphs, cp 2 replays none,
    with the same buffers; against the reference, so a planted always-capture fails."""
    base = {"max_batch_size": 64, "max_num_tokens": 512,
            "cuda_graph_config": {"enable_padding": True}}
    engine = ref.model_engine(ref.llm_args(base))
    one = plan(graphfit_config(base))
    two_raw = {**base, "context_parallel_size": 2, "cp_config": {"cp_type": "ULYSSES"}}
    two = plan(graphfit_config(two_raw))
    cp2 = ref.context_parallel(two_raw, engine)
    assert graph_sizes(one) == engine.graph_batch_sizes != ()
    assert graph_sizes(two) == cp2.captured_sizes == ()
    assert [graphfit_dispatch(two, b) for b in range(1, 65)] == [None] * 64
    assert element_counts(one) == element_counts(two) == {
        **engine.buffers(), "seq_slots": 64, "num_cached_tokens": 64}


@pytest.mark.parametrize(("cp_config", "extra", "needle"), [
    ({"cp_type": "zigzag"}, {}, "Invalid cp_type"),
    ({"cp_type": 3}, {}, "Invalid cp_type"),
    ({"cp_type": "helix"}, {}, "helix"),
    ({}, {"prefill_cuda_graph_backend": "piecewise"}, "prefill_cuda_graph_backend"),
    # STAR's MoE world is tp x cp = 2, so EP 2 passes the product check (EP 4 would not)
    ({"cp_type": "STAR"}, {"moe_expert_parallel_size": 2},
     "CP 1 doesn't support MoE tp/ep yet"),
    ({"cp_type": "star"}, {"encoder_cuda_graph_config": {"batch_sizes": [1]},
                           "encoder_max_batch_size": 1}, "encoder_cuda_graph_config"),
])
def test_refusals_are_one_line(tmp_path: Any, cp_config: dict[str, Any], extra: dict[str, Any],
                               needle: str) -> None:
    """On a trtllm-serve line with its YAML: an unknown cp_type with TensorRT-LLM's message
    (`ref.cite_fact("cp_types")`), helix and the graphs not read under CP as not modelled:
    one error line, exit 2."""
    options = tmp_path / "cp.yaml"
    options.write_text(yaml.safe_dump({"cp_config": cp_config, **extra}))
    line = ["trtllm-serve", "meta-llama/Llama-3.1-8B", "--cp_size", "2",
            "--extra_llm_api_options", str(options)]
    code, _, err = run_cli(["plan", "--", *line])
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and needle in lines[0] and len(lines[0]) <= 200, err
    if "Invalid" in needle:
        with pytest.raises(ref.Rejected, match="Invalid cp_type"):
            ref.context_parallel({"context_parallel_size": 2, "cp_config": cp_config},
                                 ref.model_engine(ref.llm_args({})))


def test_serve_cp_size_plans_the_rank_without_graphs(tmp_path: Any) -> None:
    """`--cp_size 2` alone (no cp_config: the warmup reads None, not HELIX) plans and says
    why nothing is captured; the other cp_config keys are noted as ignored."""
    options = tmp_path / "cp.yaml"
    options.write_text(yaml.safe_dump({"cp_config": {"cp_type": "STAR", "block_size": 64}}))
    base = ["trtllm-serve", "meta-llama/Llama-3.1-8B", "--max_batch_size", "64"]
    code, out, err = run_cli(["plan", "--", *base, "--cp_size", "2"])
    text = " ".join((out + err).split())
    assert code == 0, err
    assert "context_parallel_size 2, cp_type absent: no graph captured" in text
    assert "model_engine.py@c0edad93fd:1410-1416" in text
    code, out, err = run_cli(["plan", "--", *base, "--cp_size", "2",
                              "--extra_llm_api_options", str(options)])
    text = " ".join((out + err).split())
    assert code == 0, err
    assert "cp_type star: no graph captured" in text and "block_size" in text


@pytest.mark.parametrize("adp", [False, True])
@pytest.mark.parametrize("cp", [2, 4])
def test_helix_refusal_names_what_the_rank_runs(adp: bool, cp: int) -> None:
    """A helix line is refused in one line naming what its ranks run (s48t): under attention
    DP the gathered per-rank counts are ceil(tokens / cp) (`ref.cite_fact("helix_adp_counts")`);
    without it the attention's cp ranks (`ref.cite_fact("attn_cp_fallback")`). The reason is
    the reference's, so a planted swap of the two fails; the line stays within 200 chars."""
    raw: dict[str, Any] = {"max_batch_size": 32, "tensor_parallel_size": 2,
                           "context_parallel_size": cp, "cp_config": {"cp_type": "HELIX"},
                           "enable_attention_dp": adp}
    with pytest.raises(ref.NotModelled) as theirs:
        ref.context_parallel(raw, ref.model_engine(ref.llm_args(raw)))
    with pytest.raises(ConfigError) as ours:
        plan(graphfit_config(raw))
    message = str(ours.value)
    assert "helix" in message and str(theirs.value) in message, (message, raw)
    assert len(message.splitlines()) == 1 and len(message) <= 200, message
    other = ref.helix_reason(cp, not adp)
    assert other not in message, (message, ref.cite_fact("helix_adp_counts"))
