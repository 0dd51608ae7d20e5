"""A pasted SGLang line's `--config` YAML, its keys spelled any way (issue 23 s51f), against
SGLang 0.5.23's own merger and parser (tests/oracle/sglang_config_keys_oracle.py).

SGLang's `ConfigArgumentMerger` writes each key as spelled (`--{key}`,
utils/server_args_config_parser.py:198-210): `kv_cache_dtype: auto` becomes
`--kv_cache_dtype auto`, which argparse leaves over ("unrecognized arguments",
server_args.py:695). Its store_true and unsupported checks read the key with dashes made
underscores (`:169-173, 195-196`), so `enable_torch_compile: false` is dropped silently and
`disable_cuda_graph: true` is refused naming the flag's action class; a key that is not a
string crashes `key.replace` (`:169`). graphfit's pasted-line reader
(graphfit.inputs.sglang_cli.config_file_args) must accept and refuse the same mappings with
the same words and read the same values."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_config_keys_oracle as o  # noqa: E402

SPELLINGS = [
    {"kv_cache_dtype": "auto"},               # underscores: an unknown flag to argparse
    {"kv-cache-dtype": "auto"},               # SGLang's own spelling
    {"kv_cache-dtype": "auto", "tp": 2},      # mixed; `tp` an alias of --tp-size
    {"kv-cache": "fp8_e4m3"},                 # an argparse prefix of --kv-cache-dtype
    {"enable_torch_compile": True},           # store_true, underscores: unknown flag
    {"enable_torch_compile": False},          # ... dropped before argparse sees it
    {"enable-torch-compile": "true"},         # a text value on a store_true flag
    {"disable_cuda_graph": True},             # unsupported (a deprecated store_true)
    {"lora-paths": ["a=b"]},                  # unsupported, dashes
    {"tp-size": 2, 7: "x"},                   # a key that is not a string
    {None: "x"},
]


@pytest.mark.parametrize("data", SPELLINGS, ids=repr)
def test_key_spellings_as_sglangs_merger(data: dict[object, object]) -> None:
    theirs, their_values = o.sglang_verdict(data)
    ours, our_values = o.graphfit_verdict(data)
    assert ours == theirs, (data, theirs, ours)
    assert o.values_agree(their_values, our_values), (data, their_values, our_values)


def test_underscore_keys_are_what_sglang_refuses() -> None:
    """The engine's side of the rule, so the cases above exercise it: SGLang leaves an
    underscore key over and reads the dashed one."""
    theirs, _ = o.sglang_verdict({"kv_cache_dtype": "auto"})
    assert theirs == "unrecognized arguments: --kv_cache_dtype auto"
    theirs, values = o.sglang_verdict({"kv-cache-dtype": "fp8_e4m3"})
    assert theirs is None and values["kv_cache_dtype"] == "fp8_e4m3"


# issue 23 s55l: SGLang's order and SGLang's JSON words
ORDER_AND_JSON = [
    {"tensor-parallel-size": "x"},            # argument --tp-size/--tensor-parallel-size: ...
    {"mod": "m"},                             # ambiguous: its matches in registration order
    {"quantization": "foo"},                  # invalid choice: SGLang's list order
    {"lora-target-modules": ["q_proj", "x"]},  # nargs="*" choices
    {"sampling-backend": "foo"},              # a set: SGLang's order varies between runs
    {"preferred-sampling-params": "x"},       # type=json.loads: "invalid loads value"
    {"forward-hooks": "[1,"},                 # json_list_type: "Invalid JSON list: ..."
    {"forward-hooks": "[NaN]"},               # orjson refuses NaN too
    {"cuda-graph-config": "{"},               # "--cuda-graph-config must be JSON: ..."
    {"cuda-graph-config": {"verify": {}}},    # unknown phase, expected one of (...)
    {"cuda-graph-config": {"decode": {"bsz": 1}}},  # unknown key, expected one of (...)
    {"cuda-graph-config": {"decode": [1]}},   # must be a JSON object, got list
]


@pytest.mark.parametrize("data", ORDER_AND_JSON, ids=repr)
def test_order_and_json_words_as_sglangs(data: dict[object, object]) -> None:
    """A flag's spellings, an ambiguous prefix's matches and a choice list in SGLang's order
    (the table keeps it where SGLang's is fixed), and a value that is not JSON in SGLang's
    reader's words: the same text, bar a set's choices (`agreement`'s "set order")."""
    theirs, _ = o.sglang_verdict(data)
    ours, _ = o.graphfit_verdict(data)
    assert theirs is not None, data
    assert o.agreement(theirs, ours) in ("same", "set order"), (data, theirs, ours)


def test_drawn_mappings_agree_with_sglangs_merger() -> None:
    """Drawn mappings (dashes, underscores, mixed, dests, prefixes; booleans, lists, dicts,
    None; non-string keys): the same verdict and values, and the same words, in SGLang's
    order, except a choice list SGLang builds from a set (`agreement`'s "set order")."""
    drawn = o.draws(200, 23)
    outcomes = [o.compare(data) for data in drawn]
    differ = [data for data, outcome in zip(drawn, outcomes)
              if outcome not in ("accepted", "same", "set order")]
    assert not differ, differ[:3]
    kinds = set(outcomes)
    assert {"accepted", "same"} <= kinds, kinds  # both sides of the rule were drawn


def test_pasted_line_refusal_is_one_error_line(tmp_path: object) -> None:
    """End to end: `graphfit plan -- python -m sglang.launch_server ... --config FILE` with an
    underscore key and with a non-string key: exit 2, one `error:` line carrying SGLang's
    words, no traceback."""
    from tests.helpers import run_cli

    for data in ({"kv_cache_dtype": "auto"}, {7: "x"}, {"disable_cuda_graph": True}):
        theirs, _ = o.sglang_verdict(data)
        assert theirs is not None
        code, _out, err = run_cli(["plan", "--gpu-memory-gb", "80", "--", "python", "-m",
                                   "sglang.launch_server", "--model-path", "m", "--config",
                                   o._write(data)])
        errors = [ln for ln in err.splitlines() if ln.startswith("error:")]
        assert code == 2 and len(errors) == 1 and "Traceback" not in err, err
        assert theirs[:60] in errors[0], (theirs, errors[0])
