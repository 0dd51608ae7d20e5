"""A NixlEP / Mooncake token budget of 0 or below in SGLang 0.5.23 (issue 23, s60k).

SGLang reads SGLANG_NIXL_EP_NUM_MAX_DISPATCH_TOKENS_PER_RANK /
SGLANG_MOONCAKE_EP_NUM_MAX_DISPATCH_TOKENS_PER_RANK only where a MoE layer makes that
dispatcher's low-latency half (graphfit.planner.engines.sglang_dispatch_budget): a line that
makes none (a dense model, another backend) never reads it, whatever its value. The model
build asserts only `<= 1024`, so 0 and negative budgets build. Paths under sglang/srt/:

* The low-latency half makes the process-wide buffer on its first dispatch
  (`dispatch_a` -> `_get_buffer`, token_dispatcher/mooncake.py:175, 294-302, nixl.py:300,
  431-439; nothing else makes it), at the first MoE forward: the decode graphs' capture,
  else the first batch. Only in low_latency mode: auto and normal raise at model build
  (sglang_deepep_class.NO_NORMAL_MODE).
* The buffer's maker asserts the budget `!= -1` (mooncake.py:111-112, nixl.py:152-153), so
  -1 fails there, bare AssertionError: graphfit refuses it.
* Any other value (0, below -1) goes to the installed package's size hint
  (`Buffer.get_ep_buffer_size_hint`, mooncake.py:113-118; `Buffer.get_rdma_size_hint`,
  nixl.py:154-160), code outside SGLang: graphfit says not modelled.

The target's dispatcher dispatches first (its forward comes before the draft's); a MoE draft
under `--speculative-moe-a2a-backend` (sglang_draft_dispatch) makes the same buffer. Checked
after every model-build rule, since the buffer is made after the build. Where no architecture
was read graphfit cannot tell SGLang builds a MoE layer, so such a line with a budget of 0 or
below in low_latency mode is not modelled.
"""

from __future__ import annotations

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines import (
    sglang_dispatch_budget,
    sglang_draft_dispatch,
    sglang_moe_a2a,
    sglang_mori_ep,
)
from graphfit.planner.engines.sglang_deepep_class import NO_DISPATCHER

NOT_MODELLED = "not modelled"
# backend -> (the `!= -1` assert, the package's size hint)
SITES: dict[str, tuple[str, str]] = {
    "mooncake": ("token_dispatcher/mooncake.py:111-112", "mooncake.py:113-118"),
    "nixl": ("token_dispatcher/nixl.py:152-153", "nixl.py:154-160"),
}


def _dispatchers(config: EngineSettings) -> list[tuple[str, str]]:
    """(backend, what makes it) of each low-latency NixlEP / Mooncake dispatcher the line
    makes, the target's first; the target's as "the model" where no architecture was read."""
    if sglang_mori_ep.deepep_mode(config) != "low_latency":  # a mori target's (s70j)
        return []
    out: list[tuple[str, str]] = []
    arch = config.architecture
    a2a = sglang_moe_a2a.runtime_backend(config)  # dense: none (s68m)
    if a2a in SITES and arch not in NO_DISPATCHER:
        out.append((a2a, f"{arch}'s MoE" if arch else ""))
    draft = sglang_draft_dispatch.draft_builds(config)
    backend = config.speculative_moe_a2a_backend or ""
    if draft is not None and backend in SITES:
        out.append((backend, f"the draft {draft}'s MoE"))
    return out


def problem(config: EngineSettings) -> str | None:
    """The first dispatch's answer for a budget of 0 or below (module docstring), or None."""
    for a2a, built in _dispatchers(config):
        tokens = sglang_dispatch_budget.budget(config, a2a)
        if tokens > 0:
            continue
        name = sglang_dispatch_budget.BUDGETS[a2a][0]
        asserted, hint = SITES[a2a]
        if not built:
            return (f"{name}={tokens}: {NOT_MODELLED} without the model's architecture "
                    f"(whether SGLang builds a MoE layer whose {a2a} dispatcher reads it)")
        whose = "the draft's" if built.startswith("the draft") else "the"
        if tokens == -1:  # one CLI error line (<= 200 characters)
            return (f"{name}=-1: AssertionError making {whose} {a2a} buffer at the first "
                    f"dispatch ({asserted})")
        return (f"{name}={tokens}: {NOT_MODELLED}: {whose} {a2a} buffer is sized by the "
                f"installed package ({hint})")
    return None


def check(config: EngineSettings) -> None:
    """Raise `problem`'s reason."""
    said = problem(config)
    if said:
        raise ConfigError(said)


__all__ = ["SITES", "check", "problem"]
