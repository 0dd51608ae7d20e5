"""How the expert-remap flags are read (graphfit.inputs.sglang_eplb) and what reaches the
planner: each flag sets its option and says what graphfit models of it; a bad value is one
error; a Nemotron-H / HYV4 checkpoint's config.json quantization_config reaches
SglangOptions.hf_config_quant ("absent" without one), another class's does not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphfit.inputs import model_config, sglang_eplb
from graphfit.planner.core.errors import ConfigError


@pytest.mark.parametrize(("key", "value", "parsed"), [
    ("enable_eplb", True, True), ("enable_eplb", "false", False),
    ("ep_num_redundant_experts", "2", 2), ("ep_num_redundant_experts", 0, 0),
    ("init_expert_location", "/tmp/loc.json", "/tmp/loc.json")])
def test_each_flag_sets_its_option_and_notes_the_rest(key: str, value: object,
                                                      parsed: object) -> None:
    settings, notes = sglang_eplb.KEYS[key](f"--{key}", value, 1)
    assert {s.field: s.value for s in settings}[key] == parsed
    assert notes and "not modelled" in notes[0] and "nemotron_h.py" in notes[0]


@pytest.mark.parametrize(("key", "value"), [
    ("enable_eplb", "maybe"), ("ep_num_redundant_experts", -1),
    ("ep_num_redundant_experts", "1.5"), ("init_expert_location", 3)])
def test_a_bad_value_is_one_error(key: str, value: object) -> None:
    with pytest.raises(ConfigError) as info:
        sglang_eplb.KEYS[key](f"--{key}", value, 1)
    assert len(str(info.value)) <= 200 and "\n" not in str(info.value)


@pytest.mark.parametrize(("arch", "quant", "expected"), [
    ("NemotronHForCausalLM", None, "absent"),
    ("HYV4ForCausalLM", {"quantization": {"quant_algo": "MXFP8"}}, "MXFP8"),
    ("NemotronHForCausalLM", {"quant_method": "modelopt", "quant_algo": "NVFP4"},
     "modelopt_fp4"),
    ("LlamaForCausalLM", {"quant_method": "modelopt", "quant_algo": "FP8"}, None)])
def test_the_dict_the_overrides_read_reaches_the_options(
        tmp_path: Path, arch: str, quant: dict[str, object] | None,
        expected: str | None) -> None:
    config: dict[str, object] = {"architectures": [arch]}
    if quant is not None:
        config["quantization_config"] = quant
    (tmp_path / "config.json").write_text(json.dumps(config))
    (tmp_path / "hf_quant_config.json").write_text(json.dumps(
        {"quantization": {"quant_algo": "FP8"}}))
    found = {s.field: s.value for s in model_config.quant_settings(str(tmp_path))}
    value = found.get("hf_config_quant")
    if expected is None:
        assert value is None
    else:  # "absent", or the in-place ModelOpt parse (the method written over it)
        assert value is not None and expected in value


@pytest.mark.parametrize(("key", "value", "parsed", "cited"), [
    ("ep_size", "4", 4, "parallel_hook.py:750-791"),
    ("ep_join_mode", "scale", "scale", "parallel_hook.py:790-791"),
    ("ep_dispatch_algorithm", "static", "static", "parallel_hook.py:762-788"),
    ("moe_dp_size", "2", 2, "parallel_hook.py:170-193"),
    ("ep_join_rank_offset", "-1", -1, "parallel_hook.py:519-581"),
    ("max_ep_size", 0, 0, "parallel_hook.py:519-581"),
    ("enable_waterfill", True, True, "overrides.py:1595-1607"),
    ("dwdp_size", "2", 2, "parallel_hook.py:433-457"),
    ("enable_aiter_allreduce_fusion", True, True, "parallel_hook.py:166-168, 185-187"),
    ("rl_on_policy_target", "fsdp", "fsdp", "attention_hook.py:585-607")])
def test_the_ep_flags_set_their_options(key: str, value: object, parsed: object,
                                        cited: str) -> None:
    settings, notes = sglang_eplb.KEYS[key](f"--{key}", value, 1)
    assert {s.field: s.value for s in settings}[key] == parsed
    assert notes and cited in notes[0]


@pytest.mark.parametrize("key", ["ep_size", "moe_dp_size"])
def test_a_size_below_one_is_one_error(key: str) -> None:
    with pytest.raises(ConfigError) as info:
        sglang_eplb.KEYS[key](f"--{key}", 0, 1)
    assert len(str(info.value)) <= 200 and "\n" not in str(info.value)


@pytest.mark.parametrize(("arch", "blocks", "expected"), [
    ("NemotronHPuzzleForCausalLM", [{"block_type": "mamba"},
                                    {"block_type": "moe", "n_routed_experts": 64},
                                    {"block_type": "moe", "n_routed_experts": 128}], (64, 128)),
    ("NemotronHPuzzleForCausalLM", [{"block_type": "moe", "n_routed_experts": "64"}], None),
    ("NemotronHPuzzleForCausalLM", "not a list", None),
    ("NemotronHForCausalLM", [{"block_type": "moe", "n_routed_experts": 8}], None)])
def test_a_puzzles_block_expert_counts_reach_the_options(
        tmp_path: Path, arch: str, blocks: object, expected: tuple[int, ...] | None) -> None:
    """block_configs' MoE counts, in order, for NemotronHPuzzle only; anything not plain
    leaves them unread (the remap rule then says not modelled)."""
    (tmp_path / "config.json").write_text(json.dumps({"architectures": [arch],
                                                      "block_configs": blocks}))
    found = {s.field: s.value for s in model_config.quant_settings(str(tmp_path))}
    assert found.get("moe_block_experts") == expected
