"""SGLang 0.5.23's DSPARK flags on a pasted launch_server line.

`--speculative-dspark-block-size G` is DSPARK's gamma: SGLang sets
`speculative_num_draft_tokens` to G + 1 and refuses a --speculative-num-draft-tokens that
differs (arg_groups/speculative_hook.py:807-840), so here it is a second spelling of
speculative_num_draft_tokens (a differing value is a conflicting setting). SGLang reads it for
DSPARK only (:807), so another algorithm's line drops it. The planner's rules:
graphfit.planner.engines.sglang_dspark.

A local draft (`--speculative-draft-model-path DIR` with a config.json) is read as SGLang
reads it: gamma from `dspark_block_size`, else `dflash_config.block_size`, else a top-level
`block_size` (dspark_config.py:214-296 via dflash_utils.py:608-617), used when
--speculative-dspark-block-size is not given (speculative_hook.py:814-840; 7 when the draft
names none and no window is given either, :816-823); `sample_from_anchor` (bool() of any
value, default True, dspark_config.py:29-31) decides the draft runner's width
(SglangOptions.dspark_samples_anchor).
A draft graphfit cannot read (a hub id) keeps the refusal when no gamma is given.
With no --speculative-draft-model-path, the draft SGLang fills in from a local target (bundled
in its config.json, or its dspark/ folder: `fill`, graphfit.inputs.sglang_draft_path) is read
the same way; none found is SGLang's refusal (speculative_hook.py:751-755).

The draft's config is read with `--json-model-override-args` applied, as SGLang's hook and
the draft's ModelConfig read it (dspark_config.py:146-154, model_config.py:612-626), and so
are the target's embedding rows. A MiniMax M3.1 draft is rewritten first
(graphfit.inputs.sglang_dspark_minimax: refused with SGLang's reason, not modelled at TP > 1
where the GPUs decide a multicast buffer or, under attention DP, for a target whose lm_head
group graphfit has not read; else read from its rewritten config); a
DeepSeek-V4 (MoE) draft is refused as not modelled.

A draft config SGLang's DSPARK parse raises on (graphfit.inputs.sglang_dspark_parse: e.g.
`markov_rank` > 0 without `markov_head_type`, dspark_config.py:265-268) makes the argument
hook fall back to the flags or 7 (speculative_hook.py:796-805, 814-823), but the worker parses
it again at start-up and raises (dspark_worker_v2.py:261-265): refused with SGLang's message.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from graphfit.inputs import (
    sglang_dflash_layers,
    sglang_draft_layer_default,
    sglang_dspark_minimax,
    sglang_dspark_minimax_tp,
    sglang_dspark_parse,
)
from graphfit.inputs.model_config import config_path, local_config
from graphfit.inputs.reading import load_json, shown_path
from graphfit.inputs.settings import FILE, Setting
from graphfit.inputs.sglang_draft import overridden, override_args
from graphfit.inputs.sglang_draft_path import draft_path
from graphfit.inputs.sglang_dspark_env import line_environ
from graphfit.inputs.sglang_minimax_target import nvfp4_target
from graphfit.inputs.sglang_spec_dp import (
    DEEPSEEK_V4,
    attention_dp_size,
    dspark_draft,
    size_or_one,
)
from graphfit.inputs.values import as_int
from graphfit.planner.core.enums import Engine
from graphfit.planner.core.errors import ConfigError, excerpt

BLOCK_FLAG = "dspark-block-size"
GAMMA_DEFAULT = 7  # DEFAULT_DSPARK_GAMMA, dspark_config.py:21
# _handle_dspark's refusal when neither a bundled draft nor a dspark/ folder is found
# (speculative_hook.py:751-755)
NO_DRAFT = "DSpark dense speculative decoding requires setting --speculative-draft-model-path."


def block_size(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """`--speculative-dspark-block-size G`: speculative_num_draft_tokens G + 1 (SGLang
    refuses G <= 0, speculative_hook.py:807-812)."""
    if value is None:
        return [], []
    if isinstance(value, (int, str)) and str(value).strip().lstrip("-").isdigit() \
            and int(value) <= 0:
        raise ConfigError(f"{origin}: SGLang's DSPARK needs a positive block size, got "
                          f"{value} (speculative_hook.py:807-812)")
    gamma = as_int(origin, value)
    return [Setting("speculative_num_draft_tokens", gamma + 1, origin, layer),
            Setting("engine", Engine.SGLANG, origin, layer)], []


def line(values: Mapping[str, Any], settings: list[Setting]) -> list[Setting]:
    """A pasted line's DSPARK rules that need two keys: the draft's config (the line's
    --speculative-draft-model-path, or the one `fill` found in a local target); no draft
    found in a local target is SGLang's refusal, a hub-id target's is not read (nothing is
    downloaded); the block size flag is dropped for other algorithms."""
    name = str(values.get("speculative_algorithm") or "").upper()
    if name != "DSPARK":
        return [s for s in settings if BLOCK_FLAG not in s.origin]
    draft = values.get("speculative_draft_model_path")
    if not draft:
        # `fill` found no draft in a local target: SGLang's own refusal
        # (speculative_hook.py:751-755); a hub-id target SGLang would download from
        if local_target(values):
            raise ConfigError(f"--speculative-algorithm: {NO_DRAFT} "
                              f"(speculative_hook.py:720-755)")
        raise ConfigError("--speculative-algorithm: give --speculative-draft-model-path; "
                          "graphfit does not download a hub target's bundled DSPARK draft "
                          "or dspark/ folder (speculative_hook.py:625-663, 720-755)")
    path = config_path(str(draft))
    if path is None:
        return settings
    return settings + draft_settings(path, values, defer=True)


def fill(values: dict[str, Any]) -> None:
    """A DSPARK line with no --speculative-draft-model-path gets the draft SGLang's
    `_handle_dspark` fills in (speculative_hook.py:720-745): the target itself when its config
    carries a prefixed dspark_* key, else its local `dspark/` folder
    (graphfit.inputs.sglang_draft_path). Filled into the parsed values, as SGLang declares
    it on its ServerArgs, so that every later reader of the draft (its config.json's DSPARK
    rules here, its vocabulary / dtype / mask token / sharing readers) reads the checkpoint
    SGLang's draft worker loads."""
    if str(values.get("speculative_algorithm") or "").upper() != "DSPARK" \
            or values.get("speculative_draft_model_path") is not None:
        return
    found = draft_path(values)
    if found is not None:
        values["speculative_draft_model_path"] = found


