"""The comparison behind test_sglang_quant_keys_oracle.py and measure_sglang_quant_keys.py:
quantization dicts under config.json's old `compression_config` key (SGLang reads it where
`quantization_config` is absent: configs/model_config.py:1743-1745 for the method,
model_loader/checkpoint_quantization.py:68-70 for the dict the loader builds the class
from), and the `from_config` / `__init__` refusals of AutoRoundConfig (auto_round.py:139-181,
73-92) and QuarkConfig (quark/quark.py:617-681), on config.json or, for auto-round, a found
quantization_config.json (model_loader/weight_utils.py:396-438).

SGLang's side is its real ModelConfig + `_get_quantization_config` on a B200
(tests.oracle.sglang_quant_capability_oracle.load, with `key`); graphfit's is the pasted line.
Judged as in sglang_quant_weight_class_compare: "class" where a config class's ValueError
stops the loader (graphfit must refuse citing the class's file and, for AutoRound / Quark,
with SGLang's sentence up to its first comma or full stop), "refused" where ModelConfig
or the arguments refuse (graphfit must exit 2), "built" / "other" (graphfit must cite no
class file). It imports no graphfit module this work added, so the measure scores an older
graphfit tree too."""

from __future__ import annotations

import functools
import json
import random
import re
import tempfile
from pathlib import Path
from typing import Any

from tests.oracle import sglang_quant_auto_round_layers_compare as ac
from tests.oracle import sglang_quant_capability_oracle as co
from tests.oracle import sglang_quant_weight_class_ct_compare as cc
from tests.oracle.sglang_quant_capability_compare import _LLAMA, past_the_class, planned

# the class files graphfit cites for each class this compare draws
MARKS = ("auto_round.py:", "quark/quark.py:", "fp8.py:", "w4afp8.py:", "awq/awq.py:",
         "gptq/gptq.py:", "modelopt_quant.py:", "moe_wna16.py:")
KEYS = ("quantization_config", "compression_config")
FILE = "quantization_config.json"  # AutoRoundConfig.get_config_filenames (auto_round.py:134-136)

_AR = {"quant_method": "auto-round", "bits": 4, "group_size": 128, "sym": True,
       "packing_format": "auto_round:auto_gptq"}
_KV = {"output_tensors": {"dtype": "fp8_e4m3", "qscheme": "per_tensor"},
       "weight": {"dtype": "fp8_e4m3"}}
_QUARK = {"quant_method": "quark", "export": {"kv_cache_group": [], "pack_method": "reorder"},
          "layer_quant_config": {}, "exclude": ["lm_head"]}
_KV_GROUP = {"kv_cache_group": ["*k_proj", "*v_proj"], "pack_method": "reorder"}

# (key: a KEYS entry or FILE, flag, the quantization dict)
FIXED: dict[str, tuple[str, str | None, dict[str, Any]]] = {
    "ar": ("quantization_config", None, _AR),
    "ar_awq": ("quantization_config", None, {**_AR, "packing_format": "auto_round:auto_awq"}),
    # s64q: past the loader, the first layer's AWQConfig refuses 8 bits (awq/awq.py:84-88)
    "ar_awq_8bit": ("quantization_config", None, {**_AR, "bits": 8,
                                                  "packing_format": "auto_round:auto_awq"}),
    "ar_5bit": ("quantization_config", None, {**_AR, "bits": 5}),
    "ar_no_sym": ("quantization_config", "auto-round", {k: v for k, v in _AR.items()
                                                       if k != "sym"}),
    "ar_fp": ("quantization_config", None, {**_AR, "data_type": "fp"}),
    "ar_format": ("quantization_config", None, {**_AR, "packing_format": "auto_gptq"}),
    "ar_backend": ("quantization_config", None, {**_AR, "sglang_backend": "ipex"}),
    "ar_file": (FILE, "auto-round", _AR),
    "ar_file_8bit_bad": (FILE, "auto-round", {**_AR, "bits": 16}),
    "ar_file_no_group": (FILE, "auto-round", {k: v for k, v in _AR.items()
                                             if k != "group_size"}),
    "quark": ("quantization_config", None, _QUARK),
    "quark_no_export": ("quantization_config", None, {k: v for k, v in _QUARK.items()
                                                      if k != "export"}),
    "quark_kv": ("quantization_config", None, {**_QUARK, "export": _KV_GROUP,
                                               "layer_quant_config": {"*k_proj": _KV,
                                                                      "*v_proj": _KV}}),
    "quark_kv_missing": ("quantization_config", None, {**_QUARK, "export": _KV_GROUP,
                                                       "layer_quant_config": {"*k_proj": _KV}}),
    "quark_kv_differ": ("quantization_config", "quark", {
        **_QUARK, "export": _KV_GROUP,
        "layer_quant_config": {"*k_proj": _KV, "*v_proj": {**_KV, "weight": None}}}),
    "quark_kv_empty": ("quantization_config", None, {
        **_QUARK, "export": _KV_GROUP,
        "layer_quant_config": {"*k_proj": {"weight": None}, "*v_proj": {"weight": None}}}),
    "cc_ct": ("compression_config", None, cc.FIXED["ct"][1]),
    "cc_ct_fp8_3d": ("compression_config", None, cc.FIXED["ct_fp8_3d"][1]),
    "cc_ct_static_block": ("compression_config", "compressed-tensors",
                           cc.FIXED["ct_fp8_static_block"][1]),
    "cc_fp8_no_scheme": ("compression_config", None, {"quant_method": "fp8"}),
    "cc_awq_8bit": ("compression_config", None, {"quant_method": "awq", "bits": 8,
                                                 "group_size": 128, "zero_point": True}),
    "cc_no_method": ("compression_config", None, {"quant_algo": "FP8"}),
    "cc_modelopt": ("compression_config", None, {"quant_method": "modelopt",
                                                 "quant_algo": "FP8"}),
    "cc_ar_5bit": ("compression_config", None, {**_AR, "bits": 5}),
    "cc_quark_no_export": ("compression_config", "quark", {"quant_method": "quark"}),
}


