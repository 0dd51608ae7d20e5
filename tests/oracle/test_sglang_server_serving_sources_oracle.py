"""graphfit == SGLang 0.5.23 on `check_server_args`' serving flags given through graphfit's own
config file and a live ServerArgs (issue 23, s68h; graphfit.inputs.
sglang_server_serving_sources): the file against SGLang's own `--config` YAML (its merger and
argparse), the live check against SGLang's own ServerArgs, resolved, then its whole
`check_server_args` (tests.oracle.sglang_server_serving_sources_oracle)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from tests.oracle.paths import require

require("sglang")

from graphfit.inputs import sglang_server_serving as ss  # noqa: E402
from tests.oracle import sglang_server_args_oracle as sao  # noqa: E402
from tests.oracle import sglang_server_serving_sources_oracle as sso  # noqa: E402

# (mapping, the lines of SGLang's check refusing it, None where SGLang starts it)
FIXED: list[tuple[dict[str, Any], str | None]] = [
    ({"tokenizer_worker_num": 0}, "273"),
    ({"prompt_tokens_buckets": ["tse", 2, 1, 3]}, "277-278, 385-437"),
    ({"retraction_policy": "priority"}, "303-306"),
    ({"schedule_conservativeness": -1}, "314-316"),
    ({"export_metrics_to_file": True}, "340-343"),
    ({"grpc_port": 30000}, "359-362"),
    ({"grpc_port": 30000, "grpc_mode": True}, None),
    ({"gc_threshold": [1, 2, 3, 4]}, "369-373"),
    ({"tokenizer_worker_num": 2, "kv_canary_sweep_interval": 5, "kv_canary": "log"}, None),
    # PP from the file / the record (issue 23 s69j): the pipeline slot's last assert
    ({"pp_size": 2, "min_free_slots_delay": 3}, "165-169"),
    ({"pp_size": 2, "tokenizer_worker_num": 2}, None),
]
FILE_ONLY: list[tuple[dict[str, Any], str | None]] = [
    # a string the merger writes as is: argparse types it, the rule then refuses it
    ({"tokenizer_worker_num": "0"}, "273"),
    ({"gc_threshold": 5, "schedule_conservativeness": "0.3"}, None),  # typed by argparse
]
LIVE_ONLY: list[tuple[dict[str, Any], str | None]] = [
    # a Python caller's wrongly typed field: SGLang's check raises TypeError there (s69j)
    # cited at its statement (issue 23 s70g; test_type_error_cites_sglangs_statement)
    ({"tokenizer_worker_num": "2"}, "273"),
    ({"generation_tokens_buckets": ["tse", 2, 1.5, [3]]}, "405"),
    ({"prompt_tokens_buckets": 5}, "388"),
    ({"schedule_conservativeness": "0.3"}, "314"),
    ({"gc_threshold": 5}, "369"),
    ({"pp_size": 2, "min_free_slots_delay": 3, "gc_threshold": 5}, "165-169"),  # PP's first
    # a Python caller's explicit None, which SGLang compares (issue 23 s69v)
    ({"tokenizer_worker_num": None}, "273"),
    ({"schedule_conservativeness": None}, "314"),
    ({"kv_canary_sweep_interval": None}, "374"),
    ({"port": None}, "359-362"),
    ({"kv_canary": None, "kv_canary_sweep_interval": 5}, None),
    ({"tokenizer_metrics_custom_labels_header": None,
      "tokenizer_metrics_allowed_custom_labels": ["a"]}, "331-337"),
    ({"retraction_policy": None, "schedule_policy": None}, None),
]
ONLY = {"file": FILE_ONLY, "live": LIVE_ONLY}
COMPARES = {"file": sso.compare_file, "live": sso.compare_live}


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return sao.targets(tmp_path_factory.mktemp("serving-sources"))["dense"]


@pytest.mark.parametrize("route", ["file", "live"])
def test_fixed_mappings_agree(target: Path, route: str) -> None:
    wrong = []
    for data, where in FIXED + ONLY[route]:
        said, line = COMPARES[route](target, data)
        if (said != "agree" or ("SGLang None" in line) != (where is None)
                or (where is not None and f"validation_hook.py:{where})" not in line)):
            wrong.append(f"{said}: {line}")
    assert not wrong, "\n".join(wrong)


def test_drawn_mappings_agree(target: Path) -> None:
    rng = random.Random(68)
    wrong, refused = [], 0
    for _ in range(4):
        data = sso.draw(rng)
        for route in ("file", "live"):
            said, line = COMPARES[route](target, data)
            refused += "SGLang None" not in line
            if said != "agree":
                wrong.append(f"{said}: {line}")
    assert not wrong, "\n".join(wrong)
    assert 1 <= refused <= 7  # the draw reaches both answers


def test_drawn_live_none_agree(target: Path) -> None:
    """A drawn mapping with one field an explicit None, on the live route (issue 23 s69v)."""
    rng = random.Random(69)
    wrong, refused = [], 0
    for _ in range(5):
        said, line = sso.compare_live(target, sso.draw_none(rng))
        refused += "SGLang None" not in line
        if said != "agree":
            wrong.append(f"{said}: {line}")
    assert not wrong, "\n".join(wrong)
    assert refused >= 1  # mostly refusals: FIXED's None lines SGLang starts hold the rest


def test_planted_none_as_default_is_caught(target: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant: the live record's explicit None read as the default again (graphfit plans a
    record SGLang's check refuses with a TypeError)."""
    real = ss.refusals
    monkeypatch.setattr(ss, "refusals", lambda values, as_given=False: real(values))
    said, _ = sso.compare_live(target, {"tokenizer_worker_num": None})
    assert said == "differ"


