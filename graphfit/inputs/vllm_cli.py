"""`vllm serve MODEL [flags]` and `python -m vllm.entrypoints.openai.api_server [flags]` as
vLLM 0.33 reads them.

vLLM's `FlexibleArgumentParser.parse_args` (utils/argparse_utils.py) rewrites the argv before
argparse sees it; this module applies the same rules (facts, re-implemented):

1. `vllm serve`: the first `--model X` / `--model=X` moves to the front as the positional
   model (a warning; a second one stays and is refused); `--served-model-name` while the
   first token after `serve` is a flag and no `--config` is given is an error (324-369).
2. `--config FILE` (the separate token only; `--config=FILE` is not read): a YAML file's
   keys become flags inserted before the command line's, so the command line wins; `key:
   true` is `--key`, `key: false` is `--no-key` only where the *top-level* parser knows that
   spelling (under `vllm serve` it is dropped), lists are spread, mappings become JSON
   (586-673).
3. In `--` names everything between `--` and the first `.` has underscores turned to dashes;
   `-O3` / `-O=3` / `-O 3` (0-3 only for the spaced form) become `--optimization-level`
   (379-406).
4. Dotted keys (`-cc.cudagraph_mode FULL`, `--compilation-config.a.b=1`, `key+ 8`,
   `key+=8,16`) are gathered per flag spelling into one JSON object each and appended after
   everything else; values are JSON, else human-readable ints, else strings; `+` appends split
   on commas; two lists under one key are concatenated (455-500). So `-cc '{...}' -cc.k v`
   loses the JSON (the appended object comes last and argparse keeps the last value).

Then the argparse of the snapshot (graphfit.inputs.flagtable) parses, `validate_parsed_serve_args`'s
simple checks run, and `--spec-method/--spec-model/--spec-tokens` merge into the speculative
config (engine/arg_utils.py:2108-2128).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from functools import cache, partial
from typing import Any

from graphfit.inputs import flagtable
from graphfit.inputs import vllm as vllm_args
from graphfit.inputs.flagtable import LineReader, Parsed, Refused
from graphfit.inputs.reading import load_yaml, parse_json
from graphfit.inputs.settings import Setting
from graphfit.planner.core.enums import Engine
from graphfit.planner.core.errors import ConfigError, brief

_MODEL_FLAG = re.compile(r"^--model(=.+|$)")
_SERVED_NAME = re.compile(r"^--served[-_]model[-_]name(=.+|$)")
_CONFIG_FLAG = re.compile(r"^--config(=.+|$)")
_DASHED_NAME = re.compile(r"(?<=--)[^\.]*")
DEFAULT_MODEL = "Qwen/Qwen3-0.6B"  # EngineArgs.model's default (what `--model` omitted means)


@cache
def _parser(entry: str, flags: str = "vllm") -> flagtable.Parser:
    """The parser vLLM builds for `entry`, once per process (argparse parsers are reusable);
    `flags` names the release's snapshot (flags/vllm.json: 0.33.0's)."""
    table = flagtable.load(flags)
    if entry == "serve":
        top = flagtable.Parser(prog=table.prog("top"))
        flagtable.add_actions(top, table, "top")
        subparsers = top.add_subparsers(dest="subparser", required=False,
                                        parser_class=flagtable.Parser)
        serve = subparsers.add_parser("serve", prog=table.prog("serve"))
        flagtable.add_actions(serve, table, "serve")
        return top
    parser = flagtable.Parser(prog=table.prog("api_server"))
    flagtable.add_actions(parser, table, "api_server")
    return parser


def _move_model(args: list[str], notes: list[str]) -> list[str]:
    index = next((i for i, a in enumerate(args) if _MODEL_FLAG.match(a)), None)
    if index is not None:
        notes.append("vLLM warns: with `vllm serve`, give the model as the first argument, "
                     "not --model (moved to the front, as vLLM does)")
        if args[index] == "--model":
            if index + 1 >= len(args):
                raise Refused("IndexError: --model needs a value")
            model, rest = args[index + 1], index + 2
        else:
            model, rest = args[index].removeprefix("--model="), index + 1
        args = ["serve", model, *args[1:index], *args[rest:]]
    if (len(args) > 1 and args[1].startswith("-")
            and not any(_CONFIG_FLAG.match(a) for a in args)
            and any(_SERVED_NAME.match(a) for a in args)):
        raise Refused("`model` should be provided as the first positional argument when using "
                      "`vllm serve`. i.e. `vllm serve <model> --<arg> <value>`.")
    return args


def config_file_args(path: str, known: frozenset[str]) -> list[str]:
    """A `--config` YAML as the flags vLLM inserts (`known`: the option strings of the parser
    whose parse_args runs, for `key: false` -> `--no-key`)."""
    extension = path.split(".")[-1]
    if extension not in ("yaml", "yml"):
        raise Refused(f"Config file must be of a yaml/yml type. {brief(extension)} supplied")
    data = load_yaml(path, "--config")  # bounded and strict (graphfit.inputs.reading)
    if not isinstance(data, dict):
        raise Refused(f"{path}: expected a mapping of flags")
    out: list[str] = []
    for key, value in data.items():
        if isinstance(value, bool):
            if value:
                out.append(f"--{key}")
            elif f"--no-{key}" in known:
                out.append(f"--no-{key}")
        elif isinstance(value, list):
            if value:
                out += [f"--{key}", *(str(item) for item in value)]
        elif isinstance(value, dict):
            out += [f"--{key}", json.dumps(value)]
        else:
            out += [f"--{key}", str(value)]
    return out


def _pull_config(args: list[str], known: frozenset[str]) -> list[str]:
    if args.count("--config") > 1:
        raise Refused("More than one config file specified!")
    index = args.index("--config")
    if index == len(args) - 1:
        raise Refused("No config file specified! Please check your command-line arguments.")
    inserted = config_file_args(args[index + 1], known)
    if args[0].startswith("-"):
        return inserted + args[:index] + args[index + 2:]
    if args[0] != "serve":
        return [args[0], *inserted, *args[1:index], *args[index + 2:]]
    model_in_cli = len(args) > 1 and not args[1].startswith("-")
    if not model_in_cli and "--model" not in inserted:
        raise Refused("No model specified! Please specify model either as a positional "
                      "argument or in a config file.")
    if model_in_cli:
        return [*args[:2], *inserted, *args[2:index], *args[index + 2:]]
    return [args[0], *inserted, *args[1:index], *args[index + 2:]]


def _normalise(args: list[str]) -> list[str]:
    out: list[str] = []
    for i, arg in enumerate(args):
        if arg.startswith("--help="):
            out.append("--help")
        elif arg.startswith("--"):
            key, eq, value = arg.partition("=")
            key = _DASHED_NAME.sub(lambda m: m.group(0).replace("_", "-"), key, count=1)
            out.append(f"{key}={value}" if eq else key)
        elif arg.startswith("-O") and arg != "-O":
            out += ["--optimization-level", arg[3:] if arg[2] == "=" else arg[2:]]
        elif arg == "-O" and i + 1 < len(args) and args[i + 1] in {"0", "1", "2", "3"}:
            out.append("--optimization-level")
        else:
            out.append(arg)
    return out


def _dotted_value(text: str) -> Any:
    try:
        return parse_json(text)
    except ConfigError:
        try:
            return flagtable.vllm_human_int(text)
        except (ValueError, ArithmeticError):
            return text


def _update(original: dict[str, Any], update: dict[str, Any]) -> set[str]:
    duplicates: set[str] = set()
    for key, value in update.items():
        if isinstance(value, dict) and isinstance(original.get(key), dict):
            duplicates |= {f"{key}.{d}" for d in _update(original[key], value)}
        elif isinstance(value, list) and isinstance(original.get(key), list):
            original[key] += value
        else:
            if key in original:
                duplicates.add(key)
            original[key] = value
    return duplicates


def _gather_dotted(args: list[str], notes: list[str]) -> list[str]:
    delete: set[int] = set()
    gathered: dict[str, dict[str, Any]] = defaultdict(dict)
    duplicates: set[str] = set()
    for i, arg in enumerate(args):
        if i in delete or not (arg.startswith("-") and "." in arg):
            continue
        if "=" in arg:
            arg, text = arg.split("=", 1)
            if "." not in arg:  # the dot was in the value
                continue
        else:
            if i + 1 >= len(args):
                raise Refused(f"IndexError: {arg} needs a value")
            text = args[i + 1]
            delete.add(i + 1)
        if arg.endswith("+"):
            arg = arg[:-1]
            text = json.dumps(text.split(","))
        flag, *keys = arg.split(".")
        value: Any = _dotted_value(text)
        for key in reversed(keys):
            value = {key: value}
        duplicates |= {f"{flag}.{d}" for d in _update(gathered[flag], value)}
        delete.add(i)
    if duplicates:
        notes.append(f"vLLM warns: duplicate keys {', '.join(sorted(duplicates))} (the last "
                     "one wins)")
    out = [a for i, a in enumerate(args) if i not in delete]
    for flag, value in gathered.items():
        out += [flag, json.dumps(value)]
    return out


def rewrite(argv: Sequence[str], entry: str, known: frozenset[str]) -> tuple[list[str], list[str]]:
    """vLLM's argv rewriting (module docstring, steps 1-4); returns the argv argparse sees
    and vLLM's warnings."""
    args = list(argv)
    notes: list[str] = []
    if entry == "serve":
        args = _move_model(args, notes)
    if "--config" in args:
        args = _pull_config(args, known)
    return _gather_dotted(_normalise(args), notes), notes


