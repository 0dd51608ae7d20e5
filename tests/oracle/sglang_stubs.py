"""What SGLang 0.5.23 needs to import and resolve its server arguments on a CPU-only machine.

Only the wheel's *.py files are extracted (tests/oracle/fetch.py), there is no GPU and no
network. Each stub below replaces something that cannot work here; nothing replaces SGLang's
own logic:

* `sglang/__init__.py` is skipped: it imports the frontend language API (IPython, requests to a
  server...) that the server-argument and graph-runner code never uses. A bare package object
  with the real `__path__` stands in, so every `sglang.*` submodule is the real file.
* `STUBBED_PACKAGES`: compiled GPU kernels and their toolchains (triton, sgl_kernel, flashinfer,
  tvm_ffi), the C++/CUDA JIT tree `sglang.kernels.jit` (its include/ and csrc/ are not *.py, so
  the extract lacks them and it raises at import), and import-time-only dependencies of model
  families we never build (torchvision, torchcodec, IPython, sentencepiece, gguf,
  compressed_tensors). Each becomes an attribute-absorbing module: any name resolves to another
  stub, capitalised names to stub classes (so `isinstance` and subclassing work).
* `fake_cuda`: the CUDA platform probes. SGLang picks its platform, device ("cuda"), attention
  backends and the GPU-memory defaults from `torch.cuda.*` and `nvidia-smi`. Inside the
  context, torch reports one CUDA device family (capability, name, count) and
  `sglang.srt.utils.common.get_nvgpu_memory_capacity` (the `nvidia-smi` probe,
  utils/common.py:802) answers the injected memory size -- the one input SGLang's
  memory-based defaults read (memory_hook.py:78 -> utils/common.py:990-998). Outside the
  context torch is untouched, so other tests in the same process see no GPU.
* The stubs exist only while SGLang code runs (`stubbed()`, entered by `fake_cuda`): outside,
  the finder is off the import path and the stub modules are out of `sys.modules`, so the rest
  of the test session (torch.compile looking for triton, say) sees the real world. torch's
  cached "is triton installed" answer is taken before the first stub exists, for the same
  reason.
* Speed only (`_deferred_compile`): inside `stubbed()`, `torch.compile` on a function hands back
  a wrapper that makes the real `torch.compile` at its first call. SGLang decorates kernels
  with `@torch.compile(...)` at import (66 sites; the first, layers/moe/moe_runner/
  deep_gemm.py:93, is reached by install's model_config import), and building the wrapper
  imports torch._inductor (~1.5 s CPU per process); torch compiles at the first call either
  way, and the CPU oracle calls none of them.
* Speed only (`_struct_fields_once`): `msgspec.structs.fields` answers each class once; SGLang
  builds its parser from ServerArgs' fields on every line, and the fields never change; and
  `sglang_parser_cache`: that parser itself is built once per key, each line parsing with its
  own copy (server_args.py:679-680 rebuilt it on every line).
"""

from __future__ import annotations

import contextlib
import functools
import importlib.abc
import importlib.machinery
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

STUBBED_PACKAGES = frozenset({
    "triton", "sgl_kernel", "flashinfer", "tvm_ffi",  # GPU kernels / kernel compilers
    "torchvision", "torchcodec", "IPython", "sentencepiece", "gguf", "compressed_tensors",
    "setproctitle",  # process titles only (imported by the DFLASH worker module chain)
})
STUBBED_MODULES = frozenset({
    "sglang.kernels.jit",  # C++/CUDA JIT sources: not in the *.py extract, raises at import
    "sglang.srt.multimodal.internvl_utils",  # image transforms (torchvision) for InternVL only
    # triton device probing at import (getattr(torch, <triton backend>)); reached by the DFLASH
    # worker's import chain through the mamba kernels
    "sglang.kernels.ops.attention.fla.utils",
})


class _StubMeta(type):
    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _StubModule(f"{cls.__name__}.{name}")


