"""Typed reads of user-supplied values; every error names where the value came from.

`origin` is how the user spelled the setting ("--speculative-config: num_speculative_tokens",
"serve.yaml: max-num-seqs"), so a bad value is one line that points at the key. Text is read
through graphfit.inputs.reading: integers are ASCII digits in range, JSON is strict.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any

from graphfit.inputs.reading import check_int, parse_int, parse_json
from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.core.limits import MAX_CAPTURE_SIZES


def as_int(origin: str, value: object, minimum: int = 1) -> int:
    """An integer >= minimum; digit strings are accepted (vLLM's argparse reads them too),
    ASCII digits only ("²", "1.5", "1_000" are refused), up to graphfit's MAX_INT."""
    if isinstance(value, str):
        return parse_int(origin, value, minimum=minimum)
    return check_int(origin, value, minimum=minimum)


def as_bool(origin: str, value: object) -> bool:
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    if not isinstance(value, bool):
        raise ConfigError(f"{origin}: expected true or false, got {excerpt(value)}")
    return value


def as_str(origin: str, value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{origin}: expected a string, got {excerpt(value)}")
    return value.strip()


def as_sizes(origin: str, value: object, *, normalize: bool = False) -> tuple[int, ...]:
    """A list of positive integers (a JSON/YAML list, or "1,2,4" / "1 2 4" text).

    `normalize` sorts and dedupes, as vLLM and TensorRT-LLM do with their own lists.
    """
    if isinstance(value, str):
        text = value.strip()
        value = parse_json(text, origin) if text.startswith("[") else split_list(origin, text)
    if not isinstance(value, (list, tuple)):
        raise ConfigError(f"{origin}: expected a list of integers, got {excerpt(value)}")
    if len(value) > MAX_CAPTURE_SIZES:
        raise ConfigError(f"{origin}: {len(value):,} sizes; graphfit plans at most "
                          f"{MAX_CAPTURE_SIZES:,} capture sizes")
    sizes = tuple(as_int(origin, v) for v in value)
    if not sizes:
        raise ConfigError(f"{origin}: the list is empty")
    return tuple(sorted(set(sizes))) if normalize else sizes


def split_list(origin: str, text: str) -> list[str]:
    """"1,2,4" or "1 2 4" -> ["1", "2", "4"]; an empty item ("1,,2", "1,") is refused."""
    parts = [p.strip() for p in text.replace(" ", ",").split(",")]
    if "," in text and any(not p for p in text.split(",")):
        raise ConfigError(f"{origin}: empty item in {excerpt(text)} (use 1,2,4)")
    return [p for p in parts if p]


def as_object(origin: str, value: object) -> dict[str, Any]:
    """A JSON object given as a mapping or as JSON text (how vLLM takes its sub-configs)."""
    if isinstance(value, str):
        value = parse_json(value, origin)
    if not isinstance(value, dict):
        raise ConfigError(f"{origin}: expected a JSON object, got {type(value).__name__}")
    for key in value:
        if not isinstance(key, str):
            raise ConfigError(f"{origin}: keys must be strings, got {excerpt(key)}")
    return value


def normalize_key(key: str) -> str:
    """vLLM and SGLang spell keys with dashes on the CLI and underscores in code."""
    if not isinstance(key, str):
        raise ConfigError(f"keys must be strings, got {excerpt(key)}")
    return key.strip().lstrip("-").replace("-", "_").lower()


def reject_unknown(origin: str, keys: Iterable[str], known: Iterable[str]) -> None:
    """Error on the first unknown key, suggesting the closest known one."""
    known_list = sorted(known)
    for key in keys:
        if normalize_key(key) in known_list:
            continue
        close = difflib.get_close_matches(normalize_key(key), known_list, n=1, cutoff=0.75)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise ConfigError(f"{origin}: unknown key {excerpt(key)}{hint}")


def close_match(key: str, known: Iterable[str]) -> str | None:
    """The known key a probable typo was meant to be (None when nothing is close)."""
    close = difflib.get_close_matches(normalize_key(key), sorted(known), n=1, cutoff=0.85)
    return close[0] if close else None
