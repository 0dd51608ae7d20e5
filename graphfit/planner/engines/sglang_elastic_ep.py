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
  `--elastic-ep-initial-size` is refused otherwise (:577-581).
* Under scale-up (:582-747) SGLang runs about thirty more asserts. Those on flags graphfit
  reads are restated in SGLang's order with its reasons (`check_scale_up`): the attention
  topology, every EP size a whole number of attention replicas (:585-611,
  elastic_ep/topology.py:35-41); attention TP above 1, or a single-rank joiner, needs
  `--moe-dense-tp-size 1` (:612-617, 655-658; read from the line since issue 23 s69c,
  SGLang's default is unset); a joiner's initial size set, not
  above its offset, offset + tp within `--max-ep-size` (:639-654); a primary's initial size
  (default tp) equal to tp (:659-669) and positive (:670); the mooncake elastic backend
  (:677-680), PP 1 (:681-684), a `--dcp-size` dividing attention TP (:685-689), prefill
  graphs not given on (:696-698), decode graphs with speculative decoding (breakable :691-695
  or full :704-706), attention DP (:722-726), the DP LM head (:727-730), attention CP 1
  (:731-734), `--moe-dp-size` 1 (:735-738), ep_size == tp (:739-743) and the nixl a2a
  backend (:744-747), the last two as resolved. The others read flags graphfit does not
  (`--elastic-ep-scale-timeout`, `--tokenizer-worker-num`, `--use-ray`,
  `--enable-elastic-expert-backup` :618-630, `--load-balance-method` :671-676, the decode
  backend full vs breakable :691-695, device / embedding / diffusion / encoder-only / forward
  hooks / PDMux under full graphs :699-721); and at each scale event the decode graphs are
  recaptured with `num_dp_ranks` widened (runner/base_runner.py:167-176, 234: the
  `global_num_tokens` buffers grow), a plan per scale event graphfit does not make: a line
  that passes the restated asserts is refused as not modelled.

Elastic EP changes no buffer graphfit plans before a scale event; runtime rescaling and its
graph recapture are outside the plan.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphfit.planner.core.enums import CUDAGraphMode, SpecMethod
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines import sglang_deepep_class, sglang_dispatch_budget
from graphfit.planner.engines.sglang_eplb_checks import resolved_ep_size
from graphfit.planner.engines.sglang_mlp_gather import resolved_dense_tp
from graphfit.planner.engines.sglang_waterfill import resolved_a2a

ELASTIC_EPLB = ("auto", "elasticity_aware", "elasticity_aware_hierarchical")  # :525-534
HOOK = "arg_groups/parallel_hook.py"


def _refuse(what: str, lines: str) -> ConfigError:
    return ConfigError(f"{what}: SGLang asserts ({HOOK}:{lines})")


def check_elastic(backend: str | None, enable_eplb: bool, eplb_algorithm: str, pp: int,
                  join_mode: str | None, node_rank: int, offset: int,
                  max_ep: int | None, initial: int | None, tp: int) -> bool:
    """`handle_elastic_ep`'s refusals before scale-up (:519-581), in SGLang's order; whether
    scale-up is active (:572-576)."""
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
    return scaling


@dataclass(frozen=True)
class ScaleUp:
    """The sizes and flags scale-up's restated asserts read (`ep` and `a2a` as resolved)."""

    join_mode: str | None
    offset: int
    tp: int
    max_ep: int
    initial: int | None
    backend: str
    pp: int
    attn_dp: int
    dp_lm_head: bool
    attn_cp: int
    moe_dp: int
    ep: int
    a2a: str
    dcp: int = 1  # --dcp-size
    prefill_backend: str | None = None  # --cuda-graph-backend-prefill as given (None: not)
    decode_graphs: bool = True  # decode CUDA graphs on (full or breakable: one mode here)
    speculative: bool = False
    dense_tp: int | None = None  # --moe-dense-tp-size as resolved (None: unset; s69c)


def _replicas(size: int, replica: int) -> None:
    """`physical_ep_size_to_dp_size` (elastic_ep/topology.py:35-41): an EP size is a whole
    number of attention replicas; its ValueError is re-raised as an assertion (:610-611)."""
    if size <= 0 or replica <= 0 or size % replica:
        raise _refuse(f"EP size {size} must be divisible by attention replica size {replica}",
                      "585-611")


def check_topology(s: ScaleUp) -> int:
    """The attention topology's asserts (:585-617); the attention TP width. (A TP size the
    attention DP x CP product does not divide was refused before, SglangModel.resolve.)
    Attention TP above 1 needs `--moe-dense-tp-size 1` (:612-617), read from the line since
    issue 23 s69c."""
    attn_tp = s.tp // (s.attn_dp * s.attn_cp)
    replica = attn_tp * s.attn_cp
    _replicas(s.max_ep, replica)
    _replicas(s.tp if s.initial is None else s.initial, replica)
    if s.join_mode == "scale":
        _replicas(s.offset, replica)
    if attn_tp > 1 and s.dense_tp != 1:
        raise _refuse(f"Elastic EP scale-up with attention TP greater than one requires "
                      f"--moe-dense-tp-size 1 (got moe_dense_tp_size={s.dense_tp}; attention "
                      f"TP {attn_tp})", "612-617")
    return attn_tp


def check_scale_up(s: ScaleUp) -> None:
    """Scale-up's asserts on flags graphfit reads, in SGLang's order (:585-747)."""
    attn_tp = check_topology(s)
    if s.join_mode == "scale":
        if s.initial is None:
            raise _refuse("Elastic EP scale joiners require --elastic-ep-initial-size set to "
                          "the primary deployment's launch-time EP size", "639-643")
        if s.initial > s.offset:
            raise _refuse(f"--elastic-ep-initial-size cannot exceed the current EP size "
                          f"(initial={s.initial}, current={s.offset})", "644-648")
        if s.offset + s.tp > s.max_ep:
            raise _refuse(f"Elastic EP joining group exceeds --max-ep-size (join_target="
                          f"{s.offset + s.tp}, max_ep_size={s.max_ep})", "649-654")
        if s.tp == 1 and s.dense_tp != 1:
            raise _refuse(f"A single-rank Elastic EP joining group requires "
                          f"--moe-dense-tp-size 1 (got {s.dense_tp})", "655-658")
        initial = s.initial
    else:
        initial = s.tp if s.initial is None else s.initial  # :660-665
        if initial != s.tp:
            raise _refuse(f"The primary --elastic-ep-initial-size must equal its launch-time "
                          f"TP size ({s.tp})", "666-669")
    if initial <= 0:
        raise _refuse(f"--elastic-ep-initial-size must be positive, got {initial}", "670")
    for bad, reason, lines in (
            (s.backend != "mooncake", f"Elastic EP runtime scale-up requires "
             f"--elastic-ep-backend mooncake (got {s.backend})", "677-680"),
            (s.pp != 1, f"Elastic EP scale-up requires --pp-size 1 (got {s.pp})", "681-684"),
            (attn_tp % s.dcp != 0, f"Elastic EP scale-up requires --dcp-size to divide the "
             f"fixed attention TP width (got dcp_size={s.dcp}, attn_tp_size={attn_tp})",
             "685-689"),
            (s.prefill_backend not in (None, "disabled"), "Elastic EP runtime scale-up "
             "requires prefill CUDA graph to be disabled", "696-698"),
            (s.decode_graphs and s.speculative, "Elastic EP CUDA graph recapture does not "
             "support speculative decoding (breakable graphs: :691-695)", "704-706"),
            # `attn_dp_enabled_of` (runtime_context.py:191-199): a scale joiner is attention
            # DP at any width; a joiner reaches here with --moe-dense-tp-size 1 (s69c)
            (s.attn_dp <= 1 and s.join_mode != "scale", "Elastic EP scale-up requires "
             "attention DP (--attn-dp-size)", "722-726"),
            (not s.dp_lm_head, "Elastic EP scale-up requires --enable-dp-lm-head", "727-730"),
            (s.attn_cp != 1, f"Elastic EP scale-up requires --attn-cp-size 1 (got "
             f"{s.attn_cp})", "731-734"),
            (s.moe_dp != 1, f"Elastic EP scale-up requires --moe-dp-size 1 (got {s.moe_dp})",
             "735-738"),
            (s.ep != s.tp, f"Elastic EP scale-up requires ep_size == tp_size (got ep_size="
             f"{s.ep}, tp_size={s.tp})", "739-743"),
            (s.a2a != "nixl", f"Elastic EP scale-up requires --moe-a2a-backend nixl (got "
             f"{s.a2a})", "744-747")):
        if bad:
            raise _refuse(reason, lines)


def check(config: EngineSettings) -> None:
    """Elastic EP's start-up checks on one line."""
    backend, max_ep, tp = config.elastic_ep_backend, config.max_ep_size, config.tp_size
    if not check_elastic(backend, config.enable_eplb, config.eplb_algorithm, config.pp_size,
                         config.ep_join_mode, config.node_rank, config.ep_join_rank_offset,
                         max_ep, config.elastic_ep_initial_size, tp):
        return
    if backend is None or max_ep is None:  # check_elastic said scale-up is active (:572-576)
        return
    a2a = resolved_a2a(config.moe_a2a_backend or "none", config.enable_waterfill)
    check_scale_up(ScaleUp(
        config.ep_join_mode, config.ep_join_rank_offset, tp, max_ep,
        config.elastic_ep_initial_size, backend, config.pp_size, config.attn_dp_size,
        config.enable_dp_lm_head, config.attn_cp_size, config.moe_dp_size,
        resolved_ep_size(config.ep_size, tp, a2a), a2a, config.dcp_size,
        config.cuda_graph_backend_prefill, config.cudagraph_mode is not CUDAGraphMode.NONE,
        config.spec_method is not SpecMethod.NONE,
        resolved_dense_tp(config.architecture, config.moe_dense_tp_size)))
    # s54e: a line that passes them still builds its model, whose NixlEP / Mooncake
    # dispatcher raises in auto / normal mode (token_dispatcher/nixl.py:481-482): SGLang's
    # reason, not "not modelled"
    sglang_dispatch_budget.check_target(config)  # s55e: its low-latency half's assert first
    said = sglang_deepep_class.mooncake_problem(config.architecture, a2a, config.deepep_mode)
    if said:
        raise ConfigError(said)
    raise ConfigError(f"elastic EP scale-up (--max-ep-size {max_ep} > --tp-size {tp}): "
                      f"unread flags' asserts ({HOOK}:618-630, 671-676, 690-721), graphs "
                      f"recaptured per scale event: not modelled")


__all__ = ["ELASTIC_EPLB", "ScaleUp", "check", "check_elastic", "check_scale_up",
           "check_topology"]
