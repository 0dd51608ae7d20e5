"""graphfit's public API vs vLLM's own code (`vllm_oracle`), one `Case` at a time, for the
release this process imports (`vllm_oracle.VERSION`; graphfit is asked for the same
`engine_version`).

`compare(case)` returns, per aspect, the list of differences (empty: agreement; None: the
aspect does not apply to this case, e.g. no drafter, or both sides rejected the config).
Each `Diff` says which batch differs, both answers, how many batches differ, and whether
graphfit's capacity ends up smaller than what vLLM pads to or writes (`unsafe`).

graphfit is driven only through its public API: `graphfit.EngineConfig` (with the case's
inputs under the field names in `INPUT_FIELDS`), `graphfit.plan`, `Plan.cudagraph_mode`,
`Plan.config_capture_sizes`, `Plan.capture_sizes`, `Plan.pad(...)`, `Plan.buffer(...)`
(`capacity`, `engine_rows`, `reference_capacity`, `shape`), `Plan.assumed` / `Plan.covered`
and `graphfit.ConfigError`.

Two sizes are compared per drafter stream: graphfit's `capacity` with the most rows a batch
vLLM's runtime dispatches needs (tight both ways), and its `engine_rows` with the most rows
vLLM's own code writes or slices, capture and profiling runs included (tight both ways).
`unknown_support` plans the same config WITHOUT telling graphfit the attention support
level and checks that its scenarios include vLLM's and its sizes cover vLLM's peaks.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from typing import Any

import graphfit
from tests.oracle import vllm_oracle as vo
from tests.oracle.vllm_oracle import Case, Key

ASPECTS = (
    "errors", "config_ladder", "v1_ladder", "v1_target_mixed", "v1_target_uniform",
    "v1_drafter", "v1_capacity", "v1_drafter_buffers", "v1_block_table", "v2_ladder",
    "v2_target_mixed", "v2_target_uniform", "v2_drafter", "v2_capacity", "v2_drafter_buffers",
    "unknown_support",
)

# graphfit's model of the release this process imports; GRAPHFIT_ORACLE_MODEL names another
# release's model (a maintainer measures a new vLLM release with its predecessor's model:
# tests/oracle/add_vllm_release.py)
MODEL_RELEASE = os.environ.get("GRAPHFIT_ORACLE_MODEL") or vo.VERSION

# Case attribute -> the EngineConfig field graphfit reads it from (these were the inputs
# graphfit lacked before issue 9; `value` turns the case's value into graphfit's)
INPUT_FIELDS: dict[str, str] = {
    "support": "attention_cudagraph_support",
    "draft_support": "drafter_attention_cudagraph_support",
    "dspark_fill_in": "dspark_sample_from_anchor",
}


@dataclass
class Diff:
    aspect: str
    what: str  # the first differing input, e.g. "n=133" or "r=33" or "sizes"
    vllm: Any
    graphfit: Any
    count: int = 1  # how many inputs of this aspect differ
    unsafe: bool = False  # graphfit's rows < what vLLM pads to or writes

    def describe(self) -> str:
        flag = " UNSAFE" if self.unsafe else ""
        return (f"{self.aspect}{flag}: {self.what}: vLLM {self.vllm} / graphfit "
                f"{self.graphfit} ({self.count} differ)")


def graphfit_kwargs(case: Case, runner: str, *, levels: bool = True) -> dict[str, Any]:
    """EngineConfig fields for `case` on `runner`; `levels=False` leaves the attention
    support levels unknown to graphfit."""
    kw: dict[str, Any] = dict(
        max_num_seqs=case.S, max_num_batched_tokens=case.T, max_model_len=case.max_model_len,
        num_speculative_tokens=case.k, spec_method=case.method or "none",
        cudagraph_mode="NONE" if case.enforce_eager else case.mode,  # graphfit: --enforce-eager
        runner=runner, performance_mode=case.performance_mode, hidden_size=8,
        ceiling_family="blackwell" if case.blackwell else "default",
        engine_version=MODEL_RELEASE)
    if case.sizes is not None:
        kw["cudagraph_capture_sizes"] = case.sizes
    if case.max_size is not None:
        kw["max_cudagraph_capture_size"] = case.max_size
    kw.update(dict(case.split))
    if case.aux_layers != 1:
        kw["draft_aux_layers"] = case.aux_layers
    if levels:
        kw[INPUT_FIELDS["support"]] = case.support
        kw[INPUT_FIELDS["draft_support"]] = case.draft_support or case.support
    if case.method == "dspark":
        kw[INPUT_FIELDS["dspark_fill_in"]] = not case.dspark_fill_in
    return kw


@functools.lru_cache(maxsize=1024)
def graphfit_plan(case: Case, runner: str, levels: bool = True) -> graphfit.Plan | str:
    """graphfit's plan, or the error it raised (ConfigError: "ConfigError: ...")."""
    try:
        return graphfit.plan(graphfit.EngineConfig(**graphfit_kwargs(case, runner,
                                                                     levels=levels)))
    except graphfit.ConfigError as exc:
        return f"ConfigError: {exc}"
    except TypeError as exc:
        return f"cannot express: {exc}"


