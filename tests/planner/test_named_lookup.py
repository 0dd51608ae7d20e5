"""graphfit.planner.core.named.find_buffer: the one buffer lookup token-dispatched and keyed
components share (they both answer through it)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.named import find_buffer


@dataclass(frozen=True)
class _Buf:
    name: str


names = st.lists(st.text("abcxyz_", min_size=1, max_size=4), unique=True, max_size=6)


@given(names, st.text("abcxyz_", min_size=1, max_size=4))
def test_finds_the_named_buffer_or_lists_the_known_ones(known: list[str], name: str) -> None:
    buffers = [_Buf(n) for n in known]
    if name in known:
        assert find_buffer("c", buffers, name) is buffers[known.index(name)]
    else:
        with pytest.raises(ConfigError) as err:
            find_buffer("c", iter(buffers), name)  # any iterable, read once
        assert f"c has no buffer {name!r}" in str(err.value)
        assert all(n in str(err.value) for n in known)


def test_both_plans_answer_through_it() -> None:
    from graphfit import EngineConfig, plan
    from graphfit.planner.engines.sglang_vit import VitGeometry, VitWorkload
    from graphfit.planner.engines.sglang_vit_keyed import vit_pairs

    geometry = VitGeometry("qwen3_vl", 64, 4, patch_size=14, spatial_merge_size=2)
    config = EngineConfig.from_dict({"engine": "sglang", "max_num_seqs": 4,
                                     "vit": [list(p) for p in vit_pairs(
                                         geometry, VitWorkload(((1, 4, 4),), 1))]})
    p = plan(config)
    component = next(iter(p.components.values()))
    first = component.buffers[0]
    assert component.buffer(first.name) is first
    assert p.keyed["vit"].buffer("block_ws").name == "block_ws"
    for owner in (component, p.keyed["vit"]):
        with pytest.raises(ConfigError, match="has no buffer 'nope'"):
            owner.buffer("nope")
