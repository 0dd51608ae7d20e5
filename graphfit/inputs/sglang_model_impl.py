"""`--enable-multimodal` and `--model-impl` on a pasted SGLang 0.5.23 line: where they change
graphs or buffers.

Both act through `ModelConfig.is_multimodal` (configs/model_config.py:690-717, 804-828):
multimodal serving is on by default except for Gemma 3, Llama 4, Step3-VL and Inkling, which
`--enable-multimodal` or `--model-impl transformers` turn on too; `--model-impl transformers`
also counts a `vision_config` / `audio_config` attribute as a multimodal sub-config (:804-815),
as graphfit's reading of the model directory always does (graphfit.inputs.model_config).
`is_multimodal` switches breakable prefill graphs off outside SGLang's allowlist
(arg_groups/cuda_graph_hook.py:229-238), gives the prefill runner its input-embeds buffers
(model_executor/runner/prefill_cuda_graph_runner.py:337, 441-480) and the memory reserve of a
vision-language model (arg_groups/memory_hook.py:283-289). graphfit's SGLang model takes the
default list (graphfit.planner.engines.sglang_multimodal), so a line where either flag makes
one of those four architectures multimodal is refused; anywhere else they change nothing
graphfit plans, and a note says so. `--model-impl mindspore` (an NPU backend) captures no
decode graphs (model_executor/model_runner_components/cuda_graph_setup.py:729): refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs import model_config
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines.sglang_multimodal import MULTIMODAL_OFF_ARCHITECTURES

WHERE = "configs/model_config.py:690-717"


def multimodal_switches(values: Mapping[str, Any]) -> list[str]:
    """Notes for the two flags on a pasted line; a ConfigError where they change a graph."""
    impl = str(values.get("model_impl") or "auto").lower()
    if impl == "mindspore":
        raise ConfigError("--model-impl mindspore: SGLang captures no decode graphs with it "
                          "(cuda_graph_setup.py:729; an NPU backend): not modelled")
    enable = values.get("enable_multimodal") is True
    if not enable and impl != "transformers":
        return []
    flag = "--enable-multimodal" if enable else "--model-impl transformers"
    model = values.get("model_path")
    path = model_config.config_path(model) if isinstance(model, str) else None
    if path is None:
        return [f"{flag}: no local model config.json, so graphfit cannot tell whether it turns "
                f"SGLang's multimodal serving on ({WHERE}); planned as a text-only model"]
    info = model_config.read_model(path, sglang=True)
    if info.multimodal and info.architecture in MULTIMODAL_OFF_ARCHITECTURES:
        raise ConfigError(f"{flag}: turns SGLang's multimodal serving on for "
                          f"{info.architecture} ({WHERE}; prefill graphs and memory reserve "
                          f"change): not modelled")
    return [f"{flag}: changes no graph or buffer graphfit plans for this model ({WHERE})"]
