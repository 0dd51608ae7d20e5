"""A float32 checkpoint's one-sided all-to-all workspace line in TensorRT-LLM, measured (not a
test; tests/oracle/test_trtllm_moe_legacy_quant_reference.py
`test_float32_names_the_class_it_builds` is), issue 23, s68t:

    python -m tests.oracle.measure_trtllm_moe_float32 200 --before /work/main

Draws N lines as tests/oracle/measure_trtllm_moe_legacy.py does, with a float32 checkpoint,
the MoE backend drawn from none, CUTLASS, TRTLLM, CUTEDSL, DENSEGEMM and DEEPGEMM, and
ENABLE_CONFIGURABLE_MOE unset or "0". Of the lines that show the workspace's bytes, it counts
those where the reference knows the class the line builds and what it does with float32
tokens (`ref.moe_get_cls`, `ref.moe_float32_fails`), and how many lines name that class and
its failure; and the others, where the class or its float32 behaviour is not restated, and
how many lines say so instead of naming a failure.
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path
from typing import Any

BACKENDS = [None, "CUTLASS", "TRTLLM", "CUTEDSL", "DENSEGEMM", "DEEPGEMM"]


def _legacy() -> Any:
    from tests.helpers import load_module

    return load_module(Path(__file__).resolve().parent / "measure_trtllm_moe_legacy.py",
                       "float32_moe_legacy_measure")


def _print(label: str, c: list[int]) -> None:
    print(f"{label}: lines {c[0]}, bytes shown {c[1]}; the class's float32 failure restated "
          f"{c[2]}, named {c[3]}/{c[2]}; not restated {c[4]}, said so {c[5]}/{c[4]}")


def draw_lines(n: int) -> list[dict[str, Any]]:
    import random

    items = _legacy().draw_lines(n)
    pick = random.Random(68)
    for item in items:
        item.update(dtype="float32", backend=pick.choice(BACKENDS),
                    configurable=pick.choice([None, "0"]))
    return items


def _algos(ref: Any, data: dict[str, Any], hf: Any) -> tuple[str | None, ...]:
    return tuple(ref.moe_auto_quant_algos(data, hf))


def _known(ref: Any, item: dict[str, Any], data: dict[str, Any], hf: Any) -> set[str] | None:
    """The classes the line may build, each with a restated float32 failure; None where one
    is not restated."""
    names = data.get("architectures") or [""]
    sm = None if item["gpu"] is None else ref.GPU_SM[item["gpu"]]
    classes: set[str] = set()
    for backend, algo in ref._requested_pairs(item["backend"], data, hf, sm):
        try:
            cls = ref.moe_get_cls(backend or "CUTLASS", algo, names[0], sm)
            if not ref.moe_float32_fails(cls, algo):
                return None
        except ref.NotModelled:
            return None
        classes.add(cls)
    return classes


def emit(lines: list[dict[str, Any]]) -> list[int]:
    """[lines, bytes shown, failure restated, named, not restated, said so]."""
    from graphfit import plan
    from graphfit.cli.options import build_config
    from tests.helpers import load_module

    ref = load_module(Path(__file__).resolve().parent / "trtllm_reference.py",
                      "float32_trtllm_reference")
    legacy = _legacy()
    c = [0] * 6
    with tempfile.TemporaryDirectory() as tmp:
        for i, item in enumerate(lines):
            c[0] += 1
            data, environ, words = legacy._write(Path(tmp), i, item)
            given = {} if item["gpu"] is None else {"gpu_memory_gb": item["gpu"]}
            shown = str(dict(plan(build_config(given, environ, words)).engine_inputs)
                        .get("moe_a2a_workspace"))
            if not re.search(r"bytes \([\d.]+ MiB\) in all", shown):
                continue
            c[1] += 1
            hf = None if item["hf"] is None else ref.NOT_JSON if item["hf"] == "not json" \
                else item["hf"]
            classes = _known(ref, item, data, hf)
            if classes is not None:
                c[2] += 1
                c[3] += all(cls in shown for cls in classes) and "first run" in shown
            else:
                c[4] += 1
                c[5] += "was not read" in shown and "raises at its first run" not in shown
    return c


def main() -> int:
    from tests.oracle.measure_before import measure

    return measure(__file__, sys.argv[1:], "TensorRT-LLM DEP lines over a local float32 MoE "
                   "checkpoint, moe_config backend, route and GPU drawn", draw_lines, emit,
                   _print)


if __name__ == "__main__":
    raise SystemExit(main())
