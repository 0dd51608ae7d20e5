"""graphfit == SGLang 0.5.23 on every method's `override_quantization_method` inside
`_verify_quantization` (graphfit.planner.engines.sglang_quant_overrides): generated
`--quantization` x checkpoint quantization_config x GPU capability cases
(tests.oracle.sglang_quant_cases; first every overridden flag on each named layout of
tests.oracle.sglang_quantization_oracle at SM75 and SM100), each run through SGLang's own
method on a fake CUDA GPU of that capability (tests.oracle.sglang_quantization_oracle.
verify). graphfit models every case (no "not modelled"); each rule has a planted error the
comparison catches."""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from typing import Any

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.planner.engines import sglang_quant_overrides as ov  # noqa: E402
from tests.oracle import sglang_quant_cases as qc  # noqa: E402
from tests.oracle import sglang_quantization_oracle as qo  # noqa: E402

COUNT, SEED = 700, 23


@functools.cache
def _sglang() -> tuple[tuple[str | None, Any, int, str], ...]:
    """SGLang's answer on each generated case (computed once: the plants change graphfit
    only)."""
    named = [(flag, cfg, cap) for flag, cfg, cap in itertools.product(
        [*sorted(set(qc.OVERRIDDEN) - {None}), None], qo.LAYOUTS.values(), (75, 100))]
    return tuple((flag, cfg, cap, qo.verify(flag, cfg, divmod(cap, 10)))
                 for flag, cfg, cap in named + qc.cases(COUNT, SEED))


def _wrong() -> tuple[list[str], dict[str, int]]:
    return qc.compare((f"--quantization {flag} on {cfg} at SM{cap}",
                       qc.from_layout(flag, cfg, cap), theirs)
                      for flag, cfg, cap, theirs in _sglang())


def test_every_generated_case_agrees() -> None:
    """Acceptance and the ModelConfig's quantization agree on every case; none is refused
    as not modelled, and the cases reach each outcome."""
    wrong, counts = _wrong()
    assert not wrong, f"{len(wrong)} of {counts['cases']} differ:\n" + "\n".join(wrong[:10])
    assert counts["not modelled"] == 0
    assert counts["accepted"] > COUNT // 10 and counts["refused"] > COUNT // 4, counts
    assert counts["crash"] > 0, counts  # a null quant_algo / quant_method stops SGLang
    upgraded = {theirs for *_, theirs in _sglang()}
    assert {"awq_marlin", "gptq_marlin", "moe_wna16", "humming", "modelopt_fp8", "mxfp8",
            "awq"} <= upgraded, upgraded  # not vacuous: every override answered somewhere


def _no_upper(cfg: Any, default: str = "") -> str:
    return str(cfg.get("quant_method", default))


PLANTS: dict[str, Callable[[pytest.MonkeyPatch], None]] = {
    # Marlin needs SM80 (marlin_utils.py:78-79)
    "marlin capability": lambda m: m.setattr(ov, "MARLIN_MIN_CAPABILITY", 75),
    # Marlin's group sizes (marlin_utils.py:47)
    "marlin group sizes": lambda m: m.setattr(ov, "MARLIN_GROUP_SIZES", (-1, 32, 64, 128, 256)),
    # a Marlin-format GPTQ checkpoint is not converted (gptq/gptq.py:44-49, 416)
    "gptq marlin format": lambda m: m.setattr(ov, "_marlin_format", lambda cfg: False),
    # moe_wna16 takes AWQ from SM75 (moe_wna16.py:178-183, awq/awq.py:108-116)
    "awq capability": lambda m: m.setattr(ov, "AWQ_MIN_CAPABILITY", 80),
    # a generic modelopt flag names MXFP8 by quant_algo (modelopt_utils.py:23-30)
    "modelopt algos": lambda m: m.setattr(ov, "MODELOPT_ALGOS", {
        k: v for k, v in ov.MODELOPT_ALGOS.items() if k != "MXFP8"}),
    # the loop's order: ModelOpt answers before humming (__init__.py:63-104)
    "override order": lambda m: m.setattr(ov, "OVERRIDES", ov.OVERRIDES[::-1]),
    # quant_method is lower-cased before it is compared (model_config.py:2076-2078)
    "lower-casing": lambda m: m.setattr(ov, "method_of", _no_upper),
}


@pytest.mark.parametrize("plant", sorted(PLANTS))
def test_a_planted_error_is_caught(plant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each rule, broken on purpose, makes some generated case differ from SGLang."""
    PLANTS[plant](monkeypatch)
    assert _wrong()[0], plant


UNKNOWN_GPU_CASES, ANY_GPU = 250, (70, 75, 89, 100)  # each side of SM75 and SM80


def test_an_unknown_gpu_is_refused_only_where_the_gpu_decides() -> None:
    """Without a GPU name graphfit accepts a case SGLang accepts on every GPU, refuses one it
    refuses on every GPU, and asks for the GPU where SGLang's answer hangs on it."""
    wrong, asked = [], 0
    for flag, cfg, _cap in qc.cases(UNKNOWN_GPU_CASES, SEED + 1):
        theirs = [qo.verify(flag, cfg, divmod(cap, 10)) for cap in ANY_GPU]
        accepted = [not t.startswith(("refused", "crash")) for t in theirs]
        mine = qc.from_layout(flag, cfg, None)
        if "name the GPU" in mine:
            asked += 1
            ok = any(accepted) and not all(accepted)
        else:
            ok = all(qc.same(mine, t) for t in theirs) if mine.startswith(
                ("refused", "crash")) else all(accepted) and mine == theirs[-1]
        if not ok:
            wrong.append(f"{flag} on {cfg}: graphfit {mine[:80]} | SGLang {theirs}")
    assert not wrong, "\n".join(wrong[:8])
    assert asked > 0  # not vacuous: some cases hang on the GPU
