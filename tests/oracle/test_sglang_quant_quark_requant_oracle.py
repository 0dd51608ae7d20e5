"""graphfit == SGLang 0.5.23 on quark_mxfp4's requantization branch (restated by
graphfit.inputs.sglang_quant_quark_requant, issue 23 s66q): `--quantization quark_mxfp4` on a
checkpoint with its own quantization config, judged by SGLang's own ModelConfig and loader
(tests.oracle.sglang_quant_quark_requant_compare).

Judged: where QuarkConfig.from_config refuses the source, graphfit refuses citing the same
quark.py lines; elsewhere it does not cite them.
Larger counts: `python -m tests.oracle.measure_sglang_quant_quark_requant 60 66` ."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.inputs import sglang_quant_quark_requant as qr  # noqa: E402
from tests.oracle import sglang_quant_quark_requant_compare as qc  # noqa: E402
from tests.oracle.agreement import agreed  # noqa: E402

# the fixed lines the plants below compare first are not compared again here (CI time)
PLANTED = ("gptq", "mixed_inconsistent", "mixed_unsupported", "quark_nvfp4", "fp8_dynamic")


def test_fixed_lines_agree() -> None:
    """Each source kind: GPTQ, AWQ, static / dynamic FP8, ModelOpt NVFP4 / FP8,
    compressed-tensors, Quark NVFP4 or not, ModelOpt mixed with or without NVFP4 layers."""
    verdicts = agreed([line for name, line in qc.FIXED.items() if name not in PLANTED
                       and name not in qc.FP8_LINES], qc.compare)  # s68q: below
    assert verdicts.count("refused") >= 4 and verdicts.count("passed") >= 2, verdicts


def test_generated_lines_agree() -> None:
    """A few drawn source configs."""
    agreed(qc.generated_lines(6, 66), qc.compare)


@pytest.mark.parametrize(("line", "plant"), [
    ("gptq", "rule off"), ("mixed_inconsistent", "algos per layer"),
    ("mixed_unsupported", "any algo kept"), ("quark_nvfp4", "Quark never NVFP4"),
    ("fp8_dynamic", "dynamic FP8 refused")])
def test_a_planted_error_is_caught(line: str, plant: str,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The branch switched off or bent: the compare says so on a line it agrees on."""
    verdict, bad = qc.compare(*qc.FIXED[line])
    assert bad is None
    if plant == "rule off":
        monkeypatch.setattr(qr, "problem", lambda *args, **kwargs: None)
    elif plant == "algos per layer":
        monkeypatch.setattr(qr, "_tail", lambda name: name)
    elif plant == "any algo kept":
        monkeypatch.setattr(qr, "_MIXED_NVFP4", ("NVFP4", "W4A16_NVFP4", "W4A8_AWQ"))
    elif plant == "Quark never NVFP4":
        real = qr._nvfp4_source
        monkeypatch.setattr(qr, "_nvfp4_source", lambda spec: spec.get(
            "quant_method") != "quark" and real(spec))
    else:
        monkeypatch.setattr(qr, "_said", lambda spec: ("611-615", "planted"))
    planted, bad = qc.compare(*qc.FIXED[line])
    assert planted == verdict and bad is not None


# s68q: each plant of the accepted source's Fp8Config, and the line whose compare catches it
_FP8_PLANTS = {"rule off": "fp8_dynamic_block3", "scheme key unread": "fp8_mixed_no_scheme",
               "any scheme": "fp8_mixed_bad_scheme", "block unread": "fp8_mixed_static_block",
               "mixed on any base": "modelopt_mixed_no_scheme"}


def test_accepted_sources_fp8_config_agrees() -> None:
    """s68q: past the source test, a dynamic FP8 source's dequantizing Fp8Config
    (quark.py:602) and an FP8-based mixed source's excluded-layer one (:571) refuse a 3-D
    block, a missing or unknown activation scheme, a block with static activations, as
    SGLang's own Fp8Config does; a ModelOpt-based mixed source builds none."""
    verdicts = agreed(list(qc.FP8_LINES.values()), qc.compare)
    assert verdicts == ["fp8", "passed", "fp8", "fp8", "fp8", "passed", "passed"], verdicts


@pytest.mark.parametrize("plant", list(_FP8_PLANTS))
def test_an_fp8_config_plant_is_caught(plant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """s68q: the Fp8Config rule switched off or bent (the scheme key, the scheme's value or
    the block not read, a non-FP8 mixed base taken as FP8): the compare says so."""
    from graphfit.inputs import sglang_quant_quark_requant_fp8 as rf

    real_words, real_refusal = rf.fp8_words, rf.refusal
    if plant == "rule off":
        monkeypatch.setattr(rf, "refusal", lambda *args: None)
    elif plant == "scheme key unread":
        monkeypatch.setattr(rf, "fp8_words", lambda spec: real_words(
            {"activation_scheme": "dynamic", **spec}))
    elif plant == "any scheme":
        monkeypatch.setattr(rf, "SCHEMES", (*rf.SCHEMES, "per_token"))
    elif plant == "block unread":
        monkeypatch.setattr(rf, "fp8_words", lambda spec: real_words(
            {k: v for k, v in spec.items() if k != "weight_block_size"}))
    else:
        monkeypatch.setattr(rf, "refusal", lambda spec, mixed, *rest: real_refusal(
            {**spec, "quant_method": "fp8"} if mixed else spec, mixed, *rest))
    verdict, bad = qc.compare(*qc.FIXED[_FP8_PLANTS[plant]])
    assert bad is not None, (plant, verdict)
