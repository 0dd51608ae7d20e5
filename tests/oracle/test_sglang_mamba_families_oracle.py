"""The mamba state cache sized from GPU memory for issue 23's remaining families, graphfit vs
SGLang 0.5.23's own `_profile_available_bytes` + `_handle_max_mamba_cache` +
`resolve_max_num_reqs` (tests/oracle/sglang_mamba_memory_oracle): the pure Mamba-1 /
Falcon-Mamba models (full-rank state over the whole TP group, configs/mamba.py:27-81), Mamba-2
(configs/mamba2.py, refused without the intermediate_size transformers no longer sets),
MiniCPM-SALA (lightning's SSM-only state, its override's radix-cache-off and attention-DP
refusal, arg_groups/model_overrides/minicpm.py:14-26), Nemotron-H Nano VL V2 (its
llm_config's state; the fraction unchanged, its class keeps no `vision_config`),
InternS2-Preview (Qwen3.5-MoE's GDN state), Qwen4-Exp (GDN on `layer_types`, its PLE
short-conv states priced apart) and Zaya's head-count assertions at load
(models/zaya.py:917-925, 460-471). Kept small (< 60 s on one core): the measure script's
parts `families`, `families_modes` and `families_more` run the large grids."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")

from graphfit.cli.options import resolve_values  # noqa: E402
from graphfit.inputs import commandline  # noqa: E402
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

FAMILIES = (mm.MAMBA1, mm.FALCON_MAMBA, mm.MAMBA2, mm.MAMBA2_BARE, mm.MINICPM, mm.NEMOTRON_VL,
            mm.INTERNS2, mm.QWEN4_EXP, mm.ZAYA_ODD, mm.ZAYA_GQA, mm.BAILING_LIST,
            mm.BAILING_NULL_HEAD, mm.NANO_OMNI)

LINES = st.fixed_dictionaries({
    "shape": st.sampled_from(FAMILIES),
    "tp": st.sampled_from(((1, 1), (2, 1), (4, 1), (4, 2))),
    "ssm": st.sampled_from((None, "bfloat16")),
    "spec": st.sampled_from((None, SPECS[1])),
    "pp": st.sampled_from((1, 2)),
    "radix_off": st.booleans(),
    "S": st.none() | st.sampled_from((64, 3000)),
    "weights": st.sampled_from((0.3, 0.9)),
    "env": st.sampled_from(((), (ENV_VALUES[0],)))})


@example({"shape": mm.MAMBA1, "tp": (4, 2)})  # the whole TP group under attention DP
@example({"shape": mm.FALCON_MAMBA, "tp": (2, 1), "env_ssm": "bfloat16"})  # env dtype only
@example({"shape": mm.MAMBA2, "tp": (4, 1)})  # 2 groups widened to 4
@example({"shape": mm.MAMBA2_BARE})  # SGLang's AttributeError: refused by both
@example({"shape": mm.MINICPM, "S": None, "radix_off": False})  # radix off by its override
@example({"shape": mm.MINICPM, "tp": (4, 2)})  # "MiniCPM does not support DP attention"
@example({"shape": mm.NEMOTRON_VL, "tp": (4, 1), "cp": 2})  # Nemotron-H refuses CP
@example({"shape": mm.NEMOTRON_VL, "spec": SPECS[1]})  # the fraction as SGLang leaves it
@example({"shape": mm.NANO_OMNI, "tp": (4, 1), "cp": 2})  # Nano Omni V3: Nano VL's class
@example({"shape": mm.NANO_OMNI, "spec": SPECS[1], "S": None})
@example({"shape": mm.INTERNS2, "tp": (4, 2), "pp": 2})
@example({"shape": mm.QWEN4_EXP, "spec": SPECS[1]})  # GDN on layer_types, PLE apart
@example({"shape": mm.ZAYA_ODD, "tp": (4, 1)})  # 6 heads over TP 4: refused by both
@example({"shape": mm.ZAYA_ODD, "tp": (2, 1)})  # ... served at TP 2
@example({"shape": mm.ZAYA_GQA})  # 8 query heads over 3 groups: refused at any width
@example({"shape": mm.BAILING_LIST})  # transformers' field validation: refused by both
@given(LINES)
@settings(max_examples=8, deadline=None)  # 14 pinned above; the measure draws ~1500
def test_new_families_state_cache_equals_sglang(p: dict) -> None:
    line = _line(**p)
    assert agree(line) is True, (argv_of(line), line, sglang_side(line))


def test_qwen4_exp_without_a_vision_tower_sizes_the_cache_as_sglang() -> None:
    """Its config builds a default vision tower (configs/qwen4_exp.py:151-155) whose size
    lowers SGLang's default fraction: graphfit reads that default tower (graphfit.inputs.
    model_config.DEFAULT_VISION_TOWERS) and sizes the same cache at the same fraction."""
    theirs = sglang_side(_line(shape=mm.QWEN4_EXP_BARE))
    assert isinstance(theirs, mm.Sized) and theirs.cache_size > 0
    assert agree(_line(shape=mm.QWEN4_EXP_BARE), theirs) is True
    config = _plan_of(mm.QWEN4_EXP_BARE).config
    assert config.mamba_memory_slots is not None and config.multimodal


@pytest.mark.parametrize("tp", ("2", "4"))
def test_zaya_refusals_carry_sglang_reason(tp: str) -> None:
    """The refusal names SGLang's assertion (models/zaya.py:917-925), as one error line."""
    with pytest.raises(ConfigError) as exc:
        _plan_of(mm.ZAYA_GQA, "--tp", tp)
    assert "num_query_groups (3) must be divisible by tp_size" in str(exc.value)
    assert len(str(exc.value)) <= 200


