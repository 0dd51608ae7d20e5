"""SGLang 0.5.23's notion of a multimodal model, where it changes graphs or memory.

`ModelConfig.is_multimodal` (configs/model_config.py:820-828) is what SGLang's hooks read: the
model has a multimodal architecture or sub-config, multimodal serving is on, and the line does
not serve the language model alone (`--language-model-only`, :674-676). Multimodal serving is
on by default except for a few architectures (:690-702: Gemma 3, Llama 4, Step3-VL, Inkling,
unless `--enable-multimodal`). graphfit reads "multimodal" from the model directory (M-RoPE
or a vision / audio config, graphfit.inputs.model_config), which is what such a sub-config
holds.

Where it matters:
- breakable prefill CUDA graphs are switched off for a multimodal model whose architecture is
  not on SGLang's allowlist (cuda_graph_hook.py:229-238; the list, model_config.py:2501-2516),
  unless the prefill backend is given;
- the default memory reserve of a vision-language model (graphfit.planner.engines.
  sglang_reserve; memory_hook.py:283-289, 330-335).

`--enable-multimodal` and `--model-impl transformers` (which change the default-off list and
the sub-config test) are read on a pasted line by graphfit.inputs.sglang_model_impl: refused
where they turn one of the default-off architectures multimodal, planned (with a note) where
they change nothing.
graphfit refuses --language-only and --language-model-only on a pasted line; the raw-args
restatement (graphfit.planner.engines.sglang_native) reads them as SGLang does.
"""

from __future__ import annotations

# multimodal serving off by default (configs/model_config.py:691-697)
MULTIMODAL_OFF_ARCHITECTURES = frozenset({
    "Gemma3ForConditionalGeneration", "Llama4ForConditionalGeneration",
    "Step3VLForConditionalGeneration", "InklingForConditionalGeneration"})
# multimodal architectures whose breakable prefill graphs stay on (model_config.py:2501-2516)
BREAKABLE_PREFILL_ARCHITECTURES = frozenset({
    "MiniMaxM3SparseForConditionalGeneration",
    "Cohere2VisionForConditionalGeneration",
    "Glm5NextForConditionalGeneration",
    "InternS2MobiusForConditionalGeneration",
    "PaddleOCRVLForConditionalGeneration",
    "Qwen3_5ForConditionalGeneration",
    "Qwen3_5MoeForConditionalGeneration",
    "Qwen4ExpForConditionalGeneration",
    "MuseGlimmerForConditionalGeneration",
    "MuseSparkForConditionalGeneration",
    "KimiK3ForConditionalGeneration",
    "KimiK25ForConditionalGeneration",
    "MiniMaxM3SparseForCausalLM",
})


def sglang_multimodal(multimodal: bool, architecture: str | None,
                      language_model_only: bool = False) -> bool:
    """SGLang's `ModelConfig.is_multimodal` for a model graphfit reads as `multimodal`."""
    return (multimodal and not language_model_only
            and architecture not in MULTIMODAL_OFF_ARCHITECTURES)


def breakable_prefill_refused(multimodal: bool, architecture: str | None,
                              language_model_only: bool = False) -> bool:
    """A multimodal model whose breakable prefill graphs SGLang switches off by default."""
    return (sglang_multimodal(multimodal, architecture, language_model_only)
            and architecture not in BREAKABLE_PREFILL_ARCHITECTURES)


MULTIMODAL_PREFILL_OFF = ("a multimodal model outside SGLang's breakable-graph allowlist "
                          "(cuda_graph_hook.py:229-238, configs/model_config.py:2501-2516)")

__all__ = ["BREAKABLE_PREFILL_ARCHITECTURES", "MULTIMODAL_OFF_ARCHITECTURES",
           "MULTIMODAL_PREFILL_OFF", "breakable_prefill_refused", "sglang_multimodal"]
