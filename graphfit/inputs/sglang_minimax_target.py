"""A MiniMax-M3 TARGET model SGLang 0.5.23 cannot build: the checks of its decoder layers'
constructors (models/minimax_m3.py), restated so a line SGLang would never start is refused
with SGLang's reason instead of planned.

Both target classes build every decoder layer with them: `MiniMaxM3SparseForCausalLM` ->
`MiniMaxM3Model` (minimax_m3.py:2000, 1866-1879) -> `MiniMaxM3DecoderLayer` (:1698-1741), and
the VL wrapper `MiniMaxM3SparseForConditionalGeneration` the same `MiniMaxM3Model` on
`config.text_config` (models/minimax_m3_vl.py:137-142; with `--encoder-only` it builds no text
model, :129-135). Layer by layer, in SGLang's order:

- the decoder layer reads `sparse_attention_config["sparse_attention_freq"]` (KeyError without
  it, :1704 -> configs/model_config.py:461); a non-zero entry makes the layer sparse;
- `MiniMaxM3Attention`: attention heads divisible by the attention TP size (:750); KV heads
  divisible by it, or dividing it when fewer (:754-761); on a sparse layer `qk_norm_type` must
  be per_head (:779-783), the index keys present (:785-786) and the index heads shard the same
  way (:788-792); then the QK norm: the per_layer default (:776; no HF config class defines
  it) at attention TP > 1 calls `MiniMaxM2RMSNormTP` without its required `num_heads`
  (:858-865, models/minimax_m2.py:291, TypeError), a name outside per_layer / per_head /
  multi_head raises ValueError (:909);
- with a block-FP8 checkpoint, the qkv / o projections' block checks, then a sparse layer's
  index projections' (graphfit.inputs.sglang_minimax_quant, minimax_m3.py:801-853);
- the layer's MLP, dense or MoE: graphfit.inputs.sglang_minimax_moe (which also holds the
  loader's shared-expert fusion check that precedes every layer).

The VL wrapper builds its vision tower first (graphfit.inputs.sglang_minimax_vision), after
the fusion check and before the text layers, `--encoder-only` included.

The attention TP size is `tp // attn_dp // attn_cp` (runtime_context.py:73-76), so the same
per_layer model starts at TP 2 with attention DP 2 and fails at TP 4 with attention DP 2.

Not restated: the VL wrapper's `text_hidden_size is required` (minimax_m3_vl.py:109-110) is
unreachable on a server start under transformers 5.19.0 (the version SGLang 0.5.23's wheel
pins) as under 5.25: ModelConfig turns a dict `text_config` into a config object first
(model_config.py:636, utils/hf_transformers/common.py:566-572) and a text config without
hidden_size fails there earlier (model_config.py:1566). Attention heads absent from the
config are not checked for absence.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs import sglang_sub_configs
from graphfit.inputs.model_config import local_config
from graphfit.inputs.sglang_beam_build import count
from graphfit.inputs.sglang_draft import overridden, override_args
from graphfit.inputs.sglang_dspark_env import flag, line_environ
from graphfit.inputs.sglang_dtype import sglang_dtype
from graphfit.inputs.sglang_minimax_moe import (
    MoeLayout,
    build_layout,
    effective_runner,
    fusion_disabled,
    fusion_problem,
    layer_problem,
    pplx_problem,
    quantization,
)
from graphfit.inputs.sglang_minimax_quant import (
    Blocks,
    attention_problem,
    blocks,
    fp4_attention_problem,
    fp4_linear,
    index_problem,
    nvfp4_config_problem,
)
from graphfit.inputs.sglang_minimax_vision import TowerLayout, tower_problem
from graphfit.inputs.sglang_minimax_vl_layers import written_failure
from graphfit.inputs.sglang_spec_dp import attention_dp_size, size_or_one
from graphfit.inputs.values import normalize_key
from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.engines.sglang_arch_overrides import minimax_nvfp4_refusals
from graphfit.planner.engines.sglang_eplb_checks import resolved_ep_size

CAUSAL = "MiniMaxM3SparseForCausalLM"  # minimax_m3.py:2274
VL = "MiniMaxM3SparseForConditionalGeneration"  # minimax_m3_vl.py:68
QK_NORMS = ("per_layer", "per_head", "multi_head")  # minimax_m3.py:858-909
JIT = "SGLANG_ENABLE_JIT_DEEPGEMM"  # EnvBool, default on (environ.py:1348)


def attention_tp(values: Mapping[str, Any]) -> int:
    """`derive_attn_tp_size` (runtime_context.py:73-76): tp // attn_dp // attn_cp."""
    tp = size_or_one(values.get("tp_size") or values.get("tp"))
    return tp // attention_dp_size(values) // size_or_one(values.get("attn_cp_size"))


