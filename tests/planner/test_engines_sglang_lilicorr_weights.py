"""A LiLiCorr DFLASH draft's weight-sized buffers (graphfit.planner.engines.
sglang_lilicorr_weights): the head's inference buffers and the sampler's token table, planned
as fixed-size buffers of `dflash_draft` and counted in the plan's memory.

(tests/oracle/test_sglang_lilicorr_weights_oracle.py compares them with SGLang's own head.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit import ConfigError, EngineConfig, plan
from graphfit.planner.engines.sglang_lilicorr_weights import padded_vocab
from tests.helpers import run_cli

WEIGHTS = ("lilicorr_", "sampler_token_table")


def sg(**kw: object) -> EngineConfig:
    return EngineConfig.from_dict({"engine": "sglang", "spec_method": "dflash",
                                   "max_num_seqs": 16, "speculative_num_draft_tokens": 5,
                                   "hidden_size": 64, "vocab_size": 1000, **kw})


@given(vocab=st.integers(1, 10**6), tp=st.integers(1, 64))
def test_padded_vocab_splits_evenly_and_covers_the_vocabulary(vocab: int, tp: int) -> None:
    """The embedding's rows: every token has one, the TP ranks hold equal shards of whole
    64-row groups, and the padding is less than one group per rank."""
    rows = padded_vocab(vocab, tp)
    assert vocab <= rows < vocab + 64 * tp
    assert rows % 64 == 0 and rows % tp == 0


@given(block=st.integers(2, 16), k=st.sampled_from([1, 2, 4, 8, 16]),
       width=st.sampled_from([0, 1, 16, 32, 64, 128]), heads=st.sampled_from([1, 2, 4]),
       factor=st.integers(1, 64), tp=st.sampled_from([1, 2, 4]),
       draft=st.none() | st.sampled_from([32, 64]), eager=st.booleans())
def test_weight_buffers_are_counted_and_never_batch_sized(
        block: int, k: int, width: int, heads: int, factor: int, tp: int, draft: int | None,
        eager: bool) -> None:
    """With the head's geometry the plan's memory count grows by the weight-sized buffers;
    none of them changes with the batch (the same shapes for any S); the token table is there
    only with the folded sampler, when the head's width differs from the draft's and the
    draft is as wide as the target; every batch still pads within every buffer."""
    head_width = width or (draft or 64)
    base = sg(speculative_num_draft_tokens=block, dflash_lilicorr_top_k=k, tp_size=tp,
              draft_hidden_size=draft, dflash_eager_sampler=eager)
    if head_width % heads:
        with pytest.raises(ConfigError, match="divisible by num_heads"):
            plan(base.replace(dflash_lilicorr_head=(width, heads, factor)))
        return
    with_head = base.replace(dflash_lilicorr_head=(width, heads, factor))
    p, q = plan(base), plan(with_head)
    added = [b for b in q.components["dflash_draft"].buffers if b.name.startswith(WEIGHTS)]
    # the engine's own count (a sum) grows by exactly their bytes; the arena (aligned) by
    # at least that
    assert q.reference_bytes == p.reference_bytes + sum(b.reference_bytes for b in added)
    assert q.total_bytes >= p.total_bytes + sum(b.bytes for b in added)
    names = {b.name for b in added}
    table = not eager and head_width != (draft or 64) and (draft or 64) == 64
    assert ("sampler_token_table" in names) is table
    assert "lilicorr_attn_bias" in names  # the head loads with or without the sampler
    assert q.buffer("dflash_draft.lilicorr_attn_bias").shape == (heads, (block - 1) * k,
                                                                 (block - 1) * k)
    wider = plan(with_head.replace(max_num_seqs=200))
    assert {b.name: b.shape for b in added} == {
        b.name: b.shape for b in wider.components["dflash_draft"].buffers
        if b.name.startswith(WEIGHTS)}
    assert q.verify().ok


def test_no_geometry_plans_no_weight_buffers() -> None:
    """A config with the candidate top-k alone (no head geometry read): the sampler's
    per-request buffers only, as before."""
    p = plan(sg(dflash_lilicorr_top_k=4))
    assert not [b for b in p.components["dflash_draft"].buffers if b.name.startswith(WEIGHTS)]


LINE = ["plan", "--json", "--", "python", "-m", "sglang.launch_server", "--speculative-algorithm",
        "DFLASH", "--max-running-requests", "8"]
FIELDS = {"lilicorr_candidate_topk": 4, "lilicorr_hidden_size": 32, "lilicorr_num_layers": 1,
          "lilicorr_num_heads": 4, "lilicorr_mlp_ratio": 2.0, "lilicorr_factor_dim": 16,
          "lilicorr_vector_eps": 1e-6, "lilicorr_logit_scale": 1.0}


def _dirs(tmp_path: Path, **fields: object) -> tuple[str, str]:
    model, draft = tmp_path / "model", tmp_path / "draft"
    # layer counts SGLang's target runner needs to pick the draft's capture layers
    # (dflash_utils.py:348-385; tests/oracle/test_sglang_dflash_layers_oracle)
    base = {"architectures": ["LlamaForCausalLM"], "hidden_size": 64, "vocab_size": 1000,
            "torch_dtype": "bfloat16", "num_hidden_layers": 4}
    for d, data in ((model, base), (draft, {**base, "architectures": ["LiLiCorrDraftModel"],
                                            "block_size": 6,
                                            "dflash_config": {**FIELDS, **fields}})):
        d.mkdir()
        (d / "config.json").write_text(json.dumps(data))
    return str(model), str(draft)


def test_pasted_line_reads_the_head_geometry(tmp_path: Path) -> None:
    """A pasted line with a local LiLiCorr draft: its geometry read from dflash_config, the
    token table of the target's padded vocabulary, a block past the trained one refused."""
    model, draft = _dirs(tmp_path)
    code, out, err = run_cli([*LINE, "--model-path", model, "--speculative-draft-model-path",
                              draft, "--speculative-num-draft-tokens", "6"])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["config"]["options"]["dflash_lilicorr_head"] == [32, 4, 16]
    shapes = {b["name"]: b["shape"] for b in doc["components"]["dflash_draft"]["buffers"]}
    assert shapes["sampler_token_table"] == [1024, 32]
    assert shapes["lilicorr_attn_bias"] == [4, 20, 20]
    code, _, err = run_cli([*LINE, "--model-path", model, "--speculative-draft-model-path",
                            draft, "--speculative-num-draft-tokens", "7"])
    assert code == 2 and "trained LiLiCorr block" in err and err.count("\n") <= 1


