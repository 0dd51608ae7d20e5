"""graphfit == SGLang 0.5.23 on quantization dicts under config.json's old
`compression_config` key, and on the `from_config` / `__init__` refusals of AutoRoundConfig
and QuarkConfig (restated by graphfit.inputs.sglang_quant_auto_round and
sglang_quant_quark), per tests.oracle.sglang_quant_keys_compare.

Judged: where a config class refuses the dict, graphfit refuses citing the class's file;
where ModelConfig refuses, graphfit refuses; where the loader gets past the class, graphfit
cites none. Larger counts: `python -m tests.oracle.measure_sglang_quant_keys 200 54` ."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.inputs import sglang_quant_auto_round as auto_round  # noqa: E402
from graphfit.inputs import sglang_quant_config_file as config_file  # noqa: E402
from graphfit.inputs import sglang_quant_quark as quark  # noqa: E402
from tests.oracle import sglang_quant_keys_compare as kc  # noqa: E402
from tests.oracle.agreement import agreed  # noqa: E402


def test_fixed_lines_agree() -> None:
    """Each fixed auto-round / quark / compression_config line."""
    verdicts = agreed(kc.FIXED.values(), kc.compare)
    assert verdicts.count("class") >= 12 and verdicts.count("built") >= 5, verdicts


def test_generated_lines_agree() -> None:
    """A few generated dicts under either key."""
    verdicts = agreed(kc.generated_lines(10, 54), kc.compare)
    assert verdicts.count("class") >= 3 and len(set(verdicts)) >= 2, verdicts


@pytest.mark.parametrize(("module", "line"), [(auto_round, "ar_5bit"),
                                              (auto_round, "ar_file_no_group"),
                                              (quark, "quark_kv_missing")])
def test_a_planted_class_error_is_caught(module: Any, line: str,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The class's check switched off: a line SGLang refuses plans, and the compare says so."""
    assert kc.compare(*kc.FIXED[line]) == ("class", None)
    monkeypatch.setattr(module, "check", lambda method, spec: None)
    verdict, bad = kc.compare(*kc.FIXED[line])
    assert verdict == "class" and bad is not None


def test_a_planted_compression_config_error_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """graphfit's reader blind to compression_config: the class SGLang builds from it is not
    checked, and the compare says so."""
    line = kc.FIXED["cc_ct_fp8_3d"]
    assert kc.compare(*line) == ("class", None)

    def quantization_config_only(data: Mapping[str, Any]) -> Mapping[str, Any] | None:
        value = data.get("quantization_config")
        return value if isinstance(value, Mapping) else None

    monkeypatch.setattr(config_file, "declared_config", quantization_config_only)
    verdict, bad = kc.compare(*line)
    assert verdict == "class" and bad is not None
