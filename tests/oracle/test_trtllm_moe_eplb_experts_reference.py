"""The EPLB expert count and an untyped checkpoint's itemsize in the one-sided all-to-all
workspace line (issue 23, s61t), graphfit against the restated engine
(tests/oracle/trtllm_reference.py):

* the expert count: the architecture's MoE class passes config.json's num_local_experts
  (Mixtral, `ref.cite_fact("mixtral_num_experts")`), num_experts (Qwen3-MoE,
  `ref.cite_fact("qwen3_moe_num_experts")`; Qwen2-MoE, s62t,
  `ref.cite_fact("qwen2_moe_num_experts")`), num_local_experts (GPT-OSS, s63t,
  `ref.cite_fact("gpt_oss_num_experts")`), num_experts (Qwen3-Next, s63t,
  `ref.cite_fact("qwen3_next_num_experts")`), text_config's num_local_experts (Llama 4,
  s63t, `ref.cite_fact("llama4_text_config")`) or n_routed_experts (DeepSeek-V3, s62t,
  `ref.cite_fact("deepseekv3_num_experts")`; DeepSeek-V4, s64t,
  `ref.cite_fact("deepseekv4_num_experts")`) to `create_moe`; under a load balancer the
  workspace is sized with that count (`ref.cite_fact("moe_eplb_count")`,
  `ref.cite_fact("moe_factory_eplb")`): `ref.moe_a2a_workspace_size` with it;
* the itemsize of an untyped checkpoint: bfloat16 through ModelConfig.torch_dtype on
  ConfigurableMoE, float16 through CutlassFusedMoE's fallback on the legacy route
  (`ref.moe_a2a_itemsize`): two bytes on both.

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
from tests.oracle.test_trtllm_moe_config_reference import TOKENS, line

WHY = (ref.cite_fact("mixtral_num_experts"), ref.cite_fact("qwen3_moe_num_experts"),
       ref.cite_fact("deepseekv3_num_experts"), ref.cite_fact("moe_eplb_count"),
       ref.cite_fact("model_config_torch_dtype"))
# a MoE architecture whose expert key graphfit does not read (not in `ref.MOE_EXPERT_KEY`)
UNREAD = "Glm4MoeForCausalLM"


def _checkpoint(folder: Path, data: dict[str, Any]) -> str:
    model = folder / "ckpt"
    model.mkdir(exist_ok=True)
    (model / "config.json").write_text(json.dumps(data))
    return str(model)


def _total(text: str) -> int | None:
    match = re.search(r"payload, (\d+) bytes \([\d.]+ MiB\) in all", text)
    return int(match[1]) if match else None


def _aux(text: str) -> int | None:
    match = re.search(r"(\d+) bytes \([\d.]+ MiB\) aux", text)
    return int(match[1]) if match else None


@settings(max_examples=25, deadline=None)
@given(arch=st.sampled_from(["MixtralForCausalLM", "Qwen3MoeForCausalLM",
                             "DeepseekV3ForCausalLM", "Qwen2MoeForCausalLM",
                             "GptOssForCausalLM", "Qwen3NextForCausalLM",
                             "Llama4ForConditionalGeneration", "DeepseekV4ForCausalLM",
                             UNREAD]),
       experts=st.sampled_from([8, 60, 128, 257]), hidden=st.sampled_from([2048, 4096, 7168]),
       top_k=st.sampled_from([2, 8]),
       dtype=st.sampled_from([None, "bfloat16", "float16", "float32"]),
       balancer=st.booleans(), tp=st.sampled_from([2, 4, 8]),
       configurable=st.sampled_from([None, "0"]))
def test_the_eplb_count_and_itemsize_are_the_engines(
        tmp_path_factory: Any, arch: str, experts: int, hidden: int, top_k: int,
        dtype: str | None, balancer: bool, tp: int, configurable: str | None) -> None:
    """Under a load balancer, a Mixtral / Qwen3-MoE / DeepSeek-V3 / Qwen2-MoE line's total is the
    engine's workspace with the checkpoint's expert count; another architecture's keeps the
    statistics a formula; without one, the total has no statistics; an untyped checkpoint
    is two bytes."""
    folder = Path(tmp_path_factory.mktemp("eplb"))
    data: dict[str, Any] = {"architectures": [arch], "hidden_size": hidden,
                            "num_experts_per_tok": top_k, "num_hidden_layers": 2,
                            "num_attention_heads": 16, "num_local_experts": experts,
                            "num_experts": experts, "n_routed_experts": experts}
    if dtype is not None:
        data["torch_dtype"] = dtype
    if arch in ref.MOE_TEXT_CONFIG:  # the sizes under text_config, none at the top
        data = {"architectures": [arch],
                "text_config": {k: v for k, v in data.items() if k != "architectures"}}
    moe_config = {"load_balancer": {"num_slots": experts}} if balancer else None
    environ = {} if configurable is None else {"ENABLE_CONFIGURABLE_MOE": configurable}
    got = str(line(folder, _checkpoint(folder, data), tp, True, moe_config, environ))
    itemsize = ref.moe_a2a_itemsize(dtype, not ref.moe_a2a_selects_itself(configurable))
    if not ref.moe_a2a_auto_sized(None, configurable, data):  # AUTO by the GPU (s64t)
        assert "not modelled" in got and _total(got) is None, (got, WHY)
        return
    if balancer and arch not in ref.MOE_EXPERT_KEY:
        assert "num_experts not read" in got and _total(got) is None, (got, WHY)
        return
    eplb = ref.moe_num_experts(data) if balancer else None
    want = ref.moe_a2a_workspace_size(tp, top_k, TOKENS, hidden, itemsize, eplb)
    assert _total(got) == want, (arch, balancer, dtype, got, want, WHY)
    assert _aux(got) == ref.moe_a2a_offsets(tp, TOKENS, eplb)["payload_data"], got


def test_fixed_cases(tmp_path: Path) -> None:
    """Mixtral-8x7B's DEP line (tp 4): the statistics of its 8 experts under EPLB; an
    untyped checkpoint sized as bf16; a float32 one with four-byte tokens
    (`ref.cite_fact("moe_a2a_float32")`, s66t); Qwen3-30B-A3B reads
    num_experts (128), not num_local_experts."""
    mixtral = {"architectures": ["MixtralForCausalLM"], "hidden_size": 4096,
               "num_experts_per_tok": 2, "num_local_experts": 8, "num_hidden_layers": 2,
               "num_attention_heads": 32}
    model = _checkpoint(tmp_path, mixtral)
    eplb = str(line(tmp_path, model, 4, True, {"load_balancer": {"num_slots": 8}}, {}))
    assert _total(eplb) == ref.moe_a2a_workspace_size(4, 2, TOKENS, 4096, 2, 8), eplb
    assert "8 experts" in eplb, eplb
    plain = str(line(tmp_path, model, 4, True, None, {}))
    assert _total(plain) == ref.moe_a2a_workspace_size(4, 2, TOKENS, 4096, 2), plain
    assert _total(eplb) != _total(plain)
    (Path(model) / "config.json").write_text(json.dumps({**mixtral, "torch_dtype": "float32"}))
    got = str(line(tmp_path, model, 4, True, None, {}))  # float32 tokens (s66t)
    assert _total(got) == ref.moe_a2a_workspace_size(4, 2, TOKENS, 4096, 4), got
    qwen = {"architectures": ["Qwen3MoeForCausalLM"], "hidden_size": 2048,
            "num_experts_per_tok": 8, "num_experts": 128, "num_local_experts": 3,
            "num_hidden_layers": 2, "num_attention_heads": 32, "torch_dtype": "bfloat16"}
    (tmp_path / "q").mkdir()
    model = _checkpoint(tmp_path / "q", qwen)
    got = str(line(tmp_path, model, 8, True, {"load_balancer": "eplb.yaml"}, {}))
    assert _total(got) == ref.moe_a2a_workspace_size(8, 8, TOKENS, 2048, 2, 128), got


def test_odd_architectures_read_no_count(tmp_path: Path) -> None:
    """An architectures value that is not a list of names reads no expert count and refuses
    nothing: the statistics stay a formula (no traceback on a nested or mapping entry)."""
    base = {"hidden_size": 4096, "num_experts_per_tok": 2, "num_local_experts": 8,
            "num_hidden_layers": 2, "num_attention_heads": 32}
    for archs in ([["MixtralForCausalLM"]], [{}], "MixtralForCausalLM", [], None):
        folder = tmp_path / str(abs(hash(repr(archs))))
        folder.mkdir()
        model = _checkpoint(folder, {**base, "architectures": archs})
        got = str(line(folder, model, 4, True, {"load_balancer": {"num_slots": 8}}, {}))
        assert "num_experts not read" in got, (archs, got)


def test_deepseek_v3_reads_n_routed_experts(tmp_path: Path) -> None:
    """DeepSeek-V3's DEP line (tp 8): its decoder layers build the MoE with
    config.n_routed_experts (256), not num_local_experts or num_experts
    (`ref.cite_fact("deepseekv3_num_experts")`, `ref.cite_fact("deepseekv3_moe")`); a
    checkpoint whose n_routed_experts is null builds no MoE layer
    (`ref.cite_fact("deepseekv3_moe_layer")`) and reads no count."""
    ds = {"architectures": ["DeepseekV3ForCausalLM"], "hidden_size": 7168,
          "num_experts_per_tok": 8, "n_routed_experts": 256, "num_local_experts": 3,
          "num_experts": 5, "num_hidden_layers": 2, "num_attention_heads": 128,
          "torch_dtype": "bfloat16"}
    model = _checkpoint(tmp_path, ds)
    got = str(line(tmp_path, model, 8, True, {"load_balancer": {"num_slots": 288}}, {}))
    assert ref.moe_num_experts(ds) == 256
    assert _total(got) == ref.moe_a2a_workspace_size(8, 8, TOKENS, 7168, 2, 256), got
    assert "256 experts" in got, got
    (Path(model) / "config.json").write_text(json.dumps({**ds, "n_routed_experts": None}))
    got = str(line(tmp_path, model, 8, True, {"load_balancer": {"num_slots": 288}}, {}))
    assert "num_experts not read" in got and _total(got) is None, got


def test_qwen2_moe_reads_num_experts(tmp_path: Path) -> None:
    """Qwen2-MoE-57B-A14B's DEP line (tp 4): every decoder layer's QwenMoE builds the MoE with
    config.num_experts (64), not num_local_experts (`ref.cite_fact("qwen2_moe_num_experts")`,
    `ref.cite_fact("qwen2_moe_create_moe")`); an architecture whose count is not read
    (`UNREAD`) keeps a formula."""
    qwen2 = {"architectures": ["Qwen2MoeForCausalLM"], "hidden_size": 3584,
             "num_experts_per_tok": 8, "num_experts": 64, "num_local_experts": 7,
             "num_hidden_layers": 2, "num_attention_heads": 28, "torch_dtype": "bfloat16"}
    model = _checkpoint(tmp_path, qwen2)
    got = str(line(tmp_path, model, 4, True, {"load_balancer": {"num_slots": 64}}, {}))
    assert ref.moe_num_experts(qwen2) == 64
    assert _total(got) == ref.moe_a2a_workspace_size(4, 8, TOKENS, 3584, 2, 64), got
    (Path(model) / "config.json").write_text(json.dumps(
        {**qwen2, "architectures": [UNREAD], "num_local_experts": 32}))
    got = str(line(tmp_path, model, 4, True, {"load_balancer": {"num_slots": 64}}, {}))
    assert "num_experts not read" in got and _total(got) is None, got


def _balanced(folder: Path, data: dict[str, Any], tp: int,
              environ: dict[str, str] | None = None, backend: str | None = None) -> str:
    """The DEP line (tp = ep = `tp`) under a load balancer over a checkpoint whose config.json
    is `data` (rewritten in place), with moe_config's `backend` when given."""
    model = _checkpoint(folder, data)
    moe_config: dict[str, Any] = {"load_balancer": {"num_slots": 8}}
    if backend is not None:
        moe_config["backend"] = backend
    return str(line(folder, model, tp, True, moe_config, environ or {}))


