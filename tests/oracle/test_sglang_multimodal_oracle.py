"""A multimodal model's prefill and decode graph buffers in `graphfit plan` vs SGLang 0.5.23's
own runners (tests/oracle/sglang_multimodal_compare.py), per pasted line.

Two model directories: Cohere2-Vision (on SGLang's breakable-prefill allowlist, so its
prefill graphs stay on by default) and Qwen3-VL (off the allowlist: prefill graphs only with
an explicit backend, cuda_graph_hook.py:229-238). Every line SGLang accepts is planned by
graphfit from the same words and must agree on every aspect (prefill backend, ladder,
dispatch, buffers with input_embeds / mrope_positions, fills, proof; the decode runner's
ladder, buffers and fills), or be refused with a ConfigError saying what graphfit does not
model.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_multimodal_compare as smc  # noqa: E402
from tests.oracle import sglang_prefill_oracle as po  # noqa: E402
from tests.oracle import sglang_stubs  # noqa: E402
from tests.oracle.test_sglang_prefill_oracle import lines  # noqa: E402

_DIRS: dict[str, str] = {}


def model_dir(name: str) -> str:
    """The model directory, written once per process."""
    if name not in _DIRS:
        root = Path(tempfile.mkdtemp(prefix="graphfit-mm-"))
        if name == "cohere2_vision":
            _DIRS[name] = str(smc.write_cohere2_vision_model_dir(root / name))
        elif name == "gemma3":
            _DIRS[name] = str(smc.write_gemma3_model_dir(root / name))
        else:
            _DIRS[name] = str(sglang_stubs.write_qwen3_vl_model_dir(root / name))
    return _DIRS[name]


MODELS = ("cohere2_vision", "qwen3_vl")
# SGLang's device: an Ampere one for Qwen3-VL, whose large-Hopper decode override graphfit
# applies only to a GPU given by name (tests/oracle/test_sglang_qwen3_vl_oracle.py covers it);
# graphfit's GPU here is a memory figure, which leaves the override off
CAPABILITY = {"cohere2_vision": None, "qwen3_vl": (8, 0), "gemma3": None}
S48 = ("--max-running-requests", "48")
GRID = [
    ("cohere2_vision", S48), ("cohere2_vision", (*S48, "--cuda-graph-backend-prefill", "full")),
    ("cohere2_vision", (*S48, "--cuda-graph-max-bs-prefill", "12000")),
    ("cohere2_vision", (*S48, "--chunked-prefill-size", "1000", "--tp", "4",
                        "--attn-dp-size", "2")),
    ("cohere2_vision", (*S48, "--disable-prefill-cuda-graph")),
    ("qwen3_vl", S48), ("qwen3_vl", (*S48, "--cuda-graph-backend-prefill", "breakable")),
    ("qwen3_vl", (*S48, "--cuda-graph-backend-prefill", "full", "--tp", "2")),
    # served text-only by default: prefill graphs on, without the multimodal buffers
    ("gemma3", S48), ("gemma3", (*S48, "--cuda-graph-backend-prefill", "full")),
]


@pytest.mark.parametrize(("name", "argv"), GRID, ids=[f"{n}:{' '.join(a)}" for n, a in GRID])
def test_multimodal_plan_equals_sglang(name: str, argv: tuple[str, ...]) -> None:
    out = smc.compare(argv, 80, model_dir(name), CAPABILITY[name])
    assert out.compared, out.graphfit_refuses
    assert out.diffs == {}, out.diffs


def test_grid_compares_the_multimodal_buffers() -> None:
    """Not vacuous: SGLang's ModelConfig calls both models multimodal, and the grid reaches
    prefill runners holding input_embeds and mrope_positions for each (and one without), and
    Gemma 3's (text-only by default) holding neither."""
    held = {name: 0 for name in MODELS}
    off = 0
    for name, argv in GRID:
        sg = po.prefill(argv, 80, model_dir(name), CAPABILITY[name])
        assert isinstance(sg, po.SglangPrefill)
        if sg.backend == "disabled":
            off += 1
            continue
        if name == "gemma3":  # SGLang's is_multimodal is off: no multimodal buffers
            assert not sg.multimodal and "input_embeds" not in sg.buffers
            continue
        assert sg.multimodal and {"input_embeds", "mrope_positions"} <= set(sg.buffers)
        assert sg.fills["input_embeds"] == sg.fills["mrope_positions"] == "zero"
        held[name] += 1
    assert min(held.values()) >= 2 and off >= 2, (held, off)


@given(lines().filter(lambda case: case[1] is not None), st.sampled_from(MODELS))
def test_generated_multimodal_lines_plan_as_sglang(case: tuple[tuple[str, ...], float],
                                                   name: str) -> None:
    argv, gb = case
    out = smc.compare(argv, gb, model_dir(name), CAPABILITY[name])
    if out.graphfit_refuses:
        assert "not modelled" in out.graphfit_refuses
        return
    assert out.diffs == {}, out.diffs
