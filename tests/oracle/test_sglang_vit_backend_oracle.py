"""The multimodal attention backend (`--mm-attention-backend`) under SGLang 0.5.23's ViT CUDA
graphs: which backends graphfit refuses for the Qwen and InternVL towers (graphfit/planner/
engines/sglang_vit.py `VitGeometry`) vs what SGLang's real runners do with each of them on the
CPU (tests/oracle/sglang_vit_oracle.py): SGLang's runner fails at its first capture exactly
where graphfit refuses, and where it captures, the buffers it keeps are graphfit's rows
(triton_attn takes the runner's other branch, vit_cuda_graph_runner.py:243-246).
Kimi K3's flashinfer_cudnn buffers: tests/oracle/test_sglang_vit_kimi_oracle.py."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")

from graphfit.planner.core.errors import ConfigError  # noqa: E402
from graphfit.planner.engines import sglang_vit as sv  # noqa: E402
from tests.oracle import sglang_vit_oracle as vo  # noqa: E402

FAMILIES = ("qwen2_5_vl", "qwen3_vl", "internvl")
CASES = [(f, b) for f in FAMILIES for b in sv.ATTENTION_BACKENDS]
GRIDS = ((1, 4, 4), (2, 2, 4))


def _geometry(family: str, backend: str) -> sv.VitGeometry:
    return sv.VitGeometry(family, 16, 2, patch_size=2, spatial_merge_size=2,
                          window_size=8 if family == "qwen2_5_vl" else None,
                          fullatt_blocks=(1,) if family == "qwen2_5_vl" else (),
                          tokens_per_tile=5 if family == "internvl" else None,
                          attention_backend=backend)


def _sglang(family: str, backend: str) -> tuple[str, dict[str, tuple[int, ...]]]:
    """(the error SGLang's runner ends in, "" if none; the first key's buffers' shapes)."""
    import torch

    with vo.cpu_graphs():
        try:
            if family == "internvl":
                runner = vo.internvl_runner(hidden=16, heads=2, backend=backend)
                runner.run(torch.zeros(2, 5, 16, dtype=torch.bfloat16))
                return "", {k: s for k, (s, _) in next(iter(
                    vo.internvl_state(runner).values())).items()}
            tower = vo.qwen_runner(family, hidden=16, heads=2, patch=2, merge=2, out=8,
                                   depth=2, window=8 if family == "qwen2_5_vl" else None,
                                   fullatt=(1,) if family == "qwen2_5_vl" else (),
                                   backend=backend)
            vo.qwen_call(tower, GRIDS)
        except RuntimeError as exc:
            return str(exc), {}
        state = vo.qwen_state(tower)
        return "", {k: s for k, (s, _) in state["buffers"][state["keys"][0]].items()}


@pytest.mark.parametrize(("family", "backend"), CASES, ids=[f"{f}-{b}" for f, b in CASES])
def test_refused_exactly_where_sglangs_runner_fails(family: str, backend: str) -> None:
    error, theirs = _sglang(family, backend)
    try:
        geometry = _geometry(family, backend)
    except ConfigError as exc:
        assert "does not support attention backend" in error, (backend, error)
        assert f"does not support attention backend: {backend}" in str(exc)
        return
    assert error == "", error
    call = ((1, 1, 1),) * 2 if family == "internvl" else GRIDS
    key = sv.graph_key(geometry, call)
    assert {b.name: (b.rows, *b.row_shape) for b in sv.key_buffers(geometry, key)} == theirs


def test_the_grid_is_not_vacuous() -> None:
    """Both outcomes occur for every tower: some backends capture, some fail."""
    for family in FAMILIES:
        outcomes = {_sglang(family, b)[0] == "" for b in sv.ATTENTION_BACKENDS}
        assert outcomes == {True, False}, family
