"""DFLASH / DSPARK targets whose text settings sit in a sub-config, judged by SGLang 0.5.23's
own loading and layer resolution on CPU (issue 23, s54d).

SGLang's side writes the target's config.json to a directory and loads it as the target's
ModelConfig does: `get_config` (utils/hf_transformers/config.py, which builds the sub-configs
of the classes SGLang and transformers know) then `get_hf_text_config`
(utils/hf_transformers/common.py:547-613, model_config.py:636); that pair goes through
`_resolve_dflash_aux_hidden_state` (spec_aux_hidden_state.py:199-283) beside the draft, as in
tests.oracle.sglang_dflash_layers. The answer is SGLang's ValueError text, None when the ids
resolve, or "load: <exception>" when SGLang cannot load the target at all (a failure another
graphfit check owns). graphfit's side is `sglang_dflash_layers.refusal` on the written dict.
"""

from __future__ import annotations

import json
import tempfile
import types
from pathlib import Path
from typing import Any
from unittest import mock

from hypothesis import strategies as st

from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_stubs as ss

# (model_type, first architecture, where its text settings are written)
KINDS: tuple[tuple[str, str, str], ...] = (
    ("qwen2_5_omni", "Qwen2_5OmniModel", "thinker_config.text_config"),
    ("qwen3_omni_moe", "Qwen3OmniMoeForConditionalGeneration", "thinker_config.text_config"),
    ("internvl_chat", "InternVLChatModel", "llm_config"),
    ("internvl_chat", "InternVLChatModel", "llm_config."),
    ("deepseek_vl_v2", "DeepseekVL2ForCausalLM", "language_config"),
    ("multi_modality", "MultiModalityCausalLM", "language_config"),
    ("bailingmm_moe_v2_lite", "BailingMoeV2ForCausalLM", "llm_config"),
    ("llava", "LlavaForCausalLM", "text_config"),
    ("llava", "LlavaForConditionalGeneration", "text_config"),
    ("llama", "LlamaForCausalLM", "thinker_config"),
    ("llama", "LlamaForCausalLM", "thinker_config.text_config"),
    ("llama", "LlamaForCausalLM", "llm_config"),
    ("llama", "LlamaForCausalLM", "language_config"),
)


def loaded_refusal(target: dict[str, Any], draft: dict[str, Any], dspark: bool = False
                   ) -> str | None:
    """SGLang's answer for this target config.json object beside this draft (module
    docstring)."""
    so.oracle()
    with ss.imports():
        from sglang.srt.model_executor.model_runner_components import (
            spec_aux_hidden_state as aux,
        )
        from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
        from sglang.srt.utils.hf_transformers.common import get_hf_text_config
        from sglang.srt.utils.hf_transformers.config import get_config
    from transformers import PretrainedConfig

    with tempfile.TemporaryDirectory(prefix="graphfit-dflash-text-") as root:
        (Path(root) / "config.json").write_text(json.dumps(target))
        with ss.fake_cuda():
            try:
                hf = get_config(root, trust_remote_code=False)
                model = types.SimpleNamespace(hf_config=hf, hf_text_config=get_hf_text_config(hf))
            except Exception as exc:  # any load failure is the answer
                return f"load: {type(exc).__name__}"
    drafted = types.SimpleNamespace(hf_config=PretrainedConfig(**draft))
    spec = types.SimpleNamespace(speculative_draft_model_path="draft",
                                 speculative_draft_model_revision=None)
    loader = types.SimpleNamespace(from_server_args=lambda *a, **k: drafted)
    algorithm = SpeculativeAlgorithm.DSPARK if dspark else SpeculativeAlgorithm.DFLASH
    with ss.fake_cuda(), mock.patch.object(aux, "ModelConfig", loader), \
            mock.patch.object(aux, "get_spec", lambda: spec):
        try:
            aux._resolve_dflash_aux_hidden_state(
                config=aux.SpecAuxHiddenStateConfig(), server_args=None, model_config=model,
                spec_algorithm=algorithm, is_draft_worker=False)
        except ValueError as exc:
            return str(exc)
    return None


def _place(where: str, text: dict[str, Any]) -> dict[str, Any]:
    """`text` nested at the dotted `where` ("thinker_config.text_config")."""
    for name in reversed(where.rstrip(".").split(".")):
        text = {name: text}
    return text


@st.composite
def targets(draw: st.DrawFn) -> dict[str, Any]:
    """A config.json object of one of KINDS: its text settings (1 to 6 layers or null, a loop count
    on some, the layer key left out on some) written where the class reads them, or not
    written at all (the class's defaults); a decoy top-level num_hidden_layers on some."""
    kind, architecture, where = draw(st.sampled_from(KINDS))
    text: dict[str, Any] = {"num_attention_heads": 4}
    if draw(st.integers(0, 5)):
        text["num_hidden_layers"] = draw(st.one_of(st.integers(1, 6), st.just(None)))
    if draw(st.integers(0, 3)) == 0:
        text["num_loops"] = 2
    if kind == "internvl_chat":  # "llm_config.": SGLang's own InternLM2Config
        text["architectures"] = ["InternLM2ForCausalLM" if where.endswith(".")
                                 else "Qwen2ForCausalLM"]
    if kind == "llava":
        text["model_type"] = "llama"
    data: dict[str, Any] = {"model_type": kind, "architectures": [architecture]}
    if draw(st.integers(0, 4)):
        data.update(_place(where, text))
    if draw(st.booleans()):
        data["num_hidden_layers"] = draw(st.integers(1, 6))
    return data


def drafts() -> st.SearchStrategy[dict[str, Any]]:
    """A draft of 1 or 2 layers, naming target layer ids 0 and 3 or none."""
    ids = st.sampled_from(({}, {"dflash_config": {"target_layer_ids": [0, 3]}}))
    return st.tuples(st.integers(1, 2), ids).map(
        lambda t: {"num_hidden_layers": t[0], **t[1]})
