"""Whether SGLang 0.5.23's model build gives a FusedMoE layer ModelOpt's NVFP4 MoE method, and
whether the first one built (SglangOptions.nvfp4_moe_layers; issue 23, s60q).

Three quantization configs hand FusedMoE layers `ModelOptNvFp4FusedMoEMethod`, whose
`__init__` refuses some MoE runners below Blackwell (graphfit.planner.engines.sglang_nvfp4_moe):

* `modelopt_fp4` (ModelOptFp4Config, layers/quantization/modelopt_quant.py:1704-1728): every
  FusedMoE layer the config's exclusions do not name (`_get_quant_method`, :350-355).
  Exclusions: a flat config's `ignore`, else `modules_to_not_convert`, else
  `exclude_modules` (:1660-1663); a nested (hf_quant_config.json) one's
  `quantization.exclude_modules` (:1665-1672).
* `modelopt_mixed` (ModelOptMixedPrecisionConfig, :806-1095): a FusedMoE layer not excluded
  (flat `ignore`, else `exclude_modules`; nested `quantization.exclude_modules`, :850-881)
  whose `quantized_layers` algorithm resolves to NVFP4 or W4A16_NVFP4 (:1089-1092;
  `_resolve_quant_algo`, :978-1008: the prefix itself, then its `model.language_model.`
  spelling, then the first key under either).
* `fp8` with the ModelConfig's `nvfp4_moe_meta` (HybridFp8NvFp4Config, :1731-1768, built by
  model_loader/loader.py:229-251): every FusedMoE layer not excluded by config.json's
  `ignore` plus `model.decoder.*` and `stages.*`.

Exclusion is `ModelOptQuantConfig.is_layer_excluded` (:379-424: each pattern, "." literal and
"*" any run, full-matches the prefix or one of its dotted parts, or a fused q/kv tail). The
FusedMoE prefixes are the model class's: graphfit knows them for Qwen3-MoE and Qwen2-MoE
(every decoder layer sparse, `model.layers.{i}.mlp.experts`: models/qwen3_moe.py:272,
843-886; models/qwen2_moe.py:335, 1022-1066), Mixtral (every layer,
`layers.{i}.block_sparse_moe.experts`, without "model.": models/mixtral.py:100-109,
227-235, 298-303), the
DeepSeek-V2 / V3 classes (`model.layers.{i}.mlp.experts` where `n_routed_experts` is set,
i >= `first_k_dense_replace` and i % `moe_layer_freq` == 0: models/deepseek_v2.py:2785-2792)
and GLM-4-MoE (the same without `moe_layer_freq`: models/glm4_moe.py:828-834); none of them
maps weight names (model_loader/loader.py:273-280). Other classes, a layer count or sparse
field config.json does not state, or a config SGLang itself stops on (a non-string pattern,
a bad regex, a layer entry without quant_algo) give no answer (None).

Since s63q also: the DSA classes DeepSeek-V3.2 and GLM-5 (`GlmMoeDsaForCausalLM`), both
DeepSeek-V2's class with its sparse test (models/deepseek_v2.py:3522; glm4_moe.py:1284);
Kimi-K2.5 (`KimiK25ForConditionalGeneration`: DeepSeek-V3's class built on config.json's
`text_config` with prefix "" for a ModelOpt config, models/kimi_k25.py:691-701), whose
weight-name mapper (`language_model.layers.` -> `language_model.model.layers.`, :646-650)
the loader applies to the config (loader.py:273-280): to the exclusions, each then also
without its leading `language_model.` (modelopt_quant.py:365-377; its rewrite of
quantized_layers' keys, :971-976, changes no lookup of a `model.` prefix); and Bailing-V2.5
(`BailingMoeV2_5ForCausalLM`: MoE from `first_k_dense_replace` on unless `num_experts` is
1, models/bailing_moe_linear.py:779-808). A DeepSeek-family config.json without
`n_routed_experts` (the HF class's default applies) gives no answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

ARCHITECTURES = {
    "Qwen3MoeForCausalLM": "models/qwen3_moe.py:272, 843-886",
    "Qwen2MoeForCausalLM": "models/qwen2_moe.py:335, 1022-1066",
    # issue 23 s62q: the layers a config.json's own fields make sparse
    "MixtralForCausalLM": "models/mixtral.py:100-109, 227-235, 297-302, 352-354",
    "DeepseekV2ForCausalLM": "models/deepseek_v2.py:753-766, 2650-2660, 2785-2792, 3284",
    "DeepseekV3ForCausalLM": "models/deepseek_v2.py:753-766, 2650-2660, 2785-2792, 3518",
    "Glm4MoeForCausalLM": "models/glm4_moe.py:437-447, 735-741, 828-834, 997",
    # issue 23 s63q: the DSA classes are DeepSeek-V2's own class (its layers, its sparse test)
    "DeepseekV32ForCausalLM": "models/deepseek_v2.py:2785-2792, 3522-3523",
    "GlmMoeDsaForCausalLM": "models/glm4_moe.py:1284-1285; deepseek_v2.py:2785-2792",
    # s63q: DeepSeek-V3's class on the text_config, prefix "" for a ModelOpt config, with
    # its weight-name mapper applied to the quantization config (model_loader/loader.py:273-280)
    "KimiK25ForConditionalGeneration": "models/kimi_k25.py:643-650, 691-701",
    # s63q: MoE where num_experts != 1 from first_k_dense_replace on; its mapper rewrites
    # attention names only, which no FusedMoE prefix contains (models/bailing_moe_linear.py:
    # 1020-1036)
    "BailingMoeV2_5ForCausalLM": "models/bailing_moe_linear.py:301-311, 779-808, 947-950, "
                                 "1050, 1581",
}
# s63q: classes whose layers are built from config.json's text_config
_TEXT = ("KimiK25ForConditionalGeneration",)
# s63q: the class's `hf_to_sglang_mapper` prefixes (models/kimi_k25.py:646-650, WeightsMapper's
# orig_to_new_prefix, models/utils.py:82-90)
_MAPPERS = {"KimiK25ForConditionalGeneration": (
    ("language_model.layers.", "language_model.model.layers."),)}
# the FusedMoE prefix (s62q): Mixtral's decoder layers are made with prefix "layers", not
# under the model's "model." (models/mixtral.py:298-303, utils/common.py:1653)
_FORMAT = {"MixtralForCausalLM": "layers.{}.block_sparse_moe.experts"}
# sparse from `first_k_dense_replace` on (and every `moe_layer_freq`-th: DeepSeek only) where
# `n_routed_experts` is set (deepseek_v2.py:2785-2792, glm4_moe.py:828-834)
_FIRST_K = {"DeepseekV2ForCausalLM": True, "DeepseekV3ForCausalLM": True,
            "Glm4MoeForCausalLM": False,
            "DeepseekV32ForCausalLM": True, "GlmMoeDsaForCausalLM": True,  # s63q
            "KimiK25ForConditionalGeneration": True}
NVFP4_ALGOS = ("NVFP4", "W4A16_NVFP4")
# the fused q/kv component names is_layer_excluded looks for in a prefix's last part (:407)
_FUSED = ("q_a_proj", "q_b_proj", "kv_a_proj_with_mqa", "kv_b_proj")
# the hybrid config's extra exclusions: draft experts stay MXFP4 (loader.py:238-241)
HYBRID_EXCLUDED = ("model.decoder.*", "stages.*")


class _Unjudged(Exception):
    """SGLang stops on an error of its own here: no answer."""


def prefixes(layers: int, architecture: str = "Qwen3MoeForCausalLM",
             config: Mapping[str, Any] | None = None) -> Iterator[str]:
    """The FusedMoE prefixes of the model class (ARCHITECTURES), in build order; for the
    DeepSeek / GLM-4-MoE classes the sparse layers config.json's fields name (s62q)."""
    form = _FORMAT.get(architecture, "model.layers.{}.mlp.experts")
    sparse = _sparse(architecture, config or {})
    for index in range(layers):
        if sparse(index):
            yield form.format(index)


