"""`moe_config.backend` AUTO (or not given) in the one-sided all-to-all workspace line, graphfit
against the restated engine (tests/oracle/trtllm_reference.py, issue 23, s64t):

* `ModelConfig.from_pretrained` resolves the requested backend (default AUTO) with the
  checkpoint's first architecture and quant config (`ref.cite_fact("moe_auto_call")`):
  `resolve_moe_backend` (`ref.cite_fact("moe_auto_resolve")`, `ref.cite_fact("moe_auto_archs")`)
  gives TRTLLM, TRITON, MARLIN, CUTEDSL or CUTLASS by the architecture, the W4A16_NVFP4 /
  FP8_BLOCK_SCALES algorithm (`ref.cite_fact("moe_auto_fp8_block")`,
  `ref.cite_fact("moe_auto_quant_methods")`) and the SM version;
* graphfit does not read the GPU, so a line is sized only where every backend AUTO may resolve
  to, over the GPUs, builds the restated workspace (`ref.moe_a2a_auto_sized`, on top of
  `ref.moe_a2a_backend_sized`); else it names what AUTO resolves to and gives no bytes.

Lines are pasted serving commands with an `--extra_llm_api_options` YAML over a local
checkpoint directory.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle import trtllm_reference as ref
from tests.oracle.measure_trtllm_moe_auto import (
    ARCHS,
    COMPRESSED_BLOCK,
    COMPRESSED_CHANNEL,
    QUANTS,
    hf_file,
    write_files,
)
from tests.oracle.test_trtllm_moe_config_reference import TOKENS, line

WHY = (ref.cite_fact("moe_auto_call"), ref.cite_fact("moe_auto_resolve"))


def _line(folder: Path, arch: str | None, quant: Any, backend: str | None,
          environ: dict[str, str]) -> tuple[dict[str, Any], str | None]:
    """(config.json, the moe_a2a_workspace line) of a tp-4 DEP line over a bf16 checkpoint."""
    data = checkpoint(folder, arch, quant)
    got = line(folder, str(folder / "ckpt"), 4, True,
               None if backend is None else {"backend": backend}, environ)
    return data, got


def checkpoint(folder: Path, arch: str | None, quant: Any) -> dict[str, Any]:
    """A bf16 checkpoint directory `folder/ckpt` (config.json, and an hf_quant_config.json
    for a name of `HF_FILES`); its config.json."""
    model = folder / "ckpt"
    model.mkdir(exist_ok=True)
    data: dict[str, Any] = {"hidden_size": 4096, "num_experts_per_tok": 8,
                            "num_hidden_layers": 2, "num_attention_heads": 32,
                            "torch_dtype": "bfloat16"}
    if arch is not None:
        data["architectures"] = [arch]
    write_files(model, data, quant)
    return data


def _total(text: str) -> int | None:
    match = re.search(r"payload, (\d+) bytes \([\d.]+ MiB\) in all", text)
    return int(match[1]) if match else None


@settings(max_examples=30, deadline=None)
@given(arch=st.sampled_from(ARCHS), quant=st.sampled_from(QUANTS),
       backend=st.sampled_from([None, "AUTO", "auto", "CUTLASS", "TRITON", "TRTLLM", "CUTEDSL",
                                "DENSEGEMM"]),
       configurable=st.sampled_from([None, "0"]))
def test_auto_is_sized_where_every_resolution_is(tmp_path_factory: Any, arch: str | None,
                                                 quant: Any, backend: str | None,
                                                 configurable: str | None) -> None:
    """The engine's workspace where every backend AUTO may resolve to builds it; else a "not
    modelled" line without bytes naming every such backend."""
    folder = Path(tmp_path_factory.mktemp("auto"))
    environ = {} if configurable is None else {"ENABLE_CONFIGURABLE_MOE": configurable}
    data, got = _line(folder, arch, quant, backend, environ)
    assert got is not None
    if ref.moe_a2a_auto_sized(backend, configurable, data, hf_file(quant, ref)):
        assert _total(got) == ref.moe_a2a_workspace_size(4, 8, TOKENS, 4096, 2), (got, WHY)
        return
    assert "not modelled" in got and _total(got) is None, (got, WHY)
    if backend is None or backend.upper() == "AUTO":
        for name in ref.moe_auto_backends(backend, data, hf_file(quant, ref)):
            assert name in got, (name, got, WHY)