# the classes whose sentence graphfit repeats: their lines must carry SGLang's own words
WORDED = ("auto-round", "quark")


def _head(said: str) -> str:
    """SGLang's sentence up to its first comma or full stop."""
    return re.split(r"[,.]", said, maxsplit=1)[0].strip()


@functools.cache
def _dir(key: str, body: str) -> str:
    root = Path(tempfile.mkdtemp(prefix="graphfit-quant-keys-"))
    if key == FILE:
        (root / "config.json").write_text(json.dumps(_LLAMA))
        (root / FILE).write_text(body)
    else:
        (root / "config.json").write_text(json.dumps({**_LLAMA, key: json.loads(body)}))
    return str(root)


def compare(key: str, flag: str | None, spec: dict[str, Any]) -> tuple[str, str | None]:
    """One line on a B200: (verdict, a disagreement or None)."""
    body = json.dumps(spec, sort_keys=True)
    folder = _dir(key, body)
    theirs = co.load(flag, None if key == FILE else spec, 100, folder,
                     key="quantization_config" if key == FILE else key)
    code, said = planned(folder, () if flag is None else ("--quantization", flag), "B200")
    cited = any(mark in said for mark in MARKS)
    where = f"--quantization {flag} on {key} {body[:150]} (B200)"
    if theirs.stage == "before" and "Error" not in theirs.said.split(":")[0] \
            and "Cannot find the config file" not in theirs.said:
        ok = code == 2 and cited and (theirs.method not in WORDED or _head(theirs.said) in said)
        return "class", None if ok else f"{where}: SGLang {theirs.said[:90]}; graphfit " \
                                        f"{code} {said}"
    if theirs.stage in ("verify", "args"):
        return "refused", None if code == 2 else f"{where}: SGLang refuses " \
                                                 f"({theirs.said[:90]}); graphfit plans"
    if theirs.stage == "passed" and theirs.method == "auto-round" \
            and any(mark in said for mark in ac.MARKS):
        # s64q: graphfit's refusal is the one of AutoRound's layers at model build, after
        # the loader: judged by SGLang's own Llama build (the AutoRound layers compare)
        stop = ac.built("LlamaForCausalLM", False, "B200", folder, spec)
        ok = code == 2 and any(stop.startswith(f"ValueError: {s}") for s in ac.SAID)
        return "layer", None if ok else f"{where}: SGLang built {stop[:80]}; graphfit {said}"
    return past_the_class(where, theirs, said, cited)


_ABSENT = object()


def _put(rng: random.Random, spec: dict[str, Any], key: str, pool: tuple[object, ...]) -> None:
    value = rng.choice(pool)
    if value is not _ABSENT:
        spec[key] = value


def _auto_round(rng: random.Random) -> dict[str, Any]:
    spec: dict[str, Any] = {"quant_method": "auto-round"}
    _put(rng, spec, "bits", (4, 4, 8, 2, 3, 5, 16, None, _ABSENT))
    _put(rng, spec, "group_size", (128, 128, -1, _ABSENT))
    _put(rng, spec, "sym", (True, True, False, _ABSENT))
    _put(rng, spec, "data_type", ("int", "fp", ["int"], _ABSENT, _ABSENT, _ABSENT))
    _put(rng, spec, "packing_format", ("auto_round:auto_gptq", "auto_round:auto_awq",
                                       "auto_gptq", _ABSENT, _ABSENT))
    _put(rng, spec, rng.choice(("backend", "vllm_backend", "sglang_backend")),
         ("auto", "marlin", "gptq:marlin", "ipex", _ABSENT, _ABSENT))
    return spec


_ENTRIES = (_KV, _KV, {**_KV, "weight": None}, {"weight": None}, "fp8")


def _quark(rng: random.Random) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    _put(rng, spec, "quant_method", ("quark", "quark", "quark", "quark", _ABSENT))
    group = rng.choice(([], ["*k_proj", "*v_proj"], ["*k_proj", "*v_proj"], ["*v_proj"],
                        None, _ABSENT))
    export: dict[str, Any] = {"pack_method": "reorder"}
    if group is not _ABSENT:
        export["kv_cache_group"] = group
    _put(rng, spec, "export", (export, export, export, None, _ABSENT, "reorder"))
    layers = {name: rng.choice(_ENTRIES) for name in ("*k_proj", "*v_proj")
              if rng.random() < 0.85}
    _put(rng, spec, "layer_quant_config", (layers, layers, layers, [], _ABSENT))
    return spec


def generated_line(rng: random.Random) -> tuple[str, str | None, dict[str, Any]]:
    """(key, flag, dict): an auto-round or quark dict with drawn keys, or a
    compressed-tensors / w4afp8 one (sglang_quant_weight_class_ct_compare's generator),
    under either config.json key (auto-round: also a found quantization_config.json)."""
    family = rng.choice(("auto-round", "quark", "ct"))
    key = rng.choice(KEYS)
    if family == "auto-round":
        if rng.random() < 0.2:
            return FILE, "auto-round", _auto_round(rng)
        return key, rng.choice((None, None, "auto-round")), _auto_round(rng)
    if family == "quark":
        return key, rng.choice((None, None, "quark")), _quark(rng)
    flag, spec = cc.generated_line(rng)
    return key, flag, spec


def generated_lines(count: int, seed: int) -> list[tuple[str, str | None, dict[str, Any]]]:
    rng = random.Random(seed)
    return [generated_line(rng) for _ in range(count)]