@pytest.mark.parametrize(("flag", "value"), [
    ("--mamba-cache-philox-rounds", "-1"), ("--mamba-cache-philox-rounds", "0"),
    ("--mamba-cache-philox-rounds", "7"), ("--mamba-max-states-per-path", "0"),
    ("--mamba-max-states-per-path", "-2"), ("--mamba-max-states-per-path", "-1"),
    ("--mamba-max-states-per-path", "3")])
def test_mamba_flag_values_refused_as_sglang_refuses(flag: str, value: str) -> None:
    """`handle_mamba_backend`'s value checks (arg_groups/mamba_hook.py:19-28), which SGLang
    runs for every model: graphfit refuses exactly the values SGLang's own resolution does."""
    from tests.oracle import sglang_oracle as so

    theirs = so.resolve((flag, value), gpu_mem_gb=80, model=mm.model_dir(0))
    try:
        _plan_of(0, flag, value)
        ours_refused = False
    except ConfigError as exc:
        ours_refused = True
        assert flag in str(exc) and len(str(exc)) <= 200
    assert ours_refused == isinstance(theirs, so.Rejected), getattr(theirs, "text", theirs)


def _resolved(gpu: object, *argv: str):  # type: ignore[no-untyped-def]
    line = ["python", "-m", "sglang.launch_server", "--model-path", mm.model_dir(0),
            "--max-running-requests", "3000", *argv]
    return resolve_values({"gpu_memory_gb": gpu, "weights_gb": 20.0}, environ={},
                          pasted=commandline.read([shlex.join(line)]))


ROUNDING = ("--enable-mamba-cache-stochastic-rounding",)
FP16 = ("--mamba-ssm-dtype", "float16")
INT8 = ("--enable-int8-mamba-checkpoint",)


@pytest.mark.parametrize("gpu", ("H100", "B200"))
@pytest.mark.parametrize("argv", [
    ROUNDING, (*ROUNDING, "--mamba-ssm-dtype", "bfloat16"), (*ROUNDING, *FP16),
    (*ROUNDING, *FP16, "--mamba-backend", "flashinfer"), ("--mamba-backend", "flashinfer"),
    INT8, (*INT8, "--enable-hierarchical-cache"), (*INT8, "--enable-hicache"),
    (*INT8, "--radix-cache-backend", "mooncake"), (*INT8, "--enable-lmcache"),
    ("--enable-hierarchical-cache",)], ids=" ".join)
