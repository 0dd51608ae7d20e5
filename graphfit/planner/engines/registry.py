"""The one place that switches on the engine: `Engine` -> its model."""

from __future__ import annotations

from graphfit.planner.core.enums import Engine, LadderPolicy
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines.base import EngineModel
from graphfit.planner.engines.sglang import SGLANG
from graphfit.planner.engines.trtllm import TRTLLM
from graphfit.planner.engines.vllm import VLLM

MODELS: dict[Engine, EngineModel] = {Engine.VLLM: VLLM, Engine.SGLANG: SGLANG,
                                     Engine.TRTLLM: TRTLLM}


def engine_model(engine: Engine) -> EngineModel:
    """The model of `engine`."""
    try:
        return MODELS[Engine(engine)]
    except (KeyError, ValueError):
        raise ConfigError(f"engine: {engine!r} is not one of "
                          f"{', '.join(e.value for e in MODELS)}") from None


def policy_engine(policy: LadderPolicy) -> Engine | None:
    """The engine a ladder policy belongs to (None for `explicit` and `auto`: any engine)."""
    for engine, model in MODELS.items():
        if policy in model.policies:
            return engine
    return None