def problem(data: Mapping[str, Any], attn_tp: int, encoder_only: bool = False,
            moe: MoeLayout | None = None, tower_tp: int | None = None,
            tower: TowerLayout | None = None) -> str | None:
    """Why SGLang's MiniMax-M3 target class fails to build on this config.json (module
    docstring), as one line; None when these rules have nothing to say (another architecture,
    an encoder-only VL server, or a model SGLang builds). The loader's shared-expert fusion
    comes first (before any layer, encoder-only included); then layers are walked in SGLang's
    order (each decoder layer's attention, then its MLP), so the first failure is SGLang's.
    The VL wrapper builds its vision tower (graphfit.inputs.sglang_minimax_vision) between
    the two, on `tower_tp` ranks (default: the attention TP size). `moe` defaults to TP =
    attention TP with no expert parallelism."""
    names = data.get("architectures")
    arch = names[0] if isinstance(names, list) and names else None
    if arch not in (CAUSAL, VL):
        return None
    text = data.get("text_config") if arch == VL else data
    if not isinstance(text, dict):
        return None  # the wrapper's own config problems are not this rule's
    moe = moe or build_layout(attn_tp, 1, 1, "none", 0, False, None)
    # the loader builds the quantization config before the model class (loader.py:286-298)
    said = nvfp4_config_problem(moe.quant, data) or fusion_problem(text, moe, arch == VL)
    if said is None and arch == VL:
        said = tower_problem(data, text, attn_tp if tower_tp is None else tower_tp, tower)
        if said is None and encoder_only:
            return None
    count = text.get("num_hidden_layers")
    for layer in range(count if isinstance(count, int) and count > 0 else 1):
        if said is not None:
            break
        said = _layer(text, layer, attn_tp, arch == VL, moe)
    if said is None:
        pool = pool_problem(data, text)
        return None if pool is None else f"SGLang cannot build {arch}'s KV pool: {pool}"
    where = f" at attention TP {attn_tp}" if said.startswith("@") else ""
    return f"SGLang cannot build {arch}{where}: {said.lstrip('@')}"


def pool_problem(data: Mapping[str, Any], text: Mapping[str, Any]) -> str | None:
    """SGLang's refusal of a MiniMax-M3 config with no sparse config (s53m): once the model
    class is built, the server sizes its KV pool, and the cell size of a MiniMax-M3 target
    (`is_minimax_sparse`: its first architecture, configs/model_config.py:426-431) asks
    `get_minimax_sparse_attention_config` (model_executor/pool_configurator.py:410-415),
    which takes the text config's `sparse_attention_config`, else the top level's, and raises
    where both are absent or null (configs/model_config.py:446-456). The model class itself
    builds without one (minimax_m3.py:1702-1704 reads it with a None default: every layer
    dense), so this comes after every layer's checks. Not reached by an encoder-only VL
    server (`problem` returns before the text layers)."""
    if text.get("sparse_attention_config") is not None \
            or data.get("sparse_attention_config") is not None:
        return None
    return ("Could not find sparse config. Is it MiniMax M3 Sparse model? (ValueError, "
            "configs/model_config.py:456)")


