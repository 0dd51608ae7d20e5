"""SGLang 0.5.23's mamba-tracking graph inputs of the decode and draft-extend runners.

With the hybrid-mamba radix cache's extra buffer and no speculation, the decode runner tracks
the state slots a batch writes (decode_cuda_graph_runner.py:458-461): `DecodeInputBuffers`
allocates `mamba_track_indices` (max_bs,) int64 and `mamba_track_mask` (max_bs,) bool, zeros
(base_runner.py:123-128), and the buffer registry pads both with zeros past the real
requests (cuda_graph_buffer_registry.py:681-698).

With speculation the decode target tracks nothing, but the draft-extend runners read the
extra buffer flag alone (no speculation test): the EAGLE draft-extend runner allocates
`mamba_track_indices` (max_bs,) int64 zeros (eagle_draft_extend_cuda_graph_runner.py:
273-277) and so does the multi-layer EAGLE composite
(multi_layer_eagle_draft_extend_cuda_graph_runner.py:742-746); neither has a mask. Their
replay copies the real rows and zeroes the padded tail [raw_bs, bs)
(`refresh_track_indices`, speculative/draft_checkpoint.py:10-27; called at
eagle_draft_extend_cuda_graph_runner.py:585-592 and
multi_layer_eagle_draft_extend_cuda_graph_runner.py:839-844).
"""

from __future__ import annotations

from graphfit.planner.core.buffers import ONLY_ZERO, ZERO, Axis, BufferSpec
from graphfit.planner.core.enums import SpecMethod
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.batch import graph_input
from graphfit.planner.engines.sglang_mamba_pool import is_hybrid_mamba
from graphfit.planner.engines.sglang_pool import mamba_cache


def mamba_extra_buffer(config: EngineSettings) -> bool:
    """`enable_mamba_extra_buffer` (exec_.py:474-478 -> model_override_base.py:260-265): the
    radix cache is on and the resolved strategy keeps an extra buffer, on a hybrid mamba
    model (graphfit resolves the strategy for those only)."""
    if not is_hybrid_mamba(config.architecture, config.mamba_state_shape):
        return False
    cache = mamba_cache(config)
    return (not cache.disable_radix_cache
            and cache.resolved()[0] in ("extra_buffer", "extra_buffer_lazy"))


def mamba_track_enabled(config: EngineSettings) -> bool:
    """The decode target's tracking: the extra buffer with no speculation
    (decode_cuda_graph_runner.py:458-461)."""
    return config.spec_method is SpecMethod.NONE and mamba_extra_buffer(config)


def mamba_track_buffers(config: EngineSettings, max_bs: int) -> list[BufferSpec]:
    """The decode target's two tracking inputs, or none when tracking is off."""
    if not mamba_track_enabled(config):
        return []
    why = "mamba state slots tracked per request (base_runner.py:123-128); zero-padded"
    return [graph_input("target", "mamba_track_indices", "int64", Axis.REQUESTS, max_bs,
                        ZERO, ONLY_ZERO, why=why),
            graph_input("target", "mamba_track_mask", "bool", Axis.REQUESTS, max_bs, ZERO,
                        ONLY_ZERO, why=why)]


def draft_extend_track_buffers(config: EngineSettings, runner: str, max_bs: int
                               ) -> list[BufferSpec]:
    """A draft-extend runner's `mamba_track_indices` (module docstring), or none when the
    extra buffer is off. `runner`: the planned component ("draft_extend" or
    "mtp_draft_extend")."""
    if not mamba_extra_buffer(config):
        return []
    why = ("mamba state slots the draft extend tracks (eagle_draft_extend_cuda_graph_runner."
           "py:273-277); the padded tail is zeroed (draft_checkpoint.py:21-22)")
    return [graph_input(runner, "mamba_track_indices", "int64", Axis.REQUESTS, max_bs, ZERO,
                        ONLY_ZERO, why=why)]
