"""A pasted SGLang UNO line on a MoE model (graphfit.inputs.sglang_uno_moe): the adapter's
adapter_config.json read at --uno-lora-path; an adapter on the experts is refused with one
`error:` line (exit 2), any other plans with a note that UNO allocates no MoE LoRA buffers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import run_cli

MOE = {"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe",
       "hidden_size": 2048, "intermediate_size": 6144, "moe_intermediate_size": 768,
       "num_experts": 64, "num_experts_per_tok": 8, "num_attention_heads": 32,
       "num_key_value_heads": 4, "head_dim": 128, "num_hidden_layers": 8,
       "vocab_size": 151936, "max_position_embeddings": 40960, "torch_dtype": "bfloat16"}
DENSE = {k: v for k, v in MOE.items() if k not in ("num_experts", "num_experts_per_tok",
                                                   "moe_intermediate_size")}
DENSE.update(architectures=["Qwen3ForCausalLM"], model_type="qwen3")


def _dirs(root: Path, model: dict[str, object], targets: object) -> tuple[str, str]:
    (root / "model").mkdir(exist_ok=True)
    (root / "model" / "config.json").write_text(json.dumps(model))
    (root / "adapter").mkdir(exist_ok=True)
    if targets is not None:
        (root / "adapter" / "adapter_config.json").write_text(json.dumps(
            {"target_modules": targets, "r": 16, "lora_alpha": 32}))
    return str(root / "model"), str(root / "adapter")


def _plan(model: str, adapter: str) -> tuple[int, str, str]:
    return run_cli(["plan", "--json", "--", "python", "-m", "sglang.launch_server",
                    "--model-path", model, "--speculative-algorithm", "UNO",
                    "--uno-lora-path", adapter, "--speculative-num-draft-tokens", "4",
                    "--attention-backend", "fa3", "--max-running-requests", "16"])


@pytest.mark.parametrize("targets", [["gate_proj", "up_proj", "down_proj"],
                                     ["model.layers.0.mlp.up_proj", "down_proj"], "all-linear"])
def test_expert_targets_on_a_moe_model_are_refused(tmp_path: Path, targets: object) -> None:
    code, _, err = _plan(*_dirs(tmp_path, MOE, targets))
    errors = [ln for ln in err.splitlines() if ln.startswith("error:")]
    assert code == 2 and len(errors) == 1 and len(errors[0]) <= 200, err
    assert "uno_cublas_backend.py:100-120" in errors[0]


def test_attention_targets_on_a_moe_model_plan_with_a_note(tmp_path: Path) -> None:
    code, out, err = _plan(*_dirs(tmp_path, MOE, ["q_proj", "k_proj", "v_proj", "o_proj"]))
    assert code == 0, err
    assert "no MoE LoRA graph buffers" in err
    doc = json.loads(out)
    names = {b["name"] for c in doc["components"].values() for b in c.get("buffers", [])}
    assert "uno_lora_seg_lens" in names  # the dense LoRA state is planned
    assert not {n for n in names if "moe" in n and "lora" in n}


def test_a_moe_model_without_the_adapter_config_is_assumed_off_the_experts(
        tmp_path: Path) -> None:
    code, _, err = _plan(*_dirs(tmp_path, MOE, None))
    assert code == 0 and "assumes the adapter leaves the experts" in err, err


def test_a_dense_model_takes_expert_shaped_targets(tmp_path: Path) -> None:
    code, _, err = _plan(*_dirs(tmp_path, DENSE, "all-linear"))
    assert code == 0 and "MoE" not in err, err


@settings(max_examples=12, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(("q_proj", "o_proj", "gate_proj", "up_proj", "down_proj",
                                 "w1", "w2")), max_size=5), st.booleans())
def test_pasted_lines_refuse_exactly_the_expert_adapters(tmp_path: Path, targets: list[str],
                                                         moe: bool) -> None:
    """Refused (exit 2) exactly for a MoE model with a gate/up and a down projection."""
    code, _, err = _plan(*_dirs(tmp_path, MOE if moe else DENSE, targets))
    pair = bool({"gate_proj", "up_proj"} & set(targets)) and "down_proj" in targets
    assert code == (2 if moe and pair else 0), err
