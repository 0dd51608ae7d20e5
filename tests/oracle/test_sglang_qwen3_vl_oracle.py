"""SGLang's large-Hopper Qwen3-VL decode override (graphfit/planner/engines/sglang_qwen3_vl.py)
vs SGLang 0.5.23's own resolution pipeline (arg_groups/model_overrides/qwen3_vl.py:34-60,
called from memory_hook.py:190-196), on a Qwen3-VL config.json.

A line is pasted as a user pastes it, with a GPU named by `--gpu-memory-gb NAME`
(graphfit.inputs.gpus: its memory and whether it is Hopper); SGLang resolves the same line
under a stub that reports that GPU's memory and compute capability (9.0 for a Hopper name,
8.0 for an Ampere one, CUDA 12.9: tests/oracle/sglang_stubs.fake_cuda). Compared: the decode
batch sizes SGLang resolves (cuda_graph_config.decode.bs) and graphfit's declared decode
ladder.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")

from graphfit import ConfigError  # noqa: E402
from graphfit.cli.options import resolve_values  # noqa: E402
from graphfit.inputs import commandline  # noqa: E402
from graphfit.inputs.gpus import GPU_MEMORY_GB  # noqa: E402
from graphfit.planner.plan import plan  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_stubs  # noqa: E402

CAPABILITY = {"H100": (9, 0), "H200": (9, 0), "H20": (9, 0), "A100": (8, 0),
              "A100-40GB": (8, 0), "L40S": (8, 9)}
_MODEL: list[Path] = []


def model_dir() -> Path:
    if not _MODEL:
        import tempfile

        root = Path(tempfile.mkdtemp(prefix="graphfit-qwen3vl-"))
        _MODEL.append(sglang_stubs.write_qwen3_vl_model_dir(root / "qwen3-vl"))
    return _MODEL[0]


def sglang_decode(argv: tuple[str, ...], gpu: str) -> tuple[int, ...] | None:
    """SGLang's resolved decode batch sizes on `gpu`, or None when it rejects the line."""
    o = so.oracle()
    err = io.StringIO()
    mib = GPU_MEMORY_GB[gpu] * 1024
    with sglang_stubs.fake_cuda(mib, capability=CAPABILITY[gpu]):
        try:
            with contextlib.redirect_stderr(err):
                record = o.server_args.prepare_server_args(
                    ["--model-path", str(model_dir()), *argv])
            record.resolve_once()
        except (SystemExit, Exception):
            return None
        from sglang.srt.arg_groups.overrides import resolving_view

        return tuple(resolving_view(record).cuda_graph_config.decode.bs)


def graphfit_decode(argv: tuple[str, ...], gpu: str) -> tuple[int, ...] | str:
    line = ["python", "-m", "sglang.launch_server", "--model-path", str(model_dir()), *argv]
    try:
        config = resolve_values({"gpu_memory_gb": gpu}, environ={},
                                pasted=commandline.read(line)).config()
        return plan(config).config_ladder.sizes
    except ConfigError as exc:
        return str(exc)


def compare(argv: tuple[str, ...], gpu: str) -> list[str]:
    theirs = sglang_decode(argv, gpu)
    if theirs is None:
        return []
    ours = graphfit_decode(argv, gpu)
    if isinstance(ours, str):
        return []
    return [] if tuple(ours) == tuple(sorted(set(theirs))) else [
        f"{gpu}: SGLang decode bs max {max(theirs)} ({len(theirs)}), graphfit max "
        f"{max(ours)} ({len(ours)})"]


GRID: list[tuple[tuple[str, ...], str]] = [
    (("--max-running-requests", "512"), "H100"),  # raised 256 -> 512
    (("--max-running-requests", "512"), "A100"),  # not Hopper: 256
    (("--max-running-requests", "300"), "H200"),  # 140 GiB: 256 -> 300
    (("--max-running-requests", "513"), "H100"),  # above 512: not raised
    (("--max-running-requests", "100"), "H100"),  # the default clamp reaches 100 anyway
    (("--max-running-requests", "512"), "A100-40GB"),  # < 60 GiB
    (("--max-running-requests", "512", "--cuda-graph-max-bs-decode", "128"), "H100"),  # locked
    (("--max-running-requests", "512", "--cuda-graph-bs-decode", "1", "8", "64"), "H100"),
    (("--max-running-requests", "400", "--tp", "2"), "H20"),
    (("--max-running-requests", "512", "--disable-cuda-graph"), "H100"),
]


@pytest.mark.parametrize(("argv", "gpu"), GRID, ids=[f"{' '.join(a)}@{g}" for a, g in GRID])
def test_decode_sizes_equal_sglang(argv: tuple[str, ...], gpu: str) -> None:
    assert compare(argv, gpu) == []


def test_the_override_is_exercised() -> None:
    """Not vacuous: SGLang raises the decode max_bs on a Hopper and not on an Ampere, and
    graphfit reads both lines."""
    argv = ("--max-running-requests", "512")
    hopper, ampere = sglang_decode(argv, "H100"), sglang_decode(argv, "A100")
    assert hopper is not None and ampere is not None
    assert max(hopper) == 512 and max(ampere) == 256
    assert all(not isinstance(graphfit_decode(argv, g), str) for g in ("H100", "A100"))


@given(st.integers(1, 700), st.sampled_from(tuple(CAPABILITY)),
       st.sampled_from(((), ("--tp", "4"), ("--disaggregation-mode", "decode"))))
def test_generated_lines(s: int, gpu: str, extra: tuple[str, ...]) -> None:
    argv: Any = ("--max-running-requests", str(s), *extra)
    assert compare(argv, gpu) == []
