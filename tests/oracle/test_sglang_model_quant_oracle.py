"""graphfit == SGLang 0.5.23 on each model class's `--quantization` override
(graphfit.planner.engines.sglang_model_quant), over every (class, GPU, checkpoint layout,
flag): SGLang's own override functions run on the stubs tests.oracle.
sglang_model_quant_oracle lists, after its own `_verify_quantization`."""

from __future__ import annotations

import functools
import itertools
from typing import Any

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.planner.core.errors import ConfigError  # noqa: E402
from graphfit.planner.engines import sglang_flashinfer_megamoe as fim  # noqa: E402
from graphfit.planner.engines import sglang_model_quant as smq  # noqa: E402
from graphfit.planner.engines import sglang_quantization as sq  # noqa: E402
from tests.oracle import sglang_model_quant_oracle as mo  # noqa: E402
from tests.oracle import sglang_quantization_oracle as qo  # noqa: E402

ARCHS = sorted(fim.VALIDATED_ARCHS | {"LongcatFlashForCausalLM", "KimiK25ForConditionalGeneration",
                                      "NemotronHPuzzleForCausalLM"})
FLAGS = (None, "unquant", "fp8", "mxfp8", "modelopt_fp4", "nvfp4_online", "w8a8_fp8")
LAYOUTS = (None, "modelopt_nvfp4", "modelopt_fp8", "modelopt_mixed_nvfp4", "fp8_block",
           "mxfp8", "compressed", "upper_fp8")


def graphfit(arch: str, flag: str | None, layout: str | None, sm100: bool
             ) -> tuple[str, str | None]:
    """("ok", flag) / ("unknown", None) / ("refused", None) in the oracle's words."""
    method = sq.checkpoint_method(qo.LAYOUTS[layout]) if layout else None
    cfg = sq.effective_config(qo.LAYOUTS[layout]) if layout else None
    given = None if flag == "unquant" else flag
    try:
        model_quant = sq.check_clash(given, method, cfg, 100)  # the fake CUDA is SM100
    except ConfigError as exc:
        return ("not modelled" if "not modelled" in str(exc) else "refused"), None
    known, resolved = smq.flag_after_overrides(arch, given, flag == "unquant", model_quant,
                                               method, sm100)
    return ("ok", resolved) if known else ("unknown", None)


def _sglang(arch: str, flag: str | None, layout: str | None, sm100: bool,
            a2a: str = "none") -> tuple[str, str | None, str | None]:
    return mo.resolve(arch, flag, qo.LAYOUTS[layout] if layout else None, sm100, a2a)


def test_every_class_flag_layout_and_gpu_agrees() -> None:
    """The flag after the overrides agrees wherever graphfit says it knows it; graphfit's
    unknowns are exactly SGLang's weight reads and Nemotron-H's unquant copy."""
    wrong, unknown, copies, upper_copies = [], 0, 0, 0
    for arch, flag, layout, sm100 in itertools.product(ARCHS, FLAGS, LAYOUTS, (True, False)):
        ours = graphfit(arch, flag, layout, sm100)
        state, quant, _ = _sglang(arch, flag, layout, sm100)
        if ours[0] == "not modelled":
            continue
        if ours[0] == "unknown":
            unknown += 1
            if not (state == "weights" or (arch in smq.NEMOTRON_H and flag == "unquant")):
                wrong.append(f"{arch} {flag} {layout} sm100={sm100}: graphfit unknown, "
                             f"SGLang {state} {quant}")
            continue
        raw = str((qo.LAYOUTS[layout] if layout else {}).get("quant_method", ""))
        upper_copies += state == "ok" and flag is None and quant == raw != raw.lower()
        if state == "weights" or (ours[0] == "refused") != (state == "refused") or (
                state == "ok" and ours[1] != quant):
            wrong.append(f"{arch} {flag} {layout} sm100={sm100}: graphfit {ours}, SGLang "
                         f"{state} {str(quant)[:80]}")
        copies += state == "ok" and flag is None and quant is not None
    assert not wrong, f"{len(wrong)} differ:\n" + "\n".join(wrong[:12])
    assert copies > 20 and 0 < unknown < 60  # not vacuous: many copies, few unknowns
    assert upper_copies > 0  # SGLang copies "FP8" as written, and so does graphfit


