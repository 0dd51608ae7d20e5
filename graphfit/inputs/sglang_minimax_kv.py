"""A MiniMax-M3 target's sparse KV pool shape, read from its local config.json for the plan's
per-token price (graphfit.planner.engines.sglang_minimax_kv).

The target's config is read as SGLang's ModelConfig reads it (`--json-model-override-args`
applied, model_config.py:612-626; the VL wrapper's `text_config`, :636): the layer count, the
total KV heads (`num_key_value_heads`), head_dim (else hidden_size // num_attention_heads,
:1341-1350), and the sparse config's `sparse_index_dim`, `sparse_attention_freq` and
`sparse_disable_index_value` (configs/model_config.py:446-471; the text config's, else the top
level's). With it, three facts of the line the price depends on: the quantization as the model
hook resolves it (graphfit.inputs.sglang_minimax_moe.quantization: minimax_m3_nvfp4 picks the
packed pool on Blackwell), SGLANG_DISABLE_M3_FP8_ATTN_GEMM from the pasted line's environment
(server_args.py:592-610) and `--hisparse-config`'s host_to_device_ratio (default 2,
mem_cache/sparsity/factory.py:62-81; 0 where the JSON does not parse or the ratio is not an
integer: the plan then shows no price under --enable-hisparse), what the target's quantization
class says to `auto` KV (`kv_quant`, issue 23 s55n) and whether --page-size was given (the
MiniMax hook's page applies to an unset page only, minimax_m3.py:162-168). Nothing for a hub id (not
downloaded), another architecture, or a config without a readable sparse config: SGLang's cell
size then raises (`get_minimax_sparse_attention_config`, :446-457) or the model class refuses
first (graphfit.inputs.sglang_minimax_target); graphfit shows no price there.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from graphfit.inputs.model_config import local_config
from graphfit.inputs.settings import FILE, Setting
from graphfit.inputs.sglang_draft import overridden, override_args
from graphfit.inputs.sglang_dspark_env import flag, line_environ
from graphfit.inputs.sglang_minimax_moe import quantization
from graphfit.inputs.sglang_minimax_quant import checkpoint_quant
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines.sglang_minimax_kv import (
    AUTO_KV,
    DENSE,
    DRAFT,
    EAGLE,
    K_ONLY,
    KV_FP8,
    KV_MODEL,
    KV_UNREAD,
    SPARSE,
)

ARCHS = ("MiniMaxM3SparseForCausalLM", "MiniMaxM3SparseForConditionalGeneration")
KILL_SWITCH = "SGLANG_DISABLE_M3_FP8_ATTN_GEMM"  # EnvBool, off (server_args.py:606-610)


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 \
        else None


def hisparse_ratio(raw: Any) -> int:
    """`_parse_sparse_config`'s host_to_device_ratio (factory.py:71-81): the JSON's, default
    2; 0 where graphfit cannot read it as an integer."""
    if raw is None:
        return 2
    try:
        parsed = json.loads(str(raw))
    except ValueError:
        return 0
    ratio = parsed.get("host_to_device_ratio", 2) if isinstance(parsed, dict) else None
    return ratio if isinstance(ratio, int) and not isinstance(ratio, bool) and ratio > 0 else 0


def kv_quant(quant: str | None, data: Mapping[str, Any],
             hf_quant: Mapping[str, Any] | None = None) -> int:
    """The `kv_cache_quant_algo` of the quantization config class SGLang builds for the
    target, as `configure_kv_cache_dtype` reads it for `auto` KV (kv_cache_dtype.py:49-59):
    minimax_m3_nvfp4's class always passes "FP8" (minimax_m3_nvfp4.py:41-45, 56-63); fp8 /
    mxfp8's Fp8Config takes the checkpoint config's `kv_cache_quant_algo` (fp8.py:346-386;
    `quant_cls()` with no checkpoint config, weight_utils.py:344-351: None);
    compressed-tensors' comes from its `kv_cache_scheme` (`_ct_kv`); ModelOpt's classes
    read a flat config.json dict (`_modelopt_kv`, issue 23 s60m; also under fp8 / mxfp8 /
    w4afp8, s61m); with no config.json config, `hf_quant`, the directory's nested
    hf_quant_config.json (`_nested_kv`, issue 23 s62m). Other classes are KV_UNREAD: the
    planner's checkpoint_quant_config decides."""
    if quant == "minimax_m3_nvfp4":
        return KV_FP8
    config = checkpoint_quant(data)
    if not isinstance(data.get("quantization_config"), dict) \
            and data.get("compression_config") is None and hf_quant is not None:
        # ModelConfig parses the class from the file (model_config.py:1814-1822); the loader
        # reads a text_config's quantization_config first (checkpoint_quantization.py:55-73)
        return _nested_kv(quant, hf_quant) if config is None \
            else _text_config_kv(quant, config, hf_quant)
    if quant == "compressed-tensors":
        return _ct_kv(config)
    if quant in MODELOPT or (quant in ("fp8", "mxfp8", "w4afp8") and config is not None
                             and config.get("quant_method") == "modelopt"):
        return _modelopt_kv(quant, config, hf_quant)
    if quant not in ("fp8", "mxfp8"):
        return KV_UNREAD
    algo = None if config is None else config.get("kv_cache_quant_algo")
    return KV_FP8 if isinstance(algo, str) and algo.upper() == "FP8" else KV_MODEL