def test_pasted_line_refuses_a_head_sglang_cannot_build(tmp_path: Path) -> None:
    model, draft = _dirs(tmp_path, lilicorr_hidden_size=-8)
    code, _, err = run_cli([*LINE, "--model-path", model, "--speculative-draft-model-path",
                            draft])
    assert code == 2 and "negative width" in err


@given(block=st.integers(2, 12), k=st.sampled_from([1, 4, 16]),
       width=st.sampled_from([0, 1, 32, 64]), heads=st.sampled_from([1, 2, 4]),
       factor=st.integers(1, 32), seqs=st.integers(1, 64), eager=st.booleans())
def test_head_buffers_are_counted_with_graphs_off(
        block: int, k: int, width: int, heads: int, factor: int, seqs: int,
        eager: bool) -> None:
    """SGLang builds the head's buffers when the draft's weights load (models/lilicorr.py:
    571-572), captured graphs or not: with graphs off the draft component holds exactly
    them (no graph input, no sampler: the sampler is built only for capture,
    dflash_worker_v2.py:741-747), with the shapes they have with graphs on, and the plan's
    memory grows by their bytes."""
    if (width or 64) % heads:
        return  # refused (test_weight_buffers_are_counted_and_never_batch_sized)
    base = sg(speculative_num_draft_tokens=block, dflash_lilicorr_top_k=k, max_num_seqs=seqs,
              dflash_eager_sampler=eager)
    head = base.replace(dflash_lilicorr_head=(width, heads, factor))
    on, off = plan(head), plan(head.replace(cudagraph_mode="NONE"))
    bare = plan(base.replace(cudagraph_mode="NONE"))
    assert not off.has_graphs and not bare.components["dflash_draft"].buffers

    def heads_of(p: object) -> dict[str, tuple[tuple[int, ...], str, int]]:
        return {b.name: (b.shape, b.dtype, b.bytes)
                for b in p.components["dflash_draft"].buffers  # type: ignore[attr-defined]
                if b.name.startswith("lilicorr_")}

    assert heads_of(off) == heads_of(on) and heads_of(off)
    assert {b.name for b in off.components["dflash_draft"].buffers} == set(heads_of(off))
    added = sum(v[2] for v in heads_of(off).values())
    assert off.reference_bytes == bare.reference_bytes + added
    assert off.total_bytes >= bare.total_bytes + added
    assert off.verify().ok


def test_a_persistent_buffer_must_be_a_fixed_buffer_of_the_runner() -> None:
    """BatchRunner.persistent: names of its own buffers, each with no batch rows."""
    from graphfit.planner.core.batches import Stream
    from graphfit.planner.core.buffers import KEEP, Axis, BufferSpec, Demand
    from graphfit.planner.engines.batch import BatchRunner

    fixed = BufferSpec("w", "float32", Axis.FIXED, (), 4, KEEP)
    rows = BufferSpec("r", "int32", Axis.REQUESTS, (Demand(Stream.TARGET_REQUESTS),), 4, KEEP)
    assert BatchRunner("x", 1, 4, (fixed, rows), persistent=frozenset({"w"})).persistent
    with pytest.raises(ConfigError, match="names no buffer"):
        BatchRunner("x", 1, 4, (fixed,), persistent=frozenset({"v"}))
    with pytest.raises(ConfigError, match="fixed-size"):
        BatchRunner("x", 1, 4, (fixed, rows), persistent=frozenset({"r"}))
