"""TensorRT-LLM's feature-mode encoder spec, per architecture, read off the served checkpoint.

TensorRT-LLM runs an encoder-decoder model's encoder graphs in feature mode when the model
class has `encoder_graph_spec()`, returning (feature_shape, feature_dtype, fixed_seq_len)
(tensorrt_llm/_torch/pyexecutor/engine/runners/encoder.py@0e91ee39be:98-128). No LLM-API
argument says it; graphfit restates the spec per architecture (`SPECS`) from the config
files, as a weak setting of `encoder_feature_spec` that `--config` overrides
(`encoder_feature_spec: null` plans token mode instead).

Architectures:

* `WhisperForConditionalGeneration`: each request is its zero-padded fp32 waveform of
  n_samples (30 s at 16 kHz, 480,000, or the checkpoint's preprocessor_config.json
  `n_samples`; transformers' WhisperFeatureExtractor, feature_extraction_whisper.py:91) and
  the encoder produces max_source_positions positions (config.json; WhisperConfig's default
  1500, configuration_whisper.py:146; transformers 5.25.0). The feature-mode runner itself
  names this contract, "Whisper's [480000] fp32 waveform"
  (tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:1183-1190), and
  TensorRT-LLM's Whisper model ships the waveform so (`WhisperInputProcessor.__call__`: a
  float32 [1, n_samples] `encoder_input_features` with `encoder_output_len` =
  max_source_positions; tensorrt_llm/_torch/models/modeling_whisper.py@3aa5b34fe1, lines
  not counted). The stored copies of modeling_whisper.py do not contain the
  `encoder_graph_spec` method itself, so which release ships it is not established; see
  docs/engines/trtllm-coverage.md.

No other model class in the stored TensorRT-LLM sources defines `encoder_graph_spec`.

Multimodal encoders (`MM_INPUTS`, the `mm_encoder_inputs` option): the inputs a model's
`MultimodalEncoderGraphRunner` captures, `input_specs`, each (token rows, *dims) of a dtype.

* `Glm5NextForConditionalGeneration` (GLM-5.3-Flash; model type glm5_next): the vision
  tower's block loop, image modality only (other modalities are refused by the model), with
  inputs `x` (vision_config.hidden_size,) in the text model's dtype (bfloat16 unless the
  text config says), `cos` and `sin` (head_dim,) float32, head_dim = vision_config.
  hidden_size // vision_config.num_heads (tensorrt_llm/_torch/models/
  modeling_glm5_next_vision.py, stored copy of 52,982 characters,
  `Glm5NextVisionModel.enable_blocks_cuda_graph`, `_image_encoder_cuda_graph_config`,
  `_text_dtype` and `Glm5NextVisionAttention`; lines not counted). It is the only model
  file in the stored sources that constructs a `MultimodalEncoderGraphRunner`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from graphfit.inputs.model_config import config_path, load_config
from graphfit.inputs.reading import shown_path
from graphfit.inputs.settings import FILE, Setting

Spec = tuple[tuple[int, ...], str, int]

WHISPER_SAMPLES = 30 * 16000  # WhisperInputProcessor's MAX_AUDIO_SECONDS x SAMPLING_RATE
WHISPER_POSITIONS = 1500  # WhisperConfig.max_source_positions' default


def _positive(value: object, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 \
        else default


def whisper_spec(data: dict[str, Any], path: Path) -> Spec:
    """Whisper's per-request waveform and encoder positions (module docstring)."""
    samples = WHISPER_SAMPLES
    extractor = path.parent / "preprocessor_config.json"
    if extractor.is_file():
        samples = _positive(load_config(extractor).get("n_samples"), samples)
    positions = _positive(data.get("max_source_positions"), WHISPER_POSITIONS)
    return (samples,), "float32", positions


SPECS: dict[str, Callable[[dict[str, Any], Path], Spec]] = {
    "WhisperForConditionalGeneration": whisper_spec,
}


MmInputs = list[list[Any]]  # [[modality, [[name, dims, dtype], ...]], ...]


def _dtype(value: object) -> str | None:
    names = {"bfloat16": "bfloat16", "float16": "float16", "half": "float16",
             "float32": "float32", "float": "float32"}
    if isinstance(value, str):
        return names.get(value.removeprefix("torch."))
    return None


def glm5_next_inputs(data: dict[str, Any], path: Path) -> MmInputs | None:
    """GLM-5.3-Flash's image tower inputs (module docstring); None when config.json lacks
    the vision sizes."""
    vision = data.get("vision_config")
    text = data.get("text_config") if isinstance(data.get("text_config"), dict) else data
    if not isinstance(vision, dict):
        return None
    hidden, heads = vision.get("hidden_size"), vision.get("num_heads")
    if not (isinstance(hidden, int) and isinstance(heads, int) and not isinstance(hidden, bool)
            and not isinstance(heads, bool) and hidden >= 1 and heads >= 1):
        return None
    assert isinstance(text, dict)
    dtype = (_dtype(text.get("dtype")) or _dtype(text.get("torch_dtype")) or "bfloat16")
    head_dim = hidden // heads
    if head_dim < 1:
        return None
    return [["image", [["x", [hidden], dtype], ["cos", [head_dim], "float32"],
                       ["sin", [head_dim], "float32"]]]]


MM_INPUTS: dict[str, Callable[[dict[str, Any], Path], MmInputs | None]] = {
    "Glm5NextForConditionalGeneration": glm5_next_inputs,
}


def mm_input_settings(model: str) -> list[Setting]:
    """`mm_encoder_inputs` for a checkpoint whose architecture's encoder inputs graphfit
    knows (weak)."""
    path = config_path(model)
    if path is None:
        return []
    data = load_config(path)
    arch = architecture(data)
    if arch is None or arch not in MM_INPUTS:
        return []
    found = MM_INPUTS[arch](data, path)
    if found is None:
        return []
    return [Setting("mm_encoder_inputs", found, f"{shown_path(path)}: {arch}", FILE,
                    weak=True)]


def architecture(data: dict[str, Any]) -> str | None:
    names = data.get("architectures")
    if isinstance(names, list) and names and isinstance(names[0], str):
        return names[0]
    return None


def feature_spec(model: str) -> tuple[str, Spec] | None:
    """(architecture, spec) of a local checkpoint whose architecture has a feature spec."""
    path = config_path(model)
    if path is None:
        return None
    data = load_config(path)
    arch = architecture(data)
    if arch is None or arch not in SPECS:
        return None
    return arch, SPECS[arch](data, path)


def feature_spec_settings(model: str) -> list[Setting]:
    """`encoder_feature_spec` for a checkpoint whose architecture has one (weak)."""
    found = feature_spec(model)
    if found is None:
        return []
    arch, (shape, dtype, positions) = found
    path = config_path(model)
    assert path is not None
    return [Setting("encoder_feature_spec", [list(shape), dtype, positions],
                    f"{shown_path(path)}: {arch}", FILE, weak=True)]
