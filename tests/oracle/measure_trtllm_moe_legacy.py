"""The class a MoE backend builds without ConfigurableMoE, in TensorRT-LLM's one-sided
all-to-all workspace line, measured (not a test; tests/oracle/test_trtllm_moe_auto_reference.py
`test_legacy_route_classes` and tests/oracle/test_trtllm_moe_legacy_quant_reference.py are):

    python -m tests.oracle.measure_trtllm_moe_legacy 300 --before /work/main

Draws N lines as tests/oracle/measure_trtllm_moe_auto.py does (a local bf16 checkpoint of a
drawn architecture and quantization, `--tp_size T --ep_size T`, attention DP), all with
ENABLE_CONFIGURABLE_MOE=0 and a `moe_config.backend` drawn from none, AUTO, CUTLASS and the
three backends whose class `get_moe_cls` picks by the quant config (TRTLLM, CUTEDSL,
DENSEGEMM; `ref.cite_fact("moe_legacy_cls")`, issue 23, s67t), and (s68t) a GPU drawn from
none and a few named ones. For this checkout and for the graphfit at `--before` (a subprocess
on the same lines, judged by this checkout's reference) it prints: the lines; those where
every class the line may build builds the restated workspace (`ref.moe_a2a_auto_sized`, or
`ref.moe_a2a_auto_sized_on` on a named GPU) and how many plans show the engine's total; the
others, how many plans give no bytes for them, and how many show bytes anyway; (s68k) the
lines with a named TRTLLM / CUTEDSL / DENSEGEMM backend over an algorithm whose class the
reference does not restate (`ref.moe_legacy_unread`), and how many name why; (s69h) the lines
on a named SM 120+ GPU whose class is TRTLLMGenFusedMoE, whose constructor raises there
(`ref.moe_trtllm_gen_raises`), and how many give no bytes and name the raise; the WIDEEP
lines whose WideEPMoE selects NotEnabled (`ref.moe_wideep_method`: EP size <= top-k), and how
many name it.

Each drawn line carries its checkpoint's files (config.json's quantization_config and the
hf_quant_config.json), not an index into this checkout's quantization list, so the other
checkout writes the same files (s68t).
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

BACKENDS = [None, "AUTO", "CUTLASS", "TRTLLM", "CUTEDSL", "DENSEGEMM", "WIDEEP"]
GPUS = [None, None, "H100", "B200", "GB300", "RTX5090", "A100"]
TOKENS = 8192
NOT_JSON = "not json"


def _print(label: str, c: list[int]) -> None:
    print(f"{label}: lines {c[0]}; the restated workspace {c[1]}, shown exactly "
          f"{c[2]}/{c[1]}; another class {c[3]}, no bytes given {c[4]}/{c[3]}, bytes shown "
          f"anyway {c[5]}; WIDEEP {c[6]}, its own methods named (no one-sided workspace) "
          f"{c[7]}/{c[6]}; the class not read for the algorithm {c[8]}, why named "
          f"{c[9]}/{c[8]}; TRTLLMGenFusedMoE on a named SM 120+ GPU {c[10]}, its raise named "
          f"{c[11]}/{c[10]}; WIDEEP whose method is NotEnabled (EP <= top-k) {c[12]}, named "
          f"{c[13]}/{c[12]}")


def draw_lines(n: int) -> list[dict[str, Any]]:
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st

    from tests.oracle.measure_trtllm_moe_auto import ARCHS, HF_FILES, QUANTS, inline_quant

    out: list[dict[str, Any]] = []

    @settings(max_examples=n, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), derandomize=True)
    @given(arch=st.sampled_from(ARCHS), quant=st.integers(0, len(QUANTS) - 1),
           backend=st.sampled_from(BACKENDS), top_k=st.integers(1, 8),
           tp=st.sampled_from([2, 4, 8]), gpu=st.sampled_from(GPUS))
    def draw(arch: str | None, quant: int, backend: str | None, top_k: int, tp: int,
             gpu: str | None) -> None:
        value = QUANTS[quant]
        out.append({"arch": arch, "inline": inline_quant(value),
                    "hf": HF_FILES[value][0] if isinstance(value, str) else None,
                    "backend": backend, "top_k": top_k, "tp": tp, "gpu": gpu})

    draw()
    return out


def _write(tmp: Path, i: int, item: dict[str, Any]
           ) -> tuple[dict[str, Any], dict[str, str], list[str]]:
    """Line `i`'s checkpoint and options file; (config.json's dict, the environment, the
    serving words). An item may name its `dtype` (default bfloat16) and its
    ENABLE_CONFIGURABLE_MOE (`configurable`, default "0"; None: unset), s68t's float32
    measure."""
    model = tmp / f"m{i}"
    model.mkdir()
    data: dict[str, Any] = {"hidden_size": 4096, "num_experts_per_tok": item["top_k"],
                            "num_hidden_layers": 2, "num_attention_heads": 32,
                            "torch_dtype": item.get("dtype", "bfloat16")}
    if item["arch"] is not None:
        data["architectures"] = [item["arch"]]
    if item["inline"] is not None:
        data["quantization_config"] = item["inline"]
    (model / "config.json").write_text(json.dumps(data))
    if item["hf"] is not None:
        hf = item["hf"]
        (model / "hf_quant_config.json").write_text("{" if hf == NOT_JSON else json.dumps(hf))
    options = tmp / f"o{i}.yaml"
    extra: dict[str, Any] = {"enable_attention_dp": True}
    if item["backend"] is not None:
        extra["moe_config"] = {"backend": item["backend"]}
    options.write_text(json.dumps(extra))
    environ = {} if item.get("configurable", "0") is None else {
        "ENABLE_CONFIGURABLE_MOE": item.get("configurable", "0")}
    tp = str(item["tp"])
    return data, environ, ["trtllm-serve", str(model), "--tp_size", tp, "--ep_size", tp,
                  "--extra_llm_api_options", str(options)]


def emit(lines: list[dict[str, Any]]) -> list[int]:
    """[lines, sized, shown exactly, another class, no bytes given, bytes shown anyway,
    WIDEEP lines, WideEPMoE's methods named, lines whose class is not read, why named,
    TRTLLMGenFusedMoE lines on SM 120+ (s69h), the raise named, WIDEEP lines whose method is
    NotEnabled (s69h), named]."""
    from graphfit import plan
    from graphfit.cli.options import build_config
    from tests.helpers import load_module

    ref = load_module(Path(__file__).resolve().parent / "trtllm_reference.py",
                      "moe_legacy_trtllm_reference")
    c = [0] * 14
    with tempfile.TemporaryDirectory() as tmp:
        for i, item in enumerate(lines):
            c[0] += 1
            data, environ, words = _write(Path(tmp), i, item)
            given = {} if item["gpu"] is None else {"gpu_memory_gb": item["gpu"]}
            config = build_config(given, environ, words)
            shown = str(dict(plan(config).engine_inputs).get("moe_a2a_workspace"))
            match = re.search(r"payload, (\d+) bytes \([\d.]+ MiB\) in all", shown)
            got = int(match[1]) if match else None
            hf = None if item["hf"] is None else ref.NOT_JSON if item["hf"] == NOT_JSON \
                else item["hf"]
            sized = (ref.moe_a2a_auto_sized(item["backend"], "0", data, hf)
                     if item["gpu"] is None else
                     ref.moe_a2a_auto_sized_on(item["backend"], "0", data, hf,
                                               ref.GPU_SM[item["gpu"]]))
            if sized:
                c[1] += 1
                c[2] += got == ref.moe_a2a_workspace_size(item["tp"], item["top_k"], TOKENS,
                                                          4096, 2)
            else:
                c[3] += 1
                c[4] += got is None
                c[5] += got is not None
            if item["backend"] == "WIDEEP":  # s68t: WideEPMoE's own methods
                c[6] += 1
                c[7] += (not ref.moe_wideep_one_sided() and "WideEPMoE" in shown
                         and "never this one-sided workspace" in shown)
                if ref.moe_wideep_method(None, True, item["tp"], item["tp"],
                                         item["top_k"]) == "NotEnabled":  # s69h
                    c[12] += 1
                    c[13] += "NotEnabled: no all-to-all is built" in shown
            if _unread(ref, item, data, hf):  # s68k: why the class is not read
                c[8] += 1
                algos = ref.moe_auto_quant_algos(data, hf)
                c[9] += ("which class get_moe_cls builds is not read" in shown
                         and all(str(algo) in shown or (ref.moe_legacy_unread(str(algo))
                                                        == "name"
                                                        and "a name QuantAlgo lacks" in shown)
                                 for algo in algos))
            if _trtllm_gen_raises(ref, item, data, hf):  # s69h: the constructor's SM bar
                c[10] += 1
                c[11] += got is None and "SM120 and above" in shown
    return c


def _trtllm_gen_raises(ref: Any, item: dict[str, Any], data: dict[str, Any], hf: Any) -> bool:
    """A line on a named GPU where every class it may build is TRTLLMGenFusedMoE and its
    constructor raises there (`ref.moe_trtllm_gen_raises`, issue 23, s69h)."""
    if item["gpu"] is None or not ref.moe_trtllm_gen_raises(ref.GPU_SM[item["gpu"]]):
        return False
    names = data.get("architectures") or [""]
    classes = set()
    for backend, algo in ref._requested_pairs(item["backend"], data, hf, ref.GPU_SM[item["gpu"]]):
        try:
            classes.add(ref.moe_get_cls(backend or "CUTLASS", algo, names[0],
                                        ref.GPU_SM[item["gpu"]]))
        except ref.NotModelled:
            return False
    return classes == {"TRTLLMGenFusedMoE"}


def _unread(ref: Any, item: dict[str, Any], data: dict[str, Any], hf: Any) -> bool:
    """A named TRTLLM / CUTEDSL / DENSEGEMM backend over a checkpoint every algorithm of
    which the reference's `get_moe_cls` does not restate (`ref.moe_legacy_unread`, s68k)."""
    algos = ref.moe_auto_quant_algos(data, hf)
    return (item["backend"] in ("TRTLLM", "CUTEDSL", "DENSEGEMM")
            and item["arch"] not in ref.MOE_AUTO_DEEPSEEK_V4
            and all(algo is not None and algo not in ref._LEGACY_MODES for algo in algos))


def main() -> int:
    from tests.oracle.measure_before import measure

    return measure(__file__, sys.argv[1:], "TensorRT-LLM DEP lines over a local MoE "
                   "checkpoint without ConfigurableMoE, moe_config backend and GPU drawn",
                   draw_lines, emit, _print)


if __name__ == "__main__":
    raise SystemExit(main())
