"""The engine plugin table: every registered release names each part and each part loads;
third-party engines arrive through the `graphfit.engines` entry-point group."""

from __future__ import annotations

import importlib.metadata
import json
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from hypothesis import strategies as st

from graphfit import ConfigError, EngineConfig, plan
from graphfit.inputs.flagtable import LineReader
from graphfit.inputs.pasteback import ladder_syntax
from graphfit.planner.analysis.corpus import case_from_data
from graphfit.planner.engines import plugins, registry, table
from graphfit.planner.engines.table import EnginePlugin

BUILT_IN = ("vllm", "sglang", "trtllm")


@pytest.fixture
def saved() -> Iterator[None]:
    """Tests that register engines or read entry points leave everything as they found it."""
    releases = {name: dict(r) for name, r in registry._RELEASES.items()}
    loaded, entries = dict(registry._LOADED), dict(table._PLUGINS)
    read, failed = registry._PLUGINS_READ, dict(plugins.FAILED)
    yield
    registry._RELEASES.clear()
    registry._RELEASES.update(releases)
    registry._LOADED.clear()
    registry._LOADED.update(loaded)
    table._PLUGINS.clear()
    table._PLUGINS.update(entries)
    registry._PLUGINS_READ = read
    plugins.FAILED.clear()
    plugins.FAILED.update(failed)


@pytest.mark.parametrize("engine", BUILT_IN)
def test_every_built_in_release_provides_every_part(engine: str) -> None:
    for version in registry.versions(engine):
        entry = table.plugin(engine, version)
        for name in table.PARTS:
            assert getattr(entry, name) is not None, (engine, version, name)
        assert entry.model == registry.release(engine, version).target
        model = table.part(engine, "model", version)
        assert model is registry.engine_model(engine, version)
        reader = table.part(engine, "reader", version)
        assert isinstance(reader, LineReader) and reader.engine.value == engine
        assert entry.flags is not None
        flags = json.loads(table.data_path(entry.flags).read_text())
        assert flags["engine"] == engine
        if engine != "trtllm":  # TensorRT-LLM's table is trtllm-serve's at its own commit
            assert flags["version"] == version  # the parser of this very release
        where, lines = ladder_syntax(engine, [1, 2, 4], version=version)
        assert where and lines and all("4" in line for line in lines[:1])
        factory: Any = table.part(engine, "strategies", version)
        assert isinstance(factory(max_seqs=8), st.SearchStrategy)
        files = table.corpus_files(engine, version)
        assert files, f"{engine} {version}: its corpus glob matches no case"
        for path in files:
            case = case_from_data(yaml.safe_load(path.read_text()), path.name, str(path))
            assert case.buggy_config().engine.value == engine


def test_parts_are_validated_and_missing_parts_say_so(saved: None) -> None:
    with pytest.raises(ConfigError, match="reader must be"):
        EnginePlugin("x", "1", "a:b", reader="no-colon")
    with pytest.raises(ConfigError, match="not one of"):
        table.part("vllm", "nope")
    table.register_plugin(EnginePlugin("vllm", "0.99.0",
                                       "graphfit.planner.engines.vllm:VLLM"))
    with pytest.raises(ConfigError, match="graphfit has no reader"):
        table.part("vllm", "reader", "0.99.0")
    assert table.corpus_files("vllm", "0.99.0") == ()


# a third-party engine: its registration hook and its model (vLLM's, renamed)
class _Model:
    release = "1.0"
    version = "Acme 1.0"

    def __getattr__(self, name: str) -> Any:
        return getattr(registry.engine_model("vllm", "0.33.0"), name)


ACME = _Model()


def register_acme() -> None:
    table.register_plugin(EnginePlugin("acme", "1.0", "tests.planner.test_engine_table:ACME"))


def _broken() -> None:
    raise RuntimeError("acme-broken cannot start")


def _entry_points(*points: tuple[str, str]) -> Any:
    found = [importlib.metadata.EntryPoint(name, value, plugins.GROUP)
             for name, value in points]

    def entry_points(**select: Any) -> list[importlib.metadata.EntryPoint]:
        assert select == {"group": plugins.GROUP}
        return found
    return entry_points


