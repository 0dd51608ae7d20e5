"""An SGLang 0.5.23 EAGLE-family draft's own vocabulary, dtype and aux width, from its config.json.

SGLang builds the draft's ModelConfig from the draft checkpoint (`from_server_args(...,
is_draft_model=True)`, configs/model_config.py:923-975: the line's --dtype and
--json-model-override-args, the draft's own config), and the draft runners size their buffers
from it (graphfit.planner.engines.sglang_draft_shape says which). This module reads, for a
local `--speculative-draft-model-path` with --speculative-algorithm EAGLE / EAGLE3 / NEXTN /
STANDALONE / FROZEN_KV_MTP (and DFLASH / DSPARK, whose draft runner is a DecodeCudaGraphRunner
on the draft model runner: its logits are the draft ModelConfig's `vocab_size` wide,
model_config.py:1605, and its input_embeds in its dtype, decode_cuda_graph_runner.py:474-478;
DSPARK's folded sampler sizes its step logits from the draft model's own vocabulary and
dtype too, models/dspark.py:393-396, dspark_draft_sampler.py:200-202):

* `draft_vocab_size`: the draft-extend runners' logits columns -- the config's
  `draft_vocab_size`, else `hot_vocab_size`, else its (text) `vocab_size`
  (eagle_draft_extend_cuda_graph_runner.py:233-247; `hasattr` on the HF config, so a key
  written as null counts: an EAGLE3 Llama draft with untied embeddings turns null into its
  vocab_size, models/llama_eagle3.py:306-308; elsewhere a null width leaves SGLang allocating
  a (rows, None) tensor, refused here);
* `draft_dtype`: `_get_and_verify_dtype(draft text config, --dtype)` (model_config.py:881,
  2284-2345): an explicit --dtype wins, else the text config's `dtype` / `torch_dtype` (a
  text_config without one carries the top level's, as SGLang's hf_text_config reads it), a float32
  (or unset) one becoming float16 (bfloat16 for a gemma model type);
* `draft_extend_hidden_size` for EAGLE3: `get_draft_input_from_target_hidden_dim`
  (eagle_utils.py:237-276).

and refuses what SGLang refuses at start-up: a STANDALONE draft whose vocab_size is not the
target's (standalone_worker_v2.py:184-201). `--speculative-token-map` (EAGLE only; EAGLE3
ignores it, eagle_worker_v2.py:324-334) makes the logits as wide as the map when the config
names neither width (not under multi-layer EAGLE, whose composite ignores it,
multi_layer_eagle_draft_extend_cuda_graph_runner.py:647-653): a local map is read with torch
(graphfit.inputs.sglang_token_map); a hub map, or any map without torch, keeps the draft's
vocabulary (an upper bound: the map picks ids of it) with a note. A hub id for the draft is
not downloaded: nothing is read, the target's values stand.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from graphfit.inputs import model_config, target_overrides
from graphfit.inputs.reading import shown_path
from graphfit.inputs.settings import COMMAND_LINE, FILE, Setting
from graphfit.inputs.sglang_dtype import flag_dtype, sglang_dtype, text_config
from graphfit.inputs.sglang_line_auto_dtype import BELOW, is_auto
from graphfit.inputs.sglang_token_map import WHERE, map_length
from graphfit.planner.core.errors import ConfigError, excerpt

ALGORITHMS = frozenset({"EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "FROZEN_KV_MTP", "DFLASH",
                        "DSPARK"})
# the algorithms whose draft runner is a DecodeCudaGraphRunner on the draft model runner: its
# logits are the draft ModelConfig's own vocab_size wide (decode_cuda_graph_runner.py:474-478,
# model_config.py:1605), with no draft_vocab_size / hot_vocab_size / token map
DECODE_RUNNER_DRAFTS = frozenset({"DFLASH", "DSPARK"})
EAGLE3_LLAMA = frozenset({"LlamaForCausalLMEagle3"})  # models/llama_eagle3.py:306-308
TOKEN_MAP = ("--speculative-token-map: the draft-extend logits are as wide as the map "
             "(eagle_draft_extend_cuda_graph_runner.py:242-245); graphfit reads a local map "
             "with torch, and {why}; planned at the draft's vocabulary {vocab} (an upper "
             "bound)")
# the workers that load the map (eagle_worker_v2.py:324-334, standalone_worker_v2.py:128;
# EAGLE3 ignores it); the multi-layer composite's width ignores it
# (multi_layer_eagle_draft_extend_cuda_graph_runner.py:647-653)
TOKEN_MAP_METHODS = frozenset({"EAGLE", "NEXTN", "STANDALONE"})


def _text(data: Mapping[str, Any]) -> Mapping[str, Any]:
    return text_config(data)


def _positive(value: object, where: str, key: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    raise ConfigError(f"{where}: {key}: expected a positive integer, got {excerpt(value)}")


def draft_dtype(data: Mapping[str, Any], flag: object) -> str | None:
    """The draft ModelConfig's dtype: SGLang's `_get_and_verify_dtype` on the draft's text
    config (graphfit.inputs.sglang_dtype); None for a dtype graphfit does not map."""
    return sglang_dtype(data, flag)


def _own_vocab(data: Mapping[str, Any], where: str) -> int | None:
    """The draft's (text) vocab_size; None when the file names none (its config class's
    default, which graphfit does not restate: the target's value stands)."""
    value = _text(data).get("vocab_size")
    return None if value is None else _positive(value, where, "vocab_size")


