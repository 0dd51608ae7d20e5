"""Hostile conditions around what graphfit writes and caches (issue 26).

Concurrent writers of one report, output paths that cannot name a file, a FIFO or a device
in the code cache's place, and matplotlib's own config folder. Every command that runs in a
subprocess has a generous timeout, only as a guard against a hang (never a timed assertion).
"""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from graphfit import ConfigError
from graphfit.cli.files import output_path, write_atomic
from tests.helpers import ROOT, run_cli

HANG_GUARD_S = 120


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("GRAPHFIT_NO_CODE_CACHE", "MPLCONFIGDIR", "XDG_CONFIG_HOME",
                        "XDG_CACHE_HOME")}
    env["PYTHONPATH"] = str(ROOT)
    env.update(extra)
    return env


def _graphfit(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "graphfit", *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


# -- concurrent writers ----------------------------------------------------------------------

def test_concurrent_reports_to_one_path_leave_one_whole_file(tmp_path: Path) -> None:
    """8 processes write one SVG (and share one code cache folder) at the same time: all
    succeed and the file is one whole, well-formed SVG, the last one renamed in place."""
    pytest.importorskip("matplotlib")
    env = _env(XDG_CACHE_HOME=str(tmp_path / "cache"))
    runs = [_graphfit(["plan", "--max-num-seqs", str(n), "--svg", "same.svg"], env, tmp_path)
            for n in range(8, 16)]
    for run in runs:
        _, err = run.communicate(timeout=HANG_GUARD_S)
        assert run.returncode == 0, err
    text = (tmp_path / "same.svg").read_text()
    assert text.count("<svg") == 1 and text.count("</svg>") == 1
    assert ET.fromstring(text).tag.endswith("svg")
    assert [p.name for p in tmp_path.iterdir() if p.is_file()] == ["same.svg"]
    cached = [p for p in (tmp_path / "cache").rglob("*") if p.is_file()]
    assert cached and not [p for p in cached if p.name.endswith(".tmp")]


def test_the_atomic_writer_keeps_the_old_file_on_failure(tmp_path: Path) -> None:
    target = tmp_path / "report.svg"
    write_atomic(target, b"old")
    with pytest.raises(TypeError):  # fails after the temporary file was made
        write_atomic(target, "text, not bytes")  # type: ignore[arg-type]
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["report.svg"]
    write_atomic(target, b"new", fsync=True)
    assert target.read_bytes() == b"new"


def test_the_atomic_writer_follows_a_link(tmp_path: Path) -> None:
    (tmp_path / "real.svg").write_bytes(b"old")
    (tmp_path / "link.svg").symlink_to(tmp_path / "real.svg")
    write_atomic(tmp_path / "link.svg", b"new")
    assert (tmp_path / "link.svg").is_symlink()
    assert (tmp_path / "real.svg").read_bytes() == b"new"


# -- output paths ----------------------------------------------------------------------------

def _bad_paths(tmp_path: Path) -> list[str]:
    (tmp_path / "existing").mkdir()
    return [f"{tmp_path}/newdir/", f"{tmp_path}/existing", f"{tmp_path}/existing/",
            f"{tmp_path}/missing/report.svg", "/dev/null", ""]


@pytest.mark.parametrize("flag", ["--svg", "--png"])
def test_an_output_path_that_cannot_be_a_file_is_one_error_line(tmp_path: Path,
                                                                  flag: str) -> None:
    for bad in _bad_paths(tmp_path):
        code, out, err = run_cli(["plan", "--max-num-seqs", "8", flag, bad])
        assert code == 2, (bad, out, err)
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and len(lines[0]) <= 200
        assert flag in lines[0]
        assert out == ""  # checked when parsed: no plan was made or printed
    assert sorted(p.name for p in tmp_path.iterdir()) == ["existing"]
    assert not list((tmp_path / "existing").iterdir())


def test_output_paths_are_checked_for_every_report_command(tmp_path: Path) -> None:
    for command in (["sweep", "--max-num-seqs", "8,16"],
                    ["compare", "vllm", "sglang"],
                    ["optimize", "--max-num-seqs", "8"]):
        code, out, err = run_cli([*command, "--svg", f"{tmp_path}/nodir/"])
        assert code == 2 and err.startswith("error: --svg") and out == "", (command, err)


def test_a_read_only_directory_is_refused(tmp_path: Path) -> None:
    """A 0o500 directory; as root (who may write there) a read-only mount such as /proc/sys
    in a container. Skipped only when this machine has neither."""
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    try:
        candidates = [str(locked), "/proc/sys"]
        folder = next((c for c in candidates
                       if os.path.isdir(c) and not os.access(c, os.W_OK | os.X_OK)), None)
        if folder is None:
            pytest.skip("no directory here that this user cannot write")
        with pytest.raises(ConfigError, match="cannot be written"):
            output_path(f"{folder}/r.svg", "--svg")
        code, out, err = run_cli(["plan", "--max-num-seqs", "8", "--svg", f"{folder}/r.svg"])
        assert code == 2 and "cannot be written" in err and out == ""
    finally:
        locked.chmod(0o700)


def test_a_writable_path_is_accepted(tmp_path: Path) -> None:
    assert output_path(str(tmp_path / "r.svg"), "--svg") == str(tmp_path / "r.svg")
    (tmp_path / "r.svg").write_text("old")
    assert output_path(str(tmp_path / "r.svg"), "--svg") == str(tmp_path / "r.svg")


# -- the code cache: FIFOs and devices in its place ------------------------------------------

def test_a_fifo_in_the_code_cache_is_a_miss_not_a_hang(tmp_path: Path) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this platform")
    env = _env(XDG_CACHE_HOME=str(tmp_path), PYTHONDONTWRITEBYTECODE="1")
    args = ["plan", "--max-num-seqs", "8", "--json"]
    first = _graphfit(args, env, ROOT)
    expected, err = first.communicate(timeout=HANG_GUARD_S)
    assert first.returncode == 0, err
    cached = [p for p in (tmp_path / "graphfit").rglob("*.marshal") if p.is_file()]
    dataclass_file = [p for p in cached if p.name.startswith("dataclass-methods")]
    assert dataclass_file and len(cached) > 10
    for path in [*dataclass_file, *cached[:5]]:  # the methods' file and some modules' files
        path.unlink()
        os.mkfifo(path)
    second = _graphfit(args, env, ROOT)
    out, err = second.communicate(timeout=HANG_GUARD_S)
    assert second.returncode == 0, err
    assert out == expected


def test_a_device_or_directory_in_the_code_cache_is_a_miss(tmp_path: Path) -> None:
    from graphfit.cli import codecache

    (tmp_path / "folder").mkdir()
    assert codecache._read(str(tmp_path / "folder")) is None
    assert codecache._read("/dev/zero") is None
    assert codecache._read(str(tmp_path / "missing")) is None
    assert codecache._read("bad\x00name") is None


# -- matplotlib's config folder ---------------------------------------------------------------

def test_a_report_creates_no_file_but_the_one_asked_for(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    home, work, scratch = tmp_path / "home", tmp_path / "work", tmp_path / "tmp"
    for folder in (home, work, scratch):
        folder.mkdir()
    env = _env(HOME=str(home), TMPDIR=str(scratch), GRAPHFIT_NO_CODE_CACHE="1")
    run = _graphfit(["plan", "--max-num-seqs", "8", "--svg", "r.svg", "--png", "r.png"], env,
                    work)
    _, err = run.communicate(timeout=HANG_GUARD_S)
    assert run.returncode == 0, err
    assert sorted(p.name for p in work.iterdir()) == ["r.png", "r.svg"]
    assert not list(home.rglob("*")), list(home.rglob("*"))  # no ~/.config/matplotlib
    assert not list(scratch.iterdir())  # the private config folder was removed at exit
