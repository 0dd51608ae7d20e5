"""graphfit.inputs.sglang_spec_dp without SGLang's sources: the pasted line's attention-DP
rules (SGLang's own behaviour: tests/oracle/test_sglang_spec_dp_oracle.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphfit.inputs import sglang_spec_dp
from graphfit.planner.core.errors import ConfigError


def _draft(tmp_path: Path, arch: str) -> str:
    (tmp_path / "config.json").write_text(json.dumps({
        "architectures": [arch], "markov_rank": 1, "markov_head_type": "vanilla",
        "mask_token_id": 0}))  # the DSPARK worker requires both (dspark_config.py:94-128)
    return str(tmp_path)


def _values(draft: str, **extra: object) -> dict[str, object]:
    return {"speculative_algorithm": "DSPARK", "speculative_draft_model_path": draft,
            "tp_size": 4, "attn_dp_size": 2, "enable_dp_lm_head": True, **extra}


def test_dense_local_draft_passes(tmp_path: Path) -> None:
    sglang_spec_dp.line(_values(_draft(tmp_path, "LlamaForCausalLM")))


@pytest.mark.parametrize(("tp", "words"), [(2, "not modelled"), (4, "attn_tp == 1")])
def test_deepseek_v4_draft_is_refused(tmp_path: Path, tp: int, words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        sglang_spec_dp.line(_values(_draft(tmp_path, "DeepseekV4ForCausalLM"), tp_size=tp))


def test_override_args_name_the_architecture(tmp_path: Path) -> None:
    values = _values(_draft(tmp_path, "LlamaForCausalLM"), json_model_override_args=json.dumps(
        {"architectures": ["DeepseekV4ForCausalLMDSpark"]}), tp_size=2)
    with pytest.raises(ConfigError, match="not modelled"):
        sglang_spec_dp.line(values)


def test_unreadable_draft_is_refused_under_dp_only() -> None:
    with pytest.raises(ConfigError, match="to tell them apart"):
        sglang_spec_dp.line(_values("org/hub-draft"))
    sglang_spec_dp.line(_values("org/hub-draft", attn_dp_size=1))  # no attention DP


def test_deprecated_dp_attention_counts() -> None:
    values = {"speculative_algorithm": "DSPARK", "speculative_draft_model_path": "org/x",
              "dp_size": 2, "enable_dp_attention": True, "attn_dp_size": 1}
    with pytest.raises(ConfigError, match="tell them apart"):
        sglang_spec_dp.line(values)


def test_dp_lm_head_with_replicas_only_is_sglangs_assert() -> None:
    with pytest.raises(ConfigError, match="requires attention DP"):
        sglang_spec_dp.line({"enable_dp_lm_head": True, "dp_size": 2, "attn_dp_size": 1})
    sglang_spec_dp.line({"enable_dp_lm_head": True, "dp_size": 1, "attn_dp_size": 1})


def test_live_path_reads_the_draft_kind(tmp_path: Path) -> None:
    """The live check's reader (graphfit.inputs.sglang_live) refuses the same draft."""
    from graphfit.inputs.sglang_live import config_settings

    server_args = _values(_draft(tmp_path, "DeepseekV4ForCausalLM"), tp_size=2)
    with pytest.raises(ConfigError, match="not modelled"):
        config_settings(server_args)
    # no attention DP: not this rule, but the DSPARK reader's own (a MoE draft, not modelled)
    with pytest.raises(ConfigError, match=r"DeepSeek-V4 \(MoE\) DSPARK draft"):
        config_settings({**server_args, "attn_dp_size": 1})


def test_the_plan_says_how_each_runner_keys() -> None:
    from graphfit import EngineConfig, plan

    config = EngineConfig(engine="sglang", spec_method="dspark", max_num_seqs=16,
                          speculative_num_draft_tokens=4,
                          options={"tp_size": 4, "attn_dp_size": 2, "enable_dp_lm_head": True})
    shown = dict(plan(config).engine_inputs)["attn_dp_size"]
    assert "largest rank's batch" in shown and "rank's own batch" in shown


def test_the_plan_says_how_compact_verify_keys() -> None:
    """Compact ragged verify under attention DP is planned; the input line says the target
    keys by the rank's own tier (sglang_spec_dp.compact_requests)."""
    from graphfit import EngineConfig, plan

    options = {"tp_size": 4, "attn_dp_size": 2, "enable_dp_lm_head": True,
               "ragged_verify_mode": "compact", "dspark_target_layers": 2}
    config = EngineConfig(engine="sglang", spec_method="dspark", max_num_seqs=16,
                          speculative_num_draft_tokens=4, options=options)
    planned = plan(config)
    shown = dict(planned.engine_inputs)["attn_dp_size"]
    assert "rank's own tier" in shown and "largest rank's batch" not in shown
    assert "target_compact" in planned.keyed


@pytest.mark.parametrize(("raw", "value"), [("1", True), ("TRUE", True), ("y", True),
                                            ("0", False), ("No", False), ("maybe", None),
                                            ("", None)])
def test_coordination_variable_is_read_as_sglangs_envbool(raw: str, value: bool | None) -> None:
    """EnvBool's spellings (environ.py:143-150); another value keeps the default off
    (environ.py:67-86): no setting."""
    found = {s.field: s.value for s in sglang_spec_dp.environment(
        {sglang_spec_dp.COORDINATION: raw})}
    assert found.get("dp_spec_prefill_coordination") == value


def test_coordination_refuses_dflash_with_sglangs_reason() -> None:
    from graphfit import EngineConfig, plan

    with pytest.raises(ConfigError, match="single-layer EAGLE, EAGLE3 or DSPARK"):
        plan(EngineConfig(engine="sglang", spec_method="dflash", max_num_seqs=16,
                          speculative_num_draft_tokens=4,
                          options={"dp_spec_prefill_coordination": True}))
