"""SGLang's memory reserve as graphfit shows it (graphfit/planner/engines/sglang_reserve.py):
`SglangOptions.mem_fraction_static` filled in from the config as given, `graphfit plan`'s
input line and `graphfit memory`'s row / JSON fields. Equality with SGLang's own
`handle_gpu_memory_settings` is tests/oracle/test_sglang_memory_oracle.py."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit import ConfigError, EngineConfig
from graphfit.planner.engines.sglang_memory import FLOOR_MIB, MIB_PER_GIB
from graphfit.planner.engines.sglang_reserve import GIB, reserve_bytes
from graphfit.planner.plan import plan
from tests.helpers import run_cli


def sg(**options: Any) -> EngineConfig:
    top = {k: options.pop(k) for k in ("max_num_seqs", "spec_method", "num_speculative_tokens",
                                       "speculative_eagle_topk",
                                       "speculative_num_draft_tokens",
                                       "max_cudagraph_capture_size") if k in options}
    return EngineConfig(engine="sglang", options=options, **top)


configs = st.builds(
    lambda gb, s, mode, tp, cps: sg(gpu_memory_gb=gb, max_num_seqs=s, disaggregation_mode=mode,
                                    tp_size=tp, chunked_prefill_size=cps),
    st.sampled_from((16, 24, 40, 48, 79.6, 80, 96, 141, 192)), st.integers(1, 2048),
    st.sampled_from(("null", "prefill", "decode")), st.sampled_from((1, 2, 4, 8)),
    st.none() | st.integers(64, 16384))


@given(configs)
def test_fraction_leaves_sglang_floor_on_large_gpus(config: EngineConfig) -> None:
    """A fraction in (0, 1); above 60 GiB SGLang leaves at least 10 GiB outside static memory
    (memory_hook.py:319-320), up to the fraction's rounding to 3 digits (:324-328)."""
    fraction, gb = config.mem_fraction_static, config.gpu_memory_gb
    assert fraction is not None and gb is not None and 0 < fraction < 1
    left = reserve_bytes(gb, fraction)
    assert left == round(gb * GIB * (1 - fraction))
    if gb * MIB_PER_GIB > 60 * MIB_PER_GIB:
        assert left >= FLOOR_MIB * (1 << 20) - 0.0005 * gb * GIB


def test_unknown_gpu_leaves_it_unset() -> None:
    """SGLang's 0.95 for an unknown GPU (memory_hook.py:324-328) is its fallback when
    nvidia-smi gives no answer, not a fact graphfit knows: nothing is filled in or shown."""
    config = sg(max_num_seqs=48)
    assert config.mem_fraction_static is None
    assert all(name != "mem_fraction_static" for name, _ in plan(config).engine_inputs)


def test_given_fraction_is_kept_and_checked() -> None:
    assert sg(max_num_seqs=48, gpu_memory_gb=80, mem_fraction_static=0.7
              ).mem_fraction_static == 0.7
    with pytest.raises(ConfigError, match="mem_fraction_static"):
        sg(max_num_seqs=48, mem_fraction_static=1.2)


def test_the_hook_sees_running_requests_as_given() -> None:
    """A PD decode server with EAGLE and no --max-running-requests: the memory hook runs
    before the speculative hook sets 48 (arg_groups/pipeline.py), so it reserves for the
    decode max_bs (256 at 80 GB) x 64 draft tokens, not 48 x 64."""
    spec = {"spec_method": "eagle", "num_speculative_tokens": 3, "speculative_eagle_topk": 4,
            "speculative_num_draft_tokens": 64}
    unset = sg(gpu_memory_gb=80, disaggregation_mode="decode", **spec)
    given48 = sg(gpu_memory_gb=80, disaggregation_mode="decode", max_num_seqs=48, **spec)
    assert unset.max_num_seqs == given48.max_num_seqs == 48
    assert unset.mem_fraction_static is not None and given48.mem_fraction_static is not None
    assert unset.mem_fraction_static < given48.mem_fraction_static


def test_plan_shows_one_line() -> None:
    code, out, err = run_cli(["plan", "--engine", "sglang", "--max-running-requests", "48",
                              "--gpu-memory-gb", "80", "--disaggregation-mode", "decode"])
    assert code == 0, err
    text = " ".join(out.split())
    assert "mem_fraction_static 0." in text and "GiB for activations and graphs" in text
    assert "decode role" in text
    code, out, _ = run_cli(["plan", "--json", "--engine", "sglang", "--max-running-requests",
                            "48", "--gpu-memory-gb", "80"])
    fraction = json.loads(out)["config"]["options"]["mem_fraction_static"]
    assert code == 0 and 0 < fraction < 1