def _exact(got: str, tp: int, top_k: int, hidden: int, experts: int) -> None:
    """The line shows the engine's two-byte total with `experts` experts' statistics."""
    assert _total(got) == ref.moe_a2a_workspace_size(tp, top_k, TOKENS, hidden, 2, experts), got
    assert f"{experts} experts" in got, got


def _unread(got: str) -> None:
    assert "num_experts not read" in got and _total(got) is None, got


def test_gpt_oss_reads_num_local_experts(tmp_path: Path) -> None:
    """gpt-oss-120b's DEP line (tp 8): MLPBlock builds the MoE with
    config.num_local_experts (128), not num_experts (`ref.cite_fact("gpt_oss_num_experts")`,
    `ref.cite_fact("gpt_oss_create_moe")`); its MXFP4 checkpoint (hidden 2880, not a multiple
    of 128) keeps the payload a formula, but the aux part is exact with the 128 experts
    (moe_config backend CUTLASS: not given, AUTO resolves by the GPU, TRITON on SM 90-99,
    `ref.cite_fact("moe_auto_resolve")`, so that line gives no bytes)."""
    oss = {"architectures": ["GptOssForCausalLM"], "hidden_size": 2880,
           "num_experts_per_tok": 4, "num_local_experts": 128, "num_experts": 7,
           "num_hidden_layers": 2, "num_attention_heads": 64, "torch_dtype": "bfloat16"}
    assert ref.moe_num_experts(oss) == 128
    _exact(_balanced(tmp_path, oss, 8, backend="CUTLASS"), 8, 4, 2880, 128)
    got = _balanced(tmp_path, {**oss, "quantization_config": {"quant_method": "mxfp4"}}, 8,
                    backend="CUTLASS")
    assert _total(got) is None, got
    assert _aux(got) == ref.moe_a2a_offsets(8, TOKENS, 128)["payload_data"], got
    _unread(_balanced(tmp_path, {**oss, "num_local_experts": None}, 8, backend="CUTLASS"))
    auto = _balanced(tmp_path, oss, 8)
    assert "TRITON" in auto and "not modelled" in auto and _aux(auto) is None, auto


