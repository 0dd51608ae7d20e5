"""`graphfit.inputs.reading.one_read_per_file`: within one command each JSON file version is
parsed once (the readers of one pasted line loaded the model's config.json ~50 times), every
caller gets its own copy, and nothing carries over to the next command or to a changed file."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from graphfit import ConfigError
from graphfit.inputs import reading
from graphfit.inputs.reading import load_json, one_read_per_file
from tests.helpers import run_cli

GOOD = {"architectures": ["LlamaForCausalLM"], "hidden_size": 4096, "num_hidden_layers": 32,
        "vocab_size": 128256, "max_position_embeddings": 8192, "torch_dtype": "bfloat16",
        "num_attention_heads": 32, "num_key_value_heads": 8}


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How many times each file's bytes were read."""
    counted: Counter[str] = Counter()
    real = reading.read_bytes

    def counting(path: str | Path, what: str = "file", *, limit: int = reading.MAX_FILE_BYTES
                 ) -> bytes:
        counted[Path(path).name] += 1
        return real(path, what, limit=limit)

    monkeypatch.setattr(reading, "read_bytes", counting)
    return counted


def _write(path: Path, data: Any, mtime_ns: int | None = None) -> Path:
    path.write_text(json.dumps(data))
    if mtime_ns is not None:
        os.utime(path, ns=(mtime_ns, mtime_ns))
    return path


def test_one_parse_per_scope_and_a_copy_per_caller(tmp_path: Path, reads: Counter[str]) -> None:
    path = _write(tmp_path / "config.json", {"a": [1, 2], "b": {"c": 3}})
    with one_read_per_file():
        first = load_json(path, "model config")
        first["a"].append(99)
        first["b"]["c"] = 0
        second = load_json(path, "other reader")
        with one_read_per_file():  # a nested scope shares the outer one
            third = load_json(path, "model config")
    assert second == third == {"a": [1, 2], "b": {"c": 3}}
    assert reads["config.json"] == 1


def test_outside_a_scope_every_call_reads(tmp_path: Path, reads: Counter[str]) -> None:
    path = _write(tmp_path / "config.json", {"a": 1})
    for _ in range(3):
        assert load_json(path) == {"a": 1}
    with one_read_per_file():
        load_json(path)
    with one_read_per_file():
        load_json(path)
    assert reads["config.json"] == 5


@pytest.mark.parametrize("change", ["same size, new time", "replaced file", "new size"])
def test_a_changed_file_is_read_again(tmp_path: Path, reads: Counter[str], change: str) -> None:
    path = _write(tmp_path / "config.json", {"a": 1}, mtime_ns=1_000_000_000)
    with one_read_per_file():
        assert load_json(path) == {"a": 1}
        if change == "same size, new time":
            _write(path, {"a": 2}, mtime_ns=2_000_000_000)
        elif change == "replaced file":  # same size and time, another file (inode)
            os.replace(_write(tmp_path / "new.json", {"a": 2}, mtime_ns=1_000_000_000), path)
        else:
            _write(path, {"a": 22}, mtime_ns=1_000_000_000)
        assert load_json(path)["a"] in (2, 22)
    assert reads["config.json"] + reads["new.json"] == 2


def test_refusals_are_never_stored(tmp_path: Path, reads: Counter[str]) -> None:
    path = tmp_path / "config.json"
    path.write_text('{"a": 1, "a": 2}')
    with one_read_per_file():
        for what in ("model config", "draft config"):
            with pytest.raises(ConfigError, match=f"{what} .*duplicate key"):
                load_json(path, what)
        _write(path, {"a": 1}, mtime_ns=5_000_000_000)
        assert load_json(path) == {"a": 1}
        with pytest.raises(ConfigError, match="larger than"):
            load_json(path, limit=4)  # a smaller limit is its own key
        assert not (tmp_path / "missing.json").exists()
        with pytest.raises(ConfigError, match="No such file"):
            load_json(tmp_path / "missing.json")
    assert reads["config.json"] == 4  # both refusals, the fixed file, the smaller limit


def _plan(line: list[str]) -> tuple[int, str, str]:
    return run_cli(["plan", "--gpu-memory-gb", "80", "--", *line])


@pytest.mark.parametrize("engine", ["sglang", "vllm"])
def test_a_pasted_line_reads_config_json_once_per_command(tmp_path: Path, reads: Counter[str],
                                                          engine: str) -> None:
    _write(tmp_path / "config.json", GOOD)
    line = (["sglang", "serve", "--model-path", str(tmp_path), "--tp", "2"] if engine == "sglang"
            else ["vllm", "serve", str(tmp_path), "--max-num-seqs", "8"])
    code, _, err = _plan(line)
    assert code == 0, err
    assert reads["config.json"] == 1
    # the next command reads the file again: an edit between commands is seen
    _write(tmp_path / "config.json", {**GOOD, "hidden_size": -1})
    code, _, err = _plan(line)
    assert code == 2 and "hidden_size" in err
    assert reads["config.json"] == 2