def test_fixed_cases(tmp_path: Path) -> None:
    """gpt-oss-120b (MXFP4) with AUTO: TRTLLM, TRITON (SM 90-99) or CUTLASS, not sized;
    with CUTLASS given, sized. DeepSeek-V4 with AUTO: TRTLLM on SM 100-119, else CUTLASS:
    sized in ConfigurableMoE, not without it. Kimi-K3 without ConfigurableMoE: always TRTLLM,
    which builds CutlassFusedMoE for an unquantized checkpoint (s67t), sized. Mixtral
    unquantized: CUTLASS everywhere, sized on both routes, the backend not
    given (AUTO, `ref.cite_fact("moe_auto_call")`) as given AUTO. A W4A16_NVFP4
    hf_quant_config.json or inline modelopt config: MARLIN on SM 90-99, not sized (more
    ModelOpt cases: `test_modelopt_configs`). An fp8
    checkpoint with a block size or static activations (FP8_BLOCK_SCALES): TRTLLM where
    is_sm_100f(), sized on both routes (without ConfigurableMoE its TRTLLMGenFusedMoE selects
    as CutlassFusedMoE does, `ref.cite_fact("moe_trtllm_gen_select")`, s69h); a dynamic fp8
    one: CUTLASS."""
    legacy = {"ENABLE_CONFIGURABLE_MOE": "0"}
    mxfp4 = {"quant_method": "mxfp4"}
    _, oss = _line(tmp_path, "GptOssForCausalLM", mxfp4, "AUTO", {})
    assert oss is not None and "TRITON" in oss and "not modelled" in oss, oss
    _, oss = _line(tmp_path, "GptOssForCausalLM", mxfp4, "CUTLASS", {})
    assert oss is not None and _total(oss) == ref.moe_a2a_workspace_size(4, 8, TOKENS, 4096, 2)
    want = ref.moe_a2a_workspace_size(4, 8, TOKENS, 4096, 2)
    _, ds4 = _line(tmp_path, "DeepseekV4ForCausalLM", None, "AUTO", {})
    assert ds4 is not None and _total(ds4) == want and "CUTLASS or TRTLLM" in ds4, ds4
    _, ds4 = _line(tmp_path, "DeepseekV4ForCausalLM", None, None, legacy)
    assert ds4 is not None and _total(ds4) is None and "TRTLLM" in ds4, ds4
    # Kimi-K3 unquantized without ConfigurableMoE: TRTLLM, whose get_moe_cls builds
    # CutlassFusedMoE (s67t: `test_legacy_route_classes`), so sized
    data, kimi = _line(tmp_path, "KimiK3ForConditionalGeneration", None, "AUTO", legacy)
    assert kimi is not None and "resolves to TRTLLM" in kimi and _total(kimi) == want, kimi
    assert ref.moe_a2a_auto_sized("AUTO", "0", data), WHY
    for backend in (None, "AUTO"):
        for environ in ({}, legacy):
            _, mixtral = _line(tmp_path, "MixtralForCausalLM", None, backend, environ)
            assert mixtral is not None and _total(mixtral) == want, mixtral
            assert "resolves to CUTLASS for MixtralForCausalLM" in mixtral, mixtral
    _, nvfp4 = _line(tmp_path, "MixtralForCausalLM", "file", "AUTO", {})
    assert nvfp4 is not None and "MARLIN" in nvfp4 and _total(nvfp4) is None, nvfp4
    inline = {"quant_method": "modelopt", "quant_algo": "W4A16_NVFP4"}  # modelopt's builder
    _, nvfp4 = _line(tmp_path, "MixtralForCausalLM", inline, None, {})
    assert nvfp4 is not None and "MARLIN" in nvfp4 and _total(nvfp4) is None, nvfp4
    for fp8 in ({"quant_method": "fp8", "activation_scheme": "static"},
                {"quant_method": "fp8", "weight_block_size": [128, 128]}):
        # FP8_BLOCK_SCALES: TRTLLM where is_sm_100f(); without ConfigurableMoE its bare
        # TRTLLMGenFusedMoE selects and sizes as CutlassFusedMoE does (s69h)
        data, block = _line(tmp_path, "MixtralForCausalLM", fp8, "AUTO", legacy)
        assert block is not None and "CUTLASS or TRTLLM" in block and _total(block) == want
        assert ref.moe_a2a_auto_sized("AUTO", "0", data, None), (fp8, WHY)
        _, block = _line(tmp_path, "MixtralForCausalLM", fp8, "AUTO", {})
        assert block is not None and _total(block) == want, block
    dynamic = {"quant_method": "fp8", "activation_scheme": "dynamic"}
    _, plain = _line(tmp_path, "MixtralForCausalLM", dynamic, "AUTO", legacy)
    assert plain is not None and _total(plain) == want, plain