@pytest.mark.parametrize("arch", ARCHS)
def test_the_megamoe_runner_refusal_is_sglangs(arch: str) -> None:
    """Under flashinfer_megamoe with the auto runner, graphfit refuses for the class's
    override exactly where SGLang's override moved the runner off auto (moe_hook.py:
    328-334 then asserts)."""
    for flag, layout in itertools.product(FLAGS, LAYOUTS):
        ours = graphfit(arch, flag, layout, True)
        if ours[0] != "ok":
            continue
        state, _, runner = _sglang(arch, flag, layout, True, "flashinfer_megamoe")
        given = None if flag == "unquant" else flag
        method = sq.checkpoint_method(qo.LAYOUTS[layout]) if layout else None
        try:
            smq.nemotron_h_megamoe_runner(arch, "auto", sq.check_clash(given, method))
            refused = False
        except ConfigError:
            refused = True
        assert state == "ok" and refused == (runner != "auto"), (flag, layout, runner)


@pytest.mark.parametrize(("attrs", "quant_algo"), [
    ({"nvfp4_moe_meta": {"group_size": 16, "exclude_modules": []}}, "MIXED_PRECISION"),
    ({"is_fp4_experts": True}, None),
])
def test_deepseek_v4_megamoe_runner_is_sglangs(attrs: dict[str, object],
                                               quant_algo: str | None) -> None:
    """Hybrid NVFP4 metadata moves DeepSeek-V4's auto runner under flashinfer_megamoe
    (graphfit refuses), MXFP4 routed experts do not (graphfit starts it)."""
    state, _, runner = mo.resolve("DeepseekV4ForCausalLM", None,
                                  {"quant_method": "fp8"}, True, "flashinfer_megamoe", **attrs)
    try:
        smq.deepseek_v4_megamoe_runner("DeepseekV4ForCausalLM", "auto", quant_algo, True)
        refused = False
    except ConfigError:
        refused = True
    assert state == "ok" and refused == (runner != "auto"), runner
    assert (runner == "flashinfer_trtllm_routed") == (quant_algo is not None)  # not vacuous


def test_a_planted_error_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Treating the DeepSeek family as keeping the flag misses SGLang's SM100 copy."""
    monkeypatch.setitem(smq.KIND, "GlmMoeDsaForCausalLM", "keeps")
    assert graphfit("GlmMoeDsaForCausalLM", None, "modelopt_nvfp4", True) == ("ok", None)
    assert _sglang("GlmMoeDsaForCausalLM", None, "modelopt_nvfp4", True)[1] == "modelopt_fp4"


def test_a_copied_flag_is_verified_again_as_sglang_does() -> None:
    """Where a class's override copies the checkpoint's method into --quantization, the
    worker's ModelConfig verifies that flag (SGLang's own `_verify_quantization` on the
    copy); graphfit's check_copy refuses exactly where it does (a copied gptq: no Marlin
    upgrade, and no CUDA method)."""
    from graphfit import EngineConfig

    wrong, refused = [], 0
    for arch, layout in itertools.product(ARCHS, (*LAYOUTS[1:], "gptq_4bit", "awq_4bit")):
        config = qo.LAYOUTS[layout]
        state, quant, _ = _sglang(arch, None, layout, True)
        if state != "ok" or quant is None:
            continue
        theirs = qo.verify(quant, config)
        try:  # the options' own validation runs sglang_quantization.check
            # these checkpoints write no torch_dtype: SGLang loads them in float16
            # (model_config.py:2284-2345), which the loader's dtype check then reads
            settings = EngineConfig(engine="sglang", architecture=arch, max_num_seqs=8,
                                    dtype="float16",
                                    options={"checkpoint_quant_method":
                                             sq.checkpoint_method(config), "sm100": True,
                                             "checkpoint_quant_config":
                                             sq.effective_config(config),
                                             "gpu_capability": 100})
            sq.check_copy(settings)
            ours = False
        except ConfigError:
            ours = True
        refused += ours
        if ours != theirs.startswith(("refused", "crash")):
            wrong.append(f"{arch} {layout} copies {quant}: graphfit refuses={ours}, SGLang "
                         f"{theirs[:80]}")
    assert not wrong, "\n".join(wrong[:8])
    assert refused > 0  # not vacuous: a copied gptq is refused


