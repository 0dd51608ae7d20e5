"""Generated `--quantization` x checkpoint x GPU cases for SGLang 0.5.23's
`_verify_quantization`, and the comparison of graphfit's answer with SGLang's own
(tests.oracle.sglang_quantization_oracle.verify): shared by
test_sglang_quant_overrides_oracle.py, test_sglang_quant_files_oracle.py and
`python -m tests.oracle.measure_sglang_quant`.

A case is (flag, the config.json quantization_config or None, the GPU's capability, and
optionally a local checkpoint directory plus config.json's compression_config). The layouts
are drawn from the shapes real checkpoints carry: AWQ / GPTQ with their bits, group size,
zero point, symmetry, act order and Marlin format (AutoAWQ / AutoGPTQ / GPTQModel exports),
ModelOpt configs with a quant_algo (flat or nested, any case), plain fp8 / mxfp8 / mxfp4 /
compressed-tensors, quant_method in upper or mixed case.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines import sglang_quantization as sq
from graphfit.planner.engines.sglang_quant_overrides import quant_config

# every --quantization choice (arg_groups/choices.py:32-67) but unquant, which the argument
# pipeline resolves before the ModelConfig (serving_hook.py:692-703)
FLAGS: tuple[str | None, ...] = (
    None, "awq", "fp8", "mxfp8", "gptq", "gptq_marlin", "awq_marlin", "bitsandbytes", "gguf",
    "modelopt", "modelopt_fp8", "modelopt_fp4", "nvfp4_online", "modelopt_mixed",
    "petit_nvfp4", "w8a8_int8", "w8a8_fp8", "moe_wna16", "w4afp8", "mxfp4", "auto-round",
    "auto-round-int8", "compressed-tensors", "modelslim", "mxfp_w4a8", "quark",
    "quark_int4fp8_moe", "quark_mxfp4", "mlx_q4", "mlx_q8", "humming")
# the flags an override answers for, drawn half the time
OVERRIDDEN = (None, None, "modelopt", "moe_wna16", "awq_marlin", "gptq_marlin", "awq",
              "humming", "fp8")
# capability major * 10 + minor: V100, T4, A100, L4, H100, B200, RTX 5090
CAPABILITIES = (70, 75, 80, 89, 90, 100, 120)
_GROUPS = (128, 64, 32, -1, 256, 16, None)
_ABSENT = object()


def _put(out: dict[str, Any], key: str, value: object) -> None:
    if value is not _ABSENT:
        out[key] = value


def layout(rng: random.Random) -> dict[str, Any]:
    """One checkpoint quantization_config."""
    kind = rng.choice(("awq", "gptq", "modelopt", "plain"))
    out: dict[str, Any] = {}
    if kind == "awq":
        _put(out, "quant_method", rng.choice(("awq", "awq", "AWQ", "Awq")))
        _put(out, "bits", rng.choice((4, 4, 8, 3, _ABSENT)))
        _put(out, "group_size", rng.choice((*_GROUPS, _ABSENT)))
        _put(out, "zero_point", rng.choice((True, True, False, _ABSENT)))
        _put(out, "version", rng.choice(("gemm", _ABSENT)))
    elif kind == "gptq":
        _put(out, "quant_method", rng.choice(("gptq", "gptq", "GPTQ")))
        _put(out, "bits", rng.choice((4, 4, 8, 2, 3, _ABSENT)))
        _put(out, "group_size", rng.choice((*_GROUPS, _ABSENT)))
        _put(out, "sym", rng.choice((True, True, False, _ABSENT)))
        _put(out, "desc_act", rng.choice((False, False, True, _ABSENT)))
        _put(out, "checkpoint_format", rng.choice((_ABSENT, _ABSENT, "gptq", "marlin")))
        _put(out, "is_marlin_format", rng.choice((_ABSENT, _ABSENT, _ABSENT, True, False)))
    elif kind == "modelopt":
        _put(out, "quant_method", rng.choice((_ABSENT, "modelopt", "modelopt", "fp8", "FP8",
                                              "mxfp8", "MODELOPT")))
        algo = rng.choice(("FP8", "NVFP4", "nvfp4", "MXFP8", "NVFP4_AWQ", "W4A16_NVFP4",
                           "FP4", "MIXED_PRECISION", "INT4_AWQ", "W4A8_AWQ", _ABSENT, None))
        _put(out, "quant_algo", algo)
        if algo == "MIXED_PRECISION":
            layer = rng.choice(("NVFP4", "FP8", "W4A16_NVFP4"))
            out["quantized_layers"] = {"model.layers.0.mlp": {"quant_algo": layer}}
        if rng.random() < 0.2:  # the nested hf_quant_config.json shape inside config.json
            out = {"quantization": dict(out)}
    else:
        _put(out, "quant_method", rng.choice(("fp8", "mxfp8", "mxfp4", "MXFP4",
                                              "compressed-tensors", "Compressed-Tensors",
                                              "humming", "bitnet", "w8a8_int8", None)))
    return out


def cases(count: int, seed: int) -> list[tuple[str | None, dict[str, Any], int]]:
    """`count` (flag, layout, capability) cases, drawn reproducibly."""
    rng = random.Random(seed)
    return [(rng.choice(OVERRIDDEN if rng.random() < 0.5 else FLAGS), layout(rng),
             rng.choice(CAPABILITIES)) for _ in range(count)]


def ours(flag: str | None, cfg: dict[str, Any] | None, method: str | None,
         capability: int | None) -> str:
    """graphfit's answer in the oracle's words: the quantization, "refused: ...",
    "crash: ..." or "not modelled: ..."."""
    try:
        quant = sq.check_clash(flag, method, cfg, capability)
    except ConfigError as exc:
        text = str(exc)
        if "not modelled" in text:
            return f"not modelled: {text}"
        return f"crash: {text}" if "SGLang stops" in text else f"refused: {text}"
    return str(quant)


def from_layout(flag: str | None, config: dict[str, Any] | None, capability: int | None
                ) -> str:
    """graphfit's answer on a config.json quantization_config, read as graphfit's reader
    does (sglang_quantization.effective_config / checkpoint_method)."""
    if config is None:
        return ours(flag, None, None, capability)
    return ours(flag, sq.effective_config(config), sq.checkpoint_method(config), capability)


def from_settings(flag: str | None, settings: dict[str, Any], capability: int) -> str:
    """graphfit's answer from the settings its reader took from a local checkpoint."""
    return ours(flag, quant_config(settings.get("checkpoint_quant_config")),
                settings.get("checkpoint_quant_method"), capability)