MODELOPT = ("modelopt", "modelopt_fp8", "modelopt_fp4", "modelopt_mixed")
MODELOPT_FP4_ALGOS = ("NVFP4", "NVFP4_AWQ", "W4A16_NVFP4")  # modelopt_quant.py:1672-1678


def modelopt_class(config: Mapping[str, Any]) -> str | None:
    """The quantization ModelConfig names for a flat ModelOpt `quantization_config`
    (`_parse_modelopt_quant_config`, configs/model_config.py:1838-1869, run by
    `_parse_quant_hf_config`, :1727-1740): MIXED_PRECISION with an NVFP4 / W4A16_NVFP4 layer
    is modelopt_mixed (without one, w4afp8), an algo naming FP4 modelopt_fp4, FP8
    modelopt_fp8, MXFP8 mxfp8 (:1870-1895, issue 23 s61m); None for none."""
    algo = config.get("quant_algo")
    if not isinstance(algo, str):
        return None
    if algo == "MIXED_PRECISION":
        layers = config.get("quantized_layers") or {}
        nvfp4 = isinstance(layers, Mapping) and any(
            isinstance(info, Mapping)
            and str(info.get("quant_algo", "")).upper() in ("NVFP4", "W4A16_NVFP4")
            for info in layers.values())
        return "modelopt_mixed" if nvfp4 else "w4afp8"
    if "FP4" in algo:
        return "modelopt_fp4"
    return {"FP8": "modelopt_fp8", "MXFP8": "mxfp8"}.get(algo)


