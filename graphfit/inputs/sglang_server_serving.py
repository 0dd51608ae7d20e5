"""SGLang 0.5.23's `check_server_args` on flags graphfit reads only for it (issue 23, s68b):
the serving-side checks (workers, metrics buckets, priority scheduling, metrics, gRPC, GC,
KV canary) and `--min-free-slots-delay` under pipeline parallelism. None of them changes a
graph or a buffer; each refuses a line SGLang never starts, so graphfit refuses it too, with
SGLang's words, at SGLang's place among its other checks.

Read from the pasted line (its `--config` file folded in by the parser), where no hook
changes these flags before the check; unset flags take the flag table's defaults. The
refusals are grouped by the slot of `check_server_args` they sit in
(arg_groups/validation_hook.py), the first of each slot in SGLang's order:

* `pipeline`: `--min-free-slots-delay` given (:165-169), the last assert of
  `check_pipeline_parallel_compat`, raised there when `--pp-size` > 1;
* `workers` (after PD multiplexing, before HiSparse): tokenizer / detokenizer workers >= 1,
  multimodal processor / I/O workers >= 0 (:273-276), the prompt / generation token buckets
  rules (`validate_buckets_rule`, :277-278, 385-437), priority scheduling's policy (fcfs or
  lof, :281-287) and `--retraction-policy priority` without it (:303-306);
* `metrics` (after HiSparse, before two-batch overlap): `--schedule-conservativeness` >= 0
  (:314-316), allowed custom labels without a labels header (:331-337), metrics export
  without its directory (:340-343);
* `ports` (after two-batch overlap): `--grpc-port` equal to `--port` outside gRPC mode
  (:359-362), `--gc-threshold` of more than three numbers (:369-373), a KV canary sweep
  without a canary (:375-378).

Not read: the GPU ids, `--served-model-name`, `--pp-max-micro-batch-size` (:183-219;
`--moe-dense-tp-size`'s values: graphfit.planner.engines.sglang_server_nodes, s69c),
communications quantization and the sampling backend's device (:349-357), watermarking and
the load-publish endpoint (:380-381). graphfit's own config file and a live ServerArgs go
through the same rules (graphfit.inputs.sglang_server_serving_sources, issue 23 s68h).

A live record's wrongly typed field stops a rule with SGLang's own TypeError; the refusal
cites the one statement SGLang raises it at (`_at`: the comparison, `len()` or conversion
there), as SGLang's traceback does, not the slot's range (issue 23 s70g).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from graphfit.inputs.settings import COMMAND_LINE, Setting

HOOK = "arg_groups/validation_hook.py"
SLOTS = ("pipeline", "workers", "metrics", "ports")
# the lines of each slot's checks, cited by a TypeError no statement (`_at`) names
SLOT_LINES = {"pipeline": "165-169", "workers": "273-306, 385-437", "metrics": "314-343",
              "ports": "359-378"}
BUCKET_RULES = ("tse", "default", "custom")
# the flag table's defaults (graphfit/inputs/flags/sglang.json) of the flags read here
DEFAULTS: dict[str, Any] = {
    "tokenizer_worker_num": 1, "detokenizer_worker_num": 1, "mm_processor_worker_num": 0,
    "mm_io_worker_num": 0, "schedule_policy": "fcfs", "retraction_policy": "length",
    "schedule_conservativeness": 1.0, "tokenizer_metrics_custom_labels_header":
    "x-custom-labels", "port": 30000, "kv_canary_sweep_interval": 0, "kv_canary": "none"}


def _get(values: Mapping[str, Any], name: str) -> Any:
    """The value given, the flag table's default where none is (`refusals` says which None
    is a value: a live record's explicit None is one, issue 23 s69v)."""
    return values[name] if name in values else DEFAULTS.get(name)


def _said(text: str, kind: str, lines: str) -> str:
    return f"{text} ({kind}, {HOOK}:{lines})"


class _Typed(Exception):
    """SGLang's TypeError at one statement of its check (`lines`): a wrongly typed field of a
    live record meets a comparison, `len()` or `float()` there (issue 23 s70g)."""

    def __init__(self, error: TypeError, lines: str) -> None:
        super().__init__(str(error))
        self.lines = lines