def same(graphfit: str, sglang: str) -> bool:
    """Both refuse (ValueError), both stop (another exception), or both resolve the same
    quantization."""
    if graphfit.startswith("not modelled"):
        return False
    kinds = ("refused", "crash: ")
    if graphfit[:7] in kinds or sglang[:7] in kinds:
        return graphfit[:7] == sglang[:7]
    return graphfit == sglang


def compare(rows: Iterable[tuple[str, str, str]]) -> tuple[list[str], dict[str, int]]:
    """(the disagreements, counts by SGLang's outcome) over (label, graphfit, SGLang)."""
    wrong: list[str] = []
    counts = {"cases": 0, "accepted": 0, "refused": 0, "crash": 0, "not modelled": 0}
    for label, mine, theirs in rows:
        counts["cases"] += 1
        counts["not modelled"] += mine.startswith("not modelled")
        outcome = ("refused" if theirs.startswith("refused") else
                   "crash" if theirs.startswith("crash") else "accepted")
        counts[outcome] += 1
        if not same(mine, theirs):
            wrong.append(f"{label}: graphfit {mine[:110]} | SGLang {theirs[:110]}")
    return wrong, counts


def write_checkpoint(folder: Path, config: dict[str, Any],
                     files: dict[str, dict[str, Any] | list[Any]]) -> None:
    """A local checkpoint directory: config.json and the named JSON files."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(config))
    for name, data in files.items():
        (folder / name).write_text(json.dumps(data))