def _modelopt_kv(quant: str | None, config: Mapping[str, Any] | None,
                 hf_quant: Mapping[str, Any] | None = None) -> int:
    """A ModelOpt class's `kv_cache_quant_algo` from a flat config.json dict (quant_method
    "modelopt"), of the class the checkpoint parses to (`modelopt_class`): ModelOpt's
    `override_quantization_method` (layers/quantization/base_config.py:223-254, run for the
    line's --quantization at configs/model_config.py:2090-2103) makes any ModelOpt flag the
    parsed modelopt_fp8 / modelopt_fp4 (so do `fp8` / `mxfp8` / `w4afp8`, classes with no
    override of their own); a mixed checkpoint is modelopt_mixed under any ModelOpt flag too (its
    class's override names it whatever the flag, modelopt_quant.py:830-835; issue 23 s61m);
    an MXFP8 checkpoint is mxfp8 with no flag, `modelopt` or `mxfp8`
    (`canonicalize_modelopt_quant_algo`, layers/modelopt_utils.py:23-45; another flag is
    refused by the compatibility check, model_config.py:2042-2055, 2104-2148):
    - modelopt_fp8 (`ModelOptFp8Config.from_config`, modelopt_quant.py:466-522): a
      `kv_cache_scheme` dict of type float, 8 bits is FP8 (another dict: none); with no dict,
      `kv_cache_quant_algo`;
    - modelopt_fp4 (`ModelOptFp4Config.from_config`, :1595-1640): a scheme dict of float, 8
      bits is FP8; a scheme string FP8 / FLOAT8 (stripped, upper-cased) is FP8; else
      `kv_cache_quant_algo`; its quant_algo must be one the class takes (:1672-1678);
    - modelopt_mixed (`ModelOptMixedPrecisionConfig.from_config`, :850-878): a scheme dict
      of float, 8 bits is FP8; else `kv_cache_quant_algo`; a dict lacking
      `quantized_layers` or both KV keys is read from hf_quant_config.json instead
      (model_loader/weight_utils.py:283-296): `hf_quant`'s nested section
      (`_file_mixed_kv`, issue 23 s62m), else not restated;
    - mxfp8 (Fp8Config.from_config, fp8.py:346-386, on the dict ModelConfig parsed,
      model_config.py:1870-1895): `kv_cache_quant_algo`, else FP8 for a scheme dict of
      float, 8 bits;
    - w4afp8 (MIXED_PRECISION without an NVFP4 layer, model_config.py:1855-1865): W4AFp8Config
      keeps no KV algo (w4afp8.py:78-91), so the model dtype whatever the dict names.
    KV_FP8 where that is "FP8" upper-cased (kv_cache_dtype.py:49-59), KV_MODEL otherwise,
    KV_UNREAD for what is not restated (a nested hf_quant_config.json, another class)."""
    if config is None or config.get("quant_method") != "modelopt":
        return KV_UNREAD
    picked = modelopt_class(config)
    if picked is None or (picked == "mxfp8" and quant not in (None, "modelopt", "mxfp8")):
        return KV_UNREAD
    if picked == "w4afp8":
        return KV_MODEL
    scheme, algo = config.get("kv_cache_scheme"), config.get("kv_cache_quant_algo")
    if picked == "mxfp8":
        fp8 = isinstance(scheme, dict) and scheme.get("type") == "float" \
            and scheme.get("num_bits") == 8
        algo = ("FP8" if fp8 else None) if algo is None else algo
        return KV_FP8 if isinstance(algo, str) and algo.upper() == "FP8" else KV_MODEL
    if picked == "modelopt_fp4" and config.get("quant_algo") not in MODELOPT_FP4_ALGOS:
        return KV_UNREAD
    if picked == "modelopt_mixed" and ("quantized_layers" not in config or (
            "kv_cache_quant_algo" not in config and "kv_cache_scheme" not in config)):
        return KV_UNREAD if hf_quant is None else _file_mixed_kv(hf_quant)
    if isinstance(scheme, dict):
        fp8 = scheme.get("type") == "float" and scheme.get("num_bits") == 8
        return KV_FP8 if fp8 else KV_MODEL
    if picked == "modelopt_fp4" and isinstance(scheme, str):
        return KV_FP8 if scheme.strip().upper() in ("FP8", "FLOAT8") else KV_MODEL
    return KV_FP8 if isinstance(algo, str) and algo.upper() == "FP8" else KV_MODEL


