"""SGLang 0.5.23's MiniMax-M3 TARGET model class built by SGLang's own code on the meta device
(the oracle side of graphfit.inputs.sglang_minimax_target).

A target directory holds a small MiniMax-M3 config.json with dense MLPs (`moe_layer_freq` all
0) and a `sparse_attention_config` (by default one with no sparse layer; generated ones add
sparse attention layers or remove it, s53m), top level
(`MiniMaxM3SparseForCausalLM`) or nested under `text_config`
(`MiniMaxM3SparseForConditionalGeneration`). SGLang's argument pipeline resolves a line on it
(sglang_oracle.resolve) and publishes its parallel layout (attention TP = tp //
attn_dp // attn_cp, runtime_context.py:73-76); SGLang's `get_config` reads the directory and
SGLang's own model class is built under that layout:

- top level: `MiniMaxM3SparseForCausalLM(config)` whole (minimax_m3.py:1972-2030);
- nested: the VL wrapper `MiniMaxM3SparseForConditionalGeneration(config)` whole
  (minimax_m3_vl.py:82-163): its CLIP vision tower (TOWER, every key `CLIPVisionConfig`
  requires, minimax_vl_common.py:40-64, generated variations in `vision`), then the text
  model `MiniMaxM3Model` (:137-142) on the text config as the server hands it over: SGLang's
  `ModelConfig` runs `get_hf_text_config` on the loaded config (configs/model_config.py:636),
  which turns a plain-dict `text_config` into a `PretrainedConfig` in place
  (utils/hf_transformers/common.py:566-572) before the loader builds the model with that
  same `hf_config` (model_loader/loader.py:293-296), and sets `hf_config.encoder_only`
  (model_config.py:908). The oracle does the same. (`get_config` alone leaves
  `text_config` a dict under transformers 5.19.0, the version SGLang 0.5.23's wheel pins, and
  5.25 alike: `MiniMaxM3VLConfig` has no `__init__` of its own, so transformers' dataclass
  wrapper replaces the inherited one that coerces it, transformers configuration_utils
  `__init_subclass__`. The wrapper's `text_hidden_size is required` assertion,
  minimax_m3_vl.py:109-110, therefore never sees a dict on a server start; a text config
  without hidden_size fails earlier, model_config.py:1566.)

Before either class is built, shared-expert fusion is resolved with the class's own hooks
as the loader does (model_loader/loader.py:291-298), and the class is built under the
loader's dtype (model_loader/loader.py:838, SGLang's own ModelConfig of the line; s50e).

Glue (not SGLang logic): `deep_ep`, pplx-kernels and Mooncake reported installed and JIT
DeepGEMM on (`_deepep_glue`, tests.oracle.sglang_mooncake_build.glue),
this process's ranks (0), TP / MoE / pipeline groups that only answer
their size / first-last rank / a CPU group of None, an SM 90 CUDA device for the fusion hooks,
and no CUDA side stream (`get_stream` returns None:
there is no CUDA here; the stream is used in forward only, minimax_m3.py:1864).
"""

from __future__ import annotations

import contextlib
import copy
import functools
import hashlib
import json
import sys
import tempfile
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.oracle import sglang_oracle as so
from tests.oracle.config_dirs import content_dir
from tests.oracle.sglang_mooncake_build import glue as mooncake_glue

TEXT: dict[str, Any] = {
    "model_type": "minimax_m2", "hidden_size": 1024, "num_attention_heads": 8,
    "num_key_value_heads": 4, "num_hidden_layers": 2, "vocab_size": 1024,
    "max_position_embeddings": 4096, "rms_norm_eps": 1e-5, "hidden_act": "silu",
    "intermediate_size": 1024, "dense_intermediate_size": 1024, "use_gemma_norm": False,
    "moe_layer_freq": [0, 0],
    # s53m: a sparse config with no sparse layer, so the base model is one SGLang also sizes
    # a KV pool for (configs/model_config.py:446-456); fields None removes it
    "sparse_attention_config": {"sparse_attention_freq": [0, 0], "sparse_num_index_heads": 4,
                                "sparse_index_dim": 64}}
# a CLIP tower with every key `CLIPVisionConfig` requires (minimax_vl_common.py:40-64)
TOWER: dict[str, Any] = {
    "model_type": "clip_vision_model", "hidden_size": 128, "intermediate_size": 128,
    "num_hidden_layers": 1, "num_attention_heads": 8, "num_channels": 3, "image_size": 28,
    "patch_size": 14, "hidden_act": "gelu", "layer_norm_eps": 1e-5,
    "position_embedding_type": "rope", "rope_mode": "3d", "rope_theta": 10000.0,
    "vision_segment_max_frames": None,
    "img_token_compression_config": {"temporal_patch_size": 2, "spatial_merge_size": 2}}
