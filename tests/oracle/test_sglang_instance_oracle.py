"""An `instance://` model path, graphfit vs SGLang 0.5.23's own resolution.

Inkling's FULL prefill default and MuseGlimmer's prefill max skip such a path
(arg_groups/cuda_graph_hook.py:357-362, 378-382), but SGLang builds the model's ModelConfig
for every line (attention_hook.py:110-113 at pipeline.py:242; memory_hook.py:235, 282), and
that pull has no device (configs/model_config.py:2261-2266 -> connector/remote_instance.py:
19): every such line ends in an AttributeError. Drawn lines (prefill / decode graph flags,
the static fraction, TP, attention backends) must be refused by SGLang in that frame and by
graphfit on each entry -- a pasted line, its own flags, a config file, `from_sglang` -- while
the same flags on a local Inkling directory resolve on both (the control). Before this
check graphfit planned an Inkling `instance://` line with the FULL prefill graphs the hook
skips."""

from __future__ import annotations

import traceback
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")

from graphfit import ConfigError  # noqa: E402
from tests.oracle import sglang_mamba_memory_oracle as mm  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_plan_prefill as spp  # noqa: E402
from tests.oracle import sglang_stubs  # noqa: E402

INSTANCE = "instance://10.0.0.1:5000/inkling"
INKLING = "InklingForConditionalGeneration"
REASON = "connector/remote_instance.py:19"
FLAG_POOL: list[tuple[str, ...]] = [
    ("--cuda-graph-backend-prefill", "breakable"), ("--cuda-graph-backend-prefill", "full"),
    ("--disable-prefill-cuda-graph",), ("--disable-cuda-graph",),
    ("--cuda-graph-max-bs-prefill", "512"), ("--mem-fraction-static", "0.8"),
    ("--tp", "2"), ("--attention-backend", "triton"), ("--chunked-prefill-size", "4096"),
    ("--cuda-graph-max-bs-decode", "64")]
FLAGS = st.lists(st.sampled_from(FLAG_POOL), max_size=4, unique=True)


def sglang_failure(argv: list[str]) -> Exception | None:
    """What SGLang's resolution of `argv` raised (its traceback read by the callers), None
    when it resolved."""
    o = so.oracle()
    with sglang_stubs.fake_cuda(80 * 1024):
        record = o.server_args.prepare_server_args(argv)
        try:
            record.resolve_once()
        except Exception as exc:  # SGLang's own failure
            return exc
    return None


def _sglang_frame(argv: list[str]) -> str:
    """Where SGLang's resolution of `argv` raised: 'Type path:line' of the last frame
    (traceback.extract_tb), '' when it resolved."""
    exc = sglang_failure(argv)
    if exc is None:
        return ""
    last = traceback.extract_tb(exc.__traceback__)[-1]
    return f"{type(exc).__name__} {last.filename.split('srt/')[-1]}:{last.lineno}"


def _graphfit(argv: list[str]) -> str:
    """graphfit's refusal of the pasted line ('' when it plans it)."""
    try:
        spp.graphfit_plan(tuple(argv[2:]), 80, argv[1])
    except ConfigError as exc:
        return str(exc)
    return ""


@settings(max_examples=4, deadline=None)
@given(FLAGS)
def test_instance_path_refused_by_both(flags: list[tuple[str, ...]]) -> None:
    extra = [w for flag in flags for w in flag]
    line = ["--model-path", INSTANCE, "--max-running-requests", "48", *extra]
    frame = _sglang_frame(line)
    assert frame == f"AttributeError {REASON}", frame
    refusal = _graphfit(line)
    assert REASON in refusal and "instance://" in refusal and len(refusal) <= 200, refusal
    # the control: the same flags on a local Inkling directory resolve on both sides
    local = ["--model-path", mm.model_dir(mm.INKLING), *line[2:]]
    assert _sglang_frame(local) == ""
    assert _graphfit(local) == ""


@pytest.mark.parametrize("how", ["flags", "file", "live"])
def test_instance_path_refused_on_graphfit_entries(how: str, tmp_path: Path) -> None:
    """graphfit's own --model-path, a config file's model_path and `from_sglang` refuse the
    path SGLang fails on; planned before, with Inkling's FULL prefill graphs."""
    from graphfit.cli.options import resolve_values
    from graphfit.integrations.sglang import from_sglang

    values = {"engine": "sglang", "architecture": INKLING, "gpu_memory_gb": 80.0}
    with pytest.raises(ConfigError, match=r"remote_instance\.py:19"):
        if how == "flags":
            resolve_values({**values, "model_path": INSTANCE}, environ={}).config()
        elif how == "file":
            path = tmp_path / "inkling.yaml"
            path.write_text(f"engine: sglang\nmodel_path: {INSTANCE}\n"
                            f"architecture: {INKLING}\n")
            resolve_values({"config_file": str(path), "gpu_memory_gb": 80.0}, environ={}).config()
        else:
            record = so.oracle().server_args.prepare_server_args(
                ["--model-path", INSTANCE, "--max-running-requests", "48"])
            from_sglang(record, environ={}, gpu_memory_gb=80.0)
