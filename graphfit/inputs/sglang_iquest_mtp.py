"""SGLang 0.5.23's checks of an IQuest Q1 target's MTP draft, and the speculation it settles.

`_handle_iquest_q1_mtp_draft` (arg_groups/speculative_hook.py:1014-1058) runs for every
EAGLE-family line (`_handle_eagle_family`, :1158; spec_info.py:262-264) whose target's
architecture is IQuestQ1ForCausalLM, after IQuest Q1's model override, which lets only EAGLE /
NEXTN with topk 1 and fa3 through (`_override_refuses`). It loads the draft's config with
`get_config` (no override args) and refuses, in this order:

* no independent draft path (:1022-1023; graphfit.inputs.sglang_draft_default says so);
* a draft config that is not `IQuestQ1MTPConfig`, i.e. whose model_type is not
  "iquest_q1_mtp" (:1024-1030); that config's own constructor refuses more draft shapes
  (configs/iquest_q1.py:179-192);
* a draft hidden size or vocabulary not the target's (:1031-1032), or a target layer count
  not the target's (:1033-1034); the MTP config takes each key from the file, else from its
  `target_config`, else IQuestQ1Config's defaults (configs/iquest_q1.py:186-213, 11-12);
* `--speculative-token-map` (:1035-1036);
* steps (the line's, else the checkpoint's `num_draft_slots`, 7 by default) below 1
  (:1037-1041), draft tokens other than steps + 1 (:1050-1051).

Then it settles steps, topk 1 and steps + 1 draft tokens (:1052-1058), before SGLang's
generic defaults could pick others: graphfit sets the same three.

A draft that is a hub id is not downloaded, so its config checks (:1024-1034) are not made
(a note says so). What follows them does not read the draft when the line gives the steps,
so it is restated whatever the hub config holds (issue 23, s47r): a token map is refused
(SGLang refuses it, or an earlier config check does), and so are explicit steps below 1 and
draft tokens other than steps + 1; explicit steps S settle S / 1 / S + 1, as SGLang does
whenever the server starts. Without the steps they are the hub config's num_draft_slots
(:1038-1039), unknown here: the note says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs import model_config
from graphfit.inputs.reading import load_json, shown_path
from graphfit.inputs.settings import COMMAND_LINE, Setting
from graphfit.planner.core.errors import ConfigError

TARGET = "IQuestQ1ForCausalLM"
DRAFT_TYPE = "iquest_q1_mtp"
# the hook runs for the EAGLE family (spec_info.py:262-264); IQuest Q1's override lets only
# these two through (model_overrides/iquest_q1.py:24-26)
METHODS = frozenset({"EAGLE", "NEXTN"})
# IQuestQ1Config's defaults (configs/iquest_q1.py:11-12) and IQuestQ1MTPConfig's
# (:172, 188)
DEFAULT_VOCAB, DEFAULT_HIDDEN, DEFAULT_TARGET_LAYERS, DEFAULT_SLOTS = 160000, 3072, 88, 7
HOOK = "arg_groups/speculative_hook.py"
ORIGIN = f"SGLang's IQuest Q1 MTP resolution ({HOOK}:1037-1058)"


def _refuse(message: str, where: str) -> ConfigError:
    return ConfigError(f"SGLang refuses this IQuest Q1 draft: {message} ({where})")


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _draft_shape(data: Mapping[str, Any]) -> tuple[int | None, int | None, int | None, int]:
    """(hidden, vocab, target layers, draft slots) as IQuestQ1MTPConfig builds them
    (configs/iquest_q1.py:168-216), refusing what its constructor refuses."""
    where = "configs/iquest_q1.py"
    if data.get("num_hidden_layers", 1) != 1:
        raise _refuse("MTP supports one physical draft layer.", f"{where}:179-180")
    slots = data.get("num_draft_slots", DEFAULT_SLOTS)
    if _int(slots) is None or slots < 1:
        raise _refuse("num_draft_slots must be positive.", f"{where}:181-182")
    target = data.get("target_config")
    target = target if isinstance(target, dict) else {}
    layers = data.get("num_target_layers")
    if layers is None:
        layers = target.get("num_hidden_layers", DEFAULT_TARGET_LAYERS)
    if _int(layers) is None or layers < 1:
        raise _refuse("num_target_layers must be positive.", f"{where}:188-190")
    if target.get("num_hidden_layers", layers) != layers:
        raise _refuse("num_target_layers must match target_config.", f"{where}:191-192")
    hidden = data.get("hidden_size", target.get("hidden_size", DEFAULT_HIDDEN))
    vocab = data.get("vocab_size", target.get("vocab_size", DEFAULT_VOCAB))
    return _int(hidden), _int(vocab), layers, slots


def _override_refuses(values: Mapping[str, Any]) -> bool:
    """Whether IQuest Q1's model override refuses the line first (SGLang runs the model
    overrides before the speculative hook, arg_groups/pipeline.py:225-306; restated in
    graphfit.planner.engines.sglang_arch_overrides.line_refusals): a backend other than fa3
    (model_overrides/iquest_q1.py:19-23), topk > 1 (:31-34; so the hook's own topk check,
    speculative_hook.py:1048-1049, never fires), multi-layer EAGLE (:35-36)."""
    backends = (values.get(k) for k in ("attention_backend", "prefill_attention_backend",
                                        "decode_attention_backend"))
    topk = values.get("speculative_eagle_topk")
    return (any(b not in (None, "fa3") for b in backends)
            or (isinstance(topk, int) and topk > 1)
            or bool(values.get("enable_multi_layer_eagle")))


def _hub(values: Mapping[str, Any], draft: str) -> tuple[list[Setting], list[str]]:
    """The hook's checks that need no draft config, for a hub-id draft (module docstring)."""
    note = (f"IQuest Q1: the MTP draft {draft} has no local config.json: SGLang's checks of "
            f"it ({HOOK}:1024-1034) are not made here")
    either = "whatever its hub config holds; or a config check first"
    if values.get("speculative_token_map") is not None:
        raise _refuse("MTP uses its own full-vocabulary embedding and head.",
                      f"{HOOK}:1035-1036, {either}")
    steps = values.get("speculative_num_steps")
    if steps is None:
        return [], [f"{note}; its steps are the config's num_draft_slots ({HOOK}:1038-1039), "
                    f"not read: graphfit's defaults stand"]
    if _int(steps) is None or steps < 1:
        raise _refuse("MTP requires positive speculative_num_steps.",
                      f"{HOOK}:1040-1041, {either}")
    if values.get("speculative_num_draft_tokens") not in (None, steps + 1):
        raise _refuse("MTP verification width must equal draft steps + 1.",
                      f"{HOOK}:1050-1051, {either}")
    return [Setting("num_speculative_tokens", steps, ORIGIN, COMMAND_LINE),
            Setting("speculative_eagle_topk", 1, ORIGIN, COMMAND_LINE),
            Setting("speculative_num_draft_tokens", steps + 1, ORIGIN, COMMAND_LINE)], [note]


