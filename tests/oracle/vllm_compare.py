"""graphfit's public API vs vLLM 0.33's own code (`vllm_oracle`), one `Case` at a time.

`compare(case)` returns, per aspect, the list of differences (empty: agreement; None: the
aspect does not apply to this case, e.g. no drafter, or one side rejected the config). Each
`Diff` says which batch differs, both answers, how many batches differ, and whether
graphfit's capacity ends up smaller than what vLLM pads to (`unsafe`).

graphfit is driven only through its public API: `graphfit.EngineConfig`, `graphfit.plan`,
`Plan.config_capture_sizes`, `Plan.capture_sizes`, `Plan.pad(...)`, `Plan.buffer(...)` and
`graphfit.ConfigError`. Inputs graphfit has no field for yet are passed under the names in
`PROPOSED_FIELDS`, and only when the case departs from what graphfit implicitly assumes (so
today those cases fail with a TypeError, reported as "graphfit cannot express this input").
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import graphfit
from tests.oracle import vllm_oracle as vo
from tests.oracle.vllm_oracle import Case, Key

ASPECTS = (
    "errors", "config_ladder", "v1_ladder", "v1_target_mixed", "v1_target_uniform",
    "v1_drafter", "v1_capacity", "dflash_v1_buffers", "v1_block_table", "v2_ladder",
    "v2_target_mixed", "v2_target_uniform", "v2_dflash_drafter", "v2_capacity",
)

# EngineConfig fields graphfit would need; the value graphfit implicitly assumes today.
PROPOSED_FIELDS: dict[str, tuple[str, Any]] = {
    # AttentionCGSupport of the target's attention backends (vLLM: min over KV-cache groups)
    "support": ("attention_cudagraph_support", "ALWAYS"),
    # the DFlash draft attention's own level (V2 DFlashSpeculator.init_cudagraph_manager)
    "draft_support": ("drafter_attention_cudagraph_support", None),
    # DSpark drafts whose hf_config has sample_from_anchor=False reserve q lookahead slots
    "dspark_fill_in": ("dspark_fill_in", False),
}


@dataclass
class Diff:
    aspect: str
    what: str  # the first differing input, e.g. "n=133" or "r=33" or "sizes"
    vllm: Any
    graphfit: Any
    count: int = 1  # how many inputs of this aspect differ
    unsafe: bool = False  # graphfit's capacity < what vLLM pads to

    def describe(self) -> str:
        flag = " UNSAFE" if self.unsafe else ""
        return (f"{self.aspect}{flag}: {self.what}: vLLM {self.vllm} / graphfit "
                f"{self.graphfit} ({self.count} differ)")


def graphfit_kwargs(case: Case, runner: str) -> dict[str, Any]:
    kw: dict[str, Any] = dict(
        max_num_seqs=case.S, max_num_batched_tokens=case.T, max_model_len=case.max_model_len,
        num_speculative_tokens=case.k, spec_method=case.method or "none",
        cudagraph_mode="NONE" if case.enforce_eager else case.mode,  # graphfit: --enforce-eager
        runner=runner, performance_mode=case.performance_mode,
        ceiling_family="blackwell" if case.blackwell else "default")
    if case.sizes is not None:
        kw["cudagraph_capture_sizes"] = case.sizes
    if case.max_size is not None:
        kw["max_cudagraph_capture_size"] = case.max_size
    for attr, (name, implicit) in PROPOSED_FIELDS.items():
        value = getattr(case, attr)
        if attr == "draft_support" and (case.method != "dflash" or runner != "v2"
                                        or value in (None, case.support)):
            continue
        if value != implicit and value is not None:
            kw[name] = value
    return kw


@functools.lru_cache(maxsize=1024)
def graphfit_plan(case: Case, runner: str) -> graphfit.Plan | str:
    """graphfit's plan, or the error it raised (ConfigError: "ConfigError: ...")."""
    try:
        return graphfit.plan(graphfit.EngineConfig(**graphfit_kwargs(case, runner)))
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


def _table_diff(aspect: str, label: str, xs: list[int], ours: list[Any],
                theirs: list[Any]) -> list[Diff]:
    bad = [i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b]
    if not bad:
        return []
    i = bad[0]
    return [Diff(aspect, f"{label}={xs[i]}", ours[i], theirs[i], len(bad))]


def _capacity(plan: graphfit.Plan, key: str) -> int | None:
    try:
        return plan.buffer(key).capacity
    except graphfit.ConfigError:
        return None