def _nested_kv(quant: str | None, file: Mapping[str, Any]) -> int:
    """The ModelOpt class's `kv_cache_quant_algo` where config.json has no quantization
    config and the directory's hf_quant_config.json is nested (`{"quantization": {...}}`):
    ModelConfig parses the class only from it (`_parse_quant_hf_config`,
    configs/model_config.py:1814-1822, 1838-1869; a flag resolved as for a flat config,
    `_modelopt_kv`), and the loader, finding no config.json config, reads the file per class
    (model_loader/weight_utils.py:281-283, 343-437):
    - mxfp8 and w4afp8 name no config file (fp8.py:342-343, w4afp8.py:74-75): the loader builds
      `Fp8Config(use_mxfp8=True)` / `W4AFp8Config()` (weight_utils.py:346-350, 375), no KV
      algo, so the model dtype;
    - modelopt_fp8 / modelopt_fp4 / modelopt_mixed read the file's `quantization` section's
      `kv_cache_quant_algo` only (a `kv_cache_scheme` there is not read; nested branches of
      `from_config`, modelopt_quant.py:494-500, 1657-1664, 874-879).
    KV_FP8 where it is "FP8" upper-cased (kv_cache_dtype.py:49-59), else KV_MODEL; KV_UNREAD
    for a flat file, a doubly nested one, or an algorithm the class refuses
    (modelopt_quant.py:510-515, 885, 1673-1679)."""
    section = file.get("quantization")
    if section is None:
        return _flat_file_kv(quant, file)
    if not isinstance(section, dict) or "quant_algo" in file or "quant_method" in file:
        return KV_UNREAD
    if isinstance(section.get("quantization"), dict):
        # doubly nested: ModelConfig parses the inner section's class (unwrap,
        # model_config.py:116-121); mxfp8 / w4afp8 read no file (the model dtype), the ModelOpt
        # classes find no quant_algo in the loader's section and SGLang refuses
        # (weight_utils.py:251-265, 412-421; modelopt_quant.py:502-509)
        picked = modelopt_class(section["quantization"])
        mx_ok = picked != "mxfp8" or quant in (None, "modelopt", "mxfp8")
        return KV_MODEL if picked in ("mxfp8", "w4afp8") and mx_ok else KV_UNREAD
    picked = modelopt_class(section)
    if picked is None or (picked == "mxfp8" and quant not in (None, "modelopt", "mxfp8")):
        return KV_UNREAD
    if picked in ("mxfp8", "w4afp8"):
        return KV_MODEL
    if picked == "modelopt_fp4" and section.get("quant_algo") not in MODELOPT_FP4_ALGOS:
        return KV_UNREAD
    algo = section.get("kv_cache_quant_algo")
    return KV_FP8 if isinstance(algo, str) and algo.upper() == "FP8" else KV_MODEL


def _flat_file_kv(quant: str | None, file: Mapping[str, Any]) -> int:
    """A flat hf_quant_config.json (`{"quant_algo": ..., ...}` at its top, no `quantization`
    section) beside a config.json with no quantization config: ModelConfig parses the class
    from it (unwrap_modelopt_quantization_config, model_config.py:116-121, 1838-1895), the
    loader hands the whole file to the class (`_modelopt_quant_section`, weight_utils.py:251-265,
    396-437), whose flat branch reads it as a config.json dict (`_modelopt_kv`:
    modelopt_quant.py:478-492, 1618-1652, 857-876; an NVFP4 group_size defaults to 16,
    :1654-1656); mxfp8 / w4afp8 read no file (model dtype, as `_nested_kv`); a mixed file with
    neither KV key keeps None (model dtype). KV_UNREAD for a file naming another quant_method
    (ModelOptFp4Config's fp8 online path, :1600-1605)."""
    if file.get("quant_method", "modelopt") != "modelopt":
        return KV_UNREAD
    flat = {**file, "quant_method": "modelopt"}
    picked = modelopt_class(flat)
    if picked is None or (picked == "mxfp8" and quant not in (None, "modelopt", "mxfp8")):
        return KV_UNREAD
    if picked in ("mxfp8", "w4afp8") or (picked == "modelopt_mixed" and not (
            "kv_cache_quant_algo" in flat or "kv_cache_scheme" in flat)):
        return KV_MODEL
    return _modelopt_kv(quant, flat)


def _text_config_kv(quant: str | None, config: Mapping[str, Any],
                    file: Mapping[str, Any]) -> int:
    """A VL wrapper whose ModelOpt config sits in its text_config only, with an
    hf_quant_config.json beside it: ModelConfig reads no top-level config and parses the class
    from the file (model_config.py:1727-1745, 1814-1822; nested, flat or doubly nested,
    :116-121), while the loader hands that class the text_config's dict
    (`resolve_checkpoint_quant_spec`, model_loader/checkpoint_quantization.py:55-73;
    weight_utils.py:281-312), read as a flat config.json dict (`_modelopt_kv`). mxfp8's
    Fp8Config reads the dict's `kv_cache_quant_algo` only (fp8.py:346-386: ModelConfig's
    parse, which turns a scheme dict into that key, was never applied to it). KV_UNREAD where
    the file's class and the dict's differ (SGLang's class then refuses the dict, graphfit's
    quantization rules too) or the dict is no ModelOpt one."""
    section = file.get("quantization", file)
    inner = section.get("quantization") if isinstance(section, Mapping) else None
    section = inner if isinstance(inner, Mapping) else section
    picked = modelopt_class(section) if isinstance(section, Mapping) else None
    if picked is None or config.get("quant_method") != "modelopt" \
            or modelopt_class(config) != picked:
        return KV_UNREAD
    if picked == "mxfp8":
        if quant not in (None, "modelopt", "mxfp8"):
            return KV_UNREAD
        algo = config.get("kv_cache_quant_algo")
        return KV_FP8 if isinstance(algo, str) and algo.upper() == "FP8" else KV_MODEL
    return _modelopt_kv(quant, config, file)


