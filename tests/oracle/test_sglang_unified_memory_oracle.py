"""`--enable-unified-memory` with a speculative draft: SGLang 0.5.23's speculative checks
(`handle_unified_memory_pool`, arg_groups/kv_cache_hook.py:588-612, 655-659) and its
post-capture predicate (overrides.py:1826-1836) vs graphfit's refusal or fraction
(graphfit.planner.engines.sglang_unified_memory, sglang_post_capture) for the same pasted line,
SGLANG_ENABLE_POST_CAPTURE_KV_SIZING on, on hybrid-SWA and plain targets."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_unified_memory_oracle as um  # noqa: E402

GRID = [("gemma4", "EAGLE", 1, ()), ("swa_optin", "DFLASH", 1, ()),
        ("gemma4", "NEXTN", 1, ()), ("llama", "EAGLE3", 1, ()), ("llama", "DFLASH", 1, ()),
        ("swa_optin", "STANDALONE", 1, ()), ("gemma4", "NGRAM", 1, ()),
        ("swa_optin", "EAGLE", 2, ()), ("gemma4", None, 1, ("--enable-two-batch-overlap",)),
        ("gemma4", None, 1, ())]


@pytest.mark.parametrize("case", GRID, ids=[str(c) for c in GRID])
def test_unified_memory_with_a_draft_as_sglang(case: tuple) -> None:
    name, algorithm, topk, extra = case
    assert um.compare(name, um.line(name, algorithm, topk, extra), "1")[0] is None


def test_the_grid_is_not_vacuous() -> None:
    """SGLang sizes after capture without a draft, keeps the reserve with an EAGLE draft on a
    hybrid-SWA target, and refuses a STANDALONE draft and a plain target's EAGLE draft."""
    assert um.compare("gemma4", um.line("gemma4", None), "1")[1] == 0.98
    eagle = um.compare("gemma4", um.line("gemma4", "EAGLE"), "1")[1]
    assert eagle is not None and eagle < 0.98
    assert um.compare("swa_optin", um.line("swa_optin", "STANDALONE"), "1")[1] is None
    assert um.compare("llama", um.line("llama", "EAGLE3"), "1")[1] is None
