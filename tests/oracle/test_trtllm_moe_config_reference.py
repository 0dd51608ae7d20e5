"""`moe_config` (backend, load_balancer) in the one-sided all-to-all workspace line, graphfit
against the restated engine (tests/oracle/trtllm_reference.py):

* the backend: `get_moe_cls` upper-cases it (`ref.cite_fact("moe_get_cls")`); `create_moe`
  wraps DEEPGEMM / TRTLLM / CUTEDSL / CUTLASS / DENSEGEMM in ConfigurableMoE by default
  (`ref.cite_fact("moe_configurable")`), whose CommunicationFactory builds NVLinkOneSided first
  under the same conditions (`ref.cite_fact("moe_factory_select")`); outside ConfigurableMoE
  (ENABLE_CONFIGURABLE_MOE set to another value) only CutlassFusedMoE's own selection is
  restated. `ref.moe_a2a_backend_sized` says which lines the restated workspace is;
* load_balancer: the EPLB statistics join the auxiliary part
  (`ref.cite_fact("moe_eplb_count")`, `ref.cite_fact("moe_factory_eplb")`).

Lines are pasted serving commands with an `--extra_llm_api_options` YAML, read by graphfit's
command-line reader.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import plan
from graphfit.cli.options import build_config
from tests.oracle import trtllm_reference as ref

WHY = (ref.cite_fact("moe_get_cls"), ref.cite_fact("moe_configurable"),
       ref.cite_fact("moe_factory_select"))
TOKENS = 8192
BACKENDS = [None, "CUTLASS", "cutlass", "TRTLLM", "DeepGemm", "CUTEDSL", "DENSEGEMM",
            "VANILLA", "TRITON", "WIDEEP", "AUTO", "MARLIN"]


def line(folder: Path, model: str, tp: int, adp: bool, moe_config: dict[str, Any] | None,
         environ: dict[str, str]) -> str | None:
    """The plan's moe_a2a_workspace line of `trtllm-serve MODEL --tp_size tp --ep_size tp
    --extra_llm_api_options FILE` (FILE: enable_attention_dp and moe_config)."""
    options = folder / "options.yaml"
    data: dict[str, Any] = {"enable_attention_dp": adp}
    if moe_config is not None:
        data["moe_config"] = moe_config
    options.write_text(json.dumps(data))
    config = build_config({}, environ, ["trtllm-serve", model, "--tp_size", str(tp),
                                        "--ep_size", str(tp), "--extra_llm_api_options",
                                        str(options)])
    return dict(plan(config).engine_inputs).get("moe_a2a_workspace")


def _aux(text: str) -> int | None:
    match = re.search(r"(\d+) bytes \([\d.]+ MiB\) aux", text)
    return int(match[1]) if match else None


@settings(max_examples=30, deadline=None)
@given(backend=st.sampled_from(BACKENDS),
       balancer=st.sampled_from([None, {"num_slots": 288}, "eplb.yaml"]),
       configurable=st.sampled_from([None, "1", "0"]), tp=st.sampled_from([1, 2, 4, 8]),
       adp=st.booleans())
def test_the_backend_and_balancer_are_the_engines(tmp_path_factory: Any, backend: str | None,
                                                  balancer: Any, configurable: str | None,
                                                  tp: int, adp: bool) -> None:
    """No line where no method is selected; a "not modelled" line without bytes where the
    backend's all-to-all is not the restated one; else the engine's aux bytes, with the
    EPLB statistics named as their addition when a load balancer is given."""
    folder = Path(tmp_path_factory.mktemp("moe_config"))
    moe_config: dict[str, Any] | None = None
    if backend is not None or balancer is not None:
        moe_config = {key: v for key, v in (("backend", backend),
                                                  ("load_balancer", balancer)) if v is not None}
    environ = {} if configurable is None else {"ENABLE_CONFIGURABLE_MOE": configurable}
    got = line(folder, "meta-llama/Llama-3.1-8B", tp, adp, moe_config, environ)
    if not ref.moe_a2a_selected(tp, adp, tp):
        assert got is None, got
        return
    assert got is not None
    if not ref.moe_a2a_backend_sized(backend, configurable):
        assert "not modelled" in got and _aux(got) is None, (backend, configurable, got, WHY)
        return
    assert _aux(got) == ref.moe_a2a_offsets(tp, TOKENS)["payload_data"], (got, WHY)
    assert ("EPLB statistics" in got) == (balancer is not None), got


def test_the_eplb_addition_is_the_engines() -> None:
    """The line's EPLB wording, ep_size x num_experts x 4 bytes added to the auxiliary part
    and 128-byte aligned, is what the restated offsets give (the statistics sit between the
    aligned send indices and the aligned payload)."""
    for ep, experts in ((2, 8), (4, 256), (8, 288), (64, 1), (3, 33)):
        for tokens in (1, 8192, 777):
            added = (ref.moe_a2a_eplb_aux(ep, tokens, experts)
                     - ref.moe_a2a_offsets(ep, tokens)["payload_data"])
            assert added == -(-ep * experts * 4 // 128) * 128, (ep, experts, tokens)


def test_fixed_cases(tmp_path: Path) -> None:
    """DeepSeek-V3's DEP line (tp 4, ep 4, attention DP), a local bf16 checkpoint: the exact
    total with the default or a wrapped backend; with a load balancer the payload stays a
    formula (num_experts is not read); WIDEEP and, outside ConfigurableMoE, TRTLLM over an
    FP8 block-scale checkpoint are not modelled (unquantized: CutlassFusedMoE, sized, s67t);
    an upper-cased spelling is the same backend."""
    model = tmp_path / "ckpt"
    model.mkdir()
    (model / "config.json").write_text(json.dumps({
        "architectures": ["DeepseekV3ForCausalLM"], "hidden_size": 7168,
        "num_experts_per_tok": 8, "num_hidden_layers": 2, "num_attention_heads": 8,
        "torch_dtype": "bfloat16"}))
    total = ref.moe_a2a_workspace_size(4, 8, TOKENS, 7168, 2)
    for moe_config in (None, {"backend": "CUTLASS"}, {"backend": "trtllm"},
                       {"backend": "DEEPGEMM"}):
        got = str(line(tmp_path, str(model), 4, True, moe_config, {}))
        assert f"{total} bytes" in got, (moe_config, got)
    eplb = str(line(tmp_path, str(model), 4, True, {"load_balancer": {"num_slots": 288}}, {}))
    assert "EPLB statistics" in eplb and "in all" not in eplb, eplb
    # WIDEEP at EP 4 <= top-k 8: WideEPMoE's method is NotEnabled (s69h,
    # `ref.cite_fact("moe_wideep_select")`)
    assert ref.moe_wideep_method(None, True, 4, 4, 8) == "NotEnabled"
    assert "NotEnabled" in str(line(tmp_path, str(model), 4, True, {"backend": "WIDEEP"}, {}))
    # outside ConfigurableMoE get_moe_cls builds CutlassFusedMoE for TRTLLM on a checkpoint
    # without a quant mode it serves (s67t, `ref.cite_fact("moe_legacy_cls")`), and
    # TRTLLMGenFusedMoE for FP8 block scales, which selects and sizes as CutlassFusedMoE does
    # (s69h, `ref.cite_fact("moe_trtllm_gen_select")`)
    legacy = str(line(tmp_path, str(model), 4, True, {"backend": "TRTLLM"},
                      {"ENABLE_CONFIGURABLE_MOE": "0"}))
    assert f"{total} bytes" in legacy, legacy
    data = json.loads((model / "config.json").read_text())
    assert ref.moe_a2a_auto_sized("TRTLLM", "0", data)
    data["quantization_config"] = {"quant_method": "fp8", "weight_block_size": [128, 128]}
    (model / "config.json").write_text(json.dumps(data))
    legacy = str(line(tmp_path, str(model), 4, True, {"backend": "TRTLLM"},
                      {"ENABLE_CONFIGURABLE_MOE": "0"}))
    assert f"{total} bytes" in legacy and "TRTLLMGenFusedMoE" in legacy, legacy
    assert ref.moe_a2a_auto_sized("TRTLLM", "0", data)
