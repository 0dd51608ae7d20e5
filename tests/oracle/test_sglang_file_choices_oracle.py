"""Choice-valued SGLang keys in a config file read as SGLang's (issue 23 s47l,
graphfit.inputs.sglang_file_choices) against SGLang 0.5.23's own parser.

SGLang merges its `--config` YAML into argv (`--{key} str(value)`, utils/
server_args_config_parser.py:164-181, 208-210) and argparse refuses a value outside a flag's
choices before anything else runs. Two comparisons:

* every choice-valued flag of SGLang's own parser (argparse + `ServerArgs.add_cli_args`, as
  `prepare_server_args` builds it) with drawn values outside and inside its choices: graphfit
  refuses exactly the values SGLang's parser refuses;
* a sample of keys end to end: SGLang's server given the key in its --config YAML against
  `graphfit plan --config` with the key in an `engine: sglang` file: both refuse, and
  graphfit's message is SGLang's up to the choice list (graphfit's snapshot holds the list
  sorted), with the same choices."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from tests.oracle.paths import require

require("sglang")

from graphfit.inputs import sglang_file_choices as fc  # noqa: E402
from graphfit.planner.core.errors import ConfigError  # noqa: E402
from tests.oracle.sglang_file_choices_oracle import (  # noqa: E402
    file_draws,
    graphfit_says,
    sglang_action_dest,
    sglang_actions,
    sglang_default,
    sglang_file_verdict,
    sglang_refuses,
    sglang_says,
)


def graphfit_refuses(dest: str, value: object) -> bool:
    try:
        fc.check({dest: value}, "f.json")
    except ConfigError:
        return True
    return False


def _draws(choices: list[Any], rng: random.Random) -> list[str]:
    """Values outside and inside the choices: case and whitespace variants, others."""
    first = str(choices[0])
    return [first, str(choices[-1]), str(rng.choice(choices)), first.upper(),
            f"{first} ", f"x{first}", "7", first.replace("_", "-")]


def test_graphfit_holds_sglangs_choice_keys() -> None:
    theirs = {d: sorted(map(str, a.choices)) for d, a in sglang_actions().items()}
    ours = {d: sorted(map(str, s["choices"])) for d, s in fc.choice_actions().items()}
    assert ours == theirs


def test_every_choice_key_refuses_as_sglangs_parser() -> None:
    rng = random.Random(47)
    differ = [(dest, text) for dest, action in sorted(sglang_actions().items())
              for text in _draws(sorted(map(str, action.choices)), rng)
              if sglang_refuses(dest, text) != graphfit_refuses(dest, text)]
    refused = sum(graphfit_refuses(d, "x" + min(map(str, a.choices)))
                  for d, a in sglang_actions().items())
    assert not differ, differ[:5]
    assert refused == len(sglang_actions()) > 60  # the premise: each key has a refusal


# keys graphfit reads (FILE_KEYS), ignores (IGNORED) or did not know, with values outside
END_TO_END = [("moe_runner_backend", "Triton"), ("mamba_ssm_dtype", "bf16"),
              ("cuda_graph_backend_decode", "FULL"), ("disaggregation_mode", "Prefill"),
              ("quantization", "FP8"), ("kv_cache_dtype", "fp8 "),
              ("prefill_attention_backend", "FA3"), ("schedule_policy", "lru"),
              ("grammar_backend", "outlines2"), ("deepep_mode", 3)]


@pytest.mark.parametrize(("dest", "value"), END_TO_END)
def test_outside_choices_refused_as_sglang(dest: str, value: object) -> None:
    theirs = sglang_says(dest, value)
    assert theirs is not None and "invalid choice" in theirs, theirs  # the premise
    ours = graphfit_says(dest, value)
    assert ours.startswith("error:") and len(ours) <= 200, ours
    said = theirs.split("error: ", 1)[-1]
    shown = ours.split("refuses it: ", 1)[-1]
    head = said.split(" (choose from", 1)[0]
    assert shown.startswith(head), (said, ours)
    listed = re.findall(r"'([^']*)'", said.split("(choose from", 1)[1])
    assert sorted(listed) == sorted(map(str, fc.choice_actions()[dest]["choices"]))


# issue 23 s50l: booleans, None, dicts and lists, as SGLang's merger writes them
def test_file_values_refused_and_read_as_sglangs_merger() -> None:
    """graphfit's check against SGLang's own merger + parser on drawn mappings: the same
    refusal (argparse's words; the choice list compared as a set where graphfit's snapshot
    sorts it) and, when both accept, the value SGLang parses is the one the key's reader
    gets (or the key is dropped where SGLang wrote nothing and keeps its default)."""
    differ: list[tuple[object, ...]] = []
    refused = unwrapped = dropped = 0
    for data in file_draws(400, 50):
        theirs, parsed = sglang_file_verdict(data)
        try:
            out = fc.check(data, "f.yaml")
            ours = None
        except ConfigError as exc:
            ours = str(exc).split("refuses it: ", 1)[-1]
        if (theirs is None) != (ours is None):
            differ.append((data, theirs, ours))
            continue
        if theirs is not None and ours is not None:
            refused += 1
            head, _, listed = theirs.partition(" (choose from ")
            if not ours.startswith(head) or (listed and "(choose from " not in ours):
                differ.append((data, theirs, ours))
            continue
        for key, value in data.items():
            dest = sglang_action_dest(key)
            if dest == "lora_target_modules":
                continue
            if key not in out:
                dropped += 1
                ok = value == [] and parsed[dest] == sglang_default(dest)
            else:
                unwrapped += isinstance(value, list)
                ok = str(out[key]) == str(parsed[dest])
            if not ok:
                differ.append((data, key, out.get(key), parsed[dest]))
    assert not differ, differ[:3]
    assert refused > 40 and unwrapped > 3 and dropped > 3, (refused, unwrapped, dropped)


# end to end (s50l): a list, a boolean, the nargs="*" flag; a one-item list both accept
LISTS = [("quantization", ["fp8", "awq"]), ("lora_target_modules", ["q_proj", "Foo"]),
         ("kv_cache_dtype", False), ("quantization", ["fp8"])]


@pytest.mark.parametrize(("dest", "value"), LISTS)
def test_list_and_bool_values_as_sglang(dest: str, value: object) -> None:
    theirs = sglang_says(dest, value)
    ours = graphfit_says(dest, value)
    if theirs is None:  # SGLang's parser takes it: graphfit plans it
        assert ours == "exit 0", ours
        return
    said = theirs.split("error: ", 1)[-1]
    assert ours.split("refuses it: ", 1)[-1].startswith(said.split(" (choose from", 1)[0]), (
        said, ours)
