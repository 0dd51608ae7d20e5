"""The one place that switches on the engine: `Engine` -> its model, ladder policy -> engine.

A model's module is imported the first time that engine is asked for, so planning for vLLM
never imports the SGLang and TensorRT-LLM models (the CLI's start-up).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from graphfit.planner.core.enums import Engine, LadderPolicy
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines.base import EngineModel

# the policies no engine owns: answered without importing any model
_ANY_ENGINE = (LadderPolicy.AUTO, LadderPolicy.EXPLICIT)


def _load(engine: Engine) -> EngineModel:
    if engine is Engine.VLLM:
        from graphfit.planner.engines.vllm import VLLM

        return VLLM
    if engine is Engine.SGLANG:
        from graphfit.planner.engines.sglang import SGLANG

        return SGLANG
    from graphfit.planner.engines.trtllm import TRTLLM

    return TRTLLM


class _Models(Mapping[Engine, EngineModel]):
    """Every engine's model, each imported on first use."""

    def __init__(self) -> None:
        self._loaded: dict[Engine, EngineModel] = {}

    def __getitem__(self, engine: Engine) -> EngineModel:
        model = self._loaded.get(engine)
        if model is None:
            if not isinstance(engine, Engine):
                raise KeyError(engine)
            model = self._loaded[engine] = _load(engine)
        return model

    def __iter__(self) -> Iterator[Engine]:
        return iter(Engine)

    def __len__(self) -> int:
        return len(Engine)


MODELS: Mapping[Engine, EngineModel] = _Models()


def engine_model(engine: Engine) -> EngineModel:
    """The model of `engine`."""
    try:
        return MODELS[Engine(engine)]
    except (KeyError, ValueError):
        raise ConfigError(f"engine: {engine!r} is not one of "
                          f"{', '.join(e.value for e in MODELS)}") from None


def policy_engine(policy: LadderPolicy) -> Engine | None:
    """The engine a ladder policy belongs to (None for `explicit` and `auto`: any engine)."""
    if policy in _ANY_ENGINE:
        return None
    for engine, model in MODELS.items():
        if policy in model.policies:
            return engine
    return None
