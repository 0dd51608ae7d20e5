"""CompiledBackend's on-disk compile cache (torch's precompile API): a later backend over the
same fn and shapes loads the artifact instead of compiling; anything else compiles again.

A "restart" is a second CompiledBackend in this process over the same cache folder: it has no
dynamo cache entry of its own (each capture compiles a fresh private code object), so all it
can reuse is what the folder holds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
import torch

from graphfit import ConfigError, plan
from graphfit.cudagraph import CompileCache, CompiledBackend, GraphRunner, StaticBuffers
from graphfit.cudagraph.compile_cache import MAGIC, read_artifact
from tests.cudagraph.runtime_models import SMALL, TinyDrafter, drafter_batch

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

NAMES = ["input_ids", "positions"]
# the fast dynamo backend these tests compile with; torch 2.11's precompile serialises only
# inductor's output ("expected OutputCode"), so there the same tests run on inductor
FAST = "aot_eager" if tuple(int(p) for p in torch.__version__.split(".")[:2]) >= (2, 13) \
    else "inductor"
PLAN = plan(SMALL)
Fn = Callable[[Mapping[str, torch.Tensor]], torch.Tensor]


def capture(fn: Fn, cache: CompileCache, backend: str = FAST
            ) -> tuple[CompiledBackend, GraphRunner]:
    compiled = CompiledBackend(backend, cache=cache)
    bufs = StaticBuffers.allocate(PLAN, "cpu", "drafter")
    return compiled, GraphRunner(fn, PLAN, bufs, backend=compiled, graph_inputs=NAMES)


def assert_replays_eager(runner: GraphRunner, fn: Fn, seed: int = 7) -> None:
    gen = torch.Generator().manual_seed(seed)
    for r in (8, 3, 1, 6):
        batch = drafter_batch(gen, r, SMALL.uniform_query_len)
        batch.pop("slot_mapping_buffer")
        with torch.no_grad():
            torch.testing.assert_close(runner.step(batch), fn(batch))


def artifacts(root: Path) -> list[Path]:
    return sorted(root.glob("*/artifact-*.bin"))


def test_a_restart_loads_the_artifact_instead_of_compiling(tmp_path: Path) -> None:
    cache = CompileCache(tmp_path)
    model = TinyDrafter()
    first, runner = capture(model.graph_fn, cache)
    assert (first.compiler_calls, first.cache_stores, first.cache_loads) == (1, 1, 0), \
        first.cache_store_error
    assert first.cache_store_error is None
    assert len(runner.graphs) == 5 and first.compiles == 1
    assert_replays_eager(runner, model.graph_fn)
    assert len(artifacts(tmp_path)) == 1

    # other weights, same shapes: the artifact reads weights as inputs, so it is reused
    other = TinyDrafter(seed=2)
    again, runner = capture(other.graph_fn, cache)
    assert (again.compiler_calls, again.cache_loads, again.cache_rejected) == (0, 1, 0)
    assert again.captured == 5 and again.compiles == 1
    assert_replays_eager(runner, other.graph_fn)


def test_the_inductor_artifact_replays_close_to_eager_after_a_restart(tmp_path: Path) -> None:
    cache = CompileCache(tmp_path)
    model = TinyDrafter()
    capture(model.graph_fn, cache, "inductor")
    again, runner = capture(model.graph_fn, cache, "inductor")
    assert (again.compiler_calls, again.cache_loads) == (0, 1)
    assert_replays_eager(runner, model.graph_fn)


def test_a_changed_key_misses(tmp_path: Path) -> None:
    model = TinyDrafter()
    capture(model.graph_fn, CompileCache(tmp_path))
    other, runner = capture(model.graph_fn, CompileCache(tmp_path, key="model rev 2"))
    assert (other.compiler_calls, other.cache_loads, other.cache_stores) == (1, 0, 1)
    assert len(artifacts(tmp_path)) == 2  # one folder per key
    assert_replays_eager(runner, model.graph_fn)


def test_a_changed_module_misses(tmp_path: Path) -> None:
    """dynamo's serialised guards pass a module whose Linear lost its bias (measured): the
    key's fingerprint of the modules fn closes over must catch it."""
    model = TinyDrafter()
    capture(model.graph_fn, CompileCache(tmp_path))
    changed = TinyDrafter()
    changed.mix = torch.nn.Linear(8, 8, bias=False)
    backend, runner = capture(changed.graph_fn, CompileCache(tmp_path))
    assert (backend.compiler_calls, backend.cache_loads) == (1, 0)
    assert_replays_eager(runner, changed.graph_fn)


