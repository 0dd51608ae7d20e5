"""SGLang 0.5.23's own model-class overrides of `--quantization` and the MoE runner
(arg_groups/model_overrides/*.py and the DeepSeek family's post-process,
arg_groups/overrides.py:763-812), driven directly on one line: what
graphfit.planner.engines.sglang_model_quant restates.

The full pipeline cannot build these classes' ModelConfig without their checkpoints, so each
registered override function (`_MODEL_OVERRIDE_FNS[arch]`, model_override_base.py:26-47, plus
`_deepseek_moe_quant_resolution`) runs on stubs, and ONLY these are stubbed:

* the server arguments: a namespace (`Args`) with the flag, `_quantization_explicitly_unset`
  (as serving_hook.py:692-703 sets it for unquant), the a2a backend and runner, and every
  other field the overrides read at SGLang's defaults (attention backends None, dcp_size 1,
  no EPLB, no speculative algorithm, fp8_gemm_runner_backend auto, device cuda); a field
  not listed raises AttributeError, so nothing is read silently;
* `resolving_view` -> the namespace itself (no resolution overlay: nothing else declared);
* `get_platform()` -> SM100 (device_sm 100, capability (10, 0)) or SM90 ((9, 0));
* `model_config_of` (in model_override_base too) -> a ModelConfig made without its
  constructor, on which SGLang's own `_parse_quant_hf_config` and `_verify_quantization`
  ran (hf_config: architectures, the layout's quantization_config, mlp_hidden_act relu2;
  model_path: an empty directory), with
  `nvfp4_moe_meta` None and `is_fp4_experts` False (DeepSeek-V4's runner override);
* `has_fp8_weights_in_checkpoint` (utils/common.py:3857) -> raises `ReadsWeights`, unless
  `model_path` names a checkpoint directory: then SGLang's own function reads its
  safetensors headers (server_args.model_path is that directory);
* `is_flashinfer_available` in deepseek_v4 -> False (its dense-GEMM override only).
"""

from __future__ import annotations

import contextlib
import copy
import types
from collections.abc import Iterator
from typing import Any

from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_quantization_oracle as qo
from tests.oracle import sglang_stubs


class ReadsWeights(Exception):
    """SGLang would read the checkpoint's safetensors headers."""


_DEFAULTS: dict[str, Any] = {
    "attention_backend": None, "prefill_attention_backend": None,
    "decode_attention_backend": None, "enable_prefill_cp": False, "dcp_size": 1,
    "speculative_algorithm": None, "speculative_eagle_topk": None, "enable_eplb": False,
    "ep_num_redundant_experts": 0, "init_expert_location": "trivial",
    "fp8_gemm_runner_backend": "auto", "device": "cuda", "swa_full_tokens_ratio": None,
    "page_size": None, "mamba_radix_cache_strategy": "auto",
    "speculative_draft_attention_backend": None, "model_path": "/nonexistent",
    "enable_symm_mem": False, "tp_size": 4,
}


class Args(types.SimpleNamespace):
    """The stubbed server arguments (see the module docstring)."""


def _platform(sm100: bool) -> types.SimpleNamespace:
    return types.SimpleNamespace(
        is_sm100=sm100, is_sm90=not sm100, is_sm120=False, is_sm110=False, is_blackwell=sm100,
        is_hip=False,
        is_npu=False, is_xpu=False, is_cuda=True, device_sm=100 if sm100 else 90,
        device_capability=(10, 0) if sm100 else (9, 0))


def _model_config(arch: str, flag: str | None, layout: dict[str, Any] | None,
                  model_dir: str | None = None) -> Any:
    from sglang.srt.configs.model_config import ModelConfig

    config = ModelConfig.__new__(ModelConfig)
    hf = types.SimpleNamespace(architectures=[arch], mlp_hidden_act="relu2",
                               model_type="stub")
    if layout is not None:
        hf.quantization_config = copy.deepcopy(layout)
    config.hf_config = hf
    config.hf_text_config = hf
    config.model_path = model_dir or qo._empty_dir()
    config.revision = None
    config.quantization = flag
    config.is_draft_model = False
    config.is_draft_quantization_explicit = False
    config.nvfp4_moe_meta = None
    config.is_fp4_experts = False
    config._parse_quant_hf_config()
    config._verify_quantization()
    return config


@contextlib.contextmanager
def _patched(*patches: tuple[Any, str, Any]) -> Iterator[None]:
    saved = [(obj, name, getattr(obj, name)) for obj, name, _ in patches]
    for obj, name, value in patches:
        setattr(obj, name, value)
    try:
        yield
    finally:
        for obj, name, value in saved:
            setattr(obj, name, value)


