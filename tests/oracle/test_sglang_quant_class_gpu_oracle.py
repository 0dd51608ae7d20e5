"""graphfit == SGLang 0.5.23 on the reason a found quantize_config.json is refused under
`--quantization awq_marlin` / `moe_wna16` on GPUs on each side of the Marlin (SM80) and AWQ
(SM75) bars (graphfit.inputs.sglang_quant_class_gpu): below them the classes' own GPU
sentences (awq/awq.py:282-284 with marlin_utils.py:78-79; moe_wna16.py:96-108), not the
loader's bar nor Marlin's SM80 reasons. SGLang's real ModelConfig and loader run on each
line (tests.oracle.sglang_quant_class_gpu_compare); larger counts:
`python -m tests.oracle.measure_sglang_quant_class_gpu`."""

from __future__ import annotations

import itertools

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_quant_class_gpu_compare as cg  # noqa: E402

_AWQ = {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True}
BODIES = (_AWQ, {**_AWQ, "bits": 8, "zero_point": False},
          {k: v for k, v in _AWQ.items() if k != "zero_point"})


def test_named_gpus_give_sglangs_reason() -> None:
    """Three bodies under both flags on a T4 (below Marlin's bar) and an A100 (past it)."""
    seen, wrong = [], []
    for content, flag, gpu in itertools.product(BODIES, cg.FLAGS, ("T4", "A100")):
        reason, bad = cg.compare(flag, content, gpu)
        seen.append(reason)
        if bad:
            wrong.append(bad)
    assert not wrong, "\n".join(wrong)
    # not vacuous: Marlin's no-type sentence on the T4, the classes' own refusals elsewhere
    assert seen.count("marlin") == 2 and seen.count("class") >= 4 and "passed" in seen


def test_config_file_capability_below_awq_gives_sglangs_reason() -> None:
    """A config file's gpu_capability below any named GPU (SM70, SM60) and T4's."""
    seen, wrong = [], []
    for flag, cap in itertools.product(cg.FLAGS, (60, 70, 75)):
        reason, bad = cg.compare_file(flag, _AWQ, cap)
        seen.append(reason)
        if bad:
            wrong.append(bad)
    assert not wrong, "\n".join(wrong)
    assert seen.count("wna16") == 2 and seen.count("marlin") == 3 and "passed" in seen


def test_modelconfig_first_where_the_method_hangs_on_the_gpu() -> None:
    """moe_wna16 on config.json's AWQ dicts lacking a key: on SM70 ModelConfig refuses the
    method (no moe_wna16 override for awq below SM75) before the class reads the dict; on a
    T4 the class's missing-key refusal is SGLang's reason."""
    seen, wrong = [], []
    for layout, cap in itertools.product(("awq_no_zp", "awq_no_group"), (70, 75)):
        reason, bad = cg.compare_config_json("moe_wna16", layout, cap)
        seen.append(reason)
        if bad:
            wrong.append(bad)
    assert not wrong, "\n".join(wrong)
    assert seen == ["refused", "class", "refused", "class"]