def _layer(text: Mapping[str, Any], layer: int, attn_tp: int, nested: bool,
           moe: MoeLayout) -> str | None:
    """One `MiniMaxM3DecoderLayer` (minimax_m3.py:1698-1741): its sparse-layer pick, its
    attention's checks, then its dense MLP's. A leading "@" marks a reason that depends on
    the attention TP size."""
    sparse = text.get("sparse_attention_config")
    is_sparse = False
    if isinstance(sparse, dict):
        freq = sparse.get("sparse_attention_freq")
        if freq is None:  # get_minimax_sparse_layer_ids reads it unconditionally
            return ("sparse_attention_config has no 'sparse_attention_freq' (KeyError, "
                    "models/minimax_m3.py:1704, configs/model_config.py:461)")
        is_sparse = isinstance(freq, list) and layer < len(freq) and freq[layer] != 0
    value_off = is_sparse and isinstance(sparse, dict) and _value_off(sparse, layer)
    return (_attention(text, sparse if is_sparse else None, attn_tp, moe.blocks, value_off,
                       moe.fp4)
            or layer_problem(text, layer, nested, moe))


def _value_off(sparse: Mapping[str, Any], layer: int) -> bool:
    """The layer's `sparse_disable_index_value` entry is non-zero
    (`get_minimax_sparse_disable_value_layer_ids`, configs/model_config.py:467-471, read at
    minimax_m3.py:1706-1709): its index projections carry no value head."""
    flags = sparse.get("sparse_disable_index_value")
    return isinstance(flags, list) and layer < len(flags) and flags[layer] != 0


def _attention(text: Mapping[str, Any], sparse: Mapping[str, Any] | None,
               attn_tp: int, block: Blocks | None = None,
               value_off: bool = False, fp4: bool = False) -> str | None:
    """`MiniMaxM3Attention.__init__` (minimax_m3.py:732-909) in its own order."""
    heads, kv = text.get("num_attention_heads"), text.get("num_key_value_heads")
    if isinstance(heads, int) and heads > 0 and heads % attn_tp:
        return (f"@{excerpt(heads, 12)} attention heads are not divisible by it (AssertionError, "
                f"models/minimax_m3.py:750)")
    if isinstance(kv, int) and kv > 0 and not _shards(kv, attn_tp):
        return (f"@{excerpt(kv, 12)} KV heads do not shard over it (AssertionError, "
                f"models/minimax_m3.py:756-761)")
    norm = text.get("qk_norm_type", "per_layer")  # minimax_m3.py:776
    if sparse is not None:
        if norm != "per_head":
            return (f"sparse attention only supports qk_norm_type='per_head', got "
                    f"{excerpt(norm, 20)} (AssertionError, models/minimax_m3.py:779-783)")
        for key in ("sparse_num_index_heads", "sparse_index_dim"):
            if key not in sparse:
                return (f"sparse_attention_config has no {key!r} (KeyError, "
                        f"models/minimax_m3.py:785-786)")
        idx = sparse["sparse_num_index_heads"]
        if isinstance(idx, int) and idx > 0 and not _shards(idx, attn_tp):
            return (f"@{excerpt(idx, 12)} sparse index heads do not shard over it "
                    f"(AssertionError, models/minimax_m3.py:789-792)")
    said = _quantized(text, heads, kv, attn_tp, block)
    if said is None and sparse is not None and block is not None:
        idx, dim = sparse["sparse_num_index_heads"], sparse["sparse_index_dim"]
        if isinstance(idx, int) and idx > 0 and isinstance(dim, int) and dim > 0:
            said = index_problem(idx, dim, attn_tp, value_off, block)
    if said is None and fp4:
        said = _fp4(text, sparse, attn_tp, value_off)
    if said:
        return said
    if norm not in QK_NORMS:
        return (f"Invalid qk_norm_type: {excerpt(norm, 20)} "
                f"(ValueError, models/minimax_m3.py:909)")
    if norm == "per_layer" and attn_tp > 1:
        return ("@the per_layer QK norm calls MiniMaxM2RMSNormTP without num_heads "
                "(TypeError, models/minimax_m3.py:858-865)")
    return None


