"""graphfit.planner.engines.sglang_server_checks without the oracle (issue 23, s66b; SGLang's
own answers: tests/oracle/test_sglang_server_checks_oracle.py): two-batch overlap's start-up
check reads the backend the hooks resolve and attention DP as `attn_dp_enabled_of` does, runs
after the LoRA checks, and its refusal is one whole CLI error line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphfit import EngineConfig
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines import sglang_server_checks as checks
from tests.helpers import run_cli
from tests.planner.test_sglang_lora_runner import MOE

WHERE = "validation_hook.py:756-772"


def _config(**options: object) -> EngineConfig:
    return EngineConfig.from_dict({"engine": "sglang", "max_num_seqs": 32,
                                   "options": {"two_batch_overlap": True, **options}})


@settings(max_examples=20)
@given(st.sampled_from(("none", "ascend_tp", "deepep", "mooncake", "nixl")),
       st.sampled_from((1, 2)), st.booleans(), st.sampled_from((None, "scale")))
def test_refused_exactly_without_a_backend_or_attention_dp(backend: str, dp: int,
                                                           waterfill: bool,
                                                           join: str | None) -> None:
    """SGLang's predicate (validation_hook.py:756-772) on the resolved fields: ascend_tp
    becomes none (moe_hook.py:463-470), Waterfill forces deepep (overrides.py:1595-1607), a
    scale joiner counts as attention DP (runtime_context.py:191-199)."""
    options = {"tp_size": 2, "attn_dp_size": dp, "moe_a2a_backend": backend,
               "enable_waterfill": waterfill, "ep_join_mode": join}
    none = backend in ("none", "ascend_tp") and not waterfill
    expected = none and dp == 1 and join != "scale"
    try:
        config = _config(**options)
    except ConfigError as exc:  # refused: by this check exactly when expected, else earlier
        assert (WHERE in str(exc)) == expected, exc
        return
    assert not expected
    assert checks.problem(config) is None
    assert checks.resolved_a2a(config) != "none" or checks.attn_dp_enabled(config)


def test_no_overlap_no_refusal() -> None:
    config = EngineConfig.from_dict({"engine": "sglang", "max_num_seqs": 32,
                                     "options": {"tp_size": 2}})
    assert checks.problem(config) is None and checks.resolved_a2a(config) == "none"


def test_the_lora_checks_come_first() -> None:
    """check_lora_server_args (validation_hook.py:222) before the TBO check (:346)."""
    with pytest.raises(ConfigError, match=r"lora_hook\.py:152-155"):
        _config(tp_size=2, enable_lora=True)


@pytest.mark.parametrize("method", ["ngram", "draft_model", "eagle", "uno"])
def test_mixed_chunk_is_left_to_the_speculative_hook(method: str) -> None:
    """The mixed-chunk assert (validation_hook.py:224-238) never fires on a resolved line: the
    speculative hook turns `--enable-mixed-chunk` off for every algorithm without it first
    (speculative_hook.py:596-601, 1108-1116, 1305-1308), so graphfit plans such a line."""
    spec: dict[str, object] = {"spec_method": method}
    if method in ("eagle", "draft_model"):
        spec.update(num_speculative_tokens=2, speculative_eagle_topk=1,
                    speculative_num_draft_tokens=3)
    elif method == "uno":
        spec.update(speculative_num_draft_tokens=4)
    config = EngineConfig.from_dict({"engine": "sglang", "max_num_seqs": 32, **spec,
                                     "options": {"enable_mixed_chunk": True}})
    assert checks.problem(config) is None


def test_the_refusal_is_one_whole_error_line(tmp_path: Path) -> None:
    model = tmp_path / "moe"
    model.mkdir()
    (model / "config.json").write_text(json.dumps(MOE))
    code, _, err = run_cli(["plan", "--gpu-memory-gb", "80", "--weights-gb", "10", "--",
                            "sglang", "serve", "--model-path", str(model), "--tp-size", "2",
                            "--enable-two-batch-overlap"])
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: "), err
    assert WHERE in lines[0] and len(lines[0]) <= 200 and "Traceback" not in err
    code, _, err = run_cli(["plan", "--gpu-memory-gb", "80", "--weights-gb", "10", "--",
                            "sglang", "serve", "--model-path", str(model), "--tp-size", "2",
                            "--moe-a2a-backend", "deepep", "--enable-two-batch-overlap"])
    assert code == 0, err
