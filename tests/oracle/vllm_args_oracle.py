"""Oracle: what vLLM 0.33's own argument parser reads from a pasted `vllm serve ...` line.

Runs the wheel's real code on CPU:

* `vllm.entrypoints.cli.serve.ServeSubcommand.subparser_init` (the `serve` subparser built by
  `entrypoints/common/cli_args.make_arg_parser`: positional `model_tag`, `--config`,
  `FrontendArgs` and `AsyncEngineArgs.add_cli_args`) under a top-level
  `FlexibleArgumentParser`, exactly as `vllm.entrypoints.cli.main.main` builds it;
* `validate_parsed_serve_args` (what `vllm serve` runs right after parsing);
* `ServeSubcommand.cmd`'s first step (`args.model = args.model_tag`) and
  `AsyncEngineArgs.from_cli_args`;
* optionally `EngineArgs.create_engine_config` for a real `VllmConfig` (see
  `build_vllm_config`).

`python -m vllm.entrypoints.openai.api_server ...` lines use the same `make_arg_parser` on a
bare `FlexibleArgumentParser` (launchers/api_server/entry.py:218-224).

Usage::

    from tests.oracle import vllm_args_oracle as va
    r = va.parse_vllm("vllm serve meta-llama/Llama-3.1-8B -tp 2 -O3")
    r.ok, r.error, r.fields["tensor_parallel_size"], r.engine_args

What is stubbed, and why (nothing else is):

* `xgrammar`, `llguidance`: structured-output grammar libraries, compiled, imported at module
  level by `vllm/parser/abstract_parser.py` (reached from `ParallelConfig._verify_args` while the
  parser computes defaults). `pip install xgrammar` would pull triton (hundreds of MB); grammar
  code never runs here. Stubbed only when not installed.
* `vllm._C_stable_libtorch`, `vllm._moe_C_stable_libtorch`, `vllm._qutlass_C`: the CUDA kernel
  extensions (`.so` files we do not extract). Imported at module level by `platforms/cuda.py`.
* Platform detection: vLLM picks its platform via NVML (`platforms/__init__.py:57`); on a CPU
  box it finds none and the parser's `DeviceConfig()` default raises "Failed to infer device
  type". We install `OracleCudaPlatform`, vLLM's own `CudaPlatformBase` with the device queries
  (capability, name, memory, count) answered from constants, as `current_platform` before any
  vLLM module binds it. Users paste GPU lines, so a CUDA platform is the honest default.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import dataclasses
import importlib.abc
import importlib.machinery
import importlib.util
import io
import logging
import os
import re
import shlex
import sys
import types
from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from tests.oracle.paths import require

# --------------------------------------------------------------------------------------------
# Placeholder modules for the few imports that cannot load on a CPU box (also used by
# sglang_args_oracle). Only a module *absent* from the environment is replaced (checked with
# importlib.util.find_spec), so where the real package is installed the real one runs. A stub
# module answers every attribute with `Placeholder`, a class that accepts any call, attribute
# or subclassing: enough for module-level `from x import A, B`, decorators and annotations,
# never enough to run the stubbed code (which the argument oracles never do).
#
# Stubs are scoped (`with stubbed(names):`) and removed from sys.modules afterwards: vLLM
# decides HAS_TRITON with find_spec("triton") (triton_utils/importing.py:14), so a triton stub
# left behind by the SGLang oracle would change what vLLM computes in the same process.


class _PlaceholderMeta(type):
    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return Placeholder

    def __getitem__(cls, item: Any) -> Any:
        return Placeholder


class Placeholder(metaclass=_PlaceholderMeta):
    """Stands for any class, function, decorator or constant of a stubbed module."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __call__(self, *args: Any, **kwargs: Any) -> Placeholder:
        return Placeholder()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return Placeholder


def _module_getattr(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    return Placeholder


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self) -> None:
        self.active: dict[str, int] = {}  # prefix -> nesting count
        self.created: set[str] = set()

    def _serves(self, fullname: str) -> bool:
        return any(fullname == p or fullname.startswith(p + ".") for p in self.active)

    def find_spec(self, fullname: str, path: Any = None, target: Any = None
                  ) -> importlib.machinery.ModuleSpec | None:
        if self._serves(fullname):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = types.ModuleType(spec.name, "oracle stub (module absent on this machine)")
        module.__path__ = []  # a package, so `import x.y.z` resolves through the finder too
        module.__getattr__ = _module_getattr  # type: ignore[method-assign]
        self.created.add(spec.name)
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        pass


_FINDER = _StubFinder()


def _absent(name: str) -> bool:
    # find_spec of "a.b" imports package "a" first; callers list parents before children.
    try:
        return importlib.util.find_spec(name) is None
    except (ImportError, ValueError):
        return True


