"""graphfit's config file on SGLang's serving keys (issue 23, s68h; graphfit.inputs.
sglang_server_serving_sources): read, not reported as unknown; `port` alone (vLLM's files
spell it too) not read; a value SGLang's parser refuses gets argparse's words. The verdicts
themselves are compared with SGLang in tests/oracle/test_sglang_server_serving_sources_oracle.py."""

from __future__ import annotations

import re

import pytest

from graphfit.inputs import sglang_server_serving_sources as sss
from graphfit.inputs.config_file import mapping_settings
from graphfit.planner.core.errors import ConfigError


def test_serving_keys_are_read_not_unknown() -> None:
    settings, notes = mapping_settings({"engine": "sglang", "gc_threshold": [1, 2, 3, 4],
                                        "tokenizer_worker_num": 2}, "f.yaml")
    assert not any("unknown keys" in n for n in notes), notes
    found = [s for s in settings if s.field == sss.FIELD]
    assert [slot for slot, _ in found[0].value] == ["ports"]


def test_port_alone_is_not_read() -> None:
    assert sss.file({"port": 8000, "model": "m"}, "f.yaml") == []
    assert sss.file({"port": "8000x"}, "f.yaml") == []  # never parsed as SGLang's


def test_a_value_argparse_refuses_is_one_error() -> None:
    with pytest.raises(ConfigError, match=re.escape(
            "f.yaml: SGLang 0.5.23 refuses it: argument --tokenizer-worker-num: invalid int")):
        sss.file({"tokenizer_worker_num": "x"}, "f.yaml")


def test_read_keys_leave_the_ignored_note() -> None:
    """`port` and `schedule_policy` (sglang.IGNORED) are read by these rules where the file
    is read: not noted as ignored then (issue 23 s69j); `port` alone is still ignored."""
    _, notes = mapping_settings({"engine": "sglang", "schedule_policy": "lpm", "port": 8000,
                                 "host": "h"}, "f.yaml")
    assert [n for n in notes if "ignored" in n] == ["f.yaml: not modelled, ignored: host"]
    _, notes = mapping_settings({"port": 8000, "host": "h"}, "f.yaml")
    assert [n for n in notes if "ignored" in n] == ["f.yaml: not modelled, ignored: port, host"]


def test_a_live_record_lacking_a_field_takes_its_default() -> None:
    """A live record's explicit None is its value (SGLang's comparison raises; the verdicts are
    the oracle's), a field it lacks the default (issue 23 s69v): the mapping and the object
    routes of `_holds` alike."""
    class Lacking:
        kv_canary_sweep_interval = 5

    assert sss.live(Lacking())[sss.FIELD][0][0] == "ports"  # kv_canary's default, "none"
    assert sss.live({"tokenizer_worker_num": 2}) == {}
    said = sss.live({"tokenizer_worker_num": None})[sss.FIELD]
    assert [slot for slot, _ in said] == ["workers"] and "TypeError" in said[0][1]


def test_port_alone_is_read_in_an_sglang_file() -> None:
    """A file known to be SGLang's (`engine: sglang`, or beside a pasted SGLang line) reads
    `port` alone as SGLang's `--port`: argparse's refusal of a null (issue 23 s70g)."""
    with pytest.raises(ConfigError, match=re.escape(
            "f.yaml: SGLang 0.5.23 refuses it: argument --port: invalid int value: 'None'")):
        mapping_settings({"engine": "sglang", "port": None}, "f.yaml")
    _, notes = mapping_settings({"engine": "sglang", "port": 8000, "host": "h"}, "f.yaml")
    assert [n for n in notes if "ignored" in n] == ["f.yaml: not modelled, ignored: host"]
    assert sss.file({"port": None}, "f.yaml") == []  # not known to be SGLang's: not read
