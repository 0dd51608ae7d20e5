"""An on-disk cache of AOT-compiled graphs, so a restart skips dynamo and inductor.

torch 2.13's precompile API (`torch.compile(fn, fullgraph=True).aot_compile(...)`, saved
with `save_compiled_function` and read back with `torch.compiler.load_compiled_function`,
"experimental" in its docstring) serialises one compiled graph: dynamo's transformed
bytecode, its guards and inductor's bundled output. Loading it costs a few milliseconds in a
warm process instead of a full compile; vLLM 0.34 caches its model the same way
(compilation/decorators.py:292-349 loads, :556-600 keys the folder by a hash of its config
and the model's code; :274-289 re-checks the source files dynamo traced).

A stale artifact must never run, and dynamo's serialised guards do not see everything: they
check the inputs' dtypes and dimensions and the sizes dynamo specialised, not the modules fn
closes over (measured: swapping a GELU for a ReLU, or dropping a Linear's bias, still passes
them). So every artifact is filed under a key of
- fn's fingerprint: its code objects (nested ones included), the closure's and the used
  globals' values -- for an `nn.Module` every submodule's type, plain attributes and every
  parameter's and buffer's name, shape, dtype and device (not the values: weights are graph
  inputs, read at each call);
- the static views' dtypes, devices, ranks and trailing sizes;
- the compile backend, grad / inference mode, torch's and Python's versions;
- the machine facts inductor's CPU code depends on (`machine_facts`): the CPU's ISA flags,
  ATen's CPU capability, the C++ compiler binary -- inductor generates vector code for the ISA
  it picked, so an artifact made for AVX-512 is never offered to an AVX2 machine;
- the caller's own `key` (anything the fingerprint cannot see: a model config, a flag);
and on load the file's checksum, torch's own compatibility check (torch / Python / GPU),
the text of every module dynamo traced (unchanged since the save, as vLLM checks) and the
guards on the first call must all pass; anything else -- a missing, truncated, corrupt or
stale file -- is discarded and fn is compiled again.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import inspect
import io
import json
import os
import platform
import shutil
import sys
import types
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from graphfit.planner import ConfigError

MAGIC = b"graphfit-aot/1\n"  # file format: MAGIC, sha256 hex of the payload, "\n", payload
_PLAIN = (int, float, str, bool, type(None), bytes, complex)
_DEPTH = 6  # how far the fingerprint follows functions it finds (closures, globals)


@dataclass(frozen=True)
class CompileCache:
    """Where `CompiledBackend` keeps its AOT-compiled artifacts, and the caller's own key part.

    `key` is for what fn's fingerprint cannot see (a model's config, a weights revision whose
    shapes match, an environment flag fn reads): two runs share artifacts only when it is
    equal. The folder holds one sub-folder per key; delete it to start cold.
    """

    directory: Path
    key: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.directory, (str, os.PathLike)):
            raise ConfigError(f"compile cache: directory must be a path, got "
                              f"{type(self.directory).__name__}")
        object.__setattr__(self, "directory", Path(self.directory).expanduser())
        if not isinstance(self.key, str):
            raise ConfigError(f"compile cache: key must be a string, got "
                              f"{type(self.key).__name__}")

    def folder(self, fn: Callable[..., Any], views: Mapping[str, torch.Tensor],
               compile_backend: str) -> Path:
        """The sub-folder of fn's artifacts for these views (see the module docstring)."""
        parts = [
            "fn=" + fingerprint(fn),
            "views=" + ";".join(f"{name}:{v.dtype}:{v.device}:{v.dim()}:{tuple(v.shape[1:])}"
                                for name, v in sorted(views.items())),
            f"backend={compile_backend}",
            f"grad={torch.is_grad_enabled()}:{torch.is_inference_mode_enabled()}",
            f"torch={torch.__version__}",
            f"python={platform.python_version()}:{sys.implementation.cache_tag}",
            f"machine={machine_facts()}",
            f"key={self.key}",
        ]
        digest = hashlib.sha256("\n".join(parts).encode()).hexdigest()
        return self.directory / digest[:32]


# -- fingerprint --------------------------------------------------------------------------------

def fingerprint(obj: object) -> str:
    """A text that changes when fn's code or what it closes over changes shape.

    Not a hash of tensor values: weights are inputs of the compiled graph.
    """
    out: list[str] = []
    _walk(obj, out, set(), 0)
    return hashlib.sha256("\x00".join(out).encode()).hexdigest()


