"""Backends that turn `fn(static views)` into a replayable graph.

All three keep the same contract: a graph is captured once per static shape and replays on the
same tensors, whose contents the runner rewrote in place -- so the CPU backends exercise the
exact static-shape semantics a CUDA graph imposes, and the runtime is testable without a GPU.

- `CPUBackend` ("cpu"): replay calls `fn` on the captured static views.
- `CUDABackend` ("cuda"): `torch.cuda.graph`, warm-up and capture on one shared side stream,
  every graph in one memory pool (the runner captures largest first so smaller graphs reuse
  its blocks); replay returns the graph's static outputs, valid until the next replay. A
  stream given without a pool still gets one shared pool (`torch.cuda.graph(pool=None)`
  would give every graph its own).
- `CompiledBackend` ("compiled"): one `torch.compile(dynamic=True, fullgraph=True)` per fn
  and a graph per shape bound to it; replay calls the compiled artifact directly, bypassing
  dynamo's guards as vLLM's piecewise backend does for its compiled sizes. With inductor,
  a wrong-sized input trips the generated code's `assert_size_stride` ("expected size
  132==136") instead of recompiling. With a `CompileCache` the compiled artifact is saved
  to disk (torch's precompile API) and a restart on the same fn and shapes loads it instead
  of compiling (compile_cache.py says what keys it and when a file is refused).
"""

from __future__ import annotations

import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol, TypeAlias

import torch

from graphfit.cudagraph import compile_cache
from graphfit.cudagraph.compile_cache import CompileCache
from graphfit.planner import ConfigError, GraphfitError, excerpt

Outputs: TypeAlias = torch.Tensor | tuple[torch.Tensor, ...]
GraphFn: TypeAlias = Callable[[Mapping[str, torch.Tensor]], Outputs]


def output_tensors(out: object) -> tuple[torch.Tensor, ...]:
    """fn's result as a tuple of tensors; GraphfitError for anything else."""
    if isinstance(out, torch.Tensor):
        return (out,)
    if isinstance(out, tuple) and out and all(isinstance(t, torch.Tensor) for t in out):
        return out
    got = "an empty tuple" if out == () else type(out).__name__
    raise GraphfitError(f"fn must return a tensor or a tuple of tensors (at least one), got {got}")


class Graph(Protocol):
    """A captured graph: `replay()` reruns it on its static inputs."""

    def replay(self) -> Outputs: ...


class Backend(Protocol):
    """Captures `fn` on static views (called largest shape first by the runner)."""

    @property
    def name(self) -> str: ...

    def capture(self, fn: GraphFn, views: dict[str, torch.Tensor]) -> Graph: ...


# -- CPU ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class CPUGraph:
    fn: GraphFn
    views: dict[str, torch.Tensor]
    holds_output: bool = True  # False once weakened (CPU outputs are fresh each replay)

    def replay(self) -> Outputs:
        return self.fn(self.views)

    def weakened(self) -> CPUGraph:
        """The CUDA contract mirrored: outputs no longer kept between replays."""
        return CPUGraph(self.fn, self.views, holds_output=False)


@dataclass(frozen=True)
class CPUBackend:
    """Static-shape replay without a GPU: fn always sees the captured views, nothing else."""

    name: str = "cpu"
    # a staging copy run by the graph function repeats at each replay (graphfit.cudagraph.
    # staging): the function is the graph
    records_copies: ClassVar[bool] = True

    def capture(self, fn: GraphFn, views: dict[str, torch.Tensor]) -> CPUGraph:
        output_tensors(fn(views))  # warm-up, and fail at capture on a bad return type
        return CPUGraph(fn, views)


# -- CUDA ---------------------------------------------------------------------------------------

def weak_ref(t: torch.Tensor) -> torch.Tensor:
    """A tensor over `t`'s device memory that does not keep that memory alive.

    Built with `torch.as_tensor` over a `__cuda_array_interface__` (version 2) holding only
    the pointer, shape and strides; the view is taken as a same-width integer and viewed
    back to t's dtype (the interface has no bfloat16). What vLLM's `weak_ref_tensor` op does
    (compilation/cuda_graph.py:337 in 0.33), with PyTorch's documented interop instead.
    """
    if not t.is_cuda:
        return t
    size = t.element_size()
    typestr = {1: "|u1", 2: "<i2", 4: "<i4", 8: "<i8"}.get(size)
    if typestr is None:
        raise GraphfitError(f"weak outputs: {t.dtype} has no integer of its width")

    alias = torch.as_tensor(_Alias({
        "shape": tuple(t.shape), "typestr": typestr, "data": (t.data_ptr(), False),
        "strides": tuple(s * size for s in t.stride()), "version": 2}), device=t.device)
    return alias if alias.dtype == t.dtype else alias.view(t.dtype)


