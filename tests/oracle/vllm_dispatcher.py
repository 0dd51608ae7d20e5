"""vLLM 0.33's own `CudagraphDispatcher`, built on CPU from the pinned wheel's sources.

`benchmarks/bench_pad.py` times its `dispatch()` next to `Plan.pad` (and checks they agree
first). The dispatcher is vLLM's real class with vLLM's real `CompilationConfig`; only two
things are not vLLM's:

- the `VllmConfig` it is handed is a namespace with the four fields `__init__` reads
  (compilation_config, num_speculative_tokens, lora_config, scheduler_config.max_num_seqs):
  a full VllmConfig needs a model (a Hugging Face config download), which the dispatcher
  never looks at;
- `xgrammar` and `llguidance` are stubbed: vLLM's structured-output path imports them at
  module level (via vllm.forward_context -> ... -> vllm.parser), they ship compiled
  extensions, and nothing the dispatcher runs touches them.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import types
from collections.abc import Sequence
from pathlib import Path
from typing import Any

STUBBED = ("xgrammar", "llguidance")


class _Anything:
    """What a stubbed name resolves to: callable, subclassable, never consulted."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        pass

    def __getattr__(self, name: str) -> Any:
        return _Anything()


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Empty packages for the STUBBED roots (and their submodules), nothing else."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name.split(".")[0] in STUBBED:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = types.ModuleType(spec.name)
        module.__path__ = []

        def attribute(name: str) -> Any:
            if name.startswith("__"):
                raise AttributeError(name)
            return _Anything

        module.__getattr__ = attribute  # type: ignore[method-assign]
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        pass


def load(root: Path) -> types.SimpleNamespace:
    """vLLM's dispatcher class and config types from the extracted sources under `root`."""
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    if not any(isinstance(f, _StubFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _StubFinder())
    from vllm.config import CompilationConfig, CUDAGraphMode
    from vllm.config.compilation import CompilationMode
    from vllm.v1.cudagraph_dispatcher import CudagraphDispatcher

    return types.SimpleNamespace(CudagraphDispatcher=CudagraphDispatcher,
                                 CompilationConfig=CompilationConfig,
                                 CompilationMode=CompilationMode, CUDAGraphMode=CUDAGraphMode)


def dispatcher(vllm: types.SimpleNamespace, sizes: Sequence[int], mode: str,
               max_num_seqs: int, num_speculative_tokens: int) -> Any:
    """A dispatcher over `sizes` (the runtime ladder), keys initialised as the V1 runner does
    after its attention backends settled the mode."""
    graph_mode = vllm.CUDAGraphMode[mode]
    compilation = vllm.CompilationConfig(
        mode=vllm.CompilationMode.VLLM_COMPILE, cudagraph_mode=graph_mode,
        cudagraph_capture_sizes=list(sizes), max_cudagraph_capture_size=max(sizes))
    compilation.set_splitting_ops_for_v1(all2all_backend="naive")  # VllmConfig.__post_init__
    compilation.post_init_cudagraph_sizes()
    config = types.SimpleNamespace(
        compilation_config=compilation, num_speculative_tokens=num_speculative_tokens,
        lora_config=None, scheduler_config=types.SimpleNamespace(max_num_seqs=max_num_seqs))
    out = vllm.CudagraphDispatcher(config)
    out.initialize_cudagraph_keys(graph_mode, 1 + num_speculative_tokens)
    return out
