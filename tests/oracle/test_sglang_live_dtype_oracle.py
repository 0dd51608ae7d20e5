"""The live check's target dtype (`graphfit.integrations.sglang.from_sglang` on SGLang
0.5.23's own resolved ServerArgs record) against SGLang's target ModelConfig dtype
(`_get_and_verify_dtype`, configs/model_config.py:881, 2284-2345; the record's memoised
ModelConfig, tests/oracle/sglang_oracle._target_dtype). Before issue 23 / s45r the live path
read no dtype at all (graphfit's bfloat16 default, whatever --dtype or the config said); the
planted test shows that is caught."""

from __future__ import annotations

import json

import pytest

from tests.oracle.paths import require

require("sglang")

from graphfit.integrations.sglang import from_sglang  # noqa: E402
from tests.oracle import sglang_draft_shape as ds  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402

F32 = ("--json-model-override-args", json.dumps({"torch_dtype": "float32"}))
LINES = [
    (),  # the oracle model's bfloat16
    ("--dtype", "half"),
    ("--dtype", "float"),
    F32,  # float32 under auto: float16 (model_config.py:2326-2333)
    (*F32, "--dtype", "bfloat16"),
    (*F32, "--dtype", "auto"),
    ds.line("EAGLE", ds.draft("LlamaForCausalLMEagle"), "--dtype", "float16"),
]


def _pair(argv: tuple[str, ...]) -> tuple[str, str]:
    r = so.resolve(("--max-running-requests", "16", *argv), gpu_mem_gb=80)
    assert isinstance(r, so.Resolved), r
    theirs = str(so._target_dtype(r)).removeprefix("torch.")
    return theirs, from_sglang(r.record, environ={}, gpu_memory_gb=80).dtype


@pytest.mark.parametrize("argv", LINES)
def test_live_target_dtype_is_sglangs(argv: tuple[str, ...]) -> None:
    theirs, ours = _pair(argv)
    assert ours == theirs


def test_live_target_dtype_planted(monkeypatch: pytest.MonkeyPatch) -> None:
    """The live path without the rule (no dtype read) plans bfloat16 where SGLang runs
    float16: caught."""
    from graphfit.inputs import sglang_dtype

    monkeypatch.setattr(sglang_dtype, "flag_dtype", lambda flag: None)
    theirs, ours = _pair(LINES[1])
    assert (theirs, ours) == ("float16", "bfloat16")
