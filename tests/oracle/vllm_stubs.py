"""The few stubs vLLM 0.33's pure-Python config, dispatcher and buffer code needs on a CPU box.

`install(root)` puts the extracted wheel on `sys.path`, has the args oracle import vLLM first
(`vllm_args_oracle.bootstrap()`: one first import per session, under its CUDA platform,
whichever oracle runs first), then installs the stubs below; `vllm_oracle.py` and
`vllm_metrics.py` then import vLLM's real modules. Everything not listed here is
vLLM's own code or a real pip package (see `REQUIRED_PACKAGES`).

Stubs, and why each exists:

* `xgrammar`, `llguidance` (structured-output grammar engines). `vllm.v1.request` imports them
  at module level, and every runner/dispatcher module imports `vllm.v1.request`. Both ship
  compiled wheels and xgrammar pulls in triton (~290 MB); nothing the oracle calls touches a
  grammar, so an import-only stub (any attribute is an empty class) is enough.
* `OraclePlatform` (platform detection). vLLM resolves `current_platform` from the installed
  drivers; on a CPU box it finds none. The oracle needs two answers from it: the device
  capability (`_set_cudagraph_sizes` asks `is_device_capability_family(100)`, datacenter
  Blackwell, for its 1024-token ceiling) and "no pinned memory" (CPU-side staging buffers).
  It subclasses vLLM's own `Platform`, so `is_device_capability_family` is vLLM's code; only
  `get_device_capability` is ours. `set_capability()` flips it per config.
* No CUDA kernels are stubbed: the triton kernels the proposers register at `__init__` use
  vLLM's own no-triton placeholders (`vllm.triton_utils`), and buffers are allocated on CPU.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import sys
import types
from pathlib import Path
from typing import Any

# pip packages vLLM's imported modules need (beyond torch, pydantic, msgspec, regex,
# cachetools, psutil, cloudpickle, pyyaml, numpy already in the test environment)
REQUIRED_PACKAGES = (
    "transformers", "cbor2", "pyzmq", "aiohttp", "openai", "openai-harmony", "requests",
    "py-cpuinfo", "prometheus_client", "einops",
)

_STUBBED_TOP_LEVEL = ("xgrammar", "llguidance")


class _ImportOnlyModule(types.ModuleType):
    """A package whose every public attribute is a fresh empty class (import-only use)."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return type(name, (), {"__module__": self.__name__})


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves `_ImportOnlyModule` packages (and any submodule) for the stubbed names."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname.split(".")[0] in _STUBBED_TOP_LEVEL:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = _ImportOnlyModule(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        return None


_installed = False


def install(root: Path) -> None:
    """Make `import vllm` resolve to the extracted 0.33 sources, with the stubs above."""
    global _installed
    if _installed:
        return
    # quiet, deterministic, CPU-only
    os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")
    os.environ.setdefault("VLLM_CONFIGURE_LOGGING", "1")
    os.environ.setdefault("TORCH_CPP_LOG_LEVEL", "ERROR")
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    # vLLM's first import of the session is the args oracle's, under its CUDA platform (see
    # vllm_args_oracle._bootstrap): the modules that bind the platform at import see a GPU
    from tests.oracle import vllm_args_oracle

    vllm_args_oracle.bootstrap()
    if not any(isinstance(f, _StubFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _StubFinder())
    import vllm.platforms as platforms
    from vllm.platforms.interface import DeviceCapability, Platform, PlatformEnum

    class OraclePlatform(Platform):
        """vLLM's `Platform` with a settable device capability and no pinned memory."""

        _enum = PlatformEnum.OOT
        device_name = "oracle"
        device_type = "cpu"
        capability = DeviceCapability(9, 0)

        @classmethod
        def get_device_capability(cls, device_id: int = 0) -> DeviceCapability:
            return cls.capability

        @classmethod
        def is_pin_memory_available(cls) -> bool:
            return False

        def graph_pool_handle(self) -> None:  # CudaGraphManager asks for a pool
            return None

    platforms._current_platform = OraclePlatform()  # read lazily via platforms.__getattr__
    # the args oracle imported vLLM first with its own platform: drop the answers vLLM
    # cached from it
    vllm_args_oracle._forget_platform_answers()
    # ...and froze that platform's pinned-memory answer into CpuGpuBuffer's default argument
    # (v1/utils.py:118) when it imported vllm.v1.utils: CPU tensors cannot be pinned
    import vllm.v1.utils as v1_utils

    v1_utils.PIN_MEMORY = False  # type: ignore[attr-defined]
    defaults = v1_utils.CpuGpuBuffer.__init__.__kwdefaults__
    if defaults and defaults.get("pin_memory"):
        defaults["pin_memory"] = False
    _installed = True


def set_capability(blackwell: bool) -> None:
    """Capability family 100 (datacenter Blackwell) or 90 (Hopper) for the next calls."""
    import vllm.platforms as platforms
    from vllm.platforms.interface import DeviceCapability

    type(platforms._current_platform).capability = (
        DeviceCapability(10, 0) if blackwell else DeviceCapability(9, 0))