def _count(config: Mapping[str, Any], key: str, least: int) -> int:
    value = config.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise _Unjudged  # a default of the HF config class, or SGLang stops on it
    return value


def _sparse(architecture: str, config: Mapping[str, Any]) -> Any:
    """`_is_layer_sparse(config, layer_id, is_nextn=False)` of the class (s62q)."""
    if architecture == "BailingMoeV2_5ForCausalLM":  # s63q: bailing_moe_linear.py:782-797
        if _count(config, "num_experts", 1) == 1:
            return lambda index: False
        first = _count(config, "first_k_dense_replace", 0)
        return lambda index: index >= first
    if architecture not in _FIRST_K:
        return lambda index: True
    if "n_routed_experts" not in config:
        raise _Unjudged  # the HF config class's default (s63q)
    if config["n_routed_experts"] is None:
        return lambda index: False
    first = _count(config, "first_k_dense_replace", 0)
    freq = _count(config, "moe_layer_freq", 1) if _FIRST_K[architecture] else 1
    return lambda index: index >= first and index % freq == 0


def excluded(patterns: list[Any], prefix: str) -> bool:
    """`ModelOptQuantConfig.is_layer_excluded(prefix)` (modelopt_quant.py:379-424)."""
    shapes = [prefix]
    if prefix.startswith("language_model."):
        shapes.append(prefix.removeprefix("language_model."))
    for pattern in patterns:
        if not isinstance(pattern, str):
            raise _Unjudged  # `pattern.replace`: an AttributeError
        try:
            compiled = re.compile(pattern.replace(".", r"\.").replace("*", ".*"))
        except re.error as exc:
            raise _Unjudged from exc
        for shape in shapes:
            if compiled.fullmatch(shape) or any(compiled.fullmatch(p) for p in shape.split(".")):
                return True
        tail = pattern.rsplit(".", maxsplit=1)[-1]
        if tail in _FUSED and any(tail in s.rsplit(".", maxsplit=1)[-1] for s in shapes):
            return True
    return False