class _StubModule(types.ModuleType):
    """A module whose every attribute is another stub (capitalised names: stub classes)."""

    __version__ = "0.0.0"

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        value: Any
        if name[:1].isupper():
            value = _StubMeta(name, (), {"__init__": lambda self, *a, **k: None,
                                         "__getattr__": lambda self, n: _StubModule(n)})
        else:
            value = _StubModule(f"{self.__name__}.{name}")
            value.__path__ = []
        setattr(self, name, value)
        return value

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]  # used as a decorator
        return _StubModule(f"{self.__name__}()")

    def __iter__(self) -> Iterator[Any]:
        return iter(())

    def __mro_entries__(self, bases: tuple[Any, ...]) -> tuple[type, ...]:
        return (object,)


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        top = name.split(".")[0]
        if top in STUBBED_PACKAGES or any(name == m or name.startswith(m + ".")
                                          for m in STUBBED_MODULES):
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = _StubModule(spec.name)
        module.__path__ = []
        _CREATED.append(spec.name)
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        pass


_FINDER = _StubFinder()
_depth = [0]
# the names the finder gave a stub module since the outermost `stubbed()` began: the only way a
# stub reaches `sys.modules` (an attribute of a stub is never imported), so leaving removes
# these instead of testing each of the ~5,000 modules loaded (8 ms a context, two a line)
_CREATED: list[str] = []


def _deferred_compile(real: Any) -> Any:
    """`torch.compile` as SGLang's import-time decorators see it: on a plain function, a
    wrapper that calls `real` (the real `torch.compile`, same options) at its first call and
    the compiled function from then on; anything else (a module, no function yet: the
    decorator form) as `real` would, deferred the same way. torch itself compiles at the
    first call; what moves is only the import of torch._inductor (`_TorchCompileInductorWrapper`,
    torch/__init__.py), which building the wrapper pays."""

    def compile(model: Any = None, **options: Any) -> Any:
        if model is None:
            return lambda fn: compile(fn, **options)
        if not isinstance(model, types.FunctionType):
            return real(model, **options)
        made: list[Any] = []

        @functools.wraps(model)
        def deferred(*args: Any, **kwargs: Any) -> Any:
            if not made:
                made.append(real(model, **options))
            return made[0](*args, **kwargs)

        return deferred

    compile.graphfit_deferred = True  # type: ignore[attr-defined]
    return compile


_saved_compile: list[Any] = []


def _defer_compile(on: bool) -> None:
    """Swap `torch.compile` for `_deferred_compile`'s while SGLang code runs (`stubbed()`);
    outside, torch's own (graphfit's compiled backend, its tests)."""
    torch = sys.modules.get("torch")
    if torch is None:
        return
    if on:
        _saved_compile.append(torch.compile)
        torch.compile = _deferred_compile(torch.compile)
    elif _saved_compile:
        torch.compile = _saved_compile.pop()


@contextlib.contextmanager
def stubbed() -> Iterator[None]:
    """The stub finder on the import path for the duration (re-entrant); stub modules leave
    `sys.modules` when the outermost context ends (SGLang's modules keep theirs)."""
    if _depth[0] == 0:
        sys.meta_path.insert(0, _FINDER)
        _defer_compile(True)
    _depth[0] += 1
    try:
        yield
    finally:
        _depth[0] -= 1
        if _depth[0] == 0:
            _defer_compile(False)
            sys.meta_path.remove(_FINDER)
            for name in _CREATED:
                if isinstance(sys.modules.get(name), _StubModule):
                    del sys.modules[name]
            _CREATED.clear()


_CUDA_NAME = "NVIDIA H100 80GB HBM3"
_CUDA_CAPABILITY = (9, 0)
_state: dict[str, Any] = {"gpu_mem_mib": None}


def _fake_nvidia_smi() -> float | None:
    return _state["gpu_mem_mib"]


def _clear_sm_caches() -> None:
    """SGLang caches its capability probes (`is_sm90_supported` & co., lru_cache,
    utils/common.py:288-336): cleared when a context reports another capability."""
    common = sys.modules.get("sglang.srt.utils.common")
    if common is None:
        return
    for name in dir(common):
        probe = getattr(common, name)
        if name.startswith(("is_sm", "is_hopper", "is_ampere", "is_blackwell")) and hasattr(
                probe, "cache_clear"):
            probe.cache_clear()


