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
* graphfit restates the given backends "none", "deepep" and "megamoe" (the last two stay).
  Another given backend (flashinfer, deepep_v2, mooncake, ...) is read by its own checks in
  the hooks before :295 and replaced after: graphfit's per-backend checks do not split at
  that point, so such a line is refused as not modelled.
"""

from __future__ import annotations

from graphfit.planner.core.errors import ConfigError

KEPT = ("deepep", "megamoe")  # overrides.py:1599
FORCED = "deepep"  # overrides.py:1604


def resolved_a2a(given: str, waterfill: bool) -> str:
    """The a2a backend the hooks after `handle_a2a_moe` see (overrides.py:1595-1607)."""
    return FORCED if waterfill and given not in KEPT else given


def check(given: str, waterfill: bool) -> None:
    """Refuse, as not modelled, a waterfill line whose given backend is replaced but read by
    per-backend checks before the replacement (see the module docstring)."""
    if waterfill and given not in ("none", *KEPT):
        raise ConfigError(f"--enable-waterfill replaces --moe-a2a-backend {given} with deepep "
                          f"(arg_groups/overrides.py:1599-1607) after the hooks that check "
                          f"{given} (pipeline.py:191-294): not modelled")


__all__ = ["FORCED", "KEPT", "check", "resolved_a2a"]