@contextmanager
def _at(lines: str) -> Iterator[None]:
    """The statement SGLang runs at `lines`: a TypeError raised inside is cited there, not
    at its slot's range (the line a traceback of SGLang's check ends on)."""
    try:
        yield
    except TypeError as exc:
        raise _Typed(exc, lines) from exc


def _number(text: object, kind: type, lines: str) -> bool:
    """SGLang catches ValueError alone (:402-409, 423-426): a live ServerArgs' None or list
    in a rule raises its TypeError at the conversion's line (`lines`), as in SGLang."""
    try:
        with _at(lines):
            kind(text)
    except ValueError:
        return False
    return True


def bucket_problem(name: str, rule: Any) -> str | None:
    """`validate_buckets_rule` (:385-437) on one flag's list, its first assert's words."""
    if not rule:
        return None
    with _at("388"):  # SGLang's first assert takes len(): a live number raises its TypeError
        len(rule)
    head = rule[0]
    if head not in BUCKET_RULES:
        return f"Unsupported {name} rule type: '{head}'"
    if head == "tse":
        if len(rule) != 4:
            return f"{name} TSE rule requires exactly 4 parameters"
        if not (_number(rule[1], float, "403") and _number(rule[2], float, "404")
                and _number(rule[3], int, "405")):
            return f"{name} TSE rule parameters must be: ['tse', <float:middle>, ...]"
        middle, base, count = float(rule[1]), float(rule[2]), int(rule[3])
        for bad, said in ((base <= 1, "TSE base must be larger than 1"),
                          (count <= 0, "TSE count must be positive"),
                          (middle <= 0, "TSE middle must be positive")):
            if bad:
                return f"{name} {said}"
        return None
    if head == "default":
        return None if len(rule) == 1 else f"{name} default rule should only have one parameter"
    if len(rule) < 2:
        return f"{name} custom rule requires at least one bucket value"
    if not all(_number(x, float, "424") for x in rule[1:]):
        return f"{name} custom rule bucket values must be numeric"
    found = [float(x) for x in rule[1:]]
    if len(set(found)) != len(found):
        return f"{name} custom rule bucket values should not contain duplicates"
    if any(x < 0 for x in found):
        return f"{name} custom rule bucket values should be non-negative"
    return None


def workers(values: Mapping[str, Any]) -> str | None:
    """:273-306, in order."""
    # SGLang's own comparisons (`> 0`, `>= 0`), so a wrongly typed field raises its TypeError
    for name, above, said, lines in (
            ("tokenizer_worker_num", True, "Tokenizer worker num must >= 1", "273"),
            ("detokenizer_worker_num", True, "Detokenizer worker num must >= 1", "274"),
            ("mm_processor_worker_num", False, "Multimodal processor worker num must >= 0",
             "275"),
            ("mm_io_worker_num", False, "Multimodal I/O worker num must >= 0", "276")):
        value = _get(values, name)
        with _at(lines):
            failed = not (value > 0 if above else value >= 0)
        if failed:
            return _said(said, "AssertionError", lines)
    for flag, name in (("--prompt-tokens-buckets", "prompt_tokens_buckets"),
                       ("--generation-tokens-buckets", "generation_tokens_buckets")):
        bad = bucket_problem(flag, values.get(name))
        if bad:
            return _said(bad, "AssertionError", "277-278, 385-437")
    priority = values.get("enable_priority_scheduling") is True
    policy = _get(values, "schedule_policy")
    if priority and policy not in ("fcfs", "lof"):
        return _said(f"To use priority scheduling, schedule_policy must be 'fcfs' or 'lof'. "
                     f"'{policy}' is not supported.", "AssertionError", "281-287")
    if _get(values, "retraction_policy") == "priority" and not priority:
        return _said("--retraction-policy priority requires --enable-priority-scheduling",
                     "ValueError", "303-306")
    return None