def _cannot_express(g_err: str | None) -> bool:
    """graphfit refused an input it has no value for: never an agreement, even where vLLM
    rejects the config for its own reason."""
    return g_err is not None and (g_err.startswith("cannot express")
                                  or ("spec_method:" in g_err and "is not one of" in g_err))


def _gf_key(d: graphfit.Dispatch) -> Key:
    mode = d.mode.value
    return (mode, d.padded, None if mode == "NONE" else d.num_reqs)


def _gf_pad(plan: graphfit.Plan, n: int, **kw: Any) -> Key | str:
    try:
        return _gf_key(plan.pad(n, **kw))
    except graphfit.GraphfitError as exc:
        return f"{type(exc).__name__}: {exc}"


def _table_diff(aspect: str, label: str, xs: list[int], theirs: list[Any],
                ours: list[Any]) -> list[Diff]:
    bad = [i for i, (a, b) in enumerate(zip(theirs, ours)) if a != b]
    if not bad:
        return []
    i = bad[0]
    return [Diff(aspect, f"{label}={xs[i]}", theirs[i], ours[i], len(bad))]


def _buffer(plan: graphfit.Plan, key: str) -> graphfit.BufferPlan | None:
    try:
        return plan.buffer(key)
    except graphfit.ConfigError:
        return None


def _padded(key: Key | None) -> int:
    return key[1] if key is not None else 0


