"""graphfit == SGLang 0.5.23 on a quantized Qwen3.5 / Qwen4-Exp MTP draft whose MTP module
drops its checkpoint's quantization config (models/qwen3_5_mtp.py:50-91; graphfit.inputs.
sglang_mtp_quant, graphfit.planner.engines.sglang_draft_deepep.mtp_dropped; issue 23, s68d):
fixed lines (each dropped form, each condition of the unquantized assert turned off once,
drafts whose MTP keeps its config) and drawn ones, SGLang's side as
tests.oracle.sglang_mtp_quant_oracle builds it.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.inputs.sglang_mtp_quant import dropped_method  # noqa: E402
from tests.oracle import sglang_draft_deepep_oracle as ddo  # noqa: E402
from tests.oracle import sglang_mtp_quant_oracle as mq  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402

_DP = ("--enable-dp-attention", "--dp-size", "2")
CASES = (  # (draft, draft a2a, mode, runner, jit, extra)
    ("nvfp4", "deepep", "low_latency", "deep_gemm", False, ()),
    ("nvfp4_awq_text", "deepep", "normal", "deep_gemm", False, ()),
    ("nvfp4_file", "pplx", "low_latency", "deep_gemm", False, _DP),
    ("qwen4_nvfp4", "deepep", "auto", "deep_gemm", False, ()),
    ("mixed", "deepep", "low_latency", "deep_gemm", False, ()),
    ("qwen4_mixed", "deepep", "normal", "deep_gemm", False, ()),
    ("quark_experts", "deepep", "low_latency", "deep_gemm", False, ()),
    # the flag the draft inherits clashes: the draft keeps its checkpoint's method
    ("nvfp4", "deepep", "low_latency", "deep_gemm", False, ("--quantization", "fp8")),
    # each condition off: JIT on, another runner, float16, no DeepEP / pplx, no a2a context
    ("nvfp4", "deepep", "low_latency", "deep_gemm", True, ()),
    ("mixed", "deepep", "low_latency", "triton", False, ()),
    ("quark_experts", "deepep", "low_latency", "deep_gemm", False, ("--dtype", "float16")),
    ("nvfp4", "mooncake", "low_latency", "deep_gemm", False, ()),
    ("qwen4_nvfp4", "deepep", "low_latency", "deep_gemm", False,
     ("--enable-multi-layer-eagle",)),
    # kept configs (normal mode: no quantized assert either) and a dense MTP
    ("fp8", "deepep", "normal", "deep_gemm", False, ()),
    ("mixed_mtp", "deepep", "normal", "deep_gemm", False, ()),
    ("quark_attn", "deepep", "normal", "deep_gemm", False, ()),
    ("dense_nvfp4", "deepep", "low_latency", "deep_gemm", False, ()),
)
# the drafts drawn lines pick from: every one (s69e: the kept ones' low-latency assert is
# restated too, tests.oracle.sglang_mtp_quant_oracle.KEPT)
DRAWN = tuple(mq.DRAFTS)


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    so.oracle()
    return mq.dirs(tmp_path_factory.mktemp("mtp_quant"))


def test_dropped_forms() -> None:
    """Which config the MTP drops, on the forms SGLang's classes read (flat, nested)."""
    assert dropped_method({"quant_method": "modelopt", "quant_algo": "W4A16_NVFP4"}) == (
        "modelopt_fp4")
    assert dropped_method({"quantization": {"quant_algo": "NVFP4"}}) == "modelopt_fp4"
    assert dropped_method({"quant_algo": "FP8"}) is None
    mixed = {"quant_algo": "MIXED_PRECISION", "quantized_layers": {"model.x": {}}}
    assert dropped_method(mixed) == "modelopt_mixed"
    assert dropped_method({"quantization": {**mixed, "quantized_layers": {
        "model.x": {}, "mtp.fc": {}}}}) is None
    assert dropped_method({"quant_method": "Quark", "exclude": ["mtp.0.mlp.experts"]}) == "quark"
    assert dropped_method({"quant_method": "quark", "exclude": ["mtp.0.attn", "x.mlp.experts"]
                           }) is None


def test_fixed_lines_agree(paths: dict[str, Path]) -> None:
    wrong, refused = [], []
    for draft, backend, mode, runner, jit, extra in CASES:
        if backend == "pplx" and "--enable-dp-attention" not in extra:
            extra = (*extra, *_DP)
        line = ddo.argv(paths[draft], backend, "none", mode, runner, *extra)
        theirs, (code, said) = mq.answers(paths, line, jit)
        refused.append(theirs is not None)
        if not ddo.agree(theirs, code, said):
            wrong.append(f"{draft} {line[10:]} jit={jit}: SGLang {theirs and theirs[:160]}; "
                         f"graphfit {code} {said}")
        elif theirs is not None:
            assert "qwen3_5_mtp.py" in said, said  # names the dropped config
    assert not wrong, "\n".join(wrong)
    # the seven dropped forms and the clashing flag refused; each control builds
    assert refused == [True] * 8 + [False] * 9, refused


def test_drawn_lines_agree(paths: dict[str, Path]) -> None:
    rng = random.Random(68)
    wrong = []
    for _ in range(6):
        line, jit = ddo.draw(rng, paths, DRAWN)
        theirs, (code, said) = mq.answers(paths, line, jit)
        if not ddo.agree(theirs, code, said):
            wrong.append(f"{line[10:]} jit={jit}: SGLang {theirs and theirs[:160]}; "
                         f"graphfit {code} {said}")
    assert not wrong, "\n".join(wrong)