def _file_mixed_kv(file: Mapping[str, Any]) -> int:
    """An incomplete flat modelopt_mixed config's KV from the nested hf_quant_config.json the
    loader reads instead (model_loader/weight_utils.py:283-298, 396-437): with a ModelOpt
    producer, a section of quant_algo FP8 builds ModelOptFp8Config, an FP4 one
    ModelOptFp4Config (it needs a group_size, modelopt_quant.py:1562-1592), any other the
    mixed class; without one the mixed class (MIXED_PRECISION only, :885). Each nested reader
    takes `kv_cache_quant_algo` only (`_nested_kv`); KV_UNREAD for what is not read so."""
    section = file.get("quantization")
    if not isinstance(section, dict) or "quant_algo" in file or "quant_method" in file:
        return KV_UNREAD
    producer = file.get("producer")
    modelopt = isinstance(producer, dict) and str(producer.get("name", "")).startswith(
        "modelopt")
    algo = section.get("quant_algo")
    grouped = isinstance(section.get("group_size"), int) or isinstance(file.get("group_size"),
                                                                      int)
    if not (algo == "MIXED_PRECISION" or (modelopt and (
            algo == "FP8" or (algo in MODELOPT_FP4_ALGOS and grouped)))):
        return KV_UNREAD
    kv = section.get("kv_cache_quant_algo")
    return KV_FP8 if isinstance(kv, str) and kv.upper() == "FP8" else KV_MODEL


def hf_quant_file(model: Any) -> dict[str, Any] | None:
    """A local model directory's hf_quant_config.json object (model_config.py:1814-1818), None
    where the model is no directory, has none, or has a ModelSlim description (that config
    wins, :1824-1836; not read here); one that does not parse is another reader's refusal
    (graphfit.inputs.sglang_quant_files), so None here too."""
    from pathlib import Path

    from graphfit.inputs.reading import load_json
    from graphfit.inputs.sglang_quant_files import HF_QUANT, MODELSLIM

    if not isinstance(model, str):
        return None
    folder = Path(model).expanduser()
    if not folder.is_dir() or not (folder / HF_QUANT).is_file() \
            or (folder / MODELSLIM).exists():
        return None
    try:
        data = load_json(folder / HF_QUANT, "ModelOpt quant config")
    except ConfigError:
        return None
    return data if isinstance(data, dict) else None


def _ct_kv(config: Mapping[str, Any] | None) -> int:
    """compressed-tensors' duck-typed `kv_cache_quant_algo` (compressed_tensors.py:143-151):
    "FP8" for a `kv_cache_scheme` that `is_supported_scheme` takes (static symmetric
    per-tensor 8-bit float, :1276-1285), else None; a scheme that is not a mapping is not
    restated (KV_UNREAD)."""
    scheme = None if config is None else config.get("kv_cache_scheme")
    if scheme is None:
        return KV_MODEL
    if not isinstance(scheme, Mapping):
        return KV_UNREAD
    supported = (scheme.get("type") == "float" and scheme.get("num_bits") == 8
                 and scheme.get("strategy") == "tensor" and bool(scheme.get("symmetric", True))
                 and not scheme.get("dynamic", False))
    return KV_FP8 if supported else KV_MODEL