CAUSAL = "MiniMaxM3SparseForCausalLM"
VL = "MiniMaxM3SparseForConditionalGeneration"
_DIRS = tempfile.TemporaryDirectory(prefix="graphfit-minimax-target-")


def target_dir(fields: dict[str, Any], nested: bool,
               vision: dict[str, Any] | None = None,
               hf_quant: dict[str, Any] | None = None,
               modelslim: dict[str, Any] | None = None) -> str:
    """A MiniMax-M3 target directory: TEXT with `fields` (None removes a key), top level or
    under `text_config` of the VL wrapper's config, whose `vision_config` is TOWER with
    `vision` (None removes a key; a "vision_config" entry None drops the whole tower, "null"
    writes it null) and
    whose top level takes the "wrapper" entry of `vision` (projector_hidden_size); with
    `hf_quant`, that object as the directory's hf_quant_config.json too (issue 23 s62m); with
    `modelslim`, that object as its quant_model_description.json (issue 23 s63m)."""
    text = {**TEXT, **fields}
    text = {k: v for k, v in text.items() if v is not None}
    if nested:
        wanted = dict(vision or {})
        wrapper = wanted.pop("wrapper", {})
        tower = {k: v for k, v in {**TOWER, **wanted}.items()
                 if v is not None or k == "vision_segment_max_frames"}
        config: dict[str, Any] = {"architectures": [VL], "model_type": "minimax_m3_vl",
                                  "torch_dtype": "bfloat16", "text_config": text,
                                  **wrapper}
        if "vision_config" not in wanted:
            config["vision_config"] = tower
        elif wanted["vision_config"] == "null":
            config["vision_config"] = None
    else:
        config = {"architectures": [CAUSAL], **text, "torch_dtype": "bfloat16"}
    if hf_quant is None and modelslim is None:
        return content_dir(Path(_DIRS.name), json.dumps(config, sort_keys=True))
    files = {name: json.dumps(value, sort_keys=True) for name, value in (
        ("hf_quant_config.json", hf_quant), ("quant_model_description.json", modelslim))
        if value is not None}
    digest = hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()[:12]
    folder = content_dir(Path(_DIRS.name), json.dumps(config, sort_keys=True),
                         prefix=f"hq{digest}-")
    for name, text in files.items():
        (Path(folder) / name).write_text(text)
    return folder


@functools.cache
def resolved(tp: int, attn_dp: int, extra: tuple[str, ...] = ()) -> so.Resolved:
    """SGLang's resolution of a line on the base target at this TP / attention DP, with
    `extra` flags (--ep-size, --disable-shared-experts-fusion, ...): its published layout is
    what the attention and MoE constructors read."""
    r = so.resolve(["--model-path", target_dir({}, False), "--tp-size", str(tp),
                    "--attn-dp-size", str(attn_dp), *extra])
    assert isinstance(r, so.Resolved), r
    return r


@functools.cache
def resolved_on(path: str, tp: int, attn_dp: int, extra: tuple[str, ...] = (),
                rocm: bool = False) -> so.Resolved | str:
    """SGLang's resolution of a line on `path` itself (s48q): the model's override hook runs
    on its own config.json, which is where a checkpoint's mxfp8 projections with NVFP4 packed
    experts become `minimax_m3_nvfp4` (arg_groups/model_overrides/minimax_m3.py:18-34,
    46-54; the flag has no such argparse choice). A refused line is SGLang's message."""
    argv = ["--model-path", path, "--tp-size", str(tp), "--attn-dp-size", str(attn_dp), *extra]
    with _rocm_platform(rocm):  # s52e: resolved under SGLang's MI300X platform facts
        r = so.resolve(argv)
    return r if isinstance(r, so.Resolved) else str(getattr(r, "text", r))


@contextlib.contextmanager
def _rocm_platform(rocm: bool) -> Iterator[None]:
    """SGLang's MI300X platform facts for its resolution hooks (tests.oracle.sglang_mtp_oracle.
    _platform) with the process environment restored after (MiniMax-M3's override writes
    its ROCm switches there, model_overrides/minimax_m3.py:129-130); nothing when not
    `rocm`."""
    if not rocm:
        yield
        return
    from tests.oracle import sglang_mtp_oracle as mtp

    with mtp._restored_environ(), mtp._platform("MI300X"):
        yield