@pytest.mark.parametrize(("route", "rule", "line"), [
    ("file", "workers", 0), ("live", "workers", 2), ("file", "metrics", 3),
    ("live", "ports", 5), ("file", "ports", 7)])
def test_planted_rule_off_is_caught(target: Path, monkeypatch: pytest.MonkeyPatch,
                                    route: str, rule: str, line: int) -> None:
    """Plants: a slot's rule off on either route (graphfit plans what SGLang refuses)."""
    monkeypatch.setattr(ss, rule, lambda values: None)
    said, _ = COMPARES[route](target, FIXED[line][0])
    assert said == "differ"


# issue 23 s70g: an SGLang file's `port` alone, its `--port` (argparse types the value the merger
# writes; SGLang refuses the line where its parser does): (mapping, SGLang's words or None)
PORT_FILES: list[tuple[dict[str, Any], str | None]] = [
    ({"port": None}, "argument --port: invalid int value: 'None'"),
    ({"port": "x", "host": "127.0.0.1"}, "argument --port: invalid int value: 'x'"),
    ({"port": [8000, 8001]}, "unrecognized arguments: 8001"),
    ({"port": 8000}, None), ({"port": "8000", "host": "127.0.0.1"}, None),
]


def test_file_port_alone_agrees(target: Path) -> None:
    wrong = []
    for data, words in PORT_FILES:
        said, line = sso.compare_file(target, data)
        if said != "agree" or (words is None) != ("SGLang None" in line) or (
                words is not None and line.count(words) != 2):  # SGLang's and graphfit's
            wrong.append(f"{said}: {line}")
    assert not wrong, "\n".join(wrong)


def test_drawn_file_ports_agree(target: Path) -> None:
    rng = random.Random(70)
    wrong, refused = [], 0
    for _ in range(5):
        said, line = sso.compare_file(target, sso.draw_port(rng))
        refused += "SGLang None" not in line
        if said != "agree":
            wrong.append(f"{said}: {line}")
    assert not wrong, "\n".join(wrong)
    assert 1 <= refused <= 4  # the draw reaches both answers


# issue 23 s70g: wrongly typed live fields SGLang's check raises a TypeError on, one statement
# each (the LIVE_ONLY ones and the rest of the buckets' conversions)
TYPED: list[dict[str, Any]] = [
    *(data for data, where in LIVE_ONLY if where is not None and "-" not in where),
    {"detokenizer_worker_num": "1"}, {"mm_io_worker_num": None},
    {"prompt_tokens_buckets": ["tse", [1], 2, 3]}, {"prompt_tokens_buckets": ["tse", 1, None, 3]},
    {"generation_tokens_buckets": ["custom", 1, [2]]},
]


def test_type_error_cites_sglangs_statement(target: Path) -> None:
    """graphfit's TypeError refusal names the line SGLang's own traceback ends on in
    validation_hook.py, not its slot's range."""
    wrong = []
    for data in TYPED:
        where = sso.type_error_line(target, data)
        said, line = sso.compare_live(target, data)
        if where is None or said != "agree" or f"validation_hook.py:{where})" not in line:
            wrong.append(f"{where} {said}: {line}")
    assert not wrong, "\n".join(wrong)
