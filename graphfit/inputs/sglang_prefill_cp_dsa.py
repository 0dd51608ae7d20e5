"""SGLang 0.5.23's DSA / MLA prefill context-parallel resolution of a DeepSeek-family target
(issue 23 s54c), restated so that graphfit refuses what SGLang refuses there with SGLang's
sentence, and names the widths SGLang settles for the lines it serves.

Why a module of its own: SGLang does not read `--attn-cp-size` / `--attn-dp-size` /
`--ep-size` / `--moe-a2a-backend` as the line gives them on these targets. Its DeepSeek-family
override (`_deepseek_family_overrides`, registered for the architectures in
`DEEPSEEK_FAMILY`, arg_groups/model_overrides/deepseek_v2.py:37-50) rewrites them, on CUDA
and ROCm (deepseek_v2.py:105), before the context-parallel hook checks the widths:

* a DSA target (`is_deepseek_dsa`: one of `DSA_ARCHITECTURES` with an `index_topk`,
  configs/model_config.py:191-212), deepseek_v2.py:106-143: attention DP is
  `context_parallel_attn_dp_size` (`--attn-dp-size` x `--dp-size`, asserting the two are not
  both above 1, model_override_base.py:229-247), `dp_size` 1; zigzag also forces
  `moe_dense_tp_size` 1, `moe_a2a_backend` deepep and `ep_size` = `tp_size`; then SGLang
  asserts `tp_size <= 8`; the CP width is the line's `--attn-cp-size` under interleave when
  above 1, else `tp_size // attn_dp`;
* any other MLA target of the family (ModelConfig's MLA list, configs/model_config.py:
  1367-1397; Pixtral only with a `kv_lora_rank`), deepseek_v2.py:191-210: the same attention
  DP assert, then always `moe_dense_tp_size` 1, deepep, `ep_size` = `tp_size` and CP width
  `tp_size // attn_dp` (no `tp_size` cap there).

The context-parallel hook then asserts on those resolved widths (arg_groups/parallel_hook.py:
156-192): `tp_size` divisible by the CP width and by attention DP x CP, no aiter all-reduce
fusion, the MoE-DP rules, and CP width == MoE-DP width unless MoE DP is 1. Those run after the
hook's own model refusals, which graphfit.inputs.sglang_prefill_cp applies in SGLang's order;
`widths` runs first (pipeline.py:225 before :278) and `hook_asserts` last.

Since issue 23 s60p graphfit plans the lines SGLang serves with those widths
(graphfit.inputs.sglang_prefill_cp_family: a pasted line and graphfit's config file; the
live check keeps them "not modelled"), `describe` naming them in the note.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphfit.planner.core.errors import ConfigError

# `is_deepseek_dsa`'s architectures (with an `index_topk`), configs/model_config.py:191-212:
# the attention-default table's own set, shared (issue 23, s56x)
from graphfit.planner.engines.sglang_attn_default import DSA_ARCHITECTURES

# `_deepseek_family_overrides`' registration, model_overrides/deepseek_v2.py:37-50
DEEPSEEK_FAMILY = frozenset({
    "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM", "KimiK25ForConditionalGeneration",
    "MistralLarge3ForCausalLM", "PixtralForConditionalGeneration", "GlmMoeDsaForCausalLM",
    "Glm5NextForConditionalGeneration", "HYV4ForCausalLM", "HYV4ForCausalLMNextN",
    "LongcatFlashForCausalLM", "LongcatFlashForCausalLMNextN", "Dots3NoteForCausalLM"})
# the only family member whose MLA arch needs a text `kv_lora_rank`, model_config.py:1388-1391
PIXTRAL = "PixtralForConditionalGeneration"


@dataclass(frozen=True)
class CpWidths:
    """The widths SGLang's DeepSeek-family override settles under prefill CP."""

    layout: str  # "DSA" | "MLA": the override's branch (deepseek_v2.py:106 / :191)
    attn_dp_size: int
    attn_cp_size: int
    ep_size: int
    deepep: bool  # moe_a2a_backend forced to deepep (and moe_dense_tp_size to 1)

    def __post_init__(self) -> None:
        if self.layout not in ("DSA", "MLA"):
            raise ValueError(f"layout must be DSA or MLA, got {self.layout!r}")
        if min(self.attn_dp_size, self.attn_cp_size, self.ep_size) < 0:
            raise ValueError("widths must not be negative")

    def describe(self) -> str:
        forced = ", moe_a2a_backend deepep, moe_dense_tp_size 1" if self.deepep else ""
        return (f"SGLang's {self.layout} prefill CP sets attn_dp_size {self.attn_dp_size}, "
                f"attn_cp_size {self.attn_cp_size}, ep_size {self.ep_size}{forced}")


