"""SGLang 0.5.23 DSPARK (graphfit.planner.engines.sglang_dspark): resolution, the draft's own
decode-graph runner of width gamma (= num_draft_tokens - 1), its folded sampler's buffers, the
refusals, the pasted-line flags.

(tests/oracle/test_sglang_dspark_oracle.py compares all of it with SGLang's own code.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit import ConfigError, EngineConfig, SpecMethod, plan
from graphfit.inputs.sglang import algorithm
from graphfit.testing import sglang_configs
from tests.helpers import run_cli
from tests.planner.block_draft_checks import (
    assert_draft_pads_within_its_buffers,
    captured_draft,
)


def sg(**kw: object) -> EngineConfig:
    return EngineConfig.from_dict({"engine": "sglang", "spec_method": "dspark", **kw})


def test_dspark_is_read_by_name() -> None:
    assert algorithm("--speculative-algorithm", "dspark") is SpecMethod.DSPARK


def test_dspark_runners() -> None:
    p = plan(sg(max_num_seqs=20, speculative_num_draft_tokens=8, num_speculative_tokens=3,
                speculative_eagle_topk=4, max_cudagraph_capture_size=16, vocab_size=1000))
    assert (p.config.num_speculative_tokens, p.config.speculative_eagle_topk) == (1, 1)
    assert set(p.components) == {"target", "dspark_draft", "prefill"}
    assert p.components["target"].tables.uniform_query_len == 8  # anchor + gamma
    assert p.components["dspark_draft"].tables.uniform_query_len == 7  # gamma
    assert p.buffer("dspark_draft.input_ids").shape == (16 * 7,)
    assert p.buffer("dspark_draft.sampler_out").shape == (16 * 7,)
    assert p.buffer("dspark_draft.sampler_step_logits").shape == (16, 7, 1000)
    assert p.buffer("dspark_draft.sampler_greedy_mask").shape == (16,)
    assert p.verify().ok
    # a draft that does not sample from the anchor row: gamma + 1 rows, the sampler unchanged
    wide = plan(sg(max_num_seqs=20, speculative_num_draft_tokens=8, vocab_size=1000,
                   max_cudagraph_capture_size=16, options={"dspark_samples_anchor": False}))
    assert wide.components["dspark_draft"].tables.uniform_query_len == 8
    assert wide.buffer("dspark_draft.input_ids").shape == (16 * 8,)
    assert wide.buffer("dspark_draft.sampler_out").shape == (16 * 7,)
    off = plan(sg(max_num_seqs=8, speculative_num_draft_tokens=4, cudagraph_mode="NONE"))
    assert "dspark_draft" not in off.components or not off.graph_sizes("dspark_draft")


@pytest.mark.parametrize(("kw", "needle"), [
    ({}, "--speculative-dspark-block-size"),
    ({"speculative_num_draft_tokens": 1}, r"2\.\.|>= 2"),
    ({"speculative_num_draft_tokens": 4, "tp_size": 2, "attn_dp_size": 2}, "enable-dp-lm-head"),
    ({"speculative_num_draft_tokens": 4, "pp_size": 2}, "pp_size 1"),
])
def test_dspark_refusals(kw: dict[str, object], needle: str) -> None:
    with pytest.raises(ConfigError, match=needle):
        plan(sg(max_num_seqs=8, **kw))


@given(sglang_configs(max_seqs=64, methods=("dspark",)), st.integers(1, 64))
def test_dspark_draft_pads_within_its_buffers(config: EngineConfig, bs: int) -> None:
    """Every draft batch pads to a captured size whose gamma rows the buffers hold, and the
    sampler holds gamma tokens (and gamma x vocab step logits) of every captured request."""
    p = plan(config)
    gamma = p.config.speculative_num_draft_tokens - 1
    found = captured_draft(p, "dspark_draft")
    if found is None:
        return
    width, sizes = found
    assert width == (gamma if p.config.dspark_samples_anchor else gamma + 1)
    names = {b.name for b in p.components["dspark_draft"].buffers}
    proposal = p.config.dspark_proposal  # SGLang's environment (sglang_dspark_modes)
    assert ("sampler_out" in names) == (proposal != "eager")
    assert ("sampler_step_logits" in names) == (proposal == "sampling")
    if proposal != "eager":
        assert p.buffer("dspark_draft.sampler_out").capacity >= max(sizes) * gamma
    if proposal == "sampling":
        assert p.buffer("dspark_draft.sampler_step_logits").shape[:2] >= (max(sizes), gamma)
    assert_draft_pads_within_its_buffers(p, "dspark_draft", bs, gamma)


LINE = ["plan", "--json", "--", "python", "-m", "sglang.launch_server", "--model-path", "m",
        "--speculative-algorithm", "DSPARK"]


def test_pasted_dspark_line_rules() -> None:
    code, _, err = run_cli([*LINE, "--speculative-dspark-block-size", "7"])
    assert code == 2 and "--speculative-draft-model-path" in err
    draft = ["--speculative-draft-model-path", "d"]
    code, _, err = run_cli([*LINE, *draft, "--speculative-num-draft-tokens", "8",
                            "--speculative-dspark-block-size", "4"])
    assert code == 2 and "dspark-block-size gives 5" in err  # SGLang: :826-835
    code, _, err = run_cli([*LINE, *draft, "--speculative-dspark-block-size", "0"])
    assert code == 2 and "positive" in err  # SGLang: :807-812
    code, _, err = run_cli([*LINE, *draft])
    assert code == 2 and "dspark-block-size" in err  # a draft graphfit cannot read
    code, out, _ = run_cli([*LINE, *draft, "--speculative-dspark-block-size", "4",
                            "--speculative-num-draft-tokens", "5"])
    assert code == 0 and '"dspark_draft"' in out and '"speculative_num_draft_tokens": 5' in out
    # another algorithm's line ignores the DSPARK block size (SGLang reads it for DSPARK only)
    code, out, _ = run_cli([*LINE[:-1], "EAGLE", "--speculative-num-steps", "3",
                            "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens",
                            "4", "--speculative-dspark-block-size", "9"])
    assert code == 0 and '"speculative_num_draft_tokens": 4' in out


def test_rehearse_captures_the_dspark_draft() -> None:
    """`graphfit rehearse` allocates the plan's buffers (the sampler's step logits included),
    captures the target and the DSPARK draft graphs on CPU and replays them == eager."""
    code, out, text = run_cli(["rehearse", "--engine", "sglang", "--hidden-size", "64",
                               "--vocab-size", "256", "--", "python", "-m",
                               "sglang.launch_server", "--model-path", "/nonexistent",
                               "--max-running-requests", "6", "--speculative-algorithm",
                               "DSPARK", "--speculative-draft-model-path", "/nonexistent",
                               "--speculative-dspark-block-size", "3",
                               "--cuda-graph-max-bs-decode", "4"])
    assert code == 0, text[-400:]
    for name in ("target", "dspark_draft"):
        assert f"{name}: 4 graphs captured, 4 replayed == eager" in out
    assert "REHEARSED" in out


def test_pasted_line_reads_a_local_draft(tmp_path: Path) -> None:
    """gamma from the draft's config.json unless the flag gives it (7 when it names none), a
    window that is not gamma + 1 refused, sample_from_anchor read."""
    def line(config: dict[str, object], *extra: str) -> tuple[int, dict[str, Any], str]:
        draft = tmp_path / f"d{len(list(tmp_path.iterdir()))}"
        draft.mkdir()
        # the Markov head and mask token id SGLang's worker requires (dspark_config.py:94-128)
        worker = {"markov_rank": 1, "markov_head_type": "vanilla", "mask_token_id": 0}
        (draft / "config.json").write_text(json.dumps({**worker, **config}))
        code, out, err = run_cli([*LINE, "--speculative-draft-model-path", str(draft), *extra])
        return code, (json.loads(out)["config"] if code == 0 else {}), err

    code, c, _ = line({"dflash_config": {"block_size": 5}, "sample_from_anchor": False})
    assert code == 0 and c["speculative_num_draft_tokens"] == 6
    assert c["options"]["dspark_samples_anchor"] is False
    code, c, _ = line({"block_size": 5}, "--speculative-dspark-block-size", "2")
    assert code == 0 and c["speculative_num_draft_tokens"] == 3
    assert c["options"]["dspark_samples_anchor"] is True
    code, c, _ = line({})
    assert code == 0 and c["speculative_num_draft_tokens"] == 8  # SGLang's default gamma 7
    code, c, _ = line({}, "--speculative-num-draft-tokens", "4")
    assert code == 0 and c["speculative_num_draft_tokens"] == 4
    code, _, err = line({"dspark_block_size": 3}, "--speculative-num-draft-tokens", "5")
    assert code == 2 and "gamma 3 + 1" in err
    # SGLang takes bool() of any value (dspark_config.py:29-31): "no" is true, 0 false
    for value, anchor in (("no", True), (0, False)):
        code, c, _ = line({"sample_from_anchor": value}, "--speculative-dspark-block-size", "2")
        assert code == 0 and c["options"]["dspark_samples_anchor"] is anchor


def test_config_file_option(tmp_path: Path) -> None:
    """`dspark_samples_anchor` in a --config file (a hub draft's sample_from_anchor)."""
    path = tmp_path / "c.yaml"
    path.write_text("engine: sglang\nspec_method: dspark\nspeculative_num_draft_tokens: 4\n"
                    "dspark_samples_anchor: 'false'\nmax_num_seqs: 8\n")
    code, out, err = run_cli(["plan", "--config", str(path), "--json"])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["config"]["options"]["dspark_samples_anchor"] is False


@given(gamma=st.integers(1, 12), s=st.integers(1, 300),
       proposal=st.sampled_from(["sampling", "greedy", "eager"]), mid=st.booleans())
def test_environment_modes_shape_the_sampler(gamma: int, s: int, proposal: str,
                                             mid: bool) -> None:
    """SGLang's DSPARK environment modes (graphfit.planner.engines.sglang_dspark_modes): no
    sampler when the proposal stays eager, no step logits for a greedy draft, verify_ids
    [max_bs, gamma + 1] under the mid fold; whatever is planned holds every captured size."""
    p = plan(sg(max_num_seqs=s, speculative_num_draft_tokens=gamma + 1, vocab_size=1000,
                options={"dspark_proposal": proposal, "dspark_mid_fold": mid}))
    sizes = p.graph_sizes("dspark_draft")
    names = {b.name for b in p.components["dspark_draft"].buffers
             if b.name.startswith("sampler_")}
    if proposal == "eager":
        assert names == set()
        return
    assert ("sampler_step_logits" in names) == (proposal == "sampling")
    assert ("sampler_verify_ids" in names) == mid
    for name in names:
        b = p.buffer(f"dspark_draft.{name}")
        per_request = gamma if name == "sampler_out" else 1
        assert all(bs * per_request <= b.shape[0] for bs in sizes), name
    if mid:
        assert p.buffer("dspark_draft.sampler_verify_ids").shape[1:] == (gamma + 1,)
    assert p.verify().ok


@pytest.mark.parametrize(("env", "needle"), [
    # compact is planned (tests/planner/test_sglang_dspark_epilogue.py), but its strided
    # hidden needs the captured target layers, which a hub-id draft does not give graphfit
    ("SGLANG_RAGGED_VERIFY_MODE=compact", "dspark_target_layers: N"),
    ("SGLANG_RAGGED_VERIFY_MODE=COMPACT", "SGLang raises at start-up"),
])
def test_pasted_ragged_verify_modes_are_refused(env: str, needle: str) -> None:
    code, _, err = run_cli([*LINE[:3], env, *LINE[3:], "--speculative-draft-model-path", "d",
                            "--speculative-dspark-block-size", "3"])
    assert code == 2 and needle in err and len(err.strip().splitlines()[-1]) <= 200


def test_pasted_line_reads_the_dspark_environment() -> None:
    """The VAR=value prefix of a pasted DSPARK line sets the modes; another algorithm's line
    ignores them (SGLang reads the ragged mode for DSPARK only, spec_info.py:160-164)."""
    code, out, err = run_cli([*LINE[:3], "SGLANG_DSPARK_USE_GREEDY_DRAFT=yes",
                              "SGLANG_OPT_DSV41_DSPARK_MID_FOLD=1", *LINE[3:],
                              "--speculative-draft-model-path", "d",
                              "--speculative-dspark-block-size", "3"])
    assert code == 0, err
    options = json.loads(out)["config"]["options"]
    assert (options["dspark_proposal"], options["dspark_mid_fold"]) == ("greedy", True)
    assert "sampler_verify_ids" in out
    assert "sampler_step_logits" not in out
    code, out, err = run_cli([*LINE[:3], "SGLANG_RAGGED_VERIFY_MODE=compact", *LINE[3:-1],
                              "EAGLE", "--speculative-num-steps", "3",
                              "--speculative-eagle-topk", "1",
                              "--speculative-num-draft-tokens", "4"])
    assert code == 0, err
