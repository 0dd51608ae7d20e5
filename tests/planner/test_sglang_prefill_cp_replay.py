"""Invariants of the bucket a prefill-CP batch replays under CP's own breakable graphs
(graphfit.planner.engines.sglang_prefill_cp_bcg.replay_bucket, issue 23 s60r); the oracle
comparison with SGLang's own choice is tests/oracle/test_sglang_prefill_cp_replay_oracle.py."""

from __future__ import annotations

import itertools

from graphfit.planner.engines import sglang_prefill_cp_bcg as cb

CAPTURED = (8, 12, 16, 20, 24, 28, 32, 48, 64)


def test_replayed_bucket_holds_the_batch_within_twice_its_tokens() -> None:
    for lens in itertools.chain(((n,) for n in range(1, 70)),
                                itertools.product((7, 8, 9, 13, 30), repeat=3)):
        got = cb.replay_bucket(CAPTURED, 4, None, lens)
        n = sum(lens)
        if not cb.cp_active(4, lens):
            assert got is None, lens
            continue
        if got is None:  # eager: no bucket in [n, 2n] holds its local rows
            assert all(not (n <= b <= 2 * n) or cb.zigzag_local_rows(4, (b,)) <
                       cb.zigzag_local_rows(4, lens) for b in CAPTURED), lens
            continue
        assert n <= got <= 2 * n, lens
        assert cb.zigzag_local_rows(4, lens) <= cb.zigzag_local_rows(4, (got,)), lens
        smaller = [b for b in CAPTURED if n <= b < got]
        assert all(cb.zigzag_local_rows(4, (b,)) < cb.zigzag_local_rows(4, lens)
                   for b in smaller), lens


def test_equal_short_requests_replay_a_larger_bucket_than_their_tokens() -> None:
    # three requests of 9 at cp 4: each rank's share rounds up to 16 local rows, which
    # only the 48-token bucket holds
    assert cb.zigzag_local_rows(4, (9, 9, 9)) == 16
    assert cb.replay_bucket(CAPTURED, 4, None, (9, 9, 9)) == 48


def test_zigzag_shares_sum_to_the_tokens() -> None:
    for cp in (2, 4, 8):
        for n in range(1, 100):
            assert cb.zigzag_local_rows(cp, (n,)) * cp >= n
            assert cb.zigzag_local_rows(cp, (n,)) % (2 * cp) == 0


def test_capture_batches_split_by_the_context_length() -> None:
    assert cb.capture_seq_lens(64, 20) == (20, 20, 20, 4)
    assert cb.capture_seq_lens(64, None) == (64,)
    assert cb.capture_seq_lens(16, 128) == (16,)