def test_an_entry_point_engine_is_read_once_when_first_asked(
        saved: None, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    fake = _entry_points(("acme", "tests.planner.test_engine_table:register_acme"),
                         ("broken", "tests.planner.test_engine_table:_broken"),
                         ("missing", "tests.planner.no_such_module:hook"))

    def counted(**select: Any) -> Any:
        calls.append(select)
        return fake(**select)
    monkeypatch.setattr(importlib.metadata, "entry_points", counted)
    registry._PLUGINS_READ = False
    # a built-in engine's default is answered without reading the group
    assert registry.default_version("vllm") == "0.34.0" and calls == []
    assert registry.engine_model("acme") is ACME
    assert "acme" in registry.engines() and registry.versions("acme") == ("1.0",)
    assert len(calls) == 1  # read once
    # a broken plugin names itself, and breaks no other engine
    with pytest.raises(ConfigError, match=r"'broken'.*failed to load: RuntimeError: acme-broken"):
        registry.engine_model("broken")
    with pytest.raises(ConfigError, match=r"'missing'.*failed to load: ModuleNotFoundError"):
        registry.engine_model("missing")
    assert registry.engine_model("sglang").release == "0.5.23"
    # the third-party engine's release is selectable like a built-in one
    config = EngineConfig(max_num_seqs=8, engine_version="0.33.0")
    assert plan(config).engine_version == "vLLM 0.33.0"


def test_graphfit_engines_lists_every_release_and_its_parts() -> None:
    from tests.helpers import ROOT, run_cli

    code, out, err = run_cli(["engines", "--json"])
    assert code == 0, err
    rows = json.loads(out)["engines"]
    built_in = [(e, v, v == registry.default_version(e))
                for e in ("vllm", "sglang", "trtllm") for v in registry.versions(e)]
    assert ("vllm", "0.34.0", True) in built_in and ("vllm", "0.33.0", False) in built_in
    assert ("sglang", "0.5.23", True) in built_in
    assert ("trtllm", "main@c0edad93", True) in built_in
    assert [(r["engine"], r["version"], r["default"]) for r in rows][:len(built_in)] == built_in
    assert all(r["parts"] == list(table.PARTS[1:]) for r in rows[:len(built_in)])
    code, out, err = run_cli(["engines", "--engine-file",
                              str(ROOT / "examples" / "engines" / "tiny_spec.toml")])
    assert code == 0 and "tiny-spec" in out and "pasteback" in out, err
    code, out, err = run_cli(["engines", "--engine-file", "/nonexistent.toml"])
    assert code == 2 and err.startswith("error: engine file")


@pytest.mark.parametrize("engine", BUILT_IN)
def test_programs_environment_and_methods_are_each_engines_parts(engine: str) -> None:
    """The parts that used to be engine-keyed switches (commandline.identify's program
    names, vLLM's environment variables, testing.METHODS) load from the table, and each
    engine's programs claim its own serving commands only."""
    from graphfit.inputs.commandline import identify
    from graphfit.inputs.programs import Programs
    from graphfit.inputs.settings import Setting
    from graphfit.planner.core.enums import SpecMethod
    from graphfit.testing import METHODS, methods_of

    lines = {"vllm": ["vllm", "serve", "m"], "sglang": ["sglang", "serve", "m"],
             "trtllm": ["trtllm-serve", "m"]}
    for version in registry.versions(engine):
        programs = table.part(engine, "programs", version)
        assert isinstance(programs, Programs) and programs.forms
        for other, words in lines.items():
            assert (programs(words) is not None) == (other == engine), (engine, other)
        reader: Any = table.part(engine, "environment", version)
        found = reader({"VLLM_USE_V2_MODEL_RUNNER": "1"})
        assert all(isinstance(s, Setting) for s in found)
        assert bool(found) == (engine == "vllm")  # only vLLM's variable is modelled
        methods: Any = table.part(engine, "methods", version)
        assert methods and all(SpecMethod(m) is not SpecMethod.NONE for m in methods)
    assert methods_of(engine) == METHODS[engine]
    assert identify(lines[engine])[0].value == engine
