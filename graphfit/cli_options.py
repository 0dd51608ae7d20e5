"""Engine-config flags shared by every CLI command, spelled as vLLM spells them.

`config_options` adds the flags to a command's signature once, builds a validated
EngineConfig from them and hands it to the command as `config`, so commands stay short and
no flag is declared twice.
"""

from __future__ import annotations

import functools
import inspect
import json
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

import typer

from graphfit.planner.config import EngineConfig
from graphfit.planner.errors import ConfigError

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class ConfigFlag:
    """One flag: the EngineConfig field it sets, its type, its help."""

    field: str
    flag: str
    kind: type
    help: str
    parse: Callable[[Any], Any] | None = None


def parse_sizes(text: str) -> tuple[int, ...]:
    """'1,2,4,8' or '[1, 2, 4, 8]' -> (1, 2, 4, 8); order and duplicates are validated later."""
    raw = text.strip()
    try:
        if raw.startswith("["):
            values = json.loads(raw)
            if not isinstance(values, list):
                raise ValueError
        else:
            values = [v for v in raw.replace(" ", ",").split(",") if v]
        sizes = tuple(int(v) if not isinstance(v, bool) else _reject(v) for v in values)
    except (ValueError, TypeError):
        raise ConfigError(
            f"cudagraph_capture_sizes: malformed list {text!r} (use 1,2,4 or [1,2,4])") from None
    if not sizes:
        raise ConfigError("cudagraph_capture_sizes: the list is empty")
    return sizes


def _reject(value: object) -> int:
    raise ValueError(value)


CONFIG_FLAGS: list[ConfigFlag] = [
    ConfigFlag("max_num_seqs", "--max-num-seqs", int, "Max sequences per batch (S)."),
    ConfigFlag("max_num_batched_tokens", "--max-num-batched-tokens", int,
               "Max tokens per batch (T). Default 8192."),
    ConfigFlag("max_model_len", "--max-model-len", int, "Max model length. Default 8192."),
    ConfigFlag("num_speculative_tokens", "--num-speculative-tokens", int,
               "Speculative tokens per step (k)."),
    ConfigFlag("spec_method", "--method", str,
               "Speculative method: none, eagle, eagle3, mtp, draft_model, dflash, ngram."),
    ConfigFlag("cudagraph_capture_sizes", "--cudagraph-capture-sizes", str,
               "Explicit capture sizes, e.g. 1,2,4,8 or [1,2,4,8].", parse_sizes),
    ConfigFlag("max_cudagraph_capture_size", "--max-cudagraph-capture-size", int,
               "Largest capture size."),
    ConfigFlag("cudagraph_mode", "--cudagraph-mode", str,
               "NONE, PIECEWISE, FULL, FULL_DECODE_ONLY, FULL_AND_PIECEWISE (default)."),
    ConfigFlag("ladder", "--ladder", str, "Ladder policy: vllm (default), vllm-legacy, explicit."),
    ConfigFlag("hidden_size", "--hidden-size", int, "Model hidden size. Default 4096."),
    ConfigFlag("dtype", "--dtype", str, "Model dtype. Default bfloat16."),
    ConfigFlag("runner", "--runner", str, "vLLM model runner: v1 (default) or v2."),
    ConfigFlag("ceiling_family", "--ceiling-family", str,
               "default (ceiling 512) or blackwell (1024)."),
    ConfigFlag("performance_mode", "--performance-mode", str,
               "balanced (default), interactivity, throughput."),
    ConfigFlag("multimodal", "--multimodal", bool,
               "Allocate inputs_embeds and mrope positions buffers."),
]


def _parameter(flag: ConfigFlag) -> inspect.Parameter:
    option = typer.Option(flag.flag, help=flag.help, show_default=False)
    if flag.kind is bool:
        option = typer.Option(f"{flag.flag}/--no-{flag.flag[2:]}", help=flag.help,
                              show_default=False)
    annotation = Annotated[flag.kind | None, option]  # type: ignore[name-defined]
    return inspect.Parameter(flag.field, inspect.Parameter.KEYWORD_ONLY, default=None,
                             annotation=annotation)


def build_config(values: dict[str, Any]) -> EngineConfig:
    """EngineConfig from the flags the user gave (None = not given, take the default)."""
    given: dict[str, Any] = {}
    for flag in CONFIG_FLAGS:
        value = values.get(flag.field)
        if value is None:
            continue
        given[flag.field] = flag.parse(value) if flag.parse else value
    if "max_num_seqs" not in given:
        raise ConfigError("max_num_seqs: missing (pass --max-num-seqs)")
    return EngineConfig(**given)


def config_options(func: F) -> F:
    """Decorator: add every CONFIG_FLAGS flag to `func` and pass it `config=EngineConfig`.

    If `func` declares `config: EngineConfig | None = None`, giving no config flag at all
    passes None (e.g. `check --plan FILE` reads its config from the file).
    """
    signature = inspect.signature(func)
    optional = signature.parameters["config"].default is None
    hints = typing.get_type_hints(func, include_extras=True)
    own = [p.replace(annotation=hints.get(p.name, p.annotation))
           for p in signature.parameters.values() if p.name != "config"]
    names = [flag.field for flag in CONFIG_FLAGS]

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        values = {name: kwargs.pop(name, None) for name in names}
        from graphfit.cli_errors import handled

        config = None
        if not optional or any(v is not None for v in values.values()):
            with handled():
                config = build_config(values)
        return func(*args, config=config, **kwargs)

    params = own + [_parameter(flag) for flag in CONFIG_FLAGS]
    wrapper.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in params}
    del wrapper.__wrapped__
    return wrapper  # type: ignore[return-value]
