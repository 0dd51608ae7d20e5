"""The state cache sized from GPU memory for issue 23's hybrid leftovers, graphfit vs SGLang
0.5.23's own `_profile_available_bytes` + `_handle_max_mamba_cache` + `resolve_max_num_reqs`
(tests/oracle/sglang_mamba_memory_oracle): Inkling's short-conv state (configs/inkling.py:
217-256: six bfloat16 conv states a layer, KV widths max(1, heads // TP) x head dim, the
stream sharded by --enable-scattered-sconv; its override's full-memory ratio 0.1 and extra
buffer, model_overrides/inkling.py:41-60), the full Nemotron-H Omni V3 (configs/
nano_nemotron_vl.py:189-198: layer names aliased, transformers' vision check) and Qwen4-Exp
without a vision_config (its default tower's fraction, configs/qwen4_exp.py:151-155). Kept
small (< 60 s on one core): the measure script's parts `inkling`, `omni_full` and
`qwen4_exp_bare` run the grids."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")

from graphfit.planner.core.errors import ConfigError  # noqa: E402
from tests.oracle import sglang_mamba_memory_oracle as mm  # noqa: E402
from tests.oracle.test_sglang_mamba_memory_oracle import (  # noqa: E402
    ENV_VALUES,
    SPECS,
    _line,
    _plan_of,
    agree,
    argv_of,
    sglang_side,
)

SCATTERED = ("--enable-scattered-sconv",)
LINES = st.fixed_dictionaries({
    "shape": st.sampled_from((mm.INKLING, mm.INKLING_DEFAULTS, mm.INKLING_ODD)),
    "tp": st.sampled_from(((1, 1), (2, 1), (4, 1), (4, 2), (8, 1))),
    "more": st.sampled_from(((), SCATTERED)),
    "spec": st.sampled_from((None, SPECS[1])),
    "pp": st.sampled_from((1, 2)),
    "radix_off": st.booleans(),
    "S": st.none() | st.sampled_from((64, 3000)),
    "weights": st.sampled_from((0.3, 0.9))})


@example({"shape": mm.INKLING})  # six conv states a layer, ratio 0.1
@example({"shape": mm.INKLING, "tp": (4, 1)})  # 2 sliding-window KV heads: one a rank
@example({"shape": mm.INKLING, "tp": (4, 2), "more": SCATTERED})  # the stream sharded
@example({"shape": mm.INKLING_ODD, "tp": (4, 1), "more": SCATTERED})  # 1026 / 4: refused
@example({"shape": mm.INKLING_DEFAULTS, "tp": (8, 1), "more": SCATTERED})  # class defaults
@example({"shape": mm.INKLING, "spec": SPECS[1], "S": None})  # the joint solve
@example({"shape": mm.INKLING, "ssm": "float16", "env": (ENV_VALUES[0],)})  # bf16 whatever
@example({"shape": mm.INKLING, "overlap": False})  # the extra buffer pinned: 4 slots
@example({"shape": mm.INKLING, "M": 4000, "weights": 0.5})  # the cache fixed: pool 800
@example({"shape": mm.INKLING_MTP_BAD})  # banded MTP geometry: refused by both
@example({"shape": mm.OMNI_FULL, "tp": (4, 1)})  # Omni V3: aliased layer names
@example({"shape": mm.OMNI_FULL, "spec": SPECS[1], "pp": 2})
@example({"shape": mm.OMNI_FULL_ODD})  # transformers' video_temporal_patch_size check
@example({"shape": mm.QWEN4_EXP_BARE})  # the default vision tower's fraction
@example({"shape": mm.QWEN4_EXP_BARE, "tp": (4, 2), "mmt": "cuda_ipc", "gb": 24.0})
@given(LINES)
@settings(max_examples=6, deadline=None)  # 15 pinned above; the measure draws ~1300
def test_hybrid_leftovers_state_cache_equals_sglang(p: dict) -> None:
    line = _line(**p)
    assert agree(line) is True, (argv_of(line), line, sglang_side(line))


@pytest.mark.parametrize("p", [
    {}, {"tp": (4, 1)}, {"tp": (4, 2), "more": SCATTERED}, {"S": 64},
    {"mmt": "cuda_ipc", "gb": 24.0}], ids=("plain", "tp4", "scattered", "S64", "cuda_ipc"))
def test_inkling_mtp_architecture_as_target_equals_sglang(p: dict) -> None:
    """Served as the target, the MTP architecture is multimodal by default (only the other
    is text-only, configs/model_config.py:690-702): its default vision tower lowers the
    fraction (graphfit.inputs.model_config.DEFAULT_VISION_TOWERS) and the multimodal
    runtime reservation comes out of the state cache's budget (kv_cache_configurator.py:
    202-219); the cap graphfit sizes equals SGLang's (left out before s42h)."""
    line = _line(shape=mm.INKLING_MTP, **p)
    assert agree(line) is True, (argv_of(line), line, sglang_side(line))
    assert _plan_of(mm.INKLING_MTP).config.mamba_memory_slots is not None


@pytest.mark.parametrize(("shape", "argv", "words"), [
    (mm.INKLING_ODD, ("--tp", "4", *SCATTERED), "not divisible by attn tp 4"),
    (mm.INKLING_MTP_BAD, (), "banded MTP head geometry must match"),
    (mm.OMNI_FULL_ODD, (), "video_temporal_patch_size"),
], ids=("scattered sconv", "banded MTP", "Omni V3 vision"))
def test_refusals_carry_sglang_reason(shape: int, argv: tuple[str, ...], words: str) -> None:
    """The refusal names SGLang's (or its transformers') reason, as one error line."""
    with pytest.raises(ConfigError) as exc:
        _plan_of(shape, *argv)
    assert words in str(exc.value) and len(str(exc.value)) <= 200