class _Alias:
    """Only a `__cuda_array_interface__`: what torch.as_tensor wraps without owning."""

    def __init__(self, interface: dict[str, object]) -> None:
        self.__cuda_array_interface__ = interface


@dataclass(frozen=True)
class CUDAGraphReplay:
    graph: torch.cuda.CUDAGraph
    outputs: Outputs
    holds_output: bool = True

    def replay(self) -> Outputs:
        self.graph.replay()
        return self.outputs

    def weakened(self) -> CUDAGraphReplay:
        """The graph with its outputs held by weak reference: their blocks go back to the
        pool for the next capture, and replay still returns tensors over them."""
        outs = self.outputs
        weak: Outputs = weak_ref(outs) if isinstance(outs, torch.Tensor) else tuple(
            weak_ref(t) for t in outs)
        return CUDAGraphReplay(self.graph, weak, holds_output=False)


@dataclass
class CUDABackend:
    """`torch.cuda.graph` capture into one shared pool on one shared capture stream."""

    warmup: int = 3
    name: str = "cuda"
    # a host-to-device copy from pinned memory in the graph function is captured as a node
    records_copies: ClassVar[bool] = True
    pool: Any = field(default=None, repr=False)
    stream: torch.cuda.Stream | None = field(default=None, repr=False)

    def capture(self, fn: GraphFn, views: dict[str, torch.Tensor]) -> CUDAGraphReplay:
        if not torch.cuda.is_available():
            raise ConfigError("backend: 'cuda' needs a CUDA device (use 'cpu' or 'compiled')")
        if self.stream is None:
            self.stream = torch.cuda.Stream()  # type: ignore[no-untyped-call]
        if self.pool is None:  # also for a stream given alone: one pool, never one per graph
            self.pool = torch.cuda.graph_pool_handle()
        stream = self.stream
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for _ in range(self.warmup):  # lazy inits, cuBLAS workspaces: never inside capture
                fn(views)
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, pool=self.pool, stream=stream):
            out = fn(views)
        output_tensors(out)
        return CUDAGraphReplay(graph, out)

    def reset(self) -> None:
        """Forget the pool (after every graph in it was released): the next capture starts
        a new one."""
        self.pool = None


# -- torch.compile ------------------------------------------------------------------------------

def _private_entry(fn: GraphFn, name: str) -> GraphFn:
    """A wrapper with its own code object, so dynamo gives it a fresh cache.

    Dynamo caches compiled frames per code object; without this, a second runner over the same
    fn and shapes would hit the first runner's entry (bound to the first runner's tensors) and
    the recompile limit (8) would cap the number of captured sizes.
    """
    def entry(views: Mapping[str, torch.Tensor]) -> Outputs:
        return fn(views)

    code = entry.__code__.replace(co_name=name)
    wrapped = types.FunctionType(code, entry.__globals__, name, None, entry.__closure__)
    return wrapped


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.is_floating_point():
        return torch.equal(a.isnan(), b.isnan()) and torch.equal(a.nan_to_num(0), b.nan_to_num(0))
    return torch.equal(a, b)


@dataclass
class CompiledGraph:
    """A compiled artifact bound to the static views it was compiled on."""

    artifact: Callable[..., Any]
    args: list[Any]
    views: dict[str, torch.Tensor]
    single: bool

    def replay(self) -> Outputs:
        return self._pack(self.artifact(*self.args))

    def call_with(self, replace: Mapping[str, torch.Tensor]) -> Outputs:
        """Run the artifact with some static views swapped for other tensors, unchecked.

        This is what an engine does when it slices its own buffer (`buf[:136]`) and hands the
        result to a compiled graph: with inductor a short tensor raises AssertionError.
        """
        args = list(self.args)
        for name, tensor in replace.items():
            view = self.views[name]
            hits = [i for i, a in enumerate(args) if a is view]
            if not hits:
                raise GraphfitError(f"compiled graph does not read {name!r}")
            for i in hits:
                args[i] = tensor
        return self._pack(self.artifact(*args))

    def _pack(self, flat: Sequence[torch.Tensor] | torch.Tensor) -> Outputs:
        items = (flat,) if isinstance(flat, torch.Tensor) else tuple(flat)
        return items[0] if self.single else items


