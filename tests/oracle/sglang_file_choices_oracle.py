"""SGLang 0.5.23's choice-valued flags and the two sides of a config-file key outside
them (issue 23 s47l), shared by tests/oracle/test_sglang_file_choices_oracle.py and
tests/oracle/measure_sglang_file_choices.py (which also runs main's graphfit, so nothing
here imports graphfit.inputs.sglang_file_choices)."""

from __future__ import annotations

import argparse
import json
from functools import cache

from tests.oracle import sglang_draft_shape as ds
from tests.oracle import sglang_oracle as so

OWN_ORDER = frozenset({"attention_backend", "dtype"})  # s46f's and s45r's checks, SGLang's order


@cache
def sglang_actions() -> dict[str, argparse.Action]:
    """SGLang's own store actions with choices, by dest (attention_backend: s46f's)."""
    from tests.oracle import sglang_args_oracle as sa

    sa.bootstrap()
    with sa.sglang_env():
        from sglang.srt.server_args import ServerArgs

        parser = argparse.ArgumentParser(prog="sglang serve", exit_on_error=False)
        ServerArgs.add_cli_args(parser)
    _PARSER.append(parser)
    return {a.dest: a for a in parser._actions
            if a.choices is not None and a.option_strings and a.nargs is None
            and type(a).__name__ in ("_StoreAction", "DeprecatedAliasStoreAction")
            and a.dest not in OWN_ORDER}


_PARSER: list[argparse.ArgumentParser] = []


def sglang_refuses(dest: str, text: str) -> bool:
    action = sglang_actions()[dest]
    try:
        _PARSER[0].parse_args(["--model-path", "m", action.option_strings[0], text])
    except argparse.ArgumentError:
        return True
    return False


_file = ds.named_file  # a --config file named by its content


def sglang_says(dest: str, value: object) -> str | None:
    yaml = _file(".yaml", f"{dest.replace('_', '-')}: {json.dumps(value)}\n")
    got = so.resolve(("--config", yaml))
    return got.text if isinstance(got, so.Rejected) and got.kind == "argparse" else None


def graphfit_says(dest: str, value: object) -> str:
    from tests.helpers import run_cli

    body = json.dumps({"engine": "sglang", dest: value}, sort_keys=True)
    code, _out, text = run_cli(["plan", "--gpu-memory-gb", "80", "--config",
                               _file(".json", body), "--", "python", "-m",
                               "sglang.launch_server", "--model-path",
                               str(so.oracle().model_dir)])
    lines = [ln for ln in text.strip().splitlines() if ln.startswith("error:")]
    return lines[-1] if code == 2 and lines else f"exit {code}"