def test_memory_command_shows_the_reserve() -> None:
    base = ["memory", "--engine", "sglang", "--max-running-requests", "48",
            "--gpu-memory-gb", "80"]
    for extra in ([], ["--bytes-per-token", "1000"]):
        code, out, err = run_cli([*base, *extra, "--json"])
        assert code == 0, err
        doc = json.loads(out)
        fraction = doc["config"]["options"]["mem_fraction_static"]
        assert doc["mem_fraction_static"] == fraction
        assert doc["runtime_reserve_bytes"] == round(80 * GIB * (1 - fraction))
        code, out, _ = run_cli([*base, *extra])
        assert code == 0 and f"{fraction:g}" in out and "activations" in out
    for argv in (["memory", "--json", "--engine", "sglang", "--max-running-requests", "48"],
                 ["memory", "--json", "--max-num-seqs", "48"]):
        code, out, _ = run_cli(argv)
        doc = json.loads(out)
        assert code == 0 and doc["mem_fraction_static"] is None
        assert doc["runtime_reserve_bytes"] is None


def test_a_reserve_beyond_the_gpu_is_a_warning_not_a_refusal() -> None:
    """A PD decode server with 601 running requests x 42 draft tokens on 16 GiB: SGLang's
    formula gives a negative fraction (its oracle agrees, tests/oracle); graphfit still plans
    the graphs, leaves the fraction unset and says why."""
    config = sg(gpu_memory_gb=16, max_num_seqs=601, disaggregation_mode="decode",
                spec_method="eagle", num_speculative_tokens=3, speculative_eagle_topk=4,
                speculative_num_draft_tokens=42)
    assert config.mem_fraction_static is None
    p = plan(config)
    assert any("not positive" in w for w in p.warnings)
    assert all(name != "mem_fraction_static" for name, _ in p.engine_inputs)


def test_a_multimodal_model_is_not_restated() -> None:
    """adjust_mem_fraction_for_vlm (memory_hook.py:330-335, 417-) lowers a multimodal model's
    default by its vision encoder's size, which graphfit does not read: no value, a note. A PD
    decode server skips that adjustment (:283-289), so its value is SGLang's formula's."""
    config = EngineConfig(engine="sglang", max_num_seqs=48, multimodal=True,
                          options={"gpu_memory_gb": 80})
    assert config.mem_fraction_static is None
    inputs = dict(plan(config).engine_inputs)
    assert "vision encoder" in inputs["mem_fraction_static"]
    decode = EngineConfig(engine="sglang", max_num_seqs=48, multimodal=True,
                          options={"gpu_memory_gb": 80, "disaggregation_mode": "decode"})
    assert decode.mem_fraction_static is not None


def _sglang(arch: str, **options: object) -> EngineConfig:
    return EngineConfig(engine="sglang", max_num_seqs=48, architecture=arch,
                        options={"gpu_memory_gb": 80, "cuda_graph_backend_prefill": "breakable",
                                 **options})


MUSE, LLAMA = "MuseSparkForConditionalGeneration", "LlamaForCausalLM"


def test_muse_spark_sizes_kv_after_capture_unless_the_environment_says_no() -> None:
    """SGLang turns SGLANG_ENABLE_POST_CAPTURE_KV_SIZING on for Muse Spark when the variable is
    absent (muse_spark_hook.py:19-25, 50-54): its default is another model's with the variable
    on, and with the variable off (or unparsable, read as off) another model's default. Post-
    capture sizing reserves less (memory_hook.py:291-295): a larger fraction."""
    assert _sglang(MUSE).mem_fraction_static == _sglang(
        LLAMA, post_capture_kv_sizing=True).mem_fraction_static
    assert _sglang(MUSE, post_capture_kv_sizing=False).mem_fraction_static == _sglang(
        LLAMA).mem_fraction_static
    on, off = _sglang(LLAMA, post_capture_kv_sizing=True), _sglang(LLAMA)
    assert on.mem_fraction_static is not None and off.mem_fraction_static is not None
    assert on.mem_fraction_static > off.mem_fraction_static
    assert "after capture" in dict(plan(on).engine_inputs)["mem_fraction_static"]


def test_unified_memory_with_post_capture_is_not_restated() -> None:
    """Under --enable-unified-memory SGLang's answer depends on the hybrid-SWA pool
    (overrides.py:1826-1836): no value and no "not positive" warning."""
    config = _sglang(MUSE, enable_unified_memory=True)
    assert config.mem_fraction_static is None
    assert not any("not positive" in w for w in plan(config).warnings)
    assert _sglang(MUSE, enable_unified_memory=True,
                   post_capture_kv_sizing=False).mem_fraction_static is not None
