"""`TRTLLM_FORCE_ALLTOALL_METHOD` / `TRTLLM_FORCE_COMM_METHOD`, `ENABLE_CONFIGURABLE_MOE` and
`moe_config` on pasted TensorRT-LLM serving lines, measured (not a test;
tests/oracle/test_trtllm_moe_a2a_force_reference.py and
tests/oracle/test_trtllm_moe_config_reference.py are):

    python -m tests.oracle.measure_trtllm_moe_a2a_force 300 --before /work/main

Draws N lines `trtllm-serve MODEL --tp_size T [--ep_size E] --extra_llm_api_options FILE`
(FILE: enable_attention_dp, and a drawn moe_config backend / load_balancer on some lines) with
TRTLLM_FORCE_ALLTOALL_METHOD set to a drawn value (a member name, a misspelling, empty) and
ENABLE_CONFIGURABLE_MOE and TRTLLM_FORCE_COMM_METHOD unset or drawn. For this checkout and
for the graphfit at `--before` (a subprocess on the same lines) it prints: the planned lines;
of those where CutlassFusedMoE's conditions select a method (`ref.moe_a2a_one_sided`), the
plans whose workspace line gives the engine's outcome (`outcome`: on the default route the
unforced workspace and that the variable is not read; on the legacy route what
`ref.moe_a2a_forced_method` gives, on the default route `ref.moe_comm_forced`'s strategy
where TRTLLM_FORCE_COMM_METHOD is set; "not modelled" where `ref.moe_a2a_backend_sized` says
the backend's all-to-all is not the restated one; the EPLB statistics named exactly where a
load balancer is given and bytes are shown), and the same for the legacy-route lines and the
moe_config lines alone; of the others, those that show no line.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

ENV = "TRTLLM_FORCE_ALLTOALL_METHOD"
COMM = "TRTLLM_FORCE_COMM_METHOD"
CONFIGURABLE = "ENABLE_CONFIGURABLE_MOE"


def outcome(ref: Any, value: str, configurable: str | None, shown: str,
            moe_config: dict[str, Any] | None = None, comm: str | None = None) -> bool:
    """Whether the plan's line `shown` says what the engine does with the variables set and
    `moe_config` given."""
    aux = re.search(r"\d+ bytes \([\d.]+ MiB\) aux", shown)
    moe_config = moe_config or {}
    if not ref.moe_a2a_backend_sized(moe_config.get("backend"), configurable):
        return "not modelled" in shown and not aux
    if comm is not None and not ref.moe_a2a_selects_itself(configurable):
        try:
            method = ref.moe_comm_forced(comm)
        except ValueError:
            return "ValueError (unknown" in shown and not aux
        words = "two-sided" if method == "NVLINK_TWO_SIDED" else f"the {method} strategy"
        if method != "NVLINK_ONE_SIDED":
            return words in shown and not aux and "unknown" not in shown
    if aux and ("EPLB statistics" in shown) != (moe_config.get("load_balancer") is not None):
        return False
    if not ref.moe_a2a_selects_itself(configurable):
        return bool(aux) and f"{ENV}={value!r} is not read" in shown
    try:
        method = ref.moe_a2a_forced_method(value)
    except KeyError:
        return "KeyError" in shown and not aux
    except NotImplementedError:
        return "NotImplementedError" in shown and not aux
    words = {"NotEnabled": "no all-to-all is built", "NVLinkTwoSided": "MnnvlMoe",
             "NVLinkOneSided": f"{ENV}=NVLinkOneSided"}[method]
    return words in shown and (bool(aux) == (method == "NVLinkOneSided"))


def emit(lines: list[dict[str, Any]]) -> list[int]:
    """[lines, planned, selecting lines, engine's outcome shown, legacy-route selecting
    lines, engine's outcome shown, not selecting, none shown, moe_config selecting lines,
    engine's outcome shown]."""
    from tests.helpers import load_module

    here = Path(__file__).resolve().parent
    ref = load_module(here / "trtllm_reference.py", "a2a_force_trtllm_reference")
    inputs = load_module(here / "measure_trtllm_moe_a2a_inputs.py", "a2a_force_inputs_measure")
    c = [0] * 10
    with tempfile.TemporaryDirectory() as tmp:
        for i, item in enumerate(lines):
            c[0] += 1
            options = Path(tmp) / f"o{i}.yaml"
            data: dict[str, Any] = {"enable_attention_dp": item["adp"]}
            if item.get("moe_config") is not None:
                data["moe_config"] = item["moe_config"]
            options.write_text(json.dumps(data))
            words = ["trtllm-serve", "meta-llama/Llama-3.1-8B", "--tp_size", str(item["tp"])]
            if item["ep"] is not None:
                words += ["--ep_size", str(item["ep"])]
            words += ["--extra_llm_api_options", str(options)]
            raw = {"tensor_parallel_size": item["tp"], "enable_attention_dp": item["adp"],
                   "moe_expert_parallel_size": item["ep"]}
            environ = {ENV: item["force"]}
            if item.get("comm") is not None:
                environ[COMM] = item["comm"]
            if item["configurable"] is not None:
                environ[CONFIGURABLE] = item["configurable"]
            found = inputs.workspace_line(ref, raw, environ, words)
            if found is None:
                continue
            sizes, _, shown = found
            c[1] += 1
            if not ref.moe_a2a_one_sided(raw, sizes):
                c[6] += 1
                c[7] += shown is None
                continue
            good = shown is not None and outcome(ref, item["force"], item["configurable"],
                                                 shown, item.get("moe_config"),
                                                 item.get("comm"))
            c[2] += 1
            c[3] += good
            if ref.moe_a2a_selects_itself(item["configurable"]):
                c[4] += 1
                c[5] += good
            if item.get("moe_config") is not None:
                c[8] += 1
                c[9] += good
    return c


def _print(label: str, c: list[int]) -> None:
    print(f"{label}: lines {c[0]}, planned {c[1]}; method selected {c[2]}, engine's outcome "
          f"shown {c[3]}/{c[2]} (legacy route {c[5]}/{c[4]}, with moe_config {c[9]}/{c[8]}); "
          f"no method selected {c[6]}, none shown {c[7]}/{c[6]}")


def draw_lines(n: int) -> list[dict[str, Any]]:
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st

    out: list[dict[str, Any]] = []
    names = ["NotEnabled", "NVLinkOneSided", "NVLinkTwoSided", "DeepEP", "DeepEPLowLatency"]

    @settings(max_examples=n, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), derandomize=True)
    @given(tp=st.sampled_from([1, 2, 4, 8]), ep=st.sampled_from(["tp", "tp", None, 1, 2]),
           adp=st.sampled_from([True, True, False]),
           force=st.sampled_from(names) | st.sampled_from(["", "MNNVL", "deepep", "AllGather"]),
           configurable=st.sampled_from([None, None, "1", "0", "", "false"]),
           backend=st.sampled_from([None, None, "CUTLASS", "trtllm", "DEEPGEMM", "WIDEEP",
                                    "VANILLA", "AUTO"]),
           balancer=st.sampled_from([None, None, {"num_slots": 288}]),
           comm=st.sampled_from([None, None, None, "NVLINK_ONE_SIDED", "allgather", "DEEPEP",
                                 "NVLINK_TWO_SIDED", "MNNVL", ""]))
    def draw(tp: int, ep: int | str | None, adp: bool, force: str, configurable: str | None,
             backend: str | None, balancer: dict[str, int] | None, comm: str | None) -> None:
        moe_config = None
        if backend is not None or balancer is not None:
            moe_config = {key: v for key, v in (("backend", backend),
                                                  ("load_balancer", balancer)) if v is not None}
        out.append({"tp": tp, "ep": tp if ep == "tp" else ep, "adp": adp, "force": force,
                    "configurable": configurable, "moe_config": moe_config, "comm": comm})

    draw()
    return out


def main() -> int:
    args = sys.argv[1:]
    from tests.oracle.measure_before import measure

    return measure(__file__, args, f"TensorRT-LLM serving lines with {ENV}, {COMM}, "
                   f"{CONFIGURABLE} and moe_config", draw_lines, emit, _print)


if __name__ == "__main__":
    raise SystemExit(main())