@contextlib.contextmanager
def stubbed(names: Iterable[str]) -> Iterator[list[str]]:
    """Serve placeholder modules for those of `names` that cannot be found, for the duration;
    yields the names actually stubbed. Nested uses of the same name are counted."""
    mine = [n for n in names if n in _FINDER.active or _absent(n)]
    for n in mine:
        _FINDER.active[n] = _FINDER.active.get(n, 0) + 1
    if mine and _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
    try:
        yield mine
    finally:
        for n in mine:
            _FINDER.active[n] -= 1
            if _FINDER.active[n] == 0:
                del _FINDER.active[n]
                for mod in [m for m in _FINDER.created if m == n or m.startswith(n + ".")]:
                    sys.modules.pop(mod, None)
                    _FINDER.created.discard(mod)


# --------------------------------------------------------------------------------------------
# Bootstrap: import the wheel's modules with the stubs above.

_DEVICE = {"capability": (9, 0), "name": "NVIDIA H100 80GB HBM3", "memory": 80 * 2**30,
           "count": 8}


def _quiet_env() -> None:
    # vLLM's own handlers off: its records propagate to ours (see _capture_warnings).
    os.environ.setdefault("VLLM_CONFIGURE_LOGGING", "0")
    os.environ.setdefault("VLLM_NO_USAGE_STATS", "1")
    os.environ.setdefault("VLLM_DO_NOT_TRACK", "1")
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")


# xgrammar/llguidance: structured-output grammar libraries (compiled; xgrammar pulls triton),
# imported at module level by vllm/parser/abstract_parser.py, which the parser reaches through
# ParallelConfig._verify_args. vllm._*_C*: the CUDA kernel extensions (.so files, not
# extracted), imported at module level by platforms/cuda.py.
VLLM_STUBS = ("xgrammar", "llguidance", "vllm._C_stable_libtorch",
              "vllm._moe_C_stable_libtorch", "vllm._qutlass_C")


@cache
def _bootstrap() -> Path:
    """vLLM's first import in a test session, whichever oracle asks first (vllm_stubs and
    vllm_metrics come here too). Some of vLLM's modules bind the platform object when they
    are imported (vllm/engine/arg_utils.py:122, `from vllm.platforms import current_platform`;
    its `--mm-processor-device` choices, :1568-1573, follow that platform's device type), so
    they are imported here, under the oracle CUDA platform: users paste GPU lines, and the
    parser must be the one a GPU server builds."""
    root = require("vllm")
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    _quiet_env()
    import vllm  # before the vllm._* stubs: find_spec imports the parent
    with stubbed(VLLM_STUBS):
        import vllm.platforms as platforms

        if platforms._current_platform is not None:
            raise RuntimeError("vLLM's platform was resolved before the oracle's bootstrap: "
                               "import vLLM through tests.oracle.vllm_args_oracle.bootstrap()")
        platforms._current_platform = _oracle_platform()
        import vllm.engine.arg_utils  # noqa: F401
    return root


@cache
def _oracle_platform() -> Any:
    return _oracle_platform_class()()


@contextlib.contextmanager
def vllm_env() -> Iterator[Path]:
    """Everything that touches vLLM runs inside this: the source root on sys.path, the
    CPU-impossible imports stubbed (VLLM_STUBS), the oracle CUDA platform installed. Another
    oracle's platform (vllm_stubs' CPU one, for vLLM's buffers) is put back afterwards."""
    root = _bootstrap()
    import vllm.platforms as platforms

    before = platforms._current_platform
    swap = before is not _oracle_platform()
    if swap:
        platforms._current_platform = _oracle_platform()
        _forget_platform_answers()
    try:
        with stubbed(VLLM_STUBS):
            yield root
    finally:
        if swap:
            platforms._current_platform = before
            _forget_platform_answers()


def _forget_platform_answers() -> None:
    """Drop the answers vLLM cached from the platform that was current (pinned memory, UVA)."""
    from vllm.utils import platform_utils

    for name in ("is_pin_memory_available", "is_uva_available"):
        cached = getattr(platform_utils, name, None)
        if hasattr(cached, "cache_clear"):
            cached.cache_clear()


def bootstrap() -> Path:
    """Import vLLM once (about 10 s); returns its source root. Skips/fails via paths.require."""
    return _bootstrap()


def _oracle_platform_class() -> type:
    from vllm.platforms.cuda import CudaPlatformBase
    from vllm.platforms.interface import DeviceCapability

    class OracleCudaPlatform(CudaPlatformBase):
        """vLLM's CUDA platform with the NVML/torch.cuda device queries answered by constants."""

        @classmethod
        def get_device_capability(cls, device_id: int = 0) -> DeviceCapability:
            major, minor = _DEVICE["capability"]
            return DeviceCapability(major=major, minor=minor)

        @classmethod
        def get_device_name(cls, device_id: int = 0) -> str:
            return str(_DEVICE["name"])

        @classmethod
        def get_device_total_memory(cls, device_id: int = 0) -> int:
            return int(_DEVICE["memory"])

        @classmethod
        def device_count(cls) -> int:
            return int(_DEVICE["count"])

        @classmethod
        def is_fully_connected(cls, physical_device_ids: list[int]) -> bool:
            return True

        @classmethod
        def get_device_numa_node(cls, device_id: int = 0) -> int | None:
            return None

        @classmethod
        def get_all_device_numa_nodes(cls) -> list[int] | None:
            return None

    return OracleCudaPlatform


