"""The EPLB expert count and an untyped checkpoint's itemsize in TensorRT-LLM's one-sided
all-to-all workspace line, measured (not a test;
tests/oracle/test_trtllm_moe_eplb_experts_reference.py is):

    python -m tests.oracle.measure_trtllm_moe_eplb_experts 300 --before /work/main

Draws N lines `trtllm-serve CKPT --tp_size T --ep_size T --extra_llm_api_options FILE`
(FILE: enable_attention_dp true, and on some lines a moe_config load_balancer) over a local
checkpoint (a drawn architecture: Mixtral, Qwen3-MoE, DeepSeek-V3, Qwen2-MoE, GPT-OSS
(s62t), Qwen3-Next, Llama 4 (its sizes under text_config), GLM-4-MoE (s63t; GLM-4-MoE's
count is not read) or DeepSeek-V4 (s64t); a drawn expert count, hidden size, top-k and
torch_dtype: bfloat16, float16, float32 or none), with ENABLE_CONFIGURABLE_MOE unset or "0",
no moe_config backend (AUTO: s64t counts a line known only where every backend AUTO may
resolve to builds the restated workspace, `ref.moe_a2a_auto_sized`). For this checkout and
for the graphfit at `--before` (a subprocess on the same lines) it prints: the lines; those
whose total the restated engine gives from the checkpoint (`ref.moe_a2a_workspace_size` with
`ref.moe_a2a_itemsize`, float32 too since s66t, and, under a load balancer,
`ref.moe_num_experts`, and
under a load balancer an architecture in `ref.MOE_EXPERT_KEY`), and how many plans show that
exact total, with the load-balancer lines and the untyped lines apart; and the plans that
show a total other than the engine's.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

TOKENS = 8192


def emit(lines: list[dict[str, Any]]) -> list[int]:
    """[lines, engine total known, shown exactly, balancer lines known, shown exactly,
    untyped lines known, shown exactly, wrong totals shown]."""
    from graphfit import plan
    from graphfit.cli.options import build_config
    from tests.helpers import load_module

    ref = load_module(Path(__file__).resolve().parent / "trtllm_reference.py",
                      "eplb_experts_trtllm_reference")
    c = [0] * 8
    with tempfile.TemporaryDirectory() as tmp:
        for i, item in enumerate(lines):
            c[0] += 1
            model = Path(tmp) / f"m{i}"
            model.mkdir()
            data: dict[str, Any] = {
                "architectures": [item["arch"]], "hidden_size": item["hidden"],
                "num_experts_per_tok": item["top_k"], "num_hidden_layers": 2,
                "num_attention_heads": 16, "num_local_experts": item["experts"],
                "num_experts": item["experts"], "n_routed_experts": item["experts"]}
            if item["dtype"] is not None:
                data["torch_dtype"] = item["dtype"]
            if item["arch"] in ref.MOE_TEXT_CONFIG:  # the sizes under text_config
                data = {"architectures": [item["arch"]],
                        "text_config": {k: v for k, v in data.items() if k != "architectures"}}
            (model / "config.json").write_text(json.dumps(data))
            options = Path(tmp) / f"o{i}.yaml"
            extra: dict[str, Any] = {"enable_attention_dp": True}
            if item["balancer"]:
                extra["moe_config"] = {"load_balancer": {"num_slots": item["experts"]}}
            options.write_text(json.dumps(extra))
            environ = {} if item["configurable"] is None else {
                "ENABLE_CONFIGURABLE_MOE": item["configurable"]}
            tp = str(item["tp"])
            config = build_config({}, environ, ["trtllm-serve", str(model), "--tp_size", tp,
                                                "--ep_size", tp, "--extra_llm_api_options",
                                                str(options)])
            shown = str(dict(plan(config).engine_inputs).get("moe_a2a_workspace"))
            match = re.search(r"payload, (\d+) bytes \([\d.]+ MiB\) in all", shown)
            got = int(match[1]) if match else None
            known = (not item["balancer"] or item["arch"] in ref.MOE_EXPERT_KEY) and (
                ref.moe_a2a_auto_sized(None, item["configurable"], data))  # s64t; float32 s66t
            if not known:
                continue
            configurable = not ref.moe_a2a_selects_itself(item["configurable"])
            eplb = ref.moe_num_experts(data) if item["balancer"] else None
            want = ref.moe_a2a_workspace_size(item["tp"], item["top_k"], TOKENS, item["hidden"],
                                              ref.moe_a2a_itemsize(item["dtype"], configurable),
                                              eplb)
            c[1] += 1
            c[2] += got == want
            if item["balancer"]:
                c[3] += 1
                c[4] += got == want
            if item["dtype"] is None:
                c[5] += 1
                c[6] += got == want
            c[7] += got is not None and got != want
    return c


def _print(label: str, c: list[int]) -> None:
    print(f"{label}: lines {c[0]}; engine's total known {c[1]}, shown exactly {c[2]}/{c[1]} "
          f"(load balancer {c[4]}/{c[3]}, untyped checkpoint {c[6]}/{c[5]}); other totals "
          f"shown {c[7]}")


def draw_lines(n: int) -> list[dict[str, Any]]:
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st

    out: list[dict[str, Any]] = []

    @settings(max_examples=n, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), derandomize=True)
    @given(arch=st.sampled_from(["MixtralForCausalLM", "Qwen3MoeForCausalLM",
                                 "DeepseekV3ForCausalLM", "Qwen2MoeForCausalLM",
                                 "GptOssForCausalLM", "Qwen3NextForCausalLM",
                                 "Llama4ForConditionalGeneration", "Glm4MoeForCausalLM",
                                 "DeepseekV4ForCausalLM"]),
           experts=st.integers(1, 384), hidden=st.sampled_from([2048, 4096, 5120, 7168]),
           top_k=st.integers(1, 8), dtype=st.sampled_from([None, "bfloat16", "float16",
                                                            "float32"]),
           balancer=st.booleans(), tp=st.sampled_from([2, 4, 8]),
           configurable=st.sampled_from([None, None, "0"]))
    def draw(arch: str, experts: int, hidden: int, top_k: int, dtype: str | None,
             balancer: bool, tp: int, configurable: str | None) -> None:
        out.append({"arch": arch, "experts": experts, "hidden": hidden, "top_k": top_k,
                    "dtype": dtype, "balancer": balancer, "tp": tp,
                    "configurable": configurable})

    draw()
    return out


def main() -> int:
    args = sys.argv[1:]
    from tests.oracle.measure_before import measure

    return measure(__file__, args, "TensorRT-LLM DEP lines over a local MoE checkpoint, with "
                   "and without moe_config.load_balancer", draw_lines, emit, _print)


if __name__ == "__main__":
    raise SystemExit(main())
