"""`moe_config.backend` AUTO (or not given) in TensorRT-LLM's one-sided all-to-all workspace
line, measured (not a test; tests/oracle/test_trtllm_moe_auto_reference.py is):

    python -m tests.oracle.measure_trtllm_moe_auto 300 --before /work/main

Draws N lines `trtllm-serve CKPT --tp_size T --ep_size T --extra_llm_api_options FILE` (FILE:
enable_attention_dp true, and moe_config.backend AUTO or no backend) over a local bf16
checkpoint (a drawn architecture: Mixtral, GPT-OSS, DeepSeek-V4, Kimi-K3, Kimi-Linear,
DeepSeek-V3 or none named; a drawn quantization: none, fp8 block / static / dynamic, mxfp4,
nvfp4, compressed-tensors, gptq, inline modelopt configs or an hf_quant_config.json of
one of several shapes, s66t), with
ENABLE_CONFIGURABLE_MOE unset or "0". For this checkout and for the graphfit at `--before` (a
subprocess on the same lines) it prints: the lines; those where every backend AUTO may resolve
to over the GPUs builds the restated workspace (`ref.moe_a2a_auto_sized`) and how many plans
show the engine's total; those where some GPU gets another backend, how many plans give no
bytes for them, and how many show bytes anyway.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

TOKENS = 8192
ARCHS = ["MixtralForCausalLM", "GptOssForCausalLM", "DeepseekV4ForCausalLM",
         "KimiK3ForConditionalGeneration", "KimiLinearForCausalLM", "DeepseekV3ForCausalLM",
         None]
# quantization_config values (None: none), and names of HF_FILES: an hf_quant_config.json
# beside config.json (also the generated tests', tests/oracle/test_trtllm_moe_auto_reference.py
# and test_trtllm_moe_auto_gpu_reference.py)
# llm-compressor configs: block-scaled FP8 (FP8_BLOCK_SCALES) and per-channel FP8
COMPRESSED_BLOCK = {"quant_method": "compressed-tensors", "config_groups": {"group_0": {
    "weights": {"num_bits": 8, "strategy": "block"},
    "input_activations": {"strategy": "group", "group_size": 128}}}}
COMPRESSED_CHANNEL = {"quant_method": "compressed-tensors", "config_groups": {"group_0": {
    "weights": {"num_bits": 8, "strategy": "channel"},
    "input_activations": {"strategy": "token"}}}}
# llm-compressor NVFP4 (issue 23, s68t)
COMPRESSED_NVFP4 = {"quant_method": "compressed-tensors", "config_groups": {"group_0": {
    "weights": {"num_bits": 4, "type": "float", "strategy": "tensor_group", "group_size": 16},
    "input_activations": {"strategy": "tensor_group"}}}}
QUANTS: list[Any] = [None, {"quant_method": "fp8", "weight_block_size": [128, 128]},
                     {"quant_method": "fp8", "activation_scheme": "static"},
                     {"quant_method": "fp8", "activation_scheme": "dynamic"},
                     {"quant_method": "mxfp4"}, {"quant_method": "nvfp4"},
                     {"quant_method": "compressed-tensors"},
                     {"quant_method": "modelopt", "quant_algo": "W4A16_NVFP4"}, "file",
                     # issue 23, s66t: ModelOpt configs read, another method, file shapes
                     {"quant_method": "modelopt", "quant_algo": "FP8_BLOCK_SCALES"},
                     {"quant_method": "nvfp4", "quant_algo": "W4A16_NVFP4"},
                     {"producer": {"name": "modelopt"},
                      "quantization": {"quant_algo": "W4A16_NVFP4"}},
                     {"quant_method": "gptq"}, COMPRESSED_BLOCK, COMPRESSED_CHANNEL,
                     "file-fp8-block", "file-alias", "file-nvfp4", "file-mixed",
                     "file-null-inline-fp8", "file-null", "file-not-modelopt", "file-not-json",
                     # issue 23, s68t: the algorithms the legacy route's get_moe_cls tells apart
                     {"quant_method": "modelopt", "quant_algo": "NVFP4"},
                     {"quant_method": "modelopt", "quant_algo": "FP8"},
                     {"quant_method": "modelopt", "quant_algo": "W4A8_AWQ"},
                     {"quant_method": "modelopt", "quant_algo": "W4A8_NVFP4_FP8"},
                     {"quant_method": "modelopt", "quant_algo": "W4A16_MXFP4"},
                     {"quant_method": "modelopt", "quant_algo": "W4A8_MXFP4_MXFP8"},
                     {"quant_method": "modelopt", "quant_algo": "W4A16_AWQ"},
                     {"quant_method": "modelopt", "quant_algo": "MXFP8"},
                     {"quant_method": "modelopt", "quant_algo": "NOT_AN_ALGO"},
                     {"quant_method": "mxfp8"}, COMPRESSED_NVFP4, "file-fp8", "file-w4a8-awq"]
# name -> (the hf_quant_config.json's JSON, or NOT_JSON: "{" written; config.json's
# quantization_config beside it)
NOT_JSON = "not json"
HF_FILES: dict[str, tuple[Any, Any]] = {
    "file": ({"quantization": {"quant_algo": "W4A16_NVFP4"}}, None),
    "file-fp8-block": ({"producer": {"name": "modelopt"},
                        "quantization": {"quant_algo": "FP8_BLOCK_SCALES"}}, None),
    "file-alias": ({"quant_method": "modelopt", "quant_algo": "FP8_PB_WO"}, None),
    "file-nvfp4": ({"quantization": {"quant_algo": "NVFP4"}}, None),
    "file-mixed": ({"quantization": {"quant_algo": "MIXED_PRECISION",
                                     "quantized_layers": {}}}, None),
    "file-null-inline-fp8": ({"quantization": {"quant_algo": None}},
                             {"quant_method": "fp8", "weight_block_size": [128, 128]}),
    "file-null": ({"quantization": {}}, None),
    "file-not-modelopt": ({"quant_algo": "W4A16_NVFP4"}, None),
    "file-not-json": (NOT_JSON, None),
    "file-fp8": ({"quantization": {"quant_algo": "FP8"}}, None),  # s68t
    "file-w4a8-awq": ({"producer": {"name": "modelopt"},
                       "quantization": {"quant_algo": "W4A8_AWQ"}}, None),
}


def inline_quant(quant: Any) -> Any:
    """The quantization_config a drawn quantization writes into config.json (None: none)."""
    return HF_FILES[quant][1] if isinstance(quant, str) else quant


def hf_file(quant: Any, ref: Any) -> Any:
    """What the reference takes for a drawn quantization's hf_quant_config.json: None without
    one, `ref.NOT_JSON` for a file that is not JSON, else its JSON."""
    if not isinstance(quant, str):
        return None
    content = HF_FILES[quant][0]
    return ref.NOT_JSON if content == NOT_JSON else content


def write_files(model: Path, data: dict[str, Any], quant: Any) -> None:
    """config.json (`data` with the drawn quantization_config) and, for a file name, the
    hf_quant_config.json beside it (removed otherwise)."""
    inline = inline_quant(quant)
    if inline is not None:
        data["quantization_config"] = inline
    (model / "config.json").write_text(json.dumps(data))
    hf = model / "hf_quant_config.json"
    if isinstance(quant, str):
        content = HF_FILES[quant][0]
        hf.write_text("{" if content == NOT_JSON else json.dumps(content))
    elif hf.exists():
        hf.unlink()


def write_line(tmp: Path, i: int, item: dict[str, Any]
               ) -> tuple[dict[str, Any], Any, list[str], dict[str, str]]:
    """Write drawn line `i`'s checkpoint (config.json, maybe hf_quant_config.json) and LLM API
    options file under `tmp`; give (config.json's dict, the drawn quantization, the
    trtllm-serve words, the environment). Shared with measure_trtllm_moe_auto_gpu."""
    model = tmp / f"m{i}"
    model.mkdir()
    data: dict[str, Any] = {"hidden_size": 4096, "num_experts_per_tok": item["top_k"],
                            "num_hidden_layers": 2, "num_attention_heads": 32,
                            "torch_dtype": "bfloat16"}
    if item["arch"] is not None:
        data["architectures"] = [item["arch"]]
    quant = QUANTS[item["quant"]]
    write_files(model, data, quant)
    options = tmp / f"o{i}.yaml"
    extra: dict[str, Any] = {"enable_attention_dp": True}
    if item["backend"] is not None:
        extra["moe_config"] = {"backend": item["backend"]}
    options.write_text(json.dumps(extra))
    environ = {} if item["configurable"] is None else {
        "ENABLE_CONFIGURABLE_MOE": item["configurable"]}
    tp = str(item["tp"])
    return data, quant, ["trtllm-serve", str(model), "--tp_size", tp, "--ep_size", tp,
                         "--extra_llm_api_options", str(options)], environ


def emit(lines: list[dict[str, Any]]) -> list[int]:
    """[lines, sized on every GPU, shown exactly, another backend on some GPU, no bytes given,
    bytes shown anyway]."""
    from graphfit import plan
    from graphfit.cli.options import build_config
    from tests.helpers import load_module

    ref = load_module(Path(__file__).resolve().parent / "trtllm_reference.py",
                      "moe_auto_trtllm_reference")
    c = [0] * 6
    with tempfile.TemporaryDirectory() as tmp:
        for i, item in enumerate(lines):
            c[0] += 1
            data, quant, words, environ = write_line(Path(tmp), i, item)
            config = build_config({}, environ, words)
            shown = str(dict(plan(config).engine_inputs).get("moe_a2a_workspace"))
            match = re.search(r"payload, (\d+) bytes \([\d.]+ MiB\) in all", shown)
            got = int(match[1]) if match else None
            if ref.moe_a2a_auto_sized(item["backend"], item["configurable"], data,
                                      hf_file(quant, ref)):
                c[1] += 1
                c[2] += got == ref.moe_a2a_workspace_size(item["tp"], item["top_k"], TOKENS,
                                                          4096, 2)
            else:
                c[3] += 1
                c[4] += got is None
                c[5] += got is not None
    return c


def _print(label: str, c: list[int]) -> None:
    print(f"{label}: lines {c[0]}; the restated workspace on every GPU {c[1]}, shown exactly "
          f"{c[2]}/{c[1]}; another backend on some GPU {c[3]}, no bytes given {c[4]}/{c[3]}, "
          f"bytes shown anyway {c[5]}")


def draw_lines(n: int) -> list[dict[str, Any]]:
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st

    out: list[dict[str, Any]] = []

    @settings(max_examples=n, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), derandomize=True)
    @given(arch=st.sampled_from(ARCHS), quant=st.integers(0, len(QUANTS) - 1),
           backend=st.sampled_from([None, "AUTO"]), top_k=st.integers(1, 8),
           tp=st.sampled_from([2, 4, 8]), configurable=st.sampled_from([None, None, "0"]))
    def draw(arch: str | None, quant: int, backend: str | None, top_k: int, tp: int,
             configurable: str | None) -> None:
        out.append({"arch": arch, "quant": quant, "backend": backend, "top_k": top_k,
                    "tp": tp, "configurable": configurable})

    draw()
    return out


def main() -> int:
    args = sys.argv[1:]
    from tests.oracle.measure_before import measure

    return measure(__file__, args, "TensorRT-LLM DEP lines over a local MoE checkpoint, "
                   "moe_config backend AUTO or not given", draw_lines, emit, _print)


if __name__ == "__main__":
    raise SystemExit(main())
