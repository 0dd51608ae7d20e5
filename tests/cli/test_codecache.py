"""The console script's cache of dataclass methods (graphfit.cli.codecache), and the lazy
package attributes that let the console script install it before anything is imported.

What must hold: a dataclass made through the cache is the dataclass `dataclasses` makes
without it (signature, annotations, defaults, repr, equality, hash, frozenness); a cache file
that is corrupt, foreign or unwritable is never an error, only a cache miss; only the console
script touches `dataclasses`; and `import graphfit` still gives every public name.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import keyword
import marshal
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit.cli import codecache
from graphfit.cli.codecache import CodeCache, ModuleCodeFinder, ModuleCodeLoader
from tests.helpers import ROOT, run_cli

NAMES = st.lists(st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True).filter(
    lambda n: not keyword.iskeyword(n)), min_size=0, max_size=5, unique=True)
DEFAULTS = st.one_of(st.none(), st.integers(-3, 3), st.text(max_size=3))


def _make(names: list[str], defaults: list[Any], options: dict[str, bool]) -> type:
    """A dataclass with these fields; the last len(defaults) fields get the defaults."""
    fields: list[Any] = []
    first_default = len(names) - len(defaults)
    for i, name in enumerate(names):
        if i >= first_default:
            fields.append((name, int, dataclasses.field(default=defaults[i - first_default])))
        else:
            fields.append((name, "int"))
    made: type = dataclasses.make_dataclass("Probe", fields, **options)
    return made


def _behaviour(cls: type, values: list[Any]) -> dict[str, Any]:
    """What a user of the class can observe."""
    init: Any = cls.__init__  # type: ignore[misc]
    seen: dict[str, Any] = {"signature": str(inspect.signature(cls)),
                            "annotations": repr(init.__annotations__),
                            "methods": sorted(k for k in vars(cls) if k.startswith("__"))}
    one, two = cls(*values), cls(*values)
    seen["repr"] = repr(one)
    seen["eq"] = one == two
    try:
        seen["hash"] = hash(one) == hash(two)
    except TypeError as exc:
        seen["hash"] = f"TypeError: {exc}"
    try:
        setattr(one, "zz_new", 1)  # noqa: B010 - the generated __setattr__ is the point
        seen["set"] = "ok"
    except dataclasses.FrozenInstanceError:
        seen["set"] = "frozen"
    return seen


@given(names=NAMES, defaults=st.lists(DEFAULTS, max_size=5),
       frozen=st.booleans(), eq=st.booleans(), unsafe_hash=st.booleans(),
       values=st.lists(st.integers(-5, 5), min_size=5, max_size=5))
def test_a_cached_dataclass_is_the_builtin_one(tmp_path_factory: pytest.TempPathFactory,
                                               names: list[str], defaults: list[Any],
                                               frozen: bool, eq: bool, unsafe_hash: bool,
                                               values: list[int]) -> None:
    defaults = defaults[:len(names)]
    options = {"frozen": frozen, "eq": eq, "unsafe_hash": unsafe_hash}
    args = values[:len(names) - len(defaults)]
    builtin = _behaviour(_make(names, defaults, options), args)
    cache = CodeCache(str(tmp_path_factory.mktemp("cache") / "c.marshal"))
    dataclasses.exec = cache.exec  # type: ignore[attr-defined]
    try:
        compiled = _behaviour(_make(names, defaults, options), args)
        again = _behaviour(_make(names, defaults, options), args)  # from the cache
    finally:
        del dataclasses.exec  # type: ignore[attr-defined]
    assert compiled == builtin
    assert again == builtin
    assert cache.codes  # the cache was used (every dataclass gets at least __repr__)


def test_a_saved_cache_is_read_back(tmp_path: Path) -> None:
    path = str(tmp_path / "sub" / "c.marshal")
    cache = CodeCache(path)
    code = cache.compiled("def f(x):\n return x + 1\n")
    cache.save()
    again = CodeCache(path)
    assert again.codes == {"def f(x):\n return x + 1\n": code}
    namespace: dict[str, Any] = {}
    again.exec("def f(x):\n return x + 1\n", {}, namespace)
    assert namespace["f"](1) == 2 and again.added == 0


@pytest.mark.parametrize("content", [
    b"", b"\x00garbage", marshal.dumps(((0, "cpython-00"), {"x": 1})),
    marshal.dumps(("not", "a header")), marshal.dumps({"a": "b"}),
    marshal.dumps((codecache._header(), {"x": "not code", 1: "neither"})),
    marshal.dumps((codecache._header(), ["a list"])),
])
def test_a_foreign_or_corrupt_file_is_a_miss(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "c.marshal"
    path.write_bytes(content)
    cache = CodeCache(str(path))
    assert cache.codes == {}
    namespace: dict[str, Any] = {}
    cache.exec("y = 3", {}, namespace)
    assert namespace["y"] == 3


def test_an_unwritable_place_is_not_an_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the folder would be")
    cache = CodeCache(str(blocker / "c.marshal"))
    cache.compiled("z = 1")
    cache.save()  # no exception, nothing written
    assert blocker.read_text().startswith("a file")
    assert not list(tmp_path.glob("*.tmp"))


def test_exec_without_globals_uses_the_callers(tmp_path: Path) -> None:
    cache = CodeCache(str(tmp_path / "c.marshal"))
    namespace: dict[str, Any] = {}

    def run() -> None:
        cache.exec("found = __name__", None, namespace)

    run()
    assert namespace["found"] == __name__


def test_the_library_never_touches_dataclasses() -> None:
    code, out, _ = run_cli(["plan", "--max-num-seqs", "8", "--json"])  # main(argv): a library
    assert code == 0 and json.loads(out)["config"]["max_num_seqs"] == 8
    assert "exec" not in vars(dataclasses)


# ------------------------------------------------------------------------------------------
# graphfit's modules, where Python writes no .pyc files


def _module(tmp_path: Path, folder: Path, body: str | None = None) -> Any:
    """Load probe_module.py (with `body` written first, when given) through a
    ModuleCodeLoader caching under `folder`."""
    import importlib.util

    source = tmp_path / "probe_module.py"
    if body is not None:
        source.write_text(body)
    loader = ModuleCodeLoader("probe_module", str(source), str(folder))
    spec = importlib.util.spec_from_loader("probe_module", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_module_code_is_kept_and_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "cache"
    assert _module(tmp_path, folder, "VALUE = 1\n").VALUE == 1
    kept = list((folder / "modules").rglob("probe_module.py.*.marshal"))
    assert len(kept) == 1

    def no_compiling(*args: Any) -> Any:
        raise AssertionError("compiled although its code was kept")

    monkeypatch.setattr(codecache.SourceFileLoader, "get_code", no_compiling)
    assert _module(tmp_path, folder).VALUE == 1  # the source is unchanged: its kept code
    monkeypatch.undo()
    source = tmp_path / "probe_module.py"
    source.write_text("VALUE = 2\n")  # same size: the modification time tells it apart
    os.utime(source, ns=(10**9, 10**9))
    assert _module(tmp_path, folder).VALUE == 2
    assert _module(tmp_path, folder, "VALUE = 333\n").VALUE == 333  # another size
    kept[0].write_bytes(b"garbage")  # a corrupt file is a miss
    assert _module(tmp_path, folder).VALUE == 333


def test_the_finder_only_takes_graphfits_modules(tmp_path: Path) -> None:
    finder = ModuleCodeFinder(str(tmp_path))
    assert finder.find_spec("json") is None
    import graphfit.planner

    spec = finder.find_spec("graphfit.planner.plan", graphfit.planner.__path__)
    assert spec is not None and isinstance(spec.loader, ModuleCodeLoader)


def _console(tmp_path: Path, extra: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "GRAPHFIT_NO_CODE_CACHE"}
    env.update({"XDG_CACHE_HOME": str(tmp_path), **extra})
    return subprocess.run([sys.executable, "-m", "graphfit", "plan", "--max-num-seqs", "8",
                           "--json"], capture_output=True, text=True, cwd=ROOT, env=env,
                          check=False)


def test_the_console_script_fills_the_cache_and_reads_it(tmp_path: Path) -> None:
    first = _console(tmp_path, {})
    assert first.returncode == 0, first.stderr
    files = list((tmp_path / "graphfit").glob("dataclass-methods.*.marshal"))
    assert len(files) == 1
    stamp = files[0].stat().st_mtime_ns
    second = _console(tmp_path, {})
    assert second.returncode == 0 and second.stdout == first.stdout
    assert files[0].stat().st_mtime_ns == stamp  # nothing new compiled: not written again
    assert len(CodeCache(str(files[0])).codes) > 50


def test_without_pyc_files_the_modules_code_is_kept(tmp_path: Path) -> None:
    first = _console(tmp_path, {"PYTHONDONTWRITEBYTECODE": "1"})
    assert first.returncode == 0, first.stderr
    kept = {p.name.split(".py.")[0] for p in (tmp_path / "graphfit" / "modules").rglob("*")
            if p.is_file()}
    assert {"plan", "config", "verify", "planning"} <= kept
    second = _console(tmp_path, {"PYTHONDONTWRITEBYTECODE": "1"})
    assert second.returncode == 0 and second.stdout == first.stdout


def test_the_cache_can_be_turned_off(tmp_path: Path) -> None:
    done = _console(tmp_path, {"GRAPHFIT_NO_CODE_CACHE": "1"})
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "graphfit").exists()


def test_cache_path_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = codecache.cache_folder()
    assert path is not None and path.startswith(str(tmp_path / "graphfit"))
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")  # ignored, as XDG says
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    path = codecache.cache_folder()
    assert path is not None and path.startswith(str(tmp_path / "home" / ".cache" / "graphfit"))


# ------------------------------------------------------------------------------------------
# the lazy package: `import graphfit` loads nothing heavy, and every public name is there


def test_import_graphfit_is_lazy_and_complete() -> None:
    code = ("import sys, graphfit\n"
            "assert 'graphfit.planner' not in sys.modules, 'eager'\n"
            "names = {n: getattr(graphfit, n) for n in graphfit.__all__}\n"
            "assert set(graphfit.__all__) <= set(dir(graphfit))\n"
            "from graphfit import Plan, plan, EngineConfig\n"
            "import graphfit.planner as p\n"
            "assert all(names[n] is getattr(p, n) for n in names if n != '__version__')\n"
            "try:\n    graphfit.no_such_name\nexcept AttributeError:\n    pass\n"
            "else:\n    raise SystemExit('no AttributeError')\n"
            "import graphfit.cli as c\n"
            "assert 'typer' not in sys.modules, 'graphfit.cli imported typer'\n"
            "assert type(c.app).__name__ == 'LazyApp' and callable(c.fail)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr
