"""Flags of older engine releases, with their current spelling (flags/renamed.json).

A pasted line written for an older release is refused by the current parser ("unrecognized
arguments", "ambiguous option"); graphfit says the new spelling first: "use X: --old was
renamed (vLLM before 0.32)". Each entry cites where the current spelling is, or the grep of
the local wheels that shows the old one gone. Environment variables an engine no longer reads
(VLLM_USE_V1) are not refused by the engine, so they get a note, not an error.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

from graphfit.planner.core.enums import Engine

ENGINE_NAMES = {"vllm": "vLLM", "sglang": "SGLang", "trtllm": "TensorRT-LLM"}


@dataclass(frozen=True)
class Renamed:
    """One entry of flags/renamed.json."""

    engine: Engine
    old: str
    kind: str  # renamed, removed, environment
    advice: str
    since: str
    source: str
    value_prefix: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in ("renamed", "removed", "environment") or not self.source:
            raise ValueError(f"renamed.json: bad entry for {self.old}")  # pragma: no cover

    def says(self) -> str:
        """The advice first, then what changed."""
        name = ENGINE_NAMES[self.engine.value]
        if self.kind == "renamed":
            return f"use {self.advice}: {self.old} was renamed ({name} {self.since})"
        return f"{self.advice}: {self.old} was removed ({name} {self.since})"

    def matches(self, word: str, following: str | None) -> bool:
        """Whether `word` (with the next word as its value) is this old spelling."""
        if self.value_prefix is not None:
            if word == self.old:
                value = following
            elif word.startswith(self.old):
                value = word[len(self.old):].removeprefix("=")
            else:
                return False
            return value is not None and value.lstrip().startswith(self.value_prefix)
        return word == self.old or word.startswith(self.old + "=")


@cache
def table() -> tuple[Renamed, ...]:
    """Every entry, read once."""
    text = resources.files("graphfit.inputs").joinpath("flags/renamed.json").read_text()
    out = []
    for e in json.loads(text)["entries"]:
        advice = e["new"] if e["kind"] == "renamed" else e["use"]
        out.append(Renamed(Engine(e["engine"]), e["old"], e["kind"], advice, e["since"],
                           e["source"], e.get("value_prefix")))
    return tuple(out)


def old_flag(engine: Engine, argv: Sequence[str]) -> Renamed | None:
    """The first old spelling on the line, if any."""
    entries = [r for r in table() if r.engine is engine and r.kind != "environment"]
    for i, word in enumerate(argv):
        following = argv[i + 1] if i + 1 < len(argv) else None
        for entry in entries:
            if entry.matches(word, following):
                return entry
    return None


def environment_notes(engine: Engine, environ: Mapping[str, str]) -> list[str]:
    """Notes for variables of the line the engine no longer reads."""
    return [f"{r.old}={environ[r.old]}: {r.says()}" for r in table()
            if r.engine is engine and r.kind == "environment" and r.old in environ]