def local_target(values: Mapping[str, Any]) -> bool:
    """Whether the line's target is a local directory with a config.json (SGLang looks in
    it for a bundled draft or a dspark/ folder without the hub, speculative_hook.py:634-638)."""
    model = values.get("model_path")
    return isinstance(model, str) and Path(model).expanduser().is_dir() \
        and config_path(model) is not None


def draft_settings(path: Path, values: Mapping[str, Any],
                   defer: bool = False) -> list[Setting]:
    """What `_handle_dspark` and the draft model runner read from the draft's config.json.
    `defer` (a pasted line, read before graphfit knows the GPU): a MiniMax draft's refusal
    on a MiniMax-M3 NVFP4 target waits for graphfit.inputs.sglang_minimax_draft.settle,
    after the hook's GPU-bound checks and graphfit's restatement of SGLang's argument
    resolution (issue 23 s54m). Meanwhile the settings are read from the rewritten draft
    where it rewrites and parses (the gamma that resolution needs), else none."""
    origin = shown_path(path)
    data = _draft_config(path, values)
    if sglang_dspark_minimax.is_minimax(data):
        # SGLang's rewrite, the draft model's constructors and the worker's checks, else
        # not modelled at TP > 1 (graphfit.inputs.sglang_dspark_minimax); a draft SGLang
        # starts at TP 1 is planned on its rewritten config, which the worker, the model and
        # the draft runner read (model_config.py:1020-1029)
        problem = minimax_problem(data, values)
        if problem is not None and defer and nvfp4_target(values):
            try:
                return _settings(origin, sglang_dspark_minimax.configured(data), values)
            except (ConfigError, sglang_dspark_minimax.RewriteError):
                return []  # the deferred refusal is SGLang's first reason of the draft's
        if problem is not None:
            raise ConfigError(f"{origin}: {problem}")
        data = sglang_dspark_minimax.configured(data)
    return _settings(origin, data, values)


