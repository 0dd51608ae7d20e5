"""graphfit == SGLang 0.5.23 on GPTQ Marlin's per-module `dynamic` overrides (restated by
graphfit.inputs.sglang_quant_gptq_dynamic): SGLang's own Llama / Qwen2 / Qwen3 (and, s63q,
Qwen3-MoE; s64q, Qwen2-MoE; s66q, DeepSeek-V2 / V3; s69g, Mixtral; s70i, PhiMoE, Grok) classes built
on the meta device with its GPTQMarlinConfig (tests.oracle.sglang_quant_gptq_dynamic_compare).

Judged: where the build refuses an override's (bits, sym), graphfit refuses citing
utils.py:222-242; elsewhere it does not cite it. Since s67q, on a B200 DeepSeek-V3 / Qwen3-MoE
copy `gptq` into the unset flag, and SGLang's ModelConfig refuses it first ("copy"): graphfit
names the copy.
Larger counts: `python -m tests.oracle.measure_sglang_quant_gptq_dynamic 60 54` ."""

from __future__ import annotations

import types
from typing import Any

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.inputs import sglang_quant_config_file as qf  # noqa: E402
from graphfit.inputs import sglang_quant_gptq_dynamic as gptq_dynamic  # noqa: E402
from graphfit.inputs import sglang_quant_gptq_moe_walks as moe_walks  # noqa: E402
from tests.oracle import sglang_quant_gptq_dynamic_compare as dc  # noqa: E402
from tests.oracle.agreement import agreed  # noqa: E402

# s66q: the DeepSeek lines the plants below compare first are not compared again here (CI time)
DEEPSEEK_PLANTED = ("ds_nolora_q_b_3bit", "ds_noshared_dense_mlp_3bit", "ds_freq2_layer1_down_3bit",
                    "ds_o_proj_3bit", "ds_shared_3bit", "fusion_enforced", "fusion_gate_e256",
                    "fusion_disabled_e256")  # s67q: and the fusion plants' lines
# s67q: likewise the DSA lines the indexer plants compare first
DSA_PLANTED = ("dsa_wq_b_3bit", "dsa_v3_indexer_3bit", "dsa_freq2_layer2_indexer",
               "dsa_interleave_wk_3bit", "dsa_glm_layer1_indexer")


def test_fixed_lines_agree() -> None:
    """Each fixed override map: a bad pair on some layer, skips, no match, the lm_head; since
    s63q Qwen3-MoE (experts and router gate read no override, its lm_head is its own); since
    s64q Qwen2-MoE (its shared expert reads the map, where it has one)."""
    names = [name for name in dc.FIXED if name not in DEEPSEEK_PLANTED
             and name not in dc.SM100_LINES and name not in DSA_PLANTED  # s67q: below
             and name not in dc.GATE_LINES and name not in dc.AWQ_LINES  # s68q: below
             and name not in dc.RUNNER_LINES  # s68r: below
             and name not in dc.QWEN_RUNNER_LINES  # s68g: below
             and name not in dc.MIXTRAL_LINES  # s69g: below
             and name not in dc.PHIMOE_LINES and name not in dc.GROK_LINES]  # s70i: below
    verdicts = agreed([dc.FIXED[name] for name in names], dc.compare)
    assert verdicts.count("layer") >= 3 and verdicts.count("built") >= 5, verdicts
    # s66q: the DeepSeek lines left here reach both verdicts (the plants' add "shared")
    deepseek = [v for name, v in zip(names, verdicts, strict=True) if name in dc.DEEPSEEK_LINES]
    assert deepseek.count("layer") >= 3 and deepseek.count("built") >= 2, deepseek


def test_generated_lines_agree() -> None:
    """A few generated override maps."""
    agreed(dc.generated_lines(6, 54), dc.compare)