def logits_width(data: Mapping[str, Any], where: str, method: str) -> int | None:
    """The draft-extend runners' logits columns (module docstring); None: not known."""
    for key in ("draft_vocab_size", "hot_vocab_size"):
        if key not in data:
            continue
        value = data[key]
        if value is None and key == "draft_vocab_size" and method == "EAGLE3" and not data.get(
                "tie_word_embeddings") and _architecture(data) in EAGLE3_LLAMA:
            return _own_vocab(data, where)
        if value is None:
            raise ConfigError(f"{where}: {key} is null: SGLang sizes the draft-extend logits "
                              f"with it and fails to allocate them "
                              f"(eagle_draft_extend_cuda_graph_runner.py:233-253)")
        return _positive(value, where, key)
    return _own_vocab(data, where)


def _architecture(data: Mapping[str, Any]) -> str:
    archs = data.get("architectures")
    return archs[0] if isinstance(archs, list) and archs and isinstance(archs[0], str) else ""


def eagle3_width(data: Mapping[str, Any], where: str) -> int | None:
    """`get_draft_input_from_target_hidden_dim` for an EAGLE3 draft (eagle_utils.py:
    253-276): the draft's spec_hidden_size (its hidden size) without aux states, else
    target_hidden_size (or its hidden size) times num_aux_hidden_states (or the aux layer
    ids' count, or 3)."""
    text = _text(data)
    eagle = data.get("eagle_config")
    eagle = eagle if isinstance(eagle, dict) else {}
    if text.get("hidden_size") is None:  # a config-class default: not restated
        return None
    hidden = _positive(text.get("hidden_size"), where, "hidden_size")
    if not eagle.get("use_aux_hidden_state", True):
        return hidden
    target = data.get("target_hidden_size")
    width = hidden if target is None else _positive(target, where, "target_hidden_size")
    aux = data.get("num_aux_hidden_states")
    if aux is None:
        ids = eagle.get("eagle_aux_hidden_state_layer_ids")
        if ids is None:
            ids = data.get("eagle_aux_hidden_state_layer_ids")
        aux = len(ids) if isinstance(ids, list) and ids else 3
    return width * _positive(aux, where, "num_aux_hidden_states")


def _load(values: Mapping[str, Any], path: Path) -> dict[str, Any]:
    """The draft's config.json with the line's override args applied, as the draft's
    ModelConfig gets them (model_config.py:962; load_config applies them already when the
    draft is the target's own directory)."""
    data = model_config.load_config(path)
    target = values.get("model_path")
    target_path = model_config.config_path(target) if isinstance(target, str) else None
    if target_path is not None and target_path.resolve() == path.resolve():
        return data
    return target_overrides.apply(data, target_overrides.parse(
        values.get("json_model_override_args")))


