"""SGLang 0.5.23 DFLASH drafts whose shapes come from the DRAFT model's config.json.

* the block size a line without one resolves to: SGLang's own `_handle_dflash`
  (speculative_hook.py:388-423, through `get_config` and `parse_dflash_draft_config`) on a
  draft directory written here, against graphfit reading the same line pasted
  (tests/oracle/sglang_dflash_compare.py: acceptance, ladders, padding, buffers);
* the draft config's validity: SGLang's own `parse_dflash_draft_config` (dflash_utils.py:
  588-818, which `DFlashDraftModel.__init__` runs again at load, models/dflash.py:700)
  against graphfit.inputs.sglang_draft.parse on generated configs: the same block, and a
  refusal exactly when SGLang raises.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.inputs import sglang_draft  # noqa: E402
from tests.oracle import sglang_dflash_compare as dc  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402


def line(draft: dict[str, Any], *extra: str) -> tuple[str, ...]:
    return ("--speculative-algorithm", "DFLASH", *extra, dc.DRAFT, dc.draft_dir(draft))


CONFIG_LINES: list[tuple[tuple[str, ...], str, int | None]] = [
    (line({"block_size": 8}), "runner", 8),  # top level (dflash_utils.py:608-611)
    (line({"dflash_config": {"block_size": 4}}), "runner", 4),
    (line({"block_size": 8, "dflash_config": {"block_size": 5}}), "runner", 5),  # nested wins
    # a null nested block hides the top-level one: SGLang's default 16
    (line({"block_size": 8, "dflash_config": {"block_size": None}}), "runner", 16),
    (line({"block_size": "6"}), "runner", 6),  # int("6")
    (line({}), "runner", 16),  # speculative_hook.py:414-421
    # the override args reach the draft's config too (hf_transformers/config.py:446-466)
    (line({"block_size": 8}, "--json-model-override-args", '{"block_size": 3}'), "runner", 3),
    # the window is checked against the block the draft gave (speculative_hook.py:425-434)
    (line({"block_size": 8}, "--speculative-draft-window-size", "6"), "rejected", None),
    (line({"block_size": 8}, "--speculative-draft-window-size", "8"), "runner", 8),
    # a block on the line wins over the draft's (dflash_worker_v2.py:510-520 only warns)
    (line({"block_size": 8}, "--speculative-num-draft-tokens", "4"), "runner", 4),
    (line({"block_size": 12}, "--disable-cuda-graph"), "no_runner", 12),
]


@pytest.mark.parametrize(("argv", "outcome", "block"), CONFIG_LINES,
                         ids=[json.dumps(a[3:-2]) + Path(a[-1]).name for a, _, _ in
                              CONFIG_LINES])
def test_block_size_from_the_draft_config(argv: tuple[str, ...], outcome: str,
                                          block: int | None) -> None:
    got, diffs = dc.compare_line(argv)
    assert (got, diffs) == (outcome, [])
    if block is not None:
        resolved = dc.sc.sglang(argv, 80).resolved
        assert isinstance(resolved, so.Resolved)
        assert resolved.speculative_num_draft_tokens == block


@pytest.mark.parametrize(("draft", "words"), [
    ({"architectures": ["LiLiCorrDraftModel"]}, "lilicorr"),
])
def test_unmodelled_draft_heads_are_refused(draft: dict[str, Any], words: str) -> None:
    """SGLang starts these drafts with another sampler folded into the draft graph
    (dflash_worker_v2.py:884-998); graphfit refuses by name rather than plan the plain
    DFlash sampler's buffers."""
    argv = line({"block_size": 8, **draft})
    sg = dc.sc.sglang(argv, 80)
    assert sg.rejected is None  # SGLang's argument resolution accepts the line
    gf = dc.pasted(argv, 80)
    assert gf.rejected is not None and f"a {words} DFLASH draft is not modelled" in \
        gf.rejected