def test_a_planted_copy_error_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Skipping the second verification starts a copied gptq SGLang's worker refuses."""
    monkeypatch.setattr(sq, "check_copy", lambda config: None)
    from graphfit import EngineConfig

    config = qo.LAYOUTS["gptq_4bit"]
    state, quant, _ = _sglang("Qwen3MoeForCausalLM", None, "gptq_4bit", True)
    assert state == "ok" and qo.verify(quant, config).startswith("refused")
    settings = EngineConfig(engine="sglang", architecture="Qwen3MoeForCausalLM", max_num_seqs=8,
                            options={"checkpoint_quant_method": "gptq", "sm100": True,
                                     "checkpoint_quant_config": config, "gpu_capability": 100})
    sq.check(settings)  # starts: the planted error


RUNNER_ARCHS = ("NemotronHForCausalLM", "NemotronH_Omni_Reasoning_V3", "DeepseekV4ForCausalLM",
                "KimiK3ForConditionalGeneration", "Qwen3MoeForCausalLM",
                "DeepseekV3ForCausalLM", "BeamForCausalLM")
RUNNER_FLAGS = (None, "fp8")
RUNNER_LAYOUTS: dict[str, dict[str, object] | None] = {
    "none": None, **{name: qo.LAYOUTS[name] for name in (
        "modelopt_nvfp4", "modelopt_fp8", "modelopt_mixed_nvfp4", "hybrid_nvfp4", "fp8_block",
        "fp8_mxfp4_experts")},
    "w4a16_experts": {"quant_method": "modelopt", "quant_algo": "MIXED_PRECISION",
                      "quantized_layers": {"model.layers.1.mixer.experts.0":
                                           {"quant_algo": "W4A16_NVFP4"}}},
    "qwen_w4a16_experts": {"quant_method": "modelopt", "quant_algo": "MIXED_PRECISION",
                           "quantized_layers": {"model.layers.1.mlp.experts":
                                                {"quant_algo": "w4a16_nvfp4"}}},
    "kimi_mxfp4_pack": {"quant_method": "compressed-tensors", "config_groups": {
        "group_0": {"format": "mxfp4-pack-quantized", "weights": {"num_bits": 4}}}},
    "kimi_int4_pack": {"quant_method": "compressed-tensors", "config_groups": {
        "group_0": {"format": "pack-quantized"}}},
}
A2AS = ("none", "deepep_v2", "pplx", "flashinfer", "flashinfer_megamoe")


@functools.cache
def _meta(name: str) -> Any:
    return mo.nvfp4_moe_meta(RUNNER_LAYOUTS[name])


@functools.cache
def _sglang_runner(arch: str, flag: str | None, name: str, sm100: bool, a2a: str
                   ) -> tuple[str, str | None, str | None]:
    """SGLang's answer (computed once: the plants change graphfit only)."""
    return mo.resolve(arch, flag, RUNNER_LAYOUTS[name], sm100, a2a,
                      nvfp4_moe_meta=_meta(name))


