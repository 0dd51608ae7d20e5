"""SGLang 0.5.23's `check_server_args` on its serving flags given through graphfit's own config
file and a live ServerArgs (issue 23, s68h; not a test; graphfit.inputs.
sglang_server_serving_sources). The same faults as the pasted-line oracle
(tests.oracle.sglang_server_serving_oracle, s68b), written as a mapping of typed values.

* File: SGLang reads the mapping as a `--config` YAML beside `sglang serve --model-path T
  --tp-size 2` (its own merger and argparse, utils/server_args_config_parser.py:164-181),
  then resolves and runs its whole `check_server_args`; graphfit plans `plan --config` on an
  `engine: sglang` JSON file of the same mapping beside the same pasted line
  (tests.oracle.sglang_lora_runner_oracle.graphfit_file).
* Live: SGLang builds `ServerArgs(model_path=T, tp_size=2, **mapping)` (a Python caller's,
  entrypoints/engine.py:278-297), resolves it on the fake device and runs its own
  `check_server_args` (:1153-1165); graphfit plans `from_sglang` on that resolved record
  (unchecked: resolution alone never runs the check, nor writes these fields).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import random
import traceback
from pathlib import Path
from typing import Any

from tests.oracle import sglang_lora_runner_oracle as lro
from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_server_args_oracle as sao
from tests.oracle import sglang_stubs

# one serving fault, or a setting SGLang accepts, as a config file / a Python caller writes it
MAPPINGS: tuple[dict[str, Any], ...] = (
    {"tokenizer_worker_num": 0}, {"detokenizer_worker_num": 0},
    {"mm_processor_worker_num": -1}, {"mm_io_worker_num": -1}, {"tokenizer_worker_num": 2},
    {"prompt_tokens_buckets": ["tse", 2, 1.5, 3]}, {"prompt_tokens_buckets": ["tse", 2, 1, 3]},
    {"generation_tokens_buckets": ["custom", 1, 1]},
    {"generation_tokens_buckets": ["custom", 1, "x"]},
    {"generation_tokens_buckets": ["default", 2]}, {"prompt_tokens_buckets": ["linear"]},
    {"prompt_tokens_buckets": ["default"]},
    {"enable_priority_scheduling": True, "schedule_policy": "lpm"},
    {"enable_priority_scheduling": True, "schedule_policy": "lof"},
    {"enable_priority_scheduling": True}, {"retraction_policy": "priority"},
    {"schedule_conservativeness": -0.5}, {"schedule_conservativeness": 0.3},
    {"tokenizer_metrics_allowed_custom_labels": ["a"],
     "tokenizer_metrics_custom_labels_header": ""},
    {"tokenizer_metrics_allowed_custom_labels": ["a"]},
    {"export_metrics_to_file": True},
    {"export_metrics_to_file": True, "export_metrics_to_file_dir": "/tmp"},
    {"grpc_port": 30000}, {"grpc_port": 30000, "grpc_mode": True},
    {"grpc_port": 40000, "port": 40000}, {"grpc_port": 30001},
    {"gc_threshold": [1, 2, 3, 4]}, {"gc_threshold": [700]},
    {"kv_canary_sweep_interval": 5}, {"kv_canary_sweep_interval": 5, "kv_canary": "log"},
    {"min_free_slots_delay": 3},  # only under pipeline parallelism
    # issue 23 s69j: PP given by the file / the record, and fields typed as a Python caller
    # may write them (argparse types a file's; SGLang's check raises TypeError on a record's)
    {"pp_size": 2, "min_free_slots_delay": 3}, {"pp_size": 2},
    {"tokenizer_worker_num": "2"}, {"mm_processor_worker_num": "1"},
    {"schedule_conservativeness": "0.3"}, {"gc_threshold": 5},
    {"kv_canary_sweep_interval": "5"}, {"prompt_tokens_buckets": 5},
    {"generation_tokens_buckets": ["tse", 2, 1.5, [3]]},
)


def draw(rng: random.Random) -> dict[str, Any]:
    """One or two MAPPINGS merged (the later one's keys win)."""
    out: dict[str, Any] = {}
    for _ in range(rng.choice((1, 1, 2))):
        out.update(rng.choice(MAPPINGS))
    return out


def sglang_yaml(target: Path, data: dict[str, Any]) -> tuple[str | None, bool]:
    """SGLang on `sglang serve --model-path target --tp-size 2 --config <data as YAML>`."""
    # JSON is YAML; the merger writes `--{key}` as spelled (:169-181): dashes, as a file has
    body = json.dumps({k.replace("_", "-"): v for k, v in data.items()})
    file = target.parent / f"serving-{hashlib.sha256(body.encode()).hexdigest()[:16]}.yaml"
    file.write_text(body)
    return lro.sglang(target, ("--tp-size", "2", "--config", str(file)))


def compare_file(target: Path, data: dict[str, Any]) -> tuple[str, str]:
    """(verdict, account) of graphfit's config file against SGLang's `--config` YAML."""
    theirs, at_check = sglang_yaml(target, data)
    code, said = lro.graphfit_file(target, data)
    return (sao.verdict(theirs, at_check, code, said),
            f"file {json.dumps(data)[:100]}: SGLang {theirs and theirs[:90]}; graphfit {code} "
            f"{said}")


def sglang_record(target: Path, data: dict[str, Any]) -> tuple[Any, str | None, bool]:
    """(the resolved record or None, SGLang's refusal or None, whether its check raised)."""
    o = so.oracle()
    with sglang_stubs.fake_cuda(80 * so.MIB_PER_GB), contextlib.redirect_stderr(io.StringIO()):
        try:
            record = o.server_args.ServerArgs(model_path=str(target), tp_size=2, **data)
            record.resolve_once()
        except Exception as exc:  # SGLang's own refusal before the checks
            return None, f"{type(exc).__name__}: {exc}", False
    said = so.check_refusal(record)
    return record, said, said is not None


def graphfit_live(record: Any) -> tuple[int, str]:
    """(0, "") where graphfit plans the live record, else (2, its `error:` line)."""
    import graphfit
    from graphfit.integrations.sglang import from_sglang

    try:
        # the live check needs the scheduler's size, which an unstarted record leaves open
        graphfit.plan(from_sglang(record, environ={}, gpu_memory_gb=80, max_num_seqs=64))
    except graphfit.GraphfitError as exc:
        return 2, f"error: {exc}"
    except Exception as exc:  # a crash is counted, not raised (s69j)
        return 1, f"crash: {type(exc).__name__}: {exc}"
    return 0, ""


def compare_live(target: Path, data: dict[str, Any]) -> tuple[str, str]:
    """(verdict, account) of graphfit's live check against SGLang's own on one record."""
    record, theirs, at_check = sglang_record(target, data)
    code, said = (2, "error: no record") if record is None else graphfit_live(record)
    return (sao.verdict(theirs, at_check, code, said),
            f"live {json.dumps(data)[:100]}: SGLang {theirs and theirs[:90]}; graphfit {code} "
            f"{said}")


# issue 23 s69v: a Python caller's explicit None in a field whose default is not None (SGLang
# compares it: `None > 0` raises its TypeError; `port=None` meets `--grpc-port (None)`); the
# live route alone (a file's null is typed by argparse, and an only-`port` file is not read)
NONE_FIELDS = ("tokenizer_worker_num", "detokenizer_worker_num", "mm_processor_worker_num",
               "mm_io_worker_num", "schedule_policy", "retraction_policy",
               "schedule_conservativeness", "tokenizer_metrics_custom_labels_header", "port",
               "kv_canary_sweep_interval", "kv_canary")


def draw_none(rng: random.Random) -> dict[str, Any]:
    """A MAPPINGS draw with one NONE_FIELDS field set to an explicit None."""
    return {**draw(rng), rng.choice(NONE_FIELDS): None}


# issue 23 s70g: an SGLang file's `port` alone (its `--port`: the merger writes `str(value)`,
# utils/server_args_config_parser.py:180-181, 214-215, argparse types it), a value argparse
# refuses among them; now and then beside a key graphfit ignores (`host`)
PORT_VALUES: tuple[object, ...] = (None, "x", 8000, "8000", 30000, 0, 1.5, "", 65536, True,
                                   [8000], [8000, 8001])


def draw_port(rng: random.Random) -> dict[str, Any]:
    """A config file whose only serving key is `port`, one of PORT_VALUES."""
    data: dict[str, Any] = {"port": rng.choice(PORT_VALUES)}
    if rng.random() < 0.3:
        data["host"] = "127.0.0.1"
    return data


def type_error_line(target: Path, data: dict[str, Any]) -> int | None:
    """The line of arg_groups/validation_hook.py SGLang's own TypeError surfaces at (the
    deepest frame of that file in its traceback) on `ServerArgs(model_path=target, tp_size=2,
    **data)`, resolved, then its whole `check_server_args`; None where it raises no TypeError
    (issue 23 s70g: graphfit cites that line)."""
    record, _, _ = sglang_record(target, data)
    if record is None:
        return None
    with sglang_stubs.imports():
        from sglang.srt.arg_groups.validation_hook import check_server_args
    try:
        check_server_args(record)
    except TypeError as exc:
        frames = traceback.extract_tb(exc.__traceback__)
        return next((f.lineno for f in reversed(frames)
                     if f.filename.endswith("arg_groups/validation_hook.py")), None)
    except (ValueError, AssertionError):
        return None
    return None


# issue 23 s70g: wrongly typed values a Python caller may give, by field (SGLang's TypeError)
TYPED_VALUES: dict[str, tuple[object, ...]] = {
    **{name: (None, "1", [1]) for name in ("tokenizer_worker_num", "detokenizer_worker_num",
                                           "mm_processor_worker_num", "mm_io_worker_num",
                                           "schedule_conservativeness",
                                           "kv_canary_sweep_interval")},
    **{name: (5, ["tse", [1], 2, 3], ["tse", 1, None, 3], ["tse", 2, 1.5, [3]],
              ["custom", 1, [2]], ["custom", None])
       for name in ("prompt_tokens_buckets", "generation_tokens_buckets")},
    "gc_threshold": (5, 1.5),
}


def draw_typed(rng: random.Random) -> dict[str, Any]:
    """A MAPPINGS draw with one field given a wrongly typed value (TYPED_VALUES)."""
    name = rng.choice(sorted(TYPED_VALUES))
    return {**draw(rng), name: rng.choice(TYPED_VALUES[name])}


def compare_type_line(target: Path, data: dict[str, Any]) -> tuple[str, str]:
    """compare_live, and where SGLang's check raised a TypeError, "other" unless graphfit
    cites the line SGLang's traceback ends on (`type_error_line`)."""
    said, line = compare_live(target, data)
    where = type_error_line(target, data)
    if said == "agree" and where is not None and f"validation_hook.py:{where})" not in line:
        said = "other"
    return said, f"{line} [SGLang's TypeError at :{where}]"