def _hip_glue() -> list[tuple[Any, str, Any]]:
    """The import-time platform flags SGLang's MiniMax-M3 build reads on an MI300X (s52e):
    `_is_hip` in ep_moe/layer.py (:53; `_use_aiter`, :56, stays off: SGLANG_USE_AITER unset)
    and, in both model modules, `_is_cuda` False, `_is_hip` True and `_is_gfx95_supported`
    False (a gfx942; minimax_m3.py:129-133, minimax_m3_vl.py:62-65). Returns what to restore.
    Other modules' import-time flags stay CUDA's (the quantized layers' fnuz FP8 is not
    faked)."""
    import sglang.srt.models.minimax_m3 as m3
    import sglang.srt.models.minimax_m3_vl as m3vl
    from sglang.srt.layers.moe.ep_moe import layer

    saved = [(layer, "_is_hip", layer._is_hip)]
    layer._is_hip = True
    for mod in (m3, m3vl):
        saved += [(mod, name, getattr(mod, name))
                  for name in ("_is_cuda", "_is_hip", "_is_gfx95_supported")]
        mod._is_cuda, mod._is_hip, mod._is_gfx95_supported = False, True, False
    return saved


def _site(exc: BaseException) -> str:
    """The innermost frame inside SGLang's sources that the exception passed through, as
    "path:line" under sglang/srt/ (a config's AttributeError is raised by transformers, read
    by SGLang's line)."""
    import traceback

    site = "?"
    for frame in traceback.extract_tb(exc.__traceback__):
        if "/sglang/srt/" in frame.filename:
            site = f"{frame.filename.split('/sglang/srt/', 1)[1]}:{frame.lineno}"
    return site


def _quant_config(r: so.Resolved, path: str) -> Any:
    """The quantization config the loader hands the model class (model_loader/loader.py:
    174-281, from SGLang's own ModelConfig of `path` under the line's ServerArgs)."""
    from sglang.srt.configs.load_config import LoadConfig
    from sglang.srt.configs.model_config import ModelConfig
    from sglang.srt.model_loader.loader import _get_quantization_config

    return _get_quantization_config(ModelConfig.from_server_args(r.record, model_path=path),
                                    LoadConfig())


def _model_dtype(r: so.Resolved, path: str) -> Any:
    """The dtype the loader builds the model under (model_loader/loader.py:838:
    `set_default_torch_dtype(model_config.dtype)`, SGLang's own ModelConfig of `path` under
    the line's ServerArgs): the experts' weights take it, and DeepEPMoE's unquantized
    assert reads it (layers/moe/ep_moe/layer.py:137). Before s50e this oracle built in
    torch's default float32, so that assert was never reached."""
    from sglang.srt.configs.model_config import ModelConfig

    return ModelConfig.from_server_args(r.record, model_path=path).dtype


