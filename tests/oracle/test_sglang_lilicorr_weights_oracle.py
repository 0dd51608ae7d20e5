"""SGLang 0.5.23's LiLiCorr draft head: its weight-sized buffers against graphfit's plan
(graphfit.planner.engines.sglang_lilicorr_weights).

* whole lines: the oracle builds SGLang's own `LiLiCorrHead` (set to the worker's block,
  materialized as `load_weights` does) and SGLang's own `build_lilicorr_draft_sampler` on the
  target's `VocabParallelEmbedding` (tests/oracle/sglang_oracle.py `_lilicorr_head`,
  `_lilicorr_sampler`); graphfit reads the same draft config pasted; compare_line checks
  every buffer SGLang holds (the head's `lilicorr_*`, the sampler's token table) by shape and
  dtype, and the names both ways;
* generated geometries: SGLang's own head's `build_token_table` on SGLang's own embedding
  (any vocabulary, TP size, draft / target widths) against graphfit's token table, and the
  tensors its `materialize_inference_buffers` makes against graphfit's head buffers.
"""

from __future__ import annotations

import types
from typing import Any
from unittest import mock

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit import EngineConfig, plan  # noqa: E402
from graphfit.planner.engines import sglang_lilicorr_weights as weights  # noqa: E402
from tests.oracle import sglang_block_drafts as bd  # noqa: E402
from tests.oracle import sglang_dflash_compare as dc  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_stubs  # noqa: E402

FIELDS = {"lilicorr_candidate_topk": 4, "lilicorr_hidden_size": 0, "lilicorr_num_layers": 1,
          "lilicorr_num_heads": 4, "lilicorr_mlp_ratio": 2.0, "lilicorr_factor_dim": 16,
          "lilicorr_vector_eps": 1e-6, "lilicorr_logit_scale": 1.0}


def line(block: int, *extra: str, **fields: Any) -> tuple[str, ...]:
    draft = {"block_size": block, "architectures": ["LiLiCorrDraftModel"],
             "dflash_config": {**FIELDS, **fields}}
    return ("--speculative-algorithm", "DFLASH", "--max-running-requests", "24", *extra,
            dc.DRAFT, dc.draft_dir(draft))


@pytest.mark.parametrize(("extra", "fields", "table"), [
    ((), {"lilicorr_hidden_size": 256}, True),  # narrower than the draft: token_proj
    (("--tp-size", "2"), {"lilicorr_hidden_size": 256}, True),  # all-gathered table
    (("--tp-size", "4"), {"lilicorr_hidden_size": 8192, "lilicorr_num_heads": 8}, True),
    ((), {"lilicorr_hidden_size": 4096}, False),  # as wide as the draft: no token_proj
    ((), {"lilicorr_hidden_size": 0, "lilicorr_candidate_topk": 16}, False),
    (("SGLANG_DFLASH_EAGER_DRAFT_SAMPLER=1",), {"lilicorr_hidden_size": 256}, False),
], ids=["h256", "h256-tp2", "h8192-tp4", "h4096", "h0-k16", "eager-sampler"])
def test_head_buffers_match_sglangs_own_head(extra: tuple[str, ...], fields: dict[str, Any],
                                             table: bool) -> None:
    """The head's buffers and the sampler's token table: SGLang's own objects against the
    pasted line's plan (compare_line: shapes, dtypes, names both ways), and the plan's
    memory count holds them."""
    env = [e for e in extra if "=" in e]
    argv = (*env, *line(6, *(e for e in extra if "=" not in e), **fields))
    sg = bd.sglang(argv, 80)  # under the line's environment prefix
    assert sg.runners is not None
    built = sg.runners["dflash_draft"].buffers
    assert ("sampler_token_table" in built) is table
    assert "lilicorr_attn_bias" in built  # folded sampler or not (models/lilicorr.py:571)
    assert dc.compare_line(argv) == ("runner", [])
    p = dc.pasted(argv, 80).plan
    assert p is not None
    held = {b.name: b.bytes for b in p.components["dflash_draft"].buffers}
    assert all(held[name] > 0 for name in built if name.startswith(("lilicorr_",
                                                                    "sampler_token")))


