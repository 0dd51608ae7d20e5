"""SGLang's default mem_fraction_static for an MLA model (a DeepSeek-V3-shaped model
directory): graphfit's config path (a pasted line -> SglangOptions.mem_fraction_static) vs
SGLang's own argument pipeline (`_handle_gpu_memory_settings`, memory_hook.py:281-343, whose
prefill graph reserve is 1.5 GiB for MLA, :384-389), over the memory oracle's generated
lines."""

from __future__ import annotations

import functools
import tempfile
from pathlib import Path

from hypothesis import given

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_prefill_oracle as po  # noqa: E402
from tests.oracle import sglang_stubs  # noqa: E402
from tests.oracle.test_sglang_memory_oracle import lines  # noqa: E402


@functools.cache
def mla_dir() -> str:
    return str(sglang_stubs.write_mla_model_dir(
        Path(tempfile.mkdtemp(prefix="graphfit-sglang-mla-")) / "dsv3"))


def sglang_fraction(argv: tuple[str, ...], gb: float) -> float | None:
    r = so.resolve(argv, gpu_mem_gb=gb, model=mla_dir())
    from sglang.srt.arg_groups.overrides import resolving_view

    return None if isinstance(r, so.Rejected) else float(
        resolving_view(r.record).mem_fraction_static)


def graphfit_fraction(argv: tuple[str, ...], gb: float) -> float | str | None:
    return po.pasted_mem_fraction(
        ["python", "-m", "sglang.launch_server", "--model-path", mla_dir(), *argv], gb)


def compare(argv: tuple[str, ...], gb: float) -> str | None:
    """None when they agree (or one side refuses the line); else the difference."""
    theirs = sglang_fraction(argv, gb)
    ours = graphfit_fraction(argv, gb)
    if theirs is None or isinstance(ours, str):
        return None
    if theirs <= 0:  # graphfit leaves a non-positive default unset and warns
        return None if ours is None else f"SGLang {theirs} (not positive), graphfit {ours}"
    return None if ours == theirs else f"SGLang {theirs}, graphfit {ours}"


def test_mla_prefill_reserve_is_compared() -> None:
    """Not vacuous: prefill graphs on (the default) on 80 GB; 1.5 GiB moves the fraction."""
    argv = ("--max-running-requests", "64", "--chunked-prefill-size", "8192")
    assert graphfit_fraction(argv, 80) == sglang_fraction(argv, 80)
    assert isinstance(graphfit_fraction(argv, 80), float)


@given(lines())
def test_generated_mla_lines(case: tuple[tuple[str, ...], float | None]) -> None:
    argv, gb = case
    assert compare(argv, 80 if gb is None else gb) is None, (argv, gb)