# --------------------------------------------------------------------------------------------
# Command lines -> argv


_SHELL_STOP = {"|", "||", "&&", ";", "&", "2>&1", "1>&2"}
_LAUNCHERS = {"nohup", "exec", "time", "env", "sudo"}


def command_words(line: str) -> list[str]:
    """The words of a pasted shell line's command: backslash-newline continuations joined,
    leading `VAR=value` assignments, launchers (`nohup`, `env`, ...) and `uv run` dropped,
    cut at a pipe, `&&`, `;`, `&` or a redirection. Shared with sglang_args_oracle."""
    tokens = shlex.split(line.replace("\\\r\n", " ").replace("\\\n", " "), comments=True)
    words: list[str] = []
    for tok in tokens:
        if tok in _SHELL_STOP or tok.startswith((">", "1>", "2>", "<")):
            break
        words.append(tok)
    i = 0
    while i < len(words) and (("=" in words[i] and not words[i].startswith("-"))
                              or words[i] in _LAUNCHERS):
        i += 1
    words = words[i:]
    if words[:2] == ["uv", "run"]:  # `uv run vllm serve ...`, `uv run python -m ...`
        words = words[2:]
    if not words:
        raise ValueError(f"no command in {line!r}")
    return words


def split_command(line: str) -> tuple[str, list[str]]:
    """`(entry, argv)` for a pasted shell line: entry is "serve" (`vllm serve ...`, argv starts
    with "serve" as `vllm`'s main parser sees it) or "api_server" (`python -m
    vllm.entrypoints.openai.api_server ...`, argv without a subcommand).

    Handles backslash-newline continuations, leading `VAR=value` assignments and launchers
    (`nohup`, `env`, ...), and stops at a pipe, `&&`, `;`, `&` or a redirection.
    """
    words = command_words(line)
    prog = Path(words[0]).name
    if prog == "vllm":
        return ("serve" if words[1:2] == ["serve"] else "other"), words[1:]
    if prog.startswith("python") and words[1:2] == ["-m"] and len(words) > 2:
        module = words[2]
        if module in ("vllm.entrypoints.openai.api_server",
                      "vllm.entrypoints.launchers.api_server.entry"):
            return "api_server", words[3:]
        if module == "vllm.entrypoints.cli.main":
            return ("serve" if words[3:4] == ["serve"] else "other"), words[3:]
    raise ValueError(f"not a vLLM server command: {line!r}")


# --------------------------------------------------------------------------------------------
# Parsers (built once; argparse parsers are reusable)


@cache
def serve_parser() -> argparse.ArgumentParser:
    """The `vllm` top-level parser with only the `serve` subcommand, as cli/main.py:88-109."""
    with vllm_env():
        from vllm.entrypoints.cli.serve import ServeSubcommand
        from vllm.utils.argparse_utils import FlexibleArgumentParser

        parser = FlexibleArgumentParser(description="vLLM CLI")
        subparsers = parser.add_subparsers(required=False, dest="subparser")
        cmd = ServeSubcommand()
        cmd.subparser_init(subparsers).set_defaults(dispatch_function=cmd.cmd)
        return parser


def _cli_args() -> Any:
    """The module holding `make_arg_parser`: entrypoints/common/cli_args.py from 0.33,
    entrypoints/launchers/cli_args.py in 0.32 (:421, :502)."""
    import importlib

    try:
        return importlib.import_module("vllm.entrypoints.common.cli_args")
    except ImportError:
        return importlib.import_module("vllm.entrypoints.launchers.cli_args")


@cache
def api_server_parser() -> argparse.ArgumentParser:
    """`python -m vllm.entrypoints.openai.api_server`'s parser (launchers/api_server/entry.py)."""
    with vllm_env():
        from vllm.utils.argparse_utils import FlexibleArgumentParser

        make_arg_parser = _cli_args().make_arg_parser
        return make_arg_parser(
            FlexibleArgumentParser(description="vLLM OpenAI-Compatible RESTful API server."))


# --------------------------------------------------------------------------------------------
# Parse


@dataclasses.dataclass
class VllmParse:
    """What vLLM made of one command line.

    `ok` is False when vLLM refused it; `stage` says where: "parse" (argparse or
    FlexibleArgumentParser.parse_args: unknown flag, bad value, bad JSON/config dict, `--config`
    problems), "validate" (validate_parsed_serve_args), "engine_args"
    (AsyncEngineArgs.from_cli_args / its __post_init__ building the config dicts), or
    "speculative" (create_speculative_config's merge of --spec-* into --speculative-config).
    `error` is the message vLLM printed or raised. `fields` holds the values graphfit reads
    (see `relevant_fields`); `warnings` the vLLM log records of level WARNING and above
    (best effort: vLLM's `warning_once` prints each message once per process).
    """

    entry: str
    argv: list[str]
    ok: bool
    stage: str | None = None
    error: str | None = None
    namespace: argparse.Namespace | None = None
    engine_args: Any = None
    fields: dict[str, Any] = dataclasses.field(default_factory=dict)
    warnings: list[str] = dataclasses.field(default_factory=list)