def _walk(obj: object, out: list[str], seen: set[int], depth: int) -> None:
    if isinstance(obj, _PLAIN):
        out.append(repr(obj))
        return
    if id(obj) in seen:
        out.append("<seen>")
        return
    seen.add(id(obj))
    if isinstance(obj, torch.Tensor):
        out.append(f"tensor:{obj.dtype}:{obj.device}:{tuple(obj.shape)}:{obj.requires_grad}")
    elif isinstance(obj, torch.nn.Module):
        _module(obj, out)
    elif isinstance(obj, types.CodeType):
        _code(obj, out, seen, depth)
    elif isinstance(obj, types.MethodType):
        out.append("method")
        _walk(obj.__func__, out, seen, depth)
        _walk(obj.__self__, out, seen, depth)
    elif isinstance(obj, types.FunctionType):
        _function(obj, out, seen, depth)
    elif isinstance(obj, (tuple, list)):
        out.append(f"{type(obj).__name__}[{len(obj)}]")
        for item in obj:
            _walk(item, out, seen, depth)
    elif isinstance(obj, dict):
        out.append(f"dict[{len(obj)}]")
        for k, v in obj.items():
            _walk(k, out, seen, depth)
            _walk(v, out, seen, depth)
    elif isinstance(obj, types.ModuleType):
        out.append(f"module:{obj.__name__}")
    else:
        out.append(f"object:{type(obj).__module__}.{type(obj).__qualname__}")


def _module(mod: torch.nn.Module, out: list[str]) -> None:
    for name, sub in mod.named_modules():
        out.append(f"nn:{name}:{type(sub).__module__}.{type(sub).__qualname__}")
        for attr, value in sorted(vars(sub).items()):
            if not attr.startswith("_") and isinstance(value, (*_PLAIN, tuple)):
                out.append(f"{attr}={value!r}")
        for pname, t in list(sub.named_parameters(recurse=False)) + list(
                sub.named_buffers(recurse=False)):
            out.append(f"{pname}:{t.dtype}:{t.device}:{tuple(t.shape)}:{t.requires_grad}")


def _code(code: types.CodeType, out: list[str], seen: set[int], depth: int) -> None:
    out.append(f"code:{code.co_qualname if hasattr(code, 'co_qualname') else code.co_name}:"
               f"{code.co_code.hex()}:{code.co_names}:{code.co_varnames}:{code.co_freevars}")
    for const in code.co_consts:
        _walk(const, out, seen, depth)


def _function(fn: types.FunctionType, out: list[str], seen: set[int], depth: int) -> None:
    out.append(f"function:{fn.__module__}.{fn.__qualname__}")
    _code(fn.__code__, out, seen, depth)
    if depth >= _DEPTH:
        return
    _walk(fn.__defaults__, out, seen, depth + 1)
    for cell in fn.__closure__ or ():
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            out.append("<empty>")
            continue
        _walk(value, out, seen, depth + 1)
    for name in fn.__code__.co_names:  # globals fn reads (attribute names are skipped)
        if name in fn.__globals__:
            out.append(f"global:{name}")
            _walk(fn.__globals__[name], out, seen, depth + 1)


# -- files --------------------------------------------------------------------------------------

def write_artifact(path: Path, payload: bytes) -> None:
    """Atomically: a reader sees the whole file or none (a crash mid-write leaves no file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(MAGIC + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload)
    os.replace(tmp, path)


def read_artifact(path: Path) -> bytes | None:
    """The payload, or None when the file is not a whole graphfit artifact (checksum)."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if not data.startswith(MAGIC):
        return None
    head, sep, payload = data[len(MAGIC):].partition(b"\n")
    if not sep or hashlib.sha256(payload).hexdigest().encode() != head:
        return None
    return payload


def sources_unchanged(loaded: Any) -> bool:
    """Every module dynamo traced reads the same now as when the artifact was saved.

    The artifact stores each traced module's whole text; like vLLM, any edit to such a file
    (not only to the traced lines) refuses the artifact.
    """
    for src in loaded.source_info().inlined_sources:
        module = sys.modules.get(src.module)
        if module is None:
            return False
        try:
            if inspect.getsource(module) != src.content:
                return False
        except (OSError, TypeError):
            return False
    return True


def load(path: Path, fn: Callable[..., Any]) -> Any | None:
    """The AOT-compiled function saved at path, or None if it may not be used."""
    payload = read_artifact(path)
    if payload is None:
        return None
    try:
        with isa_probes(path.parent), no_header_precompile():
            loaded = torch.compiler.load_compiled_function(io.BytesIO(payload),
                                                           external_data={"fn": fn})
        return loaded if sources_unchanged(loaded) else None
    except Exception:
        return None


def save(path: Path, compiled: Any, fn: Callable[..., Any]) -> None:
    """Serialise an AOT-compiled function; fn itself is not pickled (passed back at load)."""
    result = type(compiled).serialize(compiled, {"fn": fn})
    write_artifact(path, result.serialized_data)