@pytest.mark.parametrize(("block", "extra", "fields", "words"), [
    (6, (), {"lilicorr_hidden_size": 30}, "divisible"),  # models/lilicorr.py:78-82
    (6, ("--speculative-num-draft-tokens", "8"), {}, "trained LiLiCorr block"),
    (6, ("--disable-cuda-graph", "--speculative-num-draft-tokens", "7"), {}, "outside"),
])
def test_heads_sglang_cannot_build(block: int, extra: tuple[str, ...], fields: dict[str, Any],
                                   words: str) -> None:
    """A head SGLang's own constructor or `set_active_block_size` refuses (graphs or not):
    both refuse, graphfit with SGLang's reason."""
    argv = line(block, *extra, **fields)
    assert dc.compare_line(argv) == ("rejected", [])
    gf = dc.pasted(argv, 80)
    assert gf.rejected is not None and words in gf.rejected


@pytest.mark.parametrize(("block", "override", "extra", "refused"), [
    (8, {"block_size": 16}, (), True),  # a larger head: the weights are smaller
    (16, {"block_size": 8}, (), True),  # a smaller head: the line's block would fit, not them
    (8, {"block_size": 16}, ("--speculative-num-draft-tokens", "4"), True),
    (8, {"block_size": 8}, (), False),  # the block it was saved at
    (8, {"rms_norm_eps": 1e-5}, (), False),  # the override leaves the block alone
    (8, {"block_size": 16, "dflash_config": {**FIELDS, "block_size": 8}}, (), False),
], ids=["8to16", "16to8", "8to16-line4", "8to8", "no-block", "nested-wins"])
def test_an_override_block_against_the_saved_weights(block: int, override: dict[str, Any],
                                                     extra: tuple[str, ...],
                                                     refused: bool) -> None:
    """`--json-model-override-args` naming another block_size: SGLang's draft ModelConfig
    builds the head at the overridden block; the checkpoint's weights (saved at the block
    of the config as written) go through SGLang's own `default_weight_loader`. Both refuse,
    graphfit with the sizes, or both plan."""
    import json

    argv = (*line(block, *extra), "--json-model-override-args", json.dumps(override))
    verdict, diffs = dc.compare_line(argv)
    assert diffs == []
    assert (verdict == "rejected") is refused
    if refused:
        sg = bd.sglang(argv, 80)
        assert sg.runners is None and "Attempted to load weight" in str(sg.runner_error)
        gf = dc.pasted(argv, 80)
        assert gf.rejected is not None and "weights were saved at" in gf.rejected


@pytest.mark.parametrize(("saved", "override", "refused"), [
    ({}, {"lilicorr_num_layers": 2}, True),  # a layer the checkpoint lacks (:469-475)
    ({"lilicorr_num_layers": 2}, {"lilicorr_num_layers": 1}, True),  # an extra one (:476-483)
    ({}, {"lilicorr_num_heads": 8}, True),  # relative_slot_bias / same_slot_bias
    ({}, {"lilicorr_mlp_ratio": 2.5}, True),  # the MLP width int(4096 x 2.5)
    ({}, {"lilicorr_mlp_ratio": 2.0000001}, False),  # int() keeps the width 8192
    ({}, {"lilicorr_factor_dim": 32}, True),  # out_head / in_head / anchor_out_head
    ({}, {"lilicorr_candidate_topk": 8}, True),  # rank_embedding
    ({}, {"lilicorr_hidden_size": 256}, True),  # a narrower head: token_proj appears
    ({}, {"lilicorr_hidden_size": 4096}, False),  # 0 resolves to the draft's 4096
    ({}, {"lilicorr_vector_eps": 1e-3, "lilicorr_logit_scale": 2.0}, False),  # no shape
], ids=["layers+", "layers-", "heads", "mlp", "mlp-int", "factor", "topk", "h256", "h4096",
        "eps"])