def _graphfit_runner(arch: str, flag: str | None, name: str, sm100: bool, a2a: str,
                     runner: str = "auto") -> tuple[str, str | None]:
    """("ok", runner) / ("unknown", None) / ("refused", None) after the class's override."""
    from graphfit.inputs.sglang_quant_files import mxfp4_pack

    layout = RUNNER_LAYOUTS[name]
    method = sq.checkpoint_method(layout) if layout else None
    cfg = sq.effective_config(layout) if layout else None
    try:
        model_quant = sq.check_clash(flag, method, cfg, 100)
        known, quant = smq.flag_after_overrides(arch, flag, False, model_quant, method, sm100)
        if not known:
            return "unknown", None
        meta = _meta(name)  # SGLang's own lines: the input both sides get
        pack = mxfp4_pack({"model_type": "kimi_k3", "text_config": {
            "quantization_config": layout}}) if arch.startswith("KimiK3") else None
        known, picked = smq.class_runner(arch, runner, a2a, sm100, 100 if sm100 else 90,
                                         model_quant, quant, cfg, meta is not None, pack)
    except ConfigError:
        return "refused", None
    return ("ok", picked) if known else ("unknown", None)


def test_the_class_runner_under_each_a2a_backend_is_sglangs() -> None:
    """The MoE runner a class's override picks from auto under an all-to-all backend (and
    Nemotron-H's W4A16 refusals) agree with SGLang's own overrides (nvfp4_moe_meta from
    SGLang's own lines, model_config.py:774-795)."""
    wrong, picked = [], set()
    for arch, flag, name, sm100, a2a in itertools.product(
            RUNNER_ARCHS, RUNNER_FLAGS, RUNNER_LAYOUTS, (True, False), A2AS):
        ours = _graphfit_runner(arch, flag, name, sm100, a2a)
        if ours[0] == "unknown":
            continue
        state, _, runner = _sglang_runner(arch, flag, name, sm100, a2a)
        if state == "weights":
            continue
        if a2a == "none" and state == "ok" and ours[0] == "ok":
            # under none graphfit keeps the pick only where it refuses or must (W4A16)
            ok = ours[1] == runner or ours[1] == "auto"
        else:
            ok = (ours[0], ours[1] if ours[0] == "ok" else None) == (
                state, runner if state == "ok" else None)
        if not ok:
            wrong.append(f"{arch} {flag} {name} sm100={sm100} {a2a}: graphfit {ours}, "
                         f"SGLang {state} {runner}")
        if state == "ok" and a2a != "none":
            picked.add(str(runner))
    assert not wrong, f"{len(wrong)} differ:\n" + "\n".join(wrong[:12])
    # not vacuous: each a2a-independent pick happens
    assert {"flashinfer_cutlass", "flashinfer_trtllm_routed", "flashinfer_mxfp4",
            "auto"} <= picked, picked


@pytest.mark.parametrize("plant", ["no kimi pick", "no v4 pick", "nemotron marlin off"])
def test_a_planted_class_runner_error_is_caught(plant: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Dropping one class's pick (Kimi K3's MXFP4 runner, DeepSeek-V4's routed runner) or
    Nemotron-H's SM80-90 marlin makes some line differ from SGLang."""
    original = smq.class_runner

    def planted(arch: str | None, runner: str, a2a: str, sm100: bool | None,
                capability: int | None, *rest: object) -> tuple[bool, str]:
        if plant == "no kimi pick" and arch == "KimiK3ForConditionalGeneration":
            return True, runner
        if plant == "no v4 pick" and arch == "DeepseekV4ForCausalLM":
            return True, runner
        if plant == "nemotron marlin off":
            capability = 100
        return original(arch, runner, a2a, sm100, capability, *rest)  # type: ignore[arg-type]
    monkeypatch.setattr(smq, "class_runner", planted)
    hits = 0
    for arch, flag, name, a2a in itertools.product(RUNNER_ARCHS, RUNNER_FLAGS, RUNNER_LAYOUTS,
                                                   A2AS[1:]):
        sm100 = plant != "nemotron marlin off"
        ours = _graphfit_runner(arch, flag, name, sm100, a2a)
        if ours[0] != "ok":
            continue
        state, _, runner = _sglang_runner(arch, flag, name, sm100, a2a)
        hits += state == "ok" and runner != ours[1]
    assert hits > 0, plant