def metrics(values: Mapping[str, Any]) -> str | None:
    """:314-343, in order."""
    with _at("314"):
        failed = not _get(values, "schedule_conservativeness") >= 0
    if failed:
        return _said("schedule_conservativeness must be non-negative", "AssertionError",
                     "314-316")
    if (not _get(values, "tokenizer_metrics_custom_labels_header")
            and values.get("tokenizer_metrics_allowed_custom_labels")):
        return _said("Please set --tokenizer-metrics-custom-labels-header when setting "
                     "--tokenizer-metrics-allowed-custom-labels.", "ValueError", "331-337")
    if (values.get("export_metrics_to_file") is True
            and values.get("export_metrics_to_file_dir") is None):
        return _said("--export-metrics-to-file-dir is required when --export-metrics-to-file "
                     "is enabled", "ValueError", "340-343")
    return None


def ports(values: Mapping[str, Any]) -> str | None:
    """:359-378, in order."""
    grpc = values.get("smg_grpc_mode") is True or values.get("grpc_mode") is True
    port, grpc_port = _get(values, "port"), values.get("grpc_port")
    if not grpc and grpc_port == port:
        return _said(f"--grpc-port ({grpc_port}) must differ from --port ({port})",
                     "ValueError", "359-362")
    gc: Any = values.get("gc_threshold")
    with _at("369"):  # len() of a live int: SGLang's TypeError
        failed = bool(gc) and not 1 <= len(gc) <= 3
    if failed:
        return _said("When setting gc_threshold, it must contain 1 to 3 integers.",
                     "ValueError", "369-373")
    with _at("374"):
        failed = _get(values, "kv_canary_sweep_interval") > 0
    if failed and _get(values, "kv_canary") == "none":
        return _said("--kv-canary-sweep-interval requires --kv-canary in {log, raise}",
                     "ValueError", "375-378")
    return None


def pipeline(values: Mapping[str, Any]) -> str | None:
    """:165-169 (raised by the planner only with `--pp-size` > 1, after the PP checks)."""
    if values.get("min_free_slots_delay") is not None:
        return _said("--min-free-slots-delay is not supported with pipeline parallelism",
                     "AssertionError", "165-169")
    return None


def refusals(values: Mapping[str, Any], *,
             as_given: bool = False) -> tuple[tuple[str, str], ...]:
    """(slot, SGLang's first refusal in it) for each slot with one. The rules make SGLang's
    own comparisons in its order, so a live ServerArgs' wrongly typed field (a string for a
    number: a Python caller's, never argparse's) stops them where it stops SGLang's check,
    with the same TypeError (issue 23 s69j).

    A None means "not given" on the pasted line and in a file (argparse leaves an unset
    flag None; its types never make one), so it takes the default. `as_given`: `values` are
    a live record's fields as it holds them, where a None is the value SGLang's check meets
    (`ServerArgs(tokenizer_worker_num=None)`: `None > 0`, a TypeError at :273; `port=None`:
    `--grpc-port (None) must differ from --port (None)`, :359-362; issue 23 s69v); only a
    field the record lacks takes the default."""
    if not as_given:
        values = {k: v for k, v in values.items() if v is not None}
    out = []
    for slot, rule in zip(SLOTS, (pipeline, workers, metrics, ports), strict=True):
        try:
            said = rule(values)
        except _Typed as exc:  # at its statement (issue 23 s70g)
            said = _said(" ".join(str(exc).split())[:120], "TypeError", exc.lines)
        except TypeError as exc:  # a statement `_at` does not name: the slot's lines
            said = _said(" ".join(str(exc).split())[:120], "TypeError", SLOT_LINES[slot])
        if said is not None:
            out.append((slot, said))
    return tuple(out)


def settings(values: Mapping[str, Any]) -> list[Setting]:
    """The `server_flag_refusals` option of a pasted line (none where no slot refuses)."""
    found = refusals(values)
    if not found:
        return []
    return [Setting("server_flag_refusals", found, "the pasted line", COMMAND_LINE)]


__all__ = ["SLOTS", "bucket_problem", "metrics", "pipeline", "ports", "refusals", "settings",
           "workers"]
