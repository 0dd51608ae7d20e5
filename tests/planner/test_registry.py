"""The (engine, version) registry: lazy targets, version order and defaults, errors that
list what is known, the selected release reaching the plan, its document and the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit import ConfigError, EngineConfig, plan
from graphfit.planner.engines import registry
from graphfit.planner.engines.vllm import VLLM
from tests.helpers import ROOT, run_cli


class _Release:
    """VLLM's model under another release name (a stand-in for a future release module)."""

    def __init__(self, release: str) -> None:
        self.release = release
        self.version = f"vLLM {release}"

    def __getattr__(self, name: str) -> Any:
        return getattr(VLLM, name)


NEXT = _Release("0.99.0")
NOT_A_MODEL = object()


@pytest.fixture
def saved_registry() -> Iterator[None]:
    """Tests that register releases leave the registry as they found it."""
    releases = {name: dict(r) for name, r in registry._RELEASES.items()}
    loaded = dict(registry._LOADED)
    yield
    registry._RELEASES.clear()
    registry._RELEASES.update(releases)
    registry._LOADED.clear()
    registry._LOADED.update(loaded)


def test_built_in_releases_and_their_models() -> None:
    assert registry.engines()[:3] == ("vllm", "sglang", "trtllm")
    assert registry.default_version("vllm") == "0.34.0"
    assert registry.default_version("sglang") == "0.5.23"
    assert registry.default_version("trtllm") == "main@c0edad93"
    for engine in ("vllm", "sglang", "trtllm"):
        for version in registry.versions(engine):
            model = registry.engine_model(engine, version)
            assert model.release == version and version in model.version
            assert model.engine.value == engine


def test_the_registry_answers_without_importing_a_model() -> None:
    """Listing engines, versions and defaults imports no model (graphfit.planner itself
    re-exports vLLM's request_counts, so only the other engines' modules are watched)."""
    code = ("import sys, graphfit.planner.engines.registry as r; "
            "r.engines(); [r.versions(e) for e in r.engines()]; r.default_version('sglang'); "
            "print(sorted(m for m in sys.modules if m.startswith('graphfit.planner.engines.')"
            " and m.split('.')[3] in ('sglang', 'trtllm', 'batch')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout
    assert out.strip() == "[]"


def test_unknown_engine_and_version_list_the_known_ones() -> None:
    with pytest.raises(ConfigError, match=r"engine: 'nope' is not one of vllm, sglang, trtllm"):
        registry.engine_model("nope")
    with pytest.raises(ConfigError,
                       match=r"engine_version: '0.1.0' .* vllm release \(.*0.33.0"):
        registry.engine_model("vllm", "0.1.0")
    with pytest.raises(ConfigError, match=r"engine: 'nope' is not one of"):
        EngineConfig(max_num_seqs=8, engine="nope")
    with pytest.raises(ConfigError, match=r"engine_version: '9' is not a modelled sglang"):
        EngineConfig(max_num_seqs=8, engine="sglang", engine_version="9")


def test_bad_registrations_are_refused() -> None:
    with pytest.raises(ConfigError, match=r"pkg\.module:ATTR"):
        registry.register("vllm", "1.0.0", "no colon")
    with pytest.raises(ConfigError, match="non-empty"):
        registry.register("vllm", " ", "a:b")


def test_a_target_that_is_not_a_model_is_refused(saved_registry: None) -> None:
    registry.register("vllm", "0.98.0", "tests.planner.test_registry:NOT_A_MODEL")
    with pytest.raises(ConfigError, match="not an engine model"):
        registry.engine_model("vllm", "0.98.0")
    registry.register("vllm", "0.97.0", "tests.planner.test_registry:MISSING")
    with pytest.raises(ConfigError, match="cannot load"):
        registry.engine_model("vllm", "0.97.0")


def test_a_new_release_is_one_registration(saved_registry: None) -> None:
    """Registering a newer release makes it the default; the older one stays selectable
    by EngineConfig.engine_version, and the plan names the release it followed."""
    # no vLLM release is marked the default (registry.py): the newest is
    assert registry.default_version("vllm") == "0.34.0"
    before = registry.versions("vllm")
    registry.register("vllm", "0.99.0", "tests.planner.test_registry:NEXT")
    assert registry.versions("vllm") == (*before, "0.99.0") and "0.33.0" in before
    assert registry.default_version("vllm") == "0.99.0"
    assert registry.engine_model("vllm") is NEXT
    newer = EngineConfig(max_num_seqs=8)
    older = EngineConfig(max_num_seqs=8, engine_version="0.33.0")
    assert newer.engine_version == "0.99.0" and older.engine_version == "0.33.0"
    assert plan(newer).engine_version == "vLLM 0.99.0"
    assert plan(older).engine_version == "vLLM 0.33.0"


@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30), st.integers(0, 30)),
                min_size=1, max_size=6, unique=True))
