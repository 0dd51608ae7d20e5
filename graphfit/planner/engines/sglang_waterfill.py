"""`--enable-waterfill` in SGLang 0.5.23: the a2a backend it forces, restated so graphfit's
rules that read the backend SGLang resolves see the same one.

* Waterfill routes the shared expert through DeepEP or MegaMoE: any other a2a backend
  becomes deepep (`_a2a_backend_overrides`, arg_groups/overrides.py:1595-1607), and a
  spanning backend makes ep_size = tp_size (`_a2a_ep_size`, :1611-1620). Both run in
  `handle_a2a_moe` (moe_hook.py:292-293), at arg_groups/pipeline.py:295: the hooks before
  it (the CUDA-graph config and DeepEP's prefill buckets, :191 / cuda_graph_hook.py:315-342;
  the memory reserve, :218 / memory_hook.py:391-414; the MoE kernel asserts, :294) read the
  backend as given, the ones after (DeepEP's normal mode, moe_hook.py:383-398; EPLB's and
  the dispatch check, parallel_hook.py:764, 790-791, at :297) the forced one.
* It also forces shared-expert fusion on (overrides.py:1559-1564, moe_hook.py:301-304):
  graphfit does not model the fusion flags (no buffer it plans depends on them).
* graphfit restates every given backend: the rules that read the
  backend as given (the reserve, :218; the prefill graphs' validated list and DeepEP's
  buckets, :191; the MoE kernel asserts, :294; the PD role switch, :147) read the line's,
  and the per-backend checks inside `handle_a2a_moe` after the override (mori / pplx,
  moe_hook.py:543-622; flashinfer's and deepep_v2's, :400-540, and their token budgets at
  pipeline.py:320-324, 374-375; deepep_v2's prefill switch-off, moe_hook.py:436-443) read
  the forced one (`after_a2a`), as do the graph runners (sglang_moe_a2a.runtime_backend).
  flashinfer_megamoe's runner resolution reads it in `handle_moe_kernel_config` before the
  override (overrides.py:1449-1510): graphfit.planner.engines.sglang_waterfill_megamoe.
"""

from __future__ import annotations

from typing import cast

from graphfit.planner.core.settings import EngineSettings

KEPT = ("deepep", "megamoe")  # overrides.py:1599
FORCED = "deepep"  # overrides.py:1604


def resolved_a2a(given: str, waterfill: bool) -> str:
    """The a2a backend the hooks after `handle_a2a_moe` see (overrides.py:1595-1607)."""
    return FORCED if waterfill and given not in KEPT else given


class _After:
    """A config as the hooks after `handle_a2a_moe`'s override read it: the forced backend in
    place of the given one, every other field the config's own."""

    __slots__ = ("_backend", "_config")

    def __init__(self, config: EngineSettings, backend: str) -> None:
        object.__setattr__(self, "_config", config)
        object.__setattr__(self, "_backend", backend)

    def __getattr__(self, name: str) -> object:
        if name == "moe_a2a_backend":
            return object.__getattribute__(self, "_backend")
        return getattr(object.__getattribute__(self, "_config"), name)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{name}: a resolved view is read-only")


def after_a2a(config: EngineSettings) -> EngineSettings:
    """`config` as the per-backend checks after the override read it (overrides.py:
    1595-1607); the config itself when Waterfill changes nothing."""
    backend = resolved_a2a(config.moe_a2a_backend, config.enable_waterfill)
    if backend == config.moe_a2a_backend:
        return config
    return cast("EngineSettings", _After(config, backend))


__all__ = ["FORCED", "KEPT", "after_a2a", "resolved_a2a"]
