"""WIDEEP's all-to-all line against WideEPMoE's own selection, measured (not a test;
tests/oracle/test_trtllm_moe_legacy_quant_reference.py `test_wideep_switches_name_one_outcome`
is):

    python -m tests.oracle.measure_trtllm_moe_wideep 200 --before /work/wt/base69

Draws N DEP lines (`--tp_size T --ep_size T`, attention DP, `moe_config.backend` WIDEEP) over
a local bf16 MixtralForCausalLM checkpoint of a drawn top-k, with TRTLLM_MOE_DISABLE_ALLTOALLV,
TRTLLM_CAN_USE_DEEP_EP and ENABLE_CONFIGURABLE_MOE drawn from unset and a few spellings
(issue 23, s69o). For this checkout and for the graphfit at `--before` (a subprocess on the
same lines, judged by this checkout's reference; the before checkout's HEAD copied once,
tests/oracle/before_tree.frozen) it prints: the lines; how many name the one
outcome `ref.moe_wideep_method` gives (`ref.cite_fact("moe_wideep_select")`) and no other;
and, of the lines above top-k without TRTLLM_MOE_DISABLE_ALLTOALLV "1", how many do.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

SWITCHES = [None, None, "1", "1", "0", "", " 1", "true"]
CONFIGURABLE = [None, "1", "0"]
TOKENS = 8192
# what the line names for each outcome of ref.moe_wideep_method
OUTCOMES = {"NotEnabled": "so its method is NotEnabled",
            "MNNVL|NotEnabled": "where MNNVL is supported, else NotEnabled",
            "MNNVL|DeepEP": "where MNNVL is supported, else DeepEP"}


def _print(label: str, c: list[int]) -> None:
    print(f"{label}: lines {c[0]}; the one outcome named {c[1]}/{c[0]}; above top-k without "
          f"TRTLLM_MOE_DISABLE_ALLTOALLV=1 {c[2]}, named {c[3]}/{c[2]}")


def draw_lines(n: int) -> list[dict[str, Any]]:
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st

    out: list[dict[str, Any]] = []

    @settings(max_examples=n, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), derandomize=True)
    @given(top_k=st.integers(1, 8), tp=st.sampled_from([2, 4, 8, 16]),
           disable=st.sampled_from(SWITCHES), deep_ep=st.sampled_from(SWITCHES),
           configurable=st.sampled_from(CONFIGURABLE))
    def draw(top_k: int, tp: int, disable: str | None, deep_ep: str | None,
             configurable: str | None) -> None:
        out.append({"top_k": top_k, "tp": tp, "disable": disable, "deep_ep": deep_ep,
                    "configurable": configurable})

    draw()
    return out


def _environ(item: dict[str, Any]) -> dict[str, str]:
    pairs = (("TRTLLM_MOE_DISABLE_ALLTOALLV", item["disable"]),
             ("TRTLLM_CAN_USE_DEEP_EP", item["deep_ep"]),
             ("ENABLE_CONFIGURABLE_MOE", item["configurable"]))
    return {name: value for name, value in pairs if value is not None}


def emit(lines: list[dict[str, Any]]) -> list[int]:
    """[lines, the one outcome named, above top-k without the disabling switch, named]."""
    from graphfit import plan
    from graphfit.cli.options import build_config
    from tests.helpers import load_module

    ref = load_module(Path(__file__).resolve().parent / "trtllm_reference.py",
                      "moe_wideep_trtllm_reference")
    c = [0] * 4
    with tempfile.TemporaryDirectory() as tmp:
        options = Path(tmp) / "o.yaml"
        options.write_text(json.dumps({"enable_attention_dp": True,
                                       "moe_config": {"backend": "WIDEEP"}}))
        for i, item in enumerate(lines):
            model = Path(tmp) / f"m{i}"
            model.mkdir()
            (model / "config.json").write_text(json.dumps({
                "architectures": ["MixtralForCausalLM"], "hidden_size": 4096,
                "num_experts_per_tok": item["top_k"], "num_hidden_layers": 2,
                "num_attention_heads": 32, "num_local_experts": 16,
                "torch_dtype": "bfloat16"}))
            tp = str(item["tp"])
            config = build_config({}, _environ(item), [
                "trtllm-serve", str(model), "--tp_size", tp, "--ep_size", tp,
                "--extra_llm_api_options", str(options)])
            shown = str(dict(plan(config).engine_inputs).get("moe_a2a_workspace"))
            method = ref.moe_wideep_method(None, True, item["tp"], item["tp"], item["top_k"],
                                           item["disable"], item["deep_ep"])
            named = [words for words in OUTCOMES.values() if words in shown]
            right = named == [OUTCOMES[method]] and "never this one-sided" in shown
            c[0] += 1
            c[1] += right
            if item["disable"] != "1" and item["tp"] > item["top_k"]:
                c[2] += 1
                c[3] += right
    return c


def main() -> int:
    from tests.oracle.measure_before import measure

    # emit_before reads --before's checkout as one frozen commit
    return measure(__file__, sys.argv[1:], "TensorRT-LLM DEP lines with moe_config backend WIDEEP, "
                   "top-k and WideEPMoE's two switches drawn", draw_lines, emit, _print)


if __name__ == "__main__":
    raise SystemExit(main())
