"""SGLang 0.5.23's refusal of an extra-buffer mamba strategy on a model without mamba state.

`handle_mamba_radix_cache` runs for every model (arg_groups/model_hook.py:737). On one whose
hybrid-mamba radix cache SGLang does not resolve (`uses_mamba_radix_cache` false: not a
mamba-radix architecture, overrides.py:461-471, or the radix cache off), an explicit
`--mamba-radix-cache-strategy extra_buffer` / `extra_buffer_lazy` with the radix cache on
(`mamba_extra_buffer_of`, model_override_base.py:260-265) is refused (model_hook.py:1059-1066):
"auto is arch-gated", so only an explicit strategy reaches it, and it "would arm the mamba
paths and crash at prefill" (the prefill runner's tracking switch reads the same flag,
prefill_cuda_graph_runner.py:705-708).
"""

from __future__ import annotations

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.sglang_mamba_pool import (
    GRANITE,
    MAMBAISH_ONLY_ARCHS,
    is_hybrid_mamba,
    radix_off,
)

EXTRA_BUFFER_STRATEGIES = ("extra_buffer", "extra_buffer_lazy")


def check(config: EngineSettings) -> None:
    """Refuse as SGLang does (module docstring). An architecture whose mamba layers graphfit
    learns from the model directory only (GraniteMoeHybrid, the mamba-ish ones) is left alone
    when graphfit has not read them: it cannot tell whether SGLang would refuse."""
    strategy = config.mamba_radix_cache_strategy.strip().lower()
    arch = config.architecture
    if strategy not in EXTRA_BUFFER_STRATEGIES or arch is None or radix_off(config):
        return
    if is_hybrid_mamba(arch, config.mamba_state_shape):
        return
    if (arch == GRANITE or arch in MAMBAISH_ONLY_ARCHS) and config.mamba_state_shape is None:
        return
    raise ConfigError(f"--mamba-radix-cache-strategy {strategy} needs mamba state, got {arch}. "
                      f"(SGLang model_hook.py:1059-1066)")
