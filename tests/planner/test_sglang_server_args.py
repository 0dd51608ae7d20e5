"""graphfit.planner.engines.sglang_server_nodes / sglang_server_chunk without the oracle
(issue 23, s67b; SGLang's own answers: tests/oracle/test_sglang_server_args_oracle.py): the
checks run where `check_server_args` runs them (the node counts before its LoRA checks, PD
multiplexing after), the chunk / page rule judges only a page graphfit knows, a hybrid-mamba
no_buffer resolution turns the overlap schedule off, HiSparse's validation at its slot, and the
flags come from a pasted line, a config file, live ServerArgs and the line's environment."""

from __future__ import annotations

import json
import types
from pathlib import Path
from typing import Any, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import EngineConfig
from graphfit.inputs.sglang_server_flags import environment
from graphfit.planner.core.enums import SpecMethod
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines import sglang_server_chunk as chunk
from graphfit.planner.engines import sglang_server_hisparse as hisparse
from graphfit.planner.engines.sglang_native import fields_from_sglang
from tests.helpers import run_cli
from tests.planner.test_sglang_lora_runner import MOE

HOPPER, BLACKWELL = 90, 100


def _config(**options: object) -> EngineConfig:
    return EngineConfig.from_dict({"engine": "sglang", "max_num_seqs": 32,
                                   "architecture": "LlamaForCausalLM", "options": options})


def _plan(tmp_path: Path, *flags: str, gpu: str = "H100") -> tuple[int, str]:
    model = tmp_path / "moe"
    model.mkdir(exist_ok=True)
    (model / "config.json").write_text(json.dumps(MOE))
    code, _, err = run_cli(["plan", "--gpu-memory-gb", gpu, "--weights-gb", "10", "--",
                            "sglang", "serve", "--model-path", str(model), *flags])
    return code, err


@pytest.mark.parametrize(("flags", "where"), [
    (("--enable-pdmux",), "validation_hook.py:253-255"),
    (("--tp-size", "2", "--nnodes", "4"), "validation_hook.py:177-181"),
    (("--enable-torch-compile", "--disable-cuda-graph-padding"), "validation_hook.py:188-194"),
    (("--page-size", "64", "--chunked-prefill-size", "100"), "validation_hook.py:243-246"),
    # SGLang's order: the node count (:177) before the LoRA checks (:222), which refuse
    # PD multiplexing beside LoRA (lora_hook.py:20-30) before its own asserts (:249)
    (("--tp-size", "2", "--nnodes", "4", "--enable-lora"), "validation_hook.py:177-181"),
    (("--enable-lora", "--enable-pdmux"), "lora_hook.py"),
])
def test_refusals_are_one_whole_error_line(tmp_path: Path, flags: tuple[str, ...],
                                           where: str) -> None:
    code, err = _plan(tmp_path, *flags)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: "), err
    assert where in lines[0] and len(lines[0]) <= 200 and "Traceback" not in err


def test_what_sglang_starts_is_planned(tmp_path: Path) -> None:
    for flags in (("--tp-size", "2", "--nnodes", "2"), ("--enable-torch-compile",),
                  ("--page-size", "64", "--chunked-prefill-size", "128")):
        code, err = _plan(tmp_path, *flags)
        assert code == 0, (flags, err)


def test_the_page_is_judged_only_where_graphfit_knows_it(tmp_path: Path) -> None:
    """No GPU named (its default backend unknown): not judged; a Blackwell (fa4 / trtllm_mha
    picks) neither; an override architecture neither."""
    code, err = _plan(tmp_path, "--page-size", "64", "--chunked-prefill-size", "100", gpu="80")
    assert code == 0, err
    assert chunk.page_at_check(_config(gpu_capability=BLACKWELL, page_size=64)) is None
    assert chunk.page_at_check(EngineConfig.from_dict({
        "engine": "sglang", "max_num_seqs": 32, "architecture": "DeepseekV3ForCausalLM",
        "options": {"gpu_capability": HOPPER, "page_size": 64}})) is None


@settings(max_examples=40)
@given(st.sampled_from((1, 16, 32, 64, 128)), st.integers(1, 5000), st.sampled_from((1, 2, 4)),
       st.sampled_from((None, "flashmla", "trtllm_mha", "triton")))
