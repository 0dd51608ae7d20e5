"""graphfit == SGLang 0.5.23 on GPTQ Marlin's per-module `dynamic` overrides (restated by
graphfit.inputs.sglang_quant_gptq_dynamic): SGLang's own Llama / Qwen2 / Qwen3 (and, s63q,
Qwen3-MoE; s64q, Qwen2-MoE; s66q, DeepSeek-V2 / V3) classes built
on the meta device with its GPTQMarlinConfig (tests.oracle.sglang_quant_gptq_dynamic_compare).

Judged: where the build refuses an override's (bits, sym), graphfit refuses citing
utils.py:222-242; elsewhere it does not cite it.
Larger counts: `python -m tests.oracle.measure_sglang_quant_gptq_dynamic 60 54` ."""

from __future__ import annotations

import types

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.inputs import sglang_quant_config_file as qf  # noqa: E402
from graphfit.inputs import sglang_quant_gptq_dynamic as gptq_dynamic  # noqa: E402
from tests.oracle import sglang_quant_gptq_dynamic_compare as dc  # noqa: E402
from tests.oracle.agreement import agreed  # noqa: E402

# s66q: the DeepSeek lines the plants below compare first are not compared again here (CI time)
DEEPSEEK_PLANTED = ("ds_nolora_q_b_3bit", "ds_dense_mlp_3bit", "ds_freq2_layer1_down_3bit",
                    "ds_o_proj_3bit", "ds_shared_3bit")


def test_fixed_lines_agree() -> None:
    """Each fixed override map: a bad pair on some layer, skips, no match, the lm_head; since
    s63q Qwen3-MoE (experts and router gate read no override, its lm_head is its own); since
    s64q Qwen2-MoE (its shared expert reads the map, where it has one)."""
    names = [name for name in dc.FIXED if name not in DEEPSEEK_PLANTED]
    verdicts = agreed([dc.FIXED[name] for name in names], dc.compare)
    assert verdicts.count("layer") >= 3 and verdicts.count("built") >= 5, verdicts
    # s66q: the DeepSeek lines left here reach both verdicts (the plants' add "shared")
    deepseek = [v for name, v in zip(names, verdicts, strict=True) if name in dc.DEEPSEEK_LINES]
    assert deepseek.count("layer") >= 3 and deepseek.count("built") >= 3, deepseek


def test_generated_lines_agree() -> None:
    """A few generated override maps."""
    agreed(dc.generated_lines(6, 54), dc.compare)


@pytest.mark.parametrize("line", ["down_3bit", "head_quantized"])
def test_a_planted_error_is_caught(line: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rule switched off: a line SGLang's build refuses plans, and the compare says so."""
    assert dc.compare(*dc.FIXED[line]) == ("layer", None)
    monkeypatch.setattr(gptq_dynamic, "problem", lambda method, spec, data: None)
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
        problem=lambda method, spec, data, source="config.json": None))
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
    ("ds_nolora_q_b_3bit", "q lora always"), ("ds_dense_mlp_3bit", "every layer sparse"),
    ("ds_freq2_layer1_down_3bit", "no moe_layer_freq"), ("ds_o_proj_3bit", "not walked"),
    ("ds_shared_3bit", "shared judged")])
def test_a_deepseek_planted_error_is_caught(line: str, plant: str,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """DeepSeek (s66q) walked wrongly: always the q-LoRA linears, every layer sparse, the
    `moe_layer_freq` test dropped, the class not walked at all, or a shared expert judged as
    if never fused; the compare says so."""
    from graphfit.inputs import sglang_quant_gptq_deepseek as deepseek

    verdict, bad = dc.compare(*dc.FIXED[line])
    assert bad is None and verdict == ("shared" if plant == "shared judged" else "layer" if
                                       plant != "q lora always" else "built"), verdict
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
            prefixes=deepseek.prefixes))
    planted, bad = dc.compare(*dc.FIXED[line])
    assert planted == verdict and bad is not None
