"""SGLang 0.5.23 DFLASH (graphfit.planner.engines.sglang_dflash): resolution, the draft's own
decode-graph runner of width block size, its in-graph sampler buffers, the refusals.

(tests/oracle/test_sglang_dflash_oracle.py compares all of it with SGLang's own code.)"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit import ConfigError, EngineConfig, plan
from graphfit.testing import sglang_configs
from tests.helpers import run_cli
from tests.planner.block_draft_checks import (
    assert_draft_pads_within_its_buffers,
    captured_draft,
)


def sg(**kw: object) -> EngineConfig:
    return EngineConfig.from_dict({"engine": "sglang", "spec_method": "dflash", **kw})


def test_dflash_runners() -> None:
    p = plan(sg(max_num_seqs=20, speculative_num_draft_tokens=8, num_speculative_tokens=3,
                speculative_eagle_topk=4, max_cudagraph_capture_size=16))
    assert (p.config.num_speculative_tokens, p.config.speculative_eagle_topk) == (1, 1)
    assert set(p.components) == {"target", "dflash_draft", "prefill"}
    assert p.components["dflash_draft"].tables.uniform_query_len == 8
    assert p.graph_sizes("dflash_draft") == p.graph_sizes("target")
    assert p.buffer("dflash_draft.input_ids").shape == (16 * 8,)
    assert p.buffer("dflash_draft.sampler_out").shape == (16 * 7,)
    assert p.verify().ok
    tp = plan(sg(max_num_seqs=8, speculative_num_draft_tokens=4, tp_size=2))
    assert tp.buffer("dflash_draft.sampler_gathered_ids").shape == (2 * 8 * 3,)
    off = plan(sg(max_num_seqs=8, speculative_num_draft_tokens=4, cudagraph_mode="NONE"))
    assert "dflash_draft" not in off.components or not off.graph_sizes("dflash_draft")


@pytest.mark.parametrize(("kw", "needle"), [
    ({}, "--speculative-dflash-block-size"),
    ({"speculative_num_draft_tokens": 1}, r"2\.\."),  # a block of 1 drafts nothing
    ({"speculative_num_draft_tokens": 4, "tp_size": 2, "attn_dp_size": 2}, "enable-dp-lm-head"),
    ({"speculative_num_draft_tokens": 4, "pp_size": 2}, "pp_size 1"),
])
def test_dflash_refusals(kw: dict[str, object], needle: str) -> None:
    with pytest.raises(ConfigError, match=needle):
        plan(sg(max_num_seqs=8, **kw))


@given(sglang_configs(max_seqs=64, methods=("dflash",)), st.integers(1, 64))
def test_dflash_draft_pads_within_its_buffers(config: EngineConfig, bs: int) -> None:
    """Every draft batch pads to a captured size whose block rows the buffers hold, and the
    sampler holds (block - 1) tokens of every captured request."""
    p = plan(config)
    found = captured_draft(p, "dflash_draft")
    if found is not None:
        assert found[0] == p.config.speculative_num_draft_tokens
    assert_draft_pads_within_its_buffers(p, "dflash_draft", bs,
                                         p.config.speculative_num_draft_tokens - 1)


LINE = ["plan", "--json", "--", "python", "-m", "sglang.launch_server", "--model-path", "m",
        "--speculative-algorithm", "DFLASH"]


def test_pasted_dflash_line_rules() -> None:
    code, _, err = run_cli([*LINE, "--speculative-num-draft-tokens", "8"])
    assert code == 2 and "--speculative-draft-model-path" in err
    code, _, err = run_cli([*LINE, "--speculative-draft-model-path", "d",
                            "--speculative-num-draft-tokens", "8",
                            "--speculative-dflash-block-size", "4"])
    assert code == 2 and "dflash-block-size" in err
    code, _, err = run_cli([*LINE, "--speculative-draft-model-path", "d",
                            "--speculative-dflash-block-size", "0"])
    assert code == 2 and ">= 1" in err  # SGLang: must be positive (:369-373)
    code, _, err = run_cli([*LINE, "--speculative-draft-model-path", "d",
                            "--speculative-dflash-block-size", "5",
                            "--speculative-draft-window-size", "4"])
    assert code == 2 and "below the DFLASH block size 5" in err
    code, out, _ = run_cli([*LINE, "--speculative-draft-model-path", "d",
                            "--speculative-dflash-block-size", "5"])
    assert code == 0 and '"dflash_draft"' in out


@given(block=st.integers(2, 16), tp=st.sampled_from([1, 2, 4, 8]), s=st.integers(1, 300))
def test_domino_sampler_holds_every_replay(block: int, tp: int, s: int) -> None:
    """A Domino draft (SglangOptions.dflash_domino): `out` alone at any TP size
    (dflash_worker_v2.py:322-345), (block - 1) tokens for every captured size."""
    p = plan(sg(max_num_seqs=s, speculative_num_draft_tokens=block, tp_size=tp,
                dflash_domino=True))
    names = {b.name for b in p.components["dflash_draft"].buffers}
    assert {n for n in names if n.startswith("sampler_")} == {"sampler_out"}
    out = p.buffer("dflash_draft.sampler_out")
    assert all(bs * (block - 1) <= out.shape[0] for bs in p.graph_sizes("dflash_draft"))


@given(block=st.integers(2, 16), k=st.integers(1, 32), s=st.integers(1, 300),
       domino=st.booleans())
def test_selector_sampler_holds_every_replay(block: int, k: int, s: int, domino: bool) -> None:
    """A selector draft (SglangOptions.dflash_selector_top_k, chosen before Domino,
    dflash_worker_v2.py:907): every per-request buffer holds every captured size's rows."""
    p = plan(sg(max_num_seqs=s, speculative_num_draft_tokens=block, dflash_selector_top_k=k,
                dflash_domino=domino))
    sizes = p.graph_sizes("dflash_draft")
    cand = p.buffer("dflash_draft.sampler_candidate_out")
    assert cand.shape[1:] == (block - 1, k)
    assert all(bs <= cand.shape[0] for bs in sizes)
    assert all(bs * (block - 1) <= p.buffer("dflash_draft.sampler_out").shape[0]
               for bs in sizes)


