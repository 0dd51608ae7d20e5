"""SGLang 0.5.23's parse of a DSPARK draft's config.json, restated: what it reads and
whether it raises.

Why graphfit needs it: `_handle_dspark` reads the draft's gamma through
`read_draft_checkpoint_config` -> `parse_dspark_draft_config` and swallows any exception
(arg_groups/speculative_hook.py:796-805): it then takes gamma from the flags, else 7 when no
window is given either (:806-823), never the draft's block size. The DSPARK worker parses
the same config again at start-up (`resolve_runtime_config`, dspark_worker_v2.py:261-265 ->
dspark_config.py:93; the target's aux hidden states, model_runner_components/
spec_aux_hidden_state.py:260-267) with no such guard, so a config that fails the parse
never serves: graphfit refuses it with SGLang's message (graphfit.inputs.sglang_dspark)
instead of planning either gamma.

What raises, in SGLang's order (`parse_dspark_draft_config`, dspark_config.py:214-318):
1. `parse_dflash_draft_config` (dflash_utils.py:588-813), restated by
   graphfit.inputs.sglang_draft.parse_problem: num_hidden_layers, num_target_layers,
   block_size (int() >= 1), conv / selector pairs, output_multiplier, final_logit_softcapping,
   target_layer_ids, mask_token, mask_token_id, attention_sink_bias, attention_value_scale,
   the Domino fields;
2. the markov rank (`dspark_markov_rank`, else `markov_rank` from dflash_config /
   dspark_config merged, else the text config / top level; 0 when absent): int() and >= 0
   (:241-251);
3. the markov head type (`dspark_markov_head_type`, else `markov_head_type` looked up the
   same way): required when the rank is > 0 unless a prefixed key is present (:253-268),
   and one of vanilla / gated / rnn in any case (:269-276);
4. the mask token id (`dspark_noise_token_id`, else `mask_token_id` the same way, else the
   DFLASH one): int() and >= 0 (:278-293);
5. `dspark_block_size`: int() (no bound here, :295-297);
6. `dspark_target_layer_ids`: a non-empty list of int()-able ids (:299-311).

`int()` / `str()` are Python's on the JSON values (a draft config reaches SGLang as the HF
config's attributes, the same JSON values): "8" and 8.9 are 8, true is 1, null fails.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphfit.inputs.sglang_draft import parse_problem
from graphfit.planner.core.errors import excerpt

HEAD_TYPES = ("vanilla", "gated", "rnn")  # SUPPORTED_DSPARK_MARKOV_HEAD_TYPES, :22
PREFIXED = ("dspark_block_size", "dspark_markov_rank", "dspark_noise_token_id",
            "dspark_target_layer_ids")  # `uses_prefixed` (:228-236; not the head type)


@dataclass(frozen=True)
class DsparkDraft:
    """What `parse_dspark_draft_config` returns for one config, or why it raises."""

    gamma: int | None = None  # None: the config names no block size
    target_layers: int | None = None  # len(target_layer_ids); None: the config names none
    problem: str | None = None  # the ValueError SGLang raises (then nothing else is read)
    markov_rank: int = 0  # 0: the config names none (SGLang's default)
    mask_token_id: int | None = None  # None: the config names none

    def __post_init__(self) -> None:
        if self.problem is not None and (self.gamma, self.target_layers) != (None, None):
            raise ValueError("a draft SGLang cannot parse has no gamma")  # pragma: no cover


class _Raises(Exception):
    """The parse raises (SGLang's message)."""


def _int(value: Any, what: str) -> int:
    """Python's int(), as SGLang applies it (any failure: the parse raises)."""
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        raise _Raises(f"DSpark {what}: invalid literal {excerpt(value, 40)}") from None


def _nested(data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    """`_get_nested_config` (:194-203): the object, anything dict() takes, else nothing."""
    value = data.get(key)
    if value is None:
        return {}
    if isinstance(value, dict):
        return value
    try:
        return dict(value)
    except (TypeError, ValueError):
        return {}


def _lookup(data: Mapping[str, Any], merged: Mapping[str, Any], key: str,
            default: Any) -> Any:
    """`merged.get(key, text.get(key, top.get(key, default)))` (:238-248, 253-264, 278-288):
    a key present in the nested configs wins even when null."""
    text = data.get("text_config")
    text = text if isinstance(text, dict) else data
    if key in merged:
        return merged[key]
    return text.get(key, data.get(key, default))


def parse(data: Mapping[str, Any]) -> DsparkDraft:
    """One draft config (a JSON object, after --json-model-override-args) as SGLang's
    DSPARK parse reads it (module docstring)."""
    problem = parse_problem(data)  # parse_dflash_draft_config first (:215)
    if problem is not None:
        return DsparkDraft(problem=problem)
    try:
        return _parse(data)
    except _Raises as exc:
        return DsparkDraft(problem=str(exc))


def _parse(data: Mapping[str, Any]) -> DsparkDraft:
    merged = {**_nested(data, "dflash_config"), **_nested(data, "dspark_config")}
    uses_prefixed = any(data.get(key) is not None for key in PREFIXED)
    raw = data.get("dspark_markov_rank")
    if raw is None:
        raw = _lookup(data, merged, "markov_rank", 0)
    rank = _int(raw, "markov_rank") if raw is not None else 0
    if rank < 0:
        raise _Raises(f"DSpark markov_rank must be >= 0, got {rank}.")
    head = data.get("dspark_markov_head_type")
    if head is None:
        head = _lookup(data, merged, "markov_head_type", None)
    if rank > 0 and head is None and not uses_prefixed:
        raise _Raises("DSpark requires markov_head_type when markov_rank > 0, got None.")
    if head is not None and str(head).lower() not in HEAD_TYPES:
        raise _Raises(f"Unsupported DSpark markov_head_type={excerpt(str(head).lower(), 40)}"
                      f". Supported: {HEAD_TYPES}.")
    mask = data.get("dspark_noise_token_id")
    if mask is None:
        nested = _nested(data, "dflash_config")
        base = nested.get("mask_token_id", data.get("mask_token_id"))  # the DFLASH one
        mask = _lookup(data, merged, "mask_token_id", base)
    mask_id = None if mask is None else _int(mask, "mask_token_id")
    if mask_id is not None and mask_id < 0:
        raise _Raises(f"DSpark mask_token_id must be non-negative, got {mask_id}.")
    prefixed = data.get("dspark_block_size")
    gamma = _int(prefixed, "dspark_block_size") if prefixed is not None else _block(data)
    ids = data.get("dspark_target_layer_ids")
    if ids is not None:
        if not isinstance(ids, list) or not ids:
            raise _Raises(f"DSpark dspark_target_layer_ids must be a non-empty list of ints, "
                          f"got {excerpt(ids, 40)}.")
        for x in ids:
            _int(x, "dspark_target_layer_ids entry")
        return DsparkDraft(gamma, len(ids), markov_rank=rank, mask_token_id=mask_id)
    return DsparkDraft(gamma, _layer_ids(data), markov_rank=rank, mask_token_id=mask_id)


def worker_problem(draft: DsparkDraft, target_vocab: int | None) -> str | None:
    """`resolve_runtime_config` (dspark_config.py:84-135), which the worker runs on the parsed
    draft at start-up (dspark_worker_v2.py:261-265) with the target's embedding rows
    (`padded_vocab_size`, else `vocab_size`, :250-254): a Markov head is required
    (markov_rank > 0, :94-98), and a mask token id (:119-122) below the target's vocabulary
    (:123-128; `target_vocab` None: the target's config is not local, left unchecked). The
    gamma check (:100-105) cannot fire: the argument hook always sets the window first
    (speculative_hook.py:806-850). None: the worker starts."""
    if draft.problem is not None:
        return draft.problem
    if draft.markov_rank <= 0:
        return f"DSpark draft requires markov_rank > 0; got markov_rank={draft.markov_rank}."
    if draft.mask_token_id is None:
        return "DSpark requires mask_token_id to be set in the draft model config."
    if target_vocab is not None and draft.mask_token_id >= target_vocab:
        return (f"DSpark mask_token_id={draft.mask_token_id} is outside the target vocab "
                f"size {target_vocab}.")
    return None


def _block(data: Mapping[str, Any]) -> int | None:
    """The DFLASH block size (dflash_config.block_size, else the top-level one; already
    checked int() >= 1 by parse_problem, dflash_utils.py:608-617)."""
    raw = _nested_dflash(data).get("block_size", data.get("block_size"))
    return None if raw is None else int(raw)


def _layer_ids(data: Mapping[str, Any]) -> int | None:
    """len(dflash_config.target_layer_ids, else the top-level ones), None when neither
    (dflash_utils.py:657-675, already checked)."""
    ids = _nested_dflash(data).get("target_layer_ids", data.get("target_layer_ids"))
    return None if ids is None else len(ids)


def _nested_dflash(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """`_get_dflash_config` (dflash_utils.py:445-458): the same rule as `_nested`."""
    return _nested(data, "dflash_config")


__all__ = ["HEAD_TYPES", "DsparkDraft", "parse", "worker_problem"]
