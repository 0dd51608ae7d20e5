"""SGLang's large-Hopper Qwen3-VL decode override (graphfit/planner/engines/sglang_qwen3_vl.py):
its conditions as properties of graphfit's plan. Equality with SGLang's own pipeline is
tests/oracle/test_sglang_qwen3_vl_oracle.py."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from graphfit import EngineConfig
from graphfit.planner.engines.sglang_memory import default_decode_max_bs
from graphfit.planner.plan import plan

QWEN3_VL = {"architecture": "Qwen3VLForConditionalGeneration", "multimodal": True}


def config(s: int, gb: float, sm90: bool | None, **top: Any) -> EngineConfig:
    return EngineConfig(engine="sglang", max_num_seqs=s, **{**QWEN3_VL, **top},
                        options={"gpu_memory_gb": gb, "sm90": sm90})


@given(st.integers(1, 700), st.sampled_from((24, 48, 79.6, 95.6, 140.4, 192)),
       st.sampled_from((True, False, None)))
def test_decode_graphs_reach_the_running_limit_on_large_hoppers(s: int, gb: float,
                                                                sm90: bool | None) -> None:
    """On a Hopper (sm90) with >= 60 GiB and max_running_requests <= 512 the decode ladder
    ends at max_running_requests; otherwise at SGLang's default clamped to it."""
    p = plan(config(s, gb, sm90))
    default = min(default_decode_max_bs(gb, 1)[0], s)
    raised = sm90 is True and gb >= 60 and s <= 512
    assert p.config_ladder.sizes[-1] == (s if raised else default)
    unknown = sm90 is None and gb >= 60 and default < s <= 512
    assert any("GPU generation is unknown" in w for w in p.warnings) == unknown


def test_other_models_and_locked_ladders_keep_the_default() -> None:
    assert plan(config(512, 79.6, True, architecture="LlamaForCausalLM")
                ).config_ladder.sizes[-1] == 256
    assert plan(config(512, 79.6, True, multimodal=False)).config_ladder.sizes[-1] == 256
    assert plan(config(512, 79.6, True, max_cudagraph_capture_size=128)
                ).config_ladder.sizes[-1] == 128


def test_speculation_without_running_requests_is_not_raised() -> None:
    """The hook runs before the speculative hook fills max_running_requests (48): nothing to
    raise to (qwen3_vl.py:45-47 needs it given)."""
    c = EngineConfig(engine="sglang", spec_method="eagle", num_speculative_tokens=3,
                     speculative_eagle_topk=1, **QWEN3_VL,
                     options={"gpu_memory_gb": 79.6, "sm90": True})
    assert c.max_num_seqs == 48
    assert all("Qwen3-VL" not in w for w in plan(c).warnings)