def test_an_override_head_against_the_saved_weights(saved: dict[str, Any],
                                                    override: dict[str, Any],
                                                    refused: bool) -> None:
    """`--json-model-override-args` replacing `dflash_config` with other `lilicorr_*` head
    fields: SGLang's draft builds the head from the overridden config and loads the
    checkpoint's head (saved at the config as written) through its own loader and coverage
    check. Both refuse, graphfit naming the moved geometry, or both plan."""
    import json

    argv = (*line(6, **saved), "--json-model-override-args",
            json.dumps({"dflash_config": {**FIELDS, **saved, **override}}))
    verdict, diffs = dc.compare_line(argv)
    assert diffs == []
    assert (verdict == "rejected") is refused, verdict
    if refused:
        sg = bd.sglang(argv, 80)
        assert sg.runners is None and any(words in str(sg.runner_error) for words in (
            "Attempted to load weight", "LiLiCorr checkpoint")), sg.runner_error
        gf = dc.pasted(argv, 80)
        assert gf.rejected is not None and "weights were saved at" in gf.rejected


def _embedding(vocab: int, width: int, tp: int) -> Any:
    """SGLang's own VocabParallelEmbedding for rank 0 of `tp` (on meta)."""
    import torch

    with sglang_stubs.imports():
        import sglang.srt.layers.linear as linear
        import sglang.srt.layers.vocab_parallel_embedding as vpe
    parallel = types.SimpleNamespace(tp_rank=0, tp_size=tp, tp_group=None)
    with mock.patch.object(vpe, "get_parallel", lambda: parallel), \
            mock.patch.object(linear, "get_parallel", lambda: parallel), torch.device("meta"):
        return vpe.VocabParallelEmbedding(vocab, width, params_dtype=torch.bfloat16)


def _head(draft: int, hidden: int, heads: int, factor: int, top_k: int, block: int) -> Any:
    """SGLang's own LiLiCorrHead (meta, bfloat16), materialized."""
    import torch

    with sglang_stubs.imports():
        import sglang.srt.models.lilicorr as models
        from sglang.srt.speculative.lilicorr_utils import LiLiCorrConfig
    parsed = LiLiCorrConfig(candidate_topk=top_k, hidden_size=hidden, num_layers=1,
                            num_heads=heads, mlp_ratio=1.0, factor_dim=factor,
                            vector_eps=1e-6, logit_scale=1.0)
    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.bfloat16)
    try:
        with torch.device("meta"):
            head = models.LiLiCorrHead(model_hidden_size=draft, block_size=block,
                                       rms_norm_eps=1e-6, config=parsed)
    finally:
        torch.set_default_dtype(before)
    head.materialize_inference_buffers(head.slot_embedding.device, head.slot_embedding.dtype)
    return head


@settings(max_examples=40)
@given(vocab=st.integers(1, 300_000), tp=st.sampled_from([1, 2, 3, 4, 6, 8]),
       target=st.sampled_from([64, 128]), draft=st.sampled_from([64, 128]),
       hidden=st.sampled_from([0, 1, 32, 64, 128]), heads=st.sampled_from([1, 2, 4]),
       factor=st.integers(1, 32), top_k=st.sampled_from([1, 2, 4, 8, 16]),
       block=st.integers(2, 16))
@example(vocab=1000, tp=3, target=64, draft=64, hidden=32, heads=2, factor=4, top_k=4,
         block=6)
@example(vocab=151_665, tp=8, target=128, draft=128, hidden=1, heads=1, factor=1, top_k=1,
         block=2)
