"""Kimi K3's ViT graphs are the whole tower, not blocks over staged inputs: graphfit's runtime
plans their buffers but does not rehearse them -- `rehearsable` says so (the plan rehearsal
lists `vit` as skipped) and a direct `VitGraphRunner` is a ConfigError, never a KeyError."""

from __future__ import annotations

import pytest

from graphfit import ConfigError, EngineConfig, plan
from graphfit.cudagraph.rehearsal import vit_rehearsable
from graphfit.cudagraph.vit import VitGraphRunner, rehearse_vit, toy_tower
from graphfit.planner import VitGeometry, VitWorkload, plan_vit
from graphfit.planner.engines.sglang_vit_keyed import vit_pairs

WORKLOAD = VitWorkload(((1, 4, 4), (1, 8, 4)), 2)


def _plan(geometry: VitGeometry) -> object:
    return plan(EngineConfig.from_dict({"engine": "sglang", "max_num_seqs": 2,
                                        "vit": vit_pairs(geometry, WORKLOAD)}))


def test_kimi_is_planned_but_not_rehearsed() -> None:
    kimi = VitGeometry("kimi_k3", 64, 4, patch_size=2, spatial_merge_size=2)
    qwen = VitGeometry("qwen3_vl", 64, 4, patch_size=2, spatial_merge_size=2)
    p = _plan(kimi)
    assert p.keyed["vit"].buffers and p.keyed["vit"].graph_keys  # type: ignore[attr-defined]
    assert not vit_rehearsable(p) and vit_rehearsable(_plan(qwen))  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="Kimi K3"):
        VitGraphRunner(toy_tower(64), plan_vit(kimi, WORKLOAD))
    with pytest.raises(ConfigError, match="Kimi K3"):
        rehearse_vit(plan_vit(kimi, WORKLOAD))
