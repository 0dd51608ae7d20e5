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
(`is_lm_only`: the flag or the config's own `language_model_only`, :670-677).

A model outside that list is multimodal through its sub-config too (:809-815, issue 23 s49l):
`hf_config is not hf_text_config`, i.e. `get_hf_text_config` (utils/hf_transformers/common.py:
547-613) found a `thinker_config`, `llm_config`, `language_config` or `text_config` (that
priority, :585-606; the llm/text ones must carry `num_attention_heads`, else SGLang's assert
stops it first; the order and the asserted keys are graphfit.inputs.sglang_text_pick's, s69s)
and the class is not a `Llava*ForCausalLM` (:551-558); or, under --model-impl transformers,
the config has a `vision_config` or `audio_config`. graphfit reads this off the config.json
only where the HF parser keeps the JSON's keys as they are: a model type without
SGLang's own config class (`_CONFIG_REGISTRY`, common.py:117-273, which the parser reloads
from, config.py:275-292), no `auto_map` (remote code, DeepSeek-OCR, :270-271), not Longcat
(:225, 251-256) and not the Mistral parser (config.py:372-374, mistral_utils.py:353-363).
A hub id (no config.json to read; graphfit does not fetch one) is not checked: whether
SGLang serves it as multimodal is in the config.json SGLang downloads. What graphfit can say
without that download (issue 23 s55l, `unchecked_note`): a line whose tokenizer path has a
connector scheme other than Run:ai's, which the text tokenizer's rule lets through (redis://,
an Azure Blob URL, or any scheme under --skip-tokenizer-init; graphfit.inputs.sglang_instance.
check_tokenizer), on a hub-id model without --language-model-only, starts only if that model
is not served as multimodal (or is a DeepSeek-V4.1 vision checkpoint, whose processor is the
text tokenizer: redis:// / Azure load, others fail). The line is planned, with a note saying
so; every other hub-id line has nothing to say here (no connector path, a Run:ai one, the
text tokenizer's own refusal first, or no processor at all under --language-model-only:
`init_tokenizer_and_processor`, managers/tokenizer_manager.py:607-608, and `is_multimodal`,
configs/model_config.py:820-828).

The live check (issue 23 s66c) knows more: SGLang's resolution built the model's ModelConfig
on the config.json it downloaded and memoized it on the ServerArgs (`model_config_of`,
arg_groups/model_override_base.py:192-221: `_model_config`, keyed by
`_model_config_built_from`), whose `is_multimodal` is SGLang's own answer. Where it is there
(`built_check`), the hub-id line gets what a local checkpoint's line gets: refused where SGLang
serves the model as multimodal (the DeepSeek-V4.1 vision exception included), nothing where it
does not; the note stays only where no ModelConfig was memoized.

A DeepSeek-V4.1 vision checkpoint (issue 23 s50l) is multimodal by its own clause
(`has_dsv41_vision`, configs/model_config.py:816-828: model type `deepseek_v41` and
`vision_n_layers > 0`, read off the config SGLang's DeepseekV41Config flattens, where
`vision_config.num_hidden_layers` becomes `vision_n_layers`, configs/deepseek_v41.py:5-6,
33-36; graphfit.inputs.deepseek_v41), and its processor is no AutoProcessor: `get_processor`
returns `get_tokenizer(tokenizer_name)` (processor.py:290-293), the text tokenizer's loader,
which pulls a `scheme://` path through its connector (utils/hf_transformers/tokenizer.py:
162-170). So the text tokenizer's rule (graphfit.inputs.sglang_instance.check_tokenizer)
holds for it, also under --skip-tokenizer-init: instance:// and unknown schemes fail,
redis:// and Azure Blob URLs load.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs import sglang_text_pick
from graphfit.inputs.model_config import config_path, load_config, looks_local
from graphfit.inputs.sglang_instance import RUNAI, check_tokenizer, connector
from graphfit.planner.core.errors import ConfigError, brief, excerpt

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
# utils/hf_transformers/common.py:117-273, `_CONFIG_REGISTRY`'s model types (SGLang's own
# config classes: the HF parser reloads these, so their JSON keys may not be the config's)
OWN_CONFIG_TYPES = frozenset({
    "NemotronH_Nano_Omni_Reasoning_V3", "NemotronH_Nano_VL_V2", "afmoe", "bailing_hybrid",
    "bailing_moe_v3_vl", "bailingmm_moe_v2_lite", "beam", "chatglm", "dbrx", "deepseek-ocr",
    "deepseek_v32", "deepseek_v4", "deepseek_v41", "deepseek_v41_text", "deepseek_v41_vision",
    "deepseek_vl_v2", "dots3_note", "dots_ocr", "dots_vlm", "exaone", "falcon_h1",
    "falcon_mamba", "gemma4_unified", "gigachat3_5", "glm5_next", "glm5_next_text",
    "granitemoehybrid", "hy_v4", "inkling_audio_model", "inkling_mm_model", "inkling_model",
    "inkling_vision_model", "intern_s2_preview", "interns2_mobius", "interns2_mobius_text",
    "internvl_chat", "iquest_q1", "iquest_q1_mtp", "jet_nemotron", "jet_vlm", "k2_horizon",
    "kimi_k2", "kimi_k25", "kimi_k3", "kimi_linear", "kimi_vl", "laguna", "locateanything",
    "longcat_flash", "mamba", "mamba2", "mellum", "minicpm_sala", "minicpmv4_6",
    "minicpmv4_6_vision", "minicpmv4_7", "minimax_m3_vl", "multi_modality", "muse_glimmer",
    "muse_glimmer_assistant", "nanbeige", "nemotron_h", "nemotron_h_omni", "nemotron_h_puzzle",
    "olmo3", "qwen3_5", "qwen3_5_moe", "qwen3_5_moe_text", "qwen3_5_text", "qwen3_next",
    "qwen4_exp", "qwen4_exp_text", "spark2_5", "step3_vl", "step3p5", "step3p7", "xllm"})
# is_mistral_model's name markers (utils/hf_transformers/mistral_utils.py:353-363)
MISTRAL_NAMES = ("mistral-large-3", "mistral-small-4", "leanstral")
WHERE = "hf_transformers/processor.py:340"  # AutoProcessor.from_pretrained


def _plain(values: Mapping[str, Any], data: Mapping[str, Any], model: str) -> bool:
    """Whether SGLang's HF parser keeps the config.json's keys as they are (module
    docstring), so that a sub-config's presence in the file is its presence in hf_config."""
    parser = str(values.get("model_config_parser") or "auto").lower()
    lower = model.lower()
    mistral = any(m in lower for m in MISTRAL_NAMES) or ("eagle" in lower and "mistral" in lower)
    names = data.get("architectures") or [""]
    return (parser == "hf" or (parser == "auto" and not mistral)) and "auto_map" not in data \
        and data.get("model_type") not in OWN_CONFIG_TYPES \
        and not str(names[0]).startswith("Longcat")


def _sub_config(data: Mapping[str, Any], first: str) -> bool:
    """`hf_config is not hf_text_config` (common.py:547-613) for a plain config."""
    if first.startswith("Llava") and first.endswith("ForCausalLM"):
        return False
    key = sglang_text_pick.first_key(data)  # the priority (common.py:585-606), stated once
    if key is None:
        return False
    sub = data[key]  # asserted to carry num_attention_heads (:596-597, 602-605)
    return isinstance(sub, dict) and (key not in sglang_text_pick.ASSERTED
                                      or "num_attention_heads" in sub)


def dsv41_vision(data: Mapping[str, Any]) -> bool:
    """`has_dsv41_vision` (configs/model_config.py:816-819) on a flattened DeepSeek-V4.1
    config (graphfit.inputs.deepseek_v41): vision layers, the class's default 0 when unset
    (configs/deepseek_v41.py:47); False for a value graphfit does not compare as SGLang."""
    layers = data.get("vision_n_layers", 0)
    return data.get("model_type") == "deepseek_v41" and isinstance(layers, (int, float)) \
        and not isinstance(layers, bool) and layers > 0


def served_multimodal(values: Mapping[str, Any]) -> bool:
    """Whether SGLang surely serves the line's local model as multimodal (module docstring);
    False where graphfit cannot tell."""
    model = values.get("model_path")
    path = config_path(model) if isinstance(model, str) else None
    if path is None or not isinstance(model, str) or values.get("language_model_only") is True:
        return False
    data = load_config(path)
    names = data.get("architectures")
    if not isinstance(names, list) or not names or data.get("language_model_only") is True:
        return False
    if data.get("model_type") == "deepseek_v41":  # its own clause (module docstring)
        return dsv41_vision(data)
    impl = str(values.get("model_impl") or "auto").lower()
    plain = _plain(values, data, model)
    if not (any(name in MULTIMODAL_ARCHITECTURES for name in names)
            or (plain and _sub_config(data, str(names[0])))
            or (plain and impl == "transformers"
                and ("vision_config" in data or "audio_config" in data))):
        return False
    if values.get("enable_multimodal") is False:  # a file's or a caller's false: `is_multimodal`
        return False  # is `enable_multimodal and ...` (model_config.py:820-828; issue 23, s70a)
    if values.get("enable_multimodal") is True:  # :688: set, so the defaults below do not run
        return True
    if names[0] in MULTIMODAL_OFF and impl != "transformers":
        return False
    return names[0] not in MIMO_V2 or ("vision_config" in data and "audio_config" in data)


def check(values: Mapping[str, Any], origin: str = "--tokenizer-path") -> None:
    """ConfigError where the multimodal processor cannot load the tokenizer path (module
    docstring), with transformers' reason; nothing elsewhere."""
    path = values.get("tokenizer_path")
    if (not isinstance(path, str) or not connector(path) or path.lower().startswith(RUNAI)
            or not served_multimodal(values)):
        return
    model = values.get("model_path")
    config = config_path(model) if isinstance(model, str) else None
    if config is not None and dsv41_vision(load_config(config)):  # get_tokenizer (s50l)
        check_tokenizer({**values, "skip_tokenizer_init": False}, origin)
        return
    raise ConfigError(_refusal(path, origin))


def unchecked_note(values: Mapping[str, Any], origin: str = "--tokenizer-path") -> list[str]:
    """The note for a hub-id model whose tokenizer path SGLang's multimodal processor would
    refuse, if SGLang serves the model as multimodal (module docstring); [] where there is
    nothing to say. Called after the text tokenizer's own check (sglang_instance.check_line),
    which refuses first: instance:// and unknown schemes without --skip-tokenizer-init."""
    path, model = values.get("tokenizer_path"), values.get("model_path")
    if (not isinstance(path, str) or not connector(path) or path.lower().startswith(RUNAI)
            or not isinstance(model, str) or connector(model) or looks_local(model)
            or config_path(model) is not None or values.get("language_model_only") is True):
        return []
    return [f"{origin} {excerpt(path, 32)} not checked for {brief(model)}, which has "
            f"no local config.json: if SGLang serves it as multimodal, its processor reads "
            f"the path with no connector and the server does not start (OSError, {WHERE}; "
            f"a DeepSeek-V4.1 vision model's reads it as its text tokenizer)"]


def built_check(values: Mapping[str, Any], built: Any,
                origin: str = "--tokenizer-path") -> list[str]:
    """The live check's hub-id rule (module docstring): `unchecked_note`'s note where `built`
    (SGLang's memoized ModelConfig of the line's model, None: none) cannot tell; else
    ConfigError where SGLang's multimodal processor fails on the tokenizer path, [] where it
    does not run or loads it."""
    note = unchecked_note(values, origin)
    multimodal = getattr(built, "is_multimodal", None)
    if not note or not isinstance(multimodal, bool):
        return note
    if not multimodal:
        return []
    hf_config = getattr(built, "hf_config", None)
    layers = getattr(hf_config, "vision_n_layers", 0)
    if getattr(hf_config, "model_type", None) == "deepseek_v41" and isinstance(layers, int) \
            and layers > 0:  # its processor is the text tokenizer (s50l)
        check_tokenizer({**values, "skip_tokenizer_init": False}, origin)
        return []
    raise ConfigError(_refusal(str(values.get("tokenizer_path")), origin))


def _refusal(path: str, origin: str) -> str:
    return (f"{origin} {excerpt(path, 32)}: SGLang's multimodal processor reads it "
            f"with no connector (OSError: Repo id must be in the form..., {WHERE})")


__all__ = ["MULTIMODAL_ARCHITECTURES", "built_check", "check", "dsv41_vision",
           "served_multimodal", "unchecked_note"]
