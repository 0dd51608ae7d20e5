"""The multimodal processor's tokenizer path (issue 23 s47l), as SGLang 0.5.23 loads it.

For a model its ModelConfig serves as multimodal (`is_multimodal`, configs/model_config.py:
816-828) and without --language-model-only, the tokenizer manager builds the processor
before it looks at --skip-tokenizer-init (managers/tokenizer_manager.py:607-628):
`get_processor_wrapper` hands it `tokenizer_path` (:4050-4059), and `get_processor` loads it
with transformers' `AutoProcessor.from_pretrained` (utils/hf_transformers/processor.py:
339-346), after only the Run:ai download (`resolve_runai_obj_uri`, :266). It has no
connector: a `scheme://` path that is not Run:ai's (instance://, redis://, an Azure Blob URL,
hf://, http://) is a repo id transformers' hub client refuses ("Repo id must be in the form
'repo_name' or 'namespace/repo_name'", an OSError), so the server does not start, even under
--skip-tokenizer-init and for the redis:// / Azure paths the text tokenizer loads
(graphfit.inputs.sglang_instance.check_tokenizer).

"Served as multimodal" is restated where graphfit is sure of it: an architecture in
`multimodal_model_archs` (:2391-2473), with multimodal on (:690-717: off by default for the
four `mm_disabled_models` unless --enable-multimodal or --model-impl transformers, and for a
MiMoV2 checkpoint without both vision_config and audio_config), and no text-only serving
(`is_lm_only`: the flag or the config's own `language_model_only`, :670-677). A model
SGLang takes as multimodal by its sub-config alone (:809-815), a DeepSeek-V4.1 vision
checkpoint (loaded by `get_tokenizer`, processor.py:290-293) and a hub id (no config.json to
read) are not checked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs.model_config import config_path, load_config
from graphfit.inputs.sglang_instance import RUNAI, connector
from graphfit.planner.core.errors import ConfigError, excerpt

# configs/model_config.py:2391-2473, `multimodal_model_archs`
MULTIMODAL_ARCHITECTURES = frozenset({
    "CLIPModel", "Cohere2VisionForConditionalGeneration", "Cosmos3EdgeForConditionalGeneration",
    "DeepseekVL2ForCausalLM", "Ernie4_5_VLMoeForConditionalGeneration",
    "MiniMaxM3SparseForConditionalGeneration", "Gemma3ForConditionalGeneration",
    "Gemma3nForConditionalGeneration", "Gemma4ForConditionalGeneration", "EmbeddingGemma2Model",
    "Gemma4UnifiedForConditionalGeneration", "DiffusionGemmaForBlockDiffusion",
    "Glm4vForConditionalGeneration", "Glm4vMoeForConditionalGeneration",
    "Glm5NextForConditionalGeneration", "GlmOcrForConditionalGeneration",
    "GlmAsrForConditionalGeneration", "GlmImageForConditionalGeneration", "Grok1VForCausalLM",
    "Grok1AForCausalLM", "LlavaLlamaForCausalLM", "Llama4ForConditionalGeneration",
    "LlavaMistralForCausalLM", "LlavaQwenForCausalLM", "LlavaForConditionalGeneration",
    "LlavaVidForCausalLM", "Lfm2VlForConditionalGeneration", "LightOnOCRForConditionalGeneration",
    "MiMoV2ASRForCausalLM", "MiniCPMO", "MiniCPMV", "Mistral3ForConditionalGeneration",
    "MultiModalityCausalLM", "MllamaForConditionalGeneration", "MossVLForConditionalGeneration",
    "NemotronH_Nano_VL_V2", "NemotronH_Nano_Omni_Reasoning_V3", "NemotronH_Omni_Reasoning_V3",
    "MuseGlimmerForConditionalGeneration", "MuseSparkForConditionalGeneration",
    "PixtralForConditionalGeneration", "Qwen2AudioForConditionalGeneration",
    "Qwen2VLForConditionalGeneration", "Qwen2_5_VLForConditionalGeneration",
    "Qwen3VLForConditionalGeneration", "Qwen3VLMoeForConditionalGeneration",
    "Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration",
    "Qwen4ExpForConditionalGeneration", "InternS2PreviewForConditionalGeneration",
    "InternS2MobiusForConditionalGeneration", "Qwen3ASRForConditionalGeneration",
    "Qwen3OmniMoeForConditionalGeneration", "KimiVLForConditionalGeneration",
    "LocateAnythingForConditionalGeneration", "InternVLChatModel",
    "InternS1ForConditionalGeneration", "InternS1ProForConditionalGeneration",
    "Phi4MMForCausalLM", "VoxtralForConditionalGeneration", "WhisperForConditionalGeneration",
    "Step3VLForConditionalGeneration", "POINTSV15ChatModel", "DotsVLMForCausalLM",
    "Dots3NoteForCausalLM", "DotsOCRForCausalLM", "Sarashina2VisionForCausalLM",
    "NVILAForConditionalGeneration", "NVILALiteForConditionalGeneration",
    "DeepseekOCRForCausalLM", "UnlimitedOCRForCausalLM", "JetVLMForConditionalGeneration",
    "PaddleOCRVLForConditionalGeneration", "MiDashengLMModel", "StepVLForConditionalGeneration",
    "Step3p7ForConditionalGeneration", "KimiK25ForConditionalGeneration",
    "BailingMMNativeForConditionalGeneration", "BailingMM2NativeForConditionalGeneration",
    "BailingMoeV3VLForConditionalGeneration",})
# `mm_disabled_models` (configs/model_config.py:691-697) and MIMO_V2_MULTIMODAL_ARCHS (:78)
MULTIMODAL_OFF = frozenset({"Gemma3ForConditionalGeneration", "Llama4ForConditionalGeneration",
                            "Step3VLForConditionalGeneration",
                            "InklingForConditionalGeneration"})
MIMO_V2 = frozenset({"MiMoV2ForCausalLM"})
WHERE = "hf_transformers/processor.py:340"  # AutoProcessor.from_pretrained


def served_multimodal(values: Mapping[str, Any]) -> bool:
    """Whether SGLang surely serves the line's local model as multimodal (module docstring);
    False where graphfit cannot tell."""
    model = values.get("model_path")
    path = config_path(model) if isinstance(model, str) else None
    if path is None or values.get("language_model_only") is True:
        return False
    data = load_config(path)
    names = data.get("architectures")
    if not isinstance(names, list) or not names or data.get("language_model_only") is True:
        return False
    if data.get("model_type") == "deepseek_v41":
        return False
    if not any(name in MULTIMODAL_ARCHITECTURES for name in names):
        return False
    impl = str(values.get("model_impl") or "auto").lower()
    if values.get("enable_multimodal") is True or impl == "transformers":
        return True
    if names[0] in MULTIMODAL_OFF:
        return False
    return names[0] not in MIMO_V2 or ("vision_config" in data and "audio_config" in data)


def check(values: Mapping[str, Any], origin: str = "--tokenizer-path") -> None:
    """ConfigError where the multimodal processor cannot load the tokenizer path (module
    docstring), with transformers' reason; nothing elsewhere."""
    path = values.get("tokenizer_path")
    if (not isinstance(path, str) or not connector(path) or path.lower().startswith(RUNAI)
            or not served_multimodal(values)):
        return
    raise ConfigError(f"{origin} {excerpt(path, 32)}: SGLang's multimodal processor reads it "
                      f"with no connector (OSError: Repo id must be in the form..., {WHERE})")


__all__ = ["MULTIMODAL_ARCHITECTURES", "check", "served_multimodal"]
