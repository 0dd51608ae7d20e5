"""`--dcp-size` / `--dcp-comm-backend` in a config file (issue 23 s43l): graphfit's own
`--config` file and an SGLang `--config` YAML on a pasted line give the plan, or the refusal,
the equivalent pasted line gives (graphfit.inputs.sglang_unified_switches.file; the pasted
line's path is s42d's, checked against SGLang's own resolution and runner in
tests/oracle/test_sglang_dcp_oracle.py). SGLang's `--dcp-size` >= 1 check
(parallel_hook.py:243-248) is one `error:` line in a file as on a line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import run_cli
from tests.oracle.sglang_post_capture_oracle import model_dir

LAUNCH = ("python", "-m", "sglang.launch_server")
BASE = (("tp_size", "4"), ("max_running_requests", "24"))


def _answer(argv: list[str]) -> tuple[int, dict[str, Any] | str]:
    code, out, err = run_cli(["plan", "--gpu-memory-gb", "H100", "--json", *argv])
    errors = [ln for ln in err.splitlines() if ln.startswith("error:")]
    assert len(errors) <= 1 and all(len(e) <= 200 for e in errors), err
    if code == 0:
        return code, json.loads(out)
    assert code == 2 and errors, err
    return code, errors[0]


def _flags(pairs: tuple[tuple[str, str], ...]) -> list[str]:
    return [w for key, value in pairs for w in (f"--{key.replace('_', '-')}", value)]


def _three(tmp_path: Path, pairs: tuple[tuple[str, str], ...], *own: str
           ) -> list[tuple[int, dict[str, Any] | str]]:
    """The pasted line, an SGLang `--config` YAML on a pasted line, graphfit's `--config`."""
    model = model_dir("mla")
    sglang_yaml = tmp_path / "sglang.yaml"
    sglang_yaml.write_text("".join(f"{k.replace('_', '-')}: {v}\n" for k, v in pairs))
    ours = tmp_path / "graphfit.yaml"
    ours.write_text(f"model_path: {model}\n" + "".join(f"{k}: {v}\n" for k, v in pairs))
    return [_answer([*own, "--", *LAUNCH, "--model-path", model, *_flags(pairs)]),
            _answer([*own, "--", *LAUNCH, "--model-path", model, "--config", str(sglang_yaml)]),
            _answer([*own, "--config", str(ours)])]


@pytest.mark.parametrize("dcp", [
    (("dcp_size", "2"),),
    (("dcp_size", "2"), ("dcp_comm_backend", "ag_rs")),
    (("dcp_size", "4"), ("dcp_comm_backend", "a2a")),
    # fi_a2a off SM100: SGLang's reason (comm.py:435-448)
    (("dcp_size", "2"), ("dcp_comm_backend", "fi_a2a")),
    # below 1: SGLang's check (parallel_hook.py:243-248)
    (("dcp_size", "0"),),
    # size 1 ignores the backend, on a line as in a file
    (("dcp_size", "1"), ("dcp_comm_backend", "ag_rs"))])
def test_a_file_plans_or_refuses_as_the_line(tmp_path: Path,
                                             dcp: tuple[tuple[str, str], ...]) -> None:
    line, sglang_config, ours = _three(tmp_path, (*BASE, *dcp))
    assert sglang_config == line
    if isinstance(line[1], str):  # the same reason (the file's origin aside)
        assert ours[0] == 2 and isinstance(ours[1], str), ours
        assert line[1][-60:] == ours[1][-60:], (line, ours)
    else:
        assert ours == line


def test_dcp_is_planned_and_not_a_no_op(tmp_path: Path) -> None:
    """Non-vacuity: the DCP file's plan differs from the plain file's (the prefill graphs
    turned off, cuda_graph_hook.py:212-216), so the comparisons above see DCP."""
    with_dcp = _three(tmp_path, (*BASE, ("dcp_size", "2")))[2]
    without = _three(tmp_path, BASE)[2]
    assert with_dcp[0] == without[0] == 0 and with_dcp != without


def test_unified_memory_dcp_backend_check(tmp_path: Path) -> None:
    """Under enable_unified_memory the file's DCP reaches SGLang's unified DCP checks
    (kv_cache_hook.py:748-761) as the line's does: fa3 refused with the same reason."""
    pairs = (*BASE, ("dcp_size", "2"))
    model = model_dir("mla")
    line = _answer(["--", *LAUNCH, "--model-path", model, *_flags(pairs),
                    "--enable-unified-memory", "--attention-backend", "fa3"])
    ours = tmp_path / "graphfit.yaml"
    ours.write_text(f"model_path: {model}\nenable_unified_memory: true\n"
                    + "".join(f"{k}: {v}\n" for k, v in pairs))
    file = _answer(["--decode-attention-backend", "fa3", "--config", str(ours)])
    assert isinstance(line[1], str) and "kv_cache_hook.py:748-761" in line[1], line
    assert isinstance(file[1], str) and "kv_cache_hook.py:748-761" in file[1], file


@pytest.mark.parametrize(("text", "said"), [
    ("dcp_size: two\n", "dcp_size"), ("dcp_size: -1\n", "parallel_hook.py:243-248"),
    ("dcp_size: 2\ndcp_comm_backend: 3\n", "dcp_comm_backend")])
def test_a_bad_value_is_one_error(tmp_path: Path, text: str, said: str) -> None:
    ours = tmp_path / "bad.yaml"
    ours.write_text(f"model_path: {model_dir('mla')}\ntp_size: 4\n{text}")
    code, answer = _answer(["--config", str(ours)])
    assert code == 2 and isinstance(answer, str) and said in answer, answer
