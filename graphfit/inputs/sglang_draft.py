"""What SGLang 0.5.23 reads from the DRAFT model's own config.json for a DFLASH draft.

A pasted SGLang line names its draft with `--speculative-draft-model-path`. For DFLASH three
things come from that directory rather than from the flags:

* the block size when the line gives neither `--speculative-num-draft-tokens` nor
  `--speculative-dflash-block-size`: `_handle_dflash` loads the draft's HF config (with
  `--json-model-override-args` applied, hf_transformers/config.py:405-424) and takes
  `parse_dflash_draft_config(...).resolve_block_size()` -- `dflash_config.block_size`, else
  the top-level `block_size` (dflash_utils.py:608-616), `int()`-converted and >= 1
  (dflash_utils.py:501-517) -- or 16 when the config names none (speculative_hook.py:
  388-423);
* the draft's head, decided by the checkpoint: the model class is `architectures[0]` of the
  draft config (models/dflash.py:1317-1324, models/lilicorr.py:575), and
  `dflash_config.projector_type == "domino"` turns a DFlash draft into a Domino one
  (dflash_utils.py:542-543, 731-801). These change the sampler folded into the draft's
  graph (dflash_worker_v2.py:884-998); graphfit models the plain DFlash, the Domino
  and the selector ones (graphfit.planner.engines.sglang_dflash, SglangOptions.dflash_domino,
  dflash_selector_top_k) and the LiLiCorr one (dflash_lilicorr_top_k, read by
  graphfit.inputs.sglang_lilicorr);
* whether the draft loads at all: `DFlashDraftModel.__init__` parses the same config again
  (models/dflash.py:700-703) and raises where the argument hook only warned and fell back to
  16 (speculative_hook.py:406-412). graphfit refuses such a config with SGLang's reason
  rather than plan a server that does not start.

The reading is `graphfit.inputs.model_config`'s (one bounded, strict JSON read of the
directory's config.json); nothing is downloaded, so a hub id leaves the block to the flags.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from graphfit.inputs import model_config, sglang_dflash_layers, target_overrides
from graphfit.inputs.reading import shown_path
from graphfit.inputs.settings import COMMAND_LINE, FILE, Setting
from graphfit.inputs.sglang_lilicorr import LilicorrRefusal, candidate_topk, head_geometry
from graphfit.planner.core.enums import SpecMethod
from graphfit.planner.core.errors import ConfigError, brief, excerpt

BLOCK_DEFAULT = 16  # speculative_hook.py:414-421 (and models/dflash.py:704)
SELECTOR_ARCHITECTURES = frozenset({  # DFlash2DraftModel and its aliases (models/dflash.py:
    "DFlash2DraftModel", "DFlash2BeamDraftModel", "MiniMaxDFlash2DraftModel"})  # 1264-1315)
LILICORR_ARCHITECTURES = frozenset({"LiLiCorrDraftModel"})  # models/lilicorr.py:529-575
# why graphfit does not plan these drafts' graphs (each reason fits one error line); the
# LiLiCorr one is modelled now (graphfit.inputs.sglang_lilicorr)
UNMODELLED_HEADS: dict[str, str] = {}


@dataclass(frozen=True)
class DflashDraft:
    """The DFLASH facts of one draft config.json (after SGLang's override args)."""

    path: Path
    block_size: int | None  # None: the config names none (SGLang then uses 16)
    head: str  # "dflash", "selector", "lilicorr" or "domino"
    problem: str | None = None  # parse_dflash_draft_config's refusal: the draft won't load
    selector_top_k: int = 0  # dflash_config.selector_top_k (0: none)
    lilicorr_top_k: int = 0  # dflash_config.lilicorr_candidate_topk (0: not LiLiCorr)
    # [lilicorr_hidden_size, lilicorr_num_heads, lilicorr_factor_dim] (None: not LiLiCorr)
    lilicorr_head: tuple[int, int, int] | None = None
    # the block of the config as written, when the override args change it: the checkpoint's
    # weights were saved at this block (None: no override changes the block)
    saved_block: int | None = None
    # the LiLiCorr head geometry the override args changed against the config as written
    # ("lilicorr_num_layers 2 -> 3"; None: the head's weights keep their shapes)
    saved_head: str | None = None

    def __post_init__(self) -> None:
        if self.block_size is not None and self.block_size < 1:
            raise ValueError(f"block_size {self.block_size} < 1")  # pragma: no cover
        if self.head not in ("dflash", "domino", "selector", "lilicorr", *UNMODELLED_HEADS):
            raise ValueError(f"unknown DFLASH draft head {self.head!r}")  # pragma: no cover

    @property
    def resolved_block(self) -> int:
        """`resolve_block_size(default=16)`, as the hook and the draft model take it."""
        return BLOCK_DEFAULT if self.block_size is None else self.block_size


class _Refusal(Exception):
    """parse_dflash_draft_config's ValueError, as SGLang words it."""


def _optional_int(value: Any, field: str, min_value: int | None = None) -> int | None:
    """`_parse_optional_int` (dflash_utils.py:501-517): Python's int() of whatever the JSON
    holds (so "8" is 8, 8.9 is 8, true is 1), then the lower bound."""
    if value is None:
        return None
    try:
        parsed = int(value)
    except (TypeError, ValueError, OverflowError):
        raise _Refusal(f"Invalid {field}={excerpt(value, 40)}.") from None
    if min_value is not None and parsed < min_value:
        comparator = "positive" if min_value == 1 else f">= {min_value}"
        raise _Refusal(f"{field} must be {comparator}, got {parsed}.")
    return parsed


def _dflash_config(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """`_get_dflash_config` (dflash_utils.py:445-458): the object, anything dict() accepts,
    else nothing."""
    cfg = data.get("dflash_config")
    if cfg is None:
        return {}
    if isinstance(cfg, dict):
        return cfg
    try:
        return dict(cfg)
    except (TypeError, ValueError):
        return {}


def _text(data: Mapping[str, Any]) -> Mapping[str, Any]:
    text = data.get("text_config")
    return text if isinstance(text, dict) else data


def _check(data: Mapping[str, Any], cfg: Mapping[str, Any]) -> None:
    """The rest of `parse_dflash_draft_config`'s checks (dflash_utils.py:588-801), in its
    order: any of them failing stops the draft model from loading (models/dflash.py:700)."""
    _optional_int(_text(data).get("num_hidden_layers"), "DFLASH draft num_hidden_layers", 1)
    _optional_int(cfg.get("num_target_layers", data.get("num_target_layers")),
                  "DFLASH draft num_target_layers", 1)
    _optional_int(cfg.get("block_size", data.get("block_size")), "DFLASH block_size", 1)
    kernel = _optional_int(cfg.get("conv_kernel_size", 0), "DFLASH conv_kernel_size", 0)
    group = _optional_int(cfg.get("conv_group_size", 0), "DFLASH conv_group_size", 0)
    if bool(kernel) != bool(group):
        raise _Refusal("DFLASH grouped convolution needs conv_kernel_size and "
                       "conv_group_size together.")
    rank = _optional_int(cfg.get("selector_rank", 0), "DFLASH selector rank", 0)
    top_k = _optional_int(cfg.get("selector_top_k", 0), "DFLASH selector top_k", 0)
    if bool(rank) != bool(top_k):
        raise _Refusal("DFLASH selector needs rank and top_k together.")
    for key, default in (("output_multiplier", 1.0), ("final_logit_softcapping", 0.0)):
        value = cfg.get(key, default) if key == "output_multiplier" else (
            cfg.get(key) or default)
        try:
            number = float(value)
        except (TypeError, ValueError, OverflowError):
            raise _Refusal(f"DFLASH {key}: could not convert {excerpt(value, 40)} to "
                           f"float.") from None
        if key == "output_multiplier" and number <= 0:
            raise _Refusal("DFLASH output_multiplier must be positive.")
    layer_ids = cfg.get("target_layer_ids", data.get("target_layer_ids"))
    if layer_ids is not None:
        if not isinstance(layer_ids, list):
            raise _Refusal("DFLASH dflash_config.target_layer_ids must be a list of ints.")
        for x in layer_ids:  # int(x) (dflash_utils.py:670): int(None) raises too
            _optional_int(x if x is not None else [], "DFLASH target_layer_ids entry")
        if not layer_ids:
            raise _Refusal("DFLASH dflash_config.target_layer_ids must be non-empty.")
    mask = cfg.get("mask_token", data.get("mask_token"))
    if mask is not None and (not isinstance(mask, str) or not mask):
        raise _Refusal("DFLASH dflash_config.mask_token must be a non-empty string.")
    mask_id = cfg.get("mask_token_id", data.get("mask_token_id"))
    if mask_id is not None and (not isinstance(mask_id, int) or isinstance(mask_id, bool)
                                or mask_id < 0):
        raise _Refusal("DFLASH dflash_config.mask_token_id must be a non-negative integer.")
    if not isinstance(cfg.get("attention_sink_bias", False), bool):
        raise _Refusal("DFLASH dflash_config.attention_sink_bias must be a bool.")
    scale = cfg.get("attention_value_scale")
    if scale is not None and (isinstance(scale, bool) or not isinstance(scale, int | float)):
        raise _Refusal("DFLASH dflash_config.attention_value_scale must be int|float|None.")
    if cfg.get("projector_type", data.get("projector_type")) == "domino":
        _check_domino(data, cfg)


def _check_domino(data: Mapping[str, Any], cfg: Mapping[str, Any]) -> None:
    """dflash_utils.py:734-791 (a Domino draft's own fields)."""
    def pick(key: str) -> Any:
        return cfg.get(key, data.get(key))

    prefix = _optional_int(pick("pure_draft_prefix_len"),
                           "DFLASH Domino pure_draft_prefix_len", 0)
    gru = _optional_int(pick("gru_hidden_dim"), "DFLASH Domino gru_hidden_dim", 1)
    nested = _optional_int(cfg.get("emb_dim"), "DFLASH Domino dflash_config.emb_dim", 1)
    top = _optional_int(data.get("emb_dim"), "DFLASH Domino top-level emb_dim", 1)
    if nested is not None and top is not None and nested != top:
        raise _Refusal("DFLASH Domino emb_dim differs between dflash_config and the "
                       "top-level config.")
    if not isinstance(pick("shift_label"), bool):
        raise _Refusal("DFLASH Domino requires dflash_config.shift_label to be a bool.")
    if prefix != 1:
        raise _Refusal("DFLASH Domino currently requires pure_draft_prefix_len=1.")
    if gru is None:
        raise _Refusal("DFLASH Domino requires dflash_config.gru_hidden_dim.")
    if (nested if nested is not None else top) is None:
        raise _Refusal("DFLASH Domino requires dflash_config.emb_dim.")
    block = _optional_int(cfg.get("block_size", data.get("block_size")), "DFLASH block_size",
                          1)
    if block is not None and block <= 1:
        raise _Refusal(f"DFLASH Domino requires block_size > 1, got {block}.")


def parse_problem(data: Mapping[str, Any]) -> str | None:
    """`parse_dflash_draft_config`'s ValueError for this config (dflash_utils.py:588-813),
    as SGLang words it, or None: what DSPARK's own parse runs first (graphfit.inputs.
    sglang_dspark_parse)."""
    try:
        _check(data, _dflash_config(data))
    except _Refusal as exc:
        return str(exc)
    return None


def overridden(data: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """`get_config(..., model_override_args)` (hf_transformers/config.py:405-424), the rule
    the target's config gets too (graphfit.inputs.target_overrides.apply)."""
    return target_overrides.apply(data, overrides)


def parse(data: Mapping[str, Any], path: Path) -> DflashDraft:
    """One draft config (a JSON object) as SGLang's DFLASH reads it."""
    cfg = _dflash_config(data)
    try:
        _check(data, cfg)
    except _Refusal as exc:
        return DflashDraft(path, None, "dflash", problem=str(exc))
    block = _optional_int(cfg.get("block_size", data.get("block_size")), "DFLASH block_size",
                          1)
    top_k = _optional_int(cfg.get("selector_top_k", 0), "DFLASH selector top_k", 0) or 0
    architectures = data.get("architectures")
    first = architectures[0] if isinstance(architectures, list) and architectures else None
    head = ("selector" if first in SELECTOR_ARCHITECTURES else
            "lilicorr" if first in LILICORR_ARCHITECTURES else
            "domino" if cfg.get("projector_type", data.get("projector_type")) == "domino"
            else "dflash")
    if head == "selector" and not top_k:  # DFlash2DraftModel.__init__ (models/dflash.py:1270)
        return DflashDraft(path, block, head, problem="DFlash selector draft requires "
                                                      "dflash_config.selector_rank.")
    if head == "lilicorr":  # LiLiCorrDraftModel.__init__ (models/lilicorr.py:532-540)
        try:
            return DflashDraft(path, block, head, lilicorr_top_k=candidate_topk(cfg),
                               lilicorr_head=head_geometry(cfg))
        except LilicorrRefusal as exc:
            return DflashDraft(path, block, head, problem=str(exc))
    return DflashDraft(path, block, head, selector_top_k=top_k)


def read(model: str, overrides_given: Any = None) -> DflashDraft | None:
    """The DFLASH facts of a local draft model (None: no local config.json, e.g. a hub id)."""
    path = model_config.config_path(model)
    if path is None:
        return None
    data = model_config.load_config(path)
    overrides = override_args(overrides_given)
    if not overrides:
        return parse(data, path)
    changed = overridden(data, overrides)
    draft, saved = parse(changed, path), parse(data, path)
    if saved.problem is None and saved.resolved_block != draft.resolved_block:
        return replace(draft, saved_block=saved.resolved_block)
    if draft.problem is None and saved.problem is None and draft.head == saved.head == "lilicorr":
        ours, theirs = _head_weights(changed), _head_weights(data)
        moved = [f"{k} {theirs[k]} -> {v}" for k, v in ours.items() if theirs.get(k) != v]
        if moved and theirs:
            return replace(draft, saved_head=", ".join(moved))
    return draft


def _head_weights(data: Mapping[str, Any]) -> dict[str, object]:
    """What sizes a LiLiCorr head's parameters (`LiLiCorrHead.__init__`, models/lilicorr.py:
    155-236): the draft's hidden size (the input projections, and whether `token_proj`
    exists), the head's resolved width (0: the draft's, lilicorr_utils.py:42-44), its layer
    count, heads (`relative_slot_bias`, `same_slot_bias`), MLP width int(width x mlp_ratio)
    (:129), factor width and candidate top-k (`rank_embedding`); vector_eps and logit_scale
    size nothing (lilicorr_utils.py:55). Empty when a value does not convert (the parse has
    accepted both configs, so only the draft's own hidden size can fail here)."""
    cfg = _dflash_config(data)
    try:
        model = int(data["hidden_size"])
        width = int(cfg["lilicorr_hidden_size"]) or model
        return {"hidden_size": model, "lilicorr_hidden_size": width,
                "lilicorr_num_layers": int(cfg["lilicorr_num_layers"]),
                "lilicorr_num_heads": int(cfg["lilicorr_num_heads"]),
                "mlp_width": int(width * float(cfg["lilicorr_mlp_ratio"])),
                "lilicorr_factor_dim": int(cfg["lilicorr_factor_dim"]),
                "lilicorr_candidate_topk": int(cfg["lilicorr_candidate_topk"])}
    except (KeyError, TypeError, ValueError, OverflowError):
        return {}


def override_args(value: Any) -> dict[str, Any]:
    """`--json-model-override-args` (SGLang's default is "{}"), which SGLang applies to the
    draft's config as to the target's (DFLASH here, DSPARK in graphfit.inputs.sglang_dspark;
    read as graphfit.inputs.target_overrides.parse reads it)."""
    return target_overrides.parse(value)


def dflash_draft_settings(values: Mapping[str, Any], explicit_block: bool
                          ) -> tuple[list[Setting], list[str]]:
    """A pasted DFLASH line's draft: its block size when the line gives none, the refusals
    for drafts whose graphs graphfit does not model or that SGLang cannot load."""
    model = str(values.get("speculative_draft_model_path"))
    draft = read(model, values.get("json_model_override_args"))
    shown = brief(model)
    if draft is None:
        if explicit_block:
            return [], [f"--speculative-draft-model-path {shown}: no local config.json; "
                        f"planned as a plain DFlash draft (a Domino, selector or LiLiCorr "
                        f"checkpoint has other sampler buffers)"]
        raise ConfigError(
            f"--speculative-draft-model-path {shown}: no local config.json to read the "
            f"DFLASH block size from (speculative_hook.py:388-423); give "
            f"--speculative-dflash-block-size")
    where = shown_path(draft.path)
    if draft.problem is not None:
        site = "models/lilicorr.py:536" if draft.head == "lilicorr" else "models/dflash.py:700"
        raise ConfigError(f"{where}: SGLang's DFLASH draft would not load ({site}): "
                          f"{draft.problem}")
    if draft.head not in ("dflash", "domino", "selector", "lilicorr"):
        raise ConfigError(f"{where}: a {draft.head} DFLASH draft is not modelled: "
                          f"{UNMODELLED_HEADS[draft.head]}")
    if draft.head == "lilicorr" and draft.saved_block is not None:
        # the head is built at the overridden block (models/lilicorr.py:536-541, the draft's
        # ModelConfig applies the override, model_config.py:612-626); its slot_embedding and
        # relative_slot_bias (:196-203) are sized by it, the checkpoint's by its own block
        raise ConfigError(f"{where}: SGLang's LiLiCorr draft would not load (weight_utils.py:"
                          f"1582): the override block_size {draft.resolved_block} sizes its "
                          f"head; its weights were saved at {draft.saved_block}")
    if draft.head == "lilicorr" and draft.saved_head is not None:
        # the head is built from the overridden dflash_config; a parameter of another shape
        # fails the loader's size assertion (weight_utils.py:1582), a missing or extra one the
        # head's coverage check (models/lilicorr.py:459-483)
        raise ConfigError(f"{where}: SGLang's LiLiCorr draft would not load (models/lilicorr."
                          f"py:459-483): the override sizes its head {draft.saved_head}; the "
                          f"weights were saved at the config as written")
    # the target runner's layer-id resolution (graphfit.inputs.sglang_dflash_layers)
    written = model_config.load_config(draft.path)
    overrides = override_args(values.get("json_model_override_args"))
    sglang_dflash_layers.check(values, overridden(written, overrides) if overrides else written,
                               where)
    found: list[Setting] = []
    notes: list[str] = []
    if draft.head == "selector":  # SglangOptions.dflash_selector_top_k
        found.append(Setting("dflash_selector_top_k", draft.selector_top_k,
                             f"{where}: selector draft", FILE, weak=True))
        notes.append(f"{where}: a selector DFLASH draft (top_k {draft.selector_top_k}; its "
                     f"sampler's buffers, dflash_worker_v2.py:254-283)")
    if draft.head == "lilicorr":  # SglangOptions.dflash_lilicorr_top_k
        found.append(Setting("dflash_lilicorr_top_k", draft.lilicorr_top_k,
                             f"{where}: LiLiCorr draft", FILE, weak=True))
        found.append(Setting("dflash_lilicorr_head", draft.lilicorr_head,
                             f"{where}: LiLiCorr head geometry", FILE, weak=True))
        notes.append(f"{where}: a LiLiCorr DFLASH draft (candidate top-k "
                     f"{draft.lilicorr_top_k}; its sampler's buffers, lilicorr_utils.py:"
                     f"239-290)")
    if draft.head == "domino":  # its sampler's buffers (SglangOptions.dflash_domino)
        found.append(Setting("dflash_domino", True, f"{where}: projector_type domino", FILE,
                             weak=True))
        notes.append(f"{where}: a Domino DFLASH draft (its rollout sampler holds `out` only, "
                     f"dflash_worker_v2.py:322-345)")
    if explicit_block:
        block = values.get("speculative_num_draft_tokens") or values.get(
            "speculative_dflash_block_size")
        if draft.head == "lilicorr" and isinstance(block, int) \
                and block > draft.resolved_block:  # set_active_block_size (lilicorr.py:299-305)
            raise ConfigError(f"{where}: SGLang's LiLiCorr draft would not load "
                              f"(dflash_worker_v2.py:523, models/lilicorr.py:299-305): "
                              f"block_size={block} is outside [2, {draft.resolved_block}], the "
                              f"trained LiLiCorr block")
        if draft.block_size is not None and block != draft.block_size:
            notes.append(f"{where}: the draft was trained with block_size {draft.block_size}; "
                         f"SGLang uses the line's {block} and warns (dflash_worker_v2.py:"
                         f"510-520)")
        return found, notes
    said = (f"block_size {draft.block_size}" if draft.block_size is not None
            else f"no block_size, SGLang's default {BLOCK_DEFAULT}")
    return ([Setting("speculative_num_draft_tokens", draft.resolved_block,
                     f"{where}: DFLASH block size", FILE, weak=True), *found],
            [f"DFLASH block size {draft.resolved_block}: read from the draft's config "
             f"({said}; speculative_hook.py:388-423)", *notes])


# --------------------------------------------------------------------------------------------
# FROZEN_KV_MTP: the Gemma 4 assistant drafts (speculative/frozen_kv_mtp_*.py)
# --------------------------------------------------------------------------------------------

# a draft of these architectures turns --speculative-algorithm EAGLE / NEXTN into FROZEN_KV_MTP
# and EAGLE3 into an error (`_resolve_speculative_algorithm_alias`, speculative_hook.py:81-118)
GEMMA4_ASSISTANTS = ("Gemma4AssistantForCausalLM", "Gemma4UnifiedAssistantForCausalLM")
# HF's config-class defaults of `backbone_hidden_size` (transformers 5.25:
# gemma4_assistant/configuration_gemma4_assistant.py:67,
# gemma4_unified_assistant/configuration_gemma4_unified_assistant.py:63), what the draft model
# reads when its config.json names none
BACKBONE_DEFAULTS = {"gemma4_assistant": 1536, "gemma4_unified_assistant": 3840}
FROZEN = "FROZEN_KV_MTP"
PROMOTED = 1  # above the line's own --speculative-algorithm settings (priority 0)


def _backbone(data: Mapping[str, Any], where: str) -> int | None:
    """The draft model's `backbone_hidden_size` (models/gemma4_mtp.py:80 reads it off the
    assistant config), HF's class default when the file names none, None when neither."""
    value = data.get("backbone_hidden_size")
    if value is None:
        model_type = data.get("model_type")
        return BACKBONE_DEFAULTS.get(model_type) if isinstance(model_type, str) else None
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    raise ConfigError(f"{where}: backbone_hidden_size: expected a positive integer, got "
                      f"{excerpt(value)}")


def frozen_draft_settings(values: Mapping[str, Any]) -> tuple[list[Setting], list[str]]:
    """A pasted line's Gemma 4 assistant draft (a local config.json): the algorithm SGLang
    really runs, and the FROZEN_KV_MTP draft loop's hidden width.

    `FrozenKVMTPCudaGraphRunner` allocates hidden_states (max_bs, `_recurrent_hidden_size`)
    (frozen_kv_mtp_cuda_graph_runner.py:150-154), the draft model's `backbone_hidden_size`
    (frozen_kv_mtp_worker_v2.py:329-331), which only the Gemma 4 assistant models define
    (models/gemma4_mtp.py:80) -- not the draft's own (text) hidden size, not the target's.
    graphfit carries it as `draft_hidden_size` (the drafter's hidden_states width), above
    the draft's own hidden size that graphfit.inputs.model_config reads."""
    name = str(values.get("speculative_algorithm") or "").upper()
    model = values.get("speculative_draft_model_path")
    if name not in ("EAGLE", "NEXTN", "EAGLE3", FROZEN) or not isinstance(model, str):
        return [], []
    path = model_config.config_path(model)
    if path is None:
        if name == FROZEN:
            return [], [f"--speculative-draft-model-path {brief(model)}: no local config.json; "
                        f"the FROZEN_KV_MTP hidden_states width is taken as the target's "
                        f"hidden size (SGLang: the draft's backbone_hidden_size)"]
        return [], []
    data = model_config.load_config(path)
    where = shown_path(path)
    architectures = data.get("architectures")
    gemma = isinstance(architectures, list) and any(a in GEMMA4_ASSISTANTS
                                                    for a in architectures)
    settings: list[Setting] = []
    notes: list[str] = []
    if gemma and name == "EAGLE3":
        raise ConfigError(f"{where}: a Gemma4AssistantForCausalLM draft requires "
                          f"--speculative-algorithm NEXTN or EAGLE; SGLang refuses EAGLE3 "
                          f"(speculative_hook.py:102-107)")
    if gemma and name in ("EAGLE", "NEXTN"):
        origin = f"{where}: Gemma 4 assistant draft"
        settings += [Setting("spec_method", SpecMethod.MTP, origin, COMMAND_LINE,
                             priority=PROMOTED),
                     Setting("frozen_kv_mtp", True, origin, COMMAND_LINE, priority=PROMOTED)]
        notes.append(f"--speculative-algorithm {name}: SGLang runs FROZEN_KV_MTP for a Gemma 4 "
                     f"assistant draft (speculative_hook.py:109-116)")
        name = FROZEN
    if name != FROZEN:
        return settings, notes
    backbone = _backbone(data, where)
    if backbone is None:
        raise ConfigError(f"{where}: names no backbone_hidden_size, the FROZEN_KV_MTP draft "
                          f"loop's hidden width (frozen_kv_mtp_worker_v2.py:329-331; only Gemma "
                          f"4 assistant drafts have it, models/gemma4_mtp.py:80)")
    settings.append(Setting("draft_hidden_size", backbone, f"{where}: backbone_hidden_size",
                            FILE, weak=True, priority=PROMOTED))
    notes.append(f"FROZEN_KV_MTP hidden_states width {backbone}: the draft's "
                 f"backbone_hidden_size (frozen_kv_mtp_worker_v2.py:329-331)")
    return settings, notes