# (quantization, the backends AUTO resolves Mixtral to over the GPUs, sized in
# ConfigurableMoE, sized without it): hf_quant_config.json and ModelOpt configs read (s66t)
MODELOPT_CASES: list[tuple[Any, str, bool, bool]] = [
    ("file", "CUTEDSL or CUTLASS or MARLIN", False, False),  # W4A16_NVFP4: MARLIN on Hopper
    ("file-fp8-block", "CUTLASS or TRTLLM", True, True),  # FP8_BLOCK_SCALES
    ("file-alias", "CUTLASS or TRTLLM", True, True),  # FP8_PB_WO, any case
    ("file-nvfp4", "CUTLASS for", True, True),  # NVFP4: neither algorithm
    ("file-mixed", "CUTLASS for", True, True),  # MIXED_PRECISION: the global algo only
    ("file-null-inline-fp8", "CUTLASS or TRTLLM", True, True),  # config.json's takes over
    ("file-null", "CUTLASS for", True, True),  # no algorithm anywhere
    ("file-not-modelopt", "CUTEDSL or CUTLASS or MARLIN or TRTLLM", False, False),  # raises
    ("file-not-json", "CUTEDSL or CUTLASS or MARLIN or TRTLLM", False, False),
    ({"quant_method": "modelopt", "quant_algo": "FP8_BLOCK_SCALES"}, "CUTLASS or TRTLLM", True,
     True),
    ({"quant_method": "nvfp4", "quant_algo": "W4A16_NVFP4"}, "CUTLASS for", True, True),
    ({"producer": {"name": "modelopt"}, "quantization": {"quant_algo": "W4A16_NVFP4"}},
     "CUTEDSL or CUTLASS or MARLIN", False, False),
    ({"quant_method": "gptq"}, "CUTLASS for", True, True),  # no branch: no algorithm
    ({"quant_method": "compressed-tensors"}, "CUTLASS for", True, True),  # raises: no model
    (COMPRESSED_BLOCK, "CUTLASS or TRTLLM", True, True),  # FP8_BLOCK_SCALES
    (COMPRESSED_CHANNEL, "CUTLASS for", True, True),  # FP8_PER_CHANNEL_PER_TOKEN
    ({**COMPRESSED_BLOCK, "config_groups": {"group_0": {  # group size 64: raises, no model
        "weights": {"num_bits": 8, "strategy": "block"},
        "input_activations": {"strategy": "group", "group_size": 64}}}}, "CUTLASS for", True,
     True),
    ([{"quant_method": "fp8"}], "CUTEDSL or CUTLASS or MARLIN or TRTLLM", False, False),
]