def _decode_requests(case: Case, cfg: vo.ConfigResult, width: int) -> int:
    """Requests a step can hold: min(S, the active-sequence cap, T // width)."""
    return min(case.S, cfg.max_num_active_seqs or case.S, case.T // width)


@dataclass
class Stream:
    """A stream of batches vLLM pads, and the graphfit buffer that must hold it."""

    label: str
    buffer: str
    runtime: int  # the most rows vLLM's runtime dispatch needs
    engine: int  # the most rows vLLM's own code writes (capture, profiling, fills included)
    tight: bool  # graphfit's capacity must equal `runtime` (a drafter's own stream)


def _breaks(run: vo.RunnerResult, plan: graphfit.Plan) -> set[int]:
    """Every token count where either side's dispatch can change: capture sizes, MRV2 decode
    candidates, graphfit's table sizes."""
    out = set(run.sizes)
    for manager in (run.target, run.drafter):
        for descs in (getattr(manager, "_capture_descs", None) or {}).values():
            out.update(d.num_tokens for d in descs)
    for comp in plan.components.values():
        out.update(comp.tables.sizes)
    return out


def _points(limit: int, breaks: set[int] | None, width: int = 1) -> list[int]:
    """1..limit, or (`breaks` given) only the units at and next to every break: both
    dispatchers are step functions that change only there, so comparing at these points
    compares every batch."""
    if breaks is None:
        return list(range(1, limit + 1))
    out = {1, limit}
    for b in breaks:
        for a in (b // width, -(-b // width)):
            out.update((a - 1, a, a + 1))
    return sorted(a for a in out if 1 <= a <= limit)


def compare(case: Case, exhaustive: bool = True) -> dict[str, list[Diff] | None]:
    """Per aspect: [] agreement, [Diff...] differences, None not applicable.

    `exhaustive=False` dispatches only the batches at and next to every size where either
    side's dispatch can change (equivalent, and much faster on large ladders).
    """
    out: dict[str, list[Diff] | None] = dict.fromkeys(ASPECTS)
    cfg = vo.config_ladder(case)
    runs = {r: vo.runner(case, r) for r in ("v1", "v2")}
    plans = {r: graphfit_plan(case, r) for r in ("v1", "v2")}

    errs: list[Diff] = []
    for r in ("v1", "v2"):
        v_err = runs[r].error
        g_err = plans[r] if isinstance(plans[r], str) else None
        if (v_err is None) != (g_err is None) or _cannot_express(g_err):
            errs.append(Diff("errors", f"runner {r}", v_err or "accepted", g_err or "accepted"))
    out["errors"] = errs

    # the config's sizes do not depend on the runner: the first runner graphfit accepts
    # (0.34 has no V1 runner)
    accepted = [p for p in (plans["v1"], plans["v2"]) if not isinstance(p, str)]
    if cfg.error is None and accepted:
        sizes = accepted[0].config_capture_sizes
        out["config_ladder"] = (
            [] if cfg.sizes == sizes else [Diff("config_ladder", "sizes", cfg.sizes, sizes)])

    streams: dict[str, list[Stream]] = {}
    for r in ("v1", "v2"):
        run, plan = runs[r], plans[r]
        if run.error is not None or isinstance(plan, str):
            continue
        streams[r] = _compare_runner(case, cfg, run, plan, out, exhaustive)
    out["unknown_support"] = _unknown_support(case, runs, streams)
    return out


def _compare_runner(case: Case, cfg: vo.ConfigResult, run: vo.RunnerResult,
                    plan: graphfit.Plan, out: dict[str, list[Diff] | None],
                    exhaustive: bool = True) -> list[Stream]:
    r = run.runner
    ladder: list[Diff] = []
    if run.sizes != plan.capture_sizes:
        ladder.append(Diff(f"{r}_ladder", "sizes", run.sizes, plan.capture_sizes))
    if run.mode != plan.cudagraph_mode.value:
        ladder.append(Diff(f"{r}_ladder", "resolved mode", run.mode, plan.cudagraph_mode.value))
    out[f"{r}_ladder"] = ladder
    if r == "v1":  # columns: cdiv(max_model_len, block_size) aligned to 128 tokens
        width = vo.block_table_width(case.max_model_len, plan.config.block_size)
        g_width = plan.buffer("target.block_table").shape[-1]
        out["v1_block_table"] = [] if width == g_width else [
            Diff("v1_block_table", "target.block_table columns", width, g_width)]

    breaks = None if exhaustive else _breaks(run, plan)
    hi = min(case.T, max(run.max_size, plan.max_capture_size) + 2)
    ns = sorted(set(_points(hi, breaks)) | {case.T})
    v_mixed = [run.target_mixed(n) for n in ns]
    g_mixed = [_gf_pad(plan, n) for n in ns]
    out[f"{r}_target_mixed"] = _table_diff(f"{r}_target_mixed", "n", ns, v_mixed, g_mixed)

    R = _decode_requests(case, cfg, case.q)
    rs = _points(R, breaks, case.q)
    v_uni = [run.target_uniform(x) for x in rs]
    g_uni = [_gf_pad(plan, x * case.q, uniform_decode=True, num_reqs=x) for x in rs]
    out[f"{r}_target_uniform"] = _table_diff(f"{r}_target_uniform", "r", rs, v_uni, g_uni)

    tokens = max(map(_padded, v_mixed + v_uni), default=0)
    requests = max((k[2] or 0 for k in v_mixed + v_uni), default=0)
    streams = [Stream("target tokens", "target.input_ids", tokens, tokens, False),
               Stream("target request rows", "target.seq_lens", requests, requests, False)]
    if r == "v1" and run.drafter is not None:
        streams.append(_v1_drafter(case, cfg, run, plan, ns, breaks, out))
    if r == "v2" and run.drafter is not None:
        streams.append(_v2_drafter(case, cfg, run, plan, ns, rs, breaks, out))
    if run.drafter_buffers is not None:
        out[f"{r}_drafter_buffers"] = _drafter_buffers(r, run.drafter_buffers, plan)

    cap: list[Diff] = []
    for s in streams:
        buf = _buffer(plan, s.buffer)
        if buf is None:
            cap.append(Diff(f"{r}_capacity", f"{s.label} -> {s.buffer}", s.runtime, None, 1,
                            True))
            continue
        if buf.capacity < s.runtime or buf.engine_rows < s.engine:
            cap.append(Diff(f"{r}_capacity", f"{s.label} -> {s.buffer}",
                            (s.runtime, s.engine), (buf.capacity, buf.engine_rows), 1, True))
        elif s.tight and (buf.capacity, buf.engine_rows) != (s.runtime, s.engine):
            cap.append(Diff(f"{r}_capacity", f"{s.label} -> {s.buffer} (graphfit larger)",
                            (s.runtime, s.engine), (buf.capacity, buf.engine_rows)))
    out[f"{r}_capacity"] = cap
    for aspect in (f"{r}_target_mixed", f"{r}_target_uniform", f"{r}_drafter"):
        for d in out.get(aspect) or []:
            d.unsafe = any(c.unsafe for c in cap)
    return streams


def _v1_drafter(case: Case, cfg: vo.ConfigResult, run: vo.RunnerResult, plan: graphfit.Plan,
                ns: list[int], breaks: set[int] | None,
                out: dict[str, list[Diff] | None]) -> Stream:
    v_dr = [run.drafter_tokens(n) for n in ns]
    g_dr = [_gf_pad(plan, n, component="drafter") for n in ns]
    out["v1_drafter"] = _table_diff("v1_drafter", "n", ns, v_dr, g_dr)
    if case.method != "dflash":
        peak = max(map(_padded, v_dr), default=0)
        buffer = ("drafter.slot_mapping_buffer" if case.method == "extract_hidden_states"
                  else "drafter.input_ids")  # ExtractHiddenStatesProposer has no input ids
        return Stream("drafter tokens", buffer, peak, peak, True)
    # DFlash: r requests x q query tokens, r <= min(S, T // q); what only vLLM's code runs:
    # DFlashProposer.dummy_run drafts min(n, S*q) tokens for every size the target captures,
    # padded when the target captures it PIECEWISE (gpu_model_runner.py:5800-5838), and the
    # memory-profiling run of T tokens, forced eager (:5558-5566, 6132)
    S, q = case.S, case.q
    R = _decode_requests(case, cfg, q)
    runtime = max((_padded(run.drafter_tokens(x * q)) for x in _points(R, breaks, q)),
                  default=0)
    engine = max(runtime, min(case.T, S * q))
    for mode, descs in run.target.get_capture_descs():
        for desc in descs:
            n = min(desc.num_tokens, S * q)
            engine = max(engine, _padded(run.drafter_tokens(n))
                         if mode.name == "PIECEWISE" else n)
    return Stream("DFlash query", "drafter.positions", runtime, engine, True)


def _v2_drafter(case: Case, cfg: vo.ConfigResult, run: vo.RunnerResult, plan: graphfit.Plan,
                ns: list[int], rs: list[int], breaks: set[int] | None,
                out: dict[str, list[Diff] | None]) -> Stream:
    if run.drafter_width:  # DFlash / DSpark query pass
        w = run.drafter_width
        R = _decode_requests(case, cfg, w)
        xs = _points(R, breaks, w)
        v_q = [run.drafter_query(x) for x in xs]
        g_q = [_gf_pad(plan, x * w, uniform_decode=True, num_reqs=x, component="drafter")
               for x in xs]
        out["v2_drafter"] = _table_diff("v2_drafter", "r", xs, v_q, g_q)
        # capture replays each FULL candidate once (cudagraph_utils.py:274-383); the prepare
        # kernel fills rows [num_reqs * w, max_num_tokens) of the speculator's InputBuffers on
        # every call (dflash/speculator.py:829-838)
        captured = [d.num_tokens for d in run.drafter._capture_descs.get(
            vo.vllm().CUDAGraphMode.FULL, [])]
        runtime = max([*map(_padded, v_q), *captured], default=0)
        filled = (run.drafter_buffers or {}).get("input_buffers.positions", (0,))[0]
        return Stream("DFlash query", "drafter.positions", runtime, max(runtime, filled), True)
    # EAGLE / MTP draft prefill: the target's (padded) batch through the prefill manager
    e = run.drafter_expansion  # tokens the drafter adds per request (0.34 draft_model: 1)
    v_dr = [run.drafter_prefill(min(n, case.S), n, False) for n in ns]
    v_dr += [run.drafter_prefill(x, x * case.q, True) for x in rs]
    g_dr = [_gf_pad(plan, n + e * min(n, case.S), component="drafter") for n in ns]
    g_dr += [_gf_pad(plan, x * (case.q + e), uniform_decode=True, num_reqs=x,
                     component="drafter") for x in rs]
    out["v2_drafter"] = _table_diff("v2_drafter", "n|r", ns + rs, v_dr, g_dr)
    peak = max(map(_padded, v_dr), default=0)
    return Stream("drafter tokens", "drafter.input_ids", peak, peak, True)


# vLLM drafter tensor -> graphfit drafter buffer (its reference_capacity must be the tensor's
# rows); None: not a persistent batch buffer (host-side, or a 0-d step counter)
_BUFFER_NAMES: dict[str, str | None] = {
    "_slot_mapping_buffer": "slot_mapping_buffer",
    "_context_positions_buffer": "context_positions",
    "_context_slot_mapping_buffer": "context_slot_mapping",
    "_aux_staging": "aux_staging", "_anchor_idx": "anchor_idx", "_step_cols": "step_cols",
    "draft_is_prefilling": None,  # a host tensor (no device): speculator.py:168
}


def _drafter_buffers(runner: str, shapes: dict[str, tuple[int, ...]],
                     plan: graphfit.Plan) -> list[Diff]:
    """Every tensor the real drafter allocates is a graphfit buffer of the same rows, and
    every graphfit drafter buffer is one of them."""
    aspect = f"{runner}_drafter_buffers"
    diffs: list[Diff] = []
    comp = plan.components.get("drafter")
    ours = {b.name: b for b in comp.buffers} if comp is not None else {}
    seen: set[str] = set()
    for attr, shape in sorted(shapes.items()):
        name = _BUFFER_NAMES.get(attr, attr.removeprefix("input_buffers."))
        if name is None:
            continue
        seen.add(name)
        buf = ours.get(name)
        if buf is None:
            diffs.append(Diff(aspect, f"vLLM tensor {attr}", shape, "no such buffer"))
            continue
        rows = shape[buf.axis_dim] if buf.axis.value != "fixed" else shape[0]
        if rows != buf.reference_capacity:
            diffs.append(Diff(aspect, f"drafter.{name} reference_capacity", rows,
                              buf.reference_capacity))
        if name == "aux_staging" and tuple(shape[1:]) != tuple(buf.shape[1:]):
            # its width is len(aux_layers) x hidden (dflash/speculator.py:100-106)
            diffs.append(Diff(aspect, "drafter.aux_staging width", shape[1:], buf.shape[1:]))
    for name in sorted(set(ours) - seen - _ALLOCATED_LATER):
        diffs.append(Diff(aspect, f"drafter.{name}", "no such tensor", ours[name].shape))
    return diffs


# allocated by `set_attn` once the KV-cache config exists (not run on CPU):
# dflash/speculator.py:282-287, standalone_ar/speculator.py:94-98
_ALLOCATED_LATER = frozenset({"context_slot_mapping", "expanded_slot_mappings"})


def _unknown_support(case: Case, runs: dict[str, vo.RunnerResult],
                     streams: dict[str, list[Stream]]) -> list[Diff] | None:
    """graphfit WITHOUT the support levels: vLLM's resolved mode and sizes are one of its
    scenarios, and its capacities and engine rows hold what vLLM pads to and writes."""
    diffs: list[Diff] = []
    for r, found in streams.items():
        plan = graphfit_plan(case, r, False)
        if isinstance(plan, str):
            diffs.append(Diff("unknown_support", f"runner {r}", "accepted", plan))
            continue
        run = runs[r]
        scenarios = {(s.mode.value, s.sizes)
                     for s in (plan.assumed, *plan.covered) if s is not None}
        if (run.mode, run.sizes) not in scenarios:
            diffs.append(Diff("unknown_support", f"runner {r} scenarios",
                              (run.mode, run.sizes), sorted(scenarios)))
        for s in found:
            buf = _buffer(plan, s.buffer)
            if buf is None or buf.capacity < s.runtime or buf.engine_rows < s.engine:
                got = None if buf is None else (buf.capacity, buf.engine_rows)
                diffs.append(Diff("unknown_support", f"runner {r}: {s.label} -> {s.buffer}",
                                  (s.runtime, s.engine), got, 1, True))
    return diffs if streams else None


@functools.lru_cache(maxsize=512)
def _compared(case: Case, exhaustive: bool) -> dict[str, list[Diff] | None]:
    return compare(case, exhaustive)


def failures(case: Case, aspects: tuple[str, ...] = ASPECTS, *,
             exhaustive: bool = True) -> list[str]:
    """One line per differing aspect (for assertion messages); cached per case, so the
    edge grid's per-aspect tests compare each case once."""
    res = _compared(case, exhaustive)
    return [d.describe() for a in aspects for d in (res.get(a) or [])]
