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


LILICORR_FIELDS = {"lilicorr_candidate_topk": 4, "lilicorr_hidden_size": 0,
                   "lilicorr_num_layers": 2, "lilicorr_num_heads": 4, "lilicorr_mlp_ratio": 2.0,
                   "lilicorr_factor_dim": 16, "lilicorr_vector_eps": 1e-6,
                   "lilicorr_logit_scale": 1.0}


def lilicorr(**fields: Any) -> dict[str, Any]:
    return {"architectures": ["LiLiCorrDraftModel"],
            "dflash_config": {**LILICORR_FIELDS, **fields}}


@pytest.mark.parametrize("extra", [(), ("--tp-size", "2"),
                                   ("--cuda-graph-max-bs-decode", "12"),
                                   ("--max-running-requests", "40"),
                                   ("--disable-cuda-graph",)],
                         ids=["default-S", "tp2", "max-bs-12", "S40", "no-graphs"])
@pytest.mark.parametrize("topk", [1, 4, 16])
def test_lilicorr_draft(extra: tuple[str, ...], topk: int) -> None:
    """A LiLiCorr draft: SGLang folds its own `LiLiCorrDraftSampler` (built by the oracle
    through SGLang's own `build_lilicorr_draft_sampler` where SGLang's own model class is a
    `LiLiCorrDraftModel`, top-k from SGLang's own parse); graphfit reads the same draft config
    and plans every batch-sized sampler buffer and nothing more (compare_line: the pasted
    line's buffers both ways, padding, ladders, and the model-level aspects)."""
    argv = line({"block_size": 6, **lilicorr(lilicorr_candidate_topk=topk)}, *extra)
    sg = dc.sc.sglang(argv, 80)
    assert sg.runners is not None
    graphs = "--disable-cuda-graph" not in extra
    if graphs:
        built = sg.runners["dflash_draft"].buffers
        assert built["sampler_candidate_out"].shape[1:] == (5, topk)
        assert "sampler_anchor" in built
    assert dc.compare_line(argv) == ("runner" if graphs else "no_runner", [])


@pytest.mark.parametrize(("fields", "words"), [
    ({"lilicorr_candidate_topk": 3}, "power of two"),
    ({"lilicorr_candidate_topk": 32}, "exceeds"),
    ({"lilicorr_num_heads": 0}, "must be positive"),
    ({"lilicorr_mlp_ratio": "wide"}, "Invalid"),
    ({"lilicorr_enabled": False}, "geometry fields"),
])
def test_lilicorr_config_sglang_cannot_load(fields: dict[str, Any], words: str) -> None:
    """A LiLiCorr head config SGLang's own `parse_lilicorr_draft_config` rejects: the draft
    does not load (models/lilicorr.py:532-540); graphfit refuses with SGLang's reason."""
    from sglang.srt.speculative.lilicorr_utils import parse_lilicorr_draft_config

    config = {**LILICORR_FIELDS, **fields}
    with pytest.raises(ValueError, match=words):
        parse_lilicorr_draft_config(draft_hf_config={"dflash_config": config})
    draft = {"architectures": ["LiLiCorrDraftModel"], "dflash_config": config}
    gf = dc.pasted(line({"block_size": 6, **draft}), 80)
    assert gf.rejected is not None and "would not load" in gf.rejected and words in gf.rejected
    # graphs off too: the head is parsed when the draft model is built (found by the
    # generated lines: the oracle parsed it only when building the draft runner)
    assert dc.compare_line(line({"block_size": 6, **draft}, "--disable-cuda-graph")) == (
        "rejected", [])
    missing = {k: v for k, v in LILICORR_FIELDS.items() if k != "lilicorr_factor_dim"}
    with pytest.raises(ValueError, match="lilicorr_factor_dim is required"):
        parse_lilicorr_draft_config(draft_hf_config={"dflash_config": missing})
    gf = dc.pasted(line({"block_size": 6, "architectures": ["LiLiCorrDraftModel"],
                         "dflash_config": missing}), 80)
    assert gf.rejected is not None and "lilicorr_factor_dim is required" in gf.rejected


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
             + dc.sc.compare_draft_ladder(sg, gf) + dc.sc.compare_buffers(sg, gf, extra=True)
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
             + dc.sc.compare_draft_ladder(sg, gf) + dc.sc.compare_buffers(sg, gf, extra=True)
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


_LILICORR_VALUES = st.one_of(st.integers(-2, 40), st.sampled_from(["8", "x", "2.5", None]),
                             st.floats(-1, 40, allow_nan=False), st.booleans())


@example(LILICORR_FIELDS)
@example({**LILICORR_FIELDS, "lilicorr_candidate_topk": "8", "lilicorr_enabled": 1})
@given(st.dictionaries(st.sampled_from([*LILICORR_FIELDS, "lilicorr_enabled"]),
                       _LILICORR_VALUES, max_size=10))
def test_lilicorr_parse_matches_sglang(fields: dict[str, Any]) -> None:
    """graphfit.inputs.sglang_lilicorr.candidate_topk against SGLang's own
    `parse_lilicorr_draft_config` on generated head configs: a refusal exactly where SGLang
    raises, else the same candidate top-k."""
    so.oracle()  # SGLang's import stubs, installed once
    with so.sglang_stubs.imports():  # lilicorr_utils imports a Triton kernel module
        from sglang.srt.speculative.lilicorr_utils import parse_lilicorr_draft_config

    from graphfit.inputs.sglang_lilicorr import LilicorrRefusal, candidate_topk

    try:
        theirs: int | None = parse_lilicorr_draft_config(
            draft_hf_config={"dflash_config": fields}).candidate_topk
    except ValueError:
        theirs = None
    try:
        ours: int | None = candidate_topk(fields)
    except LilicorrRefusal:
        ours = None
    assert ours == theirs