def test_versions_sort_by_release_numbers(numbers: list[tuple[int, int, int]]) -> None:
    releases = [registry.Release("x", ".".join(map(str, n)), "a:b", order=i)
                for i, n in enumerate(numbers)]
    ordered = sorted(releases, key=registry.release_key)
    assert [tuple(map(int, r.version.split("."))) for r in ordered] == sorted(numbers)


def test_a_candidate_sorts_before_its_release_and_a_branch_after_numbers() -> None:
    names = ["main@abc", "0.10.0", "0.10.0rc1", "0.9.2"]
    releases = [registry.Release("x", v, "a:b", order=i) for i, v in enumerate(names)]
    assert [r.version for r in sorted(releases, key=registry.release_key)] == [
        "0.9.2", "0.10.0rc1", "0.10.0", "main@abc"]


def test_the_cli_selects_and_names_the_release() -> None:
    seed = ["--max-num-seqs", "9", "--num-speculative-tokens", "2", "--method", "dflash"]
    code, out, err = run_cli(["plan", "--json", *seed, "--engine-version", "0.33.0"])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["schema"] == "graphfit.plan/3"
    assert doc["config"]["engine_version"] == "0.33.0"
    assert doc["engine_version"] == "vLLM 0.33.0"
    code, out, err = run_cli(["check", *seed, "--engine-version", "0.33.0"])
    assert code == 0 and "vLLM 0.33.0" in out, err
    code, out, err = run_cli(["plan", *seed, "--engine-version", "0.2"])
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: engine_version: '0.2'")
    assert "0.33.0" in lines[0] and len(lines[0]) <= 200


def test_a_plan_1_document_is_still_read(tmp_path: Path) -> None:
    """A document written before releases were selectable (schema graphfit.plan/1, no
    config.engine_version) is upgraded to the release its engine_version names."""
    seed = ["--max-num-seqs", "9", "--num-speculative-tokens", "2", "--method", "dflash"]
    code, out, err = run_cli(["plan", "--json", *seed])
    assert code == 0, err
    doc = json.loads(out)
    doc["schema"] = "graphfit.plan/1"
    del doc["config"]["engine_version"]
    path = tmp_path / "old.json"
    path.write_text(json.dumps(doc))
    code, out, err = run_cli(["check", "--plan", str(path)])
    assert code == 0, err
    doc["engine_version"] = "vLLM 0.1.0"
    path.write_text(json.dumps(doc))
    code, out, err = run_cli(["check", "--plan", str(path)])
    assert code == 2 and "vLLM 0.1.0" in err and "0.33.0" in err


def test_every_json_document_and_table_names_the_release() -> None:
    seed = ["--max-num-seqs", "8"]
    for command in (["explain", "12"], ["memory", "--bytes-per-token", "1000"],
                    ["check"], ["plan"]):
        code, out, err = run_cli([*command, *seed, "--json"])
        assert code == 0, (command, err)
        doc = json.loads(out)
        assert doc["engine_version"] == "vLLM 0.34.0", command
        assert doc.get("config", {"engine_version": "0.34.0"})["engine_version"] == "0.34.0"
        code, out, err = run_cli([*command, *seed])
        assert code == 0 and "vLLM 0.34.0" in out, (command, out)