def _validate(values: dict[str, Any]) -> None:
    """validate_parsed_serve_args's checks on flags (entrypoints/common/cli_args.py:531)."""
    if values.get("enable_auto_tool_choice") and not values.get("tool_call_parser"):
        raise Refused("Error: --enable-auto-tool-choice requires --tool-call-parser")
    if values.get("enable_log_outputs") and not values.get("enable_log_requests"):
        raise Refused("Error: --enable-log-outputs requires --enable-log-requests")
    if values.get("sse_keep_alive_interval", 0) < 0:
        raise Refused("Error: --sse-keep-alive-interval must be a non-negative integer")
    if values.get("enable_per_request_metrics") and values.get("disable_log_stats"):
        raise Refused("Error: --enable-per-request-metrics requires engine statistics logging")


def merge_spec_flags(values: dict[str, Any]) -> None:
    """--spec-method / --spec-model / --spec-tokens join --speculative-config (each key once);
    dashes in its keys become underscores."""
    spec = values.get("speculative_config")
    spec = dict(spec) if isinstance(spec, dict) else spec
    for flag, key, dest in (("--spec-method", "method", "spec_method"),
                            ("--spec-model", "model", "spec_model"),
                            ("--spec-tokens", "num_speculative_tokens", "spec_tokens")):
        value = values.pop(dest, None)
        if value is None:
            continue
        if spec is None:
            spec = {}
        if not isinstance(spec, dict):
            raise Refused(f"--speculative-config must be a JSON object, got {spec!r}")
        if key in spec:
            raise Refused(f"{flag} and --speculative-config['{key}'] are mutually exclusive")
        spec[key] = value
    if isinstance(spec, dict):
        spec = {str(k).replace("-", "_"): v for k, v in spec.items()}
    if spec is not None or "speculative_config" in values:
        values["speculative_config"] = spec


