"""ConfigurableMoE's factory past NVLinkOneSided on the one-sided all-to-all line against the
restated engine, measured (not a test; tests/oracle/test_trtllm_moe_factory_fallback_reference.py
is):

    python -m tests.oracle.measure_trtllm_moe_factory_fallback 300 --before /work/wt/base70

Draws N DEP lines (`--tp_size E --ep_size E`, attention DP) over a local top-2
MixtralForCausalLM checkpoint with a drawn expert count (6, 8, 12, 16), dtype (bfloat16,
float16, float32, untyped) and E (2, 4, 8); `moe_config.backend` unset, CUTLASS or DEEPGEMM;
TRTLLM_CAN_USE_DEEP_EP from unset and a few spellings; ENABLE_CONFIGURABLE_MOE unset or "0";
TRTLLM_FORCE_COMM_METHOD unset or NVLINK_ONE_SIDED (issue 23, s70f). For this checkout and for
the graphfit at `--before` (a subprocess on the same lines, judged by this checkout's
reference; the before checkout's HEAD copied once, tests/oracle/before_tree.frozen) it
prints: the lines; of those where ConfigurableMoE's factory selects unforced, how many name
the strategies `ref.moe_factory_after_one_sided` gives, in its order
(`ref.cite_fact("moe_factory_fallback")`); of the others, how many name no fallback.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

HEAD = "if NVLinkOneSided cannot be built"
STRATEGIES = ("NVLinkTwoSided", "NcclEP", "DeepEP", "DeepEPLowLatency",
              "AllGatherReduceScatter")


def _print(label: str, c: list[int]) -> None:
    print(f"{label}: lines {c[0]}; the factory selects unforced {c[1]}, its order named "
          f"{c[2]}/{c[1]}; elsewhere no fallback named {c[4]}/{c[3]}")


def draw_lines(n: int) -> list[dict[str, Any]]:
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st

    out: list[dict[str, Any]] = []

    @settings(max_examples=n, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), derandomize=True)
    @given(experts=st.sampled_from([6, 8, 12, 16]), ep=st.sampled_from([2, 4, 8]),
           dtype=st.sampled_from(["bfloat16", "float16", None, "float32"]),
           switch=st.sampled_from([None, None, "1", "0", "", "true"]),
           backend=st.sampled_from([None, "CUTLASS", "DEEPGEMM"]),
           configurable=st.sampled_from([None, None, "0"]),
           comm=st.sampled_from([None, None, None, "NVLINK_ONE_SIDED"]))
    def draw(experts: int, ep: int, dtype: str | None, switch: str | None,
             backend: str | None, configurable: str | None, comm: str | None) -> None:
        out.append({"experts": experts, "ep": ep, "dtype": dtype, "switch": switch,
                    "backend": backend, "configurable": configurable, "comm": comm})

    draw()
    return out


def emit(lines: list[dict[str, Any]]) -> list[int]:
    """[lines, the factory selects unforced, its order named, other lines, none named]."""
    from graphfit import plan
    from graphfit.cli.options import build_config
    from tests.helpers import load_module

    ref = load_module(Path(__file__).resolve().parent / "trtllm_reference.py",
                      "moe_factory_trtllm_reference")
    c = [0] * 5
    with tempfile.TemporaryDirectory() as tmp:
        for i, item in enumerate(lines):
            model = Path(tmp) / f"m{i}"
            model.mkdir()
            data: dict[str, Any] = {
                "architectures": ["MixtralForCausalLM"], "hidden_size": 4096,
                "num_experts_per_tok": 2, "num_hidden_layers": 2, "num_attention_heads": 32,
                "num_local_experts": item["experts"]}
            if item["dtype"] is not None:
                data["torch_dtype"] = item["dtype"]
            (model / "config.json").write_text(json.dumps(data))
            options = Path(tmp) / f"o{i}.yaml"
            extra: dict[str, Any] = {"enable_attention_dp": True}
            if item["backend"] is not None:
                extra["moe_config"] = {"backend": item["backend"]}
            options.write_text(json.dumps(extra))
            pairs = (("TRTLLM_CAN_USE_DEEP_EP", item["switch"]),
                     ("ENABLE_CONFIGURABLE_MOE", item["configurable"]),
                     ("TRTLLM_FORCE_COMM_METHOD", item["comm"]))
            environ = {name: value for name, value in pairs if value is not None}
            ep = str(item["ep"])
            config = build_config({}, environ, [
                "trtllm-serve", str(model), "--tp_size", ep, "--ep_size", ep,
                "--extra_llm_api_options", str(options)])
            shown = str(dict(plan(config).engine_inputs).get("moe_a2a_workspace"))
            named: tuple[str, ...] = ()
            if HEAD in shown:
                named = tuple(m[0] for m in re.finditer(
                    rf"\b({'|'.join(STRATEGIES)})\b", shown[shown.index(HEAD):]))
            c[0] += 1
            if not ref.moe_a2a_selects_itself(item["configurable"]) and item["comm"] is None:
                c[1] += 1
                c[2] += named == ref.moe_factory_after_one_sided(
                    item["experts"], item["ep"], item["switch"],
                    ref.model_config_torch_dtype(item["dtype"]))
            else:
                c[3] += 1
                c[4] += HEAD not in shown
    return c


def main() -> int:
    from tests.oracle.measure_before import measure

    # emit_before reads --before's checkout as one frozen commit
    return measure(__file__, sys.argv[1:],
                   "TensorRT-LLM DEP lines over a local Mixtral checkpoint, "
                   "expert count, dtype, EP size, backend and the factory's switches drawn",
                   draw_lines, emit, _print)


if __name__ == "__main__":
    raise SystemExit(main())