# -- a fresh process's start-up on a hit -------------------------------------------------------
#
# Loading an artifact executes inductor's generated module, and in a new process that module's
# first C++ kernel makes inductor (torch/_inductor/codecache.py `CppPythonBindingsCodeCache.
# load_async`) (a) pick the CPU's vector ISA: `cpu_vec_isa.valid_vec_isa_list` compiles a probe
# per candidate ISA (a g++ build cached on disk) and, every process, spawns a Python child to
# dlopen it (`VecISA._probe_load`, ~0.1-0.35 s each, 4-6 of them here: avx512_vnni, avx512 +
# its bf16 sub-probe, avx2); (b) preprocess its prefix header with `g++ -E` to key a
# precompiled header (`_precompile_header`), also every process, even when the kernel's .so is
# already built. Neither changes what a hit runs: (a)'s verdicts are facts of this CPU, this
# compiler and this torch -- all in the cache key -- and (b) only speeds up a build.

PROBES = "isa-probes.bin"  # per key folder: the ISA probes that passed, same file format


@functools.cache
def machine_facts() -> str:
    """What inductor's CPU code and its ISA probes depend on besides torch's version.

    The CPU's flag lines (/proc/cpuinfo, all distinct ones: hybrid CPUs), ATen's dispatch
    capability and the environment that overrides it, inductor's ISA settings, and the C++
    compiler binary (resolved path, size, mtime: a compiler upgrade misses).
    """
    flags: set[str] = set()
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as cpuinfo:
            flags = {line.split(":", 1)[-1].strip() for line in cpuinfo
                     if line.lower().startswith(("flags", "features"))}
    except OSError:
        flags = {platform.processor()}
    parts = [platform.machine(), hashlib.sha256("\n".join(sorted(flags)).encode()).hexdigest(),
             str(torch.backends.cpu.get_cpu_capability()),
             os.environ.get("ATEN_CPU_CAPABILITY", "")]
    try:
        from torch._inductor import config as inductor_config
        from torch._inductor.cpp_builder import get_cpp_compiler

        parts += [f"simdlen={inductor_config.cpp.simdlen}",
                  f"vec_isa_ok={inductor_config.cpp.vec_isa_ok}"]
        compiler = shutil.which(get_cpp_compiler()) or get_cpp_compiler()
        stat = os.stat(os.path.realpath(compiler))
        parts.append(f"cxx={os.path.realpath(compiler)}:{stat.st_size}:{stat.st_mtime_ns}")
    except Exception as exc:  # no inductor / compiler: the key says so
        parts.append(f"cxx=<{type(exc).__name__}>")
    return ";".join(parts)


def _probe_key(isa: Any, code: str) -> str:
    return (f"{type(isa).__qualname__}:{isa}:{isa.build_arch_flags()}:"
            f"{hashlib.sha256(code.encode()).hexdigest()}")


@contextlib.contextmanager
def isa_probes(folder: Path) -> Iterator[None]:
    """Inductor's ISA probes answered from the key folder's record; new passes recorded.

    Only passing probes are recorded and replayed: a failure (or a probe that timed out under
    load) always runs torch's own probe again. The record lives in the key folder, so it is
    only replayed for the same CPU flags, compiler and torch version (`machine_facts`). While
    active, any thread's probe goes through the record (they all probe this same machine).
    """
    try:
        from torch._inductor import cpu_vec_isa

        original = cpu_vec_isa.VecISA.check_build
    except Exception:  # no inductor, or a torch whose probe moved: torch probes as usual
        yield
        return
    path = folder / PROBES
    payload = read_artifact(path)
    try:
        known = {str(k) for k in json.loads(payload)} if payload is not None else set()
    except ValueError:
        known = set()
    new: set[str] = set()

    def check_build(isa: Any, code: str) -> bool:
        try:
            key = _probe_key(isa, code)
        except Exception:  # an ISA without the attributes the key reads: not recorded
            return bool(original(isa, code))
        if key in known:
            return True
        passed = bool(original(isa, code))
        if passed:
            new.add(key)
        return passed

    cpu_vec_isa.VecISA.check_build = check_build  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        cpu_vec_isa.VecISA.check_build = original  # type: ignore[method-assign]
        if new:
            with contextlib.suppress(OSError):
                write_artifact(path, json.dumps(sorted(known | new)).encode())


@contextlib.contextmanager
def no_header_precompile() -> Iterator[None]:
    """Skip inductor's per-process `g++ -E` of its prefix header while loading.

    The precompiled header only speeds up building a kernel; a hit's kernels are already
    built (their .so is found by a key computed before the header is looked at), and a missing
    one is still built, without the header.
    """
    try:
        from torch._inductor import config as inductor_config
    except Exception:
        yield
        return
    with inductor_config.patch(cpp_cache_precompile_headers=False):
        yield
