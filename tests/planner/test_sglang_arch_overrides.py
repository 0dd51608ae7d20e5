"""SGLang's per-architecture attention overrides for multi-layer EAGLE's draft-extend backend
(graphfit.planner.engines.sglang_arch_overrides): rule properties. The values are compared
with SGLang's own resolve, factory and `_capture_cuda_graphs` in
tests/oracle/test_sglang_mtp_oracle.py (`test_override_architecture_grid`)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit.inputs.sglang_draft_default import _minicpm_sparse, model_inputs
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines import sglang_arch_overrides as ao
from graphfit.planner.engines import sglang_attn_default as ad
from graphfit.planner.engines.sglang_mtp_graphs import DRAFT_EXTEND_BACKENDS

FLAGS = st.sampled_from((None, "fa3", "flashinfer", "triton", "trtllm_mha"))
# names an override writes that SGLang's draft-extend factory refuses (the plan refuses them)
REFUSED_BY_FACTORY = frozenset({"minicpm_flashattn", "minicpm_flashinfer"})


@st.composite
def inputs(draw: st.DrawFn) -> ao.OverrideInputs:
    arch = draw(st.sampled_from(sorted(ao.RESTATED)))
    return ao.OverrideInputs(
        default=ad.AttentionDefaultInputs(
            gpu=draw(st.sampled_from(ad.GPU_KINDS)), architecture=arch,
            asymmetric_kv=draw(st.booleans()),
            speculative_algorithm=draw(st.sampled_from(("EAGLE", "EAGLE3", "NEXTN"))),
            topk=draw(st.sampled_from((None, 1, 2))),
            page_size=draw(st.sampled_from((None, 1, 16))),
            kv_cache_dtype=draw(st.sampled_from((None, "fp8_e4m3", "fp8_e5m2"))),
            deterministic=draw(st.booleans())),
        prefill_flag=draw(FLAGS), decode_flag=draw(FLAGS),
        mode=draw(st.sampled_from(ao.MODES)),
        gpu_mem_gb=draw(st.sampled_from((None, 45.0, 79.6))),
        model_type=draw(st.sampled_from(("", "qwen3_vl"))),
        mamba_layers=draw(st.booleans()), minicpm_sparse=draw(st.booleans()),
        minimax_nvfp4=draw(st.booleans()), qsa=draw(st.booleans()),
        dcp_size=draw(st.sampled_from((1, 2))))


@given(inputs())
def test_every_answer_is_a_backend_a_refusal_or_a_reason(inp: ao.OverrideInputs) -> None:
    """A restated override gives a backend SGLang's draft-extend factory knows (or a
    minicpm_* name it refuses, which the plan refuses too), a refusal (ConfigError) or a
    reason it is not restated; a draft the base gives is never fa3 with fp8_e5m2 KV."""
    try:
        found = ao.draft_extend_default(inp)
    except ConfigError as exc:
        assert "refuses" in str(exc)
        return
    assert found.why
    if found.name is None:
        return
    assert found.name in DRAFT_EXTEND_BACKENDS | REFUSED_BY_FACTORY | {"dsv4"}
    written, _ = ao.overrides_of(inp)
    phase = inp.decode_flag if inp.mode == "decode" else inp.prefill_flag
    if not phase and not (set(written) - {ao.BASE}) and inp.default.kv_cache_dtype == (
            "fp8_e5m2") and not (inp.prefill_flag and inp.prefill_flag == inp.decode_flag):
        assert found.name != "fa3"


@given(inputs())
def test_the_phase_flag_and_the_draft_override_decide_first(inp: ao.OverrideInputs) -> None:
    """`_create_backend` (draft_utils.py:47-66): the draft's own backend (an override's), else
    the phase's split backend (the line's, else an override's), else the base."""
    try:
        found = ao.draft_extend_default(inp)
    except ConfigError:
        return
    if found.name is None:
        return
    written, _ = ao.overrides_of(inp)
    field = ao.DECODE if inp.mode == "decode" else ao.PREFILL
    line = inp.decode_flag if inp.mode == "decode" else inp.prefill_flag
    expected = written.get(ao.DRAFT) or written.get(field) or line
    if expected:
        assert found.name == expected


@given(inputs())
def test_all_unset_rules_yield_to_any_attention_flag(inp: ao.OverrideInputs) -> None:
    """`is_attention_backend_not_set` (model_override_base.py:176-182): an ALL_UNSET
    override writes nothing once the line names a split backend."""
    rules = [r for r in ao.RULES if inp.default.architecture in r.architectures]
    if not rules or rules[0].when != ao.ALL_UNSET or inp.all_unset:
        return
    assert ao.overrides_of(inp)[0] == {}