def test_modelopt_configs(tmp_path: Path) -> None:
    """An hf_quant_config.json, or an inline ModelOpt config, sets the global algorithm its
    quant_algo names (`ref.cite_fact("moe_auto_hf_file")`,
    `ref.cite_fact("moe_auto_modelopt_builder")`); a null one hands over to config.json's
    quantization_config; a file the reader refuses, and compressed-tensors, stay any
    algorithm; a method no branch names sets none (`ref.cite_fact("moe_auto_compressed")`);
    compressed-tensors sets FP8_BLOCK_SCALES for block weights only
    (`ref.cite_fact("moe_auto_compressed_algo")`). A quantization_config that is not an object
    stays any algorithm. The ModelOpt reader's shapes and marker: `ref.cite_fact("modelopt_parse")`,
    `ref.cite_fact("modelopt_marker")` (pinned in s67t).
    Each case is checked against the reference too."""
    want = ref.moe_a2a_workspace_size(4, 8, TOKENS, 4096, 2)
    for quant, resolved, sized, sized_legacy in MODELOPT_CASES:
        for environ, expect in (({}, sized), ({"ENABLE_CONFIGURABLE_MOE": "0"}, sized_legacy)):
            data, got = _line(tmp_path, "MixtralForCausalLM", quant, None, environ)
            assert got is not None and f"resolves to {resolved}" in got, (quant, got, WHY)
            assert ref.moe_a2a_auto_sized(None, environ.get("ENABLE_CONFIGURABLE_MOE"), data,
                                          hf_file(quant, ref)) is expect, (quant, environ)
            assert (_total(got) == want) if expect else (_total(got) is None), (quant, got)


# (architecture, quantization, moe_config backend, sized without ConfigurableMoE, words the
# line names): the class get_moe_cls builds (s67t)
LEGACY_CASES: list[tuple[str, Any, str | None, bool, str]] = [
    ("KimiK3ForConditionalGeneration", None, None, True, "get_moe_cls builds CutlassFusedMoE"),
    ("KimiLinearForCausalLM", {"quant_method": "gptq"}, "AUTO", True, "resolves to TRTLLM"),
    ("KimiK3ForConditionalGeneration", {"quant_method": "fp8", "weight_block_size": [128, 128]},
     "AUTO", True, "selects and sizes as CutlassFusedMoE does"),  # TRTLLMGenFusedMoE (s69h)
    ("MixtralForCausalLM", None, "TRTLLM", True, "TRTLLM_FORCE_ALLTOALL_METHOD is unset"),
    ("MixtralForCausalLM", None, "cutedsl", True, "TRTLLM_FORCE_ALLTOALL_METHOD is unset"),
    ("MixtralForCausalLM", None, "DENSEGEMM", True, "TRTLLM_FORCE_ALLTOALL_METHOD is unset"),
    ("MixtralForCausalLM", "file-null", "TRTLLM", True, "aux"),  # no algorithm anywhere
    ("MixtralForCausalLM", COMPRESSED_BLOCK, "TRTLLM", True, "on SM 120 and later"),  # s69h
    ("MixtralForCausalLM", COMPRESSED_BLOCK, "CUTEDSL", True,  # wrapped: the factory selects
     "TRTLLM_FORCE_COMM_METHOD is unset"),
    ("MixtralForCausalLM", "file-fp8-block", "DENSEGEMM", True, "aux"),  # no NVFP4
    ("MixtralForCausalLM", {"quant_method": "nvfp4"}, "TRTLLM", True,
     "TRTLLMGenFusedMoE (get_moe_cls's class"),  # s68t: the class named; s69h: sized
    ("MixtralForCausalLM", "file-nvfp4", "DENSEGEMM", False, "the GPU is not named"),
    ("MixtralForCausalLM", {"quant_method": "fp8", "activation_scheme": "dynamic"}, "TRTLLM",
     True, "aux"),  # s68t: no branch of load_hf_quant_config names it, no algorithm
    ("MixtralForCausalLM", None, "DEEPGEMM", False, "not modelled"),
    ("DeepseekV4ForCausalLM", None, "TRTLLM", False, "not modelled"),  # per-layer override
]


