"""Typed reads of user-supplied values; every error names where the value came from.

`origin` is how the user spelled the setting ("--speculative-config: num_speculative_tokens",
"serve.yaml: max-num-seqs"), so a bad value is one line that points at the key.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable
from typing import Any

from graphfit.planner.core.errors import ConfigError


def as_int(origin: str, value: object, minimum: int = 1) -> int:
    """An integer >= minimum; digit strings are accepted (vLLM's argparse reads them too)."""
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{origin}: expected an integer, got {value!r}")
    if value < minimum:
        raise ConfigError(f"{origin}: must be >= {minimum}, got {value}")
    return value


def as_bool(origin: str, value: object) -> bool:
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    if not isinstance(value, bool):
        raise ConfigError(f"{origin}: expected true or false, got {value!r}")
    return value


def as_str(origin: str, value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{origin}: expected a string, got {value!r}")
    return value.strip()


def as_sizes(origin: str, value: object, *, normalize: bool = False) -> tuple[int, ...]:
    """A list of positive integers (a JSON/YAML list, or "1,2,4" / "1 2 4" text).

    `normalize` sorts and dedupes, as vLLM and TensorRT-LLM do with their own lists.
    """
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                value = json.loads(text)
            except json.JSONDecodeError:
                raise ConfigError(f"{origin}: malformed list {value!r}") from None
        else:
            value = [v for v in text.replace(",", " ").split() if v]
    if not isinstance(value, (list, tuple)):
        raise ConfigError(f"{origin}: expected a list of integers, got {value!r}")
    sizes = tuple(as_int(origin, v) for v in value)
    if not sizes:
        raise ConfigError(f"{origin}: the list is empty")
    return tuple(sorted(set(sizes))) if normalize else sizes


def as_object(origin: str, value: object) -> dict[str, Any]:
    """A JSON object given as a mapping or as JSON text (how vLLM takes its sub-configs)."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise ConfigError(
                f"{origin}: malformed JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(value, dict):
        raise ConfigError(f"{origin}: expected a JSON object, got {type(value).__name__}")
    for key in value:
        if not isinstance(key, str):
            raise ConfigError(f"{origin}: keys must be strings, got {key!r}")
    return value


def normalize_key(key: str) -> str:
    """vLLM and SGLang spell keys with dashes on the CLI and underscores in code."""
    return key.strip().lstrip("-").replace("-", "_").lower()


def reject_unknown(origin: str, keys: Iterable[str], known: Iterable[str]) -> None:
    """Error on the first unknown key, suggesting the closest known one."""
    known_list = sorted(known)
    for key in keys:
        if normalize_key(key) in known_list:
            continue
        close = difflib.get_close_matches(normalize_key(key), known_list, n=1, cutoff=0.75)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise ConfigError(f"{origin}: unknown key {key!r}{hint}")


def close_match(key: str, known: Iterable[str]) -> str | None:
    """The known key a probable typo was meant to be (None when nothing is close)."""
    close = difflib.get_close_matches(normalize_key(key), sorted(known), n=1, cutoff=0.85)
    return close[0] if close else None