def jit_deepgemm(env: bool, device_sm: int, sm120_apis: bool = True) -> bool:
    """`ENABLE_JIT_DEEPGEMM` by SGLang's own `_compute_enable_deep_gemm`
    (layers/deep_gemm_wrapper/configurer.py:32-52) on CUDA with `device_sm`,
    SGLANG_ENABLE_JIT_DEEPGEMM=`env` and an importable `deep_gemm` stub (holding the SM120
    APIs it probes when `sm120_apis`)."""
    import os
    import sys

    so.oracle()
    # under resolve's fake SM100 CUDA: the first import builds SGLang's method table from the
    # platform (layers/quantization/__init__.py:63-104), which later oracles then reuse
    with sglang_stubs.stubbed(), sglang_stubs.fake_cuda(80 * 1024, capability=(10, 0)):
        from sglang.srt.layers.deep_gemm_wrapper import configurer

        stub = types.ModuleType("deep_gemm")
        if sm120_apis:
            for name in ("fp8_einsum", "m_grouped_fp8_fp4_gemm_nt_contiguous",
                         "transform_sf_into_required_layout"):
                setattr(stub, name, lambda *a: None)
        saved_env = os.environ.get("SGLANG_ENABLE_JIT_DEEPGEMM")
        saved_mod = sys.modules.get("deep_gemm")
        os.environ["SGLANG_ENABLE_JIT_DEEPGEMM"] = "1" if env else "0"
        sys.modules["deep_gemm"] = stub
        try:
            with _patched((configurer, "_is_cuda", True),
                          (configurer, "get_device_sm", lambda: device_sm)):
                return bool(configurer._compute_enable_deep_gemm())
        finally:
            if saved_env is None:
                os.environ.pop("SGLANG_ENABLE_JIT_DEEPGEMM", None)
            else:
                os.environ["SGLANG_ENABLE_JIT_DEEPGEMM"] = saved_env
            if saved_mod is None:
                sys.modules.pop("deep_gemm", None)
            else:
                sys.modules["deep_gemm"] = saved_mod


def resolve(arch: str, flag: str | None, layout: dict[str, Any] | None, sm100: bool,
            a2a: str = "none", runner: str = "auto", model_path: str | None = None, *,
            model_dir: str | None = None, args: dict[str, Any] | None = None,
            jit: bool = False, kernel: bool = False, hf_attrs: dict[str, Any] | None = None,
            **model_attrs: Any) -> tuple[str, str | None, str | None]:
    """("ok", --quantization, --moe-runner-backend) after the class's overrides, or
    ("refused", message, None) where _verify_quantization or an override raises, or
    ("crash", message, None) where an override stops reading hf_config's
    quantization_config (AttributeError / KeyError), or ("weights", None, None) where
    SGLang reads the checkpoint's weights. `model_attrs` replace the stubbed ModelConfig's
    attributes (nvfp4_moe_meta, is_fp4_experts); `model_dir`: the ModelConfig's model_path
    (its ModelSlim / hf_quant_config.json files are read); `args`: server arguments over
    the defaults (enable_eplb ...); `hf_attrs`: further hf_config attributes (block_configs);
    `jit`: deep_gemm_wrapper.ENABLE_JIT_DEEPGEMM; `kernel`:
    then SGLang's own `handle_moe_kernel_config` (moe_hook.py:70-162: the runner resolved
    by quantization, overrides.py:1449-1526, and each runner's quantization assert) on
    the result, views and passes stubbed as plain attribute writes (`_kernel_config`)."""
    so.oracle()
    # under the same fake SM100 CUDA as sglang_quantization_oracle.verify: SGLang's method
    # table is built at import from the platform (layers/quantization/__init__.py:63-104)
    with sglang_stubs.stubbed(), sglang_stubs.fake_cuda(80 * 1024, capability=(10, 0)):
        import sglang.srt.utils.common as common
        from sglang.srt.arg_groups import model_override_base as base
        from sglang.srt.arg_groups import overrides

        unset = flag == "unquant"
        quant = None if unset else flag
        from sglang.srt.layers import deep_gemm_wrapper

        try:
            mc = _model_config(arch, quant, layout, model_dir)
        except ValueError as exc:
            return "refused", str(exc), None
        for key, value in model_attrs.items():
            setattr(mc, key, value)
        for key, value in (hf_attrs or {}).items():  # config.json keys (block_configs)
            setattr(mc.hf_config, key, value)
        args = Args(**{**_DEFAULTS, "model_path": model_path or _DEFAULTS["model_path"],
                       **(args or {})},
                    quantization=quant, _quantization_explicitly_unset=unset,
                    moe_a2a_backend=a2a, moe_runner_backend=runner)
        fns = list(base._MODEL_OVERRIDE_FNS.get(arch, []))
        fns += [fn for pred, fn in base._PREDICATE_OVERRIDE_FNS if pred(arch)]

        def weights(_path: str) -> bool:
            raise ReadsWeights

        patches: list[tuple[Any, str, Any]] = [] if model_path else [
            (common, "has_fp8_weights_in_checkpoint", weights)]
        patches += [
            (deep_gemm_wrapper, "ENABLE_JIT_DEEPGEMM", jit),
            (overrides, "get_platform", lambda: _platform(sm100)),
            (overrides, "model_config_of", lambda _view: mc),
            (base, "model_config_of", lambda _view: mc)]
        for fn in fns:
            module = __import__(fn.__module__, fromlist=["_"])
            for name, value in (("resolving_view", lambda a: a),
                                ("get_platform", lambda: _platform(sm100)),
                                ("model_config_of", lambda _a: mc),
                                ("is_flashinfer_available", lambda: False)):
                if hasattr(module, name):
                    patches.append((module, name, value))
        try:
            with _patched(*patches):
                for fn in fns:
                    for key, value in fn(args, mc.hf_config).items():
                        setattr(args, key, value)
                for key, value in overrides._deepseek_moe_quant_resolution(args).items():
                    setattr(args, key, value)
                if kernel:
                    _kernel_config(args, mc)
        except ReadsWeights:
            return "weights", None, None
        except (ValueError, AssertionError) as exc:
            return "refused", str(exc), None
        except (AttributeError, KeyError) as exc:
            if "quantization_config" not in str(exc) and "quant_algo" not in str(exc):
                raise  # a server argument the stub lacks: never read silently
            return "crash", f"{type(exc).__name__}: {exc}", None
        return "ok", args.quantization, args.moe_runner_backend


