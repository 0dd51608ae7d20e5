"""The comparison behind test_sglang_quant_weight_class_ct_oracle.py and
measure_sglang_quant_weight_class_ct.py: SGLang 0.5.23's CompressedTensorsConfig
(compressed-tensors) and W4AFp8Config (w4afp8) refuse some config.json quantization dicts in
`from_config` / `__init__` (compressed_tensors.py:281-318 building an Fp8Config from
`linear_fp8_config`, fp8.py:285-314; w4afp8.py:78-79).

SGLang's side is its real ModelConfig + `_get_quantization_config` on a B200
(tests.oracle.sglang_quant_capability_oracle.load); graphfit's is the pasted line. The
compressed_tensors library is stubbed there (tests.oracle.sglang_stubs), so the config groups
are not validated by its pydantic models on either side: the dicts drawn here keep well-formed
groups. Judged as in sglang_quant_weight_class_compare: "class" where one of these classes'
ValueError stops the loader (graphfit must refuse citing one of `MARKS`), "built" / "other"
(graphfit must cite none). It imports no graphfit module this work added, so the measure
scores an older graphfit tree too."""

from __future__ import annotations

import functools
import json
import random
import tempfile
from pathlib import Path
from typing import Any

from tests.oracle import sglang_quant_capability_oracle as co
from tests.oracle.sglang_quant_capability_compare import _LLAMA, past_the_class, planned

MARKS = ("fp8.py:285-286", "fp8.py:302-306", "fp8.py:307-310", "fp8.py:311-314",
         "w4afp8.py:78-79")
CLASS_METHODS = ("compressed-tensors", "w4afp8")

_GROUP = {"group_0": {"targets": ["Linear"], "format": "pack-quantized",
                      "weights": {"num_bits": 4, "type": "int", "strategy": "group",
                                  "group_size": 32, "symmetric": True}}}
_CT = {"quant_method": "compressed-tensors", "format": "mixed-precision",
       "config_groups": _GROUP, "ignore": ["lm_head"]}
_FP8 = {"quant_method": "fp8", "activation_scheme": "dynamic", "fmt": "e4m3",
        "weight_block_size": [128, 128]}

# (flag, config.json quantization_config)
FIXED: dict[str, tuple[str | None, dict[str, Any]]] = {
    "ct": (None, _CT),
    "ct_flag": ("compressed-tensors", _CT),
    "ct_fp8": (None, {**_CT, "linear_fp8_config": _FP8}),
    "ct_fp8_static_noblock": (None, {**_CT, "linear_fp8_config": {
        **_FP8, "activation_scheme": "static", "weight_block_size": None}}),
    "ct_fp8_bad_scheme": (None, {**_CT, "linear_fp8_config": {**_FP8,
                                                              "activation_scheme": "e4m3"}}),
    "ct_fp8_static_block": ("compressed-tensors", {**_CT, "linear_fp8_config": {
        **_FP8, "activation_scheme": "static"}}),
    "ct_fp8_not_fp8": (None, {**_CT, "linear_fp8_config": {**_FP8, "quant_method": "int8"}}),
    "ct_fp8_3d": (None, {**_CT, "linear_fp8_config": {**_FP8,
                                                      "weight_block_size": [1, 128, 128]}}),
    "ct_fp8_default": (None, {**_CT, "linear_fp8_config": {}}),
    # no targets: the scheme map's TypeError comes before the Fp8Config (not judged)
    "ct_no_targets_bad_fp8": (None, {**_CT, "linear_fp8_config": {**_FP8, "weight_block_size": [1]},
                                     "config_groups": {"group_0": {"weights": {"num_bits": 4}}}}),
    "w4": ("w4afp8", {"quant_method": "w4afp8"}),
    "w4_no_method": ("w4afp8", {"bits": 4, "group_size": 128}),
    "w4_mixed": ("w4afp8", {"quant_method": "mixed_w4afp8", "activation_scheme": "static"}),
}


@functools.cache
def _dir(body: str) -> str:
    root = Path(tempfile.mkdtemp(prefix="graphfit-quant-ct-"))
    (root / "config.json").write_text(json.dumps({**_LLAMA,
                                                  "quantization_config": json.loads(body)}))
    return str(root)


def compare(flag: str | None, spec: dict[str, Any]) -> tuple[str, str | None]:
    """One config.json line on a B200: (verdict, a disagreement or None)."""
    body = json.dumps(spec, sort_keys=True)
    folder = _dir(body)
    theirs = co.load(flag, spec, 100, folder)
    code, said = planned(folder, () if flag is None else ("--quantization", flag), "B200")
    cited = any(mark in said for mark in MARKS)
    where = f"--quantization {flag} on {body[:160]} (B200)"
    if theirs.stage == "before" and theirs.method in CLASS_METHODS \
            and "Error" not in theirs.said.split(":")[0]:
        ok = code == 2 and cited
        return "class", None if ok else f"{where}: SGLang {theirs.said[:90]}; graphfit " \
                                        f"{code} {said}"
    return past_the_class(where, theirs, said, cited)


_ABSENT = object()
_SCHEMES = ("dynamic", "dynamic", "static", "static", "e4m3", "Dynamic", None, _ABSENT)
_BLOCKS = ([128, 128], [128, 128], [1, 32], [128], [1, 128, 128], [], None, _ABSENT)
_METHODS = ("fp8", "fp8", "fp8", "int8", None, _ABSENT)
_BAD_GROUPS: tuple[object, ...] = ({"group_0": {"weights": _GROUP["group_0"]["weights"]}},
                                   {"group_0": {**_GROUP["group_0"], "targets": 3}},
                                   {"group_0": "Linear"}, ["Linear"], {})


def _draw(rng: random.Random, pool: tuple[object, ...]) -> object:
    return rng.choice(pool)


def generated_line(rng: random.Random) -> tuple[str | None, dict[str, Any]]:
    """(flag, config.json quantization_config): a compressed-tensors dict with a drawn
    linear_fp8_config (each key present with a drawn value, or absent), or a w4afp8 dict."""
    if rng.random() < 0.2:
        spec: dict[str, Any] = {"bits": 4} if rng.random() < 0.5 else {}
        method = rng.choice(("w4afp8", "mixed_w4afp8", _ABSENT))
        if method is not _ABSENT:
            spec["quant_method"] = method
        return "w4afp8", spec
    fp8: dict[str, Any] = {}
    for key, pool in (("activation_scheme", _SCHEMES), ("weight_block_size", _BLOCKS),
                      ("quant_method", _METHODS)):
        value = _draw(rng, pool)
        if value is not _ABSENT:
            fp8[key] = value
    spec = {**_CT}
    if rng.random() < 0.9:
        spec["linear_fp8_config"] = fp8 if rng.random() < 0.95 else "fp8"
    if rng.random() < 0.15:  # groups its scheme map stops on (a TypeError / AttributeError:
        spec["config_groups"] = rng.choice(_BAD_GROUPS)  # not judged) or none
    return rng.choice((None, None, "compressed-tensors")), spec


def generated_lines(count: int, seed: int) -> list[tuple[str | None, dict[str, Any]]]:
    rng = random.Random(seed)
    return [generated_line(rng) for _ in range(count)]
