"""The mamba state cache sized from memory (graphfit.planner.engines.sglang_mamba_memory):
properties of the restated formula and the plan's line; graphfit == SGLang's own code is
tests/oracle/test_sglang_mamba_memory_oracle.py."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit import ConfigError, EngineConfig
from graphfit.planner.engines.sglang_mamba_memory import (
    GIB,
    MambaMemory,
    MambaStateShape,
    pp_stage,
    stage_bytes,
)
from graphfit.planner.engines.sglang_pool import request_pool
from graphfit.planner.plan import plan

QWEN3_NEXT = (36, 4096, 16, 32, 128, 128, 4)  # 48 layers, every 4th full attention

SHAPES = st.builds(MambaStateShape, st.integers(1, 64), st.integers(1, 8192),
                   st.integers(1, 32), st.integers(1, 64), st.integers(1, 256),
                   st.integers(1, 256), st.integers(2, 8))
MEMORY = st.fixed_dictionaries({
    "preload_avail_gb": st.floats(1, 200), "weights": st.floats(0, 1),
    "mem_fraction_static": st.floats(0.3, 0.98), "full_memory_ratio": st.floats(0.01, 8),
    "bytes_per_request": st.integers(1, 1 << 30)})


def _memory(d: dict[str, Any]) -> MambaMemory:
    return MambaMemory(preload_avail_gb=d["preload_avail_gb"],
                       weights_gb=d["weights"] * d["preload_avail_gb"],
                       mem_fraction_static=d["mem_fraction_static"],
                       full_memory_ratio=d["full_memory_ratio"],
                       bytes_per_request=d["bytes_per_request"])


@given(SHAPES, st.sampled_from((1, 2, 4, 8)), st.sampled_from(("float32", "bfloat16")))
def test_state_bytes_split_over_tp(shape: MambaStateShape, tp: int, dtype: str) -> None:
    """Per rank, the state takes at most 1/tp of a widened whole (never less than its share
    of the heads), and float32 SSM states never take less than bfloat16 ones."""
    try:
        per_rank = shape.bytes_per_request(tp, dtype)
    except ConfigError:
        return  # a width that does not divide the heads: SGLang asserts too
    whole = shape.bytes_per_request(1, dtype)
    assert per_rank * tp >= whole
    assert shape.bytes_per_request(tp, "float32") >= shape.bytes_per_request(tp, "bfloat16")


@given(MEMORY)
def test_slots_fill_the_budget_and_no_more(d: dict[str, Any]) -> None:
    """cache_size + 1 slots (SGLang's padding slot) fit the state budget; one more does not."""
    memory = _memory(d)
    r = memory.full_memory_ratio
    budget = memory.rest_gb() * r / (1 + r) * GIB
    try:
        size = memory.cache_size()
    except ConfigError:
        assert budget < 2 * memory.bytes_per_request
        return
    assert (size + 1) * memory.bytes_per_request <= budget + 1e-6 * budget
    assert (size + 2) * memory.bytes_per_request > budget - 1e-6 * budget


@given(MEMORY, st.floats(0.0, 0.5))
def test_heavier_weights_never_more_slots(d: dict[str, Any], more: float) -> None:
    light = _memory(d)
    heavy = _memory({**d, "weights": min(1.0, d["weights"] + more)})
    try:
        heavy_size = heavy.cache_size()
    except ConfigError:
        return
    assert light.cache_size() >= heavy_size


def sg(top: dict[str, Any] | None = None, **options: Any) -> EngineConfig:
    return EngineConfig.from_dict({
        "engine": "sglang", "architecture": "Qwen3NextForCausalLM", "max_num_seqs": 3000,
        "max_model_len": 262144, **(top or {}), "options": {"gpu_memory_gb": 80, **options}})


def test_memory_caps_the_pool_and_says_so() -> None:
    config = sg(weights_gb=20.0, mamba_state_shape=QWEN3_NEXT)
    p = plan(config)
    slots = p.config.mamba_memory_slots
    assert slots is not None and request_pool(p.config) == min(3000, slots // 5)
    line = dict(p.engine_inputs)["max_mamba_cache_size"]
    assert line.startswith(f"{slots} state slots from memory") and "assumed" in line


@pytest.mark.parametrize(("options", "why"), [
    ({"mamba_state_shape": QWEN3_NEXT}, "needs --weights-gb"),
    ({"weights_gb": 20.0}, "linear-attention config"),
    ({"weights_gb": 20.0, "mamba_state_shape": QWEN3_NEXT, "pp_size": 2}, "pipeline"),
])
def test_not_restated_keeps_the_pool(options: dict[str, Any], why: str) -> None:
    p = plan(sg(**options))
    assert p.config.mamba_memory_slots is None and request_pool(p.config) == 3000
    assert why in dict(p.engine_inputs)["max_mamba_cache_size"]


def test_flags_fix_the_size() -> None:
    p = plan(sg(weights_gb=20.0, mamba_state_shape=QWEN3_NEXT, max_mamba_cache_size=500))
    assert p.config.mamba_memory_slots is None
    assert "max_mamba_cache_size" not in dict(p.engine_inputs)
    assert request_pool(p.config) == 100  # 500 // 5


def test_weights_beyond_the_budget_refused() -> None:
    with pytest.raises(ConfigError, match="no GPU memory left for the mamba state cache"):
        plan(sg(weights_gb=79.0, mamba_state_shape=QWEN3_NEXT))


@given(MEMORY, st.integers(1, 16), st.integers(1, 6))
def test_joint_solve_fits_the_intermediate_states(d: dict[str, Any], drafts: int,
                                                  ratio: int) -> None:
    """With speculation, K state slots + the padding slot and D intermediate states for
    K / ratio requests + 1 fit the budget together, one more slot does not; never more
    slots than without speculation (kv_cache_configurator.py:3344-3360)."""
    plain = _memory(d)
    memory = MambaMemory(**{**plain.__dict__, "draft_tokens": drafts,
                            "slots_per_request": ratio})
    r, per = memory.full_memory_ratio, memory.bytes_per_request
    budget = memory.rest_gb() * r / (1 + r) * GIB
    try:
        size = memory.cache_size()
    except ConfigError:
        assert budget < per * (2 + drafts * (1 + 1 / ratio)) * (1 + 1e-6)
        return

    def used(k: int) -> float:
        return (k + 1) * per + (k / ratio + 1) * drafts * per

    assert used(size) <= budget * (1 + 1e-6)
    assert used(size + 1) > budget * (1 - 1e-6)
    assert size <= plain.cache_size()


def test_speculation_solves_jointly_and_says_so() -> None:
    config = sg({"spec_method": "mtp", "num_speculative_tokens": 3,
                 "speculative_eagle_topk": 1, "speculative_num_draft_tokens": 4},
                weights_gb=20.0, mamba_state_shape=QWEN3_NEXT)
    p = plan(config)
    slots = p.config.mamba_memory_slots
    plain = plan(sg(weights_gb=20.0, mamba_state_shape=QWEN3_NEXT)).config.mamba_memory_slots
    assert slots is not None and plain is not None and slots < plain
    assert request_pool(p.config) == min(3000, slots // 5)
    assert "4 intermediate SSM states" in dict(p.engine_inputs)["max_mamba_cache_size"]


@given(st.integers(1, 20000), st.floats(0.0, 0.8), st.booleans())
def test_fixed_cache_refused_exactly_when_no_memory_is_left(m: int, weights: float,
                                                            spec: bool) -> None:
    """--max-mamba-cache-size fixes the cache: graphfit refuses the line exactly when the
    fixed states (and under speculation the intermediate ones) leave no memory after the
    weights (kv_cache_configurator.py:3043), and the refusal only grows with the weights."""
    top = ({"spec_method": "mtp", "num_speculative_tokens": 3, "speculative_eagle_topk": 1,
            "speculative_num_draft_tokens": 4} if spec else {})
    per = MambaStateShape.of(QWEN3_NEXT).bytes_per_request(1, "float32")
    rest = 80 - 80 * weights - 80 * (1 - 0.83)  # 0.83: the default fraction at 80 GB
    served = min(3000, m // 5)
    need = ((m + 1) + ((served + 1) * 4 if spec else 0)) * per / GIB
    try:  # resolution (the configuration's construction) decides it
        plan(sg(top, weights_gb=80 * weights, mamba_state_shape=QWEN3_NEXT,
                max_mamba_cache_size=m))
        refused = False
    except ConfigError as exc:
        refused = "no GPU memory" in str(exc)
    if abs(rest - need) > 1e-6:
        assert refused == (rest <= need)


@given(st.lists(st.sampled_from([0, 1]), min_size=1, max_size=96).map(lambda v: (*v, 1)),
       st.integers(1, 8), st.integers(1, 1 << 24))
def test_pipeline_stage_share(layer_map: tuple[int, ...], pp: int, per: int) -> None:
    """Each rank is charged the widest stage's share (kv_cache_configurator.py:3233-3254):
    never more than the whole state, never less than an even split of it; the stages tile
    the layers (distributed/utils.py:110-150)."""
    stages = [pp_stage(len(layer_map), rank, pp) for rank in range(pp)]
    assert stages[0][0] == 0 and stages[-1][1] == len(layer_map)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(stages))
    stage = stage_bytes(per, layer_map, pp)
    assert stage <= per
    assert stage * pp >= per - pp


def test_attention_cp_narrows_the_state_width() -> None:
    """--attn-cp-size: the solve is the same, on the attention-TP width tp / (dp x cp)
    (runtime_context.py:477-486); TP 4 with CP 2 prices a state as TP 2 does (the oracle
    measures it against SGLang: measure_sglang_mamba_memory cp)."""
    cp = plan(sg(weights_gb=20.0, mamba_state_shape=QWEN3_NEXT, tp_size=4, attn_cp_size=2))
    tp2 = plan(sg(weights_gb=20.0, mamba_state_shape=QWEN3_NEXT, tp_size=2))
    tp4 = plan(sg(weights_gb=20.0, mamba_state_shape=QWEN3_NEXT, tp_size=4))
    assert cp.config.mamba_memory_slots is not None
    assert tp4.config.mamba_memory_slots is not None
    assert cp.config.mamba_memory_slots < tp4.config.mamba_memory_slots
    per = MambaStateShape.of(QWEN3_NEXT)
    assert per.bytes_per_request(2, "float32") == 2 * per.bytes_per_request(4, "float32")
    assert tp2.config.mamba_memory_slots is not None


@pytest.mark.parametrize(("options", "message"), [
    ({"mm_feature_transport": "cuda_vmm", "pp_size": 2}, "cuda_vmm"),
    ({"mamba_state_shape": QWEN3_NEXT, "mamba_layer_map": (1, 0, 1)}, "mamba_layer_map"),
])
def test_cross_field_refusals(options: dict[str, Any], message: str) -> None:
    """cuda_vmm under PP is SGLang's ValueError (serving_hook.py:894); a layer map that does
    not count the shape's layers is inconsistent input."""
    with pytest.raises(ConfigError, match=message):
        plan(sg(**options))
    plan(sg(**{k: v for k, v in options.items() if k not in ("pp_size", "mamba_layer_map")}))


def test_nemotron_h_refuses_attention_cp() -> None:
    """SGLang's ValueError for Nemotron-H with --attn-cp-size > 1 (parallel_hook.py:76-77),
    any memory input; other hybrid models plan CP."""
    nemotron = {"architecture": "NemotronHForCausalLM"}
    with pytest.raises(ConfigError, match="Nemotron-H"):
        plan(sg(nemotron, tp_size=2, attn_cp_size=2))
    plan(sg(nemotron, tp_size=2))
    plan(sg(tp_size=2, attn_cp_size=2))
