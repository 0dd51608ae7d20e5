"""A LiLiCorr DFLASH draft's config as SGLang 0.5.23 reads it (`architectures[0]`
`LiLiCorrDraftModel`, models/lilicorr.py:529-575).

`LiLiCorrDraftModel.__init__` builds its head from `parse_lilicorr_draft_config`
(lilicorr_utils.py:46-105): every `dflash_config.lilicorr_*` geometry field is required (no
defaults), converted with Python's int() / float(), positive (the hidden size may be 0: as wide
as the draft), the candidate top-k a power of two no wider than the fused greedy commit's 16
lanes (kernels/ops/speculative/lilicorr.py:18); a config without any `lilicorr_*` key, or with
`lilicorr_enabled` false, cannot rebuild the head. Where SGLang raises, the draft does not load
and graphfit refuses with SGLang's reason. The one value the graph buffers need is the
candidate top-k (SglangOptions.dflash_lilicorr_top_k; graphfit.planner.engines.sglang_dflash);
the head's weight-sized buffers need its width, heads and factor width too (`head_geometry`,
SglangOptions.dflash_lilicorr_head; graphfit.planner.engines.sglang_lilicorr_weights).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MAX_TOPK = 16  # MAX_FUSED_CANDIDATE_TOPK, kernels/ops/speculative/lilicorr.py:18
# (field, cast, positive) in the order SGLang reads them (lilicorr_utils.py:73-95)
_FIELDS: tuple[tuple[str, type, bool], ...] = (
    ("hidden_size", int, False), ("num_layers", int, True), ("num_heads", int, True),
    ("mlp_ratio", float, True), ("factor_dim", int, True), ("vector_eps", float, True),
    ("logit_scale", float, True))


class LilicorrRefusal(Exception):
    """SGLang's ValueError for the config, in its words."""


def _required(cfg: Mapping[str, Any], key: str, cast: type, positive: bool) -> float:
    full = f"lilicorr_{key}"
    if full not in cfg:
        raise LilicorrRefusal(f"DFLASH dflash_config.{full} is required to rebuild the "
                              f"LiLiCorr head, and the checkpoint does not carry it.")
    try:
        value = cast(cfg[full])
    except Exception:  # SGLang catches every exception here (lilicorr_utils.py:64-68)
        raise LilicorrRefusal(f"Invalid dflash_config.{full}={str(cfg[full])[:40]!r}.") \
            from None
    if positive and value <= 0:
        raise LilicorrRefusal(f"dflash_config.{full} must be positive, got {value}.")
    return float(value)


def candidate_topk(cfg: Mapping[str, Any]) -> int:
    """The head's candidate top-k, or LilicorrRefusal where SGLang's parse raises."""
    if not any(isinstance(k, str) and k.startswith("lilicorr_") for k in cfg) or (
            cfg.get("lilicorr_enabled") is not None and not bool(cfg["lilicorr_enabled"])):
        raise LilicorrRefusal("LiLiCorr requires the lilicorr_* geometry fields in "
                              "dflash_config (lilicorr_utils.py:97-105).")
    topk = int(_required(cfg, "candidate_topk", int, True))
    if topk & (topk - 1):
        raise LilicorrRefusal(f"dflash_config.lilicorr_candidate_topk must be a power of two, "
                              f"got {topk}.")
    if topk > MAX_TOPK:
        raise LilicorrRefusal(f"dflash_config.lilicorr_candidate_topk={topk} exceeds the "
                              f"fused greedy commit's width of {MAX_TOPK}.")
    for key, cast, positive in _FIELDS:
        _required(cfg, key, cast, positive)
    return topk


def head_geometry(cfg: Mapping[str, Any]) -> tuple[int, int, int]:
    """[lilicorr_hidden_size, lilicorr_num_heads, lilicorr_factor_dim] of a config that
    `candidate_topk` accepted, int()-converted as SGLang converts them (lilicorr_utils.py:
    85-94). A negative width passes SGLang's parse (it is not required positive, :87) but
    the head's layers cannot be built with it (models/lilicorr.py:159, 171-186): refused."""
    hidden, heads, factor = (int(_required(cfg, key, int, key != "hidden_size"))
                             for key in ("hidden_size", "num_heads", "factor_dim"))
    if hidden < 0:
        raise LilicorrRefusal(f"dflash_config.lilicorr_hidden_size={hidden}: the head's layers "
                              f"cannot be built with a negative width (models/lilicorr.py:"
                              f"159-186).")
    return hidden, heads, factor
