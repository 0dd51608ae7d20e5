"""Plan files (`graphfit check --plan FILE`): read strictly, accepted only when exact.

A plan file is what `graphfit plan --json` wrote (an older schema, or a /3 document written
before an option field existed, is first upgraded to what graphfit writes now). Its config
is re-planned and the document graphfit writes for it is regenerated (by the caller: the
CLI owns the document's shape); the file must equal it exactly -- same entries, same order,
same types, same values -- or it is refused, naming the first path that differs. Nothing in
a plan file is trusted or partly checked: an extra component, a buffer listed twice, a
capacity, an offset, a fill, a ladder or a total edited by hand is a difference like any
other. To audit other sizes, give them to `check --capacity` instead of editing the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from graphfit.inputs.reading import load_json, shown_path
from graphfit.planner.config import LEGACY_KEYWORDS, EngineConfig
from graphfit.planner.core.errors import ConfigError, brief, excerpt
from graphfit.planner.document import PLAN_SCHEMA
from graphfit.planner.engines.base import options_type
from graphfit.planner.engines.registry import engine_model, versions

_SCHEMA_1 = "graphfit.plan/1"  # before engine_version: its config names no release
_SCHEMA_2 = "graphfit.plan/2"  # before options objects: every engine's fields flat in config

_SHOWN = 24  # characters of a differing value echoed in the message


def read_plan_file(path: str | Path) -> tuple[dict[str, Any], EngineConfig]:
    """(the document, its config): strict JSON (graphfit.inputs.reading), the plan schema
    and a valid config; whether the rest is exact is `first_difference`'s question."""
    where = f"plan {shown_path(path)}"
    doc = load_json(path, "plan")
    if not isinstance(doc, dict) or doc.get("schema") not in (_SCHEMA_1, _SCHEMA_2,
                                                               PLAN_SCHEMA):
        raise ConfigError(f"{where}: schema must be {PLAN_SCHEMA!r} (or {_SCHEMA_2!r}, "
                          f"{_SCHEMA_1!r})")
    config = doc.get("config")
    if not isinstance(config, dict):
        raise ConfigError(f"{where}: 'config' must be a JSON object")
    if doc["schema"] == _SCHEMA_1:
        doc = _upgraded(doc, config, where)
        config = doc["config"]
    if doc["schema"] == _SCHEMA_2:
        doc = _with_options(doc, config, where)
        config = doc["config"]
    else:
        doc = _with_later_options(doc, config)
        config = doc["config"]
    doc = _with_later_vit_fields(doc)
    config = doc["config"]
    try:
        return doc, EngineConfig.from_dict(config)
    except ConfigError as exc:
        message = str(exc)
        prefix = "" if message.startswith("config:") else "config: "
        raise ConfigError(f"{where}: {prefix}{message}") from None


def _upgraded(doc: dict[str, Any], config: dict[str, Any], where: str) -> dict[str, Any]:
    """A graphfit.plan/1 document as /2 writes it: its config gains the engine release its
    top-level `engine_version` ("vLLM 0.33.0") names, right after `engine`; anything else
    is then compared as usual."""
    if "engine_version" in config:
        raise ConfigError(f"{where}: config.engine_version: an entry graphfit.plan/1 does "
                          "not write")
    engine = config.get("engine", "vllm")
    shown = doc.get("engine_version")
    try:
        known = versions(engine)
        release = next((v for v in known if engine_model(engine, v).version == shown), None)
    except ConfigError as exc:
        raise ConfigError(f"{where}: config: {exc}") from None
    if release is None:
        raise ConfigError(f"{where}: written for {excerpt(shown)}, a release graphfit no longer "
                          f"models ({', '.join(known)})")
    upgraded: dict[str, Any] = {}
    for key, value in config.items():
        upgraded[key] = value
        if key == "engine":
            upgraded["engine_version"] = release
    if "engine" not in config:
        upgraded["engine_version"] = release
    return {**doc, "schema": _SCHEMA_2, "config": upgraded}