STARTUP = "at start-up (create_engine_config)"


def startup_checks(values: dict[str, Any]) -> None:
    """What `create_engine_config` refuses about flags graphfit models, before any model is
    loaded (engine/arg_utils.py:2834-2848): a top-level capture list or max together with
    its compilation-config twin."""
    cc = values.get("compilation_config")
    cc = cc if isinstance(cc, dict) else {}
    for key in ("cudagraph_capture_sizes", "max_cudagraph_capture_size"):
        if values.get(key) is not None and cc.get(key) is not None:
            raise Refused(f"{STARTUP}: {key} and compilation_config.{key} are mutually "
                          "exclusive")


def eager_overrides(values: Mapping[str, Any], settings: list[Setting]
                    ) -> tuple[list[Setting], list[str]]:
    """--enforce-eager wins over every CUDA-graph setting of the line: vLLM sets cudagraph_mode
    NONE and empties the capture list (config/vllm.py:1766-1768, 2004-2008)."""
    if values.get("enforce_eager") is not True:
        return settings, []
    graph_fields = {"cudagraph_mode", "cudagraph_capture_sizes", "max_cudagraph_capture_size"}
    dropped = sorted({s.origin for s in settings
                      if s.field in graph_fields and s.origin != "--enforce-eager"
                      and not s.origin.startswith("--enforce")})
    kept = [s for s in settings if s.field not in graph_fields or s.origin.startswith(
        "--enforce")]
    notes = ([f"--enforce-eager: vLLM runs without CUDA graphs, so {', '.join(dropped)} "
              "do not apply"] if dropped else [])
    return kept, notes


def parse(argv: Sequence[str], entry: str, flags: str = "vllm"
          ) -> tuple[Parsed, str, list[str]]:
    """(what vLLM's parser read, the model served, vLLM's warnings) for the argv after `vllm`
    (entry "serve", argv[0] == "serve") or after the api_server module (entry "api_server"),
    with the parser of the release whose snapshot `flags` names."""
    table = flagtable.load(flags)
    known = table.options("top" if entry == "serve" else "api_server")
    args, notes = rewrite(argv, entry, known)
    parsed = flagtable.parse(_parser(entry, flags), args)
    values = parsed.values
    values.pop("subparser", None)
    _validate(values)
    if entry == "serve" and values.get("model_tag") is not None:
        model = str(values["model_tag"])
    else:
        model = str(values.get("model") or DEFAULT_MODEL)
    merge_spec_flags(values)
    startup_checks(values)
    return parsed, model, notes


def finish(values: Mapping[str, Any], settings: list[Setting]
           ) -> tuple[list[Setting], list[str]]:
    """--enforce-eager's override. The batch defaults the line leaves open depend on the GPU
    and the model's length, so they are settled after every source is merged
    (graphfit.inputs.line_defaults, graphfit.inputs.vllm_defaults)."""
    return eager_overrides(values, settings)


def draft_model(values: Mapping[str, Any]) -> str | None:
    spec = values.get("speculative_config")
    model = spec.get("model") if isinstance(spec, dict) else None
    return model if isinstance(model, str) else None


def label(entry: str, flags: str = "vllm") -> str:
    shown = "vllm serve" if entry == "serve" else "api_server"
    return f"vLLM {flagtable.load(flags).version} ({shown})"


def release_reader(flags: str) -> LineReader:
    """The line reader of the release whose flag snapshot is flags/<flags>.json: that
    release's own parser (its flags, its -cc keys); the key handlers are shared."""
    return LineReader(Engine.VLLM, partial(parse, flags=flags), vllm_args.FILE_KEYS,
                      frozenset({"model", "model_tag"}), partial(label, flags=flags), finish,
                      draft_model)


READER = release_reader("vllm")
READER_0_32 = release_reader("vllm-0.32.0")
READER_0_34 = release_reader("vllm-0.34.0")