class _ParserExit(Exception):
    def __init__(self, status: int, message: str | None) -> None:
        super().__init__(message)
        self.status = status
        self.message = (message or "").strip()


@contextlib.contextmanager
def _raising_exit(parser: argparse.ArgumentParser) -> Iterator[None]:
    """argparse reports errors with `self.exit(2, msg)` after vLLM's `error()` adds its hints;
    turn that into an exception on every (sub)parser instead of `sys.exit`."""
    parsers = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            parsers += list(action.choices.values())

    def _exit(status: int = 0, message: str | None = None) -> None:
        raise _ParserExit(status, message)

    for p in parsers:
        p.exit = _exit  # type: ignore[method-assign]
    try:
        yield
    finally:
        for p in parsers:
            del p.exit


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@contextlib.contextmanager
def _capture_warnings() -> Iterator[list[str]]:
    handler = _Capture()
    logger = logging.getLogger("vllm")
    logger.addHandler(handler)
    try:
        yield handler.messages
    finally:
        logger.removeHandler(handler)


@contextlib.contextmanager
def working_files(files: dict[str, str] | None) -> Iterator[None]:
    """Run in a temporary directory holding `files` (e.g. the YAML a `--config` names)."""
    if not files:
        yield
        return
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in files.items():
            target = Path(tmp, name)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
        with contextlib.chdir(tmp):
            yield


def parse_vllm(command: str | Sequence[str], *, files: dict[str, str] | None = None,
               entry: str | None = None) -> VllmParse:
    """Run vLLM's parser on a pasted line (str) or on the argv after the program.

    A str goes through `split_command`. A list is taken as `vllm`'s argv (starting with
    "serve") unless `entry="api_server"`. `files` are written to a temporary working directory
    first (for `--config x.yaml`). Never raises for a rejected line: see `VllmParse.ok`.
    """
    with vllm_env():
        return _parse_vllm(command, files, entry)


def _parse_vllm(command: str | Sequence[str], files: dict[str, str] | None,
                entry: str | None) -> VllmParse:
    if isinstance(command, str):
        entry, argv = split_command(command)
    else:
        argv = list(command)
        entry = entry or ("serve" if argv[:1] == ["serve"] else "api_server")
    if entry == "other":
        return VllmParse(entry, argv, False, "parse", f"not `vllm serve`: {argv[:1]}")
    parser = serve_parser() if entry == "serve" else api_server_parser()
    result = VllmParse(entry, argv, False)
    with _capture_warnings() as warned, working_files(files):
        try:
            result.stage = "parse"
            with _raising_exit(parser), contextlib.redirect_stderr(io.StringIO()), \
                    contextlib.redirect_stdout(io.StringIO()):
                # parse_args mutates nothing of ours: it copies argv.
                ns = parser.parse_args(list(argv))
            result.namespace = ns
            result.stage = "validate"
            validate_parsed_serve_args = _cli_args().validate_parsed_serve_args
            validate_parsed_serve_args(ns)
            result.stage = "engine_args"
            ns = copy.copy(ns)
            # ServeSubcommand.cmd's first step (cli/serve.py:53-55).
            if getattr(ns, "model_tag", None) is not None:
                ns.model = ns.model_tag
            from vllm.engine.arg_utils import AsyncEngineArgs
            engine_args = AsyncEngineArgs.from_cli_args(ns)
            result.engine_args = engine_args
            result.stage = "speculative"
            spec = merged_speculative_config(engine_args)
            result.fields = relevant_fields(ns, engine_args, spec)
            result.ok, result.stage = True, None
        except _ParserExit as exc:
            result.error = _argparse_message(exc)
        except Exception as exc:  # vLLM raises ValueError/TypeError/AssertionError/...
            result.error = stable_message(f"{type(exc).__name__}: {exc}")
    result.warnings = list(warned)
    return result


def _argparse_message(exc: _ParserExit) -> str:
    if exc.status == 0:
        return "exited (help/version)"
    # "vllm serve: error: unrecognized arguments: --foo" -> after "error: "
    _, sep, tail = exc.message.partition("error: ")
    return stable_message(tail if sep else exc.message)


def stable_message(message: str) -> str:
    """Drop what changes between runs (`<function loads at 0x7f...>` -> `<function loads>`)."""
    return re.sub(r" at 0x[0-9a-fA-F]+>", ">", message)