def _candidates(prefix: str) -> tuple[str, ...]:
    """`_quantized_layer_prefix_candidates` (modelopt_quant.py:1010-1030) for a prefix under
    `model.` or Mixtral's bare `layers.` (the ones `prefixes` spells)."""
    if not prefix.startswith("model."):
        return (prefix,)
    return prefix, "model.language_model." + prefix.removeprefix("model.")


def _algo(info: object) -> str:
    if not isinstance(info, Mapping) or not isinstance(info.get("quant_algo"), str):
        raise _Unjudged  # `info["quant_algo"].upper()`: a KeyError / AttributeError
    return str(info["quant_algo"]).upper()


def mixed_algo(layers: Mapping[str, Any], prefix: str) -> str | None:
    """`_resolve_quant_algo(prefix)` for a FusedMoE prefix (modelopt_quant.py:978-1008; the
    packed-modules step never applies: no mapping names `experts`)."""
    for candidate in _candidates(prefix):
        if candidate in layers:
            return _algo(layers[candidate])
    for candidate in _candidates(prefix):
        for key, info in layers.items():
            if isinstance(key, str) and key.startswith(candidate + "."):
                return _algo(info)
    return None


def _section(cfg: Mapping[str, Any]) -> Mapping[str, Any]:
    """The flat config, or a nested (hf_quant_config.json) one's `quantization` section."""
    if cfg.get("quant_algo") is not None:
        return cfg
    inner = cfg.get("quantization")
    if not isinstance(inner, Mapping):
        raise _Unjudged
    return inner


def _patterns(value: object) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise _Unjudged
    return value


def _fp4_exclusions(cfg: Mapping[str, Any]) -> list[Any]:
    if cfg.get("quant_algo") is not None:  # modelopt_quant.py:1660-1663
        value = cfg.get("ignore", cfg.get("modules_to_not_convert",
                                          cfg.get("exclude_modules", [])))
        if value is None:
            raise _Unjudged  # "NVFP4 quantization requires group_size and exclude_modules"
        return _patterns(value)
    return _patterns(_section(cfg).get("exclude_modules", []))


