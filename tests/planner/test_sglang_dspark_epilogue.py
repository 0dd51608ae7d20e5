"""SGLang's DSPARK outside static verify (graphfit.planner.engines.sglang_dspark_epilogue):
the compact verify graphs with their epilogue (`target_compact`) and the draft's confidence
outputs under compact / cap-accept.

The invariant: every reachable batch (requests, tokens, longest request) that replays a
compact tier reads no more rows than graphfit's capacity, nor than SGLang's own allocation,
in the epilogue's buffers and in the target runner's buffers the tier's graph reads.
(tests/oracle/test_sglang_dspark_oracle.py compares the buffers with SGLang's objects.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit import ConfigError, EngineConfig, plan
from graphfit.planner.core.keyed import reachable_keys
from graphfit.planner.engines.sglang_dspark_epilogue import COMPONENT
from tests.helpers import run_cli

# the Markov head and mask token id SGLang's DSPARK worker requires (dspark_config.py:94-128)
WORKER = {"markov_rank": 1, "markov_head_type": "vanilla", "mask_token_id": 0}


def sg(mode: str, **kw: object) -> EngineConfig:
    options = {"ragged_verify_mode": mode, "dspark_target_layers": 3,
               **kw.pop("options", {})}  # type: ignore[dict-item]
    return EngineConfig.from_dict({"engine": "sglang", "spec_method": "dspark",
                                   "vocab_size": 500, "hidden_size": 32,
                                   "options": options, **kw})


@given(seqs=st.integers(1, 24), window=st.integers(2, 6), cap=st.integers(1, 24),
       proposal=st.sampled_from(["sampling", "greedy", "eager"]))
def test_compact_pads_within_capacity(seqs: int, window: int, cap: int, proposal: str) -> None:
    p = plan(sg("compact", max_num_seqs=seqs, speculative_num_draft_tokens=window,
                max_cudagraph_capture_size=cap, options={"dspark_proposal": proposal}))
    assert p.verify().ok
    comp = p.keyed[COMPONENT]
    capture = p.graph_sizes("target")
    # one tier per captured batch size, bs * width tokens (decode_cuda_graph_runner.py:699-702)
    assert comp.graph_keys == tuple(sorted({bs * window for bs in capture}))
    requests, _, longest = comp.bounds
    assert longest == window and requests >= seqs
    caps = {b.name: (b.capacity, b.engine_rows) for b in comp.buffers}
    token_cap = p.buffer("target.input_ids").shape[0]
    request_cap = p.buffer("target.seq_lens").shape[0]
    # the folded sampler writes into the epilogue's draft tokens (one tensor, planned as
    # dspark_draft.sampler_out); an eager proposal leaves them the epilogue's own
    shares = proposal != "eager"
    assert ("draft_tokens" in caps) != shares
    sampler_out = p.buffer("dspark_draft.sampler_out").shape[0] if shares else 0
    replayed = 0
    for batch in reachable_keys(requests, requests * window, window):
        tier = comp.lookup(batch)
        if tier is None:
            continue
        replayed += 1
        b, n, _ = batch
        assert n <= tier  # padded >= real
        rows = comp.rows(tier)
        slots = rows["verify_lens"]
        assert b <= slots <= max(capture)
        for name, need in rows.items():
            capacity, engine = caps[name]
            assert need <= capacity <= engine, (batch, name)
        assert tier <= token_cap and slots <= request_cap
        if shares:  # the epilogue reads draft_tokens[: slots * gamma] of the sampler's out
            assert slots * (window - 1) <= sampler_out
    assert replayed > 0


@pytest.mark.parametrize("mode", ["static", "cap-accept", "compact"])
def test_confidence_outputs_and_epilogue_per_mode(mode: str) -> None:
    p = plan(sg(mode, max_num_seqs=10, speculative_num_draft_tokens=5,
                max_cudagraph_capture_size=8))
    names = {b.name for b in p.components["dspark_draft"].buffers}
    confidence = {"sampler_confidence_out", "sampler_confidence_raw_out"}
    assert (confidence <= names) == (mode != "static")
    assert (COMPONENT in p.keyed) == (mode == "compact")
    if mode != "static":
        for name in confidence:
            b = p.buffer(f"dspark_draft.{name}")
            assert (b.shape, b.spec.dtype) == ((8, 4), "float32")
    if mode == "compact":
        assert p.buffer(f"{COMPONENT}.strided_hidden").shape == (8 * 5, 3 * 32)
        assert p.buffer(f"{COMPONENT}.strided_logits").shape == (8 * 5, 500)
        assert p.buffer(f"{COMPONENT}.out_tokens").shape == (8, 5)


def test_compact_keeps_sglangs_refusals_and_needs_the_layers() -> None:
    for kw in ({"options": {"two_batch_overlap": True}}, {"cuda_graph_padding": False}):
        with pytest.raises(ConfigError, match="two-batch-overlap"):
            plan(sg("compact", max_num_seqs=8, speculative_num_draft_tokens=4, **kw))
    with pytest.raises(ConfigError, match="dspark_target_layers: N"):
        plan(sg("compact", max_num_seqs=8, speculative_num_draft_tokens=4,
                options={"dspark_target_layers": None}))
    # no decode graphs: no compact graphs, no epilogue (dspark_worker_v2.py:409-412)
    off = plan(sg("compact", max_num_seqs=8, speculative_num_draft_tokens=4,
                  cudagraph_mode="NONE"))
    assert COMPONENT not in off.keyed


LINE = ["plan", "--json", "--", "python", "-m", "sglang.launch_server", "--model-path", "m",
        "--speculative-algorithm", "DSPARK", "--max-running-requests", "8",
        "--cuda-graph-max-bs-decode", "8"]


@pytest.mark.parametrize(("draft", "layers"), [
    ({"dspark_target_layer_ids": [1, 5, 9, 13]}, 4),
    ({"dflash_config": {"target_layer_ids": [2, 6]}, "num_hidden_layers": 5}, 2),
    ({"target_layer_ids": [3]}, 1),
    ({"num_hidden_layers": 5}, 5),  # one captured layer per draft layer
])
def test_pasted_compact_line_reads_the_captured_layers(tmp_path: Path, draft: dict[str, object],
                                                       layers: int) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"block_size": 3, **WORKER, **draft}))
    code, out, err = run_cli([*LINE[:3], "SGLANG_RAGGED_VERIFY_MODE=compact", *LINE[3:],
                              "--speculative-draft-model-path", str(tmp_path)])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["config"]["options"]["dspark_target_layers"] == layers
    assert COMPONENT in doc["keyed_components"]
    code, out, err = run_cli([*LINE[:3], "SGLANG_RAGGED_VERIFY_MODE=cap-accept", *LINE[3:],
                              "--speculative-draft-model-path", str(tmp_path)])
    assert code == 0, err
    assert "sampler_confidence_raw_out" in out and COMPONENT not in json.loads(out).get(
        "keyed_components", {})


def test_a_bad_layer_list_is_refused(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"block_size": 3,
                                                      "dspark_target_layer_ids": []}))
    code, _, err = run_cli([*LINE[:3], "SGLANG_RAGGED_VERIFY_MODE=compact", *LINE[3:],
                            "--speculative-draft-model-path", str(tmp_path)])
    assert code == 2 and "dspark_target_layer_ids" in err


def test_a_hub_draft_under_compact_names_the_option_to_give(tmp_path: Path) -> None:
    """A hub-id draft (no local config.json): graphfit cannot count the target layers the
    epilogue's strided hidden holds; one `error:` line says which option gives them, and
    giving it through --config plans the line with that count."""
    line = [*LINE[3:], "--speculative-draft-model-path", "org/dspark-draft",
            "--speculative-dspark-block-size", "3"]
    code, _, err = run_cli([*LINE[:3], "SGLANG_RAGGED_VERIFY_MODE=compact", *line])
    errors = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2 and len(errors) == 1 and errors[0].startswith("error: ")
    assert len(errors[0]) <= 200 and "--config FILE with dspark_target_layers: N" in errors[0]
    (tmp_path / "layers.yaml").write_text("dspark_target_layers: 3\n")
    code, out, err = run_cli(["plan", "--json", "--config", str(tmp_path / "layers.yaml"),
                              "--", "SGLANG_RAGGED_VERIFY_MODE=compact", *line])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["config"]["options"]["dspark_target_layers"] == 3
    assert COMPONENT in doc["keyed_components"]
