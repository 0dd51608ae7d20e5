"""The target config that SGLang 0.5.23's MoE blocks read their expert count from, for
graphfit's "more TP ranks than experts" rules (`sglang_qwen_moe_experts`; issue 23, s70k).

Those rules read config.json as written, so they missed two things SGLang does:

1. **`--json-model-override-args`.** SGLang builds the model from `ModelConfig.hf_config`,
   which `get_config` loads with the override args applied (configs/model_config.py:612-626,
   utils/hf_transformers/config.py:405-424). A pasted line's readers already saw them
   (graphfit.inputs.commandline.target); graphfit's config file and the live ServerArgs
   called the rules outside that scope, so an override of `num_experts` /
   `n_routed_experts` / `architectures` there was ignored. `target` applies them wherever
   the rules are called (`target_overrides.applied`: one application, even nested).
2. **The config class's names for the expert count.** transformers 5.25.0's config classes
   map other names onto the attribute the blocks read (`attribute_map`, resolved by
   `PreTrainedConfig.__setattr__` / `__getattribute__`, configuration_utils.py:659-667):
   Qwen3-MoE keeps `num_experts` as `num_local_experts`; DeepSeek-V3/V3.2, GLM-4-MoE(-Lite),
   GLM-MoE-DSA map `num_local_experts`, DeepSeek-V2 `num_experts`, onto `n_routed_experts`.
   So an override `{"num_local_experts": 8}` on a Qwen3-MoE target changes the count the
   block reads (setattr goes through the map), and in config.json the mapped name, passed
   to the class as an extra keyword after its dataclass fields, wins over the field. A
   DeepSeek-V3.2 / GLM-MoE-DSA file's non-null `num_experts` is re-routed at construction
   only (`__post_init__`, configuration_deepseek_v32.py:136-138,
   configuration_glm_moe_dsa.py:156-158), not on an override's setattr. A file without
   any of the names takes the class default (e.g. Qwen2-MoE 60, whose EP split then holds or
   fails, layers/moe/fused_moe_triton/layer.py:414).

The count is written back under every name, so a rule reading either spelling sees SGLang's
value. Other model types: config.json with the override args applied, unchanged; Beam's
class refusals (`sglang_beam_build.line`) read the target through `target` too, so an
`architectures` override naming Beam meets them in a config file and live as on a line.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphfit.inputs import target_overrides
from graphfit.inputs.model_config import config_path, local_config
from graphfit.inputs.reading import load_json


@dataclass(frozen=True)
class Experts:
    """A config class's expert count: its dataclass field (set first from config.json), the
    names set after it at construction (in order; the last present wins), the names an
    override's setattr maps onto it, its default and the class's site."""

    field: str
    extras: tuple[str, ...]
    mapped: frozenset[str]
    default: int
    site: str

    def __post_init__(self) -> None:
        if self.default < 1 or self.field in self.extras:
            raise ValueError(f"bad expert-count entry: {self!r}")


def _to_routed(default: int, site: str, extras: tuple[str, ...] = ("num_local_experts",),
               alias: str = "num_local_experts") -> Experts:
    return Experts("n_routed_experts", extras, frozenset({"n_routed_experts", alias}),
                   default, site)


_DSA = ("num_experts", "num_local_experts")  # re-routed in __post_init__, then the map
# model_type -> its config class's expert count (transformers 5.25.0 models/<type>/
# configuration_<type>.py; Qwen3-Next: SGLang's own configs/qwen3_next.py)
EXPERTS: dict[str, Experts] = {
    "qwen3_moe": Experts("num_experts", ("num_local_experts",),
                         frozenset({"num_experts", "num_local_experts"}), 128,
                         "configuration_qwen3_moe.py:50-51,97"),
    "qwen2_moe": Experts("num_experts", (), frozenset({"num_experts"}), 60,
                         "configuration_qwen2_moe.py:96"),
    "qwen3_next": Experts("num_experts", (), frozenset({"num_experts"}), 512,
                          "configs/qwen3_next.py:213,253"),
    "deepseek_v2": _to_routed(64, "configuration_deepseek_v2.py:98-99,105", ("num_experts",),
                              "num_experts"),
    "deepseek_v3": _to_routed(256, "configuration_deepseek_v3.py:78-79,91"),
    "deepseek_v32": _to_routed(256, "configuration_deepseek_v32.py:81,91,136-138", _DSA),
    "glm_moe_dsa": _to_routed(256, "configuration_glm_moe_dsa.py:86,96,156-158", _DSA),
    "glm4_moe": _to_routed(128, "configuration_glm4_moe.py:82-83,106"),
    "glm4_moe_lite": _to_routed(64, "configuration_glm4_moe_lite.py:73-74,86"),
}


def count(entry: Experts, written: Mapping[str, Any], overrides: Mapping[str, Any]) -> Any:
    """The expert count the class holds: config.json's field, then its extras (a null extra
    re-routed in `__post_init__` is skipped, as the classes test `is not None`), then each
    override whose name the class maps onto it, in the JSON object's order."""
    value: Any = written.get(entry.field, entry.default)
    for name in entry.extras:
        if name in written and (written[name] is not None or name in entry.mapped):
            value = written[name]
    for key, given in overrides.items():
        if key in entry.mapped:
            value = given
    return value


def resolved(data: Mapping[str, Any], written: Mapping[str, Any],
             overrides: Mapping[str, Any]) -> dict[str, Any]:
    """`data` (config.json with the overrides applied) with the expert count SGLang's
    config object holds under every name; the config class is config.json's model type (an
    override of `model_type` does not change the class get_config built)."""
    kind = written.get("model_type")
    entry = EXPERTS.get(kind) if isinstance(kind, str) else None
    if entry is None:
        return dict(data)
    value = count(entry, written, overrides)
    names = {entry.field, *entry.extras, *entry.mapped}
    if kind in ("deepseek_v32", "glm_moe_dsa"):
        names.discard("num_experts")  # a plain attribute after construction
    return {**data, **dict.fromkeys(names, value)}


def target(values: Mapping[str, Any]) -> dict[str, Any] | None:
    """The line's local target config.json (`model_path`) as SGLang's MoE blocks read it:
    the line's `json_model_override_args` applied, the expert count resolved; None for a hub
    id or a file that is not an object."""
    model = values.get("model_path")
    path = config_path(model) if isinstance(model, str) else None
    if path is None or not isinstance(model, str):
        return None
    given = values.get("json_model_override_args")
    with target_overrides.applied(path, given):
        data = local_config(model)
    written = load_json(path, "model config")
    if data is None or not isinstance(written, dict):
        return data
    return resolved(data, written, target_overrides.parse(given))


__all__ = ["EXPERTS", "Experts", "count", "resolved", "target"]
