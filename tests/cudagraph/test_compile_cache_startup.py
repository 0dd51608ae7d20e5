"""What a compile-cache hit skips in a fresh process, and what keeps it sound.

Inductor re-runs its CPU vector-ISA probes (a child process per ISA) and preprocesses its
prefix header in every new process; on a hit the cache answers the probes from the key
folder's record and skips the header step. The record only holds passing probes and lives
under a key that includes the CPU's flags and the compiler, so a different machine never
reuses it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from graphfit.cudagraph import CompileCache, compile_cache

cpu_vec_isa = pytest.importorskip("torch._inductor.cpu_vec_isa")
inductor_config = pytest.importorskip("torch._inductor.config")


class Probe:
    """Stands in for torch's `VecISA.check_build` (which runs g++ and a dlopen child)."""

    def __init__(self, passing: set[str]) -> None:
        self.passing = passing
        self.calls: list[str] = []

    def __call__(self, isa: object, code: str) -> bool:
        self.calls.append(str(isa))
        return str(isa) in self.passing


@pytest.fixture
def probe(monkeypatch: pytest.MonkeyPatch) -> Probe:
    fake = Probe({"avx2"})
    monkeypatch.setattr(cpu_vec_isa.VecISA, "check_build", fake)
    return fake


def run_probes(folder: Path) -> list[bool]:
    with compile_cache.isa_probes(folder):
        return [cpu_vec_isa.VecAVX2().check_build("int f;"),
                cpu_vec_isa.VecAVX512().check_build("int f;")]


def test_passing_probes_are_replayed_failures_always_probe_again(tmp_path: Path,
                                                                 probe: Probe) -> None:
    assert run_probes(tmp_path) == [True, False]
    assert probe.calls == ["avx2", "avx512"]
    assert (tmp_path / compile_cache.PROBES).is_file()
    # a fresh process: the pass comes from the record, the failure is probed again
    assert run_probes(tmp_path) == [True, False]
    assert probe.calls == ["avx2", "avx512", "avx512"]
    # torch's own method is back once the load is over
    assert cpu_vec_isa.VecISA.check_build is probe


def test_another_probe_code_or_flags_is_not_answered_by_the_record(tmp_path: Path,
                                                                   probe: Probe) -> None:
    run_probes(tmp_path)
    with compile_cache.isa_probes(tmp_path):
        cpu_vec_isa.VecAVX2().check_build("int g;")  # other probe source
    assert probe.calls[-1] == "avx2" and len(probe.calls) == 3


@pytest.mark.parametrize("damage", [b"", b"not a record", b"\x00" * 8])
def test_a_damaged_record_is_ignored(tmp_path: Path, probe: Probe, damage: bytes) -> None:
    run_probes(tmp_path)
    record = tmp_path / compile_cache.PROBES
    record.write_bytes(record.read_bytes()[:-3] + damage)
    assert run_probes(tmp_path) == [True, False]
    assert probe.calls == ["avx2", "avx512", "avx2", "avx512"]  # everything probed again


def test_a_record_under_another_key_is_not_used(tmp_path: Path, probe: Probe) -> None:
    run_probes(tmp_path / "a")
    run_probes(tmp_path / "b")
    assert probe.calls == ["avx2", "avx512"] * 2


def test_the_key_includes_the_machine_facts(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    def fn(views: dict[str, torch.Tensor]) -> torch.Tensor:
        return views["x"] * 2

    views = {"x": torch.zeros(4, 3)}
    cache = CompileCache(tmp_path)
    here = cache.folder(fn, views, "inductor")
    facts = compile_cache.machine_facts()
    assert platform_flags_hashed(facts)
    monkeypatch.setattr(compile_cache, "machine_facts", lambda: facts.replace("AVX", "XVA")
                        + ";other cpu")
    assert cache.folder(fn, views, "inductor") != here


def platform_flags_hashed(facts: str) -> bool:
    """The facts name the CPU capability ATen dispatches to and a compiler entry."""
    return str(torch.backends.cpu.get_cpu_capability()) in facts and "cxx=" in facts


def test_header_precompile_is_off_only_while_loading() -> None:
    before = inductor_config.cpp_cache_precompile_headers
    with compile_cache.no_header_precompile():
        assert inductor_config.cpp_cache_precompile_headers is False
    assert inductor_config.cpp_cache_precompile_headers == before


def test_a_torch_without_the_probe_method_loads_as_usual(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(cpu_vec_isa.VecISA, "check_build")
    with compile_cache.isa_probes(tmp_path):
        pass  # no AttributeError: the artifact would otherwise be refused for nothing
    assert not (tmp_path / compile_cache.PROBES).exists()
