"""graphfit.inputs.sglang_dspark_parse.worker_problem and its refusal on a pasted DSPARK line:
the DSPARK worker's start-up checks (a Markov head, a mask token id below the target's
vocabulary). tests/oracle/test_sglang_dspark_oracle.py compares them with SGLang's own
`resolve_runtime_config`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from graphfit.inputs.sglang_dspark_parse import DsparkDraft, worker_problem
from tests.helpers import run_cli


@given(rank=st.integers(0, 4), mask=st.none() | st.integers(0, 300),
       vocab=st.none() | st.integers(1, 300))
def test_the_worker_starts_only_with_a_head_and_a_mask_in_the_vocabulary(
        rank: int, mask: int | None, vocab: int | None) -> None:
    problem = worker_problem(DsparkDraft(7, None, markov_rank=rank, mask_token_id=mask), vocab)
    starts = rank > 0 and mask is not None and (vocab is None or mask < vocab)
    assert (problem is None) is starts


def test_a_parse_problem_comes_first() -> None:
    assert worker_problem(DsparkDraft(problem="bad"), 10) == "bad"


def _dir(root: Path, name: str, config: dict[str, Any]) -> str:
    # 4 layers: a 2-layer target beside these drafts is one SGLang's target runner refuses
    # (graphfit.inputs.sglang_dflash_layers)
    directory = root / name
    directory.mkdir()
    (directory / "config.json").write_text(json.dumps({
        "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 1024,
        "num_hidden_layers": 4, "num_attention_heads": 8, "vocab_size": 1000,
        "torch_dtype": "bfloat16", **config}))
    return str(directory)


def _refused_in_one_line(target: str, draft: str, said: str) -> None:
    """The pasted DSPARK line with `draft` exits 2 with one `error:` line (<= 200 chars)
    that holds `said`."""
    code, _, text = run_cli(["plan", "--json", "--", "python", "-m", "sglang.launch_server",
                             "--model-path", target, "--speculative-algorithm", "DSPARK",
                             "--speculative-draft-model-path", draft])
    errors = [ln for ln in text.splitlines() if ln.startswith("error:")]
    assert code == 2 and len(errors) == 1 and said in errors[0], text
    assert len(errors[0]) <= 200, errors[0]


def test_a_pasted_line_is_refused_in_one_line(tmp_path: Path) -> None:
    target = _dir(tmp_path, "target", {})
    head = {"markov_rank": 1, "markov_head_type": "vanilla"}
    for name, fields, said in (("norank", {"mask_token_id": 3}, "markov_rank > 0"),
                               ("nomask", head, "mask_token_id to be set"),
                               ("far", {**head, "mask_token_id": 1000}, "vocab size 1000")):
        _refused_in_one_line(target, _dir(tmp_path, name * 20, fields), said)


def test_the_override_args_reach_the_draft_and_the_targets_rows(tmp_path: Path) -> None:
    """`--json-model-override-args` applies to the draft's config and the target's, as
    SGLang's get_config does for both ModelConfigs (model_config.py:612-626): the gamma,
    the worker checks and the vocabulary bound follow the overridden values."""
    target = _dir(tmp_path, "target", {})
    draft = _dir(tmp_path, "draft", {"markov_rank": 1, "markov_head_type": "vanilla",
                                     "mask_token_id": 999, "dspark_block_size": 4})

    def plan(override: dict[str, Any]) -> tuple[int, str]:
        code, out, err = run_cli(["plan", "--json", "--", "python", "-m",
                                  "sglang.launch_server", "--model-path", target,
                                  "--speculative-algorithm", "DSPARK",
                                  "--speculative-draft-model-path", draft,
                                  "--json-model-override-args", json.dumps(override)])
        return code, out if code == 0 else err

    code, out = plan({"dspark_block_size": 6})
    assert code == 0 and json.loads(out)["config"]["speculative_num_draft_tokens"] == 7
    code, out = plan({"sample_from_anchor": "false"})  # bool("false"): samples the anchor
    assert code == 0 and json.loads(out)["config"]["options"]["dspark_samples_anchor"] is True
    code, out = plan({"markov_rank": 0})
    assert code == 2 and "markov_rank > 0" in out
    code, out = plan({"vocab_size": 999})  # the target's rows shrink under the mask id
    assert code == 2 and "vocab size 999" in out


def test_minimax_and_deepseek_v4_drafts_are_refused_in_one_line(tmp_path: Path) -> None:
    """A MiniMax M3.1 draft: SGLang's rewrite reason when it raises, its model constructor's
    when that raises (no `use_gemma_norm`); a DeepSeek-V4 draft: not modelled
    (graphfit.inputs.sglang_dspark_minimax / sglang_dspark)."""
    target = _dir(tmp_path, "target", {})
    minimax = {"architectures": ["DSparkMiniMaxDraftModel"],
               "dspark_config": {"use_dense_ffn": True, "ffn_hidden_size": 512},
               "dspark_block_size": 4, "dspark_markov_rank": 1, "dspark_noise_token_id": 7,
               "dflash_config": {"num_target_layers": 4, "num_hidden_layers": 1,
                                 "target_layer_ids": [0, 3]}}
    for name, fields, said in (
            ("mm", minimax, "no attribute 'use_gemma_norm'"),
            ("mmsparse", {**minimax, "dspark_config": {}}, "dense draft FFN"),
            ("mmids", {**minimax, "dflash_config": {**minimax["dflash_config"],
                                                    "target_layer_ids": [4]}}, "capture layer"),
            # issue 23 s68c: with the top-level keys SGLang's ModelConfig reads for V4
            # (configs/model_config.py:1423-1429), else that read fails first
            ("v4", {"architectures": ["DeepseekV4ForCausalLM"], "markov_rank": 1,
                    "markov_head_type": "vanilla", "mask_token_id": 3, "qk_rope_head_dim": 64,
                    "sliding_window": 128, "index_head_dim": 128, "compress_ratios": [1]},
             "DeepSeek-V4 (MoE)")):
        _refused_in_one_line(target, _dir(tmp_path, name * 12, fields), said)


def test_a_minimax_draft_at_tp2_reads_the_line_environment(tmp_path: Path) -> None:
    """A MiniMax M3.1 draft at TP 2 (graphfit.inputs.sglang_dspark_minimax_tp): SGLang's
    defaults keep an NVLink-multicast vocab gather the GPUs decide (not modelled); the pasted
    line's `SGLANG_DSPARK_NVLINK_VOCAB_GATHER=0` prefix or --disable-custom-all-reduce takes
    the NCCL ring (planned), as does the V2 pull plane switched off (s45a); an unparsable
    value keeps SGLang's default (environ.py:67-86).
    The rules' agreement with SGLang's own attach: test_sglang_dspark_minimax_oracle.py."""
    target = _dir(tmp_path, "target", {})
    draft = _dir(tmp_path, "minimax", {
        "architectures": ["DSparkMiniMaxDraftModel"], "use_gemma_norm": False,
        "num_key_value_heads": 2, "rms_norm_eps": 1e-5, "hidden_act": "silu",
        "qk_norm_type": "per_head",
        "dspark_config": {"use_dense_ffn": True, "ffn_hidden_size": 512},
        "dspark_block_size": 4, "dspark_markov_rank": 1, "dspark_noise_token_id": 7,
        "dflash_config": {"num_target_layers": 4, "num_hidden_layers": 1,
                          "target_layer_ids": [0, 3]}})
    for prefix, flags, planned in (((), (), False),
                                   (("SGLANG_DSPARK_NVLINK_VOCAB_GATHER=0",), (), True),
                                   (("SGLANG_DSPARK_NVLINK_VOCAB_GATHER=maybe",), (), False),
                                   ((), ("--disable-custom-all-reduce",), True),
                                   (("SGLANG_OPT_USE_CUSTOM_ALL_REDUCE_V2=0",), (), True),
                                   # the V2 pull plane off: no pull_out (s45a)
                                   (("SGLANG_FORCE_CUSTOM_ALL_REDUCE_V2_PULL_SIZE_KB=0",), (),
                                    True),
                                   (("SGLANG_CUSTOM_ALL_REDUCE_V2_MAX_SIZE_KB=0",
                                     "SGLANG_FORCE_CUSTOM_ALL_REDUCE_V2_PULL_SIZE_KB=8"), (),
                                    False)):
        code, _, text = run_cli(["plan", "--json", "--", *prefix, "python", "-m",
                                 "sglang.launch_server", "--model-path", target,
                                 "--speculative-algorithm", "DSPARK", "--tp-size", "2",
                                 "--speculative-draft-model-path", draft, *flags])
        errors = [ln for ln in text.splitlines() if ln.startswith("error:")]
        if planned:
            assert code == 0 and not errors, text
        else:
            assert code == 2 and len(errors) == 1 and "NVLink multicast" in errors[0], text


def test_a_minimax_draft_under_attention_dp_reads_the_targets_lm_head(tmp_path: Path) -> None:
    """Under attention DP with --enable-dp-lm-head (graphfit.inputs.sglang_dspark._lm_group):
    an untied Llama target shards its lm_head on the attention-TP group (llama.py:573-579),
    so at TP 4 / DP 4 (attention TP 1) SGLang's attach gathers nothing and the draft is planned
    even on SGLang's defaults; a tied Llama serves its embed_tokens on the full TP group
    (llama.py:432-437, 570-571): TP 4's multicast gather, not modelled; Qwen2 is the other way
    round (untied head on the TP group, qwen2.py:539-544; tied embed_tokens on the attention-TP
    group, qwen2.py:370-375, 536-537), Qwen3's head is on the attention-TP group
    (qwen3.py:582-589); a target class graphfit has not read is not modelled. The rules'
    agreement with SGLang: test_sglang_dspark_minimax_oracle.py (the attach),
    test_sglang_dspark_target_head_oracle.py (the target classes' lm_head group)."""
    draft = _dir(tmp_path, "minimax", {
        "architectures": ["DSparkMiniMaxDraftModel"], "use_gemma_norm": False,
        "num_key_value_heads": 2, "rms_norm_eps": 1e-5, "hidden_act": "silu",
        "dspark_config": {"use_dense_ffn": True, "ffn_hidden_size": 512},
        "dspark_block_size": 4, "dspark_markov_rank": 1, "dspark_noise_token_id": 7,
        "dflash_config": {"num_target_layers": 4, "num_hidden_layers": 1,
                          "target_layer_ids": [0, 3]}})
    # the draft's derived context (2048, Llama's default) must not be below the target's
    qwen2 = {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2",
             "max_position_embeddings": 2048}
    for name, fields, said in (
            ("untied", {}, None),
            ("tied", {"tie_word_embeddings": True}, "NVLink multicast"),
            ("qwen2", {**qwen2}, "NVLink multicast"),
            ("qwen2tied", {**qwen2, "tie_word_embeddings": True}, None),
            ("qwen3", {**qwen2, "architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3"},
             None),
            ("other", {"architectures": ["GemmaForCausalLM"], "model_type": "gemma"},
             "its model class decides")):
        target = _dir(tmp_path, name, fields)
        code, _, text = run_cli(["plan", "--json", "--", "python", "-m",
                                 "sglang.launch_server", "--model-path", target,
                                 "--speculative-algorithm", "DSPARK", "--tp-size", "4",
                                 "--dp-size", "4", "--enable-dp-attention",
                                 "--enable-dp-lm-head", "--speculative-draft-model-path",
                                 draft])
        errors = [ln for ln in text.splitlines() if ln.startswith("error:")]
        if said is None:
            assert code == 0 and not errors, (name, text)
        else:
            assert code == 2 and len(errors) == 1 and said in errors[0], (name, text)
            assert len(errors[0]) <= 200, errors[0]
