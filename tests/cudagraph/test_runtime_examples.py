"""The runtime examples run: the toy engine reproduces the seed bug and runs clean after."""

from __future__ import annotations

import json
import runpy
from pathlib import Path
from types import ModuleType

import pytest
import torch

from graphfit.inputs.profiles import parse_profile
from tests.helpers import ROOT, load_module

EXAMPLES = ROOT / "examples"


def load(name: str) -> ModuleType:
    return load_module(EXAMPLES / f"{name}.py", f"example_{name}")


def test_toy_engine_reproduces_then_runs_clean(capsys: pytest.CaptureFixture[str]) -> None:
    main = load("toy_engine").main
    assert main(["--steps", "12", "--compile-backend", "aot_eager"]) == 0
    out = capsys.readouterr().out
    assert "a full 132-token query pads to 136" in out
    assert "num_tokens 132 pad to 136 > capacity 132" in out
    assert "holds 132 rows but 136 were requested" in out
    assert "132 tokens -> graph 132" in out and "132 tokens -> graph 136" in out
    assert "KV cache equal: True" in out and "graphfit runs CLEAN" in out


def test_gpu_check_dry_run_on_cpu(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    main = runpy.run_path(str(EXAMPLES / "gpu_check.py"))["main"]
    profile = tmp_path / "profile.json"
    assert main(["--cpu", "--batches", "6", "--profile-out", str(profile)]) == 0
    out = capsys.readouterr().out
    # 4 runners alone + 2 sessions (target and drafter captured together, weak outputs)
    assert out.count("0 mismatches") == 6 and "OK: every replay matched eager" in out
    assert out.count(" session ") == 2
    doc = json.loads(profile.read_text())
    assert doc["schema"] == "graphfit.graph-profile/1"
    # the samples vary both the largest size and the graph count, so a GPU profile can be fit
    assert len({max(s["sizes"]) for s in doc["samples"]}) >= 2
    assert len({len(s["sizes"]) for s in doc["samples"]}) >= 2
    # a profile in this shape (with GPU-measured bytes) is what graphfit's memory model reads
    measured = dict(doc, samples=[dict(s, pool_bytes=1000 * max(s["sizes"]) + 10 * len(s["sizes"]))
                                  for s in doc["samples"]])
    model = parse_profile(json.dumps(measured))
    assert round(model.bytes_per_captured_token) == 1000
    assert round(model.per_graph_overhead_bytes) == 10


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the no-GPU path")
def test_gpu_check_skips_cleanly_without_cuda(capsys: pytest.CaptureFixture[str]) -> None:
    main = runpy.run_path(str(EXAMPLES / "gpu_check.py"))["main"]
    assert main([]) == 0
    assert capsys.readouterr().out.startswith("SKIP: no CUDA device")
