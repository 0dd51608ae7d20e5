"""TensorRT-LLM's one-sided MoE all-to-all workspace: graphfit against the restated engine
(tests/oracle/trtllm_reference.py: `ref.moe_a2a_offsets`, `ref.cite_fact("moe_a2a_aux_layout")`;
`ref.moe_a2a_workspace_size`, `ref.cite_fact("moe_a2a_workspace_size")`).

The workspace is MNNVL fabric memory, one per process, allocated by the first `MoeAlltoAll`
(`ref.cite_fact("moe_a2a_singleton")`): graphfit shows its bytes on lines with MoE expert
parallelism and counts them in no capacity. The checks: figures worked by hand from the C++
layout (no graphfit code involved), graphfit's sizes equal to the reference's over generated
sizes, and the plan's line (present exactly when the mapping's moe_ep_size > 1, with the
reference's auxiliary bytes, and no buffer or capacity changed by it).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import ConfigError, plan
from graphfit.planner.engines.trtllm_moe_a2a import A2aWorkspace
from tests.oracle import trtllm_reference as ref
from tests.oracle.test_trtllm_reference import graphfit_config

WHY = (ref.cite_fact("moe_a2a_aux_layout"), ref.cite_fact("moe_a2a_max_top_k"),
       ref.cite_fact("moe_a2a_workspace_size"), ref.cite_fact("moe_a2a_build"))


def test_hand_worked_layout_and_sizes() -> None:
    """Worked by hand from calculateOffsets and calculate_required_workspace_size.

    ep 3, 5 tokens, no EPLB: flag 0, counter 4, send counters 8 (+12), recv counters 20 (+12)
    = 32; dispatch flags at 128 (+12 = 140); combine flags at 256 (+12); top-k target ranks
    at 384 (+5 x 22 x 4 = 440 -> 824); send indices at 896 (-> 1336); EPLB stats and payload
    at 1408. Payload, 15 rows, hidden 7 x 2 bytes, top_k 3, 5 extra bytes: 1408 + 210 = 1618
    -> 1664; + 180 = 1844 -> 1920; + 180 = 2100 -> 2176; + 75 = 2251 -> 2304; + 210 = 2514 ->
    2560. DeepSeek-V3-like ep 4, 8192 tokens, hidden 7168 bf16, top_k 8: aux 384 + 2 x
    720,896 = 1,442,176 (all aligned); + 2 x 469,762,048 + 2 x 1,048,576 = 943,063,424.
    ep 8, 100 tokens, EPLB 256 experts: target ranks 384 -> 9184, send indices 9216 -> 18016,
    stats 18048 + 8192 = 26240, payload 26240."""
    offsets = ref.moe_a2a_offsets(3, 5)
    assert list(offsets.values()) == [0, 4, 8, 20, 128, 256, 384, 896, 1408, 1408], WHY
    small = A2aWorkspace(3, 5)
    assert small.aux_bytes == 1408
    assert small.size_per_rank(14, 3, 5) == 2560 == ref.moe_a2a_workspace_size(3, 3, 5, 7, 2,
                                                                               None, 5)
    big = A2aWorkspace(4, 8192)
    assert big.aux_bytes == 1_442_176 == ref.moe_a2a_offsets(4, 8192)["payload_data"]
    assert big.size_per_rank(7168 * 2, 8) == 943_063_424 == ref.moe_a2a_workspace_size(
        4, 8, 8192, 7168, 2)
    assert A2aWorkspace(8, 100, 256).aux_bytes == 26_240 == ref.moe_a2a_offsets(
        8, 100, 256)["payload_data"]
    # TRTLLM_MOE_A2A_WORKSPACE_MB replaces the whole size (ref.cite_fact("moe_a2a_env_override"))
    assert A2aWorkspace(4, 8192, env_mb=64).size_per_rank(7168 * 2, 8) == 64 << 20 == \
        ref.moe_a2a_workspace_size(4, 8, 8192, 7168, 2, env_mb="64")


@settings(max_examples=200, deadline=None)
@given(ep=st.integers(1, 64), tokens=st.integers(1, 20000),
       eplb=st.none() | st.integers(1, 512), hidden=st.integers(1, 16384),
       itemsize=st.sampled_from([1, 2, 4]), top_k=st.integers(1, 22),
       extra=st.integers(0, 64))
def test_sizes_equal_the_engines(ep: int, tokens: int, eplb: int | None, hidden: int,
                                 itemsize: int, top_k: int, extra: int) -> None:
    """graphfit's auxiliary and total bytes are the restated engine's, for any sizes; the
    layout's aligned fields start on a cache line and no field overlaps the next."""
    offsets = ref.moe_a2a_offsets(ep, tokens, eplb)
    ours = A2aWorkspace(ep, tokens, eplb)
    assert ours.aux_bytes == offsets["payload_data"], WHY
    assert ours.size_per_rank(hidden * itemsize, top_k, extra) == ref.moe_a2a_workspace_size(
        ep, top_k, tokens, hidden, itemsize, eplb, extra), WHY
    starts = list(offsets.values())
    assert starts == sorted(starts) and all(v % 128 == 0 for v in starts[4:])


@settings(max_examples=40, deadline=None)
@given(tp=st.sampled_from([1, 2, 4, 8]), ep=st.none() | st.sampled_from([1, 2, 4, 8]),
       moe_tp=st.none() | st.sampled_from([1, 2, 4, 8]),
       tokens=st.none() | st.integers(64, 16384), adp=st.booleans())
def test_plan_shows_the_workspace_on_ep_lines_and_counts_it_nowhere(
        tp: int, ep: int | None, moe_tp: int | None, tokens: int | None, adp: bool) -> None:
    """The plan names the workspace exactly when the MoE module builds the one-sided method
    (`ref.moe_a2a_one_sided`: attention DP over more than one rank and moe_tp_size 1), with
    the engine's auxiliary bytes for (moe_ep_size, max_num_tokens); its buffers are those of
    the same line without MoE expert parallelism."""
    raw: dict[str, Any] = {"max_batch_size": 16, "tensor_parallel_size": tp,
                           "enable_attention_dp": adp}
    if tokens is not None:
        raw["max_num_tokens"] = tokens
    if ep is not None:
        raw["moe_expert_parallel_size"] = ep
    if moe_tp is not None:
        raw["moe_tensor_parallel_size"] = moe_tp
    try:
        sizes = ref.moe_mapping(raw, 1, None)
    except ref.Rejected:
        with pytest.raises(ConfigError):
            plan(graphfit_config(raw))
        return
    p = plan(graphfit_config(raw))
    shown = dict(p.engine_inputs).get("moe_a2a_workspace")
    if not ref.moe_a2a_one_sided(raw, sizes):
        assert shown is None, (raw, shown, ref.cite_fact("moe_a2a_select"))
        return
    assert shown is not None, raw
    limit = tokens if tokens is not None else 8192  # BaseLlmArgs.max_num_tokens
    aux = ref.moe_a2a_offsets(sizes.ep, limit)["payload_data"]
    match = re.search(r"(\d+) bytes \([\d.]+ MiB\) aux \+ (\d+) rows", shown)
    assert match and (int(match[1]), int(match[2])) == (aux, sizes.ep * limit), (shown, WHY)
    flat = {k: v for k, v in raw.items()
            if k not in ("moe_expert_parallel_size", "moe_tensor_parallel_size")}
    q = plan(graphfit_config(flat))
    assert {k: c.buffers for k, c in p.components.items()} == {
        k: c.buffers for k, c in q.components.items()}
    assert p.verify().ok
