"""Elastic EP's start-up checks in SGLang 0.5.23 (`handle_elastic_ep`,
arg_groups/parallel_hook.py:519-745), restated up to where runtime scale-up starts, so
graphfit refuses the elastic-EP lines SGLang stops on.

* With an elastic EP backend (`--elastic-ep-backend`; "none" is a choice SGLang treats as
  set, only None is off): EPLB needs `--eplb-algorithm` auto (made elasticity_aware) or
  elasticity_aware(_hierarchical) (:523-537), and PP must be off (:538).
* `--elastic-ep-join-mode` needs a backend (:546-549); `scale` joins as one TP group at
  `--node-rank 1` (:550-554) with `--elastic-ep-join-rank-offset` > 0 (:555-559).
* A non-zero join rank offset is only for `scale` (:560-565); `--max-ep-size` needs a
  backend and a positive value (:566-570).
* Scale-up is active with a backend and `--max-ep-size` above `--tp-size` (:572-576);
  `--elastic-ep-initial-size` is refused otherwise (:577-581). Under scale-up SGLang runs
  about thirty more checks (attention DP, the DP LM head, the nixl a2a backend, the graph
  backends, the load-balance method, ...: :582-745) on flags graphfit does not all read:
  such a line is refused as not modelled.

Elastic EP changes no buffer graphfit plans before a scale event; runtime rescaling and its
graph recapture are outside the plan.
"""

from __future__ import annotations

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings

ELASTIC_EPLB = ("auto", "elasticity_aware", "elasticity_aware_hierarchical")  # :525-534
HOOK = "arg_groups/parallel_hook.py"


def _refuse(what: str, lines: str) -> ConfigError:
    return ConfigError(f"{what}: SGLang asserts ({HOOK}:{lines})")


def check_elastic(backend: str | None, enable_eplb: bool, eplb_algorithm: str, pp: int,
                  join_mode: str | None, node_rank: int, offset: int,
                  max_ep: int | None, initial: int | None, tp: int) -> None:
    """`handle_elastic_ep`'s refusals before scale-up (:519-581), in SGLang's order."""
    if backend is not None:
        if enable_eplb and eplb_algorithm not in ELASTIC_EPLB:
            raise _refuse(f"elastic EP with --enable-eplb needs --eplb-algorithm auto or "
                          f"elasticity_aware(_hierarchical), got {eplb_algorithm}", "523-537")
        if pp != 1:
            raise _refuse(f"elastic EP needs --pp-size 1, got {pp}", "538")
    if join_mode is not None:
        if backend is None:
            raise _refuse("--elastic-ep-join-mode needs --elastic-ep-backend", "546-549")
        if join_mode == "scale" and node_rank != 1:
            raise _refuse(f"--elastic-ep-join-mode scale joins at --node-rank 1, got "
                          f"{node_rank}", "550-554")
        if join_mode == "scale" and offset <= 0:
            raise _refuse(f"--elastic-ep-join-mode scale needs --elastic-ep-join-rank-offset "
                          f"> 0 (the current EP size), got {offset}", "555-559")
    if offset != 0 and join_mode != "scale":
        raise _refuse("--elastic-ep-join-rank-offset is only valid with "
                      "--elastic-ep-join-mode scale", "560-564")
    if max_ep is not None:
        if backend is None:
            raise _refuse("--max-ep-size needs --elastic-ep-backend", "566-569")
        if max_ep <= 0:
            raise _refuse(f"--max-ep-size must be positive, got {max_ep}", "570")
    scaling = backend is not None and max_ep is not None and max_ep > tp
    if initial is not None and not scaling:
        raise _refuse("--elastic-ep-initial-size is only valid with --elastic-ep-backend and "
                      "a --max-ep-size above --tp-size", "577-581")
    if scaling:
        raise ConfigError(f"elastic EP scale-up (--max-ep-size {max_ep} > --tp-size {tp}) "
                          f"runs SGLang's further start-up checks ({HOOK}:582-745): "
                          f"not modelled")


def check(config: EngineSettings) -> None:
    """Elastic EP's start-up checks on one line."""
    check_elastic(config.elastic_ep_backend, config.enable_eplb, config.eplb_algorithm,
                  config.pp_size, config.ep_join_mode, config.node_rank,
                  config.ep_join_rank_offset, config.max_ep_size,
                  config.elastic_ep_initial_size, config.tp_size)


__all__ = ["ELASTIC_EPLB", "check", "check_elastic"]
