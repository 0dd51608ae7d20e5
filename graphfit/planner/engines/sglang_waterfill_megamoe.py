"""`--enable-waterfill` with `--moe-a2a-backend flashinfer_megamoe` in SGLang 0.5.23: which
lines graphfit plans, which it refuses with SGLang's reason, and which stay not modelled.

The given backend is read twice, on both sides of Waterfill's replacement:

* `handle_moe_kernel_config` (arg_groups/pipeline.py:294, before `handle_a2a_moe` at :295)
  resolves the MoE runner from the quantization with the backend as given
  (`_moe_runner_backend_quant_constraints`, arg_groups/overrides.py:1449-1510, run at
  moe_hook.py:77): nvfp4_online needs SM100 (:1457-1461) and takes only some runners, the
  flashinfer_megamoe runner too with SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16=1 (:1452-1483),
  which also makes its auto runner flashinfer_megamoe (:1462-1465); mxfp8 makes auto, or a
  runner outside MXFP8_MOE_RUNNER_BACKEND_CHOICES, flashinfer_megamoe (:1499-1510). The
  runner-vs-flag asserts follow on that runner (moe_hook.py:79-147; the cutedsl runner's
  a2a assert, :106-114, reads the given backend, which it does not take).
* `handle_a2a_moe` then replaces it with deepep (`_a2a_backend_overrides`,
  overrides.py:1595-1607, at moe_hook.py:292) and reads the replaced one: its
  flashinfer_megamoe branch (model class, quantization, environment, attention DP, runner,
  SM100 checks, moe_hook.py:315-345) does not run; deepep's checks do
  (graphfit.planner.engines.sglang_waterfill.after_a2a).

graphfit plans the lines whose runner stays another one (they build as any Waterfill line
whose backend became deepep). A runner resolved to flashinfer_megamoe would build the
quant methods' FlashInfer MegaMoE branches under a DeepEP dispatcher
(layers/quantization/fp8.py:2122, 2238; modelopt_quant.py:2499-3213; nvfp4_online.py:241),
which graphfit has not traced: refused as not modelled, as are lines whose model class
override picks the runner (sglang_model_quant.class_runner) or whose flag is unread.
"""

from __future__ import annotations

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.sglang_flashinfer_megamoe import BACKEND, resolved_runner
from graphfit.planner.engines.sglang_quantization import (
    check_runner,
    class_runner,
    flag_known,
    resolved_flag,
)


def _not_modelled(why: str) -> ConfigError:
    return ConfigError(f"--enable-waterfill replaces --moe-a2a-backend {BACKEND} with deepep "
                       f"(arg_groups/overrides.py:1595-1607) after the MoE runner was resolved "
                       f"for {BACKEND} (overrides.py:1449-1510): {why}: not modelled")


def applies(config: EngineSettings) -> bool:
    """A Waterfill line given flashinfer_megamoe."""
    return bool(config.enable_waterfill) and config.moe_a2a_backend == BACKEND


def runner(config: EngineSettings) -> str:
    """The MoE runner `handle_moe_kernel_config` resolves for the given flashinfer_megamoe
    (overrides.py:1449-1510), with SGLang's nvfp4_online refusals (:1457-1479)."""
    if not flag_known(config):
        raise _not_modelled("the --quantization the model override copies is not read")
    known, picked = class_runner(config)
    if not known or picked != config.moe_runner_backend:
        raise _not_modelled(f"{config.architecture}'s override picks the runner")
    return resolved_runner(picked, resolved_flag(config), config.sm100, config.nvfp4_w4a16)


def check(config: EngineSettings) -> None:
    """Refuse a Waterfill flashinfer_megamoe line as SGLang does, or as not modelled where the
    runner resolves to flashinfer_megamoe under deepep; a line that returns is planned as a
    deepep one (flashinfer_megamoe's own checks, moe_hook.py:315-345, do not run)."""
    if not applies(config):
        return
    picked = runner(config)
    check_runner(picked, resolved_flag(config), config.sm100, backend=BACKEND,
                 fp4_checkpoint=config.moe_fp4_checkpoint)  # moe_hook.py:79-147
    if picked == BACKEND:
        raise _not_modelled("the model then builds the flashinfer_megamoe runner under a "
                            "DeepEP dispatcher (layers/quantization/fp8.py:2122, 2238; "
                            "modelopt_quant.py:2499-3213), which graphfit has not traced")


__all__ = ["applies", "check", "runner"]
