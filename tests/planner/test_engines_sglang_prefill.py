"""SGLang's prefill CUDA graphs (graphfit/planner/engines/sglang_prefill.py): rule properties.

Equality with SGLang's own code is tests/oracle/test_sglang_prefill_oracle.py; here the
invariants every answer must keep: the ladder is SGLang's grid cut at max, a replayed prefill
is padded to the smallest captured count >= n (never more than 2n), anything else is eager,
and refusals are ConfigErrors.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit import ConfigError, SpecMethod
from graphfit.inputs.sglang import FILE_KEYS, algorithm
from graphfit.planner.engines.sglang_prefill import (
    PADDING_FACTOR,
    PrefillInputs,
    prefill_buffers,
    prefill_token_ladder,
    resolve_prefill,
)

inputs = st.builds(
    PrefillInputs,
    backend=st.sampled_from((None, "breakable", "full", "disabled")),
    max_tokens=st.one_of(st.none(), st.integers(1, 40000)),
    tokens=st.one_of(st.none(), st.lists(st.integers(1, 9000), min_size=1, max_size=6)
                     .map(tuple)),
    chunked_prefill_size=st.one_of(st.none(), st.integers(1, 40000)),
    gpu_memory_gb=st.sampled_from((None, 16.0, 24.0, 48.0, 80.0, 141.0, 192.0)),
    two_batch_overlap=st.booleans(),
    disaggregation_mode=st.sampled_from(("null", "prefill", "decode")),
)


@given(st.integers(1, 100000))
def test_ladder_is_sglangs_grid_cut_at_max(max_tokens: int) -> None:
    ladder = prefill_token_ladder(max_tokens)
    assert ladder == sorted(set(ladder)) and all(4 <= t <= max_tokens for t in ladder)
    # (first, last, step) of each run, cuda_graph_hook.py:486-493
    runs = ((4, 32, 4), (48, 256, 16), (288, 512, 32), (576, 1024, 64), (1280, 4096, 256),
            (4608, 10**9, 512))
    expected = [t for lo, hi, step in runs for t in range(lo, min(hi, max_tokens) + 1, step)]
    assert ladder == expected


@given(inputs)
def test_replay_pads_minimally_within_twice(inp: PrefillInputs) -> None:
    try:
        graphs = resolve_prefill(inp)
    except ConfigError:
        return
    if not graphs.on:
        assert graphs.captured == () and graphs.pad(1) is None
        return
    top = graphs.captured[-1]
    assert all(c % graphs.alignment == 0 for c in graphs.captured)
    for n in sorted({1, 2, 3, top, top + 1, *graphs.captured, *(c + 1 for c in graphs.captured)}):
        padded = graphs.pad(n)
        fits = [c for c in graphs.captured if c >= n]
        if padded is None:
            assert not fits or fits[0] > PADDING_FACTOR * n
        else:
            assert padded == fits[0] and n <= padded <= PADDING_FACTOR * n
    sizes = {b.name: b for b in prefill_buffers(graphs, 64, hidden_size=128, dtype="bfloat16")}
    assert sizes["input_ids"].shape == (top,) and sizes["seq_lens"].shape == (64,)


def test_roles_and_locks() -> None:
    assert resolve_prefill(PrefillInputs(disaggregation_mode="decode")).backend == "disabled"
    assert resolve_prefill(PrefillInputs(disaggregation_mode="decode",
                                         backend="full")).backend == "full"
    assert resolve_prefill(PrefillInputs(pp_size=2)).backend == "disabled"
    assert resolve_prefill(PrefillInputs(attention_backend="torch_native",
                                         backend="full")).backend == "disabled"
    assert resolve_prefill(PrefillInputs(gpu_memory_gb=80)).captured[-1] == 8192
    assert not resolve_prefill(PrefillInputs(tokens=())).on  # cuda_graph_setup.py:563-565
    assert not resolve_prefill(PrefillInputs(max_tokens=3)).on


def test_kda_models_drop_breakable_prefill_graphs() -> None:
    """cuda_graph_hook.py:183-191: a KDA hybrid model (Kimi-Linear with its state read) gets
    no breakable prefill graphs by default; a given backend stands (tests/oracle/
    test_sglang_mamba_memory_oracle measures the memory reserve this changes)."""
    from graphfit.planner.engines.sglang_mamba_pool import uses_kda

    kda = uses_kda("KimiLinearForCausalLM", (3, 4096, 32, 32, 128, 128, 4))
    assert kda and not uses_kda("KimiLinearForCausalLM", None)
    assert not uses_kda("Qwen3NextForCausalLM", (3, 4096, 16, 32, 128, 128, 4))
    off = resolve_prefill(PrefillInputs(kda_breakable_off=kda))
    assert off.backend == "disabled"
    assert resolve_prefill(PrefillInputs(kda_breakable_off=kda,
                                         backend="full")).backend == "full"
    assert resolve_prefill(PrefillInputs()).backend == "breakable"


@pytest.mark.parametrize("bad", [dict(backend="piecewise"), dict(tokens=(0,)),
                                 dict(chunked_prefill_size=2.0), dict(disaggregation_mode="x"),
                                 dict(pp_size=0)])
def test_bad_inputs_are_config_errors(bad: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        PrefillInputs(**bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["UNO", "uno"])  # planned since issue 23 (sglang_uno)
def test_uno_is_read_as_its_own_method(name: str) -> None:
    assert algorithm("--speculative-algorithm", name) is SpecMethod.UNO


def test_unknown_algorithms_refused_by_name() -> None:
    with pytest.raises(ConfigError, match="is not one of"):
        algorithm("--speculative-algorithm", "MEDUSA")


@pytest.mark.parametrize("key", ["speculative_adaptive", "speculative_use_rejection_sampling"])
def test_unmodelled_speculative_switches_refused(key: str) -> None:
    with pytest.raises(ConfigError, match="not modelled"):
        FILE_KEYS[key](f"--{key.replace('_', '-')}", True, 0)
    FILE_KEYS[key](f"--{key.replace('_', '-')}", False, 0)  # off: accepted


def test_multi_layer_eagle_switch_is_read() -> None:
    """--enable-multi-layer-eagle is modelled since issue 23 (SglangOptions.multi_layer_eagle)."""
    settings, _ = FILE_KEYS["enable_multi_layer_eagle"]("--enable-multi-layer-eagle", True, 0)
    assert [(s.field, s.value) for s in settings if s.field != "engine"] == [
        ("multi_layer_eagle", True)]


def test_frozen_kv_mtp_is_read_as_mtp() -> None:
    """FROZEN_KV_MTP is modelled since issue 23: spec_method mtp + SglangOptions.frozen_kv_mtp."""
    settings, _ = FILE_KEYS["speculative_algorithm"]("--speculative-algorithm",
                                                     "frozen_kv_mtp", 0)
    assert {(s.field, s.value) for s in settings if s.field != "engine"} == {
        ("spec_method", SpecMethod.MTP), ("frozen_kv_mtp", True)}