def _call_unducked(compiled_fn: Callable[..., Any], views: dict[str, torch.Tensor]) -> Any:
    """Call through dynamo the way one dynamic compile serves every size.

    - No duck sizing: otherwise a size that happens to equal a view's storage offset (or
      another buffer's size) at the first capture becomes a guard, and the next size
      recompiles. torch's own switch for it is a private config.
    - Python floats specialised: dynamo otherwise traces a float constant of fn (a scale, an
      epsilon) as a symbolic float, finds at the end that it cannot turn it into a tensor and
      restarts the whole analysis -- a second trace and compiler call that cost about 40% of
      the compile (TORCH_LOGS=dynamo: "Restarting analysis due to ..._tensorify_python_scalars").
      A graph's constants do not change between replays, so nothing is lost.
    """
    from torch._dynamo import config as dynamo_config
    from torch.fx.experimental import _config as fx_config

    unducked = fx_config.patch(use_duck_shape=False)  # type: ignore[attr-defined]
    with unducked, dynamo_config.patch(specialize_float=True):
        return compiled_fn(views)


@dataclass
class _Loaded:
    """One AOT-compiled artifact of a cached fn, its compiled graph's calls recorded."""

    aot: Any  # torch._dynamo.aot_compile.AOTCompiledFunction
    calls: list[tuple[Callable[..., Any], list[Any]]]


def _recorded(aot: Any) -> _Loaded | None:
    """Route the artifact's compiled graph through a recorder of its size-bound arguments.

    The AOT function's bytecode calls the compiled graph through a global named by its
    backend id (torch/_dynamo/convert_frame.py `forward_callable`); swapping that global is
    how the arguments are seen, so replay can call the graph directly as without the cache.
    """
    try:
        backend_id = aot._artifacts.backend_id
        scope = aot.fn.__globals__
        compiled = scope[backend_id]
    except (AttributeError, KeyError, TypeError):  # another torch's layout: not used
        return None
    calls: list[tuple[Callable[..., Any], list[Any]]] = []

    def run(*args: Any) -> Any:
        calls.append((compiled, list(args)))
        return compiled(*args)

    scope[backend_id] = run
    return _Loaded(aot, calls)


def _guards_pass(aot: Any, views: dict[str, torch.Tensor]) -> bool:
    try:
        return bool(aot.guard_check(views))
    except Exception:
        return False


@dataclass
class _CachedFn:
    fn: GraphFn
    folder: Path
    loaded: list[_Loaded]


