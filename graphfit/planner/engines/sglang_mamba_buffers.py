"""SGLang 0.5.23's mamba-tracking graph inputs of the decode target runner.

With the hybrid-mamba radix cache's extra buffer and no speculation, the decode runner tracks
the state slots a batch writes (decode_cuda_graph_runner.py:458-461): `DecodeInputBuffers`
allocates `mamba_track_indices` (max_bs,) int64 and `mamba_track_mask` (max_bs,) bool, zeros
(base_runner.py:123-128), and the buffer registry pads both with zeros past the real
requests (cuda_graph_buffer_registry.py:681-698).
"""

from __future__ import annotations

from graphfit.planner.core.buffers import ONLY_ZERO, ZERO, Axis, BufferSpec
from graphfit.planner.core.enums import SpecMethod
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.batch import graph_input
from graphfit.planner.engines.sglang_mamba_pool import is_hybrid_mamba
from graphfit.planner.engines.sglang_pool import mamba_cache


def mamba_track_enabled(config: EngineSettings) -> bool:
    """`enable_mamba_extra_buffer` (model_override_base.py:260-265) with no speculation."""
    if config.spec_method is not SpecMethod.NONE or not is_hybrid_mamba(
            config.architecture, config.mamba_state_shape):
        return False
    cache = mamba_cache(config)
    return (not cache.disable_radix_cache
            and cache.resolved()[0] in ("extra_buffer", "extra_buffer_lazy"))


def mamba_track_buffers(config: EngineSettings, max_bs: int) -> list[BufferSpec]:
    """The decode target's two tracking inputs, or none when tracking is off."""
    if not mamba_track_enabled(config):
        return []
    why = "mamba state slots tracked per request (base_runner.py:123-128); zero-padded"
    return [graph_input("target", "mamba_track_indices", "int64", Axis.REQUESTS, max_bs,
                        ZERO, ONLY_ZERO, why=why),
            graph_input("target", "mamba_track_mask", "bool", Axis.REQUESTS, max_bs, ZERO,
                        ONLY_ZERO, why=why)]