class _Absent:
    """deep_ep's `Buffer` / `Config` stand-in: the DeepEP dispatcher's constructor never
    touches them (token_dispatcher/deepep.py:368-421 only checks `use_deepep`); any use (the
    buffer is made on the first dispatch, :182-304) fails the oracle itself."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"oracle glue: deep_ep.{name} used at model build")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("oracle glue: deep_ep used at model build")


def _deepep_glue(jit_deepgemm: bool = True) -> list[tuple[Any, str, Any]]:
    """Glue for the DeepEP-class MoE (`DeepEPMoE`, layers/moe/ep_moe/layer.py:61-186): this
    process has no `deep_ep` package, so `token_dispatcher/deepep.py` recorded `use_deepep =
    False` at import and its dispatcher raises ImportError (:381-390); on the GPU the package
    is installed. The glue says it is (`use_deepep` True, `Buffer` / `Config` stand-ins that
    fail if used) and that JIT DeepGEMM is on, as on the SM 90 device with SGLang's CUDA
    install (deep_gemm_wrapper/configurer.py:32-55; graphfit assumes the same,
    graphfit/planner/engines/sglang_class_picks.py), unless the line sets
    SGLANG_ENABLE_JIT_DEEPGEMM off (`jit_deepgemm` False). Returns what to restore."""
    from sglang.srt.layers import deep_gemm_wrapper
    from sglang.srt.layers.moe.token_dispatcher import deepep

    saved = [(deepep, name, getattr(deepep, name, None))
             for name in ("use_deepep", "Buffer", "Config")]
    saved.append((deep_gemm_wrapper, "ENABLE_JIT_DEEPGEMM",
                  deep_gemm_wrapper.ENABLE_JIT_DEEPGEMM))
    deepep.use_deepep, deepep.Buffer, deepep.Config = True, _Absent(), _Absent()
    deep_gemm_wrapper.ENABLE_JIT_DEEPGEMM = jit_deepgemm
    # s50e: pplx-kernels reported installed (token_dispatcher/pplx.py:31-37); its dispatcher's
    # constructor only checks the flag (:203-210), the AllToAll is made on the first dispatch
    from sglang.srt.layers.moe.token_dispatcher import pplx

    saved.append((pplx, "use_pplx", pplx.use_pplx))
    pplx.use_pplx = True
    return saved


@contextlib.contextmanager
def _nixl_glue() -> Iterator[None]:
    """NixlEP reported installed (s52e): the nixl dispatcher every MoE layer makes under
    `--moe-a2a-backend nixl` (fused_moe_triton/layer.py:595 -> token_dispatcher/nixl.py:
    449-477) imports `nixl_ep` for its Buffer and `topk_idx_t` (nixl.py:38-52; the buffer is
    made on the first dispatch) and asks torch.distributed for its group's size (:238):
    a stand-in module whose Buffer fails the oracle itself if used, and the group's size
    from the oracle's TP namespace. SGLang's own checks in that constructor (the dispatch
    budget <= 1024, :228-233; normal mode NotImplementedError, :476-477) run as written."""
    import torch
    from sglang.srt.layers.moe.token_dispatcher import nixl
    from sglang.srt.runtime_context import get_parallel

    module = types.ModuleType("nixl_ep")
    module.Buffer = _Absent()  # type: ignore[attr-defined]
    module.topk_idx_t = torch.int64  # type: ignore[attr-defined]
    saved_module, saved_dist = sys.modules.get("nixl_ep"), nixl.dist
    sys.modules["nixl_ep"] = module
    # the group is the TP group's device group (fused_moe_triton/layer.py:163-164), None in
    # the oracle's TP namespace: its size is the TP namespace's
    nixl.dist = types.SimpleNamespace(
        get_world_size=lambda group: get_parallel().tp_group.world_size)
    nixl._load_nixl_ep.cache_clear()
    try:
        yield
    finally:
        nixl.dist = saved_dist
        nixl._load_nixl_ep.cache_clear()
        if saved_module is None:
            sys.modules.pop("nixl_ep", None)
        else:
            sys.modules["nixl_ep"] = saved_module


def build(path: str, tp: int, attn_dp: int, extra: tuple[str, ...] = (),
          jit_deepgemm: bool = True, own: bool = False, rocm: bool = False) -> str | None:
    """SGLang's own model class on `path`'s config under the line's layout: the exception's
    "Type: message @ site" where SGLang raises (the server does not start), None where it
    builds (s53m: and sizes its KV pool, as far as the pool's sparse-config read). Like the
    loader (model_loader/loader.py:291-298) it first resolves shared-expert
    fusion with the model class's own hooks, on an SM 90 CUDA device (glue: this process has
    no GPU, and the hooks ask `_is_cuda` / `_device_sm`), and builds under that result.
    `rocm` (s52e; with `own`): resolved and built as on an MI300X (`_rocm_platform`,
    `_hip_glue`), JIT DeepGEMM off whatever `jit_deepgemm` says (SGLang computes it False
    off CUDA / MUSA, layers/deep_gemm_wrapper/configurer.py:32-36). Run a CUDA line first in
    a process: SGLang caches some platform answers on first use."""
    import torch

    assert own or not rocm, "oracle: a ROCm build resolves on its own directory"
    mine = (resolved_on(path, tp, attn_dp, extra, rocm) if own
            else resolved(tp, attn_dp, extra))
    if isinstance(mine, str):
        return f"Rejected: {mine}"
    r = mine
    # check_server_args's LoRA checks before the build (issue 23 s65d)
    from tests.oracle.test_sglang_deepep_class_oracle import lora_check

    said = lora_check(r.record)
    if said:
        return f"Rejected: {said.removeprefix('check: ')}"
    with so.sglang_stubs.stubbed(), so.published(r), contextlib.ExitStack() as stack:
        stack.enter_context(_rocm_platform(rocm))
        import sglang.srt.models.minimax_m3 as m3
        import sglang.srt.models.minimax_m3_vl as m3vl
        from sglang.srt.layers.dp_attention import initialize_dp_attention_flags
        from sglang.srt.layers.moe.utils import (
            initialize_moe_config,
            resolve_shared_experts_config,
        )
        from sglang.srt.model_loader.utils import set_default_torch_dtype
        from sglang.srt.runtime_context import get_flags, get_model, get_parallel
        from sglang.srt.utils.hf_transformers_utils import get_config, get_hf_text_config

        # ModelConfig's own copy (model_config.py:619-621): get_hf_text_config edits it
        config = copy.deepcopy(get_config(path, trust_remote_code=False))
        group = types.SimpleNamespace(world_size=tp, rank_in_group=0, cpu_group=None,
                                        device_group=None)
        pp = types.SimpleNamespace(world_size=1, rank_in_group=0, is_first_rank=True,
                                   is_last_rank=True)
        saved = [(mod, name, getattr(mod, name)) for mod in (m3, m3vl)
                 for name in ("_is_cuda", "_device_sm")] + [(m3, "get_stream", m3.get_stream)]
        saved.append((get_flags().dp, "enabled", get_flags().dp.enabled))
        saved += _deepep_glue(jit_deepgemm and not rocm)
        # the worker's bootstrap (distributed/bootstrap.py:343 -> layers/dp_attention.py:475):
        # the DP-attention flag the layers' reduce groups read (no elastic EP: no args read)
        initialize_dp_attention_flags(None)
        m3.get_stream = lambda name: None  # glue: no CUDA side stream on CPU
        for mod in (m3, m3vl):  # glue: the device the loader asks about (an H100)
            mod._is_cuda, mod._device_sm = True, 90
        if rocm:  # or an MI300X (s52e)
            saved += _hip_glue()
        try:
            # s50e: Mooncake's package reported installed (tests.oracle.sglang_mooncake_build)
            stack.enter_context(mooncake_glue())
            stack.enter_context(_nixl_glue())  # s52e: NixlEP's package reported installed
            # MoE groups of the published sizes: the TP group itself where as wide
            # (distributed/parallel_state.py:2894, 2923)
            ep, moe_tp = get_parallel().moe_ep_size, get_parallel().moe_tp_size
            ep_group = group if ep == tp else types.SimpleNamespace(
                world_size=ep, rank_in_group=0, cpu_group=None)
            moe_tp_group = group if moe_tp == tp else types.SimpleNamespace(
                world_size=moe_tp, rank_in_group=0, cpu_group=None)
            with get_parallel().override(tp_rank=0, attn_tp_rank=0, pp_rank=0,
                                         moe_ep_rank=0, moe_tp_rank=0, tp_group=group,
                                         moe_tp_group=moe_tp_group, moe_ep_group=ep_group,
                                         pp_group=pp), \
                    torch.device("meta"):
                vl = list(config.architectures or [])[:1] == [VL]
                text = get_hf_text_config(config)  # ModelConfig's call (model_config.py:636)
                if any(hasattr(text, attr) for attr in so._MOE_TOPK_ATTRS):
                    # the scheduler seeds the MoE flags from the model's own text config
                    # (managers/scheduler.py:991-1009), not from the resolved base target's
                    initialize_moe_config()
                config.encoder_only = False  # ModelConfig sets it (model_config.py:908)
                cls = m3vl.MiniMaxM3SparseForConditionalGeneration if vl else \
                    m3.MiniMaxM3SparseForCausalLM
                quant = (_quant_config(r, path) if "--quantization" in extra
                         or "quantization_config" in Path(path, "config.json").read_text()
                         else None)
                shared = resolve_shared_experts_config(cls, config, quant)
                with get_model().override(shared_experts=shared), \
                        set_default_torch_dtype(_model_dtype(r, path)):
                    cls(config, quant_config=quant)
                # s53m: the server then sizes the KV pool; a MiniMax-M3 target's cell size
                # asks for its sparse config first (model_executor/pool_configurator.py:
                # 410-415) on the same hf_config
                from sglang.srt.configs.model_config import (
                    get_minimax_sparse_attention_config,
                )

                get_minimax_sparse_attention_config(config)
        except RuntimeError as exc:  # the glue, not SGLang: fail the oracle itself
            if "has not been written" in str(exc):
                raise AssertionError(f"oracle glue: {exc}") from exc
            return f"{type(exc).__name__}: {exc} @ {_site(exc)}"
        except (TypeError, ValueError, AssertionError, AttributeError, KeyError) as exc:
            return f"{type(exc).__name__}: {exc} @ {_site(exc)}"
        finally:
            for mod, name, value in reversed(saved):  # the last glue first
                setattr(mod, name, value)
    return None
