"""Measure how often graphfit reads a pasted line as the engine's parser does.

    PYTHONPATH=. python -m tests.oracle.measure_paste [N]

Draws N generated `vllm serve` lines (vllm_args_oracle.vllm_command_lines) and N SGLang lines
(test_paste_oracle.sglang_command_lines), adds the corpus, and counts per engine: lines the
engine accepts / refuses, and lines where graphfit's decision and values agree (the checks of
test_paste_oracle.agree_*). Prints one summary line per engine and the first disagreements.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings


def _sample(strategy: Any, n: int) -> list[str]:
    out: list[str] = []

    @settings(max_examples=n, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(line: str) -> None:
        out.append(line)

    collect()
    return out


def main(n: int = 500) -> None:
    from tests.oracle import sglang_args_oracle as sa
    from tests.oracle import test_paste_oracle as tp
    from tests.oracle import vllm_args_oracle as va

    va.bootstrap()
    sa.bootstrap()
    corpus = [yaml.safe_load(p.read_text()) for p in sorted(
        (Path(__file__).parent / "command_lines").glob("*.yaml"))]
    jobs = {
        "vllm": ([(d["command"], d.get("files")) for d in corpus if d["engine"] == "vllm"]
                 + [(line, None) for line in _sample(va.vllm_command_lines(), n)],
                 lambda text, files: tp.agree_vllm(va, text, files),
                 lambda text, files: va.parse_vllm(text, files=files).ok),
        "sglang": ([(d["command"], d.get("files")) for d in corpus if d["engine"] == "sglang"]
                   + [(line, None) for line in _sample(tp.sglang_command_lines(), n)],
                   lambda text, files: tp.agree_sglang(sa, text, files),
                   lambda text, files: sa.parse_sglang(text, files=files).ok),
    }
    for engine, (lines, agree, accepted) in jobs.items():
        ok = refused = agreed = 0
        failures: list[str] = []
        for text, files in lines:
            if accepted(text, files):
                ok += 1
            else:
                refused += 1
            try:
                agree(text, files)
            except AssertionError as exc:
                failures.append(f"{text!r}: {str(exc).splitlines()[0][:200]}")
            else:
                agreed += 1
        print(f"{engine}: {len(lines)} lines ({ok} accepted, {refused} refused by the engine); "
              f"graphfit agrees on {agreed} ({100 * agreed / len(lines):.1f}%)")
        for failure in failures[:10]:
            print("  -", failure)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 500)