def test_qwen3_next_reads_num_experts(tmp_path: Path) -> None:
    """Qwen3-Next-80B-A3B's DEP line (tp 4): Qwen3NextSparseMoeBlock builds the MoE with
    config.num_experts (512), not num_local_experts (`ref.cite_fact("qwen3_next_num_experts")`,
    `ref.cite_fact("qwen3_next_create_moe")`), sized with its torch_dtype; untyped, two
    bytes on either route."""
    q3n = {"architectures": ["Qwen3NextForCausalLM"], "hidden_size": 2048,
           "num_experts_per_tok": 10, "num_experts": 512, "num_local_experts": 9,
           "num_hidden_layers": 2, "num_attention_heads": 16, "torch_dtype": "bfloat16"}
    assert ref.moe_num_experts(q3n) == 512
    _exact(_balanced(tmp_path, q3n, 4), 4, 10, 2048, 512)
    untyped = {k: v for k, v in q3n.items() if k != "torch_dtype"}
    for environ in ({}, {"ENABLE_CONFIGURABLE_MOE": "0"}):
        _exact(_balanced(tmp_path, untyped, 4, environ), 4, 10, 2048, 512)


def test_llama4_reads_text_config_num_local_experts(tmp_path: Path) -> None:
    """Llama-4-Maverick's DEP line (tp 8): the language model is built on text_config
    (`ref.cite_fact("llama4_text_config")`), whose num_local_experts (128) its MoE layers
    pass on (`ref.cite_fact("llama4_num_experts")`, `ref.cite_fact("llama4_create_moe")`);
    a top-level num_local_experts is not read, nor a null text_config or one without it."""
    text = {"hidden_size": 5120, "num_experts_per_tok": 1, "num_local_experts": 128,
            "num_hidden_layers": 2, "num_attention_heads": 40, "torch_dtype": "bfloat16"}
    llama4 = {"architectures": ["Llama4ForConditionalGeneration"], "num_local_experts": 3,
              "torch_dtype": "bfloat16", "text_config": text}
    assert ref.moe_num_experts(llama4) == 128
    _exact(_balanced(tmp_path, llama4, 8), 8, 1, 5120, 128)
    without = {k: v for k, v in text.items() if k != "num_local_experts"}
    for odd in (None, without):  # (a text_config not an object is refused by the reader)
        _unread(_balanced(tmp_path, {**llama4, "text_config": odd}, 8))