def _settings(origin: str, data: dict[str, Any], values: Mapping[str, Any]
              ) -> list[Setting]:
    """`draft_settings` on the draft's (rewritten) config: the worker's parse and checks,
    the target-layer resolution, the settings the plan reads."""
    parsed = sglang_dspark_parse.parse(data)
    if parsed.problem is not None:
        raise ConfigError(f"{origin}: SGLang's DSPARK worker cannot parse this draft config "
                          f"(dspark_worker_v2.py:261-265): {parsed.problem}")
    problem = sglang_dspark_parse.worker_problem(parsed, target_vocab(values))
    if problem is not None:
        raise ConfigError(f"{origin}: SGLang's DSPARK worker refuses this draft "
                          f"(dspark_config.py:94-128): {problem}")
    first = data.get("architectures")
    first = first[0] if isinstance(first, list) and first else None
    if first in DEEPSEEK_V4:
        # under attention DP SGLang's worker refuses it first when attention TP > 1
        # (dspark_worker_v2.py:211-222): that reason, from the attention-DP reader
        dspark_draft(values, attention_dp_size(values))
        # draft_is_deepseek_v4 (dspark_config.py:34-48): a MoE draft on SGLang's dsv4
        # attention backend (dspark_worker_v2.py:199, 226-238) and, under a V4.1 target, the
        # static verify epilogue (:400-468), neither restated by graphfit's DSPARK model
        raise ConfigError(f"{origin}: a DeepSeek-V4 (MoE) DSPARK draft ({first}) is not "
                          f"modelled: its dsv4 attention backend and V4.1 static epilogue "
                          f"(dspark_worker_v2.py:199-238, 400-468)")
    # the target runner's layer-id resolution, which DSPARK runs too
    # (graphfit.inputs.sglang_dflash_layers; spec_aux_hidden_state.py:206-277)
    sglang_dflash_layers.check(values, data, origin)
    out: list[Setting] = []
    # `bool(config.sample_from_anchor)`, default True (get_dspark_sample_from_anchor,
    # dspark_config.py:29-31, read by models/dspark.py:531 and model_runner.py:883-886): any
    # JSON value, Python's truth ("false" is true, null / 0 / "" are false)
    anchor = bool(data.get("sample_from_anchor", True))
    out.append(Setting("dspark_samples_anchor", anchor, f"{origin}: sample_from_anchor",
                       FILE))
    layers = target_layers(data, origin)
    if layers is not None:
        out.append(Setting("dspark_target_layers", layers[0], layers[1], FILE))
    depth = draft_layers(data, origin)
    if depth is not None:
        out.append(Setting("dspark_draft_layers", depth, f"{origin}: num_hidden_layers",
                           FILE))
    if values.get("speculative_dspark_block_size") is not None:
        return out  # the flag wins (speculative_hook.py:807-813)
    gamma = parsed.gamma
    window = values.get("speculative_num_draft_tokens")
    if gamma is None:
        if window is not None:
            return out  # the window as given (:842-850)
        gamma, where = GAMMA_DEFAULT, f"{origin}: no block size, SGLang's default 7"
    else:
        where = f"{origin}: block size"
        if window is not None and str(window).strip() != str(gamma + 1):
            raise ConfigError(
                f"--speculative-num-draft-tokens: {window} is not the DSPARK draft's gamma "
                f"{gamma} + 1 ({origin}); SGLang refuses (speculative_hook.py:826-835)")
    out.append(Setting("speculative_num_draft_tokens", gamma + 1, where, FILE))
    return out


