"""A TensorRT-LLM line on a named GPU (issue 23, s64g): `--gpu-memory-gb H100` (or
`gpu_memory_gb: H100` in a config file) gives the line the GPU's SM version, and
`moe_config.backend` AUTO (or none) is resolved for that SM alone, as
`resolve_moe_backend` does (`ref.cite_fact("moe_auto_resolve")`, with `get_sm_version()` and
`is_sm_100f()`, `ref.is_sm_100f`), against the restated engine
(tests/oracle/trtllm_reference.py: `ref.moe_a2a_auto_sized_on`, `ref.GPU_SM`).

A figure in GiB or an AMD GPU tells no SM version: one `error:` line, exit 2.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import EngineConfig, TrtllmOptions, plan
from graphfit.cli.options import build_config
from graphfit.planner.core.errors import ConfigError
from tests.oracle import trtllm_reference as ref
from tests.oracle.measure_trtllm_moe_auto import ARCHS, QUANTS, hf_file
from tests.oracle.test_trtllm_moe_auto_reference import _total, checkpoint
from tests.oracle.test_trtllm_moe_config_reference import TOKENS

WHY = (ref.cite_fact("moe_auto_call"), ref.cite_fact("moe_auto_resolve"))
GPUS = sorted(ref.GPU_SM)


def words(folder: Path, backend: str | None) -> list[str]:
    """`trtllm-serve CKPT --tp_size 4 --ep_size 4 --extra_llm_api_options FILE` (attention
    DP, moe_config.backend `backend` when given)."""
    options: dict[str, Any] = {"enable_attention_dp": True}
    if backend is not None:
        options["moe_config"] = {"backend": backend}
    (folder / "options.yaml").write_text(json.dumps(options))
    return ["trtllm-serve", str(folder / "ckpt"), "--tp_size", "4", "--ep_size", "4",
            "--extra_llm_api_options", str(folder / "options.yaml")]


def a2a(folder: Path, arch: str | None, quant: Any, backend: str | None, gpu: str,
        environ: dict[str, str]) -> tuple[dict[str, Any], str]:
    """(config.json, the moe_a2a_workspace line) of the line on GPU `gpu`."""
    data = checkpoint(folder, arch, quant)
    config = build_config({"gpu_memory_gb": gpu}, environ, words(folder, backend))
    return data, str(dict(plan(config).engine_inputs).get("moe_a2a_workspace"))


@settings(max_examples=30, deadline=None)
@given(arch=st.sampled_from(ARCHS), quant=st.sampled_from(QUANTS),
       backend=st.sampled_from([None, "AUTO", "auto"]), gpu=st.sampled_from(GPUS),
       configurable=st.sampled_from([None, "0"]))
def test_auto_is_resolved_on_the_named_gpu(tmp_path_factory: Any, arch: str | None,
                                          quant: Any, backend: str | None, gpu: str,
                                          configurable: str | None) -> None:
    """The engine's workspace where what AUTO resolves to on the GPU's SM builds it; else a
    "not modelled" line without bytes naming it."""
    folder = Path(tmp_path_factory.mktemp("gpu"))
    environ = {} if configurable is None else {"ENABLE_CONFIGURABLE_MOE": configurable}
    data, got = a2a(folder, arch, quant, backend, gpu, environ)
    sm = ref.GPU_SM[gpu]
    assert f"on SM {sm}" in got, (got, WHY)
    for name in ref.moe_auto_backends_on(backend, data, hf_file(quant, ref), sm):
        assert name in got, (name, got, WHY)
    if ref.moe_a2a_auto_sized_on(backend, configurable, data, hf_file(quant, ref), sm):
        assert _total(got) == ref.moe_a2a_workspace_size(4, 8, TOKENS, 4096, 2), (got, WHY)
    else:
        assert "not modelled" in got and _total(got) is None, (got, WHY)


def test_fixed_cases(tmp_path: Path) -> None:
    """GPT-OSS (MXFP4): TRITON on an H100 (not sized), TRTLLM on a B200 (sized on the default
    route), CUTLASS on an RTX 5090 and an A100. DeepSeek-V4 without ConfigurableMoE: TRTLLM on
    a GB300 (not sized), CUTLASS on an H100 (sized). FP8 block scales: TRTLLM on SM 100 and
    103 (is_sm_100f), CUTLASS on SM 120 (sized without ConfigurableMoE). An
    hf_quant_config.json that is not JSON (any algorithm, s64t): MARLIN or CUTLASS on an H200
    (not sized), CUTEDSL or CUTLASS on an RTX 5090 (sized in ConfigurableMoE only), CUTLASS
    or TRTLLM on a B200 (sized). A ModelOpt file's algorithm (s66t): W4A16_NVFP4 is MARLIN on
    an H200, CUTEDSL on an RTX 5090, CUTLASS on an A100; FP8_BLOCK_SCALES TRTLLM on a GB300;
    NVFP4 CUTLASS. Without ConfigurableMoE a TRTLLM line's TRTLLMGenFusedMoE selects and sizes as
    CutlassFusedMoE does (`ref.cite_fact("moe_trtllm_gen_select")`), and on SM 120 it raises on
    both routes (`ref.cite_fact("moe_trtllm_gen_sm")`, s69h)."""
    want = ref.moe_a2a_workspace_size(4, 8, TOKENS, 4096, 2)
    legacy = {"ENABLE_CONFIGURABLE_MOE": "0"}
    mxfp4 = {"quant_method": "mxfp4"}
    cases: list[tuple[str | None, Any, str, dict[str, str], str, bool]] = [
        ("GptOssForCausalLM", mxfp4, "H100", {}, "TRITON", False),
        ("GptOssForCausalLM", mxfp4, "B200", {}, "TRTLLM", True),
        ("GptOssForCausalLM", mxfp4, "B200", legacy, "TRTLLM", True),  # TRTLLMGen (s69h)
        ("GptOssForCausalLM", mxfp4, "RTX5090", legacy, "CUTLASS", True),
        ("GptOssForCausalLM", mxfp4, "A100", legacy, "CUTLASS", True),
        ("DeepseekV4ForCausalLM", None, "GB300", legacy, "TRTLLM", False),
        ("DeepseekV4ForCausalLM", None, "H100", legacy, "CUTLASS", True),
        ("MixtralForCausalLM", {"quant_method": "fp8", "weight_block_size": [128, 128]},
         "GB200", legacy, "TRTLLM", True),
        ("MixtralForCausalLM", {"quant_method": "fp8", "activation_scheme": "static"},
         "GB300", legacy, "TRTLLM", True),
        ("MixtralForCausalLM", {"quant_method": "fp8", "weight_block_size": [128, 128]},
         "RTX5090", legacy, "CUTLASS", True),
        ("MixtralForCausalLM", "file-not-json", "H200", {}, "CUTLASS or MARLIN", False),
        ("MixtralForCausalLM", "file-not-json", "RTX5090", {}, "CUTEDSL or CUTLASS for", True),
        ("MixtralForCausalLM", "file-not-json", "RTX5090", legacy, "CUTEDSL or CUTLASS for",
         False),
        # the file's W4A16_NVFP4 read (s66t): MARLIN on Hopper, CUTEDSL on SM 120
        ("MixtralForCausalLM", "file", "H200", {}, "MARLIN for", False),
        ("MixtralForCausalLM", "file", "RTX5090", {}, "CUTEDSL for", True),
        ("MixtralForCausalLM", "file", "A100", legacy, "CUTLASS for", True),
        ("MixtralForCausalLM", "file-fp8-block", "GB300", legacy, "TRTLLM for", True),
        # s69h: Kimi-K3 is TRTLLM on every SM; over NVFP4 its TRTLLMGenFusedMoE raises on SM 120
        ("KimiK3ForConditionalGeneration", "file-nvfp4", "RTX5090", {}, "TRTLLM for", False),
        ("KimiK3ForConditionalGeneration", "file-nvfp4", "RTX5090", legacy, "TRTLLM for",
         False),
        ("KimiK3ForConditionalGeneration", "file-nvfp4", "B200", legacy, "TRTLLM for", True),
        # any algorithm: AUTO's TRTLLM is FP8_BLOCK_SCALES's, a TRTLLMGenFusedMoE (s69h)
        ("MixtralForCausalLM", "file-not-json", "B200", legacy, "CUTLASS or TRTLLM", True),
        ("MixtralForCausalLM", "file-nvfp4", "H100", legacy, "CUTLASS for", True),
    ]
    for arch, quant, gpu, environ, resolved, sized in cases:
        data, got = a2a(tmp_path, arch, quant, None, gpu, environ)
        # the reference agrees with each fixed case (its restatement is checked too)
        assert ref.moe_a2a_auto_sized_on(None, environ.get("ENABLE_CONFIGURABLE_MOE"), data,
                                         hf_file(quant, ref), ref.GPU_SM[gpu]) is sized, (arch, gpu)
        assert f"resolves to {resolved}" in got, (arch, gpu, got)
        assert (_total(got) == want) if sized else (_total(got) is None), (arch, gpu, got)
    # an hf_quant_config.json that is not JSON is read as any algorithm (s64t): on a B200
    # every one resolves to CUTLASS or TRTLLM, both sized on the default route
    _, got = a2a(tmp_path, "MixtralForCausalLM", "file-not-json", "AUTO", "B200", {})
    assert "resolves to CUTLASS or TRTLLM" in got and _total(got) == want, got


def test_sm_version_option() -> None:
    """The library's TrtllmOptions.sm_version gives the same line as the named GPU; a bad
    value is one ConfigError naming the field; an SGLang config does not take it."""
    assert TrtllmOptions(sm_version=90).sm_version == 90
    for bad in (0, -1, True, "90", 9.0):
        try:
            TrtllmOptions(sm_version=bad)  # type: ignore[arg-type]
        except ConfigError as exc:
            assert str(exc).startswith("sm_version:"), exc
        else:
            raise AssertionError(bad)
    try:
        EngineConfig(engine="sglang", options={"sm_version": 90})
    except ConfigError:
        pass
    else:
        raise AssertionError("an SGLang config took sm_version")


def _cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "graphfit", *argv], capture_output=True,
                          text=True, check=False, timeout=120)


def test_bad_gpu_is_one_error_line(tmp_path: Path) -> None:
    """A figure in GiB, an AMD GPU or an unknown name on a TensorRT-LLM line: exit 2, one
    `error:` line of at most 200 characters, no traceback; a config file's GiB figure too.
    A named NVIDIA GPU in the config file is read as the flag's."""
    checkpoint(tmp_path, "GptOssForCausalLM", {"quant_method": "mxfp4"})
    line = words(tmp_path, None)
    for gpu in ("80", "MI300X", "no-such-gpu"):
        done = _cli("plan", "--gpu-memory-gb", gpu, "--", *line)
        assert done.returncode == 2, (gpu, done.stderr)
        errors = [text for text in done.stderr.splitlines() if text]
        assert len(errors) == 1 and errors[0].startswith("error: "), done.stderr
        assert len(errors[0]) <= 200 and "Traceback" not in done.stderr, errors
    config = tmp_path / "graphfit.yaml"
    for gpu, ok in (("80", False), ("H100", True)):
        config.write_text(json.dumps({"engine": "trtllm", "gpu_memory_gb": gpu}))
        done = _cli("plan", "--config", str(config), "--", *line)
        if ok:
            assert done.returncode == 0 and "TRITON" in done.stdout + done.stderr, done.stderr
        else:
            assert done.returncode == 2 and done.stderr.count("error:") == 1, done.stderr
            assert "NVIDIA GPU" in done.stderr, done.stderr
