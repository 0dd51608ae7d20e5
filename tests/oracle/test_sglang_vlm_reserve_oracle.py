"""A multimodal model's memory reserve: graphfit's restatement of SGLang 0.5.23's
`adjust_mem_fraction_for_vlm` (graphfit/planner/engines/sglang_memory.py `vlm_fraction`,
`mem_fraction_static`) vs SGLang's own.

* the function itself (arg_groups/memory_hook.py:417-462) over generated vision encoders,
  fractions, GPU sizes and both branches (post-capture KV sizing's flat 8 GiB; the vision
  factor and its clamp; no vision_config);
* the whole default under post-capture KV sizing (`SGLANG_ENABLE_POST_CAPTURE_KV_SIZING=1`):
  SGLang's resolution pipeline on Qwen3-VL model directories and a text-only one, its own
  `post_capture_kv_sizing_planned` answer recorded as the hook asks it (graphfit does not
  restate that predicate: it is the caller's input), then graphfit's fraction from the same
  raw arguments.
The factor-only path through the pipeline: tests/oracle/test_sglang_memory_oracle.py.
"""

from __future__ import annotations

import contextlib
import functools
import tempfile
import types
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")

from graphfit import ConfigError  # noqa: E402
from graphfit.planner.engines.sglang_memory import (  # noqa: E402
    StaticMemoryInputs,
    VisionEncoder,
    mem_fraction_static,
    vlm_fraction,
)
from graphfit.planner.engines.sglang_native import memory_inputs_from_sglang  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle import sglang_post_capture_oracle as pc  # noqa: E402
from tests.oracle import sglang_prefill_oracle as po  # noqa: E402
from tests.oracle import sglang_stubs  # noqa: E402

encoders = st.none() | st.builds(VisionEncoder, st.integers(1, 200),
                                 st.sampled_from([64, 768, 1024, 1152, 1280, 1664, 4096]))


@settings(max_examples=300)
@given(st.integers(1, 999).map(lambda n: n / 1000), encoders, st.booleans(),
       st.none() | st.sampled_from([16, 24, 40, 48, 80, 94, 141, 192]).map(lambda g: g * 1024))
def test_vlm_fraction_is_sglangs_function(fraction: float, vision: VisionEncoder | None,
                                          post_capture: bool, gpu_mib: int | None) -> None:
    so.oracle()
    from sglang.srt.arg_groups.memory_hook import adjust_mem_fraction_for_vlm

    vision_config = (None if vision is None else types.SimpleNamespace(
        num_hidden_layers=vision.layers, hidden_size=vision.hidden_size))
    model_config = types.SimpleNamespace(hf_config=types.SimpleNamespace(
        vision_config=vision_config))
    theirs = adjust_mem_fraction_for_vlm(fraction, model_config, post_capture, gpu_mib)
    assert vlm_fraction(fraction, vision, post_capture_kv_sizing=post_capture,
                        gpu_mib=gpu_mib) == theirs


_MODELS: dict[str, str] = {}


def model_dir(name: str) -> str | None:
    """A model directory of the grid (None: the oracle's text-only Llama)."""
    if name == "llama":
        return None
    if name not in _MODELS:
        root = Path(tempfile.mkdtemp(prefix="graphfit-vlm-reserve-"))
        layers, hidden = {"vl_small": (4, 1024), "vl_huge": (48, 1664)}[name]
        _MODELS[name] = str(sglang_stubs.write_qwen3_vl_model_dir(root / name, layers,
                                                                  hidden))
    return _MODELS[name]


def fresh_fraction(argv: tuple[str, ...], gb: float | None, model: str | None
                   ) -> tuple[types.SimpleNamespace, float] | so.Rejected:
    """`sglang_prefill_oracle.mem_fraction` resolved afresh: its cache may hold the same line
    resolved without the environment variable."""
    return po.mem_fraction.__wrapped__(argv, gb, model)


def post_capture_env() -> contextlib.AbstractContextManager[list[bool]]:
    """SGLANG_ENABLE_POST_CAPTURE_KV_SIZING=1 for one resolution, and SGLang's own
    `post_capture_kv_sizing_planned` answers as the memory hook gets them."""
    return pc.environment("1")