def _quantized(text: Mapping[str, Any], heads: Any, kv: Any, attn_tp: int,
               block: Blocks | None) -> str | None:
    """The qkv / o projections' block-FP8 checks (graphfit.inputs.sglang_minimax_quant);
    head_dim defaults to hidden_size // heads (minimax_m3.py:764-766)."""
    hidden = text.get("hidden_size")
    if block is None or not (isinstance(heads, int) and heads > 0 and isinstance(kv, int)
                             and kv > 0):
        return None
    head_dim = text.get("head_dim", hidden // heads if isinstance(hidden, int) else None)
    if not isinstance(head_dim, int):
        return None
    return attention_problem(heads, kv, head_dim, attn_tp, block)


def _fp4(text: Mapping[str, Any], sparse: Mapping[str, Any] | None, attn_tp: int,
         value_off: bool) -> str | None:
    """ModelOpt FP4's per-rank input checks on the attention's projections
    (graphfit.inputs.sglang_minimax_quant.fp4_attention_problem); head_dim defaults to
    hidden_size // heads (minimax_m3.py:764-766)."""
    hidden, heads = text.get("hidden_size"), text.get("num_attention_heads")
    if not (isinstance(hidden, int) and isinstance(heads, int) and heads > 0):
        return None
    head_dim = text.get("head_dim", hidden // heads)
    if not isinstance(head_dim, int):
        return None
    index = None
    if sparse is not None:
        idx, dim = sparse.get("sparse_num_index_heads"), sparse.get("sparse_index_dim")
        if isinstance(idx, int) and idx > 0 and isinstance(dim, int) and dim > 0:
            index = (idx, dim, value_off)
    return fp4_attention_problem(hidden, heads, head_dim, attn_tp, index)


def _shards(heads: int, attn_tp: int) -> bool:
    """SGLang's head-sharding rule: more heads than ranks split evenly, fewer are replicated
    on a whole number of ranks each (minimax_m3.py:754-761, 788-792)."""
    return heads % attn_tp == 0 if heads >= attn_tp else attn_tp % heads == 0


def moe_layout(values: Mapping[str, Any], data: Mapping[str, Any], jit: bool | None = None,
               hip: bool = False) -> MoeLayout:
    """The MoE sizes and settings the line resolves (graphfit.inputs.sglang_minimax_moe):
    the EP size as the a2a backend resolves it (`_a2a_ep_size`, arg_groups/overrides.py:
    1611-1620), `--moe-dp-size`, `--ep-num-redundant-experts`, the fusion switch as the
    runner / a2a backend resolve it, the quantization, the MoE runner backend (after the
    model override and pplx's pick, `effective_runner`), the loader's dtype,
    `--deepep-mode` and the pasted line's SGLANG_ENABLE_JIT_DEEPGEMM (graphfit.inputs.
    sglang_dspark_env.line_environ: none on a config file or a live check, i.e. on), unless
    `jit` is given; `hip`: a named AMD GPU (`settle`); --moe-dense-tp-size (s69n)."""
    tp = size_or_one(values.get("tp_size") or values.get("tp"))
    a2a = str(values.get("moe_a2a_backend") or "none").strip().lower()
    ep = resolved_ep_size(size_or_one(values.get("ep_size")), tp, a2a)
    quant = quantization(values, data)
    runner = effective_runner(str(values.get("moe_runner_backend") or "auto"), quant, a2a)
    fusion_off = fusion_disabled(values.get("disable_shared_experts_fusion") is True, runner,
                                 a2a, values.get("enable_waterfill") is True)
    mode = str(values.get("deepep_mode") or "auto").strip().lower()
    # the pasted line's SGLANG_ENABLE_JIT_DEEPGEMM (EnvBool, default on, environ.py:1348)
    if jit is None:
        jit = flag(line_environ(), JIT, True)
    return build_layout(tp, ep, size_or_one(values.get("moe_dp_size")), a2a,
                        _count(values.get("ep_num_redundant_experts")), fusion_off,
                        quant, blocks(quant, data), runner, mode, jit, fp4_linear(quant, data),
                        sglang_dtype(data, values.get("dtype")), hip,
                        _dense_tp(values.get("moe_dense_tp_size")))


def _dense_tp(value: Any) -> int | None:
    """--moe-dense-tp-size as an int (a config file may write its digits), None where unset
    or not one (its reader refuses a bad value, graphfit.inputs.sglang._dense_tp;
    check_server_args its range)."""
    found = count(value)
    return found if found is not None and found >= 1 else None


def tower_layout(values: Mapping[str, Any], tower_tp: int) -> TowerLayout:
    """The tower's sizes for its TP-reduce refusal: attention DP on (`attn_dp_enabled`) and
    whether this worker forwards the tower (`multimodal_encoder_runs_here`,
    layers/dp_attention.py:516-533: not a language-only server without adaptive dispatch,
    not a language-model-only one, not a PD decode server)."""
    language_only = (values.get("language_only") is True
                     and values.get("enable_adaptive_dispatch_to_encoder") is not True)
    runs_here = not (language_only or values.get("language_model_only") is True
                     or str(values.get("disaggregation_mode") or "") == "decode")
    return TowerLayout(tower_tp, size_or_one(values.get("tp_size") or values.get("tp")),
                       attention_dp_size(values) > 1, runs_here)


def _count(value: Any) -> int:
    """A count as given, 0 where absent or not one (the flag's own reader says why)."""
    try:
        return max(int(value), 0) if value is not None else 0
    except (TypeError, ValueError):
        return 0


def _text_or_none(value: Any) -> str | None:
    return str(value) if value else None


def line(values: Mapping[str, Any], gpu_later: bool = False) -> None:
    """The line's target (`model_path`, local config.json with `--json-model-override-args`
    applied as the target's ModelConfig does, model_config.py:612-626): ConfigError with
    SGLang's reason where its model class cannot be built, judged on a CUDA GPU.
    `gpu_later` (a pasted line, read before graphfit knows the GPU): a line a named AMD GPU
    answers differently (`MoeLayout.hip`: the DeepEP asserts skipped, no shared-expert
    fusion) is left to `settle`, which graphfit.inputs.line_defaults runs with the GPU."""
    jit = flag(line_environ(), JIT, True)
    said = _judged(values, jit, False)
    if said is None or (gpu_later and said != _judged(values, jit, True)):
        return
    if gpu_later and _nvfp4_names(values) is not None:
        return  # the hook's GPU-bound checks come first: `settle_hook`, then `settle`
    raise ConfigError(said)


def nvfp4_target(values: Mapping[str, Any]) -> bool:
    """Whether the line serves a local MiniMax-M3 target as minimax_m3_nvfp4, whose hook's
    GPU-bound checks (minimax_m3.py:68-119) come before any model is built."""
    return _nvfp4_names(values) is not None


def _nvfp4_names(values: Mapping[str, Any]) -> list[Any] | None:
    """The architectures of the line's MiniMax-M3 target served as minimax_m3_nvfp4 (whose
    hook's GPU-bound checks, minimax_m3.py:68-119, come before the model class is built),
    else None."""
    model = values.get("model_path")
    data = local_config(str(model)) if isinstance(model, str) else None
    if data is None:
        return None
    overrides = override_args(values.get("json_model_override_args"))
    data = overridden(data, overrides) if overrides else data
    names = data.get("architectures")
    if isinstance(names, list) and names[:1] in ([CAUSAL], [VL]) and (
            quantization(values, data) == "minimax_m3_nvfp4"):
        return names
    return None


def settle(values: Mapping[str, Any], environ: Mapping[str, str], gpu_given: object) -> None:
    """A pasted line's target judged on the GPU graphfit was given (s52e). On a named AMD
    GPU `_is_hip` skips both DeepEP asserts (layers/moe/ep_moe/layer.py:53, 142, 172; the
    JIT variable is not even read there, layers/deep_gemm_wrapper/configurer.py:32-36) and
    the loader does not fuse shared experts off gfx950 (minimax_m3.py:2040-2041,
    minimax_m3_vl.py:185-186); a GiB figure or an NVIDIA name is CUDA, as everywhere else
    (graphfit.inputs.sglang_rocm_deepgemm). `line` has already raised what both agree on."""
    from graphfit.inputs.gpus import gpu_name
    from graphfit.inputs.sglang_draft_default import ROCM

    said = _judged(values, flag(environ, JIT, True), gpu_name(gpu_given) in ROCM)
    if said is not None:
        raise ConfigError(said)


def settle_file(data: Mapping[Any, Any], gpu_given: object,
                environ: Mapping[str, str] | None = None) -> None:
    """A config file's MiniMax-M3 target judged on the GPU (s53m): the file's keys in SGLang's
    spelling (graphfit.inputs.config_file reads them with `line(keys, gpu_later=True)`),
    the GPU of graphfit's flag, else the file's own `gpu_memory_gb`; a file holds no
    environment, so JIT DeepGEMM is on (`settle`). An NVFP4 target's hook checks come first,
    as on a pasted line (`settle_hook`, issue 23 s57m): the file's `speculative_algorithm`,
    `pp_size`, `disaggregation_mode` and `page_size`, with SGLANG_RAGGED_VERIFY_MODE from
    `environ` (graphfit's own environment, the one the server would inherit; default
    "static", environ.py:1572). Before s57m only the planner's Blackwell check ran here."""
    keys = {normalize_key(k): v for k, v in data.items() if isinstance(k, str)}
    if "model_path" in keys:
        gpu = gpu_given if gpu_given is not None else keys.get("gpu_memory_gb")
        settle_hook(keys, environ or {}, gpu)
        settle(keys, {}, gpu)


def hook_line(values: Mapping[str, Any]) -> None:
    """The NVFP4 hook's refusals that need no GPU (sglang_arch_overrides.
    minimax_nvfp4_refusals), run by graphfit.inputs.sglang_cli.finish before the DSPARK /
    DFLASH draft readers: SGLang's hook runs at argument resolution, before any draft is
    built (issue 23 s53d). A config that does not load is left to `line`."""
    data = _overridden_config(values)
    if data is None or sglang_sub_configs.load_failure(data) is not None:
        return
    _nvfp4_hook(values, data)


def _overridden_config(values: Mapping[str, Any]) -> dict[str, Any] | None:
    """The line's local target config.json under its --json-model-override-args (None: not
    a local model directory)."""
    model = values.get("model_path")
    data = local_config(str(model)) if isinstance(model, str) else None
    if data is None:
        return None
    overrides = override_args(values.get("json_model_override_args"))
    return overridden(data, overrides) if overrides else data


def _nvfp4_hook(values: Mapping[str, Any], data: Mapping[str, Any]) -> None:
    """The NVFP4 override hook's GPU-free refusals on a MiniMax-M3 served as
    minimax_m3_nvfp4: it runs at argument resolution, before the model class is built
    (minimax_m3.py:56-93; issue 23 s51n, s53d)."""
    names = data.get("architectures")
    if isinstance(names, list) and names[:1] in ([CAUSAL], [VL]) and (
            quantization(values, data) == "minimax_m3_nvfp4"):
        page = values.get("page_size")
        minimax_nvfp4_refusals(names[0], _text_or_none(values.get("speculative_algorithm")),
                               page if isinstance(page, int) else None)


def settle_hook(values: Mapping[str, Any], environ: Mapping[str, str],
                gpu_given: object) -> None:
    """A pasted line's MiniMax-M3 NVFP4 target judged as the hook does at argument resolution
    once the GPU and the line's environment are known (issue 23 s53d): a DSPARK / DFLASH line
    (minimax_m3.py:68-93: Blackwell, SGLANG_RAGGED_VERIFY_MODE, environ.py:1572, default
    "static", PP 1, DFLASH colocated, page 128), then on Blackwell the a2a / KV dtype refusals
    (:103-119). A figure in GiB or an AMD name tells no CUDA generation: left to the planner
    (sglang_arch_overrides._minimax_nvfp4), after `settle`'s model class. Run first of
    graphfit.inputs.line_defaults' SGLang settles: SGLang's hook runs at argument resolution,
    before the backend defaults and the model classes."""
    from graphfit.inputs.gpus import gpu_capability
    from graphfit.inputs.sglang_dspark_env import RAGGED
    from graphfit.planner.engines.sglang_arch_overrides import (
        minimax_nvfp4_blackwell_refusals,
        minimax_nvfp4_draft_problem,
    )

    names = _nvfp4_names(values)
    capability = gpu_capability(gpu_given)
    if names is None or capability is None:
        return
    blackwell = capability // 10 in (10, 11, 12)
    page, pp = values.get("page_size"), values.get("pp_size")
    mode = values.get("disaggregation_mode")
    said = minimax_nvfp4_draft_problem(
        _text_or_none(values.get("speculative_algorithm")), blackwell,
        environ.get(RAGGED, "static"), pp if isinstance(pp, int) else 1,
        mode not in (None, "null"), page if isinstance(page, int) else None)
    if said is not None:
        raise ConfigError(f"SGLang refuses this line for {VL}: {said}")
    if blackwell:
        minimax_nvfp4_blackwell_refusals(
            str(names[0]), _lower(values.get("moe_a2a_backend")) or "none",
            _lower(values.get("moe_runner_backend")) or "auto",
            _lower(values.get("kv_cache_dtype")))


def _lower(value: Any) -> str | None:
    return str(value).strip().lower() if value else None


def _judged(values: Mapping[str, Any], jit: bool, hip: bool) -> str | None:
    """SGLang's reason it cannot build the line's MiniMax-M3 target with JIT DeepGEMM `jit`
    on a HIP (`hip`) or CUDA platform, or None (a config SGLang cannot load raises here)."""
    data = _overridden_config(values)
    if data is None:
        return None
    # transformers' layer-list check runs in get_config on the written config (s55n)
    loading = written_failure(values.get("model_path"))
    loading = loading or sglang_sub_configs.load_failure(data)
    if loading is not None:  # ModelConfig's reads come before the model class is built
        raise ConfigError(f"--model-path: {loading}")
    _nvfp4_hook(values, data)
    attn_tp = attention_tp(values)
    if attn_tp < 1:
        return None  # tp below attn_dp x attn_cp: the layout's own check refuses it
    tower_tp = 1 if values.get("mm_enable_dp_encoder") is True else attn_tp
    layout = moe_layout(values, data, jit, hip)
    # pplx's runner assert comes after its mode and attention-DP ones (moe_hook.py:576-600),
    # which graphfit.planner.engines.sglang_moe_a2a.check_dispatch restates
    names = data.get("architectures")
    minimax = isinstance(names, list) and names[:1] in ([CAUSAL], [VL])
    if minimax and layout.deepep_mode != "normal" and attention_dp_size(values) >= 2:
        said = pplx_problem(layout)
        if said is not None:
            return said
    return problem(data, attn_tp, values.get("encoder_only") is True, layout,
                   tower_tp, tower_layout(values, tower_tp))


__all__ = ["attention_tp", "line", "nvfp4_target", "pool_problem", "problem", "settle",
           "settle_file"]