def test_mamba_hook_cross_flag_refusals_as_sglang(argv: tuple[str, ...], gpu: str) -> None:
    """`handle_mamba_backend`'s stochastic-rounding checks (mamba_hook.py:30-52) and
    `handle_int8_mamba_checkpoint` (:75-99) on SGLang's own resolution on the named GPU's
    capability: graphfit refuses exactly those lines, with SGLang's reason in one line."""
    from tests.oracle import sglang_oracle as so

    theirs = so.resolve(argv, gpu_mem_gb=80, model=mm.model_dir(0),
                        capability=(10, 0) if gpu == "B200" else None)
    try:
        _resolved(gpu, *argv).config()
        ours: str | None = None
    except ConfigError as exc:
        ours = str(exc)
        assert len(ours) <= 200 and "\n" not in ours
    if isinstance(theirs, so.Rejected):
        assert ours is not None, theirs.text
        words = ("float16, got", "SM100 with CUDA >= 12.8", "host-offload path",
                 "built-in mamba radix cache", "LMCache is not int8-aware")
        assert [w in ours for w in words] == [w in theirs.text for w in words], (ours, theirs)
    else:
        assert ours is None, ours


def test_stochastic_rounding_on_an_unknown_generation_is_noted() -> None:
    """A GPU given in GiB: the SM100 check cannot be made, so the plan says SGLang makes it
    (mamba_hook.py:44-52); naming the GPU settles it (the test above)."""
    notes = _resolved(80.0, *ROUNDING, *FP16).notes
    assert any("refuses it below SM100" in n for n in notes), notes
    assert not any("below SM100" in n for n in _resolved(80.0, *FP16).notes)


@pytest.mark.parametrize("shape", (mm.QWEN4_EXP_HC1, mm.QWEN4_EXP_NO_EOS,
                                   mm.QWEN4_EXP_EOS_LIST, mm.QWEN4_EXP_EOS_TEXT),
                         ids=("hc_count 1", "no eos", "eos list", "eos text"))
def test_qwen4_exp_config_refusals_as_sglang(shape: int) -> None:
    """Qwen4-Exp's text config refusals on SGLang's stack (hc_count <= 1; PLE layers without
    eos_token_id: transformers 5.25's validate_architecture) and its PLE embedding's
    `int(config.eos_token_id)` at load (models/qwen4_exp.py:597; the oracle's `sized`):
    refused by both, graphfit in one line naming the key."""
    line = _line(shape=shape)
    assert agree(line) is True, (line, sglang_side(line))
    with pytest.raises(ConfigError) as exc:
        _plan_of(shape)
    assert str(exc.value).startswith(("hc_count", "eos_token_id"))
    assert len(str(exc.value)) <= 200


@pytest.mark.parametrize("argv", [(*ROUNDING, *FP16), FP16], ids=" ".join)
def test_stochastic_rounding_off_cuda_as_sglang(argv: tuple[str, ...]) -> None:
    """A named ROCm GPU: SGLang's platform is not CUDA (`override_platform(is_cuda=False)`,
    its own scoped override), so stochastic rounding is refused (mamba_hook.py:38-43)."""
    from tests.oracle import sglang_oracle as so

    so.oracle()
    from sglang.srt.runtime_context import override_platform

    with override_platform(is_cuda=False, is_hip=True):
        theirs = so.resolve(argv, gpu_mem_gb=80, model=mm.model_dir(0))
    try:
        _resolved("MI300X", *argv).config()
        ours: str | None = None
    except ConfigError as exc:
        ours = str(exc)
    assert (ours is not None) == isinstance(theirs, so.Rejected), (ours, theirs)
    assert ours is None or "only supported on NVIDIA CUDA" in ours
