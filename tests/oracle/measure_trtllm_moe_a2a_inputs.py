"""TensorRT-LLM's one-sided MoE all-to-all workspace on pasted serving lines, measured (not a
test; tests/oracle/test_trtllm_moe_a2a_reference.py and
tests/oracle/test_trtllm_moe_a2a_inputs_reference.py are):

    python -m tests.oracle.measure_trtllm_moe_a2a_inputs 200 --before /work/main

Draws N lines `trtllm-serve MODEL --tp_size T [--ep_size E] --extra_llm_api_options FILE`
(FILE: enable_attention_dp, max_num_tokens and moe_tensor_parallel_size, the last two maybe
absent; E often T, so that many lines have MoE EP with attention DP),
MODEL a local checkpoint (hidden_size, num_experts_per_tok, torch_dtype drawn) or a hub id,
with `TRTLLM_MOE_A2A_WORKSPACE_MB` unset or drawn. For this checkout and for the graphfit at
`--before` (a subprocess on the same lines) it prints: the planned lines; of those where the
restated CutlassFusedMoE builds the one-sided method (`ref.moe_a2a_one_sided`), the plans
that show the workspace with the engine's aux bytes and rows; of the others, those that show
none; of the one-sided lines with a value int() accepts (>= 1), those showing the engine's
bytes for it; of the one-sided lines without the variable and with a two-byte checkpoint,
those showing the engine's total (`ref.moe_a2a_workspace_size`).
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

ENV = "TRTLLM_MOE_A2A_WORKSPACE_MB"


def _engine_env_bytes(ref: Any, raw: str | None) -> int | None:
    if not raw:
        return None
    try:
        value: int = ref.moe_a2a_workspace_size(1, 1, 1, 1, 2, env_mb=raw)
    except ValueError:
        return None
    return value if value >= 1 else None


def workspace_line(ref: Any, raw: dict[str, Any], environ: dict[str, str], words: list[str]
                   ) -> tuple[Any, Any, str | None] | None:
    """(the restated mapping's sizes, graphfit's plan, its moe_a2a_workspace line) of the pasted
    line `words` with `environ` (raw: its LLM-API values); None where the mapping or graphfit
    refuses it. Shared with measure_trtllm_moe_a2a_force, which loads this file by path."""
    from graphfit import ConfigError, plan
    from graphfit.cli.options import build_config

    try:
        sizes = ref.moe_mapping(raw, 1, None)
        p = plan(build_config({}, environ, words))
    except (ref.Rejected, ConfigError):
        return None
    return sizes, p, dict(p.engine_inputs).get("moe_a2a_workspace")


def emit(lines: list[dict[str, Any]]) -> list[int]:
    """[lines, planned, one-sided, shown with the engine's aux and rows, not one-sided,
    none shown, env lines, env bytes shown, checkpoint lines, total shown]."""
    from tests.helpers import load_module

    ref = load_module(Path(__file__).resolve().parent / "trtllm_reference.py",
                      "a2a_inputs_trtllm_reference")
    c = [0] * 10
    with tempfile.TemporaryDirectory() as tmp:
        for i, item in enumerate(lines):
            c[0] += 1
            model = "meta-llama/Llama-3.1-8B"
            if item["checkpoint"] is not None:
                folder = Path(tmp) / f"m{i}"
                folder.mkdir()
                (folder / "config.json").write_text(json.dumps(item["checkpoint"]))
                model = str(folder)
            options = Path(tmp) / f"o{i}.yaml"
            options.write_text(json.dumps(item["options"]))
            words = ["trtllm-serve", model, "--tp_size", str(item["tp"])]
            if item["ep"] is not None:
                words += ["--ep_size", str(item["ep"])]
            words += ["--extra_llm_api_options", str(options)]
            raw = {"tensor_parallel_size": item["tp"], **item["options"]}
            if item["ep"] is not None:
                raw["moe_expert_parallel_size"] = item["ep"]
            environ = {} if item["env"] is None else {ENV: item["env"]}
            found = workspace_line(ref, raw, environ, words)
            if found is None:
                continue
            sizes, p, shown = found
            c[1] += 1
            if not ref.moe_a2a_one_sided(raw, sizes):
                c[4] += 1
                c[5] += shown is None
                continue
            c[2] += 1
            limit = p.config.max_num_batched_tokens
            aux = ref.moe_a2a_offsets(sizes.ep, limit)["payload_data"]
            match = re.search(r"(\d+) bytes \([\d.]+ MiB\) aux \+ (\d+) rows", shown or "")
            c[3] += bool(match) and (int(match[1]), int(match[2])) == (aux, sizes.ep * limit)
            env_bytes = _engine_env_bytes(ref, item["env"])
            if env_bytes is not None:
                c[6] += 1
                found = re.search(r"replaces it: (\d+) bytes", shown or "")
                c[7] += bool(found) and int(found[1]) == env_bytes
            ckpt = item["checkpoint"]
            if not item["env"] and ckpt is not None and ckpt.get("torch_dtype") in (
                    "bfloat16", "float16", "float32"):  # float32: s66t
                c[8] += 1
                total = ref.moe_a2a_workspace_size(sizes.ep, ckpt["num_experts_per_tok"],
                                                   limit, ckpt["hidden_size"],
                                                   ref.DTYPE_ITEMSIZE[ckpt["torch_dtype"]])
                found = re.search(r"(\d+) bytes \([\d.]+ MiB\) in all", shown or "")
                c[9] += bool(found) and int(found[1]) == total
    return c


def _print(label: str, c: list[int]) -> None:
    print(f"{label}: lines {c[0]}, planned {c[1]}; one-sided {c[2]}, workspace shown with "
          f"the engine's aux bytes and rows {c[3]}/{c[2]}; not one-sided {c[4]}, none shown "
          f"{c[5]}/{c[4]}; {ENV} set (int() >= 1) {c[6]}, engine's bytes shown {c[7]}/{c[6]}; "
          f"typed checkpoint {c[8]}, engine's total shown {c[9]}/{c[8]}")


def draw_lines(n: int) -> list[dict[str, Any]]:
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st

    out: list[dict[str, Any]] = []
    maybe = st.none() | st.sampled_from([1, 2, 4, 8])
    checkpoint = st.none() | st.fixed_dictionaries({
        "architectures": st.just(["DeepseekV3ForCausalLM"]),
        "hidden_size": st.integers(256, 8192), "num_experts_per_tok": st.integers(1, 22),
        "num_hidden_layers": st.just(4), "num_attention_heads": st.just(16),
        "torch_dtype": st.sampled_from(["bfloat16", "float16", "float32"])})

    @settings(max_examples=n, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), derandomize=True)
    @given(tp=st.sampled_from([1, 2, 4, 8]), ep=st.just("tp") | maybe,
           moe_tp=st.sampled_from([None, None, None, 1, 2]),
           adp=st.booleans(), tokens=st.none() | st.integers(256, 16384),
           env=st.none() | st.sampled_from(["64", " 256 ", "1_024", "0", "-3", "x", "2.5"]),
           ckpt=checkpoint)
    def draw(tp: int, ep: int | str | None, moe_tp: int | None, adp: bool,
             tokens: int | None, env: str | None, ckpt: dict[str, Any] | None) -> None:
        options: dict[str, Any] = {"enable_attention_dp": adp}
        if tokens is not None:
            options["max_num_tokens"] = tokens
        if moe_tp is not None:
            options["moe_tensor_parallel_size"] = moe_tp
        out.append({"tp": tp, "ep": tp if ep == "tp" else ep, "options": options,
                    "env": env, "checkpoint": ckpt})

    draw()
    return out


def main() -> int:
    args = sys.argv[1:]
    from tests.oracle.measure_before import measure

    return measure(__file__, args, "TensorRT-LLM serving lines with MoE parallel sizes, "
                   f"{ENV} and local checkpoints", draw_lines, emit, _print)


if __name__ == "__main__":
    raise SystemExit(main())
