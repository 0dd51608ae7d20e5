"""The NixlEP and Mooncake EP dispatchers' per-rank token budget assert in SGLang 0.5.23
(issue 23, s55e): `num_max_dispatch_tokens_per_rank <= 1024`.

Why a rule of its own: the budget is an environment variable, not a flag, and the assert is
raised at model build, inside the MoE layer's dispatcher, after every start-up check graphfit
restates; no start-up hook bounds it (unlike pplx's or MoRI's, graphfit.planner.engines.
sglang_moe_a2a). Paths under sglang/srt/:

* Every FusedMoE layer makes its a2a dispatcher before DeepEPMoE's body
  (layers/moe/fused_moe_triton/layer.py:595, 190-213; batch_overlap/two_batch_overlap.py:
  1159-1178): `MooncakeEPDispatcher` / `NixlEPDispatcher`.
* In a mode that enables low latency (auto or low_latency, layers/moe/utils.py:275-276) that
  dispatcher first makes its low-latency half (token_dispatcher/mooncake.py:331-342,
  nixl.py:476-480), whose constructor reads the budget and asserts it <= 1024, bare
  (no message): Mooncake `get_int_env_var("SGLANG_MOONCAKE_EP_NUM_MAX_DISPATCH_TOKENS_PER_RANK",
  128)` (mooncake.py:156-162; blank or unparsable -> 128, utils/common.py:1444-1452), NixlEP
  `envs.SGLANG_NIXL_EP_NUM_MAX_DISPATCH_TOKENS_PER_RANK` (EnvInt, 128, environ.py:1452;
  nixl.py:228-233). The comment there: the internode low-latency dispatch counts with
  FINISHED_SUM_TAG=1024.
* Only then does auto / normal mode raise NotImplementedError (mooncake.py:343-344,
  nixl.py:481-482; graphfit.planner.engines.sglang_deepep_class.NO_NORMAL_MODE): so with a
  budget over 1024 an auto line gets the AssertionError, a normal line (no low-latency half)
  the NotImplementedError.
* A MoE draft under `--speculative-moe-a2a-backend mooncake / nixl` makes the same
  dispatcher with the same variable (graphfit.planner.engines.sglang_draft_dispatch decides
  which drafts build one; this module's `draft_problem` is checked there first).

The budget's other use (the dispatch buffer's size, mooncake.py:92-115, nixl.py:120-157) is
made on the first dispatch, not at capture, and is not planned.
"""

from __future__ import annotations

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines import sglang_moe_a2a
from graphfit.planner.engines.sglang_deepep_class import LOW_LATENCY_MODES, NO_DISPATCHER

LIMIT = 1024  # mooncake.py:162, nixl.py:233
# backend -> (the variable, where it is read and asserted)
BUDGETS: dict[str, tuple[str, str]] = {
    "mooncake": ("SGLANG_MOONCAKE_EP_NUM_MAX_DISPATCH_TOKENS_PER_RANK",
                 "token_dispatcher/mooncake.py:156-162"),
    "nixl": ("SGLANG_NIXL_EP_NUM_MAX_DISPATCH_TOKENS_PER_RANK",
             "token_dispatcher/nixl.py:228-233"),  # EnvInt, environ.py:1452
}


def budget(config: EngineSettings, a2a: str) -> int:
    """The budget the `a2a` backend's dispatcher reads (128 unless the environment set it)."""
    if a2a == "mooncake":
        return config.mooncake_dispatch_tokens_per_rank
    return config.nixl_dispatch_tokens_per_rank


def problem(a2a: str, mode: str, tokens: int, built: str) -> str | None:
    """The assert's reason for a dispatcher of backend `a2a` under --deepep-mode `mode` (the
    low-latency half is made in auto / low_latency only) with budget `tokens`, made in
    `built` (what the message names: one error line within the CLI's 200 characters), or
    None."""
    found = BUDGETS.get(a2a)
    if found is None or mode not in LOW_LATENCY_MODES or tokens <= LIMIT:
        return None
    name, site = found
    return f"{name}={tokens} > {LIMIT}: AssertionError in {built} {a2a} dispatcher ({site})"


def target_problem(config: EngineSettings) -> str | None:
    """The assert for the target model's MoE layers (the backend after Waterfill), or None:
    no architecture read (graphfit cannot tell SGLang builds a MoE layer) or a class whose
    experts make no dispatcher."""
    arch = config.architecture
    if arch is None or arch in NO_DISPATCHER:
        return None
    a2a = sglang_moe_a2a.runtime_backend(config)  # dense: none (s68m)
    if a2a not in BUDGETS:
        return None
    return problem(a2a, config.deepep_mode, budget(config, a2a), f"{arch}'s MoE")


def check_target(config: EngineSettings) -> None:
    """Raise `target_problem`'s reason."""
    said = target_problem(config)
    if said:
        raise ConfigError(said)


__all__ = ["BUDGETS", "LIMIT", "budget", "check_target", "problem", "target_problem"]
