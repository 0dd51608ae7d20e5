"""Test helpers shared by several modules: the CLI in-process, examples as modules."""

from __future__ import annotations

import importlib.util
import io
import json
import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import strategies as st

from graphfit import GraphfitError
from graphfit.cli import main

ROOT = Path(__file__).resolve().parents[1]

# Rendering a report needs matplotlib (the `report` extra, which `.[test]` pulls in); without it
# the rendering tests skip with the reason instead of failing.
needs_matplotlib = pytest.mark.skipif(
    importlib.util.find_spec("matplotlib") is None,
    reason="matplotlib is not installed: pip install -e '.[report]' (or '.[test]')")


@contextmanager
def quiet_logging() -> Iterator[None]:
    """Logging below WARNING off for the block (SGLang's pipeline logs at INFO), and the
    process's own level given back after it, since later modules read log output (the
    plugin's check line, vLLM's metrics log)."""
    before = logging.root.manager.disable
    logging.disable(logging.WARNING)
    try:
        yield
    finally:
        logging.disable(before)


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of the real entry point, run in-process."""
    out, err = io.StringIO(), io.StringIO()
    code: object = 0
    with redirect_stdout(out), redirect_stderr(err):
        try:
            main(argv)
        except SystemExit as exc:
            code = exc.code
    assert isinstance(code, int), code
    return code, out.getvalue(), err.getvalue()


def load_module(path: Path, name: str) -> ModuleType:
    """Import a script as a named module (dataclasses and dynamo look classes up by module)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def only_graphfit_errors(call: Any) -> Any:
    """The call's result, or None when it raised a GraphfitError (anything else fails)."""
    try:
        return call()
    except GraphfitError:
        return None


def saved_plan(tmp_path: Path, out: str) -> Path:
    """`out` (a `plan --json` document) written to tmp_path/plan.json, a file `check --plan`
    accepts (exit 0); the path, for the callers that edit it and check again."""
    saved = tmp_path / "plan.json"
    saved.write_text(out)
    assert run_cli(["check", "--plan", str(saved)])[0] == 0
    return saved


# A small Llama config: an EAGLE target and its draft in local directories (the inputs tests
# of the draft's readers: quantization metadata, token map)
LLAMA = {"model_type": "llama", "hidden_size": 1024, "num_hidden_layers": 2,
         "num_attention_heads": 8, "vocab_size": 32000, "torch_dtype": "bfloat16"}


def eagle_dirs(root: Path, **draft: object) -> tuple[str, str]:
    """root/target (LlamaForCausalLM) and root/draft (LlamaForCausalLMEagle, LLAMA updated
    with `draft`), each with its config.json; their paths, for `--model-path` and
    `--speculative-draft-model-path`."""
    target, drafted = root / "target", root / "draft"
    for directory, config in ((target, {"architectures": ["LlamaForCausalLM"], **LLAMA}),
                              (drafted, {"architectures": ["LlamaForCausalLMEagle"], **LLAMA,
                                         **draft})):
        directory.mkdir()
        (directory / "config.json").write_text(json.dumps(config))
    return str(target), str(drafted)


class HypothesisRandom:
    """random.Random's choice / random / randint / sample over hypothesis' draw, so an
    oracle test and its measure script share one line generator (the measure passes a
    random.Random, the test this)."""

    def __init__(self, draw: st.DrawFn) -> None:
        self._draw = draw

    def choice(self, seq: tuple[object, ...] | list[object]) -> object:
        return self._draw(st.sampled_from(list(seq)))

    def random(self) -> float:
        return self._draw(st.floats(0, 1, exclude_max=True))

    def randint(self, lo: int, hi: int) -> int:
        return self._draw(st.integers(lo, hi))

    def sample(self, population: range, k: int) -> list[int]:
        return self._draw(st.lists(st.sampled_from(list(population)), min_size=k, max_size=k,
                                   unique=True))