def test_the_key_follows_code_modules_views_and_caller_key(tmp_path: Path) -> None:
    cache = CompileCache(tmp_path)
    views = {"x": torch.zeros(8, 4)}
    a, b = TinyDrafter(), TinyDrafter(seed=3)

    def double(v: Mapping[str, torch.Tensor]) -> torch.Tensor:
        return v["x"] * 2

    def triple(v: Mapping[str, torch.Tensor]) -> torch.Tensor:
        return v["x"] * 3

    base = cache.folder(a.graph_fn, views, "inductor")
    assert cache.folder(b.graph_fn, {"x": torch.ones(3, 4)}, "inductor") == base  # sizes, values
    gelu = TinyDrafter()
    gelu.mix = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.GELU())
    tanh = TinyDrafter()
    tanh.mix = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.GELU(approximate="tanh"))
    different = {
        cache.folder(double, views, "inductor"),
        cache.folder(triple, views, "inductor"),
        cache.folder(gelu.graph_fn, views, "inductor"),
        cache.folder(tanh.graph_fn, views, "inductor"),
        cache.folder(a.graph_fn, {"x": torch.zeros(8, 4, dtype=torch.float64)}, "inductor"),
        cache.folder(a.graph_fn, {"x": torch.zeros(8, 5)}, "inductor"),
        cache.folder(a.graph_fn, views, "aot_eager"),  # a key only: nothing compiled
        CompileCache(tmp_path, key="k").folder(a.graph_fn, views, "inductor"),
        base,
    }
    assert len(different) == 9


@pytest.mark.parametrize("damage", ["truncated", "flipped byte", "not graphfit's", "empty"])
def test_a_corrupt_artifact_is_never_used(tmp_path: Path, damage: str) -> None:
    model = TinyDrafter()
    capture(model.graph_fn, CompileCache(tmp_path))
    (path,) = artifacts(tmp_path)
    data = path.read_bytes()
    path.write_bytes({"truncated": data[: len(data) // 2],
                      "flipped byte": data[:-10] + bytes([data[-10] ^ 0xFF]) + data[-9:],
                      "not graphfit's": data[len(MAGIC):],
                      "empty": b""}[damage])
    assert read_artifact(path) is None
    backend, runner = capture(model.graph_fn, CompileCache(tmp_path))
    assert (backend.cache_rejected, backend.cache_loads, backend.compiler_calls) == (1, 0, 1)
    assert_replays_eager(runner, model.graph_fn)
    (rewritten,) = artifacts(tmp_path)  # the bad file was replaced by a whole one
    assert read_artifact(rewritten) is not None
    third, _ = capture(model.graph_fn, CompileCache(tmp_path))
    assert (third.cache_loads, third.compiler_calls) == (1, 0)


def test_an_artifact_whose_payload_does_not_load_is_recompiled(tmp_path: Path) -> None:
    """A whole file (checksum right) that torch cannot load -- e.g. written by another torch
    -- is discarded, not trusted."""
    from graphfit.cudagraph.compile_cache import write_artifact

    model = TinyDrafter()
    capture(model.graph_fn, CompileCache(tmp_path))
    (path,) = artifacts(tmp_path)
    write_artifact(path, b"not a pickle")
    backend, runner = capture(model.graph_fn, CompileCache(tmp_path))
    assert (backend.cache_rejected, backend.compiler_calls) == (1, 1)
    assert_replays_eager(runner, model.graph_fn)


def test_a_cache_needs_dynamic_shapes_and_a_compile_cache(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="needs dynamic=True"):
        CompiledBackend(dynamic=False, cache=CompileCache(tmp_path))
    with pytest.raises(ConfigError, match="must be a CompileCache"):
        CompiledBackend(cache=str(tmp_path))  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="must be a path"):
        CompileCache(3)  # type: ignore[arg-type]


def test_an_edited_source_file_refuses_the_artifact(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The code object in memory is the same (the module is not reloaded), so the key does not
    change; the traced module's text on disk did, so the artifact is stale (vLLM's check)."""
    import importlib
    import linecache

    src = tmp_path / "src"
    src.mkdir()
    module_file = src / "graphfit_cache_probe.py"
    module_file.write_text("def fn(views):\n    return views['positions'].float() * 2\n")
    monkeypatch.syspath_prepend(str(src))
    probe = importlib.import_module("graphfit_cache_probe")
    try:
        cache = CompileCache(tmp_path / "cache")
        capture(probe.fn, cache)
        again, _ = capture(probe.fn, cache)
        assert (again.cache_loads, again.compiler_calls) == (1, 0)
        module_file.write_text("def fn(views):\n    return views['positions'].float() * 3\n")
        linecache.checkcache(str(module_file))
        edited, _ = capture(probe.fn, cache)
        assert (edited.cache_rejected, edited.cache_loads, edited.compiler_calls) == (1, 0, 1)
    finally:
        import sys
        sys.modules.pop("graphfit_cache_probe", None)
