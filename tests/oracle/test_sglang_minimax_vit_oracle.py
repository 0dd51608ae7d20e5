"""MiniMax-M3-VL's vision tower under `SGLANG_VIT_ENABLE_CUDA_GRAPH=1`, against SGLang's own
code: the VL wrapper builds `MiniMaxVLVisionModel` (models/minimax_m3_vl.py:115) around
`MiniMaxVLVisionTransformer` (minimax_vl_common.py:430, 773), a CLIP encoder whose layers run
`VisionAttention` (:304). No module of it reads the flag or builds a ViT graph runner, and its
forward always hands the attention a `VisionAttentionMetadata` (:733-751), which every
backend takes before its graph branch (layers/attention/vision.py:480-487, 552-558): SGLang
runs the tower eager, so graphfit plans no ViT graph for it (`graphfit vit` and
`plan --vit-images` refuse with that reason, a pasted line with the flag gets a note).

The tower is built by SGLang's own class on the CPU (a tiny CLIP config) under the flag and
run up to its first attention call, whose arguments are recorded.
"""

from __future__ import annotations

import json
import types
from pathlib import Path
from typing import Any

import pytest

from tests.oracle.paths import require

SGLANG = require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.helpers import run_cli  # noqa: E402
from tests.oracle import sglang_minimax_target_oracle as mo  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402

VL = "MiniMaxM3SparseForConditionalGeneration"
TOWER = dict(hidden_size=96, intermediate_size=128, num_hidden_layers=1, num_attention_heads=2,
             num_channels=3, image_size=28, patch_size=14, hidden_act="gelu",
             layer_norm_eps=1e-5, position_embedding_type="rope", rope_mode="3d",
             rope_theta=10000.0, vision_segment_max_frames=None,
             img_token_compression_config={"temporal_patch_size": 2, "spatial_merge_size": 2})


class _Stop(Exception):
    """Raised by the recording attention once it has seen its arguments."""


def first_attention_call(monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, Any], type]:
    """The keyword arguments SGLang's MiniMax-M3-VL tower hands its first VisionAttention
    under SGLANG_VIT_ENABLE_CUDA_GRAPH=1 (one 4x4-patch image), and SGLang's metadata class."""
    import torch

    monkeypatch.setenv("SGLANG_VIT_ENABLE_CUDA_GRAPH", "1")
    seen: dict[str, Any] = {}
    with so.sglang_stubs.stubbed(), so.published(mo.resolved(1, 1)):
        import sglang.srt.models.minimax_vl_common as common
        from sglang.srt.environ import envs
        from sglang.srt.layers.attention import vision
        from sglang.srt.runtime_context import get_parallel

        assert envs.SGLANG_VIT_ENABLE_CUDA_GRAPH.get() is True
        group = types.SimpleNamespace(world_size=1, rank_in_group=0, cpu_group=None)

        def record(self: Any, *args: Any, **kwargs: Any) -> None:
            seen.update(kwargs)
            raise _Stop

        with get_parallel().override(tp_rank=0, attn_tp_rank=0, tp_group=group):
            tower = common.MiniMaxVLVisionTransformer(
                common.CLIPVisionConfig.from_dict(TOWER)).to(torch.bfloat16)
            monkeypatch.setattr(vision.VisionAttention, "forward", record)
            with pytest.raises(_Stop):
                tower(torch.zeros(16, 3 * 2 * 14 * 14, dtype=torch.bfloat16), [[1, 4, 4]])
        return seen, vision.VisionAttentionMetadata


def test_tower_passes_metadata_under_the_graph_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    """The flag on, the tower still hands the attention a VisionAttentionMetadata and a
    tensor cu_seqlens (the graph branches want a list and an output workspace,
    vision.py:487-489, 558-560): the eager path, no graph."""
    seen, metadata = first_attention_call(monkeypatch)
    assert isinstance(seen.get("forward_metadata"), metadata), seen
    assert "output_ws" not in seen and not isinstance(seen.get("cu_seqlens"), list), seen


def test_graph_flag_readers_are_the_planned_towers() -> None:
    """SGLang's model modules that read SGLANG_VIT_ENABLE_CUDA_GRAPH are those of the towers
    graphfit plans ViT graphs for; MiniMax-M3-VL's two modules read it nowhere."""
    from graphfit.planner.engines.sglang_vit import REFUSED_ARCHITECTURES, VIT_ARCHITECTURES

    models = next(SGLANG.rglob("sglang/srt/models/minimax_m3_vl.py")).parent
    for module, arch in (("qwen2_5_vl", "Qwen2_5_VLForConditionalGeneration"),
                         ("qwen3_vl", "Qwen3VLForConditionalGeneration"),
                         ("internvl", "InternVLChatModel"),
                         ("kimi_k3_vl", "KimiK3ForConditionalGeneration"),
                         ("minimax_m3_vl", VL), ("minimax_vl_common", VL)):
        reads = "SGLANG_VIT_ENABLE_CUDA_GRAPH" in (models / f"{module}.py").read_text()
        assert reads == (arch in VIT_ARCHITECTURES), (module, arch)
        assert reads != (arch in REFUSED_ARCHITECTURES), (module, arch)


def test_graphfit_plans_no_minimax_vit_graph(tmp_path: Path) -> None:
    """`graphfit vit` and `plan --vit-images` refuse with the reason (one error line, exit 2);
    a pasted line with the flag plans the model and notes there is no ViT graph."""
    (tmp_path / "config.json").write_text(json.dumps({
        "architectures": [VL], "model_type": "minimax_m3_vl", "torch_dtype": "bfloat16",
        "text_config": {**mo.TEXT, "qk_norm_type": "per_head"},
        "vision_config": {"model_type": "clip_vision_model", **TOWER}}))
    line = ("python", "-m", "sglang.launch_server", "--model-path", str(tmp_path))
    for args in (["vit", str(tmp_path), "--images", "1x32x32"],
                 ["plan", "--gpu-memory-gb", "80", "--vit-images", "1x32x32", "--", *line]):
        code, _, err = run_cli(args)
        assert code == 2 and err.count("error:") == 1 and "minimax_vl_common.py" in err, err
    code, out, err = run_cli(["plan", "--gpu-memory-gb", "80", "--",
                              "SGLANG_VIT_ENABLE_CUDA_GRAPH=1", *line])
    assert code == 0 and "no ViT graph to plan" in out + err, out + err
