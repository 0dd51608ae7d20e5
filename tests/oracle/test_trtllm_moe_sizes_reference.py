"""TensorRT-LLM's MoE parallel sizes: graphfit against the restated mapping
(tests/oracle/trtllm_reference.py, `ref.moe_mapping`, `ref.cite_fact("moe_sizes")`).

The mapping fills in the MoE sizes a line does not give (`moe_tensor_parallel_size`,
`moe_expert_parallel_size`, `moe_cluster_parallel_size`) from the MoE world (tp_size, or
tp_size x cp_size for a cp_type other than ULYSSES) and refuses: a product other than that
world, MoE EP (given or derived) beside non-helix context parallelism, a cluster beside EP.
graphfit must refuse exactly the lines the mapping refuses, with its reason in one line, and
plan the others with the sizes the mapping derives.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import ConfigError, plan
from graphfit.planner.engines.trtllm_moe import derived_sizes
from tests.helpers import run_cli
from tests.oracle import trtllm_reference as ref
from tests.oracle.test_trtllm_reference import graphfit_config

SIZES = st.none() | st.sampled_from([1, 2, 3, 4, 8])


@st.composite
def moe_lines(draw: st.DrawFn) -> dict[str, Any]:
    raw: dict[str, Any] = {"max_batch_size": draw(st.integers(1, 64)),
                           "tensor_parallel_size": draw(st.sampled_from([None, 1, 2, 4, 8])),
                           "context_parallel_size": draw(st.sampled_from([None, 1, 2, 4])),
                           "cuda_graph_config": None}
    kind = draw(st.sampled_from([None, "missing", "ULYSSES", "star", "Ring", "HELIX"]))
    if kind != "missing":
        raw["cp_config"] = {} if kind is None else {"cp_type": kind}
    for key in ("moe_tensor_parallel_size", "moe_expert_parallel_size",
                "moe_cluster_parallel_size"):
        size = draw(SIZES)
        if size is not None:
            raw[key] = size
    return raw


def _cp(raw: dict[str, Any]) -> tuple[int, str | None]:
    cp = raw.get("context_parallel_size") or 1
    given_type = (raw.get("cp_config") or {}).get("cp_type")
    return cp, None if given_type is None else given_type.upper()


@settings(max_examples=150, deadline=None)
@given(moe_lines())
def test_moe_sizes_refused_and_derived_as_the_mapping(raw: dict[str, Any]) -> None:
    """Refused by the restated mapping: graphfit refuses with its reason; accepted: graphfit
    derives the same three sizes (and plans, helix aside, which stays not modelled)."""
    cp, kind = _cp(raw)
    why = (ref.cite_fact("moe_sizes"), raw)
    try:
        theirs = ref.moe_mapping(raw, cp, kind)
    except ref.Rejected as exc:
        with pytest.raises(ConfigError) as info:
            plan(graphfit_config(raw))
        assert str(exc).split(" (")[0] in str(info.value), (str(info.value), why)
        return
    if cp > 1 and kind == "HELIX":  # refused as not modelled once the MoE checks pass
        with pytest.raises(ConfigError, match="helix"):
            plan(graphfit_config(raw))
        return
    config = graphfit_config(raw)
    ours = derived_sizes(config)
    assert (ours.tp, ours.ep, ours.cluster) == (theirs.tp, theirs.ep, theirs.cluster), why
    assert plan(config).verify().ok


@pytest.mark.parametrize(("yaml_keys", "flags", "needle"), [
    # tp 4: moe_tp 3 and ep 3 multiply to 9
    ({"moe_tensor_parallel_size": 3, "moe_expert_parallel_size": 3}, [],
     "but got 9 != 4"),
    # tp 4: moe_tp 8 derives ep 4 // 8 = 0
    ({"moe_tensor_parallel_size": 8}, [], "but got 0 != 4"),
    # a cluster beside EP 2: the mapping's assert
    ({"moe_cluster_parallel_size": 2, "moe_expert_parallel_size": 2}, [],
     "asserts moe_ep_size == 1"),
    # moe_tp 2 at tp 4 derives EP 2, which ULYSSES CP refuses (no EP given on the line)
    ({"moe_tensor_parallel_size": 2}, ["--cp_size", "2"], "CP 0 doesn't support MoE tp/ep"),
    # STAR: the MoE world is tp x cp = 8, moe_tp 2 derives EP 4
    ({"moe_tensor_parallel_size": 2, "cp_config": {"cp_type": "STAR"}}, ["--cp_size", "2"],
     "CP 1 doesn't support MoE tp/ep"),
])
def test_refusals_are_one_line(tmp_path: Any, yaml_keys: dict[str, Any], flags: list[str],
                               needle: str) -> None:
    """On a trtllm-serve line at --tp_size 4 with its YAML: one error line, exit 2, with the
    mapping's reason; the restated mapping refuses the same line."""
    options = tmp_path / "moe.yaml"
    options.write_text(yaml.safe_dump(yaml_keys))
    line = ["trtllm-serve", "meta-llama/Llama-3.1-8B", "--tp_size", "4", *flags,
            "--extra_llm_api_options", str(options)]
    code, _, err = run_cli(["plan", "--", *line])
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and needle in lines[0] and len(lines[0]) <= 200, err
    raw = {"tensor_parallel_size": 4, **yaml_keys}
    if flags:
        raw["context_parallel_size"] = 2
    with pytest.raises(ref.Rejected):
        ref.moe_mapping(raw, *_cp(raw))


def test_sizes_that_fit_are_read_and_noted(tmp_path: Any) -> None:
    """moe_tp 2 x EP 2 at tp 4 (the mapping accepts it) plans, with a note for each size read;
    the plan is the one without them but for the two options."""
    import json

    options = tmp_path / "moe.yaml"
    options.write_text(yaml.safe_dump({"moe_tensor_parallel_size": 2,
                                       "moe_cluster_parallel_size": 1}))
    base = ["trtllm-serve", "meta-llama/Llama-3.1-8B", "--tp_size", "4", "--ep_size", "2"]
    code, out, err = run_cli(["plan", "--", *base, "--extra_llm_api_options", str(options)])
    assert code == 0, err
    text = " ".join((out + err).split())
    assert "moe_tensor_parallel_size 2: read" in text
    assert "moe_cluster_parallel_size 1: read" in text
    assert ref.moe_mapping({"tensor_parallel_size": 4, "moe_expert_parallel_size": 2,
                            "moe_tensor_parallel_size": 2, "moe_cluster_parallel_size": 1},
                           1, None) == ref.MoeSizesRef(2, 2, 1)
    code, with_sizes, _ = run_cli(["plan", "--json", "--", *base, "--extra_llm_api_options",
                                   str(options)])
    code2, plain, _ = run_cli(["plan", "--json", "--", *base])
    doc, ref_doc = json.loads(with_sizes), json.loads(plain)
    assert code == code2 == 0
    assert doc["config"]["options"].pop("moe_tensor_parallel_size") == 2
    assert doc["config"]["options"].pop("moe_cluster_parallel_size") == 1
    ref_doc["config"]["options"].pop("moe_tensor_parallel_size")
    ref_doc["config"]["options"].pop("moe_cluster_parallel_size")
    assert doc == ref_doc