@dataclass
class CompiledBackend:
    """torch.compile once with dynamic shapes, then a graph per size; direct artifact replay.

    With `dynamic=True` (the default) each fn is compiled once with symbolic sizes (dynamo
    specialises sizes 0 and 1, so a ladder holding 1 costs one more artifact). `compiles`
    counts the artifacts the graphs replay; `compiler_calls` counts dynamo's calls to the
    compiler, restarts included. Each captured size binds the artifact to that size's
    arguments (its static views and concrete sizes, recorded from one call through dynamo)
    and replay calls the artifact directly, bypassing dynamo's guards as vLLM's piecewise
    backend does.
    `dynamic=False` compiles once per size (what vLLM does for its `compile_sizes`).

    `cache`: a `CompileCache` (dynamic only): each compiled artifact is saved with torch's
    precompile API, and a backend in a later process (an engine restarting on the same model
    and sizes) loads it instead of running dynamo, AOT autograd and inductor. A file that is
    corrupt, stale (another key, changed traced sources) or whose guards refuse the views is
    never used: fn is compiled again. `cache_loads` / `cache_stores` / `cache_rejected` count
    artifacts read, written and discarded. A store that fails (a read-only cache, a torch
    whose precompile API cannot serialise this artifact) only costs the next process a
    compile; `cache_store_error` keeps the last such failure so that it is seen, not guessed.

    `compile_backend` is a dynamo backend name: "inductor" generates code that asserts input
    sizes (the seed bug's AssertionError); "aot_eager" and "eager" compile fast but do not
    check sizes, so a short tensor would run silently. Compiled graphs are not bit-exact
    with eager: inductor fuses and reorders floating-point arithmetic.
    """

    compile_backend: str = "inductor"
    name: str = "compiled"
    dynamic: bool = True
    captured: int = field(default=0, repr=False)  # graphs captured (one per size)
    compiler_calls: int = field(default=0, repr=False)  # dynamo's calls to the compiler
    cache: CompileCache | None = None
    cache_loads: int = field(default=0, repr=False)
    cache_stores: int = field(default=0, repr=False)
    cache_rejected: int = field(default=0, repr=False)
    cache_store_error: str | None = field(default=None, repr=False)
    _artifacts: dict[int, Callable[..., Any]] = field(default_factory=dict, repr=False)
    _entries: dict[int, tuple[GraphFn, Callable[..., Any], list[Any]]] = field(
        default_factory=dict, repr=False)
    _cached: dict[int, _CachedFn] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.cache is not None and not isinstance(self.cache, CompileCache):
            raise ConfigError(f"compiled backend: cache must be a CompileCache, got "
                              f"{type(self.cache).__name__}")
        if self.cache is not None and not self.dynamic:
            raise ConfigError("compiled backend: a compile cache needs dynamic=True")

    def capture(self, fn: GraphFn, views: dict[str, torch.Tensor]) -> CompiledGraph:
        from torch._dynamo.backends.registry import lookup_backend

        if self.cache is not None:
            cached = self._capture_cached(fn, views, self.cache)
            if cached is not None:
                return cached
        entry = self._entries.get(id(fn)) if self.dynamic else None
        if entry is None or entry[0] is not fn:
            inner = lookup_backend(self.compile_backend)
            calls: list[tuple[Callable[..., Any], list[Any]]] = []

            def recording(gm: torch.fx.GraphModule, example_inputs: list[Any]) -> Any:
                self.compiler_calls += 1
                compiled = inner(gm, example_inputs)

                def run(*args: Any) -> Any:
                    calls.append((compiled, list(args)))  # this call's size-bound arguments
                    return compiled(*args)
                return run

            name = f"graphfit_graph_{self.captured + 1}"
            compiled_fn = torch.compile(_private_entry(fn, name), backend=recording,
                                        dynamic=self.dynamic, fullgraph=True)
            entry = (fn, compiled_fn, calls)
            if self.dynamic:
                self._entries[id(fn)] = entry
        _, compiled_fn, calls = entry
        calls.clear()
        self.captured += 1
        # detached aliases (same memory): a view of the whole buffer would otherwise make
        # dynamo guard on `_base.size() == size()` and recompile for every smaller size
        views = {name: view.detach() for name, view in views.items()}
        raw = _call_unducked(compiled_fn, views) if self.dynamic else compiled_fn(views)
        return self._bind(calls, views, raw)

    def _bind(self, calls: list[tuple[Callable[..., Any], list[Any]]],
              views: dict[str, torch.Tensor], raw: Any) -> CompiledGraph:
        """The graph of the one compiled call just made, its output mapping checked once."""
        reference = output_tensors(raw)
        if len(calls) != 1:
            raise GraphfitError(f"compiled backend: expected one graph, dynamo made "
                                f"{len(calls)}")
        artifact, args = calls[0]
        calls.clear()
        graph = CompiledGraph(artifact, args, views, single=isinstance(raw, torch.Tensor))
        if id(artifact) in self._artifacts:
            # checked at the artifact's first size: how its outputs map onto fn's return
            # value is fixed when it is compiled, so a replay + compare per size is saved
            return graph
        direct = output_tensors(graph.replay())
        if len(direct) != len(reference) or not all(
                _same(a, b) for a, b in zip(direct, reference)):
            raise GraphfitError("compiled backend: the graph's outputs do not map 1:1 onto fn's "
                                "return value (aliased or constant outputs?); use 'cpu'")
        self._artifacts[id(artifact)] = artifact
        return graph

    def _capture_cached(self, fn: GraphFn, views: dict[str, torch.Tensor],
                        cache: CompileCache) -> CompiledGraph | None:
        """Capture through an artifact loaded from (or compiled into) the cache; None when
        torch cannot precompile this fn / backend (the caller then compiles as usual)."""
        views = {name: view.detach() for name, view in views.items()}
        state = self._cached.get(id(fn))
        if state is None or state.fn is not fn:
            state = _CachedFn(fn, cache.folder(fn, views, self.compile_backend), [])
            for path in sorted(state.folder.glob("artifact-*.bin")):
                aot = compile_cache.load(path, fn)
                loaded = _recorded(aot) if aot is not None else None
                if loaded is None:  # corrupt, stale or unreadable: never used, removed
                    self.cache_rejected += 1
                    path.unlink(missing_ok=True)
                    continue
                self.cache_loads += 1
                state.loaded.append(loaded)
            self._cached[id(fn)] = state
        entry = next((e for e in state.loaded if _guards_pass(e.aot, views)), None)
        if entry is None:
            entry = self._precompile(fn, views, state)
            if entry is None:
                return None
        self.captured += 1
        entry.calls.clear()
        raw = entry.aot(views)
        return self._bind(entry.calls, views, raw)

    def _precompile(self, fn: GraphFn, views: dict[str, torch.Tensor],
                    state: _CachedFn) -> _Loaded | None:
        from torch._dynamo import config as dynamo_config
        from torch.fx.experimental import _config as fx_config

        name = f"graphfit_graph_{self.captured + 1}"
        # torch attaches `.aot_compile` to the compiled fn only with this flag on: its
        # default is True in torch 2.13 but False in 2.11, where the cache silently stored
        # nothing without it (seen on a GPU machine's torch 2.11)
        with dynamo_config.patch(enable_aot_compile=True):
            compiled_fn = torch.compile(_private_entry(fn, name), backend=self.compile_backend,
                                        dynamic=True, fullgraph=True)
        if not hasattr(compiled_fn, "aot_compile"):
            self.cache_store_error = (f"torch {torch.__version__} has no precompile API "
                                      "(torch.compile(...).aot_compile)")
            return None
        unducked = fx_config.patch(use_duck_shape=False)  # type: ignore[attr-defined]
        try:
            with (unducked, dynamo_config.patch(specialize_float=True),
                  compile_cache.isa_probes(state.folder)):
                aot = compiled_fn.aot_compile(((views,), {}))
        except Exception as exc:  # a fn or backend torch cannot precompile: compiled as usual
            self.cache_store_error = f"aot_compile: {type(exc).__name__}: {exc}"[:300]
            return None
        self.compiler_calls += 1
        entry = _recorded(aot)
        if entry is None:
            return None
        taken = {p.name for p in state.folder.glob("artifact-*.bin")}
        index = next(i for i in range(len(taken) + 1) if f"artifact-{i:03d}.bin" not in taken)
        try:
            compile_cache.save(state.folder / f"artifact-{index:03d}.bin", aot, fn)
            self.cache_stores += 1
        except Exception as exc:  # a cache that cannot be written (read-only, fn
            # unpicklable, an older torch's serialiser) is only slower: the artifact still
            # serves this process
            self.cache_store_error = f"{type(exc).__name__}: {exc}"[:300]
        state.loaded.append(entry)
        return entry

    @property
    def compiles(self) -> int:
        """Distinct compiled artifacts the captured graphs replay."""
        return len(self._artifacts)

    def reset(self) -> None:
        """Forget compiled fns: the next capture compiles again (or loads from the cache)."""
        self._entries.clear()
        self._cached.clear()


BACKENDS: Mapping[str, Callable[[], Backend]] = {
    "cpu": CPUBackend,
    "cuda": CUDABackend,
    "compiled": CompiledBackend,
    "compiled-aot-eager": lambda: CompiledBackend("aot_eager", name="compiled-aot-eager"),
}


def get_backend(backend: str | Backend) -> Backend:
    """A backend instance from a name ("cpu", "cuda", "compiled", "compiled-aot-eager")."""
    if not isinstance(backend, str):
        if callable(getattr(backend, "capture", None)) and hasattr(backend, "name"):
            return backend
        raise ConfigError(f"backend: expected one of {', '.join(BACKENDS)} or a Backend "
                          f"(with name and capture), got {excerpt(backend)}")
    try:
        return BACKENDS[backend]()
    except KeyError:
        raise ConfigError(
            f"backend: {backend!r} is not one of {', '.join(BACKENDS)}") from None