def shape_of(data: Mapping[str, Any], nvfp4: bool = False, fp8_gemm_off: bool = False,
             ratio: int = 2, kv: int = KV_UNREAD, page_given: bool = False
             ) -> tuple[int, ...] | None:
    """The option's flat form (MiniMaxSparseKv.fields) for a MiniMax-M3 config, or None."""
    names = data.get("architectures")
    if not (isinstance(names, list) and names and names[0] in ARCHS):
        return None
    text = data.get("text_config") if names[0] == ARCHS[1] else data
    if not isinstance(text, Mapping):
        return None
    sparse = text.get("sparse_attention_config")
    if sparse is None:  # get_minimax_sparse_attention_config's fallback (:446-457)
        sparse = data.get("sparse_attention_config")
    if not isinstance(sparse, Mapping):
        return None
    freq, off = sparse.get("sparse_attention_freq"), sparse.get("sparse_disable_index_value")
    layers, heads_kv, index = (_positive(text.get("num_hidden_layers")),
                         _positive(text.get("num_key_value_heads")),
                         _positive(sparse.get("sparse_index_dim")))
    heads, hidden = _positive(text.get("num_attention_heads")), text.get("hidden_size")
    head_dim = text.get("head_dim")
    if head_dim is None and heads is not None and isinstance(hidden, int):
        head_dim = hidden // heads
    head_dim = _positive(head_dim)
    if not isinstance(freq, list) or layers is None or heads_kv is None or index is None \
            or head_dim is None or (off is not None and not isinstance(off, list)):
        return None
    flags = off or []
    codes = tuple(DENSE if f == 0 else K_ONLY if i < len(flags) and flags[i] != 0 else SPARSE
                  for i, f in enumerate(freq))
    return (layers, heads_kv, head_dim, index, int(nvfp4), int(fp8_gemm_off), ratio, kv,
            int(page_given), *codes)


def settings(values: Mapping[str, Any]) -> list[Setting]:
    """`minimax_sparse_kv` for a local MiniMax-M3 target (module docstring)."""
    model = values.get("model_path")
    data = local_config(str(model)) if isinstance(model, str) else None
    if data is None or values.get("encoder_only") is True:
        # an encoder-only server (launch_server.py:32-45) builds ModelConfig and the vision
        # tower only (disaggregation/encoder/server.py:563-623; minimax_m3_vl.py:128-135):
        # no KV pool, so no price and no sparse config read (issue 23 s55n)
        return []
    overrides = override_args(values.get("json_model_override_args"))
    data = overridden(data, overrides) if overrides else data
    quant = quantization(values, data)
    shape = shape_of(data, quant == "minimax_m3_nvfp4", flag(line_environ(), KILL_SWITCH, False),
                     hisparse_ratio(values.get("hisparse_config")),
                     kv_quant(quant, data, hf_quant_file(model)),
                     values.get("page_size") is not None)
    if shape is not None:
        shape += draft_shape(values) + eagle_shape(values, data)
    return [] if shape is None else [
        Setting("minimax_sparse_kv", shape, f"{model}: the MiniMax-M3 sparse KV pool's shape",
                FILE, weak=True)]


DRAFT_KV_BYTES = {"fp8_e4m3": 1, "fp8_e5m2": 1, "bf16": 2, "bfloat16": 2, "auto": AUTO_KV}


def draft_shape(values: Mapping[str, Any]) -> tuple[int, ...]:
    """For a DFLASH / DSPARK line with a local draft: DRAFT, then the draft's KV shape as
    SGLang's draft ModelConfig reads it (graphfit.planner.engines.sglang_minimax_kv.DraftKv:
    num_hidden_layers, num_key_value_heads (else the attention heads), head_dim (else
    hidden_size // heads), v_head_dim (else head_dim), model_config.py:1341-1355,
    1630-1700; the text config where the draft nests one; a MiniMax M3.1 draft as SGLang
    rewrites it for DSPARK, graphfit.inputs.sglang_dspark_minimax) and
    --speculative-draft-kv-cache-dtype (0: not given, its bytes, AUTO_KV: auto), DFLASH (1)
    or DSPARK (0), and whether a DFLASH draft keeps trtllm_mha (every layer sliding or is_causal,
    speculative_hook.py:942-962, dflash_utils.py:388-397). Empty where the
    draft is not read (a hub id, a field missing): the price then shows the target's only
    (issue 23 s55d)."""
    from graphfit.inputs import sglang_dspark, sglang_dspark_minimax
    from graphfit.inputs.model_config import config_path

    algorithm = str(values.get("speculative_algorithm") or "").upper()
    if algorithm not in ("DFLASH", "DSPARK"):
        return ()
    draft = values.get("speculative_draft_model_path")
    path = config_path(str(draft)) if draft else None
    if path is None:
        return ()
    try:
        data = sglang_dspark._draft_config(path, values)
        if algorithm == "DSPARK" and sglang_dspark_minimax.is_minimax(data):
            data = sglang_dspark_minimax.configured(data)
    except (ConfigError, sglang_dspark_minimax.RewriteError):
        return ()  # the draft's own refusal is raised by its readers
    nested = data.get("text_config")
    text = nested if isinstance(nested, Mapping) else data
    heads = _positive(text.get("num_attention_heads"))
    kv = _positive(text.get("num_key_value_heads")) or heads
    head_dim = text.get("head_dim")
    if head_dim is None and heads is not None and isinstance(text.get("hidden_size"), int):
        head_dim = text["hidden_size"] // heads
    head_dim = _positive(head_dim)
    v_dim = _positive(text.get("v_head_dim")) or head_dim
    layers = _positive(text.get("num_hidden_layers"))
    if layers is None or kv is None or head_dim is None or v_dim is None:
        return ()
    given = str(values.get("speculative_draft_kv_cache_dtype"))
    kinds = text.get("layer_types", data.get("layer_types"))  # get_dflash_layer_types
    sliding = isinstance(kinds, list) and bool(kinds) and len(kinds) == layers \
        and set(kinds) == {"sliding_attention"}
    keeps = sliding or text.get("is_causal") is True  # speculative_hook.py:942-962
    return (DRAFT, layers, kv, head_dim, v_dim, DRAFT_KV_BYTES.get(given, 0),
            int(algorithm == "DFLASH"), int(keeps))