def test_chunk_page_rule(page: int, size: int, dp: int, backend: str | None) -> None:
    """The chunk after the attention-DP division (parallel_hook.py:326-332) against the page
    the backends leave (overrides.py:1144-1200): flashmla 64, trtllm_mha 16 to 128 else 64."""
    resolved = {"flashmla": 64, "trtllm_mha": page if page in (16, 32, 64, 128) else 64}.get(
        backend or "", page)
    expected = bool((size // dp if dp > 1 else size) % resolved)
    try:  # the engine model resolves the config, and the rule runs there
        config = _config(gpu_capability=HOPPER, page_size=page, chunked_prefill_size=size,
                         tp_size=4, attn_dp_size=dp, attention_backend_flag=backend)
    except ConfigError as exc:
        assert expected and "validation_hook.py:243-246" in str(exc), exc
        return
    assert not expected
    assert chunk.page_at_check(config) == resolved
    assert chunk.chunk_at_check(config, {}) == (size // dp if dp > 1 else size)
    assert chunk.chunk_page_problem(config, {}) is None


def test_no_buffer_turns_the_overlap_schedule_off() -> None:
    """A hybrid-mamba model without an extra buffer on its linear-attention backend resolves
    `auto` to no_buffer, which turns the overlap schedule off (overrides.py:453-486), so PD
    multiplexing's overlap assert passes there."""
    def mamba(**options: object) -> EngineConfig:
        return EngineConfig.from_dict({"engine": "sglang", "max_num_seqs": 32,
                                       "architecture": "Qwen3NextForCausalLM",
                                       "options": options})
    assert chunk.overlap_on(mamba())
    assert not chunk.overlap_on(mamba(linear_attn_backend="cutedsl"))
    assert not chunk.overlap_on(_config(disable_overlap_schedule=True))
    assert not chunk.overlap_on(_config(pp_size=2))


def test_config_file_gives_the_flags(tmp_path: Path) -> None:
    model = tmp_path / "moe"
    model.mkdir()
    (model / "config.json").write_text(json.dumps(MOE))
    for body, where in (("tp_size: 2\nnnodes: 4\n", "177-181"),
                        ("enable_torch_compile: true\ndisable_cuda_graph_padding: true\n",
                         "188-194")):
        ours = tmp_path / "graphfit.yaml"
        ours.write_text(f"model_path: {model}\n{body}")
        code, _, err = run_cli(["plan", "--gpu-memory-gb", "H100", "--weights-gb", "10",
                                "--config", str(ours)])
        assert code == 2 and f"validation_hook.py:{where})" in err, err


def test_live_server_args_give_the_flags() -> None:
    fields = fields_from_sglang(types.SimpleNamespace(nnodes=2, enable_torch_compile=True,
                                                      tp_size=2))
    assert (fields.get("nnodes"), fields.get("enable_torch_compile")) == (2, True)
    bare = fields_from_sglang(types.SimpleNamespace(nnodes=True, enable_torch_compile=False))
    assert "nnodes" not in bare and "enable_torch_compile" not in bare


def test_pp_spec_is_read_as_sglangs_envbool() -> None:
    assert [s.value for s in environment({"SGLANG_ENABLE_PP_SPEC": "TRUE"})] == [True]
    assert [s.value for s in environment({"SGLANG_ENABLE_PP_SPEC": "0"})] == [False]
    assert environment({"SGLANG_ENABLE_PP_SPEC": "maybe"}) == []  # SGLang keeps off


def test_pipeline_rule_without_speculation_or_pp() -> None:
    from graphfit.planner.engines.sglang_server_nodes import pipeline_problem

    assert pipeline_problem(_config(pp_size=2), {}) is None
    with pytest.raises(ConfigError):
        _config(nnodes=0)  # a count below one is refused when the options are built


@pytest.mark.parametrize(("fields", "where"), [
    ({}, "hisparse_hook.py:109-111"),
    ({"disable_radix_cache": True}, None),
    ({"disaggregation_mode": "decode"}, None),  # the PD hook turns the radix cache off
    ({"disaggregation_mode": "decode", "disaggregation_decode_enable_radix_cache": True},
     "hisparse_hook.py:109-111"),
    ({"disable_radix_cache": True, "enable_mixed_chunk": True}, "hisparse_hook.py:79-84"),
    ({"disable_radix_cache": True, "spec_method": SpecMethod.EAGLE,
      "speculative_eagle_topk": 4}, "hisparse_hook.py:118-122"),
    ({"disable_radix_cache": True, "spec_method": SpecMethod.EAGLE,
      "speculative_adaptive": True}, "hisparse_hook.py:123-127"),
    # the class assert first (:100-107; s68b): another architecture, a DSA architecture
    # without index_topk, one whose config.json was not read (not judged), a DSA checkpoint
    ({"architecture": "LlamaForCausalLM"}, "hisparse_hook.py:104-107"),
    ({"architecture": "DeepseekV3ForCausalLM", "dsa_checkpoint": False},
     "hisparse_hook.py:104-107"),
    ({"architecture": "DeepseekV3ForCausalLM", "disable_radix_cache": True}, None),
    ({"architecture": "DeepseekV3ForCausalLM", "dsa_checkpoint": True},
     "hisparse_hook.py:109-111"),
    ({"architecture": None}, None),
    # the DSA backend / dtype checks (graphfit.planner.engines.sglang_hisparse_dsa; s69b):
    # DeepSeek-V4's `auto` is fp8_e4m3; on ROCm it skips them; a DSA target's arm first; a
    # DSA target's `auto` on an unknown GPU is judged only where both dtypes agree
    ({"disable_radix_cache": True, "dsa_backends": (None, "fa3")}, "hisparse_hook.py:54-61"),
    ({"disable_radix_cache": True, "dsa_backends": (None, "flashmla_kv")}, None),
    ({"disable_radix_cache": True, "dsa_backends": (None, "fa3"), "gpu_rocm": True}, None),
    ({"architecture": "DeepseekV3ForCausalLM", "dsa_checkpoint": True,
      "dsa_backends": (None, "triton")}, "overrides.py:558-567"),
    ({"architecture": "DeepseekV3ForCausalLM", "dsa_checkpoint": True,
      "disable_radix_cache": True, "dsa_backends": ("flashmla_kv", None)}, None),
    ({"architecture": "DeepseekV3ForCausalLM", "dsa_checkpoint": True,
      "disable_radix_cache": True, "dsa_backends": ("fa3", None)}, "hisparse_hook.py:54-61"),
])
def test_hisparse_slot(fields: dict[str, object], where: str | None) -> None:
    """`validate_hisparse` at its check_server_args slot (validation_hook.py:296-300) on a
    DeepSeek-V4 line, in its order."""
    base: dict[str, object] = {
        "architecture": "DeepseekV4ForCausalLM", "enable_hisparse": True,
        "disable_radix_cache": False, "disaggregation_mode": "null",
        "disaggregation_decode_enable_radix_cache": False, "enable_mixed_chunk": False,
        "spec_method": SpecMethod.NONE, "speculative_eagle_topk": None,
        "speculative_adaptive": False, "dsa_checkpoint": None, "gpu_rocm": False,
        "kv_cache_dtype": None, "gpu_capability": None, "dsa_backends": None,
        "dsa_learnable_sink": None}
    config = cast(Any, types.SimpleNamespace(**{**base, **fields}))
    said = hisparse.problem(config, {})
    assert (said is None) == (where is None) and (where is None or where in str(said)), said


def test_sm103_and_sm120_pages() -> None:
    """SM103 is SM100 to SGLang (fa4 named: 128); on SM120 the page the flags leave, with a
    flag or none, and fa4 keeps it (issue 23, s68j; the oracle in
    tests/oracle/test_sglang_sm100_page_oracle.py)."""
    assert chunk.page_at_check(_config(gpu_capability=103, attention_backend_flag="fa4")) == 128
    assert chunk.page_at_check(_config(gpu_capability=120, page_size=64)) == 64
    assert chunk.page_at_check(_config(gpu_capability=120, attention_backend_flag="fa4")) == 1
    assert chunk.page_at_check(_config(gpu_capability=120,
                                       attention_backend_flag="trtllm_mha")) == 64
