"""graphfit == SGLang 0.5.23 on the checkpoint's quantization (graphfit.planner.engines.
sglang_quantization): the method ModelConfig parses from config.json, and whether
`_verify_quantization` accepts a `--quantization` with it, for every flag and layout pair
(tests.oracle.sglang_quantization_oracle runs SGLang's own method). The lines these rules
decide are compared whole in test_sglang_moe_a2a_oracle.py."""

from __future__ import annotations

import itertools

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.planner.core.errors import ConfigError  # noqa: E402
from graphfit.planner.engines import sglang_quantization as sq  # noqa: E402
from tests.oracle import sglang_quantization_oracle as qo  # noqa: E402

PAIRS = list(itertools.product(qo.FLAGS + qo.MORE_FLAGS, sorted(qo.LAYOUTS)))


def graphfit_verify(flag: str | None, layout: str, capability: int = 100) -> str:
    """graphfit's answer in the oracle's words (the checkpoint's whole config read, as from
    a local config.json); "not modelled" where graphfit refuses so."""
    config = qo.LAYOUTS[layout]
    try:
        quant = sq.check_clash(flag, sq.checkpoint_method(config),
                               sq.effective_config(config), capability)
    except ConfigError as exc:
        return "not modelled" if "not modelled" in str(exc) else f"refused: {exc}"
    return str(quant)


def test_every_flag_and_layout_agrees() -> None:
    """Acceptance and the ModelConfig's quantization agree on every pair graphfit models;
    a pair graphfit does not model is one SGLang's override decides by bits / GPU."""
    wrong, unmodelled, refused = [], 0, 0
    for flag, layout in PAIRS:
        ours, theirs = graphfit_verify(flag, layout), qo.verify(flag, qo.LAYOUTS[layout])
        refused += theirs.startswith("refused")
        if ours == "not modelled":
            unmodelled += 1
            continue
        if ours.startswith("refused") != (theirs[:7] in ("refused", "crash: ")) or (
                not ours.startswith("refused") and ours != theirs):
            wrong.append(f"--quantization {flag} on {layout}: SGLang {theirs[:90]}, "
                         f"graphfit {ours[:90]}")
    assert not wrong, "\n".join(wrong[:8])
    # not vacuous: SGLang refuses a good share of the pairs; graphfit models every one
    assert refused > len(PAIRS) // 4 and unmodelled == 0


@pytest.mark.parametrize("layout", sorted(qo.LAYOUTS))
def test_the_parsed_method_is_sglangs(layout: str) -> None:
    """Without --quantization SGLang's ModelConfig takes the parsed method (:2106-2107)."""
    theirs = qo.verify(None, qo.LAYOUTS[layout])
    method = str(sq.checkpoint_method(qo.LAYOUTS[layout])).lower()
    if theirs.startswith("refused"):
        assert method not in sq.KNOWN_METHODS
    else:  # the parsed method, or its Marlin upgrade on this SM100 GPU
        assert theirs in (method, f"{method}_marlin")


def test_a_planted_error_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """A compatibility table missing fp8 under modelopt_fp4 refuses a pair SGLang accepts."""
    monkeypatch.setitem(sq.COMPATIBLE, "modelopt_fp4", ("modelopt",))
    assert graphfit_verify("modelopt_fp4", "fp8_block").startswith("refused")
    assert not qo.verify("modelopt_fp4", qo.LAYOUTS["fp8_block"]).startswith("refused")