@contextlib.contextmanager
def fake_cuda(gpu_mem_mib: float | None = None, device_count: int = 8,
              capability: tuple[int, int] = _CUDA_CAPABILITY) -> Iterator[None]:
    """torch reports CUDA (sm90 unless `capability` says otherwise) and nvidia-smi reports
    `gpu_mem_mib` (None: unknown)."""
    import torch

    props = types.SimpleNamespace(total_memory=int((gpu_mem_mib or 81920) * 2**20),
                                  major=capability[0], minor=capability[1],
                                  name=_CUDA_NAME, multi_processor_count=132, uuid="stub")
    patches: dict[tuple[Any, str], Any] = {
        (torch.cuda, "is_available"): lambda: True,
        (torch.cuda, "device_count"): lambda: device_count,
        (torch.cuda, "get_device_capability"): lambda device=None: capability,
        (torch.cuda, "get_device_name"): lambda device=None: _CUDA_NAME,
        (torch.cuda, "get_device_properties"): lambda device=None: props,
        (torch.version, "cuda"): "12.9",
    }
    saved = {key: getattr(*key) for key in patches}
    # nested (a call site's fake around `published`'s): the outer context's memory comes back
    outer_mem = _state["gpu_mem_mib"]
    _state["gpu_mem_mib"] = gpu_mem_mib
    for (obj, name), value in patches.items():
        setattr(obj, name, value)
    other = capability != _CUDA_CAPABILITY
    if other:
        _clear_sm_caches()
    _state["faked"] = _state.get("faked", 0) + 1
    try:
        with stubbed():
            yield
    finally:
        _state["faked"] -= 1
        for (obj, name), value in saved.items():
            setattr(obj, name, value)
        _state["gpu_mem_mib"] = outer_mem
        if other:
            _clear_sm_caches()


@contextlib.contextmanager
def imports() -> Iterator[None]:
    """For a block that only imports SGLang modules: the GPU a server has while they load.

    A module's first import runs its top-level code once for the process, and some of it asks
    the device (`_device_sm = get_device_sm()`, models/deepseek_common/utils.py:49, reading
    torch.cuda at utils/common.py:756-764; `_IS_SM120 = is_sm120_supported()`,
    layers/attention/dsv4/metadata.py:29). Under bare `stubbed()` torch reports no CUDA, so
    whichever test imported such a module first decided the answer for every later one.
    Inside an active `fake_cuda` the enclosing device stands (a default one here would report
    sm90 and re-cache the capability probes of an sm100 caller); elsewhere the default one.
    """
    if _state.get("faked", 0):
        with stubbed():
            yield
    else:
        with fake_cuda():
            yield


_installed: dict[str, Any] = {}


def _struct_fields_once() -> None:
    """`msgspec.structs.fields(cls)` evaluates the class's annotations again at every call, and
    SGLang's parser builder asks it of ServerArgs seven times a line (arg_groups/arg_utils.py:
    204, server_args.py:659-665): a third of resolving one line here. A class's fields never
    change, so each class is answered once (instances still go to msgspec itself). Not a stub:
    the same FieldInfo tuple SGLang would get, computed once."""
    import msgspec.structs

    fields = msgspec.structs.fields
    if getattr(fields, "graphfit_once", False):
        return
    by_class: dict[type, Any] = {}

    def once(type_or_instance: Any) -> Any:
        if not isinstance(type_or_instance, type):
            return fields(type_or_instance)
        if type_or_instance not in by_class:
            by_class[type_or_instance] = fields(type_or_instance)
        return by_class[type_or_instance]

    once.graphfit_once = True  # type: ignore[attr-defined]
    msgspec.structs.fields = once


# SGLang's platform probes that read torch.cuda, each cached for the process at its first
# call (lru_cache(maxsize=1), utils/common.py:157-165, 243-245)
PLATFORM_PROBES = ("is_cuda", "is_cuda_alike", "is_sail")


