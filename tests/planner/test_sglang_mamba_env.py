"""The environment variables the mamba state cache's memory solve reads (SGLANG_MAMBA_CONV_DTYPE,
SGLANG_PP_LAYER_PARTITION, SGLANG_VLM_CACHE_SIZE_MB, SGLANG_MM_FEATURE_CACHE_MB): properties
of the reader (graphfit.inputs.sglang_mamba_env), the partition
(graphfit.planner.engines.sglang_pp_partition) and what each changes in the solve;
graphfit == SGLang's own code is tests/oracle/test_sglang_mamba_memory_oracle.py."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit import ConfigError
from graphfit.inputs.sglang_mamba_env import mamba_environment
from graphfit.planner.engines.sglang_mamba_memory import MambaStateShape, pp_stage, stage_bytes
from graphfit.planner.engines.sglang_pp_partition import parse_partition

SHAPES = st.builds(MambaStateShape, st.integers(1, 64), st.integers(1, 8192),
                   st.integers(1, 32), st.integers(1, 64), st.integers(1, 256),
                   st.integers(0, 256), st.integers(2, 8))
COUNTS = st.lists(st.integers(0, 12), min_size=2, max_size=6)


@given(COUNTS)
def test_a_partition_tiles_the_layers_in_order(counts: list[int]) -> None:
    """Every stage gets exactly its count, the stages adjoin and cover every layer."""
    raw = ",".join(map(str, counts))
    parsed = parse_partition(raw, len(counts), sum(counts))
    assert parsed == tuple(counts)
    end = 0
    for rank, count in enumerate(counts):
        start, stop = pp_stage(sum(counts), rank, len(counts), parsed)
        assert (start, stop - start) == (end, count)
        end = stop
    assert end == sum(counts)


@given(COUNTS, st.integers(0, 3))
def test_a_partition_that_does_not_fit_is_refused(counts: list[int], wrong: int) -> None:
    """Another stage count, another layer sum or not numbers: ConfigError under PP; the
    variable is ignored at one stage (distributed/utils.py:119-122)."""
    raw = ",".join(map(str, counts))
    stages, layers = len(counts), sum(counts)
    bad = [(raw, stages + 1, layers), (raw, stages, layers + 1 + wrong),
           (raw + ",x", stages + 1, layers), (raw.replace(",", ";"), stages, layers),
           (f"-1,{layers + 1}" + ",0" * (stages - 2), stages, layers)]
    for text, pp, total in bad:
        with pytest.raises(ConfigError):
            parse_partition(text, pp, total)
        assert parse_partition(text, 1, total) is None


@given(st.lists(st.integers(0, 1), min_size=2, max_size=24).filter(lambda m: 1 in m),
       st.integers(2, 4), st.data())
def test_the_widest_stage_is_charged(layer_map: list[int], pp: int,
                                     data: st.DataObject) -> None:
    """Any partition: the charge is the widest stage's share of the state layers, never more
    than the whole state, never less than an even share."""
    cuts = sorted(data.draw(st.lists(st.integers(0, len(layer_map)), min_size=pp - 1,
                                     max_size=pp - 1)))
    bounds = [0, *cuts, len(layer_map)]
    counts = tuple(b - a for a, b in itertools.pairwise(bounds))
    per = 1 << 20
    charged = stage_bytes(per, tuple(layer_map), pp, counts)
    widest = max(sum(layer_map[a:b]) for a, b in itertools.pairwise(bounds))
    assert charged == int(per * widest / sum(layer_map))
    assert per // pp - 1 <= charged <= per


@given(SHAPES, st.sampled_from((1, 2, 4)), st.sampled_from(("float32", "bfloat16")))
def test_the_conv_dtype_scales_the_conv_state_only(shape: MambaStateShape, tp: int,
                                                   ssm: str) -> None:
    """float32 conv states cost twice bfloat16's conv part; float16 the same as bfloat16;
    the SSM part does not move."""
    try:
        half = shape.bytes_per_request(tp, ssm, "bfloat16")
    except ConfigError:
        return
    full = shape.bytes_per_request(tp, ssm, "float32")
    assert shape.bytes_per_request(tp, ssm, "float16") == half
    ssm_only = half - (full - half)  # the conv part is full - half
    assert full > half and ssm_only >= 0
    assert (ssm_only == 0) == (shape.state_size == 0)


@pytest.mark.parametrize(("environ", "expected"), [
    ({"SGLANG_MAMBA_CONV_DTYPE": "float32"}, {"mamba_conv_dtype": "float32"}),
    ({"SGLANG_MAMBA_CONV_DTYPE": "Float32"}, {}),  # not SGLang's spelling: bfloat16
    ({"SGLANG_MAMBA_CONV_DTYPE": "fp8"}, {}),
    ({"SGLANG_PP_LAYER_PARTITION": "a,b"}, {"pp_layer_partition": "a,b"}),  # parsed later
    ({"SGLANG_VLM_CACHE_SIZE_MB": " 4096 "}, {"vlm_cache_size_mb": 4096}),  # int() strips
    ({"SGLANG_VLM_CACHE_SIZE_MB": "4k"}, {}),  # SGLang warns and keeps 100
    ({"SGLANG_MM_FEATURE_CACHE_MB": "0"}, {"mm_feature_cache_mb": 0}),
])
def test_the_reader_takes_what_sglang_takes(environ: dict[str, str],
                                            expected: dict[str, object]) -> None:
    assert {s.field: s.value for s in mamba_environment(environ)} == expected


@pytest.mark.parametrize("name", ["SGLANG_VLM_CACHE_SIZE_MB", "SGLANG_MM_FEATURE_CACHE_MB"])
def test_a_negative_size_is_refused_in_one_line(name: str) -> None:
    with pytest.raises(ConfigError) as info:
        mamba_environment({name: "-5"})
    assert name in str(info.value) and len(str(info.value)) <= 200
