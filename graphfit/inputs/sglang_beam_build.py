"""The start-up refusals of SGLang 0.5.23's Beam model class on a line's local target (issue
23, s69n). `BeamForCausalLM.__init__` (models/beam.py:1289-1318) raises NotImplementedError,
before building any layer, in this order:

1. a quantization Beam does not support (`get_beam_quantization` None, :1236-1272 and
   :1296-1300): no quantization (BF16) is supported; only compressed-tensors FP8 and
   ModelOpt NVFP4 read off a checkpoint's own quantization config are, so a line's
   `--quantization` over a checkpoint with none (no `quantization_config` in config.json,
   no hf_quant_config.json) is refused; so is a checkpoint's own `quantization_config`
   (config.json, the line giving no `--quantization`) in any other format (s69u, see
   `unsupported_format`);
2. `--moe-dense-tp-size 1` (:1302-1306): Beam shards its dense MLPs over the whole TP group
   (other models replicate them with 1, `is_dense_ffn_fully_dp`,
   layers/layer_boundary/layout.py:83-84);
3. expert relocation or redundant experts (:1307-1315): `--enable-eplb`,
   `--init-expert-location` other than trivial, `--ep-num-redundant-experts` above 0;
4. LoRA (:1316-1317): `--enable-lora` or `--lora-paths`.

Why: graphfit planned these lines (it reads every flag), where SGLang's server does not
start. Beam's own override hook (arg_groups/model_overrides/beam.py:21-45) sets none of
these flags. A quantized checkpoint is refused only where one of 2-4 holds (SGLang refuses
it either way: at 1 when the format is unsupported, else at the later check), and the
reason says the format is checked first.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from graphfit.inputs import sglang_moe_experts_config
from graphfit.planner.core.errors import ConfigError, excerpt

BEAM = "BeamForCausalLM"  # models/beam.py:1283
FIRST = "; quantization checked first, models/beam.py:1296-1300"


def problem(values: Mapping[str, Any], data: Mapping[str, Any],
            model_dir: Path | None = None) -> str | None:
    """Why SGLang's Beam class refuses the line on this config.json (read from `model_dir`),
    or None (another architecture, or a line it builds as far as these checks go)."""
    names = data.get("architectures")
    if not (isinstance(names, list) and names[:1] == [BEAM]):
        return None
    checkpoint = isinstance(data.get("quantization_config"), dict) or (
        model_dir is not None and (model_dir / "hf_quant_config.json").is_file())
    given = values.get("quantization")
    if given and not checkpoint:
        return (f"SGLang cannot build {BEAM}: --quantization {excerpt(given, 20)} without a "
                "checkpoint's FP8 / NVFP4 config: Beam supports BF16, compressed-tensors FP8 "
                "or ModelOpt NVFP4 (NotImplementedError, models/beam.py:1296-1300)")
    if not given and (said := unsupported_format(data.get("quantization_config"))):
        return (f"SGLang cannot build {BEAM}: checkpoint quantization {said} unsupported "
                "(NotImplementedError, models/beam.py:1296-1300)")
    found = _checks(values)
    if found is None:
        return None
    said, lines = found
    quantized = bool(given) or checkpoint
    return (f"SGLang cannot build {BEAM}: {said} (NotImplementedError, models/beam.py:{lines}"
            f"{FIRST if quantized else ''})")


def unsupported_format(quant: Any) -> str | None:
    """config.json's `quantization_config` where `get_beam_quantization` (models/beam.py:
    1236-1272) returns None for the config SGLang's loader builds from it: a short name of
    the format, or None (no such config, one Beam supports, or one not judged). Judged:
    compressed-tensors whose `format` is not float-quantized, that carries a
    `linear_fp8_config`, or that has no config group (:1240-1245, :1264); ModelOpt whose
    `quant_algo` does not name serialized W4A4 NVFP4 (NVFP4_AWQ, W4A16_NVFP4, FP8, ...:
    `ModelOptFp4Config` only for NVFP4 names, :1265-1271, layers/quantization/
    modelopt_quant.py:1673-1701); every other method (fp8, awq, gptq, ...), which builds a
    config class Beam does not accept. Not judged: a float-quantized compressed-tensors
    group's scheme (:1246-1263), whose fields compressed-tensors' own QuantizationArgs parses
    (its defaults are not restated, and the oracle stubs that library). Why: s69n left an
    unsupported quantized checkpoint planned where SGLang's class raises."""
    if not isinstance(quant, Mapping):
        return None
    method = str(quant.get("quant_method", "")).lower()
    if method == "compressed-tensors":
        groups = quant.get("config_groups")
        if quant.get("format") != "float-quantized":
            return f"compressed-tensors {excerpt(quant.get('format'), 20)}"
        if "linear_fp8_config" in quant:
            return "compressed-tensors with linear_fp8_config"
        return None if isinstance(groups, Mapping) and groups else (
            "compressed-tensors without config groups")
    if method == "modelopt":
        algo = str(quant.get("quant_algo", ""))
        if "NVFP4" in algo and "AWQ" not in algo and algo != "W4A16_NVFP4":
            return None
        return f"modelopt {excerpt(algo, 20)}"
    return excerpt(method or "without quant_method", 30)


def _checks(values: Mapping[str, Any]) -> tuple[str, str] | None:
    """Checks 2-4 of the module docstring, in SGLang's order: (reason, beam.py lines)."""
    if count(values.get("moe_dense_tp_size")) == 1:
        return "moe_dense_tp_size=1 is not supported", "1302-1306"
    location = values.get("init_expert_location")
    redundant = count(values.get("ep_num_redundant_experts"))
    if (values.get("enable_eplb") is True
            or (location is not None and str(location) != "trivial")
            or (redundant is not None and redundant > 0)):
        return "no expert relocation or redundant experts", "1307-1315"
    if values.get("enable_lora") is True or values.get("lora_paths"):
        return "LoRA adapters are not supported for Beam", "1316-1317"
    return None


def count(value: Any) -> int | None:
    """An integer flag as a pasted line, a live ServerArgs (int) or graphfit's config file
    (an int, or its digits as a string) gives it; None where unset or not one (its own
    reader refuses a bad value)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def line(values: Mapping[str, Any]) -> None:
    """The line's local target (`model_path`): ConfigError with SGLang's reason where Beam's
    class refuses it; nothing for a hub id or another model."""
    model = values.get("model_path")
    data = sglang_moe_experts_config.target(values)  # with the override args (s70k)
    said = None if data is None else problem(values, data, Path(str(model)))
    if said is not None:
        raise ConfigError(said)


__all__ = ["BEAM", "count", "line", "problem", "unsupported_format"]
