"""graphfit.planner.engines.sglang_lora_runner's inputs and refusals without the oracle
(issue 23, s65d; SGLang's own answers: tests/oracle/test_sglang_lora_runner_oracle.py): the
refusal is one whole CLI error line, a live ServerArgs gives the LoRA fields a pasted line
gives, and a vLLM file's max_lora_rank stays vLLM's (ignored)."""

from __future__ import annotations

import json
import types
from pathlib import Path

import pytest

from graphfit.planner.engines.sglang_native import fields_from_sglang
from tests.helpers import run_cli

MOE = {"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "hidden_size": 512,
       "num_attention_heads": 8, "num_key_value_heads": 4, "num_hidden_layers": 2,
       "vocab_size": 1024, "num_experts": 8, "num_experts_per_tok": 2,
       "moe_intermediate_size": 256, "intermediate_size": 1024, "head_dim": 64,
       "max_position_embeddings": 4096, "torch_dtype": "bfloat16"}


def _plan(tmp_path: Path, *flags: str) -> tuple[int, str]:
    model = tmp_path / "moe"
    model.mkdir(exist_ok=True)
    (model / "config.json").write_text(json.dumps(MOE))
    code, _, err = run_cli(["plan", "--gpu-memory-gb", "80", "--weights-gb", "10", "--",
                            "sglang", "serve", "--model-path", str(model), "--tp-size", "2",
                            *flags])
    return code, err


def test_refusals_are_one_whole_error_line(tmp_path: Path) -> None:
    ok = ("--enable-lora", "--lora-backend", "triton_v2", "--max-lora-rank", "8",
          "--lora-target-modules", "all")
    for flags, where in ((("--moe-runner-backend", "lora_cutedsl"), "200-203"),
                         (("--moe-runner-backend", "lora_cutedsl", *ok, "--quantization",
                           "compressed-tensors"), None),
                         (("--moe-runner-backend", "lora_cutedsl", *ok, "--ep-size", "2",
                           "--ep-num-redundant-experts", "2"), "229-237")):
        code, err = _plan(tmp_path, *flags)
        lines = err.strip().splitlines()
        assert code == 2 and len(lines) == 1 and len(lines[0]) <= 200, err
        assert where is None or f"lora_hook.py:{where})" in lines[0], err
    code, err = _plan(tmp_path, "--moe-runner-backend", "lora_cutedsl", *ok)
    assert code == 0, err


def test_live_server_args_give_the_lora_fields() -> None:
    args = types.SimpleNamespace(moe_runner_backend="lora_triton", enable_lora=True,
                                 lora_backend="triton_v2", max_lora_rank=8,
                                 lora_target_modules=["all"], lora_paths=None, tp_size=2)
    fields = fields_from_sglang(args)
    assert {k: fields.get(k) for k in ("enable_lora", "lora_backend", "max_lora_rank",
                                       "lora_target_modules_given", "lora_paths_given")} == {
        "enable_lora": True, "lora_backend": "triton_v2", "max_lora_rank": 8,
        "lora_target_modules_given": True, "lora_paths_given": None}
    # SGLang's defaults give nothing (csgmv is the field's default)
    bare = fields_from_sglang(types.SimpleNamespace(lora_backend="csgmv", enable_lora=None))
    assert not [k for k in bare if "lora" in k]


def test_vllm_file_max_lora_rank_stays_ignored(tmp_path: Path) -> None:
    vllm = tmp_path / "vllm.yaml"
    vllm.write_text("engine: vllm\nmax_num_seqs: 32\nmax_lora_rank: 8\n")
    code, _, err = run_cli(["plan", "--config", str(vllm)])
    assert code == 0 and "ignored: max_lora_rank" in " ".join(err.split()), err


def test_s66l_refusals_are_one_whole_error_line(tmp_path: Path) -> None:
    """s66l: the rest of check_lora_server_args, through the CLI; its environment variables
    too (the line's prefix)."""
    ok = ("--enable-lora", "--max-lora-rank", "8", "--lora-target-modules", "all")
    for flags, where in ((("--max-loras-per-batch", "0"), "36"),
                         ((*ok, "--lora-backend", "triton_v2", "--enable-pdmux"), "20-30"),
                         ((*ok, "--enable-lora-overlap-loading"), "61-70"),
                         ((*ok, "--lora-target-modules", "all", "q_proj"), "146-149"),
                         (("--lora-paths", "a=/a", "b=/b", "--max-loras-per-batch", "1",
                           "--max-loaded-loras", "1"), "162-165"),
                         ((*ok, "--lora-drain-wait-threshold", "-0.5"), "176-178")):
        code, err = _plan(tmp_path, *flags)
        lines = err.strip().splitlines()
        assert code == 2 and len(lines) == 1 and len(lines[0]) <= 200, err
        assert f"lora_hook.py:{where}" in lines[0], err
    model = tmp_path / "moe"
    code, _, err = run_cli(["plan", "--gpu-memory-gb", "80", "--weights-gb", "10", "--",
                            "SGLANG_EXPERIMENTAL_LORA_OPTI=1", "sglang", "serve",
                            "--model-path", str(model), "--tp-size", "2", *ok,
                            "--lora-backend", "triton_v2"])
    assert code == 2 and "SGLANG_EXPERIMENTAL_LORA_OPTI (ValueError" in err, err
    # where nothing is refused, the same flags plan
    code, err = _plan(tmp_path, "--lora-paths", "a=/a", "b=/b", "--max-loras-per-batch", "1",
                      "--max-loaded-loras", "2", "--enable-lora-overlap-loading",
                      "--lora-drain-wait-threshold", "0.5", "--lora-target-modules", "all",
                      "all")
    assert code == 0, err