def _int(value: Any, default: int) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return default


def _refuse(sentence: str, where: str) -> ConfigError:
    return ConfigError(f"--enable-prefill-cp: {sentence} (SGLang refuses, {where})")


def _text(data: Mapping[str, Any]) -> Mapping[str, Any]:
    text = data.get("text_config")
    return text if isinstance(text, dict) else data


def layout(data: Mapping[str, Any] | None, arch: str | None) -> str | None:
    """"DSA", "MLA" or None: which branch of the family override a target takes."""
    if data is None or arch not in DEEPSEEK_FAMILY:
        return None
    if arch in DSA_ARCHITECTURES and data.get("index_topk") is not None:
        return "DSA"  # model_config.py:191-212 reads the top-level config
    if arch == PIXTRAL and _text(data).get("kv_lora_rank") is None:
        return None  # not MLA: the override's MLA branch is skipped (use_mla_backend)
    return "MLA"


def _attn_dp(values: Mapping[str, Any]) -> int:
    """`context_parallel_attn_dp_size` (model_override_base.py:229-247)."""
    attn_dp = _int(values.get("attn_dp_size"), 1)
    dp = _int(values.get("dp_size"), 1)
    if attn_dp > 1 and dp > 1:
        raise _refuse(f"--dp-size {dp} with --attn-dp-size {attn_dp}: data-parallel replicas "
                      "combined with attention data parallelism are not supported.",
                      "model_override_base.py:235-239")
    return attn_dp * dp


def widths(values: Mapping[str, Any], data: Mapping[str, Any] | None,
           arch: str | None) -> CpWidths | None:
    """The family override's widths (module docstring) for a prefill-CP line, raising its
    asserts with SGLang's sentences; None for a target it leaves alone."""
    kind = layout(data, arch)
    if kind is None:
        return None
    tp = _int(values.get("tp_size"), 1)
    strategy = values.get("cp_strategy")
    attn_dp = _attn_dp(values)
    if kind == "DSA":
        deepep = strategy == "zigzag"  # deepseek_v2.py:115-118
        if tp > 8:
            raise _refuse("Context parallel only supports single machine (tp_size <= 8). "
                          "Cross-machine CP has precision issues.", "deepseek_v2.py:123-125")
        line_cp = _int(values.get("attn_cp_size"), 1)
        attn_cp = line_cp if strategy == "interleave" and line_cp > 1 else tp // max(1, attn_dp)
    else:
        deepep = True  # deepseek_v2.py:200-202
        attn_cp = tp // max(1, attn_dp)  # deepseek_v2.py:209
    ep = tp if deepep else _int(values.get("ep_size"), 1)
    return CpWidths(kind, attn_dp, attn_cp, ep, deepep)


def hook_asserts(values: Mapping[str, Any], found: CpWidths) -> None:
    """The context-parallel hook's asserts on the resolved widths (parallel_hook.py:156-192),
    in SGLang's order, with its sentences."""
    tp = _int(values.get("tp_size"), 1)
    moe_dp = _int(values.get("moe_dp_size"), 1)
    fusion = values.get("enable_aiter_allreduce_fusion") is True
    checks: list[tuple[bool, str, str]] = []
    if found.attn_cp_size > 1:
        checks += [
            (tp % found.attn_cp_size != 0, "tp_size must be divisible by attn_cp_size",
             "parallel_hook.py:159-161"),
            (tp % (found.attn_dp_size * found.attn_cp_size) != 0,
             "tp_size must be divisible by attn_dp_size * attn_cp_size",
             "parallel_hook.py:162-164"),
            (fusion, "Aiter allreduce fusion is not supported with context parallelism",
             "parallel_hook.py:166-168")]
    if moe_dp > 1:
        checks += [
            (tp % moe_dp != 0, "tp_size must be divisible by moe_dp_size",
             "parallel_hook.py:172-174"),
            (found.ep_size * moe_dp > tp,
             "ep_size * moe_dp_size must be less than or equal to tp_size",
             "parallel_hook.py:175-177"),
            (_int(values.get("pp_size"), 1) != 1, "PP is not supported with context parallelism",
             "parallel_hook.py:178"),
            (found.ep_size > 1 and found.ep_size * moe_dp != tp,
             "ep_size * moe_dp_size must be equal to tp_size", "parallel_hook.py:180-183"),
            (fusion, "Aiter allreduce fusion is not supported with context parallelism",
             "parallel_hook.py:185-187")]
    checks.append((found.attn_cp_size != moe_dp and moe_dp != 1,
                   "attn_cp_size != moe_dp_size is only supported when moe_dp_size == 1",
                   "parallel_hook.py:189-192"))
    for failed, sentence, where in checks:
        if failed:
            raise _refuse(sentence, where)