def _draft_config(path: Path, values: Mapping[str, Any]) -> dict[str, Any]:
    """The draft's config.json with the line's override args applied, as SGLang reads it in
    the argument hook (read_draft_checkpoint_config, dspark_config.py:146-154) and in the
    draft's ModelConfig whose hf_config the worker checks (model_config.py:950-975 ->
    :612-626; dspark_worker_v2.py:261-265)."""
    written = load_json(path, "DSPARK draft config")
    if not isinstance(written, dict):
        raise ConfigError(f"{shown_path(path)}: expected a JSON object")
    overrides = override_args(values.get("json_model_override_args"))
    return overridden(written, overrides) if overrides else written


def minimax_problem(data: Mapping[str, Any], values: Mapping[str, Any]) -> str | None:
    """SGLang's reason a MiniMax M3.1 draft config (overridden) does not start on this line,
    or graphfit's "not modelled" (graphfit.inputs.sglang_dspark_minimax.refusal)."""
    tp, attn_tp = _tp_sizes(values)
    return sglang_dspark_minimax.refusal(
        data, target_vocab(values), tp, attn_tp, target_vocab(values, padded=False),
        line_environ(), not values.get("disable_custom_all_reduce"), _lm_group(values))


def deferred_problem(values: Mapping[str, Any]) -> str | None:
    """The refusal `draft_settings(defer=True)` left for later: a local MiniMax draft's
    reason on this line, as that error line reads; None otherwise."""
    if str(values.get("speculative_algorithm") or "").upper() != "DSPARK":
        return None
    draft = values.get("speculative_draft_model_path")
    path = config_path(str(draft)) if draft else None
    if path is None:
        return None
    data = _draft_config(path, values)
    if not sglang_dspark_minimax.is_minimax(data):
        return None
    problem = minimax_problem(data, values)
    return None if problem is None else f"{shown_path(path)}: {problem}"