def graphfit_inputs(raw: Any, gb: float | None, model: str | None,
                    post_capture: bool) -> StaticMemoryInputs:
    """graphfit's memory inputs for SGLang's resolved arguments `raw`: the vision tower,
    multimodal flag and architecture read from the model directory's config.json (as
    graphfit reads them), on an SM90 GPU of `gb` GB, with SGLang's own post-capture answer
    as the caller's input (the measure script reads its lines through this too)."""
    from graphfit.inputs.model_config import read_model

    vision, multimodal, arch = None, False, None
    if model is not None:
        info = read_model(Path(model) / "config.json")
        vision = VisionEncoder(info.vision_layers or 1, info.vision_hidden_size or 1)
        multimodal, arch = info.multimodal, info.architecture
    return memory_inputs_from_sglang(raw, gb, vision=vision, multimodal=multimodal,
                                     architecture=arch, sm90=True,
                                     post_capture_kv_sizing=post_capture)


@functools.cache
def compare(argv: tuple[str, ...], gb: float | None, name: str) -> tuple[list[str], bool | None]:
    """(disagreements, SGLang's post-capture answer or None when it did not ask); cached here
    (the non-vacuity test reads the grid's answers again)."""
    model = model_dir(name)
    with post_capture_env() as asked:
        sg = fresh_fraction(argv, gb, model)
    if isinstance(sg, so.Rejected) or not asked:
        return [], None
    raw, theirs = sg
    try:
        ours = mem_fraction_static(graphfit_inputs(raw, gb, model, asked[-1]))
    except ConfigError as exc:
        assert "not modelled" in str(exc) or "given" in str(exc)
        return [], asked[-1]
    return ([] if ours == theirs else [f"{name}: SGLang {theirs}, graphfit {ours}"]), asked[-1]


S = ("--max-running-requests", "48")
GRID = [(a, g, n) for n in ("vl_small", "vl_huge", "llama") for a, g in (
    (S, 80), (S, 24), (S, 141), (S, None), ((*S, "--tp", "4"), 80),
    # a multimodal model's prefill graphs are off unless given (cuda_graph_hook.py:229-238),
    # and post-capture sizing wants them (overrides.py:1846-1854)
    ((*S, "--cuda-graph-backend-prefill", "breakable"), 80),
    ((*S, "--cuda-graph-backend-prefill", "breakable"), 141),
    ((*S, "--cuda-graph-backend-prefill", "breakable", "--tp", "2"), 48),
    ((*S, "--disaggregation-mode", "decode"), 80),
    ((*S, "--disaggregation-mode", "prefill"), 80),
    ((*S, "--disable-cuda-graph"), 80), ((*S, "--chunked-prefill-size", "256"), 48))]


@pytest.mark.parametrize(("argv", "gb", "name"), GRID,
                         ids=[f"{n}:{' '.join(a)}@{g}" for a, g, n in GRID])
def test_post_capture_fraction_equals_sglang(argv: tuple[str, ...], gb: float | None,
                                             name: str) -> None:
    assert compare(argv, gb, name)[0] == []


def test_post_capture_grid_is_not_vacuous() -> None:
    """SGLang plans post-capture sizing on some lines of the grid and not on others, and
    where it does, a VLM keeps a flat 8 GiB more than the text-only model."""
    answers = {(n, a, g): compare(a, g, n)[1] for a, g, n in GRID}
    assert {True, False} <= set(answers.values())
    on = [(n, a, g) for (n, a, g), v in answers.items()
          if v and n == "vl_huge" and g and "decode" not in a]  # a decode server: no VLM
    assert on
    _, argv, gb = on[0]
    with post_capture_env():
        vl = fresh_fraction(argv, gb, model_dir("vl_huge"))
        text = fresh_fraction(argv, gb, None)
    assert not isinstance(vl, so.Rejected) and not isinstance(text, so.Rejected)
    assert vl[1] == pytest.approx(text[1] - 8 * 1024 / (gb * 1024))
