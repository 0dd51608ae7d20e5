"""A model directory's config.json through the public CLI: a bad value or an unreadable file
is one `error:` line naming the key or the file (exit 2); a local path that does not exist is
a warning, not a silent fallback."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import run_cli

GOOD = {"architectures": ["LlamaForCausalLM"], "hidden_size": 4096, "num_hidden_layers": 32,
        "vocab_size": 128256, "max_position_embeddings": 8192, "torch_dtype": "bfloat16"}
BAD_NUMBERS = [-1, 0, 1.5, 4096.0, "4096", None, True, False, [4096], {"n": 1}]


def plan_model(model: str) -> tuple[int, str]:
    code, _, err = run_cli(["plan", "--", "vllm", "serve", model, "--max-num-seqs", "8"])
    return code, err


def one_error(code: int, err: str) -> str:
    errors = [line for line in err.splitlines() if line.startswith("error: ")]
    assert code == 2 and len(errors) == 1, err
    return errors[0]


def write(tmp: Path, data: Any) -> str:
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "config.json").write_text(json.dumps(data))
    return str(tmp)


@settings(max_examples=40, deadline=None)
@given(key=st.sampled_from(["hidden_size", "num_hidden_layers", "vocab_size",
                            "max_position_embeddings", "text_config.hidden_size"]),
       value=st.sampled_from(BAD_NUMBERS))
def test_bad_number_names_the_key(tmp_path_factory: pytest.TempPathFactory, key: str,
                                  value: Any) -> None:
    data: dict[str, Any] = dict(GOOD)
    if key.startswith("text_config."):
        data["text_config"] = {"hidden_size": value}
    else:
        data[key] = value
    model = write(tmp_path_factory.mktemp("m"), data)
    line = one_error(*plan_model(model))
    assert f"{key}:" in line and "config.json" in line


@pytest.mark.parametrize("value", ["int8", 7, None, True, "fp8", ""])
def test_bad_dtype_names_the_key(tmp_path: Path, value: Any) -> None:
    model = write(tmp_path, {**GOOD, "torch_dtype": value})
    line = one_error(*plan_model(model))
    assert "torch_dtype:" in line and "config.json" in line


def test_good_config_still_plans(tmp_path: Path) -> None:
    code, err = plan_model(write(tmp_path, {**GOOD, "torch_dtype": "torch.float16",
                                            "seq_length": None}))
    assert code == 0, err


def _fifo(p: Path) -> None:
    os.mkfifo(p)


def _zero(p: Path) -> None:
    p.symlink_to("/dev/zero")


def _loop(p: Path) -> None:
    p.symlink_to(p.parent / "other")
    (p.parent / "other").symlink_to(p)


def _dangling(p: Path) -> None:
    p.symlink_to(p.parent / "missing.json")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX special files")
@pytest.mark.parametrize("make", [_fifo, _zero, _loop, _dangling],
                         ids=["fifo", "dev-zero", "symlink-loop", "dangling-link"])
def test_unreadable_config_names_the_file(tmp_path: Path, make: Any) -> None:
    make(tmp_path / "config.json")
    line = one_error(*plan_model(str(tmp_path)))  # never hangs on the FIFO or /dev/zero
    assert "config.json" in line


def test_missing_local_path_is_a_warning(tmp_path: Path) -> None:
    code, err = plan_model(str(tmp_path / "no-such-model"))
    assert code == 0, err
    assert any(line.startswith("warning: model ") and "no such local path" in line
               for line in err.splitlines())
    code, err = plan_model("org/hub-model")  # a hub id: a note, as before
    assert code == 0 and "warning:" not in err