def merged_speculative_config(engine_args: Any) -> dict[str, Any] | None:
    """The dict vLLM hands to `SpeculativeConfig(**...)`: `--speculative-config` with
    `--spec-method/--spec-model/--spec-tokens` merged in and dashes turned to underscores, by
    running `EngineArgs.create_speculative_config` on a copy with `SpeculativeConfig` replaced
    by a recorder (the real one needs the target model's config). Raises vLLM's ValueError when
    a --spec-* flag repeats a key of --speculative-config.
    """
    import vllm.engine.arg_utils as arg_utils

    clone = copy.deepcopy(engine_args)
    real = arg_utils.SpeculativeConfig
    arg_utils.SpeculativeConfig = lambda **kwargs: kwargs  # type: ignore[misc,assignment]
    try:
        spec = clone.create_speculative_config(None, None)
    finally:
        arg_utils.SpeculativeConfig = real
    if spec is None:
        return None
    return {k: v for k, v in spec.items()
            if k not in ("target_model_config", "target_parallel_config")}


# --------------------------------------------------------------------------------------------
# The values graphfit reads


ENGINE_FIELDS = (
    "model", "served_model_name", "max_num_seqs", "max_num_batched_tokens", "max_model_len",
    "dtype", "kv_cache_dtype", "block_size", "gpu_memory_utilization", "enable_prefix_caching",
    "trust_remote_code", "quantization", "tensor_parallel_size", "pipeline_parallel_size",
    "data_parallel_size", "enable_expert_parallel", "enforce_eager", "performance_mode",
    "cudagraph_capture_sizes", "max_cudagraph_capture_size", "async_scheduling",
    "enable_chunked_prefill",
)
COMPILATION_FIELDS = ("mode", "cudagraph_mode", "cudagraph_capture_sizes",
                      "max_cudagraph_capture_size")
FRONTEND_FIELDS = ("port", "host", "model_tag", "config")


def plain(value: Any) -> Any:
    """JSON-friendly: enums by name (IntEnum CompilationMode by value), tuples as lists."""
    import enum
    if isinstance(value, enum.IntEnum):
        return int(value)
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def relevant_fields(ns: argparse.Namespace, engine_args: Any,
                    speculative: dict[str, Any] | None) -> dict[str, Any]:
    """The graphfit-relevant values, JSON-friendly.

    Top-level keys are the EngineArgs field names (ENGINE_FIELDS) plus:
    `optimization_level` (as parsed: argparse keeps the string, e.g. "3"),
    `compilation_config` ({mode, cudagraph_mode, cudagraph_capture_sizes,
    max_cudagraph_capture_size}; None = not given), `speculative_config` (merged dict or None),
    `attention_backend` (--attention-backend, enum name) and `attention_config_backend`
    (-ac/--attention-config backend), and the frontend's port/host/model_tag/config.
    """
    out: dict[str, Any] = {name: plain(getattr(engine_args, name, None)) for name in ENGINE_FIELDS}
    out["optimization_level"] = plain(engine_args.optimization_level)
    cc = engine_args.compilation_config
    out["compilation_config"] = {k: plain(getattr(cc, k, None)) for k in COMPILATION_FIELDS}
    out["speculative_config"] = plain(speculative)
    out["attention_backend"] = plain(engine_args.attention_backend)
    ac = engine_args.attention_config
    out["attention_config_backend"] = plain(getattr(ac, "backend", None))
    for name in FRONTEND_FIELDS:
        out[name] = plain(getattr(ns, name, None))
    return out


# --------------------------------------------------------------------------------------------
# Real VllmConfig objects on CPU (for graphfit's EngineConfig.from_vllm)


def set_device(*, capability: tuple[int, int] | None = None, name: str | None = None,
               memory: int | None = None, count: int | None = None) -> dict[str, Any]:
    """Change the GPU the oracle platform describes (default: 8x H100 80GB, capability 9.0).

    Returns the previous settings. Capability 10.x is datacenter Blackwell (ladder ceiling
    1024, docs/engines/vllm.md#capture-ladder). vLLM caches a few capability checks per process
    (lru_cache).
    """
    previous = dict(_DEVICE)
    for key, value in (("capability", capability), ("name", name), ("memory", memory),
                       ("count", count)):
        if value is not None:
            _DEVICE[key] = value
    return previous


def _model_dir(hf_config: dict[str, Any]) -> str:
    """A directory holding only `config.json` (all ModelConfig reads), kept for the process."""
    import hashlib
    import json
    import tempfile
    text = json.dumps(hf_config, sort_keys=True, indent=1)
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    path = Path(tempfile.gettempdir(), "graphfit-oracle-models", digest)
    if not (path / "config.json").is_file():
        path.mkdir(parents=True, exist_ok=True)
        (path / "config.json").write_text(text)
    return str(path)


LLAMA_3_8B: dict[str, Any] = {
    # Llama-3.1-8B-Instruct's config.json fields that ModelConfig reads (public model card).
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
    "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8,
    "num_hidden_layers": 32, "vocab_size": 128256, "max_position_embeddings": 131072,
    "rms_norm_eps": 1e-05, "rope_theta": 500000.0, "torch_dtype": "bfloat16",
    "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "bos_token_id": 128000, "eos_token_id": 128009, "tie_word_embeddings": False,
}