def test_deepseek_v4_reads_n_routed_experts(tmp_path: Path) -> None:
    """A DeepSeek-V4-shaped DEP line (tp 8; hidden 4096, 256 routed experts, top-6): every
    decoder layer builds DeepseekV4MoE with config.n_routed_experts, not num_local_experts or
    num_experts (`ref.cite_fact("deepseekv4_num_experts")`, `ref.cite_fact("deepseekv4_moe")`,
    `ref.cite_fact("deepseekv4_create_moe")`), sized with its torch_dtype, untyped two bytes
    (on the default route: without ConfigurableMoE, AUTO's TRTLLM on SM 100-119 is not
    modelled, `ref.cite_fact("moe_auto_resolve")`); a null n_routed_experts reads no
    count."""
    ds4 = {"architectures": ["DeepseekV4ForCausalLM"], "hidden_size": 4096,
           "num_experts_per_tok": 6, "n_routed_experts": 256, "num_local_experts": 3,
           "num_experts": 5, "num_hidden_layers": 2, "num_attention_heads": 64,
           "torch_dtype": "bfloat16"}
    assert ref.moe_num_experts(ds4) == 256
    _exact(_balanced(tmp_path, ds4, 8), 8, 6, 4096, 256)
    untyped = {k: v for k, v in ds4.items() if k != "torch_dtype"}
    _exact(_balanced(tmp_path, untyped, 8), 8, 6, 4096, 256)
    _exact(_balanced(tmp_path, untyped, 8, {"ENABLE_CONFIGURABLE_MOE": "0"}, "CUTLASS"), 8, 6,
           4096, 256)
    legacy = _balanced(tmp_path, untyped, 8, {"ENABLE_CONFIGURABLE_MOE": "0"})
    assert "TRTLLM" in legacy and _total(legacy) is None, legacy
    _unread(_balanced(tmp_path, {**ds4, "n_routed_experts": None}, 8))
