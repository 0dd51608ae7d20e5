"""Which engine a pasted serving command runs: each engine's program names and modules.

One `Programs` per engine, named by the engine's `programs` part in the plugin table
(graphfit.planner.engines.table); `graphfit.inputs.commandline.identify` asks each registered
engine's in turn, so a plugin engine brings its own. Light on purpose: identifying a line
imports no flag table (the engine's reader is loaded once the engine is known).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["SGLANG_PROGRAMS", "TRTLLM_PROGRAMS", "VLLM_PROGRAMS", "Programs", "python_module"]

Found = tuple[str, list[str]]  # (entry point, argv as the engine's parser gets it)


def python_module(words: Sequence[str]) -> tuple[str, list[str]] | None:
    """(module, its argv) for `python -m module ...` (any python executable), else None."""
    if not words or not Path(words[0]).name.startswith("python"):
        return None
    rest = list(words[1:])
    if rest[:1] == ["-m"] and len(rest) > 1:
        return rest[1], rest[2:]
    return None


@dataclass(frozen=True)
class Programs:
    """How one engine's serving commands start: `forms` lists them for messages, `find`
    returns (entry point, argv) for a command of this engine, None otherwise."""

    forms: str
    find: Callable[[Sequence[str]], Found | None]

    def __call__(self, words: Sequence[str]) -> Found | None:
        return self.find(words) if words else None


# vLLM 0.33: `vllm serve` (vllm/entrypoints/cli/serve.py; the parser keeps "serve" as its
# first word) and the OpenAI server module run directly
VLLM_MODULES = {"vllm.entrypoints.openai.api_server": "api_server",
                "vllm.entrypoints.launchers.api_server.entry": "api_server"}


def _vllm(words: Sequence[str]) -> Found | None:
    module = python_module(words)
    if module is not None:
        name, argv = module
        if name in VLLM_MODULES:
            return VLLM_MODULES[name], argv
        if name == "vllm.entrypoints.cli.main" and argv[:1] == ["serve"]:
            return "serve", argv
        return None
    rest = list(words[1:])
    if Path(words[0]).name == "vllm" and rest[:1] == ["serve"]:
        return "serve", rest
    return None


def _sglang(words: Sequence[str]) -> Found | None:
    module = python_module(words)
    if module is not None:
        name, argv = module
        if name == "sglang.launch_server":
            return "launch_server", argv
        if name == "sglang.cli.main" and argv[:1] == ["serve"]:
            return "serve", argv[1:]
        return None
    rest = list(words[1:])
    if Path(words[0]).name == "sglang" and rest[:1] == ["serve"]:
        return "serve", rest[1:]
    return None


def _trtllm(words: Sequence[str]) -> Found | None:
    if Path(words[0]).name == "trtllm-serve":
        return "trtllm-serve", list(words[1:])
    return None


VLLM_PROGRAMS = Programs("vllm serve, python -m vllm.entrypoints.openai.api_server", _vllm)
SGLANG_PROGRAMS = Programs("python -m sglang.launch_server, sglang serve", _sglang)
TRTLLM_PROGRAMS = Programs("trtllm-serve", _trtllm)
