"""Whether FlashInfer A2A's capture-time asserts refuse anything its start-up check lets
through (issue 23 s67m survey; not a test). At capture every dispatch asserts
`runtime_max_tokens_per_rank <= max_num_tokens` (layers/moe/token_dispatcher/flashinfer.py:
512-517), rows per rank = ceil(max(dp_global) / attn_tp_size) under attention DP (:489-494);
the workspace is `flashinfer_a2a_max_dispatch_tokens_per_rank` (arg_groups/overrides.py:
1886-1894). The start-up check (`validate_flashinfer_a2a_token_budget`, moe_hook.py:749-774)
bounds the largest decode / verify graph (`_decode_graph_dispatch_tokens_per_rank`,
:656-676), which graphfit restates (graphfit.planner.engines.sglang_flashinfer_a2a.check).

For each drawn FlashInfer A2A line SGLang starts (tests/oracle/sglang_moe_a2a_compare.lines,
drafts included), SGLang's own runners give every captured batch and its width; the workspace
comes from SGLang's own function under the line's environment. A batch past it would fail at
capture though the server's start-up check passed. One attention rank per DP group
(FlashInfer A2A's topology, moe_hook.py:471-488), so a batch's rows are batch x width.
`python -m tests.oracle.measure_sglang_flashinfer_a2a_capture [COUNT] [SEED]` (default 40,
seed 67) prints the counts and each line past the workspace."""

from __future__ import annotations

import logging
import sys
from collections import Counter


def workspace(argv: tuple[str, ...]) -> int:
    """SGLang's FlashInfer A2A workspace for a line it resolved, under the line's
    environment (overrides.py:1865-1894)."""
    from tests.oracle import sglang_moe_a2a_compare as m
    from tests.oracle import sglang_oracle as so
    from tests.oracle import sglang_stubs
    from tests.oracle.environ_patch import sglang_environ

    env = m.parts(argv)[0]
    resolved = m.sglang(argv).resolved
    assert isinstance(resolved, so.Resolved)
    with sglang_environ(env), sglang_stubs.imports():
        from sglang.srt.arg_groups import overrides

        return int(overrides.flashinfer_a2a_max_dispatch_tokens_per_rank(
            overrides.max_prefill_buffer_tokens(resolved.record)))


def measure(count: int, seed: int) -> None:
    from tests.oracle import sglang_moe_a2a_compare as m

    logging.disable(logging.WARNING)
    counts: Counter[str] = Counter()
    for argv in m.lines(count, seed, backend="flashinfer"):
        sg = m.sglang(argv)
        if sg.rejected is not None or sg.runners is None:
            counts["sglang refuses"] += 1
            continue
        counts["sglang starts"] += 1
        room = workspace(argv)
        past = {name: max(r.capture_bs) * r.width for name, r in sg.runners.items()
                if r.capture_bs and max(r.capture_bs) * r.width > room}
        counts["a captured batch past the workspace" if past else "every batch fits"] += 1
        for name in sg.runners:
            counts[f"runner {name}"] += 1
        if past:
            print("past:", past, "workspace", room, "|", " ".join(argv)[:300])
    print(dict(sorted(counts.items())))


if __name__ == "__main__":
    measure(int(sys.argv[1]) if len(sys.argv) > 1 else 40,
            int(sys.argv[2]) if len(sys.argv) > 2 else 67)
