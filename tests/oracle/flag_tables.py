"""Snapshot the engines' own argument parsers as data: graphfit/inputs/flags/*.json.

graphfit reads a pasted `vllm serve ...` / `python -m sglang.launch_server ...` line with the
standard library's argparse built from these tables (graphfit.inputs.flagtable), so it accepts
exactly the spellings the engine version accepts. The tables are generated here, from the
parsers the engines build themselves (tests/oracle/vllm_args_oracle.serve_parser /
api_server_parser, SGLang's `ServerArgs.add_cli_args`), and
tests/oracle/test_paste_oracle.py checks that the committed files equal a fresh snapshot.

    PYTHONPATH=. python -m tests.oracle.flag_tables      # rewrite the JSON files

Each parser is recorded as its actions: every registered option string (with the hidden
`--no-x` / `--disable-x` spellings), dest, nargs, const, choices, required, the action's kind
(store, store_true, bool with its negative spellings, append, ...) and the value type's kind
(`int`, `optional:int`, `vllm_human_int_or_auto`, `config:CompilationConfig`, ...). A type
or action this module does not know is an error, so a new engine version cannot be
snapshotted silently wrong. JSON sub-configs (`--compilation-config`, ...) record their
config class's field names and whether unknown keys are refused.
"""

from __future__ import annotations

import argparse
import inspect
import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
FLAGS = ROOT / "graphfit" / "inputs" / "flags"
VLLM_FILE = FLAGS / "vllm.json"  # the primary release's (paths.PRIMARY)


# SGLang flags whose choice order depends on the process (action_record keeps them sorted)
PROCESS_ORDERED = ("reasoning_parser", "tool_call_parser")

def vllm_file(release: str) -> Path:
    """A vLLM release's table: vllm.json for the primary release, else vllm-<release>.json
    (the file its `releases/v0_NN.py` names as `flag_table`)."""
    from tests.oracle import paths

    return VLLM_FILE if release == paths.PRIMARY["vllm"] else FLAGS / f"vllm-{release}.json"
SGLANG_FILE = FLAGS / "sglang.json"


class UnknownKind(ValueError):
    """A parser feature the snapshot cannot describe (a new engine version's type/action)."""


def _closure(fn: Any) -> dict[str, Any]:
    cells = fn.__closure__ or ()
    return {name: cell.cell_contents for name, cell in zip(fn.__code__.co_freevars, cells)}


def type_kind(t: Any, configs: dict[str, Any]) -> str:
    """The kind of an action's `type` callable (see graphfit.inputs.flagtable.CONVERTERS)."""
    if t is None:
        return "str"
    if t in (str, int, float):
        return t.__name__
    name = getattr(t, "__qualname__", "")
    module = getattr(t, "__module__", "") or ""
    if module == "json" and name == "loads":
        return "json"
    if name == "optional_type.<locals>._optional_type":
        return "optional:" + type_kind(_closure(t)["return_type"], configs)
    if name == "parse_type.<locals>._parse_type":  # ValueError -> ArgumentTypeError only
        return type_kind(_closure(t)["return_type"], configs)
    if name == "_compute_kwargs.<locals>.parse_dataclass":
        cls = t.__defaults__[0]
        configs[cls.__name__] = _config_class(cls)
        return "config:" + cls.__name__
    if name == "union_dict_and_str":
        return "dict_or_str"
    if name == "human_readable_int_or_auto":
        return "vllm_human_int_or_auto"
    if name == "human_readable_int":
        return "vllm_human_int" if module.startswith("vllm") else "sglang_human_int"
    if name == "parse_reasoning_parser":
        return "none_is_empty"
    if name == "nullable_str":
        return "nullable_str"
    if name == "json_list_type":  # SGLang's own words for a value that is not JSON
        return "sglang_json_list" if module.startswith("sglang") else "json"
    if name == "parse_cuda_graph_backend_arg":
        return "sglang_cuda_graph_backend"
    if name == "parse_cuda_graph_config_arg":
        return "sglang_cuda_graph_config"
    if name.endswith("<lambda>"):
        source = inspect.getsource(t)
        if 'lower().replace("-", "_")' in source:
            return "lower_underscore"
        if "device_id" in source:
            return "device_ids"
    raise UnknownKind(f"unknown argument type {module}.{name}")