# the speculative algorithms SGLang's configurator treats as EAGLE-family on the target
# (`is_eagle` / `is_standalone`, speculative/spec_info.py:105-130; NEXTN is EAGLE's reserved
# alias, spec_registry.py:183, spec_info.py:60-61)
EAGLE_ALGORITHMS = ("EAGLE", "EAGLE3", "FROZEN_KV_MTP", "STANDALONE", "NEXTN")
# draft architectures the draft ModelConfig neither rewrites (model_config.py:1036-1211) nor
# counts attention layers of otherwise (:1581-1601): their KV layers read as written
PLAIN_DRAFTS = ("LlamaForCausalLMEagle", "LlamaForCausalLMEagle3", "LlamaForCausalLM",
                "Qwen2ForCausalLM", "Qwen3ForCausalLM")


def eagle_shape(values: Mapping[str, Any], target: Mapping[str, Any]) -> tuple[int, ...]:
    """For an EAGLE-family line: EAGLE, then the draft's KV layer count as
    `_resolve_eagle_aux_hidden_state` reads it (spec_aux_hidden_state.py:121-176, issue 23
    s63m): with a draft path, the draft ModelConfig's (the line's override args applied,
    model_config.py:612-626) `num_nextn_predict_layers`, else max(num_hidden_layers,
    num_attention_layers) -- the text config's where the draft nests one; 0 (not read) for a
    hub id or an architecture outside PLAIN_DRAFTS. Path-less, the target's own
    `num_nextn_predict_layers` (none: SGLang adds nothing, so nothing here either). Empty for
    another algorithm."""
    if str(values.get("speculative_algorithm") or "").upper() not in EAGLE_ALGORITHMS:
        return ()
    draft = values.get("speculative_draft_model_path")
    if not draft:
        text = target.get("text_config")
        nextn = (text if isinstance(text, Mapping) else target).get("num_nextn_predict_layers")
        return () if nextn is None or (nextn == 0 and type(nextn) is int) \
            else (EAGLE, _positive(nextn) or 0)
    data = local_config(str(draft))
    names = None if data is None else data.get("architectures")
    if data is None or not (isinstance(names, list) and names and names[0] in PLAIN_DRAFTS):
        return (EAGLE, 0)
    overrides = override_args(values.get("json_model_override_args"))
    data = overridden(data, overrides) if overrides else data
    nested = data.get("text_config")
    text = nested if isinstance(nested, Mapping) else data
    nextn = text.get("num_nextn_predict_layers")
    if nextn == 0 and type(nextn) is int:
        return ()  # no draft layers: SGLang adds nothing (pool_configurator.py:269-271)
    layers = _positive(nextn) if nextn is not None else _positive(text.get("num_hidden_layers"))
    return (EAGLE, layers or 0)


__all__ = ["draft_shape", "eagle_shape", "kv_quant", "settings", "shape_of"]