@given(block=st.integers(2, 16), k=st.sampled_from([1, 2, 4, 8, 16]), s=st.integers(1, 300),
       tp=st.sampled_from([1, 2, 4]), hidden=st.none() | st.integers(64, 8192),
       given_s=st.booleans())
def test_lilicorr_sampler_holds_every_replay(block: int, k: int, s: int, tp: int,
                                             hidden: int | None, given_s: bool) -> None:
    """A LiLiCorr draft (SglangOptions.dflash_lilicorr_top_k, lilicorr_utils.py:239-290): its
    per-request rows hold every captured size, (block - 1) slots of k candidates, the anchor
    rows as wide as the draft; with S defaulted its max_bs is SGLang's unclamped decode list."""
    kw: dict[str, object] = {"max_num_seqs": s} if given_s else {"gpu_memory_gb": 80}
    p = plan(sg(speculative_num_draft_tokens=block, tp_size=tp, draft_hidden_size=hidden,
                dflash_lilicorr_top_k=k, **kw))
    sizes = p.graph_sizes("dflash_draft")
    assert sizes
    cand = p.buffer("dflash_draft.sampler_candidate_out")
    assert cand.shape[1:] == p.buffer("dflash_draft.sampler_q_out").shape[1:] == (block - 1, k)
    anchor = p.buffer("dflash_draft.sampler_anchor")
    assert anchor.shape[1:] == ((hidden or p.config.hidden_size),)
    for name in ("sampler_anchor", "sampler_anchor_valid", "sampler_temperatures",
                 "sampler_greedy_mask", "sampler_uniforms", "sampler_candidate_out"):
        assert all(bs <= p.buffer(f"dflash_draft.{name}").shape[0] for bs in sizes), name
    assert_draft_pads_within_its_buffers(p, "dflash_draft", min(s, 64), block - 1)
    if not given_s and tp == 1:  # SGLang's memory default at 80 GB, TP 1 is 256
        # (memory_hook.py:89-188) while S = 48 (speculative_hook.py:438-443)
        assert cand.shape[0] == 256 and max(sizes) <= 48


def test_eager_draft_sampler_plans_no_sampler() -> None:
    """SGLANG_DFLASH_EAGER_DRAFT_SAMPLER=1 on a pasted line: the draft graph without a folded
    sampler (dflash_worker_v2.py:890-891); the draft runner's buffers unchanged."""
    base = [*LINE, "--speculative-draft-model-path", "d", "--speculative-dflash-block-size",
            "5", "--max-running-requests", "8"]
    def draft_buffers(argv: list[str]) -> tuple[set[str], dict[str, object]]:
        code, out, err = run_cli(argv)
        assert code == 0, err
        doc = json.loads(out)
        names = {b["name"] for b in doc["components"]["dflash_draft"]["buffers"]}
        return names, doc["config"]["options"]

    folded, _ = draft_buffers(base)
    eager, options = draft_buffers([*base[:3], "SGLANG_DFLASH_EAGER_DRAFT_SAMPLER=1",
                                    *base[3:]])
    assert "sampler_out" in folded and options["dflash_eager_sampler"] is True
    assert eager == {n for n in folded if not n.startswith("sampler_")}