def _padded(key: Key | None) -> int:
    return key[1] if key is not None else 0


def _decode_requests(case: Case, cfg: vo.ConfigResult) -> int:
    """Requests a uniform decode can hold: min(S, active cap, T // q) (scheduler budget)."""
    return min(case.S, cfg.max_num_active_seqs or case.S, case.T // case.q)


def compare(case: Case, graphfit_case: Case | None = None) -> dict[str, list[Diff] | None]:
    """Per aspect: [] agreement, [Diff...] differences, None not applicable.

    `graphfit_case` plans graphfit from another case (e.g. the same config without an input
    graphfit lacks, to see what it answers when it ignores that input).
    """
    out: dict[str, list[Diff] | None] = dict.fromkeys(ASPECTS)
    cfg = vo.config_ladder(case)
    runs = {r: vo.runner(case, r) for r in ("v1", "v2")}
    plans = {r: graphfit_plan(graphfit_case or case, r) for r in ("v1", "v2")}

    errs: list[Diff] = []
    for r in ("v1", "v2"):
        v_err = runs[r].error
        g_err = plans[r] if isinstance(plans[r], str) else None
        if (v_err is None) != (g_err is None) or _cannot_express(g_err):
            errs.append(Diff("errors", f"runner {r}", v_err or "accepted", g_err or "accepted"))
    out["errors"] = errs

    v1plan = plans["v1"]
    if cfg.error is None and not isinstance(v1plan, str):
        out["config_ladder"] = (
            [] if cfg.sizes == v1plan.config_capture_sizes
            else [Diff("config_ladder", "sizes", cfg.sizes, v1plan.config_capture_sizes)])

    for r in ("v1", "v2"):
        run, plan = runs[r], plans[r]
        if run.error is not None or isinstance(plan, str):
            continue
        _compare_runner(case, cfg, run, plan, out)
    if case.method == "dflash" and runs["v1"].error is None and not isinstance(v1plan, str):
        out["dflash_v1_buffers"] = _dflash_buffers(case, cfg, runs["v1"], v1plan)
    return out


def _compare_runner(case: Case, cfg: vo.ConfigResult, run: vo.RunnerResult,
                    plan: graphfit.Plan, out: dict[str, list[Diff] | None]) -> None:
    r = run.runner
    g_mode = getattr(plan, "cudagraph_mode", plan.config.cudagraph_mode)  # resolved, if any
    g_mode = getattr(g_mode, "value", g_mode)
    ladder: list[Diff] = []
    if run.sizes != plan.capture_sizes:
        ladder.append(Diff(f"{r}_ladder", "sizes", run.sizes, plan.capture_sizes))
    if run.mode != g_mode:
        ladder.append(Diff(f"{r}_ladder", "resolved mode", run.mode, g_mode))
    out[f"{r}_ladder"] = ladder
    if r == "v1":  # columns: cdiv(max_model_len, block_size) aligned to 128 tokens
        width = vo.block_table_width(case.max_model_len, plan.config.block_size)
        g_width = plan.buffer("target.block_table").shape[-1]
        out["v1_block_table"] = [] if width == g_width else [
            Diff("v1_block_table", "target.block_table columns", width, g_width)]

    hi = min(case.T, max(run.max_size, plan.max_capture_size if plan.has_graphs else 0) + 2)
    ns = sorted(set(range(1, hi + 1)) | {case.T})
    v_mixed = [run.target_mixed(n) for n in ns]
    g_mixed = [_gf_pad(plan, n) for n in ns]
    out[f"{r}_target_mixed"] = _table_diff(f"{r}_target_mixed", "n", ns, v_mixed, g_mixed)

    R = _decode_requests(case, cfg)
    rs = list(range(1, R + 1))
    v_uni = [run.target_uniform(x) for x in rs]
    g_uni = [_gf_pad(plan, x * case.q, uniform_decode=True, num_reqs=x) for x in rs]
    out[f"{r}_target_uniform"] = _table_diff(f"{r}_target_uniform", "r", rs, v_uni, g_uni)

    # streams vLLM pads vs the graphfit buffer that must hold them; for the drafter's own
    # streams (`tight`) graphfit's capacity must also not exceed vLLM's peak (README: tight)
    tight: set[str] = set()
    streams: list[tuple[str, str, int]] = [
        ("target tokens", "target.input_ids", max(map(_padded, v_mixed + v_uni), default=0)),
        ("target request rows", "target.seq_lens",
         max((k[2] or 0 for k in v_mixed + v_uni), default=0)),
    ]
    if r == "v1" and run.drafter is not None:
        v_dr = [run.drafter_tokens(n) for n in ns]
        g_dr = [_gf_pad(plan, n, component="drafter") for n in ns]
        out["v1_drafter"] = _table_diff("v1_drafter", "n", ns, v_dr, g_dr)
        # capture: DFlashProposer.dummy_run runs min(size, S*q) query tokens per captured
        # size (v1/spec_decode/dflash.py:229); other drafters run `size` tokens
        if case.method == "dflash":
            v_q = [run.drafter_tokens(x * case.q) for x in rs]
            v_q += [run.drafter_tokens(min(s, case.S * case.q)) for s in run.sizes]
            streams.append(("DFlash query", "drafter.positions", max(map(_padded, v_q),
                                                                     default=0)))
        else:
            streams.append(("drafter tokens", "drafter.input_ids",
                            max(map(_padded, v_dr), default=0)))
        tight.add(streams[-1][0])
    if r == "v2" and case.method == "dflash" and run.drafter is not None:
        v_q = [run.drafter_query(x) for x in rs]
        g_q = [_gf_pad(plan, x * case.q, uniform_decode=True, num_reqs=x, component="drafter")
               for x in rs]
        out["v2_dflash_drafter"] = _table_diff("v2_dflash_drafter", "r", rs, v_q, g_q)
        # capture replays each FULL candidate once (cudagraph_utils.py:274-383)
        captured = [d.num_tokens for d in run.drafter._capture_descs.get(
            vo.vllm().CUDAGraphMode.FULL, [])]
        streams.append(("DFlash query", "drafter.positions",
                        max([*map(_padded, v_q), *captured], default=0)))
        tight.add("DFlash query")

    cap: list[Diff] = []
    for stream, buf, peak in streams:
        have = _capacity(plan, buf)
        if have is None or peak > have:
            cap.append(Diff(f"{r}_capacity", f"{stream} -> {buf}", peak, have, unsafe=True))
        elif stream in tight and have > peak:
            cap.append(Diff(f"{r}_capacity", f"{stream} -> {buf} (graphfit larger)", peak,
                            have))
    out[f"{r}_capacity"] = cap
    for aspect in (f"{r}_target_mixed", f"{r}_target_uniform", "v1_drafter",
                   "v2_dflash_drafter"):
        for d in out.get(aspect) or []:
            d.unsafe = any(c.unsafe for c in cap)


# graphfit buffer -> the DFlashProposer attribute it models (reference_capacity must match)
_DFLASH_BUFFERS = {
    "drafter.input_ids": "input_ids", "drafter.positions": "positions",
    "drafter.slot_mapping_buffer": "slot_mapping_buffer", "drafter.arange": "arange",
    "drafter.context_positions": "context_positions",
    "drafter.context_slot_mapping": "context_slot_mapping",
    "drafter.hidden_states": "hidden_states",
    "drafter.backup_next_token_ids": "backup_next_token_ids",
}


def _dflash_buffers(case: Case, cfg: vo.ConfigResult, run: vo.RunnerResult,
                    plan: graphfit.Plan) -> list[Diff]:
    rows = vo.dflash_v1_buffers(case)
    if isinstance(rows, str):
        return [Diff("dflash_v1_buffers", "DFlashProposer", rows, "built")]
    diffs = []
    for key, attr in _DFLASH_BUFFERS.items():
        try:
            ref = plan.buffer(key).reference_capacity
        except graphfit.ConfigError:
            ref = None
        if ref != rows[attr]:
            diffs.append(Diff("dflash_v1_buffers", f"{key} reference_capacity", rows[attr], ref))
    # what vLLM's drafter pads a query to must fit the buffer vLLM itself allocated
    R = _decode_requests(case, cfg)
    peak = max((_padded(run.drafter_tokens(x * case.q)) for x in range(1, R + 1)), default=0)
    if peak > rows["positions"]:
        diffs.append(Diff("dflash_v1_buffers", "vLLM's own positions buffer", rows["positions"],
                          f"pads to {peak}", unsafe=True))
    return diffs


@functools.lru_cache(maxsize=512)
def _compared(case: Case) -> dict[str, list[Diff] | None]:
    return compare(case)


def failures(case: Case, aspects: tuple[str, ...] = ASPECTS) -> list[str]:
    """One line per differing aspect (for assertion messages); cached per case, so the
    edge grid's per-aspect tests compare each case once."""
    res = _compared(case)
    return [d.describe() for a in aspects for d in (res.get(a) or [])]
