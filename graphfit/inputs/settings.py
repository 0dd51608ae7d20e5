"""Settings from many sources merged into one EngineConfig, with a documented precedence.

Every input (a flag, a key of a JSON config, a config-file key, an environment variable) is a
`Setting` of one EngineConfig field. Precedence: the config file (layer 0) is overridden by
the command line (layer 1: flags, JSON configs and the environment). Sources of the same
layer must agree: `--num-speculative-tokens 2` with `--speculative-config
'{"num_speculative_tokens": 3, ...}'` is an error naming both. A `weak` setting is a default
implied by another choice (vLLM's -O level implies a cudagraph_mode); any explicit setting
of the field beats it, as in vLLM. Within one layer a higher `priority` wins without a
conflict, for engines that rank their own spellings (SGLang: --cuda-graph-config JSON over
--cuda-graph-backend-decode / --cuda-graph-max-bs-decode over --disable-decode-cuda-graph over
the deprecated --disable-cuda-graph, cuda_graph_hook.py:32-101).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType
from typing import Any

from graphfit.planner.config import KEYWORDS, EngineConfig, keyword_default
from graphfit.planner.core.errors import ConfigError

FILE = 0
COMMAND_LINE = 1
# fields an engine model may fill in when none is given
IMPLIED_FIELDS = ("max_num_seqs", "num_speculative_tokens", "speculative_eagle_topk",
                  "speculative_num_draft_tokens", "max_cudagraph_capture_size")
ENGINE_DEFAULTS = "the engine's own default"
CONFIG_FIELDS = KEYWORDS  # EngineConfig's fields and its compatibility keywords


@dataclass(frozen=True)
class Setting:
    """One source's value for one EngineConfig field."""

    field: str
    value: Any
    origin: str
    layer: int = COMMAND_LINE
    weak: bool = False
    priority: int = 0

    def __post_init__(self) -> None:
        if self.field not in CONFIG_FIELDS:  # pragma: no cover - a programming error
            raise ValueError(f"unknown EngineConfig field {self.field!r}")


@dataclass(frozen=True)
class Resolved:
    """Merged field values, where each came from, and notes for the user (ignored keys)."""

    values: Mapping[str, Any]
    origins: Mapping[str, str]
    notes: tuple[str, ...] = ()

    def config(self, **overrides: Any) -> EngineConfig:
        """The validated EngineConfig (errors name the source of the offending value)."""
        values = {**self.values, **overrides}
        try:
            return EngineConfig.from_dict(values)
        except ConfigError as exc:
            raise ConfigError(self._with_origin(str(exc), overrides)) from None

    def implied(self, config: EngineConfig) -> tuple[str, ...]:
        """Notes for the fields nobody gave that the engine's model filled in (SGLang's
        max_running_requests with speculation, TensorRT-LLM's max_batch_size...)."""
        out = []
        for name in IMPLIED_FIELDS:
            if name not in self.values and getattr(config, name) != keyword_default(name):
                out.append(f"{name}: not given; the {config.engine.value} model uses "
                           f"{_show(getattr(config, name))} ({ENGINE_DEFAULTS})")
        return tuple(out)

    def _with_origin(self, message: str, overrides: Mapping[str, Any]) -> str:
        name = message.split(":", 1)[0]
        origin = self.origins.get(name)
        if origin is None or name in overrides or origin == f"--{name.replace('_', '-')}":
            return message
        return f"{message} (from {origin})"


def _comparable(value: Any) -> Any:
    if isinstance(value, Enum):
        value = value.value
    if isinstance(value, str):
        return value.strip().lower()
    if isinstance(value, list):
        return tuple(value)
    return value


def merge(settings: Iterable[Setting], notes: Iterable[str] = ()) -> Resolved:
    """Pick one value per field: strong over weak, then the higher layer, then the higher
    priority; peers must agree."""
    by_field: dict[str, list[Setting]] = {}
    for s in settings:
        by_field.setdefault(s.field, []).append(s)
    values: dict[str, Any] = {}
    origins: dict[str, str] = {}
    for name, group in by_field.items():
        best = max((not s.weak, s.layer, s.priority) for s in group)
        winners = [s for s in group if (not s.weak, s.layer, s.priority) == best]
        first = winners[0]
        for other in winners[1:]:
            if _comparable(other.value) != _comparable(first.value):
                raise ConfigError(
                    f"{name}: {first.origin} gives {_show(first.value)} but {other.origin} "
                    f"gives {_show(other.value)}")
        values[name] = first.value
        origins[name] = first.origin
    return Resolved(MappingProxyType(values), MappingProxyType(origins), tuple(notes))


def _show(value: Any) -> str:
    if isinstance(value, Enum):
        return repr(value.value)
    if isinstance(value, tuple):
        return repr(list(value))
    return repr(value)