def _kernel_config(args: Args, mc: Any) -> None:
    """SGLang's `handle_moe_kernel_config` on the resolved arguments: its views are the
    namespace, its post-process pass writes what the pass returns (the fusion-disable pass,
    which refuses nothing, is skipped), ep_size the line's (`args`' ep_size, else 1: no a2a
    backend runs here, so it is the resolved one, overrides.py:1611-1620); the runner the
    class left is put back afterwards."""
    from sglang.srt.arg_groups import moe_hook, overrides

    def post(server_args: Any, fn: Any) -> None:
        if fn is overrides._moe_runner_backend_quant_constraints:
            for key, value in fn(server_args).items():
                setattr(server_args, key, value)

    args.ep_size = getattr(args, "ep_size", 1)
    picked = args.moe_runner_backend  # reported as the class left it (the pass's rewrite
    # by quantization is graphfit's check_runner, not the class pick compared)
    with _patched((moe_hook, "resolving_view", lambda a: a),
                  (moe_hook, "resolved_view", lambda a: a),
                  (moe_hook, "run_post_process_pass", post),
                  (moe_hook, "model_config_of", lambda _a: mc)):
        moe_hook.handle_moe_kernel_config(args)
    args.moe_runner_backend = picked


def nvfp4_moe_meta(layout: dict[str, Any] | None) -> Any:
    """ModelConfig's `nvfp4_moe_meta` for a config.json quantization_config, computed by
    SGLang's own lines (configs/model_config.py:774-795, cut out of `__init__` by their
    comments and run on a namespace holding only hf_config)."""
    import inspect
    import logging
    import textwrap

    so.oracle()
    with sglang_stubs.fake_cuda():
        from sglang.srt.configs import model_config as module

        source = inspect.getsource(module.ModelConfig.__init__)
        start = source.index("# Handle hybrid NVFP4 moe")
        end = source.index("# Check model type", start)
        line_start = source.rindex("\n", 0, start) + 1
        block = textwrap.dedent(source[line_start:end].rstrip() + "\n")
        hf = types.SimpleNamespace()
        if layout is not None:
            hf.quantization_config = copy.deepcopy(layout)
        self = types.SimpleNamespace(hf_config=hf)
        scope = {"self": self, "_quant_config_to_dict": module._quant_config_to_dict,
                 "Optional": Any, "logger": logging.getLogger("oracle")}
        exec(compile(block, module.__file__, "exec"), scope)
        return self.nvfp4_moe_meta