def _cache_platform_probes(common: Any) -> None:
    """Ask SGLang's CUDA probes once, inside the fake CUDA, as a GPU server's first call would.

    Importing server_args calls none of them, so the first call (and the import of the
    modules that bind the answer, `_is_cuda = is_cuda()`, layers/quantization/fp8_utils.py:64)
    came from whatever ran SGLang code first. A test running SGLang outside `fake_cuda` (bare
    `stubbed()`: a `get_config` that fails falls into its pointer-adapter fallback,
    hf_transformers/config.py:382-388, which imports configs/model_config.py and the layers
    behind it) cached False for the whole process: every later line then saw no GPU memory
    (get_device_memory_capacity, utils/common.py:990-1017) and took memory_hook.py:171-180's
    decode max of 160 instead of 256.
    """
    for name in PLATFORM_PROBES:
        probe = getattr(common, name)
        probe.cache_clear()
        probe()


def install(root: Path) -> None:
    """Make `import sglang.srt...` load the real files under `root` with the stubs above."""
    if _installed.get("root") == root:
        return
    if _installed:
        raise RuntimeError(f"SGLang already installed from {_installed['root']}")
    _struct_fields_once()
    import torch  # noqa: F401 - torch must see the real world (no stubbed triton) first
    from torch.utils._triton import has_triton_package

    has_triton_package()  # cached now, with the real answer, before any stub exists
    sys.path.insert(0, str(root))
    package = types.ModuleType("sglang")
    package.__path__ = [str(root / "sglang")]
    package.__file__ = str(root / "sglang" / "__init__.py")
    sys.modules["sglang"] = package
    with fake_cuda():
        import sglang.srt.server_args
        import sglang.srt.utils.common as common

        from tests.oracle import sglang_parser_cache

        sglang_parser_cache.install(sys.modules["sglang.srt.server_args"])

        _cache_platform_probes(common)
        # the model config and the layers it imports bind the platform at import
        # (fp8_utils.py:64, 2508): imported here, not by whichever test reaches them first
        import sglang.srt.configs.model_config  # noqa: F401
    common.get_nvgpu_memory_capacity = _fake_nvidia_smi  # the nvidia-smi probe
    _installed["root"] = root


def write_model_dir(directory: Path, architecture: str = "LlamaForCausalLM",
                    hidden_size: int = 4096, vocab_size: int = 128256) -> Path:
    """A HF config.json (Llama-3-8B shapes) so SGLang's ModelConfig loads without a download."""
    import json

    directory.mkdir(parents=True, exist_ok=True)
    (directory / "config.json").write_text(json.dumps({
        "architectures": [architecture], "model_type": "llama", "hidden_size": hidden_size,
        "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8,
        "num_hidden_layers": 32, "vocab_size": vocab_size, "max_position_embeddings": 131072,
        "rms_norm_eps": 1e-5, "rope_theta": 500000.0, "torch_dtype": "bfloat16",
        "hidden_act": "silu", "tie_word_embeddings": False,
        # a MiniMax-M3 target's MoE layers read these without a class default
        # (models/minimax_m3.py:405-447; graphfit.inputs.sglang_minimax_moe)
        **(MINIMAX_MOE if architecture.startswith("MiniMaxM3") else {}),
        # and its KV pool reads a sparse config (configs/model_config.py:446-456; s53m)
        **(MINIMAX_SPARSE if architecture.startswith("MiniMaxM3") else {}),
    }))
    return directory


MINIMAX_MOE = {"num_local_experts": 256, "num_experts_per_tok": 8, "swiglu_alpha": 1.702,
               "swiglu_limit": 7.0, "scoring_func": "sigmoid"}
# a MiniMax-M3 sparse config with no sparse layer (32 dense layers): without one SGLang's
# KV pool refuses the target (configs/model_config.py:446-456, pool_configurator.py:415)
MINIMAX_SPARSE = {"sparse_attention_config": {"sparse_attention_freq": [0] * 32,
                                              "sparse_num_index_heads": 4,
                                              "sparse_index_dim": 64}}