DOMINO = {"dflash_config": {"projector_type": "domino", "shift_label": True,
                            "pure_draft_prefix_len": 1, "gru_hidden_dim": 64, "emb_dim": 64}}


@pytest.mark.parametrize("extra", [(), ("--tp-size", "2"), ("--tp-size", "4",
                                   "--cuda-graph-max-bs-decode", "12"),
                                   ("--disable-cuda-graph-padding",)],
                         ids=["tp1", "tp2", "tp4", "no-padding"])
def test_domino_draft(extra: tuple[str, ...]) -> None:
    """A Domino draft: SGLang folds `_DominoDraftSampler` (its own class, built by the oracle
    where SGLang's own parse says `is_domino`), `out` only at any TP size; graphfit reads the
    same draft config and plans that sampler (compared with every aspect of the pasted line:
    ladders, padding, components, buffers, the resolved block)."""
    # S left to SGLang's speculative default (48): its decode list keeps the memory default
    # (256 at 80 GB) and the sampler is sized from that list (dflash_worker_v2.py:996)
    argv = line({"block_size": 6, **DOMINO}, *extra)
    sg = dc.sc.sglang(argv, 80)
    assert sg.runners is not None
    sampler = {k for k in sg.runners["dflash_draft"].buffers if k.startswith("sampler_")}
    assert sampler == {"sampler_out"}
    gf = dc.pasted(argv, 80)
    assert gf.rejected is None and gf.plan is not None
    diffs = (dc.compare_speculation(sg, gf) + dc.sc.compare_components(sg, gf)
             + dc.sc.compare_draft_ladder(sg, gf) + dc.sc.compare_buffers(sg, gf)
             + dc.sc.compare_padding(sg, gf, "dflash_draft"))
    assert diffs == []
    planned = {b.name for b in gf.plan.components["dflash_draft"].buffers}
    assert {n for n in planned if n.startswith("sampler_")} == sampler  # no extra buffers


SELECTOR = {"architectures": ["DFlash2DraftModel"],
            "dflash_config": {"selector_rank": 8, "selector_top_k": 4}}


@pytest.mark.parametrize(("draft", "extra"), [
    (SELECTOR, ()), (SELECTOR, ("--tp-size", "2")),
    ({**SELECTOR, "architectures": ["MiniMaxDFlash2DraftModel"],
      "dflash_config": {"selector_rank": 2, "selector_top_k": 16, "block_size": 4}},
     ("--cuda-graph-max-bs-decode", "12")),
    # a selector and a Domino projector: the selector branch comes first (:907)
    ({**SELECTOR, "dflash_config": {**SELECTOR["dflash_config"], **DOMINO["dflash_config"]}},
     ()),
], ids=["selector", "selector-tp2", "minimax-k16", "selector-over-domino"])
def test_selector_draft(draft: dict[str, Any], extra: tuple[str, ...]) -> None:
    """A DFlash2 (selector) draft: SGLang's own `_SelectorDraftSampler` (built by the oracle
    where SGLang's own model class is a DFlash2DraftModel, top_k from its own parse) against
    graphfit's reading of the same draft config, every buffer and nothing more."""
    argv = line({"block_size": 6, **draft}, *extra)  # S defaulted, as for Domino
    sg = dc.sc.sglang(argv, 80)
    assert sg.runners is not None
    sampler = {k for k in sg.runners["dflash_draft"].buffers if k.startswith("sampler_")}
    assert "sampler_candidate_out" in sampler
    gf = dc.pasted(argv, 80)
    assert gf.rejected is None and gf.plan is not None, gf.rejected
    diffs = (dc.compare_speculation(sg, gf) + dc.sc.compare_components(sg, gf)
             + dc.sc.compare_draft_ladder(sg, gf) + dc.sc.compare_buffers(sg, gf)
             + dc.sc.compare_padding(sg, gf, "dflash_draft"))
    assert diffs == []
    planned = {b.name for b in gf.plan.components["dflash_draft"].buffers}
    assert {n for n in planned if n.startswith("sampler_")} == sampler