def test_live_server_args_give_the_s66l_fields() -> None:
    """Live ServerArgs after resolution: lora_paths a list of LoRARefs, targets a set."""
    args = types.SimpleNamespace(enable_lora=True, max_loras_per_batch=2, max_loaded_loras=3,
                                 lora_drain_wait_threshold=-1.0, enable_pdmux=True,
                                 enable_lora_overlap_loading=True, lora_paths=[object()] * 4,
                                 lora_target_modules={"all", "q_proj"}, tp_size=2)
    fields = fields_from_sglang(args)
    assert {k: fields.get(k) for k in (
        "max_loras_per_batch", "max_loaded_loras", "lora_drain_wait_threshold", "enable_pdmux",
        "enable_lora_overlap_loading", "lora_paths_count", "lora_target_all_mixed")} == {
        "max_loras_per_batch": 2, "max_loaded_loras": 3, "lora_drain_wait_threshold": -1.0,
        "enable_pdmux": True, "enable_lora_overlap_loading": True, "lora_paths_count": 4,
        "lora_target_all_mixed": True}


def test_live_server_args_enable_lora_false_is_kept() -> None:
    """s67l: a live ServerArgs whose enable_lora is False keeps LoRA off whatever its paths
    (lora_hook.py:39-47); None (SGLang's default) says nothing."""
    off = fields_from_sglang(types.SimpleNamespace(enable_lora=False, lora_paths=["a=/a"],
                                                   tp_size=2))
    assert off.get("lora_disabled") is True and off.get("lora_paths_given") is True
    unset = fields_from_sglang(types.SimpleNamespace(enable_lora=None, tp_size=2))
    assert "lora_disabled" not in unset


@pytest.mark.parametrize(("value", "field"), [
    ("false", "enable_lora"), ("no", "enable_lora"), (1, "enable_lora"),
    (0, "lora_disabled"), ("", "lora_disabled"), ([], "lora_disabled")])
def test_live_server_args_enable_lora_by_truth(value: object, field: str) -> None:
    """s68l: SGLang reads a ServerArgs' enable_lora by Python's truth (lora_hook.py:39-50):
    the string "false" turns LoRA on, 0 or "" keeps it off whatever the paths."""
    fields = fields_from_sglang(types.SimpleNamespace(enable_lora=value, lora_paths=["a=/a"],
                                                      tp_size=2))
    other = {"enable_lora": "lora_disabled", "lora_disabled": "enable_lora"}[field]
    assert fields.get(field) is True and other not in fields


def test_an_amd_gpu_name_tells_rocm(tmp_path: Path) -> None:
    """s68l: `--gpu-memory-gb MI300X`, a config file's `gpu_memory_gb: MI300X` or
    `gpu_rocm: true`, and the live path's stand-in name set SglangOptions.gpu_rocm, which
    LoRA's V2 modes check refuses (lora_hook.py:20-30); a figure in GiB reads as CUDA."""
    from graphfit.integrations.sglang import _generation

    flags = ("--enable-lora", "--max-lora-rank", "8", "--lora-target-modules", "all",
             "--lora-backend", "triton_v2")
    _plan(tmp_path)  # writes the model
    model = tmp_path / "moe"
    for gpu, refused in (("MI300X", True), ("MI325X", True), ("H100", False), ("192", False)):
        code, _, err = run_cli(["plan", "--gpu-memory-gb", gpu, "--weights-gb", "10", "--",
                                "sglang", "serve", "--model-path", str(model), "--tp-size",
                                "2", *flags])
        assert (code == 2 and "does not yet support ROCm" in err) is refused, (gpu, err)
    for body in ("gpu_memory_gb: MI300X\n", "gpu_memory_gb: 192\ngpu_rocm: true\n"):
        ours = tmp_path / "graphfit.yaml"
        ours.write_text(f"engine: sglang\nmodel_path: {model}\nenable_lora: true\n"
                        f"max_lora_rank: 8\nlora_target_modules: [all]\n"
                        f"lora_backend: triton_v2\n{body}")
        code, _, err = run_cli(["plan", "--weights-gb", "10", "--config", str(ours)])
        assert code == 2 and "does not yet support ROCm" in err, (body, err)
    assert _generation("MI300X").get("gpu_rocm") is True
    assert "gpu_rocm" not in _generation("H100")
