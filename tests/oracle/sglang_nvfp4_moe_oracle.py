"""SGLang 0.5.23's own answer to building ModelOpt NVFP4's MoE method (not a test): the real
`ModelOptFp4Config.from_config` and `ModelOptNvFp4FusedMoEMethod.__init__`
(layers/quantization/modelopt_quant.py:1704-1728, 2369-2388) run under the fake CUDA device of
a given capability with the given MoE runner installed as SGLang's global
(`get_moe_runner_backend`, layers/moe/utils.py:524-528). graphfit's restatement:
graphfit.planner.engines.sglang_nvfp4_moe.

`model_refusal` is what a model load adds after the server arguments, for a model directory
whose config.json declares a ModelOpt NVFP4 checkpoint and routed experts (its FusedMoE
layers build the method): the oracle knows its own model's experts from config.json. A
checkpoint with routed experts and no quantization config at all under `--quantization
modelopt_fp4` quantizes its experts at load (`ONLINE`): `get_quant_config` builds
`ModelOptFp4Config.for_online_weight_quantization` (model_loader/weight_utils.py:382-389),
whose FusedMoE method is ModelOptNvFp4OnlineFusedMoEMethod (nvfp4_online.py:176-188, 225-229),
the NVFP4 method's `__init__` first (issue 23 s67m)."""

from __future__ import annotations

import functools
import json
import types
from pathlib import Path
from typing import Any

from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_stubs

_EXPERT_KEYS = ("num_experts", "n_routed_experts", "num_local_experts")
_ALGOS = ("NVFP4", "W4A16_NVFP4")
ONLINE = "online"  # no quantization config: modelopt_fp4 quantizes the experts at load
EXPERTS_PREFIX = "model.layers.0.mlp.experts"  # a FusedMoE layer's prefix (logging only)
# the two sentences `ModelOptNvFp4FusedMoEMethod.__init__` raises (modelopt_quant.py:2375, 2383)
LORA_WORDS = "NVFP4 MoE LoRA requires"
PLATFORM_WORDS = "Current platform does not support NVFP4"
CUTLASS_WORDS = "moe_runner_backend=cutlass is not supported"  # :3146 (s60q)


def method_refusal(runner: str, capability: int, quant_algo: str = "NVFP4") -> str | None:
    """SGLang's ValueError text building the NVFP4 MoE method with `runner` on a CUDA GPU of
    `capability` (90: SM 9.0), or None where it builds."""
    return method_refusals(capability, (runner,), quant_algo)[runner]


@functools.lru_cache(maxsize=256)
def method_refusals(capability: int, runners: tuple[str, ...], quant_algo: str = "NVFP4"
                    ) -> dict[str, str | None]:
    """`method_refusal` for each of `runners` on one fake device (one device set-up)."""
    so.oracle()
    out: dict[str, str | None] = {}
    with sglang_stubs.stubbed(), sglang_stubs.fake_cuda(80 * 1024,
                                                        capability=divmod(capability, 10)):
        from sglang.srt.layers.moe import utils as moe_utils
        from sglang.srt.layers.quantization.modelopt_quant import (
            ModelOptFp4Config,
            ModelOptNvFp4FusedMoEMethod,
        )
        from sglang.srt.layers.quantization.nvfp4_online import (
            ModelOptNvFp4OnlineFusedMoEMethod,
        )

        config = (ModelOptFp4Config.for_online_weight_quantization({}) if quant_algo == ONLINE
                  else ModelOptFp4Config.from_config(
                      {"quantization": {"quant_algo": quant_algo, "group_size": 16,
                                        "exclude_modules": []}}))
        flags = moe_utils.get_flags().moe
        saved = flags.runner_backend
        try:
            for runner in runners:
                flags.runner_backend = moe_utils.MoeRunnerBackend(runner)
                try:
                    method = (ModelOptNvFp4OnlineFusedMoEMethod(config, EXPERTS_PREFIX)
                              if quant_algo == ONLINE else ModelOptNvFp4FusedMoEMethod(config))
                except ValueError as exc:
                    out[runner] = str(exc)
                    continue
                out[runner] = _runner_refusal(method)
        finally:
            flags.runner_backend = saved
    return out


def _runner_refusal(method: Any) -> str | None:
    """What the method's own `create_moe_runner` (modelopt_quant.py:3111-3148; FusedMoE calls
    it as it is built, layers/moe/fused_moe_triton/layer.py:576) raises with the installed
    runner: its NotImplementedError's text (s60q). Glue: a layer and runner config with no
    fields, and the runner object itself (`MoeRunner`, whose fused-function registry is
    filled by imports this CPU process may not make) not built: only the method's own checks
    answer."""
    from unittest import mock

    from sglang.srt.layers.moe.moe_runner.base import MoeRunnerConfig
    from sglang.srt.layers.quantization import modelopt_quant

    with mock.patch.object(modelopt_quant, "MoeRunner", lambda *args, **kwargs: None):
        try:
            method.create_moe_runner(types.SimpleNamespace(), MoeRunnerConfig())
        except NotImplementedError as exc:
            return str(exc)
    return None


def nvfp4_moe_model(model_dir: str | None) -> str | None:
    """The ModelOpt quant_algo of a model directory whose config.json has routed experts
    and a ModelOpt NVFP4 quantization_config, else None."""
    if model_dir is None:
        return None
    path = Path(model_dir) / "config.json"
    if not path.is_file():
        return None
    data: dict[str, Any] = json.loads(path.read_text())
    quant = data.get("quantization_config") or {}
    experts = any(isinstance(data.get(k), int) and data[k] > 0 for k in _EXPERT_KEYS)
    algo = quant.get("quant_algo") if quant.get("quant_method") == "modelopt" else None
    return algo if experts and algo in _ALGOS else None


def model_refusal(model_dir: str | None, record: Any, capability: tuple[int, int] | None
                  ) -> str | None:
    """The load-time refusal for a resolved line (`record`: its ServerArgs): None where the
    model is no NVFP4 MoE checkpoint, the line's quantization is another, or the GPU is a
    GiB figure (`capability` None: the fake device then stands in as a Hopper, which
    graphfit does not assume)."""
    algo = nvfp4_moe_model(model_dir)
    quant = getattr(record, "quantization", None)
    if algo is None and quant == "modelopt_fp4" and unquantized_moe_model(model_dir):
        algo = ONLINE
    if algo is None or capability is None or quant not in (None, "modelopt", "modelopt_fp4"):
        return None
    runner = str(getattr(record, "moe_runner_backend", "auto"))
    return method_refusal(runner, capability[0] * 10 + capability[1], algo)


def runners() -> tuple[str, ...]:
    """Every MoE runner SGLang's enum names (layers/moe/utils.py MoeRunnerBackend)."""
    so.oracle()
    with sglang_stubs.imports():
        from sglang.srt.layers.moe.utils import MoeRunnerBackend

        return tuple(member.value for member in MoeRunnerBackend)


def unquantized_moe_model(model_dir: str | None) -> bool:
    """A model directory with routed experts in config.json and no quantization config: none
    in config.json (`resolve_checkpoint_quant_spec`) and no hf_quant_config.json, ModelOpt's
    file (weight_utils.py:281, 376-389)."""
    if model_dir is None or (Path(model_dir) / "hf_quant_config.json").exists():
        return False
    path = Path(model_dir) / "config.json"
    if not path.is_file():
        return False
    data: dict[str, Any] = json.loads(path.read_text())
    experts = any(isinstance(data.get(k), int) and data[k] > 0 for k in _EXPERT_KEYS)
    return experts and not data.get("quantization_config")