def _config_class(cls: Any) -> dict[str, Any]:
    import dataclasses

    config = getattr(cls, "__pydantic_config__", None) or {}
    names = [f.name for f in dataclasses.fields(cls)]
    return {"fields": sorted(names), "extra": str(config.get("extra") or "ignore")}


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def action_record(action: argparse.Action, options: list[str],
                  configs: dict[str, Any], ordered: bool = False) -> dict[str, Any]:
    """One action as data (see the module docstring); `ordered` keeps the choices in the
    engine's order (its "invalid choice" message lists them so) unless they are a set."""
    cls = type(action).__name__
    record: dict[str, Any] = {"options": options, "dest": action.dest}
    if cls in ("_StoreAction", "DeprecatedLogConfigFileAction", "LoRAParserAction",
               "LoRAPathAction", "DeprecatedAliasStoreAction"):
        record["action"] = "store"
    elif cls in ("_StoreTrueAction", "DeprecatedStoreTrueAction"):
        record["action"] = "store_true"
    elif cls == "_StoreFalseAction":
        record["action"] = "store_false"
    elif cls == "_StoreConstAction":
        record["action"], record["const"] = "store_const", action.const
    elif cls == "DeprecatedStoreConstAction":
        record["action"], record["const"] = "store_const", action.const_value  # type: ignore[attr-defined]
    elif cls == "_AppendAction":
        record["action"] = "append"
    elif cls in ("BooleanOptionalAction", "EnableDisableAction"):
        record["action"] = "bool"
        negatives = getattr(action, "negative_option_strings", None)
        if negatives is None:
            negatives = [o for o in options if o.startswith("--no-")]
        record["negatives"] = sorted(negatives)
    elif cls == "_HelpAction":
        record["action"] = "help"
    elif cls == "_VersionAction":
        record["action"] = "version"
    else:
        raise UnknownKind(f"unknown argparse action {cls} for {options}")
    if record["action"] in ("store", "append", "store_const"):
        record["nargs"] = action.nargs
        record["type"] = type_kind(action.type, configs)
        if cls == "LoRAParserAction":
            record["type"] = "vllm_lora"
        if action.choices is not None:
            # sorted: some engines build choices from sets (order varies between runs);
            # SGLang's table keeps its own order where that order is fixed: a list, tuple
            # or dict (every choices= of arg_groups/fields/*.py and arg_groups/choices.py)
            # but not --sampling-backend's set (server_args.py:356-364; issue 23 s55l), nor
            # the two parser lists whose order depends on what the process imported first
            # (the registry's order once its module is loaded, else the names list's:
            # server_args.py:70-87; the full test suite loads them before the snapshot)
            choices = sorted(action.choices, key=lambda v: (v is None, str(v)))
            if ordered and not isinstance(action.choices, (set, frozenset)) \
                    and action.dest not in PROCESS_ORDERED:
                choices = list(action.choices)
            if not _jsonable(choices):
                raise UnknownKind(f"choices of {options} are not JSON values")
            record["choices"] = choices
    if action.required:
        record["required"] = True
    if action.default is not argparse.SUPPRESS and _jsonable(action.default):
        record["default"] = action.default
    return record


def parser_record(parser: argparse.ArgumentParser, configs: dict[str, Any], prog: str,
                  ordered: bool = False) -> dict[str, Any]:
    """A parser's actions (positionals included, in order) and its own settings; `prog` is
    the program name the engine's users see in its messages. `ordered` (SGLang's table,
    issue 23 s55l) keeps each action's option strings as registered, which is the order
    argparse names them in ("argument --tp-size/--tensor-parallel-size: ...") and lists
    an ambiguous prefix's matches in, and its choices in the engine's order where that is
    fixed (`action_record`); vLLM's tables stay sorted."""
    by_action: dict[int, list[str]] = {}
    for option, action in parser._option_string_actions.items():
        by_action.setdefault(id(action), []).append(option)
    actions = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            continue
        mine = by_action.get(id(action), [])
        if ordered:  # as registered: the action's own strings, then any hidden spelling
            options = [o for o in action.option_strings if o in mine] + \
                [o for o in mine if o not in action.option_strings]
        else:
            options = sorted(mine, key=lambda o: (o not in action.option_strings, o))
        if not options:  # a positional
            actions.append({"positional": True, "dest": action.dest, "nargs": action.nargs,
                            "type": type_kind(action.type, configs),
                            **({"default": action.default} if _jsonable(action.default)
                               else {})})
            continue
        actions.append(action_record(action, options, configs, ordered))
    return {"prog": prog, "allow_abbrev": parser.allow_abbrev,
            "prefix_chars": parser.prefix_chars, "actions": actions}


