"""SGLang 0.5.23's large-Hopper Qwen3-VL decode override: the decode graphs reach
max_running_requests.

`expand_multimodal_decode_graph_to_running_limit` (arg_groups/model_overrides/qwen3_vl.py:
34-60), called by the memory hook right after the default decode max_bs is clamped to
max_running_requests (memory_hook.py:182-196), sets decode max_bs = max_running_requests when

* the GPU memory is known and max_running_requests is given and <= 512,
* the decode max_bs is below it and neither decode `max_bs` nor `bs` was given (locked),
* `large_hopper_qwen3_vl_model_type` (:20-31): `is_sm90_supported()` (capability major 9 and
  CUDA >= 12.3, utils/common.py:274-285, 331-335), at least 60 GiB, and a multimodal model
  whose HF model_type is qwen3_vl or qwen3_vl_moe.

graphfit reads the model's architecture, not its model_type: the two architectures SGLang
registers the Qwen3-VL overrides for (:63, :78-81) are HF's Qwen3VLConfig (model_type
qwen3_vl) and Qwen3VLMoeConfig (qwen3_vl_moe) models, and `multimodal` stands for SGLang's
`is_multimodal`. The hook sees max_running_requests as given (before the speculative hook's
48), so `SglangModel.resolve` applies the override to the config as given.
"""

from __future__ import annotations

from graphfit.planner.core.settings import EngineSettings

# architectures -> the HF model_type their configs carry (transformers' Qwen3VL configs)
QWEN3_VL_ARCHITECTURES = {"Qwen3VLForConditionalGeneration": "qwen3_vl",
                          "Qwen3VLMoeForConditionalGeneration": "qwen3_vl_moe"}
MAX_RUNNING_LIMIT = 512  # qwen3_vl.py:47
LARGE_GPU_GB = 60  # qwen3_vl.py:24: gpu_mem < 60 * 1024 MiB is not large


def applies(config: EngineSettings, max_bs: int, *, locked: bool) -> bool | None:
    """Whether the override raises the decode `max_bs` the memory hook reached (the default
    clamped to max_running_requests) to max_running_requests: True / False, or None when
    only the GPU generation is unknown (`sm90` None). `locked`: decode sizes or max_bs given."""
    return raises(config.max_num_seqs, config.gpu_memory_gb, max_bs, locked=locked,
                  multimodal=config.multimodal, architecture=config.architecture,
                  sm90=config.sm90)


def raises(max_running: int | None, gpu_memory_gb: float | None, max_bs: int, *,
           locked: bool, multimodal: bool, architecture: str | None,
           sm90: bool | None) -> bool | None:
    """`applies` over the facts themselves (the raw-args restatement reads them so)."""
    S, gb = max_running, gpu_memory_gb
    if (gb is None or S is None or S > MAX_RUNNING_LIMIT or max_bs >= S or locked
            or gb < LARGE_GPU_GB or not multimodal
            or architecture not in QWEN3_VL_ARCHITECTURES):
        return False
    return sm90


def note(config: EngineSettings, default: int) -> str:
    """Why the decode max_bs is max_running_requests, for `graphfit plan`'s notes."""
    return (f"decode max_bs {config.max_num_seqs}: SGLang's large-Hopper Qwen3-VL override "
            f"raises its default {default} to max_running_requests (sm90, >= 60 GiB; "
            f"model_overrides/qwen3_vl.py:34-60)")


def unknown_warning(config: EngineSettings, default: int) -> str:
    return (f"decode max_bs {default}: on a Hopper GPU (sm90) SGLang raises it to "
            f"max_running_requests {config.max_num_seqs} for Qwen3-VL (model_overrides/"
            f"qwen3_vl.py:34-60); the GPU generation is unknown, so it is not: pass a GPU name "
            f"(--gpu-memory-gb H100) or sm90 in a config file")


__all__ = ["QWEN3_VL_ARCHITECTURES", "applies", "note", "raises", "unknown_warning"]
