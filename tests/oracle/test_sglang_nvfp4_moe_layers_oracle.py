"""graphfit == SGLang 0.5.23 on which FusedMoE layers take ModelOpt's NVFP4 MoE method
(graphfit.inputs.sglang_nvfp4_moe_layers, graphfit.planner.engines.sglang_nvfp4_moe; issue 23,
s60q): modelopt_mixed's quantized_layers, the fp8 + NVFP4 hybrid, modelopt_fp4's exclusions,
and the method's cutlass refusal. SGLang's side builds its own Qwen3-MoE / Qwen2-MoE class on
the meta device with the config its loader builds (tests.oracle.sglang_nvfp4_moe_layers_oracle).

Judged: where the build raises the method's refusal, graphfit refuses in the same words citing
modelopt_quant.py; elsewhere it does not cite it.
Larger counts: `python -m tests.oracle.measure_sglang_nvfp4_moe_layers 60 1` ."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.inputs import sglang_nvfp4_moe_layers as layers  # noqa: E402
from graphfit.planner.engines import sglang_nvfp4_moe as rule  # noqa: E402
from tests.oracle import sglang_nvfp4_moe_layers_oracle as lo  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402
from tests.oracle.agreement import agreed  # noqa: E402


def test_fixed_lines_agree() -> None:
    """Mixed NVFP4 / FP8 experts, exclusions, the language_model key spelling, Blackwell, the
    hybrid, modelopt_fp4 with every or all but one MoE layer excluded, the cutlass runner, an
    earlier layer's FP8 method stopping the build first; since s62q DeepSeek-V2 / V3 (dense
    first layers, moe_layer_freq), GLM-4-MoE and Mixtral (its bare `layers.` prefix)."""
    verdicts = agreed([v for k, v in lo.FIXED.items() if k not in lo.DSA], lo.compare)
    assert verdicts.count("refused") >= 5 and verdicts.count("built") >= 5, verdicts


def test_generated_lines_agree() -> None:
    """A few generated checkpoints, runners and GPUs."""
    agreed(lo.generated_lines(4, 2), lo.compare)


def test_config_files_agree() -> None:
    """graphfit's own config file naming `model_path` (s62q): the same walk, the same answer
    as SGLang's build, on DeepSeek / GLM-4-MoE / Mixtral lines refused and built."""
    verdicts = agreed([lo.CLASSES[name] for name in (
        "deepseek_dense_first_mixed", "deepseek_freq2_dense_key", "glm_mixed_cutlass_b200",
        "mixtral_own_key", "mixtral_fp4_all_excluded")], lo.file_compare)
    assert verdicts.count("refused") == 3 and verdicts.count("built") == 2, verdicts


def test_more_classes_agree() -> None:
    """Since s63q: the DSA classes DeepSeek-V3.2 and GLM-5 (DeepSeek-V2's class), a DeepSeek
    config.json without n_routed_experts, Kimi-K2.5 (its text_config, its mapper's
    `language_model.` spellings for exclusions and quantized_layers) and Bailing-V2.5."""
    verdicts = agreed(lo.DSA.values(), lo.compare)
    assert verdicts.count("refused") >= 5 and verdicts.count("built") >= 5, verdicts


@pytest.mark.parametrize(("line", "target", "plant"), [
    ("mixed_experts_nvfp4_h100", layers, ("mixed_algo", lambda table, prefix: "FP8")),
    ("fp4_all_excluded", layers, ("excluded", lambda patterns, prefix: False)),
    ("hybrid_h100", rule, ("asked", lambda config, method, hybrid=False: None)),
    ("cutlass_b200", rule, ("runner_problem", lambda runner: None)),
    ("hybrid_fp8_layer_first", layers, ("_where", lambda flags: "first" if any(flags)
                                        else "none")),
    # s62q: every DeepSeek layer sparse; moe_layer_freq ignored; Mixtral spelt under "model."
    ("deepseek_freq2_dense_key", layers, ("_sparse", lambda arch, config: lambda i: True)),
    ("deepseek_freq2_dense_key", layers, ("_FIRST_K", dict.fromkeys(layers._FIRST_K, False))),
    ("mixtral_own_key", layers, ("_FORMAT", {})),
    # s63q: Kimi-K2.5's mapper off; its text_config not read; GLM-5's DSA class read as every
    # layer sparse; Bailing-V2.5 not walked
    ("kimi_fp4_hf_excluded", layers, ("_MAPPERS", {})),
    ("kimi_fp4_h100", layers, ("_TEXT", ())),
    ("glm_dsa_mixed_dense_key", layers, ("_FIRST_K", {
        k: v for k, v in layers._FIRST_K.items() if k != "GlmMoeDsaForCausalLM"})),
    ("bailing_mixed_dense_first", layers, ("ARCHITECTURES", {
        k: v for k, v in layers.ARCHITECTURES.items() if k != "BailingMoeV2_5ForCausalLM"})),
])
def test_a_planted_error_is_caught(line: str, target: object, plant: tuple[str, object],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Each part of the rule switched off or bent: the compare sees the difference."""
    fixed = lo.FIXED[line]
    verdict, bad = lo.compare(*fixed)
    assert bad is None
    monkeypatch.setattr(target, *plant)
    planted, bad = lo.compare(*fixed)
    assert planted == verdict and bad is not None


def _top_level_only(record: object) -> bool:
    """so._moe_model before s64q: the top-level config.json's keys only."""
    path = Path(str(getattr(record, "model_path", ""))) / "config.json"
    return path.is_file() and any(a in json.loads(path.read_text()) for a in so._MOE_TOPK_ATTRS)


def test_the_published_moe_flags_read_the_text_config(monkeypatch: pytest.MonkeyPatch) -> None:
    """s64q: `so.published` seeds the MoE flags where SGLang's ModelConfig's hf_text_config
    names a per-token expert count (managers/scheduler.py:991-1008), as this oracle's own
    build did since s63q. Planted: the top-level read it had before; a Kimi-K2.5 line
    (its experts in text_config) is then built under the default runner, and the compare
    sees graphfit's refusal as wrong."""
    lo.sglang.cache_clear()
    assert lo.compare(*lo.FIXED["kimi_fp4_h100"]) == ("refused", None)
    monkeypatch.setattr(so, "_moe_model", _top_level_only)
    lo.sglang.cache_clear()
    try:
        _, bad = lo.compare(*lo.FIXED["kimi_fp4_h100"])
    finally:
        lo.sglang.cache_clear()
    assert bad is not None