def vllm_snapshot() -> dict[str, Any]:
    """The imported vLLM release's `vllm serve` and api_server parsers (the same flags;
    `serve` adds the positional model tag) from the oracle glue, which builds them with
    vLLM's own code."""
    from tests.oracle import vllm_args_oracle as va

    va.bootstrap()
    top = va.serve_parser()
    serve = next(a for a in top._actions
                 if isinstance(a, argparse._SubParsersAction)).choices["serve"]
    configs: dict[str, Any] = {}
    serve_record = parser_record(serve, configs, "vllm serve")
    api_record = parser_record(va.api_server_parser(), configs, "api_server.py")
    if api_record["actions"] == serve_record["actions"]:  # the same make_arg_parser
        del api_record["actions"]
        api_record["actions_of"] = "serve"
    from tests.oracle.paths import version

    release = version("vllm")
    cli_args = va._cli_args().__name__.removeprefix("vllm.").replace(".", "/") + ".py"
    return {
        "engine": "vllm", "version": release,
        "source": f"tests/oracle/flag_tables.py from vllm {release}'s FlexibleArgumentParser "
                  f"(entrypoints/cli/serve.py, {cli_args}, engine/arg_utils.py)",
        "parsers": {"top": parser_record(top, configs, "vllm"), "serve": serve_record,
                    "api_server": api_record},
        "configs": configs,
    }


def sglang_snapshot() -> dict[str, Any]:
    """SGLang 0.5.23's server parser (`prepare_server_args`: argparse + ServerArgs.add_cli_args)
    the key sets its `--cuda-graph-config` type accepts and how its `--config` YAML merger
    treats each key."""
    from tests.oracle import sglang_args_oracle as sa

    sa.bootstrap()
    with sa.sglang_env():
        from sglang.srt.model_executor import cuda_graph_config as cgc
        from sglang.srt.server_args import ServerArgs
        from sglang.srt.utils.server_args_config_parser import ConfigArgumentMerger

        parser = argparse.ArgumentParser(prog="sglang serve")
        ServerArgs.add_cli_args(parser)
        configs: dict[str, Any] = {}
        record = parser_record(parser, configs, "sglang serve", ordered=True)
        phases = {phase: list(cgc.ALLOWED_KEYS_PER_PHASE[phase]) for phase in cgc.Phase.ALL}
        merger = ConfigArgumentMerger(parser)
        config_file = {"store_true": sorted(set(merger.store_true_actions)),
                       # key -> its action's class, which the merger's refusal names
                       # (server_args_config_parser.py:170-173; issue 23 s51f)
                       "unsupported": {key: type(action).__name__ for key, action
                                       in sorted(merger.unsupported_actions.items())}}
    return {
        "engine": "sglang", "version": "0.5.23",
        "source": "tests/oracle/flag_tables.py from sglang 0.5.23's prepare_server_args "
                  "(srt/server_args.py) and cuda_graph_config.ALLOWED_KEYS_PER_PHASE",
        "parsers": {"server": record},
        "configs": configs,
        "cuda_graph_config_phases": phases,
        # how `--config FILE` turns YAML keys into flags (ConfigArgumentMerger): keys of
        # store_true flags become a bare flag, unsupported keys are refused (naming the action)
        "config_file": config_file,
    }


def dump(snapshot: dict[str, Any]) -> str:
    """The committed text of a snapshot (stable: sorted keys, one action per line)."""
    lines = ["{"]
    head = {k: v for k, v in snapshot.items() if k != "parsers"}
    for key, value in head.items():
        lines.append(f"  {json.dumps(key)}: {json.dumps(value, sort_keys=True)},")
    lines.append('  "parsers": {')
    parsers = list(snapshot["parsers"].items())
    for i, (name, parser) in enumerate(parsers):
        settings = {k: v for k, v in parser.items() if k != "actions"}
        lines.append(f"    {json.dumps(name)}: {{")
        for key, value in settings.items():
            lines.append(f"      {json.dumps(key)}: {json.dumps(value)},")
        if "actions" not in parser:
            lines[-1] = lines[-1].rstrip(",")
            lines.append("    }" + ("," if i < len(parsers) - 1 else ""))
            continue
        lines.append('      "actions": [')
        actions = parser["actions"]
        for j, action in enumerate(actions):
            comma = "," if j < len(actions) - 1 else ""
            lines.append(f"        {json.dumps(action, sort_keys=True)}{comma}")
        lines.append("      ]")
        lines.append("    }" + ("," if i < len(parsers) - 1 else ""))
    lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main() -> None:
    """Rewrite the imported vLLM release's table (GRAPHFIT_ORACLE_VLLM picks it) and, in the
    primary release's process, SGLang's."""
    from tests.oracle import paths

    FLAGS.mkdir(parents=True, exist_ok=True)
    snapshot = vllm_snapshot()
    target = vllm_file(snapshot["version"])
    target.write_text(dump(snapshot))
    print(f"wrote {target.relative_to(ROOT)}")
    if snapshot["version"] == paths.PRIMARY["vllm"]:
        SGLANG_FILE.write_text(dump(sglang_snapshot()))
        print(f"wrote {SGLANG_FILE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