@pytest.mark.parametrize("line", ["down_3bit", "head_quantized"])
def test_a_planted_error_is_caught(line: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rule switched off: a line SGLang's build refuses plans, and the compare says so."""
    assert dc.compare(*dc.FIXED[line]) == ("layer", None)
    monkeypatch.setattr(gptq_dynamic, "problem", lambda method, spec, data, *rest, **line: None)
    verdict, bad = dc.compare(*dc.FIXED[line])
    assert verdict == "layer" and bad is not None


@pytest.mark.parametrize("line", ["moe_mlp_3bit", "moe_head_tied"])
def test_a_moe_planted_error_is_caught(line: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Qwen3-MoE walked as a dense class (s63q): an MLP override it never reads is refused,
    and its own lm_head is taken as tied; the compare says so."""
    verdict, bad = dc.compare(*dc.FIXED[line])
    assert bad is None
    monkeypatch.setattr(gptq_dynamic, "_PARTS", {})
    planted, bad = dc.compare(*dc.FIXED[line])
    assert planted == verdict and bad is not None


def test_found_file_lines_agree_and_a_plant_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same overrides in the quantize_config.json SGLang's file search finds under
    `--quantization gptq_marlin` (config.json declaring none): a bad pair is refused, a good
    one plans; with the found-file call switched off the bad line plans and the compare says so."""
    assert dc.compare(*dc.FIXED["mlp_8bit"], found=True) == ("built", None)
    assert dc.compare(*dc.FIXED["down_3bit"], found=True) == ("layer", None)
    monkeypatch.setattr(qf, "gptq_dynamic", types.SimpleNamespace(
        problem=lambda method, spec, data, source="config.json", line=None, capability=None:
        None))  # s68q: the GPU's capability too
    verdict, bad = dc.compare(*dc.FIXED["down_3bit"], found=True)
    assert verdict == "layer" and bad is not None


@pytest.mark.parametrize(("line", "plant"), [
    ("q2moe_mlp_3bit", "attention only"), ("q2moe_no_shared_mlp_3bit", "shared size ignored"),
    ("q2moe_default_shared_asym", "no default size")])
def test_a_qwen2_moe_planted_error_is_caught(line: str, plant: str,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Qwen2-MoE (s64q): its shared expert walked as absent, as present whatever its size,
    or absent when config.json leaves the size to HF's default; the compare says so."""
    verdict, bad = dc.compare(*dc.FIXED[line])
    assert bad is None
    if plant == "attention only":
        monkeypatch.setitem(gptq_dynamic._PARTS, "Qwen2MoeForCausalLM", gptq_dynamic._ATTENTION)
    elif plant == "shared size ignored":
        real = gptq_dynamic.prefixes
        monkeypatch.setattr(gptq_dynamic, "prefixes",
                            lambda layers, head, arch="", shared=True: real(layers, head, arch))
    else:
        monkeypatch.setattr(gptq_dynamic, "QWEN2_MOE_SHARED", 0)
    planted, bad = dc.compare(*dc.FIXED[line])
    assert planted == verdict and bad is not None


@pytest.mark.parametrize(("line", "plant"), [
    ("ds_nolora_q_b_3bit", "q lora always"),
    ("ds_noshared_dense_mlp_3bit", "every layer sparse"),  # s67q: was ds_dense_mlp_3bit
    ("ds_freq2_layer1_down_3bit", "no moe_layer_freq"), ("ds_o_proj_3bit", "not walked"),
    ("fusion_enforced", "shared judged")])
def test_a_deepseek_planted_error_is_caught(line: str, plant: str,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """DeepSeek (s66q) walked wrongly: always the q-LoRA linears, every layer sparse, the
    `moe_layer_freq` test dropped, the class not walked at all, or a shared expert judged as
    if never fused (s67q: on a line that enforces the fusion); the compare says so."""
    from graphfit.inputs import sglang_quant_gptq_deepseek as deepseek

    verdict, bad = dc.compare(*dc.FIXED[line])
    assert bad is None and verdict == ("layer" if plant not in ("q lora always", "shared judged")
                                       else "built"), verdict  # s67q: enforced fusion
    if plant == "q lora always":
        monkeypatch.setattr(deepseek, "_attention", lambda data: (
            "fused_qkv_a_proj_with_mqa", "q_b_proj", "kv_b_proj", "o_proj"))
    elif plant == "every layer sparse":
        monkeypatch.setattr(deepseek, "_count", lambda data, key, least: 0 if key.startswith(
            "first") else 1)
    elif plant == "no moe_layer_freq":
        real = deepseek._count
        monkeypatch.setattr(deepseek, "_count", lambda data, key, least: 1 if key.startswith(
            "moe") else real(data, key, least))
    elif plant == "not walked":
        monkeypatch.setattr(gptq_dynamic, "ARCHITECTURES", gptq_dynamic.ARCHITECTURES[:5])
    else:
        monkeypatch.setattr(gptq_dynamic, "deepseek", types.SimpleNamespace(
            ARCHITECTURES=deepseek.ARCHITECTURES, SHARED="<never>", Unknown=deepseek.Unknown,
            prefixes=deepseek.prefixes, unjudged=lambda *args: False,  # s67q; s68q: GPU
            EXPERTS=deepseek.EXPERTS))  # s68r
    planted, bad = dc.compare(*dc.FIXED[line])
    assert planted == verdict and bad is not None


def test_sm100_copy_comes_before_the_layers_and_a_plant_is_caught(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """s67q: on a B200, SGLang's own resolution copies `gptq` into the unset flag of DeepSeek-V3
    and Qwen3-MoE and its ModelConfig refuses it before any layer's override is read; graphfit
    gives that reason. DeepSeek-V2 keeps the flag, `--quantization unquant` stops the copy, a
    found file's `gptq_marlin` is given: the layer's refusal stands. With the copy not seen,
    graphfit names the layer and the compare says so."""
    from graphfit.inputs import sglang_quant_sm100_copy as sm100_copy

    verdicts = agreed(list(dc.SM100_LINES.values()), dc.compare)
    assert verdicts == ["copy", "copy", "copy", "layer"], verdicts
    line = dc.SM100_LINES["sm100_moe_o_proj_3bit"]
    assert dc.compare(*line, unquant=True) == ("layer", None)
    assert dc.compare(*line, found=True) == ("layer", None)
    monkeypatch.setattr(sm100_copy, "flag_on", lambda *args: None)
    verdict, bad = dc.compare(*dc.SM100_LINES["sm100_ds_o_proj_3bit"])
    assert verdict == "copy" and bad is not None


@pytest.mark.parametrize(("line", "plant"), [
    ("dsa_wq_b_3bit", "not walked"), ("dsa_v3_indexer_3bit", "v3 never dsa"),
    ("dsa_freq2_layer2_indexer", "no skip"), ("dsa_interleave_wk_3bit", "wk judged"),
    ("dsa_glm_layer1_indexer", "no default index_topk")])
def test_dsa_indexers_agree_and_a_plant_is_caught(line: str, plant: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """s67q: the DSA classes' indexers (wq_b, wk) read the map between q_b_proj and kv_b_proj,
    in every layer whose top-k is not reused. Walked wrongly (the DSA classes not walked,
    DeepSeek-V3's `index_topk` ignored, every layer given an indexer, an interleaved indexer's
    wk judged though the environment decides, GLM-5's class default of index_topk dropped),
    the compare says so."""
    from graphfit.inputs import sglang_quant_gptq_deepseek as deepseek

    verdict, bad = dc.compare(*dc.DSA_LINES[line])
    assert bad is None and verdict == ("built" if plant in ("no skip", "wk judged")
                                       else "layer"), verdict
    if plant == "not walked":
        monkeypatch.setattr(gptq_dynamic, "ARCHITECTURES", gptq_dynamic.ARCHITECTURES[:7])
    elif plant == "v3 never dsa":
        monkeypatch.setattr(deepseek, "_DSA", deepseek._DSA[1:])
    elif plant == "no skip":
        monkeypatch.setattr(deepseek, "skips_topk", lambda data, index, layers: False)
    elif plant == "wk judged":
        real = deepseek.unjudged
        monkeypatch.setattr(deepseek, "unjudged", lambda data, prefix, *rest: real(
            data, prefix, *rest) if deepseek.SHARED in prefix else False)  # s68q: the GPU
    else:
        monkeypatch.setattr(deepseek, "_DSA_DEFAULT_TYPES", ())
    planted, bad = dc.compare(*dc.DSA_LINES[line])
    assert planted == verdict and bad is not None


@pytest.mark.parametrize(("line", "plant"), [
    ("ds_shared_3bit", "never unfused"), ("fusion_disabled_e256", "flag ignored"),
    ("fusion_gate_e256", "gate always off"), ("ds_shared_3bit", "line not passed")])
def test_shared_expert_fusion_agrees_and_a_plant_is_caught(
        line: str, plant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """s67q: a DeepSeek shared expert reads the map where SGLang's loader leaves it unfused
    (`resolve_shared_experts_config` run as the loader runs it): `--disable-shared-experts-
    fusion`, or the class's gate refusing the config when fusion is not enforced. Judged
    wrongly (never surely unfused, the disable flag ignored, the gate's 256-expert config
    refused too, the pasted line's flags not handed to the rule), the compare says so."""
    from graphfit.inputs import sglang_quant_gptq_deepseek as deepseek

    verdict, bad = dc.compare(*dc.FIXED[line])
    assert bad is None and verdict == ("built" if plant == "gate always off" else "layer")
    if plant == "never unfused":
        monkeypatch.setattr(deepseek, "shared_unfused", lambda data, flags, *gpu: False)
    elif plant == "flag ignored":
        real = deepseek.shared_unfused
        monkeypatch.setattr(deepseek, "shared_unfused", lambda data, flags, *gpu: real(
            data, {**(flags or {}), "disable_shared_experts_fusion": False}, *gpu))
    elif plant == "gate always off":  # s68q: the config test itself (fused comes first now)
        from graphfit.inputs import sglang_deepseek_shared_fusion as shared_fusion

        monkeypatch.setattr(shared_fusion, "config_taken", lambda data: False)
    else:
        real_check = qf.check_model
        monkeypatch.setattr(qf, "check_model", lambda *args, **kwargs: real_check(
            *args, **{**kwargs, "line": None}))
    planted, bad = dc.compare(*dc.FIXED[line])
    assert planted == verdict and bad is not None


# s68q: each plant of the gate's other clauses, and the line whose compare catches it
_GATE_PLANTS = {"overlap ignored": "gate_tbo", "ep ignored": "gate_ep2",
                "gpu not passed": "gate_tp2_then_head", "never fused": "gate_enforced_then_o_proj",
                "waterfill not restated": "gate_waterfill_disabled"}
# (s68r: s68q's "runner as the disable flag" plant is gone: under a named runner the walk now
# stops at the routed experts, before any shared expert: test_named_runner_* below)


def _planted_fusion(plant: str, real: Any) -> Any:
    """`sglang_deepseek_shared_fusion.fusion` with one of _GATE_PLANTS' mistakes."""
    def without(line: Any, *keys: str) -> Any:
        return None if line is None else {k: v for k, v in line.items() if k not in keys}

    def planted(data: Any, line: Any, capability: Any = None) -> Any:
        if plant == "overlap ignored":
            return real(data, without(line, "enable_two_batch_overlap"), capability)
        if plant == "ep ignored":
            return real(data, without(line, "ep_size"), capability)
        if plant == "gpu not passed":
            return real(data, line, None)
        if plant == "never fused":
            found = real(data, line, capability)
            return None if found == "fused" else found
        return real(data, without(line, "enable_waterfill"), capability)  # waterfill
    return planted


def test_shared_expert_gate_clauses_agree() -> None:
    """s68q: the class's gate on the config it takes: TBO (with attention DP) and an EP size
    of 2 keep the shared experts apart, so their override is refused; TP 2 on an H100 or an
    enforced fusion fuse them, and the walk reaches a later layer's refusal; waterfill's
    forced deepep backend and the flashinfer_trtllm runner stop GPTQ Marlin's experts first."""
    verdicts = agreed(list(dc.GATE_LINES.values()), dc.compare)
    assert verdicts == ["layer"] * 4 + ["other", "runner"], verdicts  # s68r: "runner"


@pytest.mark.parametrize("plant", list(_GATE_PLANTS))
def test_a_shared_expert_gate_plant_is_caught(plant: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """s68q: the gate restated wrongly (a clause dropped, the GPU not handed over, fusion
    never sure, waterfill or the runner taken as SGLang's disable flag): the compare says so."""
    from graphfit.inputs import sglang_deepseek_shared_fusion as shared_fusion

    monkeypatch.setattr(shared_fusion, "fusion", _planted_fusion(plant, shared_fusion.fusion))
    verdict, bad = dc.compare(*dc.GATE_LINES[_GATE_PLANTS[plant]])
    assert bad is not None, (plant, verdict)


def test_sm100_awq_copy_meets_the_dtype_refusal_and_a_plant_is_caught(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """s68q: on a B200 Qwen3-MoE and DeepSeek-V3 copy an AWQ checkpoint's `awq` into the unset
    flag; it passes ModelConfig and the loader refuses the checkpoint's bfloat16 for it
    (model_loader/loader.py:263-270); graphfit gives that refusal on awq. DeepSeek-V2 keeps
    the flag and an H100 copies nothing (awq_marlin, no GPTQ class). With the copy not seen
    (the planner's `sglang_model_quant.flag_after_overrides` keeping the flag), graphfit plans
    and the compare says so."""
    from graphfit.planner.engines import sglang_model_quant as smq

    verdicts = agreed(list(dc.AWQ_LINES.values()), dc.compare)
    assert verdicts == ["copy", "copy", "other", "other"], verdicts
    monkeypatch.setattr(smq, "flag_after_overrides",
                        lambda arch, flag, *rest, **named: (True, flag))
    verdict, bad = dc.compare(*dc.AWQ_LINES["sm100_moe_awq"])
    assert verdict == "copy" and bad is not None


def test_named_runner_lines_agree() -> None:
    """s68r: a named MoE runner. On config.json's checkpoint a dense layer 0 is refused first;
    a layer after the first sparse one is not reached: GPTQ Marlin's experts assert the auto
    runner (gptq_kernels.py:309), which graphfit gives. With a found file's gptq_marlin,
    flashinfer_trtllm is refused by the server arguments before any layer (moe_hook.py:
    123-135; "other": graphfit names no layer); triton passes them and meets the assert."""
    lines = list(dc.RUNNER_LINES.values())
    inline = agreed(lines, dc.compare)
    found = agreed(lines, lambda *line: dc.compare(*line, found=True))
    assert inline == ["layer", "runner", "runner"], inline
    assert found == ["other", "other", "runner"], found


@pytest.mark.parametrize("plant", ["loader before the server arguments",
                                   "experts' runner assert not restated"])
def test_a_named_runner_plant_is_caught(plant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """s68r: the config-file rules run although the server arguments refused the flag beside
    the runner, or the walk goes past the routed experts under a named runner (no runner
    refusal): graphfit names a layer SGLang never reaches, and the compare says so."""
    if plant == "loader before the server arguments":
        monkeypatch.setattr(qf, "args_refuse_first", lambda flag, line: False)
        name, found = "runner_layer0_first", True
    else:
        monkeypatch.setattr(gptq_dynamic, "runner_given", lambda line: False)
        name, found = "runner_experts_then_o_proj", False
    verdict, bad = dc.compare(*dc.RUNNER_LINES[name], found=found)
    assert verdict == ("other" if found else "runner") and bad is not None, (plant, verdict)


def test_qwen_moe_named_runner_lines_agree() -> None:
    """s68g: Qwen3-MoE / Qwen2-MoE under a named MoE runner. Layer 0's attention is built
    before its experts (its override refused first); the experts then assert the auto runner
    (gptq_kernels.py:309) before layer 1's attention or Qwen2-MoE's shared expert reads the
    map, with no map too. With a found file's gptq_marlin, flashinfer_trtllm is refused by the
    server arguments first ("other"); triton meets the assert."""
    lines = list(dc.QWEN_RUNNER_LINES.values())
    inline = agreed(lines, dc.compare)
    found = agreed(lines, lambda *line: dc.compare(*line, found=True))
    assert inline == ["layer", "runner", "runner", "runner", "runner"], inline
    assert found == ["other", "other", "runner", "other", "runner"], found


@pytest.mark.parametrize("name", ["moe_triton_experts_then_o_proj1",
                                  "q2moe_runner_experts_then_shared"])
def test_a_qwen_moe_named_runner_plant_is_caught(name: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """s68g: the Qwen MoE walk without its routed experts (the planned walk): graphfit names
    a layer SGLang never reaches, and the compare says so."""
    monkeypatch.setattr(gptq_dynamic, "_qwen_moe_walk", lambda walk: walk)
    verdict, bad = dc.compare(*dc.QWEN_RUNNER_LINES[name])
    assert verdict == "runner" and bad is not None, (name, verdict)


def test_mixtral_lines_agree() -> None:
    """s69g: Mixtral (models/mixtral.py). Its attention reads the map, its experts, router gate
    and lm_head do not; its layers are `layers.N` (no `model.`, :298-303), so such a pattern
    matches none. Under a named runner layer 0's attention is refused first, then the experts
    assert the auto runner (gptq_kernels.py:309) before layer 1's attention; with a found
    file's gptq_marlin, flashinfer_trtllm is refused by the server arguments first."""
    lines = list(dc.MIXTRAL_LINES.values())
    inline = agreed(lines, dc.compare)
    found = agreed(lines, lambda *line: dc.compare(*line, found=True))
    assert inline == ["layer", "built", "built", "layer", "built", "layer", "runner", "runner",
                      "runner"], inline
    assert found == [*inline[:5], "other", "other", "runner", "runner"], found


def _model_prefixed(layers: int) -> Any:
    """A planted Mixtral walk: the layers spelled `model.layers.N`, as the other classes'."""
    return (f"model.{prefix}" for prefix in _REAL_MIXTRAL_WALK(layers))


_REAL_MIXTRAL_WALK = gptq_dynamic._mixtral_walk


@pytest.mark.parametrize(("plant", "name"), [
    ("layers spelled model.layers.N", "mixtral_layer1_asym"),
    ("layers spelled model.layers.N", "mixtral_model_prefix_matches_none"),
    ("experts not walked", "mixtral_triton_experts_then_o_proj1"),
    ("Mixtral not judged", "mixtral_runner_o_proj0_first")])
def test_a_mixtral_plant_is_caught(plant: str, name: str,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """s69g: Mixtral's walk with the `model.` prefix the other classes have, without its
    routed experts, or Mixtral left out: graphfit refuses a layer SGLang builds (or the
    reverse), or names a layer SGLang never reaches, and the compare says so."""
    if plant == "layers spelled model.layers.N":
        monkeypatch.setattr(gptq_dynamic, "_mixtral_walk", _model_prefixed)
    elif plant == "experts not walked":
        monkeypatch.setattr(gptq_dynamic, "_mixtral_walk", lambda layers: (
            prefix for prefix in _REAL_MIXTRAL_WALK(layers)
            if not prefix.endswith(gptq_dynamic.MIXTRAL_EXPERTS)))
    else:
        monkeypatch.setattr(gptq_dynamic, "ARCHITECTURES", tuple(
            arch for arch in gptq_dynamic.ARCHITECTURES if arch != gptq_dynamic.MIXTRAL))
    verdict, bad = dc.compare(*dc.MIXTRAL_LINES[name])
    assert bad is not None, (plant, name, verdict)


# s69g: lines whose flags graphfit reads from its own config file (`plan --config FILE`):
# (FIXED name, found file)
CONFIG_FILE_LINES = (("mixtral_o_proj_3bit", False), ("mixtral_triton_no_map", False),
                     ("moe_runner_experts_then_o_proj1", False),
                     ("triton_experts_then_o_proj", True), ("runner_layer0_first", True))


def _file_verdicts() -> list[str]:
    return [dc.compare(*dc.FIXED[name], found=found, via_file=True)[1] or "agree"
            for name, found in CONFIG_FILE_LINES]


def test_config_file_lines_agree() -> None:
    """s69g: the same lines from graphfit's config file: the checkpoint's own `dynamic` map is
    read with no `quantization` key in the file, and the file's `moe_runner_backend` is the
    line's runner (the experts' assert, gptq_kernels.py:309; with a found file's gptq_marlin,
    flashinfer_trtllm refused by the server arguments first)."""
    verdicts = [dc.compare(*dc.FIXED[name], found=found, via_file=True)
                for name, found in CONFIG_FILE_LINES]
    assert [bad for _, bad in verdicts if bad] == [], verdicts
    assert [verdict for verdict, _ in verdicts] == ["layer", "runner", "runner", "runner",
                                                    "other"], verdicts


@pytest.mark.parametrize("plant", ["file's keys not the line", "file without quantization"])
def test_a_config_file_plant_is_caught(plant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """s69g: `check_file` handing no line to the rules (the runner unseen: graphfit plans what
    SGLang asserts on, or names a layer the server arguments never let it reach), or skipping a
    file that names no quantization (the checkpoint's map unread): the compare says so."""
    if plant == "file's keys not the line":
        real_model = qf.check_model
        monkeypatch.setattr(qf, "check_model", lambda flag, model, capability=None, **kw:
                            real_model(flag, model, capability, gpu_later=False, line=None))
        caught = [1, 2, 3, 4]
    else:
        real_file = qf.check_file
        monkeypatch.setattr(qf, "check_file", lambda values, flag, file: real_file(
            values, flag, file) if "quant_method" in values else [])
        caught = [0, 1, 2]
    verdicts = _file_verdicts()
    assert all(verdicts[index] != "agree" for index in caught), (plant, verdicts)


def test_phimoe_lines_agree() -> None:
    """s70i: PhiMoE (models/phimoe.py): Mixtral's parts under `model.layers.N`; its lm_head
    reads the map where `lm_head: true`, tied or not (:467-478). Under a named runner layer
    0's attention is refused first, then the experts assert the auto runner; with a found
    file's gptq_marlin, flashinfer_trtllm is refused by the server arguments first."""
    lines = list(dc.PHIMOE_LINES.values())
    inline = agreed(lines, dc.compare)
    found = agreed(lines, lambda *line: dc.compare(*line, found=True))
    assert inline == ["layer", "built", "layer", "layer", "built", "layer", "built", "layer",
                      "runner", "runner", "runner"], inline
    assert found == [*inline[:7], "other", "other", "runner", "runner"], found


def test_grok_lines_agree() -> None:
    """s70i: Grok (models/grok.py): every layer's attention is `attn.qkv_proj` / `attn.o_proj`
    (no layer index), the residual MLP's `gate_up_proj` / `down_proj` follow the experts, no
    lm_head reads the map; num_local_experts 0 stops after layer 0's attention, a missing
    key before any layer."""
    lines = list(dc.GROK_LINES.values())
    inline = agreed(lines, dc.compare)
    assert inline == ["layer", "layer", "built", "built", "built", "layer", "built", "runner",
                      "layer", "runner", "layer", "layer", "other", "other", "other"], inline
    found = agreed(lines[-8:-4], lambda *line: dc.compare(*line, found=True))
    assert found == ["runner", "layer", "runner", "layer"], found


_REAL_PHIMOE, _REAL_GROK = moe_walks.phimoe, moe_walks.grok


def _plant(plant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """One of the PhiMoE / Grok walk mistakes the compare must catch (s70i)."""
    if plant == "phimoe as mixtral":
        monkeypatch.setattr(moe_walks, "phimoe", lambda layers, head: (
            prefix.removeprefix("model.") for prefix in _REAL_PHIMOE(layers, head)))
    elif plant == "phimoe head only untied":
        monkeypatch.setattr(moe_walks, "phimoe", lambda layers, head: _REAL_PHIMOE(layers, False))
    elif plant == "phimoe experts not walked":
        monkeypatch.setattr(moe_walks, "phimoe", lambda layers, head: (
            prefix for prefix in _REAL_PHIMOE(layers, head)
            if not prefix.endswith(moe_walks.EXPERTS)))
    elif plant == "not judged":
        monkeypatch.setattr(gptq_dynamic, "ARCHITECTURES", tuple(
            arch for arch in gptq_dynamic.ARCHITECTURES if arch not in moe_walks.ARCHITECTURES))
    elif plant == "grok indexed":
        monkeypatch.setattr(moe_walks, "grok", lambda layers, experts, residual: (
            f"model.layers.0.self_attn.{prefix.removeprefix('attn.')}" if "attn" in prefix
            else prefix for prefix in _REAL_GROK(layers, experts, residual)))
    elif plant == "grok residual ignored":
        monkeypatch.setattr(moe_walks, "grok", lambda layers, experts, residual: _REAL_GROK(
            layers, experts, False))
    elif plant == "grok experts defaulted":
        monkeypatch.setattr(moe_walks, "grok", lambda layers, experts, residual: _REAL_GROK(
            layers, experts if isinstance(experts, int) and experts > 0 else 8, residual))


@pytest.mark.parametrize(("plant", "name"), [
    ("phimoe as mixtral", "phimoe_layer1_asym"),
    ("phimoe head only untied", "phimoe_head_tied"),
    ("phimoe experts not walked", "phimoe_triton_experts_then_o_proj1"),
    ("not judged", "phimoe_o_proj_3bit"), ("not judged", "grok_attn_asym"),
    ("grok indexed", "grok_attn_asym"), ("grok residual ignored", "grok_residual_down_3bit"),
    ("grok experts defaulted", "grok_e0_triton_no_map"),
    ("grok experts defaulted", "grok_noexperts_o_proj_3bit")])
def test_a_phimoe_or_grok_plant_is_caught(plant: str, name: str,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """s70i: PhiMoE walked as Mixtral (no `model.`), its tied lm_head taken as unquantized, its
    experts not walked; Grok's linears given a layer index, its residual MLP not walked, a
    missing or zero expert count walked as 8; either class left out: graphfit refuses what
    SGLang builds, plans what it refuses, or names a layer it never reaches."""
    _plant(plant, monkeypatch)
    verdict, bad = dc.compare(*dc.FIXED[name])
    assert bad is not None, (plant, name, verdict)
