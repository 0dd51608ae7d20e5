"""The sample server traces (examples/traces/vllm_*) are byte for byte what vLLM 0.33 writes.

The generator's writers are graphfit's own; here the same simulated steps go through vLLM's
own code (tests/oracle/vllm_metrics.py) and the outputs must match, so the readers in
graphfit.inputs.traces are tested on vLLM's real formats.
"""

from __future__ import annotations

import re
from types import ModuleType

import pytest

from tests.helpers import ROOT, load_module
from tests.oracle import vllm_metrics
from tests.oracle.paths import require

TRACES = ROOT / "examples" / "traces"
_CREATED = re.compile(r"^(\S+_created\{[^}]*\}) \S+$")


@pytest.fixture(scope="module")
def generator() -> ModuleType:
    return load_module(TRACES / "generate.py", "trace_generate")


def _sample(generator: ModuleType, kind: str, name: str = "") -> object:
    return next(s for s in generator.SERVER_SAMPLES
                if s.kind == kind and (not name or s.file_name == name))


def test_cudagraph_metrics_log_is_vllms_own(generator: ModuleType) -> None:
    root = require("vllm")
    sample = _sample(generator, "log")
    steps = generator.server_steps(sample)
    shapes = generator.step_shapes(sample.workload, steps)
    mode, sizes = generator.logged_settings(sample.workload)
    intervals = []
    for i, (when, chunk) in enumerate(generator.intervals(steps)):
        start = i * generator.INTERVAL_STEPS
        intervals.append((when, generator.throughput_message(chunk), generator.THROUGHPUT_SITE,
                          shapes[start:start + len(chunk)]))
    text = vllm_metrics.render_log(root, mode=mode, capture_sizes=sizes, intervals=intervals,
                                   pid=generator.PID)
    committed = (TRACES / sample.file_name).read_bytes().decode()
    assert text == committed


def _families(text: str, names: set[str]) -> list[str]:
    """The lines of these metric families, the _created timestamps masked."""
    out = []
    for line in text.splitlines():
        name = line.split()[2] if line.startswith("# ") else re.split(r"[{ ]", line)[0]
        base = re.sub(r"_(bucket|count|sum|created|total)$", "", name)
        base = re.sub(r"_(total)$", "", base)
        if base in names or name in names:
            found = _CREATED.match(line)
            out.append(f"{found[1]} <created>" if found else line)
    return out


@pytest.mark.parametrize("name", ["vllm_metrics_exact.prom", "vllm_metrics_default.prom"])
def test_prometheus_samples_are_vllms_own(generator: ModuleType, name: str) -> None:
    root = require("vllm")
    sample = _sample(generator, "prometheus", name)
    assert list(generator.DEFAULT_ITERATION_BUCKETS) == \
        vllm_metrics.default_iteration_buckets(root)
    steps = [(s.prompt_tokens, s.generated) for s in generator.server_steps(sample)
             if s.has_outputs]
    text = vllm_metrics.render_prometheus(root, steps, buckets=sample.buckets,
                                          model=generator.MODEL)
    families = {"vllm:prompt_tokens", "vllm:generation_tokens", "vllm:iteration_tokens"}
    committed = (TRACES / sample.file_name).read_text()
    assert _families(text, families) == _families(committed, families)
    assert len(_families(committed, families)) == len(committed.splitlines())