def line(values: Mapping[str, Any]) -> tuple[list[Setting], list[str]]:
    """The settled speculation of an IQuest Q1 line with a local MTP draft, or SGLang's
    refusal (module docstring); nothing for any other line."""
    method = str(values.get("speculative_algorithm") or "").upper()
    target, draft = values.get("model_path"), values.get("speculative_draft_model_path")
    if method not in METHODS or not isinstance(target, str) or draft in (None, target):
        return [], []  # no independent draft: graphfit.inputs.sglang_draft_default refuses
    target_path = model_config.config_path(target)
    if target_path is None:
        return [], []
    info = model_config.read_model(target_path, sglang=True)
    if info.architecture != TARGET:
        return [], []
    if _override_refuses(values):
        # the override's refusal, before any reading of the draft (line_refusals raises)
        from graphfit.planner.engines.sglang_arch_overrides import line_refusals

        topk = values.get("speculative_eagle_topk")
        line_refusals(TARGET, *(values.get(k) for k in (
            "attention_backend", "prefill_attention_backend", "decode_attention_backend")),
            algorithm=method, topk=topk if isinstance(topk, int) else None,
            kv_cache_dtype=values.get("kv_cache_dtype"),
            multi_layer=bool(values.get("enable_multi_layer_eagle")))
        return [], []
    draft_path = model_config.config_path(str(draft))
    if draft_path is None:
        return _hub(values, str(draft))
    data = load_json(draft_path, "model config")
    if not isinstance(data, dict) or data.get("model_type") != DRAFT_TYPE:
        raise _refuse("IQuest Q1 requires an independent MTP draft checkpoint.",
                      f"{HOOK}:1024-1030; {shown_path(draft_path)} is not an iquest_q1_mtp "
                      f"config")
    hidden, vocab, layers, slots = _draft_shape(data)
    if hidden != info.hidden_size or vocab != info.vocab_size:
        raise _refuse("MTP draft hidden size and vocabulary must match the target.",
                      f"{HOOK}:1031-1032; draft {hidden}/{vocab}, target "
                      f"{info.hidden_size}/{info.vocab_size}")
    if layers != info.num_hidden_layers:
        raise _refuse("MTP draft target layer count must match the target.",
                      f"{HOOK}:1033-1034; draft {layers}, target {info.num_hidden_layers}")
    if values.get("speculative_token_map") is not None:
        raise _refuse("MTP uses its own full-vocabulary embedding and head.",
                      f"{HOOK}:1035-1036")
    steps = values.get("speculative_num_steps")
    steps = slots if steps is None else steps
    if _int(steps) is None or steps < 1:
        raise _refuse("MTP requires positive speculative_num_steps.", f"{HOOK}:1037-1041")
    if values.get("speculative_num_draft_tokens") not in (None, steps + 1):
        raise _refuse("MTP verification width must equal draft steps + 1.",
                      f"{HOOK}:1050-1051")
    return [Setting("num_speculative_tokens", steps, ORIGIN, COMMAND_LINE),
            Setting("speculative_eagle_topk", 1, ORIGIN, COMMAND_LINE),
            Setting("speculative_num_draft_tokens", steps + 1, ORIGIN, COMMAND_LINE)], []
