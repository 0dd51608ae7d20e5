"""WideEPMoE's DeepEP methods on the WIDEEP line against the restated engine, measured (not a
test; tests/oracle/test_trtllm_moe_deep_ep_reference.py is):

    python -m tests.oracle.measure_trtllm_moe_deep_ep 300 --before /work/wt/base70

Draws N DEP lines (`--tp_size E --ep_size E`, attention DP, `moe_config.backend` WIDEEP,
TRTLLM_CAN_USE_DEEP_EP "1", ENABLE_CONFIGURABLE_MOE unset or "0") over a local top-1
MixtralForCausalLM checkpoint whose dtype is drawn from bfloat16, float16, float32 and
untyped, and E from 2-64 (issue 23, s70f). For this checkout and for the graphfit at
`--before` (a subprocess on the same lines, judged by this checkout's reference; the before
checkout's HEAD copied once, tests/oracle/before_tree.frozen) it prints: the lines; how many
name after MNNVL exactly the methods `ref.moe_wideep_deep_ep` gives over every local MPI size
(1-16) and both installs (`ref.cite_fact("moe_wideep_deep_ep")`); of the lines whose dtype is
not bfloat16, how many name NotEnabled alone; of the bfloat16 lines with an EP size no node
makes feasible, how many name DeepEPLowLatency and not DeepEP.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

DTYPES = ["bfloat16", "float16", None, "float32"]
EP_SIZES = [2, 3, 4, 5, 6, 8, 12, 16, 20, 24, 32, 48, 64]
FALLBACK = re.compile(r"where MNNVL is supported, (.*); never this one-sided")
METHODS = ("DeepEP", "DeepEPLowLatency", "NotEnabled")


def _print(label: str, c: list[int]) -> None:
    print(f"{label}: lines {c[0]}; the engine's methods named {c[1]}/{c[0]}; not bfloat16, "
          f"NotEnabled alone {c[3]}/{c[2]}; bfloat16 and never feasible, DeepEPLowLatency "
          f"without DeepEP {c[5]}/{c[4]}")


def draw_lines(n: int) -> list[dict[str, Any]]:
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st

    out: list[dict[str, Any]] = []

    @settings(max_examples=n, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), derandomize=True)
    @given(ep=st.sampled_from(EP_SIZES), dtype=st.sampled_from(DTYPES),
           legacy=st.booleans())
    def draw(ep: int, dtype: str | None, legacy: bool) -> None:
        out.append({"ep": ep, "dtype": dtype, "legacy": legacy})

    draw()
    return out


def emit(lines: list[dict[str, Any]]) -> list[int]:
    """[lines, the methods named, not bfloat16, NotEnabled alone, bfloat16 never feasible,
    DeepEPLowLatency without DeepEP]."""
    from graphfit import plan
    from graphfit.cli.options import build_config
    from tests.helpers import load_module

    ref = load_module(Path(__file__).resolve().parent / "trtllm_reference.py",
                      "moe_deep_ep_trtllm_reference")
    c = [0] * 6
    with tempfile.TemporaryDirectory() as tmp:
        options = Path(tmp) / "o.yaml"
        options.write_text(json.dumps({"enable_attention_dp": True,
                                       "moe_config": {"backend": "WIDEEP"}}))
        for i, item in enumerate(lines):
            model = Path(tmp) / f"m{i}"
            model.mkdir()
            data: dict[str, Any] = {
                "architectures": ["MixtralForCausalLM"], "hidden_size": 4096,
                "num_experts_per_tok": 1, "num_hidden_layers": 2, "num_attention_heads": 64,
                "num_local_experts": 192}
            if item["dtype"] is not None:
                data["torch_dtype"] = item["dtype"]
            (model / "config.json").write_text(json.dumps(data))
            environ = {"TRTLLM_CAN_USE_DEEP_EP": "1"}
            if item["legacy"]:
                environ["ENABLE_CONFIGURABLE_MOE"] = "0"
            ep = str(item["ep"])
            config = build_config({}, environ, [
                "trtllm-serve", str(model), "--tp_size", ep, "--ep_size", ep,
                "--extra_llm_api_options", str(options)])
            shown = str(dict(plan(config).engine_inputs).get("moe_a2a_workspace"))
            match = FALLBACK.search(shown)
            named = set() if match is None else {
                m for m in METHODS if re.search(rf"\b{m}\b", match[1])}
            want = {ref.moe_wideep_deep_ep(item["ep"], item["dtype"], installed, mpi)
                    for installed in (True, False) for mpi in range(1, 17)}
            c[0] += 1
            c[1] += named == want
            if item["dtype"] != "bfloat16":
                c[2] += 1
                c[3] += named == {"NotEnabled"}
            elif "DeepEP" not in want:
                c[4] += 1
                c[5] += "DeepEPLowLatency" in named and "DeepEP" not in named
    return c


def main() -> int:
    from tests.oracle.measure_before import measure

    # emit_before reads --before's checkout as one frozen commit
    return measure(__file__, sys.argv[1:],
                   "TensorRT-LLM DEP lines with moe_config backend WIDEEP and "
                   "TRTLLM_CAN_USE_DEEP_EP=1, EP size and checkpoint dtype drawn", draw_lines,
                   emit, _print)


if __name__ == "__main__":
    raise SystemExit(main())
