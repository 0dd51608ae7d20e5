"""graphfit == SGLang 0.5.23 on the EAGLE draft runners' `global_num_tokens` entries
(issue 23, s69p; tests.oracle.sglang_eagle_tokens): SGLang's own draft-decode and
draft-extend runner constructors, built under the draft's all-to-all backend, against
graphfit's plan of the same pasted line, entries and dtype of both buffers on every runner,
plus every aspect the a2a oracle compares. Before s69p graphfit planned none on the drafts."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_eagle_tokens as et  # noqa: E402
from tests.oracle import sglang_moe_a2a_compare as mc  # noqa: E402

DP_HEAD = ("--tp-size", "4", "--attn-dp-size", "2", "--enable-dp-lm-head")
FIXED = {
    # attention DP, no all-to-all: the MLP gather, one entry per DP rank on both drafts
    "dp": ("--moe-a2a-backend", "none", "--tp-size", "4", "--attn-dp-size", "2", *et.eagle(2)),
    # DeepEP target with the dense TP size 1 and the DP LM head keeps one entry, while its
    # draft on `none` keeps the MLP gather (utils/common.py:4090-4101): two on the drafts
    "draft_none": ("--moe-a2a-backend", "deepep", *DP_HEAD, et.DENSE, "1",
                   "--speculative-moe-a2a-backend", "none", *et.eagle(2)),
    # a draft ascend_tp is live inside the draft context (layers/moe/utils.py:957-975): no
    # MLP gather with the dense TP size 1, one entry, where the target keeps two
    "draft_ascend": ("--moe-a2a-backend", "none", *DP_HEAD, et.DENSE, "1",
                     "--speculative-moe-a2a-backend", "ascend_tp", *et.eagle(2)),
    # no gather at all: SGLang allocates none on the draft-extend runner (:229-231)
    "plain": ("--moe-a2a-backend", "none", "--tp-size", "4", *et.eagle(1)),
}


def _agree(argv: tuple[str, ...]) -> None:
    said, line = et.verdict(argv)
    assert said == "agree", line


@pytest.mark.parametrize("name", sorted(FIXED))
def test_fixed_lines_agree(name: str) -> None:
    """Lines SGLang starts, planned the same."""
    assert mc.sglang(FIXED[name]).rejected is None
    _agree(FIXED[name])


@settings(max_examples=2, deadline=None)
@given(st.integers(0, 2**16))
def test_generated_lines_agree(seed: int) -> None:
    """EAGLE lines over backends, TP / attention DP, the DP LM head, the dense TP size and
    the draft backend."""
    _agree(et.draw(random.Random(seed)))


def test_sglang_builds_what_the_lines_claim() -> None:
    """Not vacuous: SGLang's own draft runners hold 2, 2, 1 and no entries on the four fixed
    lines, and the ascend_tp draft's count differs from its target's."""
    got = []
    for name in ("dp", "draft_none", "draft_ascend", "plain"):
        runners = mc.sglang(FIXED[name]).runners
        assert runners is not None
        buf = runners["draft_extend"].buffers.get("global_num_tokens_gpu")
        got.append(None if buf is None else int(buf.shape[0]))
    assert got == [2, 2, 1, None]
    runners = mc.sglang(FIXED["draft_ascend"]).runners
    assert runners is not None
    assert int(runners["target"].buffers["global_num_tokens_gpu"].shape[0]) == 2


def _no_draft_entries(m: pytest.MonkeyPatch) -> None:
    from graphfit.planner.engines import sglang

    m.setattr(sglang, "draft_global_num_tokens", lambda runner, config: [])


def _target_backend(m: pytest.MonkeyPatch) -> None:
    """The MLP gather reads the target's resolved backend on the draft view (before s69p)."""
    from graphfit.planner.engines import sglang_moe_a2a

    m.setattr(sglang_moe_a2a, "seen_backend", lambda config: sglang_moe_a2a.live_backend(
        sglang_moe_a2a.runtime_backend(config)))


def _always_ranks(m: pytest.MonkeyPatch) -> None:
    from graphfit.planner.engines import sglang_eagle_tokens

    real = sglang_eagle_tokens.draft_rows
    m.setattr(sglang_eagle_tokens, "draft_rows",
              lambda config: None if real(config) is None else config.attn_dp_size)


def _always_allocated(m: pytest.MonkeyPatch) -> None:
    from graphfit.planner.engines import sglang_eagle_tokens

    real = sglang_eagle_tokens.draft_rows
    m.setattr(sglang_eagle_tokens, "draft_rows", lambda config: real(config) or 1)


PLANTS: dict[str, tuple[Callable[[pytest.MonkeyPatch], None], str]] = {
    "the drafts plan no entries": (_no_draft_entries, "dp"),
    "the draft view's MLP gather reads the target's backend": (_target_backend, "draft_ascend"),
    "one entry per DP rank whatever the MLP gather": (_always_ranks, "draft_ascend"),
    "entries without a gather": (_always_allocated, "plain"),
}


@pytest.mark.parametrize("plant", sorted(PLANTS))
def test_a_planted_error_is_caught(plant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each rule broken on purpose: the line it decides differs from SGLang."""
    breaks, name = PLANTS[plant]
    breaks(monkeypatch)
    mc.graphfit_cli.cache_clear()
    try:
        said, line = et.verdict(FIXED[name])
    finally:
        mc.graphfit_cli.cache_clear()
    assert said == "differ", line
