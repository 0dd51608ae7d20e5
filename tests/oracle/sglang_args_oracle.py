"""Oracle: what SGLang 0.5.23's own argument parser reads from a pasted server command line.

Runs the wheel's real code on CPU:

* `python -m sglang.launch_server ARGS` -> `sglang.srt.server_args.prepare_server_args(ARGS)`
  (launch_server.py:80): a plain `argparse.ArgumentParser` (prog "sglang serve") filled by
  `ServerArgs.add_cli_args`, the `--config` YAML merger, `parse_args`,
  `ServerArgs.from_cli_args`.
* `sglang serve ARGS` -> `sglang.cli.main.main` itself (its top-level parser,
  `parse_known_args`), with `sglang.cli.serve.serve` replaced by a recorder that runs the real
  `_extract_model_type_override` and `_normalize_positional_model_path` (cli/serve.py:32-66) and
  then `prepare_server_args`, as `_run_llm` does (cli/serve.py:95-106). Backend auto-detection
  (LLM vs diffusion: `get_is_diffusion_model` may query the hub) is skipped: the LLM backend is
  assumed unless `--model-type` names another, which is reported as not parsed.

The record returned is *raw*: SGLang 0.5.23 leaves defaults that depend on the GPU and the
model (cuda_graph_max_bs, speculative defaults, chunked prefill size, ...) to
`ServerArgs.resolve_once()`, which needs the model's config and the device; see
`resolve_server_args`.

Stubbed, and why: `triton` (GPU kernel compiler; `import triton` at module level in
srt/utils/common.py:91) and `IPython` (notebook display helpers imported at module level by
sglang/utils.py:25 through the frontend language package), only when absent, only for the
duration of each call (see vllm_args_oracle.stubbed).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import logging
import sys
import warnings
from collections.abc import Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from tests.oracle.paths import require
from tests.oracle.vllm_args_oracle import (
    command_words,
    plain,
    stable_message,
    stubbed,
    working_files,
)

SGLANG_STUBS = ("triton", "IPython")



@cache
def _bootstrap() -> Path:
    root = require("sglang")
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    with stubbed(SGLANG_STUBS), _root_logging():
        import sglang.srt.server_args  # noqa: F401
    return root


@contextlib.contextmanager
def sglang_env() -> Iterator[Path]:
    """Everything that touches SGLang runs inside this (source root, scoped stubs)."""
    root = _bootstrap()
    with stubbed(SGLANG_STUBS), _root_logging():
        yield root


def bootstrap() -> Path:
    """Import SGLang's server_args once (about 6-10 s); returns its source root."""
    return _bootstrap()


