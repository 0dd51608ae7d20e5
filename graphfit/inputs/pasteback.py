"""A ladder written back in each engine's own syntax, ready to paste into its command line.

* vLLM 0.33: `--cudagraph-capture-sizes 4 8 12` (space-separated: a comma list is refused,
  engine/arg_utils.py nargs="+") or `-cc '{"cudagraph_capture_sizes": [4, 8, 12]}'`;
* SGLang 0.5.23: `--cuda-graph-bs-decode 1 2 4` (space-separated; `--cuda-graph-bs` is an
  ambiguous prefix there);
* TensorRT-LLM: the `cuda_graph_config` block of the `--extra_llm_api_options` YAML.

`ladder_warnings` says what the ladder means for the smallest batches (a ladder without small
sizes pads a single request's decode to its smallest size).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import cast

from graphfit.planner.core.enums import Engine, Unit


def vllm_ladder(sizes: Sequence[int], padding: bool = True) -> list[str]:
    """Both vLLM spellings: the top-level flag and the compilation config."""
    listed = [int(s) for s in sizes]
    return [f"--cudagraph-capture-sizes {' '.join(map(str, listed))}",
            f"-cc '{json.dumps({'cudagraph_capture_sizes': listed})}'"]


def sglang_ladder(sizes: Sequence[int], padding: bool = True) -> list[str]:
    """SGLang 0.5.23's decode batch sizes (and padding off when the ladder relies on it)."""
    lines = [f"--cuda-graph-bs-decode {' '.join(str(int(s)) for s in sizes)}"]
    if not padding:
        lines.append("--disable-cuda-graph-padding")
    return lines


def trtllm_ladder(sizes: Sequence[int], padding: bool = True) -> list[str]:
    """The `cuda_graph_config` entry of TensorRT-LLM's LLM API options YAML
    (`--extra_llm_api_options FILE`), as one flow-style line: lines of one engine are
    alternatives or independent flags, so their order never matters."""
    listed = ", ".join(str(int(s)) for s in sizes)
    return [f"cuda_graph_config: {{enable_padding: {'true' if padding else 'false'}, "
            f"batch_sizes: [{listed}]}}"]


def described_ladder(sizes: Sequence[int], padding: bool = True) -> list[str]:
    """A described engine's first component: its ladder as an explicit list (the line to
    put in its `ladder` table of the engine file, replacing `grid`)."""
    lines = [f"sizes = [{', '.join(str(int(s)) for s in sizes)}]"]
    if not padding:
        lines.append('padding = "exact"  # in its dispatch table')
    return lines


PasteBack = tuple[str, Callable[[Sequence[int], bool], list[str]]]  # (where, lines of)

# each engine's paste-back, named by its entry in the plugin table (planner.engines.table)
VLLM_PASTEBACK: PasteBack = ("vllm serve (either line)", vllm_ladder)
SGLANG_PASTEBACK: PasteBack = ("sglang serve / python -m sglang.launch_server", sglang_ladder)
TRTLLM_PASTEBACK: PasteBack = ("trtllm-serve --extra_llm_api_options FILE (YAML)",
                               trtllm_ladder)
DESCRIBED_PASTEBACK: PasteBack = ("the engine file: the first component's ladder",
                                  described_ladder)


def ladder_syntax(engine: Engine | str, sizes: Sequence[int], *, padding: bool = True,
                  version: str | None = None) -> tuple[str, list[str]]:
    """(where to paste, the lines) for `engine` at `version`, from the plugin table;
    ConfigError for an engine without a command line (a described engine)."""
    from graphfit.planner.engines.table import part

    where, render = cast(PasteBack, part(engine, "pasteback", version))
    return where, render(sizes, padding)


def ladder_warnings(sizes: Sequence[int], unit: Unit, query_len: int) -> list[str]:
    """What the smallest sizes mean: a decode of one request (q tokens, or one request in a
    batch-size ladder) pads to the smallest size at or above it."""
    if not sizes:
        return []
    smallest = min(sizes)
    single = query_len if unit is Unit.TOKENS else 1
    if smallest <= single:
        return []
    what = f"a 1-request decode ({single} tokens)" if unit is Unit.TOKENS and single > 1 \
        else "a 1-request decode"
    return [f"no size below {smallest}: {what} pads to {smallest}"]