def _tp_sizes(values: Mapping[str, Any]) -> tuple[int, int]:
    """The line's TP size and the draft's attention TP size: the target's (tp / attn CP,
    draft_parallel.py:53-63) without attention DP; under it the attention-TP group the dense
    draft is built on (tp / attn DP, the group `patch_tensor_parallel_group` installs,
    draft_parallel.py:53-63, parallel_state.py:3146-3162; SGLang refuses attention CP there,
    speculative_hook.py:674-711)."""
    tp = size_or_one(values.get("tp_size") or values.get("tp"))
    dp = attention_dp_size(values)
    if dp > 1:
        return tp, max(1, tp // dp)
    return tp, max(1, tp // size_or_one(values.get("attn_cp_size")))


def _lm_group(values: Mapping[str, Any]) -> str:
    """The group the target's lm_head is sharded on, as the draft's attach reads it
    (graphfit.inputs.sglang_dspark_minimax_tp.lm_group): the TP group without attention DP
    or without --enable-dp-lm-head (SGLang refuses DSPARK there, speculative_hook.py:674-711,
    graphfit.planner.engines.sglang_spec_dp); else by the target's architecture (its
    local config.json, the override args applied; "unknown" without one)."""
    if attention_dp_size(values) <= 1 or values.get("enable_dp_lm_head") is not True:
        return "tp"
    model = values.get("model_path")
    data = local_config(str(model)) if model else None
    if data is None:
        return "unknown"
    overrides = override_args(values.get("json_model_override_args"))
    data = overridden(data, overrides) if overrides else data
    names = data.get("architectures")
    first = names[0] if isinstance(names, list) and names else None
    tied = data.get("tie_word_embeddings", False) is True
    pp = size_or_one(values.get("pp_size") or values.get("pp"))
    return sglang_dspark_minimax_tp.lm_group(first, tied, pp)


def target_vocab(values: Mapping[str, Any], padded: bool = True) -> int | None:
    """The target's embedding rows as the DSPARK worker reads them (`padded_vocab_size`,
    else `vocab_size`, of its text config; dspark_worker_v2.py:250-254), or with `padded`
    false its `vocab_size`, its lm_head's `org_vocab_size` (vocab_parallel_embedding.py:270);
    None when the target's config.json is not local or names neither."""
    model = values.get("model_path")
    data = local_config(str(model)) if model else None
    if data is None:
        return None
    # the target's ModelConfig applies the same override args (model_config.py:612-626)
    overrides = override_args(values.get("json_model_override_args"))
    data = overridden(data, overrides) if overrides else data
    text = data.get("text_config")
    text = text if isinstance(text, dict) else data
    rows = (text.get("padded_vocab_size") if padded else None) or text.get("vocab_size")
    return rows if isinstance(rows, int) and not isinstance(rows, bool) else None


def draft_layers(data: Mapping[str, Any], origin: str) -> int | None:
    """The draft's own layer count, `num_hidden_layers` of its text config (parse_dflash_
    draft_config, dflash_utils.py:588-597; `require_num_layers`, :545-551): the target's
    aux config keeps it as `dflash_draft_num_layers` (spec_aux_hidden_state.py:219, 280),
    which SGLang's DeepSeek-V4 configurator counts as the draft's SWA ring layers under
    encoder replay (pool_configurator.py:1200-1239; `dspark_num_stages` is set only for a
    DeepSeek-V4 draft, :276-277, which graphfit refuses above). None: the config names none
    (issue 23, s51k)."""
    composite = sglang_draft_layer_default.composite_layers(data)  # s62d
    if composite is not None:
        return composite
    text = data.get("text_config")
    layers = (text if isinstance(text, dict) else data).get("num_hidden_layers")
    if layers is None:  # s60d: the loaded config's class default, where restated
        return sglang_draft_layer_default.class_default(data)
    return as_int(f"{origin}: num_hidden_layers", layers)


def target_layers(data: Mapping[str, Any], origin: str) -> tuple[int, str] | None:
    """How many target layers the DSPARK target captures, and where that was read: the
    prefixed `dspark_target_layer_ids` (dspark_config.py:226-311), else
    `dflash_config.target_layer_ids` / a top-level `target_layer_ids` (dflash_utils.py:
    656-672), else one per draft layer (`build_target_layer_ids` returns num_draft_layers
    ids, dflash_utils.py:348-385, for the draft's num_hidden_layers, :593-597 via its text
    config, :426-430); SGLang captures that list (model_runner_components/
    spec_aux_hidden_state.py:260-283). None: the config names neither."""
    nested = data.get("dflash_config")
    for where, raw in (("dspark_target_layer_ids", data.get("dspark_target_layer_ids")),
                       ("dflash_config.target_layer_ids",
                        nested.get("target_layer_ids") if isinstance(nested, dict) else None),
                       ("target_layer_ids", data.get("target_layer_ids"))):
        if raw is None:
            continue
        if not isinstance(raw, list) or not raw:
            raise ConfigError(f"{origin}: {where}: expected a non-empty list of layer ids, "
                              f"got {excerpt(raw)} (SGLang refuses, dspark_config.py:299-306)")
        return len(raw), f"{origin}: {where}"
    composite = sglang_draft_layer_default.composite_layers(data)  # s62d
    if composite is not None:
        return composite, (f"{origin}: {data.get('model_type')}'s class default text config "
                           f"num_hidden_layers (one captured layer each)")
    text = data.get("text_config")
    layers = (text if isinstance(text, dict) else data).get("num_hidden_layers")
    if layers is None:  # s60d: the loaded config's class default, where restated
        default = sglang_draft_layer_default.class_default(data)
        return None if default is None else (
            default, f"{origin}: {data.get('model_type')}'s class default num_hidden_layers "
                     f"(one captured layer each)")
    return as_int(f"{origin}: num_hidden_layers", layers), f"{origin}: num_hidden_layers " \
                                                           f"(one captured layer each)"