@contextlib.contextmanager
def _root_logging() -> Iterator[None]:
    """prepare_server_args calls `logging.basicConfig(force=True)` (server_args.py:702), which
    replaces the root logger's handlers; put them back afterwards."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        yield
    finally:
        for handler in root.handlers[:]:
            if handler not in handlers:
                root.removeHandler(handler)
        for handler in handlers:
            if handler not in root.handlers:
                root.addHandler(handler)
        root.setLevel(level)


def split_command(line: str) -> tuple[str, list[str]]:
    """`(entry, argv)`: entry "launch_server" (`python -m sglang.launch_server ARGS`, argv =
    ARGS) or "serve" (`sglang serve ARGS`, argv = ["serve", *ARGS] as sglang's main sees it).
    Same shell handling as vllm_args_oracle.split_command."""
    words = command_words(line)
    prog = Path(words[0]).name
    if prog == "sglang":
        return ("serve" if words[1:2] == ["serve"] else "other"), words[1:]
    if prog.startswith("python") and words[1:2] == ["-m"] and len(words) > 2:
        if words[2] == "sglang.launch_server":
            return "launch_server", words[3:]
        if words[2] == "sglang.cli.main":
            return ("serve" if words[3:4] == ["serve"] else "other"), words[3:]
    raise ValueError(f"not an SGLang server command: {line!r}")


@dataclasses.dataclass
class SglangParse:
    """What SGLang made of one command line (raw `ServerArgs`, before resolution).

    `stage` when refused: "cli" (sglang's main parser or the serve dispatch: missing
    --model-path, a non-LLM --model-type), "parse" (prepare_server_args: argparse, --config).
    `argv` is what reached prepare_server_args (for "serve": after the positional model was
    turned into --model-path). `fields`: see `relevant_fields`. `warnings`: log records of
    level WARNING+ from `sglang.*` loggers, Python warnings and deprecation prints.
    """

    entry: str
    argv: list[str]
    ok: bool
    stage: str | None = None
    error: str | None = None
    server_args: Any = None
    fields: dict[str, Any] = dataclasses.field(default_factory=dict)
    warnings: list[str] = dataclasses.field(default_factory=list)


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


class _ServeCalled(Exception):
    """Raised by the recorder that stands in for sglang.cli.serve.serve."""

    def __init__(self, extra_argv: list[str]) -> None:
        super().__init__("serve")
        self.extra_argv = extra_argv


def _sglang_main_argv(argv: list[str]) -> list[str]:
    """Run sglang.cli.main.main on `sglang ARGV` up to the call of `serve(args, extra_argv)`;
    return `extra_argv`."""
    import sglang.cli.main as cli_main
    import sglang.cli.serve as cli_serve

    def recorder(args: argparse.Namespace, extra_argv: list[str]) -> None:
        raise _ServeCalled(list(extra_argv))

    saved_serve, saved_argv = cli_serve.serve, sys.argv
    cli_serve.serve = recorder  # main() does `from sglang.cli.serve import serve` per call
    sys.argv = ["sglang", *argv]
    try:
        cli_main.main()
    except _ServeCalled as called:
        return called.extra_argv
    finally:
        cli_serve.serve, sys.argv = saved_serve, saved_argv
    raise ValueError(f"sglang {argv[:1]} is not `serve`")


def _serve_dispatch(extra_argv: list[str]) -> list[str]:
    """cli/serve.py's own argv handling before `_run_llm`: --model-type, positional model."""
    from sglang.cli.serve import _extract_model_type_override, _normalize_positional_model_path
    from sglang.cli.utils import get_model_path

    backend, dispatch_argv = _extract_model_type_override(extra_argv)
    dispatch_argv, _positional = _normalize_positional_model_path(dispatch_argv)
    if backend not in ("auto", "llm"):
        raise ValueError(f"--model-type {backend}: not the LLM server (not modelled here)")
    if not any(h in dispatch_argv for h in ("-h", "--help")):
        get_model_path(dispatch_argv)  # the LLM backend requires a model path (serve.py:238)
    return dispatch_argv


def parse_sglang(command: str | Sequence[str], *, files: dict[str, str] | None = None,
                 entry: str | None = None) -> SglangParse:
    """Run SGLang's parser on a pasted line (str) or an argv. A list is `sglang`'s argv when
    it starts with "serve", else launch_server's (override with `entry`). `files` are written
    to a temporary working directory first (for `--config x.yaml`). Never raises for a
    refused line: see `SglangParse.ok`."""
    if isinstance(command, str):
        entry, argv = split_command(command)
    else:
        argv = list(command)
        entry = entry or ("serve" if argv[:1] == ["serve"] else "launch_server")
    result = SglangParse(entry, argv, False)
    if entry == "other":
        result.stage, result.error = "cli", f"not `sglang serve`: {argv[:1]}"
        return result
    capture = _Capture()
    logger = logging.getLogger("sglang")
    out, err = io.StringIO(), io.StringIO()
    with sglang_env(), working_files(files), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        logger.addHandler(capture)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                result.stage = "cli"
                if entry == "serve":
                    result.argv = _serve_dispatch(_sglang_main_argv(argv))
                result.stage = "parse"
                from sglang.srt.server_args import prepare_server_args
                server_args = prepare_server_args(list(result.argv))
            result.server_args = server_args
            result.fields = relevant_fields(server_args)
            result.ok, result.stage = True, None
        except SystemExit as exc:
            result.error = stable_message(_argparse_message(err.getvalue(), exc))
        except Exception as exc:
            result.error = stable_message(f"{type(exc).__name__}: {exc}")
        finally:
            logger.removeHandler(capture)
    printed = [line for line in (out.getvalue() + err.getvalue()).splitlines()
               if "deprecat" in line.lower() or "warning" in line.lower()]
    result.warnings = capture.messages + [str(w.message) for w in caught] + printed
    return result


def _argparse_message(stderr: str, exc: SystemExit) -> str:
    if exc.code in (0, None):
        return "exited (help/version)"
    for line in reversed(stderr.splitlines()):
        _, sep, tail = line.partition("error: ")
        if sep:
            return tail
    return stderr.strip() or f"exit {exc.code}"


# The raw fields graphfit reads (CUDA graphs, batch limits, speculation, parallelism).
FIELDS = (
    "model_path", "served_model_name", "host", "port", "trust_remote_code", "dtype",
    "kv_cache_dtype", "quantization", "context_length", "mem_fraction_static",
    "max_running_requests", "max_total_tokens", "chunked_prefill_size", "max_prefill_tokens",
    "page_size", "tp_size", "pp_size", "dp_size", "attn_dp_size", "enable_two_batch_overlap",
    "attention_backend", "decode_attention_backend", "prefill_attention_backend",
    "cuda_graph_config", "cuda_graph_backend_decode", "cuda_graph_backend_prefill",
    "cuda_graph_max_bs_decode", "cuda_graph_max_bs_prefill", "cuda_graph_bs_decode",
    "cuda_graph_bs_prefill", "disable_decode_cuda_graph", "disable_prefill_cuda_graph",
    "disable_cuda_graph", "disable_cuda_graph_padding", "enable_torch_compile",
    "torch_compile_max_bs", "speculative_algorithm", "speculative_draft_model_path",
    "speculative_num_steps", "speculative_eagle_topk", "speculative_num_draft_tokens",
    "enable_dp_attention",
)


def _jsonable(value: Any) -> Any:
    """msgspec Structs (CudaGraphConfig) as dicts, then `plain`."""
    import msgspec
    if isinstance(value, msgspec.Struct):
        return {f: _jsonable(getattr(value, f)) for f in value.__struct_fields__}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return plain(value)


def relevant_fields(server_args: Any) -> dict[str, Any]:
    """FIELDS of the raw record (None = not given, left to resolution), JSON-friendly."""
    return {name: _jsonable(getattr(server_args, name, None)) for name in FIELDS}