def _with_options(doc: dict[str, Any], config: dict[str, Any], where: str) -> dict[str, Any]:
    """A graphfit.plan/2 document as /3 writes it: the flat fields of the engine's options
    class move, in their order, into `config.options` (last; an option the document lacks, one
    added after /2 was written, at its default); another engine's flat fields
    are dropped where they hold what /2 wrote for them (their defaults) and otherwise left
    where they are, to be refused as entries /3 does not write. Everything else is then
    compared as usual."""
    if "options" in config:  # not what /2 wrote: compared (and refused) as it stands
        return {**doc, "schema": PLAN_SCHEMA}
    try:
        model = engine_model(config.get("engine", "vllm"), config.get("engine_version"))
        cls = options_type(model)
    except ConfigError as exc:
        raise ConfigError(f"{where}: config: {exc}") from None
    upgraded: dict[str, Any] = {}
    options: dict[str, Any] = {}
    for key, value in config.items():
        if key in cls.names():
            options[key] = value
        elif key in LEGACY_KEYWORDS and _as_written(key, value):
            continue
        else:
            upgraded[key] = value
    # an option /2 had no field for yet (a later release's, e.g. vLLM 0.34's split sizes)
    # was planned at its default by the code that wrote the document
    defaults = cls().to_dict()
    upgraded["options"] = {name: options.get(name, defaults[name]) for name in cls.names()}
    return {**doc, "schema": PLAN_SCHEMA, "config": upgraded}


def _with_later_options(doc: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    """A graphfit.plan/3 document written before some option fields existed (SGLang's `vit`,
    added while /3 is current): its `config.options` lists the fields its writer knew, in
    the class's order, and lacks the later ones, which that writer planned at their
    defaults -- they are filled in at their places. Anything else (an unknown entry, entries
    reordered, no options object) is left as it stands, to be compared and refused."""
    options = config.get("options")
    if not isinstance(options, dict):
        return doc
    try:
        cls = options_type(engine_model(config.get("engine", "vllm"),
                                        config.get("engine_version")))
    except (ConfigError, TypeError):
        return doc  # refused by EngineConfig.from_dict with its own message
    names = cls.names()
    if list(options) != [n for n in names if n in options] or len(options) == len(names):
        return doc
    defaults = cls().to_dict()
    completed = {name: options[name] if name in options else defaults[name] for name in names}
    return {**doc, "config": {**config, "options": completed}}


def _with_later_vit_fields(doc: dict[str, Any]) -> dict[str, Any]:
    """SGLang's `vit` option as graphfit writes it now, when the document was written before
    some of the tower's fields existed (`vit_pairs_completed`: filled in at the defaults
    its writer planned); anything else is left as it stands."""
    config = doc["config"]
    options = config.get("options")
    if not isinstance(options, dict) or "vit" not in options:
        return doc
    from graphfit.planner.engines.sglang_vit_keyed import vit_pairs_completed

    completed = vit_pairs_completed(options["vit"])
    if completed is options["vit"]:
        return doc
    return {**doc, "config": {**config, "options": {**options, "vit": completed}}}


def _as_written(key: str, value: object) -> bool:
    """Whether `value` is what graphfit.plan/2 wrote for another engine's field `key`."""
    written = LEGACY_KEYWORDS[key].absent_value(key)  # the default, or vLLM's runner "v1"
    return bool(getattr(written, "value", written) == value)


def _name(path: str, key: object) -> str:
    return f"{path}.{brief(str(key), _SHOWN)}" if path else brief(str(key), _SHOWN)


def _shown(value: object) -> str:
    return excerpt(value, _SHOWN)


def first_difference(given: Any, expected: Any, path: str = "") -> str | None:
    """The first place `given` differs from `expected` (JSON values), or None when equal.

    Strict: key order, list lengths and value types count (1 is not 1.0, true is not 1).
    """
    where = path or "the document"
    if type(given) is not type(expected):
        return f"{where} is {_shown(given)}, graphfit writes {_shown(expected)}"
    if isinstance(expected, dict):
        given_keys, expected_keys = list(given), list(expected)
        for got, want in zip(given_keys, expected_keys):
            if got != want:
                if got not in expected:
                    return f"{_name(path, got)}: an entry graphfit does not write"
                if want not in given:
                    return f"{_name(path, want)}: missing"
                return f"{where}: {brief(str(got), _SHOWN)} where graphfit writes " \
                       f"{brief(str(want), _SHOWN)} (entries reordered)"
        if len(given_keys) > len(expected_keys):
            return f"{_name(path, given_keys[len(expected_keys)])}: an entry graphfit does " \
                   "not write"
        if len(given_keys) < len(expected_keys):
            return f"{_name(path, expected_keys[len(given_keys)])}: missing"
        for key in expected_keys:
            found = first_difference(given[key], expected[key], _name(path, key))
            if found is not None:
                return found
        return None
    if isinstance(expected, list):
        for i, (got, want) in enumerate(zip(given, expected)):
            found = first_difference(got, want, f"{path}[{i}]")
            if found is not None:
                return found
        if len(given) != len(expected):
            return f"{where} has {len(given):,} items, graphfit writes {len(expected):,}"
        return None
    if given != expected:
        return f"{where} is {_shown(given)}, graphfit writes {_shown(expected)}"
    return None