def _target_architecture(values: Mapping[str, Any]) -> str | None:
    target = values.get("model_path")
    path = model_config.config_path(target) if isinstance(target, str) else None
    return None if path is None else model_config.read_model(path, sglang=True).architecture


def _target_vocab(values: Mapping[str, Any]) -> int | None:
    target = values.get("model_path")
    path = model_config.config_path(target) if isinstance(target, str) else None
    return None if path is None else model_config.read_model(path, sglang=True).vocab_size


def settings(values: Mapping[str, Any]) -> tuple[list[Setting], list[str]]:
    """A pasted line's draft shape settings and notes (module docstring); nothing for a hub
    id, another algorithm or no draft path."""
    method = str(values.get("speculative_algorithm") or "").upper()
    draft = values.get("speculative_draft_model_path")
    if method not in ALGORITHMS or not isinstance(draft, str):
        return [], []
    path = model_config.config_path(draft)
    if path is None:
        return [], []
    where = shown_path(path)
    data = _load(values, path)
    origin = f"{where}: the draft's config"
    out: list[Setting] = []
    notes: list[str] = []
    vocab = _own_vocab(data, where) if method == "STANDALONE" else None
    target_vocab = _target_vocab(values)
    if vocab is not None and target_vocab is not None and target_vocab != vocab:
        raise ConfigError(f"STANDALONE speculative decoding requires the draft model to share "
                          f"the same vocabulary as the target model, but got target "
                          f"vocab_size={target_vocab} and draft vocab_size={vocab} "
                          f"(standalone_worker_v2.py:190-201)")
    if method != "FROZEN_KV_MTP":  # no draft-extend runner (frozen_kv_mtp_worker_v2.py:179)
        # DFLASH's and DSPARK's draft runner is a DecodeCudaGraphRunner: the draft
        # ModelConfig's vocab_size (decode_cuda_graph_runner.py:474-478)
        width = (_own_vocab(data, where) if method in DECODE_RUNNER_DRAFTS
                 else logits_width(data, where, method))
        origin_width = f"{origin} (logits width)"
        from graphfit.planner.engines.sglang_spec_runners import AUTO_ARCHITECTURES

        token_map = values.get("speculative_token_map")
        if (isinstance(token_map, str) and method in TOKEN_MAP_METHODS
                and not values.get("enable_multi_layer_eagle")
                and _target_architecture(values) not in AUTO_ARCHITECTURES
                and "draft_vocab_size" not in data and "hot_vocab_size" not in data):
            length = map_length(token_map)  # graphfit.inputs.sglang_token_map
            if length is not None:
                width, origin_width = length, f"{WHERE} {Path(token_map).name} (its ids)"
            elif width is not None:
                notes.append(TOKEN_MAP.format(vocab=width, why=(
                    "torch is not installed" if Path(token_map).exists()
                    else "this one is a hub file, not downloaded")))
        if width is not None:
            out.append(Setting("draft_vocab_size", width, origin_width, FILE, weak=True))
    dtype = draft_dtype(data, values.get("dtype"))
    if dtype is None:
        notes.append(f"{where}: the draft's dtype {excerpt(_text(data).get('torch_dtype'))} "
                     f"is not modelled; its hidden_states are planned in the target's dtype")
    elif flag_dtype(values.get("dtype")) is not None or is_auto(values.get("dtype")):
        # the line's explicit --dtype (auto included, graphfit.inputs.sglang_line_auto_dtype):
        # on the command-line layer, so that it wins over a config file's dtype
        # (graphfit.inputs.sglang_file_dtype) as flags do in SGLang
        out.append(Setting("draft_dtype", dtype, f"{WHERE} --dtype (the draft's ModelConfig)",
                           COMMAND_LINE, priority=BELOW if is_auto(values.get("dtype")) else 0))
    else:
        out.append(Setting("draft_dtype", dtype, f"{origin} (dtype)", FILE, weak=True))
    aux = eagle3_width(data, where) if method == "EAGLE3" else None
    if aux is not None:
        out.append(Setting("draft_extend_hidden_size", aux, f"{origin} (EAGLE3 aux width)",
                           FILE, weak=True))
    return out, notes