def test_legacy_route_classes(tmp_path: Path) -> None:
    """Without ConfigurableMoE the class is `get_moe_cls`'s (`ref.cite_fact("moe_legacy_cls")`):
    TRTLLM, CUTEDSL and DENSEGEMM build CutlassFusedMoE for a quant config setting no mode
    they serve, which then selects its own all-to-all (`ref.cite_fact("moe_legacy_bare")`);
    CuteDslFusedMoE is wrapped in ConfigurableMoE all the same
    (`ref.cite_fact("moe_legacy_wrap")`). Each case is checked against the reference too; on
    the default route every case is as `ref.moe_a2a_backend_sized` says."""
    want = ref.moe_a2a_workspace_size(4, 8, TOKENS, 4096, 2)
    why = (ref.cite_fact("moe_legacy_cls"), ref.cite_fact("moe_legacy_wrap"))
    for arch, quant, backend, sized, words in LEGACY_CASES:
        data, got = _line(tmp_path, arch, quant, backend, {"ENABLE_CONFIGURABLE_MOE": "0"})
        assert ref.moe_a2a_auto_sized(backend, "0", data, hf_file(quant, ref)) is sized, (
            arch, quant, backend, why)
        assert got is not None and words in got, (arch, quant, backend, got, why)
        assert (_total(got) == want) if sized else (_total(got) is None), (arch, quant, got)
    environ = {"ENABLE_CONFIGURABLE_MOE": "0", "TRTLLM_FORCE_ALLTOALL_METHOD": "NotEnabled"}
    _, got = _line(tmp_path, "MixtralForCausalLM", COMPRESSED_BLOCK, "CUTEDSL", environ)
    assert got is not None and "wraps CuteDslFusedMoE" in got and _total(got) == want, got
    _, got = _line(tmp_path, "MixtralForCausalLM", None, "TRTLLM", environ)
    assert got is not None and "no all-to-all is built" in got, got


def test_dtypes_json_is_another_algorithm(tmp_path: Path) -> None:
    """A dtypes.json beside a config.json without a quantization_config is read after both
    (`ref.cite_fact("moe_auto_call")`) and may set MXFP4, a mode TRTLLMGenFusedMoE serves:
    the legacy TRTLLM line is not modelled; AUTO still resolves to CUTLASS for Mixtral."""
    checkpoint(tmp_path, "MixtralForCausalLM", None)
    (tmp_path / "ckpt" / "dtypes.json").write_text("{}")
    legacy = {"ENABLE_CONFIGURABLE_MOE": "0"}
    got = line(tmp_path, str(tmp_path / "ckpt"), 4, True, {"backend": "TRTLLM"}, legacy)
    assert got is not None and "not modelled" in got and _total(got) is None, got
    got = line(tmp_path, str(tmp_path / "ckpt"), 4, True, None, legacy)
    assert got is not None and "resolves to CUTLASS" in got and _total(got) is not None, got


def test_float32_checkpoint_names_the_runner_failure(tmp_path: Path) -> None:
    """A float32 checkpoint's line keeps its four-byte total (`ref.cite_fact("moe_a2a_float32")`)
    and says CutlassFusedMoE's runner has no float32 kernels, so the engine raises at the
    layer's first run (`ref.cite_fact("moe_cutlass_dtypes")`); a bfloat16 one says nothing."""
    assert not ref.moe_cutlass_runner_builds("float32", "float32")
    assert ref.moe_cutlass_runner_builds("bfloat16", "bfloat16")
    model = tmp_path / "ckpt"
    checkpoint(tmp_path, "MixtralForCausalLM", None)
    data = json.loads((model / "config.json").read_text())
    got = str(line(tmp_path, str(model), 4, True, None, {}))
    assert "float32" not in got and _total(got) is not None, got
    (model / "config.json").write_text(json.dumps({**data, "torch_dtype": "float32"}))
    for moe_config, environ in ((None, {}), ({"backend": "TRTLLM"},
                                             {"ENABLE_CONFIGURABLE_MOE": "0"})):
        got = str(line(tmp_path, str(model), 4, True, moe_config, environ))
        assert _total(got) == ref.moe_a2a_workspace_size(4, 8, TOKENS, 4096, 4), got
        assert "no float32 kernels" in got and "Could not construct fused moe op" in got, got