def test_a_draft_config_sglang_cannot_parse() -> None:
    """block_size 0: SGLang's hook warns and falls back to 16 (speculative_hook.py:406-421),
    but its draft model parses the config again and raises (models/dflash.py:700,
    dflash_utils.py:613-617): the server does not start. graphfit refuses with SGLang's
    reason (a documented disagreement with the hook alone)."""
    argv = line({"block_size": 0})
    resolved = dc.sc.sglang(argv, 80).resolved
    assert isinstance(resolved, so.Resolved) and resolved.speculative_num_draft_tokens == 16
    from sglang.srt.speculative.dflash_utils import parse_dflash_draft_config

    with pytest.raises(ValueError, match="block_size must be positive"):
        parse_dflash_draft_config(draft_hf_config={"block_size": 0})
    gf = dc.pasted(argv, 80)
    assert gf.rejected is not None and "would not load" in gf.rejected


_ANY = st.one_of(st.none(), st.booleans(), st.integers(-2, 20), st.sampled_from(
    ("8", "x", "", "1.5")), st.floats(-1, 20, allow_nan=False), st.just([]),
    st.just([1, 2]), st.just({}))
_KEYS = ("block_size", "num_target_layers", "conv_kernel_size", "conv_group_size",
         "selector_rank", "selector_top_k", "output_multiplier", "final_logit_softcapping",
         "target_layer_ids", "mask_token", "mask_token_id", "attention_sink_bias",
         "attention_value_scale", "projector_type", "shift_label", "pure_draft_prefix_len",
         "gru_hidden_dim", "emb_dim")


@st.composite
def draft_configs(draw: st.DrawFn) -> dict[str, Any]:
    """Draft config dicts: a few of parse_dflash_draft_config's keys, nested or top-level,
    with valid and invalid values (Domino's fields valid more often than not)."""
    nested = {k: draw(_ANY) for k in draw(st.lists(st.sampled_from(_KEYS), max_size=4,
                                                   unique=True))}
    top = {k: draw(_ANY) for k in draw(st.lists(st.sampled_from(
        ("block_size", "num_hidden_layers", "emb_dim", "target_layer_ids")), max_size=2,
        unique=True))}
    if draw(st.booleans()):
        nested.update(projector_type="domino", shift_label=draw(st.booleans()),
                      pure_draft_prefix_len=1, gru_hidden_dim=8, emb_dim=8)
    return {**top, "dflash_config": nested} if nested or draw(st.booleans()) else top


@given(draft_configs())
@example({"block_size": True})
@example({"dflash_config": {"block_size": 2.9}})
@example({"dflash_config": {"projector_type": "domino", "shift_label": False,
                            "pure_draft_prefix_len": 1, "gru_hidden_dim": 8, "emb_dim": 8,
                            "block_size": 1}})
@example({"dflash_config": {"selector_rank": 4}})
@example({"dflash_config": {"output_multiplier": 0}})
def test_draft_config_parse_matches_sglang(config: dict[str, Any]) -> None:
    """graphfit's reading of a draft config == SGLang's parse_dflash_draft_config: the same
    block size, and a refusal exactly when SGLang raises."""
    from sglang.srt.speculative.dflash_utils import parse_dflash_draft_config

    try:
        theirs = parse_dflash_draft_config(draft_hf_config=config)
    except Exception as exc:  # SGLang's refusal, any type
        failed: str | None = f"{type(exc).__name__}: {exc}"
    else:
        failed = None
    ours = sglang_draft.parse(config, Path("config.json"))
    assert (ours.problem is not None) == (failed is not None), (ours.problem, failed)
    if failed is None:
        assert ours.block_size == theirs.block_size
        assert (ours.head == "domino") == theirs.is_domino
