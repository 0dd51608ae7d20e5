"""graphfit's page rule (`sglang_backend_checks.resolved_page`, which the speculative checks,
the unified-memory switches, MiniMax-M3's pool and the chunk-vs-page start-up check all read)
against SGLang 0.5.23's own `_mla_backend_page_constraints` (arg_groups/overrides.py:
1144-1197), called on every combination of base / prefill / decode / draft backend and page
size below (issue 23, s67: the rule was restated twice, once without the draft's trtllm_mha
and hpc_ops's 64)."""

from __future__ import annotations

import itertools
import types
from typing import Any

from tests.oracle.paths import require

require("sglang")

from graphfit.planner.engines.sglang_backend_checks import resolved_page  # noqa: E402

BACKENDS = (None, "fa3", "flashinfer", "triton", "flashmla", "trtllm_mla", "cutedsl_mla",
            "trtllm_mha", "hpc_ops")
PAGES = (1, 8, 16, 32, 64, 128, 256)


def _sglang_rule() -> Any:
    from tests.oracle import sglang_oracle as so

    so.oracle()  # SGLang on the import path, its modules loaded under the fake GPU
    from sglang.srt.arg_groups.overrides import _mla_backend_page_constraints

    return _mla_backend_page_constraints


def test_resolved_page_is_sglangs_page_constraint_on_every_combination() -> None:
    rule = _sglang_rule()
    differ: list[str] = []
    for base, prefill, decode, draft in itertools.product(BACKENDS, repeat=4):
        for page in PAGES:
            view = types.SimpleNamespace(
                page_size=page, attention_backend=base, prefill_attention_backend=prefill,
                decode_attention_backend=decode, speculative_draft_attention_backend=draft)
            sglang = rule(view).get("page_size", page)
            ours = resolved_page(page, base, prefill, decode, draft=draft)
            if ours != sglang:
                differ.append(f"{base}/{prefill}/{decode}/{draft} page {page}: SGLang "
                              f"{sglang}, graphfit {ours}")
    assert differ == [], differ[:5]
