"""The rows of one prefill batch SGLang 0.5.23's scheduler admits with chunked prefill off
(issue 23, s70l; graphfit.planner.engines.sglang_kimi_megamoe.unchunked_prefill_rows).

SGLang's side: its own `PrefillAdder` (managers/schedule_policy.py), built as the scheduler
builds it with chunking off (`rem_chunk_tokens` None, scheduler.py:1372-1378, 4157-4174: the
resolved `--max-prefill-tokens` as `rem_input_tokens`, the resolved page size), under the
line's published record, fed a waiting queue the way `get_new_batch_prefill` feeds it
(`budget_state`, then `add_one_req` until a verdict other than CONTINUE). Only the KV pool and
the radix tree are fakes: an allocator whose budget always has room and a tree with no prefix
hits, so what stops admission is the input budget the rule is about
(schedule_policy.py:1627-1633, 883-884, 938). Each request's prompt is at most
`max_req_len` (min(context_len - 1, kv_capacity - 1), tp_worker.py:567-572): the queue's
lengths are drawn up to that.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_stubs


class _Budget:
    """A KV budget with room for anything (the rule bounds rows, not KV)."""

    total_offset = 0
    load_back_needs_full_tokens = False

    def has_capacity(self) -> bool:
        return True

    def reserve(self, *_: Any, **__: Any) -> None:
        return None

    def check_prefill(self, **given: Any) -> tuple[bool, int | None]:
        return True, given["chunk_limit"]


def _request(length: int, rid: int) -> SimpleNamespace:
    ids = list(range(length))
    return SimpleNamespace(
        rid=f"r{rid}", full_untruncated_fill_ids=ids, origin_input_ids=ids, output_ids=[],
        prefix_len=0, sampling_params=SimpleNamespace(max_new_tokens=16, ignore_eos=False),
        last_node=None, best_match_node=None, host_hit_length=0, swa_host_hit_length=0,
        auxiliary_swa_host_hit_length=0, mamba_host_hit_length=0, host_loaded_length=0,
        retracted_stain=False, cache_request_handle=None, storage_hit_length=0,
        storage_hit_start=0,
        kv=SimpleNamespace(holds_mamba=False, cache_protected_len=0, req_pool_idx=None),
        needs_host_load_back=lambda: False, materialized_host_hit_len=lambda: 0,
        fulfilled_storage_hit_len=lambda _prefix: 0)


def admitted(r: so.Resolved, lengths: Sequence[int]) -> list[int]:
    """The extend lengths SGLang's PrefillAdder puts in one batch from a queue of prompts of
    `lengths` tokens, under the resolved line `r` with chunked prefill off."""
    with sglang_stubs.imports():
        from sglang.srt.managers import schedule_policy as sp
        from sglang.srt.runtime_context import get_schedule
    with so.published(r):
        chunk = get_schedule().chunked_prefill_size
        assert chunk is None or chunk <= 0, chunk  # scheduler.py:1372-1373: off -> None
        allocator = SimpleNamespace(
            create_prefill_budget=lambda tree, num_mixed_decode_tokens=0: _Budget(),
            page_size=get_schedule().page_size, request_slot_reserve=lambda *_, **__: 0)
        tree = SimpleNamespace(supports_mamba=lambda: False, supports_prefix_sharing=lambda: True,
                               lock=lambda *_, **__: None, unlock=lambda *_, **__: None,
                               disable=False,
                               discard_storage_prefetch_accounting=lambda *_: None,
                               finish_storage_prefetch_admission=lambda *_, **__: None)
        adder = sp.PrefillAdder(get_schedule().page_size, tree, allocator, None, 1.0,
                                get_schedule().max_prefill_tokens, None)
        for rid, length in enumerate(lengths):
            if adder.budget_state() is not sp.AddReqResult.CONTINUE:
                break
            if adder.add_one_req(_request(length, rid), False, None) \
                    is not sp.AddReqResult.CONTINUE:
                break
        return [req.extend_end - req.prefix_len for req in adder.can_run_list]


__all__ = ["admitted"]