def _shape_only_model_class(arch: str) -> type:
    """A class with the vLLM model interface (init kw `vllm_config`, embed_input_ids, forward
    with input_ids/positions, compute_logits; SupportsPP, SupportsLoRA) and no layers: what
    `_ModelInfo.from_model_cls` inspects, without importing the real model module (which
    imports flash-attention and other CUDA extensions at module level)."""
    import torch.nn as nn
    from vllm.model_executor.models.interfaces import SupportsLoRA, SupportsPP

    class ShapeOnly(nn.Module, SupportsPP, SupportsLoRA):
        def __init__(self, *, vllm_config: Any, prefix: str = "") -> None:
            super().__init__()

        def embed_input_ids(self, input_ids: Any) -> Any:
            raise NotImplementedError

        def forward(self, input_ids: Any, positions: Any, intermediate_tensors: Any = None,
                    inputs_embeds: Any = None) -> Any:
            raise NotImplementedError

        def compute_logits(self, hidden_states: Any) -> Any:
            raise NotImplementedError

        def make_empty_intermediate_tensors(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

    ShapeOnly.__name__ = ShapeOnly.__qualname__ = arch
    return ShapeOnly


@contextlib.contextmanager
def _model_inspection(overrides: dict[str, Any] | None) -> Iterator[None]:
    """vLLM inspects the model class in a subprocess (`registry._run_in_subprocess`) that
    imports the real model module: on CPU that fails. Answer `_ModelRegistry.
    _try_inspect_model_cls` with vLLM's own `_ModelInfo.from_model_cls` of a shape-only class
    (a plain decoder-only text-generation model), fields replaced by `overrides` (e.g.
    {"is_hybrid": True}); unknown architectures still fail as in vLLM."""
    from vllm.model_executor.models import registry

    original = registry._ModelRegistry._try_inspect_model_cls

    def inspect(self: Any, model_arch: str) -> Any:
        if model_arch not in self.models:
            return None
        info = registry._ModelInfo.from_model_cls(_shape_only_model_class(model_arch))
        return dataclasses.replace(info, **(overrides or {}))

    registry._ModelRegistry._try_inspect_model_cls = inspect
    try:
        yield
    finally:
        registry._ModelRegistry._try_inspect_model_cls = original


@contextlib.contextmanager
def _runner_choice(runner: str) -> Iterator[None]:
    """"v1"/"v2" set VLLM_USE_V2_MODEL_RUNNER (vLLM reads it lazily, envs.py:2149). "auto" is
    what a GPU box does: vLLM 0.33 picks Model Runner V2 unless `HAS_TRITON` is False or
    `_get_v2_model_runner_unsupported_features` lists something (config/vllm.py:731-766);
    triton is absent here, so config/vllm.py's HAS_TRITON is set True for the call."""
    import vllm.config.vllm as config_vllm

    saved_env = os.environ.get("VLLM_USE_V2_MODEL_RUNNER")
    saved_triton = config_vllm.HAS_TRITON
    if runner in ("v1", "v2"):
        os.environ["VLLM_USE_V2_MODEL_RUNNER"] = "1" if runner == "v2" else "0"
    elif runner == "auto":
        os.environ.pop("VLLM_USE_V2_MODEL_RUNNER", None)
        config_vllm.HAS_TRITON = True
    else:
        raise ValueError(f"runner must be auto, v1 or v2, not {runner!r}")
    try:
        yield
    finally:
        config_vllm.HAS_TRITON = saved_triton
        if saved_env is None:
            os.environ.pop("VLLM_USE_V2_MODEL_RUNNER", None)
        else:
            os.environ["VLLM_USE_V2_MODEL_RUNNER"] = saved_env


@dataclasses.dataclass
class VllmBuild:
    """`build_vllm_config`'s answer: the real `VllmConfig` or vLLM's refusal."""

    parse: VllmParse
    ok: bool
    error: str | None = None
    config: Any = None  # vllm.config.VllmConfig
    fields: dict[str, Any] = dataclasses.field(default_factory=dict)


def build_vllm_config(command: str | Sequence[str] | VllmParse, *,
                      hf_config: dict[str, Any] | None = None,
                      model_dir: str | os.PathLike[str] | None = None,
                      draft_hf_config: dict[str, Any] | None = None,
                      model_info: dict[str, Any] | None = None,
                      runner: str = "auto",
                      files: dict[str, str] | None = None) -> VllmBuild:
    """Run `AsyncEngineArgs.create_engine_config` (what `vllm serve` does before starting the
    engine) on a command line, on CPU. The model named on the line is replaced by a local
    directory: `model_dir`, or one made from `hf_config` (a config.json dict; default
    LLAMA_3_8B) -- nothing is downloaded. A speculative `model` (eagle/eagle3/draft_model/...)
    is replaced likewise by one made from `draft_hf_config` when given. See `_model_inspection`
    (model_info) and `_runner_choice` (runner). Never raises for a refused config.
    """
    with vllm_env():
        return _build_vllm_config(command, hf_config, model_dir, draft_hf_config, model_info,
                                  runner, files)


def _build_vllm_config(command: str | Sequence[str] | VllmParse,
                       hf_config: dict[str, Any] | None,
                       model_dir: str | os.PathLike[str] | None,
                       draft_hf_config: dict[str, Any] | None,
                       model_info: dict[str, Any] | None, runner: str,
                       files: dict[str, str] | None) -> VllmBuild:
    parsed = command if isinstance(command, VllmParse) else _parse_vllm(command, files, None)
    result = VllmBuild(parsed, False)
    if not parsed.ok:
        result.error = f"[{parsed.stage}] {parsed.error}"
        return result
    engine_args = copy.deepcopy(parsed.engine_args)
    engine_args.model = str(model_dir) if model_dir is not None else _model_dir(
        hf_config or LLAMA_3_8B)
    engine_args.tokenizer = None
    if draft_hf_config is not None:
        spec = dict(engine_args.speculative_config or {})
        spec["model"] = _model_dir(draft_hf_config)
        engine_args.speculative_config = spec
    from vllm.usage.usage_lib import UsageContext
    with _capture_warnings() as warned, _model_inspection(model_info), _runner_choice(runner):
        try:
            config = engine_args.create_engine_config(
                usage_context=UsageContext.OPENAI_API_SERVER)
        except Exception as exc:
            result.error = stable_message(f"{type(exc).__name__}: {exc}")
        else:
            result.ok, result.config = True, config
            result.fields = config_fields(config)
    parsed.warnings.extend(warned)
    return result


def config_fields(config: Any) -> dict[str, Any]:
    """The resolved values graphfit reads from a VllmConfig, JSON-friendly."""
    cc, sc, mc = config.compilation_config, config.scheduler_config, config.model_config
    pc, spec, cache_cfg = config.parallel_config, config.speculative_config, config.cache_config
    return {
        "max_num_seqs": sc.max_num_seqs,
        "max_num_batched_tokens": sc.max_num_batched_tokens,
        "max_model_len": mc.max_model_len,
        "dtype": plain(str(mc.dtype).removeprefix("torch.")),
        "enforce_eager": mc.enforce_eager,
        "optimization_level": plain(config.optimization_level),
        "performance_mode": config.performance_mode,
        "use_v2_model_runner": bool(config.use_v2_model_runner),
        "compilation_mode": plain(cc.mode),
        "cudagraph_mode": plain(cc.cudagraph_mode),
        "cudagraph_capture_sizes": list(cc.cudagraph_capture_sizes or []),
        "max_cudagraph_capture_size": cc.max_cudagraph_capture_size,
        "tensor_parallel_size": pc.tensor_parallel_size,
        "data_parallel_size": pc.data_parallel_size,
        "kv_cache_dtype": plain(cache_cfg.cache_dtype),
        "block_size": cache_cfg.block_size,
        "speculative_method": None if spec is None else spec.method,
        "num_speculative_tokens": None if spec is None else spec.num_speculative_tokens,
    }


# --------------------------------------------------------------------------------------------
# Generated command lines (hypothesis), for "graphfit reads the same values as vLLM's parser"


def vllm_command_lines() -> Any:
    """A hypothesis strategy of `vllm serve ...` lines (str) that mix the flags graphfit models
    (in every spelling vLLM accepts: dashes/underscores, `=` or space, -tp/-dp/-cc/-sc short
    forms, -O0..3 / -O 3 / -O=3, dotted JSON keys and `+` appends, JSON flags, space-separated
    lists, human-readable ints, `auto`) with flags it does not model (--port, --host,
    --gpu-memory-utilization, prefix caching, ...). Most lines are accepted by vLLM; some are
    not (conflicting --spec-* keys, mixed JSON/dotted flags are kept: vLLM's answer is the
    oracle). Compare graphfit's reading with `parse_vllm(line).fields`."""
    import json

    from hypothesis import strategies as st

    def flag(*names: str) -> Any:
        """One of the flag's spellings, underscores allowed after `--`."""
        spellings = list(names) + ["--" + n[2:].replace("-", "_")
                                   for n in names if n.startswith("--")]
        return st.sampled_from(sorted(set(spellings)))

    def valued(names: Any, values: Any) -> Any:
        return st.tuples(names, values, st.booleans()).map(
            lambda t: [f"{t[0]}={t[1]}"] if t[2] else [t[0], str(t[1])])

    sizes = st.lists(st.integers(1, 512), min_size=1, max_size=6)
    cg_mode = st.sampled_from(["NONE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY",
                               "FULL_AND_PIECEWISE", "full", "piecewise", 0, 1, 2])
    cc_dict = st.fixed_dictionaries({}, optional={
        "cudagraph_mode": cg_mode, "cudagraph_capture_sizes": sizes,
        "max_cudagraph_capture_size": st.integers(1, 1024),
        "mode": st.sampled_from([0, 3, "NONE", "VLLM_COMPILE"])})

    def cc_json(d: dict[str, Any]) -> Any:
        return flag("--compilation-config", "-cc").map(lambda f: [f, json.dumps(d)])

    def cc_dotted(d: dict[str, Any]) -> Any:
        def render(prefix: str, eq: bool, append: bool) -> list[str]:
            out: list[str] = []
            for key, value in d.items():
                if isinstance(value, list) and append:
                    for v in value:
                        out += [f"{prefix}.{key}+={v}"] if eq else [f"{prefix}.{key}+", str(v)]
                else:
                    text = json.dumps(value) if isinstance(value, list) else str(value)
                    out += [f"{prefix}.{key}={text}"] if eq else [f"{prefix}.{key}", text]
            return out
        return st.tuples(flag("--compilation-config", "-cc"), st.booleans(), st.booleans()).map(
            lambda t: render(*t))

    compilation = cc_dict.filter(bool).flatmap(lambda d: st.one_of(cc_json(d), cc_dotted(d)))
    spec_dict = st.fixed_dictionaries(
        {"method": st.sampled_from(["ngram", "eagle3", "mtp", "dflash", "draft_model"]),
         "num_speculative_tokens": st.integers(1, 8)},
        optional={"prompt_lookup_max": st.integers(1, 5)})
    speculative = st.one_of(
        spec_dict.flatmap(lambda d: flag("--speculative-config", "-sc").map(
            lambda f: [f, json.dumps(d)])),
        spec_dict.map(lambda d: [x for k, v in d.items()
                                 for x in (f"--speculative-config.{k}", str(v))]),
        st.tuples(st.sampled_from(["ngram", "mtp"]), st.integers(1, 8)).map(
            lambda t: ["--spec-method", t[0], "--spec-tokens", str(t[1])]))
    opt_level = st.tuples(st.integers(0, 3), st.sampled_from(["-O{}", "-O {}", "-O={}",
                                                              "--optimization-level {}"])).map(
        lambda t: t[1].format(t[0]).split(" "))
    modelled = [
        valued(flag("--max-num-seqs"), st.integers(1, 1024)),
        valued(flag("--max-num-batched-tokens"),
               st.one_of(st.integers(1024, 65536), st.sampled_from(["8k", "16K", "32k"]))),
        valued(flag("--max-model-len"),
               st.one_of(st.integers(1024, 131072), st.sampled_from(["auto", "32k", "4K"]))),
        valued(flag("--tensor-parallel-size", "-tp"), st.sampled_from([1, 2, 4, 8])),
        valued(flag("--data-parallel-size", "-dp"), st.sampled_from([1, 2])),
        valued(flag("--dtype"), st.sampled_from(["auto", "half", "bfloat16", "float16"])),
        valued(flag("--kv-cache-dtype"), st.sampled_from(["auto", "fp8", "fp8_e4m3"])),
        valued(flag("--block-size"), st.sampled_from([16, 32, 64])),
        st.sampled_from([["--enforce-eager"], ["--no-enforce-eager"], ["--enforce_eager"]]),
        opt_level,
        st.tuples(flag("--cudagraph-capture-sizes"), sizes).map(
            lambda t: [t[0], *map(str, t[1])]),
        valued(flag("--max-cudagraph-capture-size"), st.integers(1, 1024)),
        compilation,
        speculative,
        valued(flag("--attention-backend"),
               st.sampled_from(["FLASH_ATTN", "FLASHINFER", "TRITON_ATTN"])),
        valued(flag("--performance-mode"),
               st.sampled_from(["balanced", "interactivity", "throughput"])),
    ]
    unmodelled = [
        valued(flag("--port"), st.integers(1024, 65535)),
        valued(flag("--host"), st.sampled_from(["0.0.0.0", "127.0.0.1"])),
        valued(flag("--gpu-memory-utilization"), st.sampled_from([0.8, 0.9, 0.95])),
        st.sampled_from([["--enable-prefix-caching"], ["--no-enable-prefix-caching"],
                         ["--disable-prefix-caching"]]),
        st.sampled_from([["--trust-remote-code"], ["--trust_remote_code"]]),
        valued(flag("--served-model-name"), st.sampled_from(["m", "my-model"])),
        st.just(["--disable-log-stats"]),
        valued(flag("--seed"), st.integers(0, 10)),
        valued(flag("--quantization", "-q"), st.sampled_from(["fp8"])),
        st.just(["--enable-chunked-prefill"]),
        st.just(["--async-scheduling"]),
    ]
    model = st.sampled_from(["meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-8B", "/models/m"])

    @st.composite
    def lines(draw: Any) -> str:
        groups = draw(st.lists(st.sampled_from(range(len(modelled) + len(unmodelled))),
                               min_size=1, max_size=8, unique=True))
        pieces = [draw((modelled + unmodelled)[g]) for g in groups]
        name = draw(model)
        how = draw(st.sampled_from(["positional", "--model", "--model="]))
        argv = [tok for piece in pieces for tok in piece]
        if how == "positional":
            argv = [name, *argv]
        else:
            at = draw(st.integers(0, len(pieces)))
            where = sum(len(p) for p in pieces[:at])
            model_args = [f"--model={name}"] if how == "--model=" else ["--model", name]
            argv = argv[:where] + model_args + argv[where:]
        return "vllm serve " + shlex.join(argv)

    return lines()