def test_the_rules_cover_graphfits_override_list_once() -> None:
    """Every architecture graphfit knows has its own backend override is restated, by one
    rule or one special branch."""
    assert ao.RESTATED == ad.OWN_BACKEND
    seen: set[str] = set()
    for rule in ao.RULES:
        assert not rule.architectures & seen
        assert not rule.architectures & ao.SPECIAL
        seen |= rule.architectures


@pytest.mark.parametrize(("arch", "extra", "said"), [
    ("IQuestQ1ForCausalLM", {}, "multi-layer EAGLE"),
    ("MiniMaxM3SparseForCausalLM", {"minimax_nvfp4": True}, "DSPARK or DFLASH"),
    ("MossVLForConditionalGeneration", {"decode_flag": "fa3"}, "flashinfer prefill"),
])
def test_overrides_that_refuse_the_line(arch: str, extra: dict[str, object],
                                        said: str) -> None:
    inp = ao.OverrideInputs(default=ad.AttentionDefaultInputs(
        gpu="hopper", architecture=arch, speculative_algorithm="EAGLE", topk=1),
        **extra)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=said):
        ao.draft_extend_default(inp)


@pytest.mark.parametrize("bad", [{"mode": "verify"}, {"dcp_size": 0}, {"dcp_size": True}])
def test_bad_inputs_are_config_errors(bad: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        ao.OverrideInputs(default=ad.AttentionDefaultInputs(
            gpu="hopper", architecture="GptOssForCausalLM"), **bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(("config", "sparse"), [
    ({"model_type": "minicpm_sala", "sparse_config": {}}, True),  # no mixers: all attention
    ({"model_type": "minicpm_sala", "sparse_config": {}, "mixer_types": ["attn"]}, True),
    ({"model_type": "minicpm_sala", "sparse_config": {}, "mixer_types": ["lightning"]},
     False),
    ({"model_type": "minicpm_sala", "mixer_types": ["minicpm4"]}, False),
    ({"model_type": "minicpm", "sparse_config": {}}, False),  # no such property there
])
def test_minicpm_sparse_attention_as_sglangs_config_class_says(config: dict[str, object],
                                                                sparse: bool) -> None:
    """MiniCPMHybridConfig (configs/minicpm.py:6-15, 93-105, 179-184)."""
    assert _minicpm_sparse(config) is sparse


def test_lightning_layers_make_the_kv_pool_hybrid() -> None:
    _, hybrid = model_inputs({"architectures": ["MiniCPMSALAForCausalLM"],
                              "model_type": "minicpm_sala", "mixer_types": ["lightning"]})
    assert hybrid


def test_deepseek_v4_replaces_the_lines_base_backend() -> None:
    """deepseek_v4.py:24 writes attention_backend=dsv4 whatever the line says: the only
    ALWAYS rule; the others yield to the line's flag."""
    assert ao.forced_base("DeepseekV4ForCausalLM") == ("dsv4", "deepseek_v4.py:24")
    for arch in sorted(ao.RESTATED - {"DeepseekV4ForCausalLM"}):
        assert ao.forced_base(arch) is None


@pytest.mark.parametrize(("extra", "expected"), [
    (("--attention-backend", "fa3"), ("dsv4", 3)),  # the override wins over the base flag
    (("--attention-backend", "fa3", "--prefill-attention-backend", "fa3"), ("fa3", 1)),
    (("--attention-backend", "fa3", "--speculative-draft-attention-backend", "fa4"),
     ("fa4", 1)),  # the draft's own flag is not the base: kept
])
def test_a_pasted_deepseek_v4_line_gets_the_overrides_backend(
        tmp_path: object, extra: tuple[str, ...], expected: tuple[str, int]) -> None:
    import json
    from pathlib import Path

    from graphfit.cli.options import build_config
    from graphfit.planner.plan import plan

    model = Path(str(tmp_path)) / "dsv4"
    model.mkdir()
    (model / "config.json").write_text(json.dumps({
        "architectures": ["DeepseekV4ForCausalLM"], "model_type": "deepseek_v4",
        "hidden_size": 1024, "num_attention_heads": 16, "num_key_value_heads": 16,
        "num_hidden_layers": 4, "vocab_size": 129280, "torch_dtype": "bfloat16"}))
    config = build_config({}, environ={}, pasted=[
        "python", "-m", "sglang.launch_server", "--model-path", str(model),
        "--max-running-requests", "33", "--speculative-algorithm", "EAGLE",
        "--speculative-num-steps", "3", "--speculative-eagle-topk", "1",
        "--speculative-num-draft-tokens", "4", "--enable-multi-layer-eagle", *extra])
    comp = plan(config).components["mtp_draft_extend"]
    assert (config.mtp_draft_backend, comp.graphs_per_size) == expected
