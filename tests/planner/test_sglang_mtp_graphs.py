"""Multi-layer EAGLE's draft-extend graph count (graphfit.planner.engines.sglang_mtp_graphs):
properties of the rule and of the plan that carries it. SGLang's own code decides the same
lines in tests/oracle/test_sglang_mtp_oracle.py."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit import plan
from graphfit.inputs.environment import ENV_SINGLE_CG, sglang_environment
from graphfit.planner.config import EngineConfig
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.document import plan_document
from graphfit.planner.engines.sglang_mtp_graphs import (
    DRAFT_EXTEND_BACKENDS,
    FLASH_ATTENTION,
    draft_extend_backend,
    mtp_graph_count,
)

ML = {"engine": "sglang", "spec_method": "eagle", "speculative_eagle_topk": 1,
      "multi_layer_eagle": True, "max_num_seqs": 33}
BACKENDS = sorted(DRAFT_EXTEND_BACKENDS)


def _config(steps: int, backend: str | None, single: bool) -> EngineConfig:
    return EngineConfig.from_dict({**ML, "num_speculative_tokens": steps,
                                   "mtp_draft_backend": backend, "single_cg_draft": single})


@given(st.integers(1, 6), st.sampled_from([None, *BACKENDS]), st.booleans())
def test_one_graph_per_size_or_one_per_step(steps: int, backend: str | None,
                                            single: bool) -> None:
    """Either the single-CG runner (1) or the per-step runners (steps); the single one needs
    the switch on AND a backend that refreshes its metadata in the graph; a line without a
    backend gets the larger count."""
    count = mtp_graph_count(_config(steps, backend, single)).per_size
    assert count in (1, steps)
    if count == 1 and steps > 1:
        assert single and backend in FLASH_ATTENTION
    if not single or backend is None:
        assert count == steps


@given(st.integers(1, 4), st.sampled_from([None, "fa3", "flashinfer"]), st.booleans())
def test_the_plan_counts_graphs_as_sglang_captures_them(steps: int, backend: str | None,
                                                        single: bool) -> None:
    """The plan's mtp component and its JSON say sizes x graphs per size; the sizes and the
    buffers do not depend on the count (one shared buffer set either way)."""
    p = plan(_config(steps, backend, single))
    comp = p.components["mtp_draft_extend"]
    per_size = mtp_graph_count(p.config).per_size
    assert comp.graphs_per_size == per_size
    doc = plan_document(p, p.verify())["components"]["mtp_draft_extend"]
    sizes = doc["graph_sizes"]
    assert doc.get("num_graphs", len(sizes)) == per_size * len(sizes)
    other = plan(_config(steps, "fa3" if backend != "fa3" else "triton", single))
    assert other.graph_sizes("mtp_draft_extend") == p.graph_sizes("mtp_draft_extend")
    assert p.verify().ok
    json.dumps(doc)


def test_a_backend_sglang_refuses_for_the_draft_is_refused() -> None:
    """draft_utils.py:63-64: "EAGLE is not supported in attention backend torch_native"."""
    with pytest.raises(ConfigError, match="refuses torch_native"):
        plan(_config(3, "torch_native", True))
    # not read without multi-layer EAGLE
    assert plan(EngineConfig.from_dict({**ML, "multi_layer_eagle": False,
                                        "num_speculative_tokens": 3,
                                        "mtp_draft_backend": "torch_native"})).verify().ok


NAMES = st.sampled_from(["fa3", "fa4", "flashinfer", "triton", None])


@given(NAMES, NAMES, NAMES, NAMES, st.sampled_from([None, "prefill", "decode"]))
def test_the_draft_extend_backend_follows_sglang_precedence(
        draft: str | None, prefill: str | None, decode: str | None, base: str | None,
        mode: str | None) -> None:
    """_create_backend (draft_utils.py:47-66, 145-149): the draft's own flag, else the phase's
    split flag, else the base flag; the other phase's flag is never read."""
    values = {"speculative_draft_attention_backend": draft,
              "prefill_attention_backend": prefill, "decode_attention_backend": decode,
              "attention_backend": base, "speculative_attention_mode": mode}
    found = draft_extend_backend(values)
    phase = decode if mode == "decode" else prefill
    expected = draft or phase or base
    assert (found[0] if found else None) == expected
    other = prefill if mode == "decode" else decode
    if other is not None and not (draft or phase or base):
        assert found is None


@pytest.mark.parametrize(("raw", "expected"), [
    ("1", True), ("TRUE", True), ("yes", True), ("y", True), ("0", False), ("False", False),
    ("no", False), ("N", False), ("maybe", None), ("", None), (None, None)])
def test_the_environment_switch_is_parsed_as_sglang_does(raw: str | None,
                                                         expected: bool | None) -> None:
    """EnvBool (environ.py:143-150); unset or unparsable keeps SGLang's default (on)."""
    settings = sglang_environment({} if raw is None else {ENV_SINGLE_CG: raw})
    assert [s.value for s in settings] == ([] if expected is None else [expected])
