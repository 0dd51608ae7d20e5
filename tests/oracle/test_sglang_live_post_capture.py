"""The live check decides post-capture KV sizing as the pasted line does (issue 23, s38l).

Lines are drawn from the post-capture grid (tests/oracle/measure_sglang_post_capture.
generate_new: `--device`, MOONCAKE_PROTOCOL with `--disaggregation-transfer-backend`, PP
dynamic chunking with `--max-prefill-tokens`, `--enable-unified-memory` on hybrid-SWA and
sparse models, the PD roles, prefill graphs and declining switches) with
--max-running-requests (the live path cannot plan a server that leaves it to the scheduler).
For each line SGLang plans:

* SGLang: its own pipeline's `mem_fraction_static` and its `post_capture_kv_sizing_planned`
  answer as the memory hook asks it (tests/oracle/sglang_post_capture_oracle);
* the live path: SGLang's `prepare_server_args` builds the ServerArgs, and
  `graphfit.integrations.sglang.from_sglang` plans them under the same environment;
* the pasted line: `VAR=value ... python -m sglang.launch_server ...` read by graphfit.

Live and pasted must refuse together (as not modelled: another device than CUDA) or plan the
same post-capture answer and the same fraction, and both must be SGLang's.
"""

from __future__ import annotations

import random
import warnings
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.cli.options import resolve_values  # noqa: E402
from graphfit.inputs import commandline  # noqa: E402
from graphfit.integrations import sglang as gs  # noqa: E402
from graphfit.planner.core.errors import GraphfitError  # noqa: E402
from graphfit.planner.engines.sglang_reserve import post_capture  # noqa: E402
from graphfit.planner.plan import plan  # noqa: E402
from tests.oracle import measure_sglang_post_capture as grid  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_post_capture_oracle as pc  # noqa: E402

Outcome = tuple[bool | None, float | None] | str


def _pasted(line: list[str], gb: float) -> Outcome:
    try:
        config = resolve_values({"gpu_memory_gb": gb}, environ={},
                                pasted=commandline.read(line)).config()
    except GraphfitError as exc:
        return str(exc)
    return post_capture(config), config.mem_fraction_static


def _live(record: Any, environ: dict[str, str], gb: float) -> Outcome:
    try:
        config = plan(gs.from_sglang(record, environ=environ, gpu_memory_gb=gb)).config
    except GraphfitError as exc:
        return str(exc)
    return post_capture(config), config.mem_fraction_static


def compare(case: grid.Case) -> str:
    """"skip" (SGLang refuses), "refused" (both, as not modelled), "planned"; AssertionError
    naming the difference."""
    argv, gb, name, value, env = case
    if "--max-running-requests" not in argv:
        argv = (*argv, "--max-running-requests", "48")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SGLang warns on the unparsable values drawn
        theirs = pc.sglang_fraction(argv, gb, name, value, env)
        if theirs is None:
            return "skip"
        resolved = so.resolve(argv, gpu_mem_gb=gb, model=pc.model_dir(name),
                              capability=pc.AMPERE)
    assert isinstance(resolved, so.Resolved)
    environ = {**dict(env), **({} if value is None else {pc.ENV: value})}
    pasted = _pasted(pc.graphfit_line(argv, name, value, env), gb)
    live = _live(resolved.record, environ, gb)
    where = f"{' '.join(f'{k}={v}' for k, v in environ.items())} {' '.join(argv)} ({name})"
    if isinstance(pasted, str) or isinstance(live, str):
        assert isinstance(pasted, str) and isinstance(live, str), \
            f"{where}: pasted {pasted}, live {live}"
        if "SGLang cannot build" in live:  # a model SGLang's loader fails on (s38m), alike
            assert live.split(": ")[-1] == pasted.split(": ")[-1], f"{where}: {live}, {pasted}"
            return "refused"
        assert "not modelled" in live and "not modelled" in pasted, f"{where}: live {live}"
        return "refused"
    assert live == pasted, f"{where}: (decision, fraction) live {live}, pasted {pasted}"
    fraction, answer = theirs
    if answer is not None:
        assert live[0] == answer, f"{where}: SGLang planned {answer}, live {live[0]}"
    assert pc.disagreement(fraction, live[1]) is None, f"{where}: SGLang {fraction}, live {live}"
    return "planned"


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, 2**32 - 1))
def test_live_path_decides_post_capture_as_the_pasted_line(seed: int) -> None:
    compare(grid.generate_new(random.Random(seed)))


ON = "1"  # SGLANG_ENABLE_POST_CAPTURE_KV_SIZING on: each input below then decides it
PP = ("--pp-size", "2", "--cuda-graph-backend-prefill", "breakable",
      "--cuda-graph-max-bs-prefill", "16384", "--chunked-prefill-size", "2048")
FIXED: tuple[grid.Case, ...] = (
    # unified memory: on for a hybrid-SWA model, off for a full-attention one (:1826-1836)
    (("--enable-unified-memory",), 80, "swa_optin", ON, ()),
    (("--enable-unified-memory",), 80, "beam_swa", ON, ()),
    (("--enable-unified-memory",), 80, "llama", ON, ()),
    # MOONCAKE_PROTOCOL=efa with the Mooncake transfer backend, and with another (:1817-1822)
    ((), 80, "llama", ON, (("MOONCAKE_PROTOCOL", "EFA"),)),
    (("--disaggregation-transfer-backend", "nixl"), 80, "llama", ON,
     (("MOONCAKE_PROTOCOL", "efa"),)),
    # PP dynamic chunking: the prefill buffer from --max-prefill-tokens (:1865-1883)
    ((*PP, "--enable-dynamic-chunking", "--max-prefill-tokens", "32768"), 80, "llama", ON, ()),
    ((*PP, "--enable-dynamic-chunking", "--max-prefill-tokens", "4096"), 80, "llama", ON, ()),
    ((*PP, "--max-prefill-tokens", "32768"), 80, "llama", ON, ()),
)


@pytest.mark.parametrize("case", FIXED, ids=lambda c: f"{c[2]}:{' '.join(c[0])}")
def test_each_post_capture_input_counts_live(case: grid.Case) -> None:
    argv, gb, name, value, env = case
    assert compare(((*argv, "--max-running-requests", "48"), gb, name, value, env)) == "planned"


def test_a_device_other_than_cuda_is_refused_live_as_pasted() -> None:
    """`--device cpu` (SGLang resolves it, serving_hook.py:650-660): refused on both paths with
    the pasted line's reason."""
    argv = ("--device", "cpu", "--max-running-requests", "48")
    resolved = so.resolve(argv, gpu_mem_gb=80, model=pc.model_dir("llama"))
    assert isinstance(resolved, so.Resolved)
    live = _live(resolved.record, {}, 80)
    pasted = _pasted(pc.graphfit_line(argv, "llama", None), 80)
    assert isinstance(live, str) and isinstance(pasted, str)
    assert "CUDA only" in live and live.split(": ", 1)[1] == pasted.split(": ", 1)[1]