def _mixed(cfg: Mapping[str, Any], moe: list[str], architecture: str = "") -> list[bool]:
    section = _section(cfg)
    if section is cfg:
        patterns = _patterns(cfg.get("ignore", cfg.get("exclude_modules")))
    else:
        patterns = _patterns(section.get("exclude_modules"))
    layers = section.get("quantized_layers", {})
    if not isinstance(layers, Mapping) or not layers:
        raise _Unjudged
    # the mapper also rewrites quantized_layers' keys (modelopt_quant.py:971-976): a mapped key
    # starts `language_model.model.`, which no `_candidates` spelling of a `model.` prefix
    # does, before or after, so no lookup changes (s63q)
    patterns = _mapped_patterns(architecture, patterns)
    return [not excluded(patterns, p) and mixed_algo(layers, p) in NVFP4_ALGOS for p in moe]


def _mapped(architecture: str, name: Any) -> Any:
    """`WeightsMapper._map_name` of the class's prefix mapper (models/utils.py:71-102)."""
    for old, new in sorted(_MAPPERS.get(architecture, ()), key=lambda i: len(i[0]),
                           reverse=True):
        if not isinstance(name, str):
            raise _Unjudged  # `key.startswith`: an AttributeError
        if name.startswith(old):
            return name.replace(old, new, 1)
    return name


def _mapped_patterns(architecture: str, patterns: list[Any]) -> list[Any]:
    """`ModelOptQuantConfig.apply_weight_name_mapper` on the exclusions (modelopt_quant.py:
    365-377): each mapped, then also without a leading `language_model.`."""
    if architecture not in _MAPPERS or not patterns:
        return patterns
    out: list[Any] = []
    for name in (_mapped(architecture, p) for p in patterns):
        out.append(name)
        if isinstance(name, str) and name.startswith("language_model."):
            out.append(name.removeprefix("language_model."))
    return list(dict.fromkeys(out))


def _where(flags: list[bool]) -> str:
    """"first" (the first FusedMoE layer built takes the NVFP4 method), "later" (a later one
    does; an earlier one builds another method first), "none"."""
    if not any(flags):
        return "none"
    return "first" if flags[0] else "later"


def built(architecture: object, layers: object, cfg: Mapping[str, Any] | None,
          hybrid_ignore: object = None, hybrid: bool = False,
          config: Mapping[str, Any] | None = None) -> str | None:
    """Which FusedMoE layers of the model build the NVFP4 MoE method under the checkpoint's
    quantization config `cfg` (as SGLang verifies it: its `quant_method` parsed), in build
    order (`_where`); `hybrid`: config.json sets the ModelConfig's nvfp4_moe_meta, whose
    exclusions are `hybrid_ignore` (config.json's `ignore`); `config`: config.json, whose
    fields say which layers are sparse (DeepSeek / GLM-4-MoE). None where graphfit cannot
    tell."""
    if architecture in _TEXT:  # s63q: the text model's fields
        text = (config or {}).get("text_config")
        config = text if isinstance(text, Mapping) else None
        layers = None if config is None else config.get("num_hidden_layers")
    if architecture not in ARCHITECTURES or cfg is None or isinstance(layers, bool) or (
            not isinstance(layers, int)) or layers < 1:
        return None
    method = cfg.get("quant_method")
    arch = str(architecture)
    try:
        moe = list(prefixes(layers, arch, config))
        if method == "fp8" and hybrid:
            patterns = [*_patterns(hybrid_ignore), *HYBRID_EXCLUDED]
            patterns = _mapped_patterns(arch, patterns)
            return _where([not excluded(patterns, p) for p in moe])
        if method == "modelopt_fp4":
            patterns = _mapped_patterns(arch, _fp4_exclusions(cfg))
            return _where([not excluded(patterns, p) for p in moe])
        if method == "modelopt_mixed":
            return _where(_mixed(cfg, moe, arch))
    except _Unjudged:
        return None
    return None


__all__ = ["ARCHITECTURES", "HYBRID_EXCLUDED", "NVFP4_ALGOS", "built", "excluded",
           "mixed_algo", "prefixes"]