def test_generated_geometries_against_sglangs_own_head(
        vocab: int, tp: int, target: int, draft: int, hidden: int, heads: int, factor: int,
        top_k: int, block: int) -> None:
    """SGLang's own head on SGLang's own embedding (rank 0 of TP, all-gathered as
    lilicorr_utils.py:273-275 does) against graphfit's buffers for the same geometry: the
    token table exists exactly when SGLang builds one, with its rows and width; each inference
    buffer SGLang's `materialize_inference_buffers` makes, by name, shape and dtype (a
    factor-input block SGLang keeps as a view is planned as none)."""
    import torch

    width = hidden or draft
    if width % heads:
        return  # SGLang's head refuses (test_heads_sglang_cannot_build)
    head = _head(draft, hidden, heads, factor, top_k, block)
    table = head.build_token_table(_embedding(vocab, target, tp))
    if table is not None and tp > 1:
        table = torch.cat([table] * tp, dim=0)
    config = EngineConfig.from_dict({
        "engine": "sglang", "spec_method": "dflash", "max_num_seqs": 4,
        "speculative_num_draft_tokens": block, "hidden_size": target, "vocab_size": vocab,
        "draft_hidden_size": draft, "tp_size": tp, "dflash_lilicorr_top_k": top_k,
        "dflash_lilicorr_head": [hidden, heads, factor]})
    ours = {b.name: b for b in weights.token_table(config)}
    if table is None:
        assert not ours
    else:
        got = ours["sampler_token_table"]
        assert (got.reference_capacity, got.trailing) == (table.shape[0], (table.shape[1],))
        assert got.dtype == so._describe(table)
    planned = {b.name: b for b in weights.head_buffers(config, block)}
    sglangs = so.lilicorr_head_tensors(head)
    assert set(planned) == set(sglangs)
    for name, tensor in sglangs.items():
        b = planned[name]
        assert (*b.leading, b.reference_capacity, *b.trailing) == tuple(tensor.shape), name
        assert b.dtype == so._describe(tensor), name
    # and the plan counts them (fixed rows: what SGLang holds)
    p = plan(config)
    sizes = {b.name: b.shape for b in p.components["dflash_draft"].buffers}
    assert all(sizes[name] == tuple(t.shape) for name, t in sglangs.items())


@pytest.mark.parametrize("off", [(), ("--disable-cuda-graph",),
                                 ("--disable-decode-cuda-graph",)],
                         ids=["graphs", "no-graphs", "no-decode-graphs"])
@pytest.mark.parametrize("fields", [{"lilicorr_hidden_size": 256},
                                    {"lilicorr_hidden_size": 0, "lilicorr_candidate_topk": 16}],
                         ids=["h256", "h0-k16"])
def test_head_buffers_are_counted_with_the_drafts_graphs_on_or_off(
        off: tuple[str, ...], fields: dict[str, Any]) -> None:
    """SGLang's draft builds the head's buffers at `load_weights` (models/lilicorr.py:
    571-572), whether or not its graphs are captured: SGLang's own head for the line's
    resolved ServerArgs against the pasted plan's `lilicorr_*` buffers (names, shapes,
    dtypes, bytes) with --disable-cuda-graph, --disable-decode-cuda-graph (the draft's graphs
    follow the decode backend, dflash_worker_v2.py:704-706) or neither, and the plan's memory
    total holds at least their bytes."""
    argv = line(6, *off, **fields)
    sg = bd.sglang(argv, 80)
    assert isinstance(sg.resolved, so.Resolved)
    found = so._dflash_lilicorr(sg.resolved)
    assert found is not None
    sglangs = so.lilicorr_head_tensors(found[2])
    p = dc.pasted(argv, 80).plan
    assert p is not None and bool(p.graph_sizes("dflash_draft")) is not bool(off)
    held = {b.name: b for b in p.components["dflash_draft"].buffers
            if b.name.startswith("lilicorr_")}
    assert set(held) == set(sglangs)
    for name, tensor in sglangs.items():
        assert held[name].shape == tuple(tensor.shape), name
        assert held[name].dtype == so._describe(tensor), name
        assert held[name].bytes == tensor.numel() * tensor.element_size(), name
    assert p.total_bytes >= sum(b.bytes for b in held.values())
