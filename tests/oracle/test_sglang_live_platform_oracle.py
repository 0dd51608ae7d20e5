"""The plugin and launcher read the GPU's generation from SGLang's own platform probes (issue
23 s50l, graphfit.integrations.sglang_platform), in the server's process.

A live check given the GPU in GiB alone runs no GPU-generation rule (the ServerArgs carry no
device facts, s47l). Inside the server, `after_server_args` and `main` ask SGLang's
`get_platform()` (runtime_context.py:1824-1904) for `device_sm` and `is_sm100`, so on an
SM100 device they run the SM100+ linear-attention checks (arg_groups/attention_hook.py:
334-377) on the ServerArgs as SGLang's own resolution does on that device. Here SGLang's
device is the stubs' fake CUDA device of a given capability (tests/oracle/sglang_stubs.
fake_cuda), the same one SGLang resolves the line on; off CUDA (this CPU) nothing is read and
the check's line says which rules were not run."""

from __future__ import annotations

import contextlib
import io
import logging

import pytest

from tests.oracle.paths import require

require("sglang")

from graphfit.integrations import sglang as gs  # noqa: E402
from graphfit.integrations.sglang_platform import UNRUN, server_generation  # noqa: E402
from tests.oracle import sglang_linear_sm100_oracle as ls  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_post_capture_oracle as pc  # noqa: E402
from tests.oracle import sglang_stubs  # noqa: E402
from tests.oracle import sglang_unified_page_major_oracle as pm  # noqa: E402

LINE = (*ls.MRR, "--linear-attn-backend", "flashinfer")  # bf16 required on SM100+


def _on(gpu: str, argv: tuple[str, ...]) -> tuple[str | None, dict[str, object], str]:
    """On `gpu`'s fake device: SGLang's own refusal of the line (None: it serves), what
    graphfit's platform read gives, and the plugin's log line in check mode."""
    pm.register()
    gb, capability = pm.GPUS[gpu]
    o = so.oracle()
    theirs = None
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    gs.logger.addHandler(handler)
    gs.logger.setLevel(logging.INFO)
    try:
        with pc.environment(None), sglang_stubs.fake_cuda(gb * so.MIB_PER_GB,
                                                           capability=capability):
            with contextlib.redirect_stderr(io.StringIO()):
                record = o.server_args.prepare_server_args(
                    ["--model-path", pc.model_dir("qnext"), *argv])
            generation = server_generation()
            with pytest.MonkeyPatch.context() as mp:
                mp.setenv(gs.ENV, "check")
                gs.after_server_args(record)  # the plugin's hook, as SGLang calls it
            try:
                record.resolve_once()
            except Exception as exc:  # SGLang's own refusal
                theirs = f"{type(exc).__name__}: {exc}"
    finally:
        gs.logger.removeHandler(handler)
    return theirs, generation, stream.getvalue().strip()


@pytest.mark.parametrize(("gpu", "expected"), [("B200", {"gpu_capability": 100, "sm100": True}),
                                               ("H100", {"gpu_capability": 90, "sm100": False})])
def test_plugin_runs_the_sm100_checks_from_sglangs_platform(gpu: str,
                                                            expected: dict[str, object]) -> None:
    theirs, generation, said = _on(gpu, LINE)
    assert generation == expected
    refused = theirs is not None and ls.DTYPE_WORDS in theirs
    assert refused == (gpu == "B200"), theirs  # the premise: SGLang refuses on SM100 only
    if refused:
        words = str(theirs).split("ValueError: ", 1)[-1].strip()
        assert said.startswith("graphfit: not checked:") and words[:60] in said, said
    else:
        assert said.startswith("graphfit: SAFE:") and UNRUN not in said, said


def test_off_cuda_nothing_is_read_and_the_line_says_so() -> None:
    """Off CUDA (or where SGLang cannot tell the generation) nothing is read, and the check
    line names the rules not run (SGLang's own resolution here reads no SM100 device either)."""
    so.oracle()
    from sglang.srt.runtime_context import override_platform

    # off CUDA, or a device SGLang cannot tell (device_sm 0): SGLang's own scoped override on
    # the fake GPU, since a bare no-CUDA call would leave SGLang's lru_cached probes answering
    # "no CUDA" for the rest of the process (tests/oracle/test_sglang_stub_sites.py)
    for facts in ({"is_cuda": False}, {"device_sm": 0}):
        with sglang_stubs.fake_cuda(), override_platform(**facts):
            assert server_generation() == {}, facts
    o = so.oracle()
    with pc.environment(None), contextlib.redirect_stderr(io.StringIO()):
        record = o.server_args.prepare_server_args(
            ["--model-path", pc.model_dir("qnext"), *ls.MRR])
    check = gs.check_server_args(record, gpu_memory_gb=80)
    assert check.line().endswith(UNRUN)
    named = gs.check_server_args(record, gpu_memory_gb="H100")
    assert UNRUN not in named.line()


@pytest.mark.parametrize("gpu", ["B200", "H100"])
def test_launcher_reads_sglangs_platform(gpu: str) -> None:
    """graphfit's launcher (`main`, which parses with SGLang's prepare_server_args) on the
    fake device: on SM100 it refuses the line SGLang refuses there, with SGLang's sentence,
    and starts nothing; on SM90 it starts SGLang with no "not run" note."""
    pm.register()
    gb, capability = pm.GPUS[gpu]
    so.oracle()
    started: list[object] = []
    lines: list[str] = []
    with pc.environment(None), sglang_stubs.fake_cuda(
            gb * so.MIB_PER_GB, capability=capability), contextlib.redirect_stderr(io.StringIO()):
        code = gs.main(["--model-path", pc.model_dir("qnext"), *LINE],
                       start=started.append, environ={}, out=lines.append)
    if gpu == "B200":
        assert code == 2 and not started, lines
        assert ls.DTYPE_WORDS[:40] in lines[-1] and len(lines[-1]) <= 200, lines
    else:
        assert code == 0 and len(started) == 1 and UNRUN not in lines[0], lines