def write_moe_model_dir(directory: Path) -> Path:
    """A small Qwen3-MoE config.json (HF's Qwen3MoeConfig): `num_experts_per_tok` makes the
    scheduler seed the MoE flags, the all-to-all backend among them (scheduler.py:1001-1008)."""
    import json

    directory.mkdir(parents=True, exist_ok=True)
    (directory / "config.json").write_text(json.dumps({
        "architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe",
        "hidden_size": 2048, "intermediate_size": 6144, "moe_intermediate_size": 768,
        "num_experts": 64, "num_experts_per_tok": 8, "decoder_sparse_step": 1,
        "norm_topk_prob": True, "num_attention_heads": 32, "num_key_value_heads": 4,
        "head_dim": 128, "num_hidden_layers": 8, "vocab_size": 151936,
        "max_position_embeddings": 40960, "rms_norm_eps": 1e-6, "rope_theta": 1000000.0,
        "torch_dtype": "bfloat16", "hidden_act": "silu", "tie_word_embeddings": False,
    }))
    return directory


def write_qwen3_vl_model_dir(directory: Path, depth: int = 4, vision_hidden: int = 1024
                             ) -> Path:
    """A small Qwen3-VL config.json (HF's Qwen3VLConfig: model_type qwen3_vl, a text_config
    with M-RoPE and a vision_config of `depth` layers, `vision_hidden` wide): SGLang's
    ModelConfig resolves it as multimodal."""
    import json

    directory.mkdir(parents=True, exist_ok=True)
    text = {"model_type": "qwen3_vl_text", "hidden_size": 2048, "intermediate_size": 6144,
            "num_attention_heads": 16, "num_key_value_heads": 8, "num_hidden_layers": 4,
            "vocab_size": 151936, "max_position_embeddings": 262144, "rms_norm_eps": 1e-6,
            "rope_theta": 5000000, "head_dim": 128, "torch_dtype": "bfloat16",
            "hidden_act": "silu", "tie_word_embeddings": True,
            "rope_scaling": {"mrope_interleaved": True, "mrope_section": [24, 20, 20],
                             "rope_type": "default"}}
    vision = {"model_type": "qwen3_vl", "depth": depth, "hidden_size": vision_hidden,
              "intermediate_size": 4096, "num_heads": 16, "in_channels": 3, "patch_size": 16,
              "spatial_merge_size": 2, "temporal_patch_size": 2, "out_hidden_size": 2048,
              "num_position_embeddings": 2304, "deepstack_visual_indexes": [1, 2, 3],
              "hidden_act": "gelu_pytorch_tanh"}
    (directory / "config.json").write_text(json.dumps({
        "architectures": ["Qwen3VLForConditionalGeneration"], "model_type": "qwen3_vl",
        "text_config": text, "vision_config": vision, "image_token_id": 151655,
        "video_token_id": 151656, "vision_start_token_id": 151652,
        "vision_end_token_id": 151653, "tie_word_embeddings": True,
        "torch_dtype": "bfloat16"}))
    return directory


def write_mla_model_dir(directory: Path) -> Path:
    """A small DeepSeek-V3-shaped config.json: SGLang's ModelConfig resolves its attention to
    MLA (configs/model_config.py:1367-1397); context 131072 like the Llama one."""
    import json

    directory.mkdir(parents=True, exist_ok=True)
    (directory / "config.json").write_text(json.dumps({
        "architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3",
        "hidden_size": 1024, "intermediate_size": 2048, "moe_intermediate_size": 256,
        "num_attention_heads": 16, "num_key_value_heads": 16, "num_hidden_layers": 4,
        "vocab_size": 129280, "max_position_embeddings": 131072, "kv_lora_rank": 512,
        "q_lora_rank": 1536, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
        "v_head_dim": 128, "n_routed_experts": 8, "num_experts_per_tok": 2,
        "n_shared_experts": 1, "first_k_dense_replace": 1, "rms_norm_eps": 1e-6,
        "rope_theta": 10000, "torch_dtype": "bfloat16", "hidden_act": "silu",
        "tie_word_embeddings": False, "n_group": 1, "topk_group": 1,
        "routed_scaling_factor": 1.0, "norm_topk_prob": True, "scoring_func": "sigmoid",
        "topk_method": "noaux_tc"}))
    return directory
