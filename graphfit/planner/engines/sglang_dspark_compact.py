"""SGLang 0.5.23's compact ragged verify (`SGLANG_RAGGED_VERIFY_MODE=compact`, DSPARK only):
the target's verify graphs keyed by token bucket instead of batch size.

Why a keyed dispatch and not a batch ladder: under compact mode each request verifies its
own number of tokens (1..width, width = gamma + 1), so one batch size spans many token counts
and SGLang files a graph under the batch's padded TOKEN count, with a request bound of its
own per graph. What SGLang does (decode_cuda_graph_runner.py of the 0.5.23 wheel):

- compact is on only for the target's TARGET_VERIFY runner, not a draft worker's
  (:397-401), and only for an algorithm that supports ragged verify: DSPARK
  (`supports_ragged_verify`, spec_info.py:160-164; `ragged_verify_compact_graphs_enabled`,
  :162-167; `ragged_verify_compact_enabled`, ragged_verify.py:30-31);
- token tiers `capture_num_tokens` = sorted {bs * width for bs in capture_bs} (:402-406,
  `_build_ragged_verify_token_buckets` :699-702): the batch-size ladder times the width;
- a tier of T tokens is captured with min(T, max_bs) request slots (`_ragged_capture_slots`
  :791-794, used by capture_one_shape :1376-1377), its graph filed under T
  (`_capture_graph_size` :737-738);
- the buffers keep their usual capacities: max_bs requests and max(capture_num_tokens) =
  max_bs * width tokens (:424-429, `max_num_token`);
- a batch of b requests and n verify tokens pads to the smallest tier >= n (`round_up_grid`,
  ragged_verify.py:34-43, via `RaggedVerifyLayout.from_verify_lens` :147-158) and replays
  it only when that tier is <= the largest and b <= its slots (`_can_run_ragged_verify_graph`
  :927-934); otherwise it runs eagerly;
- compact refuses two-batch overlap, LoRA and `--disable-cuda-graph-padding` (:411-421).

This module is that rule as a `KeyedDispatch` (graphfit.planner.core.keyed): a batch is
(requests, tokens, longest request); a key is the tier T; the token buffers read T rows,
the request buffers `slots(T)` rows (`buffer_rows`).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial

from graphfit.planner.core.errors import ConfigError, require_int
from graphfit.planner.core.keyed import BatchKey, KeyedDispatch


@dataclass(frozen=True)
class CompactVerify:
    """The compact verify graphs of a target whose batch-size ladder is `capture_bs` and whose
    requests verify up to `width` tokens each (module docstring)."""

    capture_bs: tuple[int, ...]
    width: int

    def __post_init__(self) -> None:
        require_int("compact verify: width", self.width, 1)
        sizes = tuple(self.capture_bs)
        if not sizes:
            raise ConfigError("compact verify: the target captures no batch size")
        for size in sizes:
            require_int("compact verify: captured batch size", size, 1)
        object.__setattr__(self, "capture_bs", tuple(sorted(set(sizes))))

    @property
    def max_bs(self) -> int:
        return self.capture_bs[-1]

    @property
    def tiers(self) -> tuple[int, ...]:
        """capture_num_tokens (decode_cuda_graph_runner.py:699-702)."""
        return tuple(sorted({bs * self.width for bs in self.capture_bs}))

    @property
    def max_num_token(self) -> int:
        """The token capacity the runner sizes its buffers for (:424-429)."""
        return self.tiers[-1]

    def slots(self, tier: int) -> int:
        """The requests a tier's graph is captured with (:791-794)."""
        return min(tier, self.max_bs)

    def tier_of(self, requests: int, tokens: int) -> int | None:
        """The tier a batch replays, None when it runs eagerly (:927-934, ragged_verify.py:
        34-43)."""
        tiers = self.tiers
        if tokens > tiers[-1]:
            return None
        tier = tiers[bisect.bisect_left(tiers, tokens)]
        return tier if requests <= self.slots(tier) else None


def check_compact_features(*, two_batch_overlap: bool, lora: bool, disable_padding: bool
                           ) -> None:
    """SGLang's own refusal (decode_cuda_graph_runner.py:411-421), in its words."""
    if two_batch_overlap or lora or disable_padding:
        raise ConfigError("SGLANG_RAGGED_VERIFY_MODE=compact: SGLang refuses two-batch-"
                          "overlap, LoRA and --disable-cuda-graph-padding with compact "
                          "ragged verify (decode_cuda_graph_runner.py:411-421)")


def _rule(verify: CompactVerify, batch: BatchKey) -> int | None:
    requests, tokens, longest = batch
    if longest > verify.width:  # a request verifies at most gamma + 1 tokens
        return None
    return verify.tier_of(requests, tokens)


def compact_dispatch(verify: CompactVerify, request_buffers: Iterable[str] = ()
                     ) -> KeyedDispatch:
    """The keyed dispatch of `verify`: rows(T) = T tokens; each of `request_buffers` (buffers
    holding one row per request: seq_lens, req_pool_indices, ...) reads slots(T) rows."""
    return KeyedDispatch(
        partial(_rule, verify), frozenset(verify.tiers), lambda tier: int(tier),
        {name: verify.slots for name in request_buffers},
        text=str, key_json=int, order=None)


__all__ = ["CompactVerify", "check_compact_features", "compact_dispatch"]
