"""graphfit's `engine="trtllm"` model against TensorRT-LLM's own rules (trtllm_reference.py).

Every test names the TensorRT-LLM file and function it checks (see `ref.PINS` for the commits
read). The grids are deterministic so their agreement counts are stable; the hypothesis tests
explore around them. Nothing here is skipped or expected to fail: a failure is a place where
graphfit's model of TensorRT-LLM is wrong, and its message lists each difference class with a
reproducer (the TensorRT-LLM LLM-API arguments, as a YAML file would hold them).
"""

from __future__ import annotations

import functools
import itertools
import json
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from graphfit import ConfigError, CUDAGraphMode, Engine, EngineConfig, Plan, plan
from graphfit.inputs.config_file import mapping_settings
from graphfit.inputs.settings import COMMAND_LINE, Setting, merge
from graphfit.inputs.trtllm import TRTLLM_ONLY_KEYS
from tests.helpers import run_cli
from tests.oracle import trtllm_reference as ref

# --------------------------------------------------------------------------------------------
# graphfit's side: TensorRT-LLM LLM-API arguments through graphfit's public API
# --------------------------------------------------------------------------------------------

def graphfit_config(raw: Mapping[str, Any], *extra: Setting) -> EngineConfig:
    """The EngineConfig graphfit reads from TensorRT-LLM's LLM API options: the mapping goes
    through graphfit's own reader of those keys (graphfit.inputs.trtllm, what
    `--extra_llm_api_options FILE` uses), with the engine set as `--engine trtllm` does
    (`extra`: what the checkpoint adds, e.g. the model class's feature spec). Every
    test_trtllm_* module reads its lines through this one reader."""
    settings, _ = mapping_settings(dict(raw), "llm_api_options", TRTLLM_ONLY_KEYS)
    engine = Setting("engine", Engine.TRTLLM, "--engine", COMMAND_LINE)
    return merge([*settings, *extra, engine]).config()


def graph_sizes(p: Plan) -> tuple[int, ...]:
    """Batch sizes graphfit says TensorRT-LLM captures (none when graphs are off)."""
    return p.capture_sizes if p.has_graphs else ()


def request_tokens(p: Plan) -> int:
    """Tokens one generation request carries in graphfit's plan: q x max_beam_width."""
    return p.config.uniform_query_len * p.config.max_beam_width


def graphfit_dispatch(p: Plan, batch: int) -> int | None:
    """graphfit's padded batch size (requests) for a generation batch, None = eager."""
    d = p.pad(batch * request_tokens(p), uniform_decode=True)
    return None if d.mode is CUDAGraphMode.NONE else d.num_reqs


@dataclass
class Outcome:
    """One config on both sides; `graphfit_error` when graphfit refused it."""

    raw: Mapping[str, Any]
    engine: ref.EngineRef
    plan: Plan | None
    graphfit_error: str | None


def run_both(raw: Mapping[str, Any]) -> Outcome:
    """`multimodal: true` in a line is graphfit's key for an mrope model (TensorRT-LLM reads
    `use_mrope` from the checkpoint, not from the LLM API)."""
    args = {k: v for k, v in raw.items() if k != "multimodal"}
    engine = ref.model_engine(ref.llm_args(args), use_mrope=bool(raw.get("multimodal")))
    try:
        return Outcome(raw, engine, plan(graphfit_config(raw)), None)
    except ConfigError as exc:
        return Outcome(raw, engine, None, str(exc))


def difference_class(o: Outcome, aspect: str) -> str:
    """A short label grouping mismatches by cause."""
    if o.graphfit_error is not None:
        words = re.sub(r"\d+", "N", o.graphfit_error.split(" (")[0])
        return f"graphfit rejects a config TensorRT-LLM accepts: {words[:110]}"
    assert o.plan is not None
    q_trt, q_gf = o.engine.tokens_per_request, o.plan.config.uniform_query_len
    if q_trt != q_gf:
        spec = o.raw.get("speculative_config") or {}
        tree = ("eagle_choices" if "eagle_choices" in spec else "dynamic tree"
                if spec.get("use_dynamic_tree") else "max_total_draft_tokens")
        return (f"tokens per request: TensorRT-LLM 1 + max_total_draft_tokens ({tree}) "
                f"!= graphfit 1 + max_draft_len")
    return f"{aspect}: other"


def report(title: str, total: int, mismatches: list[tuple[str, str]]) -> str:
    """'title agree n/total' and, per difference class, its count and first reproducer."""
    lines = [f"{title} agree {total - len(mismatches)}/{total}"]
    seen: dict[str, str] = {}
    counts = Counter(label for label, _ in mismatches)
    for label, repro in mismatches:
        seen.setdefault(label, repro)
    for label, n in counts.most_common():
        lines.append(f"  [{n}] {label}\n      reproducer: {seen[label]}")
    return "\n".join(lines)


def show(raw: Mapping[str, Any]) -> str:
    return json.dumps(raw, separators=(",", ":"))


# --------------------------------------------------------------------------------------------
# The deterministic grid: LLM-API arguments TensorRT-LLM accepts
# --------------------------------------------------------------------------------------------

M = {"speculative_model": "draft"}
SPECS: tuple[Mapping[str, Any] | None, ...] = (
    None,
    {"decoding_type": "Eagle3", "max_draft_len": 3, **M},
    {"decoding_type": "MTP", "max_draft_len": 1},
    {"decoding_type": "NGram", "max_draft_len": 5},
    {"decoding_type": "Draft_Target", "max_draft_len": 2, **M},
    {"decoding_type": "Eagle3", "max_draft_len": 3, **M,  # depth 2, 5 nodes
     "eagle_choices": [[0], [1], [0, 0], [0, 1], [1, 0]]},
    {"decoding_type": "Eagle3", "max_draft_len": 3, **M,  # depth 3, 10 nodes
     "eagle_choices": [[0], [1], [2], [0, 0], [0, 1], [1, 0], [2, 0], [0, 0, 0], [0, 1, 0],
                       [1, 0, 0]]},
    {"decoding_type": "Eagle3", "max_draft_len": 3, **M, "use_dynamic_tree": True,
     "dynamic_tree_max_topK": 4},
    {"decoding_type": "MTP", "max_draft_len": 2, "use_dynamic_tree": True,
     "dynamic_tree_max_topK": 3, "max_total_draft_tokens": 4},
    {"decoding_type": "PARD", "max_draft_len": 3, **M},
    {"decoding_type": "DFlash", "max_draft_len": 4, **M},
    {"decoding_type": "SA", "max_draft_len": 5},
)
# one-beam lines are the grid above; these add beam search and mrope models
BEAMS = (2, 4)
MROPE_SPECS: tuple[Mapping[str, Any] | None, ...] = (
    None, {"decoding_type": "Eagle3", "max_draft_len": 3, **M})
GRAPHS: tuple[Any, ...] = (
    "missing", {"enable_padding": True}, {"max_batch_size": 64},
    {"max_batch_size": 300, "enable_padding": True}, {"batch_sizes": [1, 2, 4, 8, 16]},
    {"batch_sizes": [3, 50, 200], "enable_padding": True}, {"batch_sizes": [8, 2, 2, 4]},
    {"batch_sizes": []}, None,
)
BATCH = (1, 3, 8, 33, 64, 128, 256, 512)
TOKENS = (3, 8, 64, 256, 1000, 4096, 8192)


def grid_args() -> list[dict[str, Any]]:
    out = []
    for S, T, spec, graph in itertools.product(BATCH, TOKENS, SPECS, GRAPHS):
        raw: dict[str, Any] = {"max_batch_size": S, "max_num_tokens": T}
        if graph != "missing":
            raw["cuda_graph_config"] = graph
        if spec is not None:
            raw["speculative_config"] = dict(spec)
        out.append(raw)
    for S, T, graph in itertools.product(BATCH, TOKENS, GRAPHS):
        base: dict[str, Any] = {"max_batch_size": S, "max_num_tokens": T}
        if graph != "missing":
            base["cuda_graph_config"] = graph
        out += [{**base, "max_beam_width": beam, "max_seq_len": 1024} for beam in BEAMS]
        out += [{**base, "multimodal": True, **({"speculative_config": dict(spec)}
                                                 if spec is not None else {})}
                for spec in MROPE_SPECS]
    return out


@functools.lru_cache(maxsize=1)
def grid() -> tuple[Outcome, ...]:
    return tuple(run_both(raw) for raw in grid_args())


# --------------------------------------------------------------------------------------------
# Comparisons shared by the grid and the hypothesis tests
# --------------------------------------------------------------------------------------------


def ladder_mismatch(o: Outcome) -> str | None:
    """The filtered ladder (set of captured batch sizes) and whether graphs run at all."""
    if o.plan is None:
        return difference_class(o, "ladder")
    want, got = o.engine.graph_batch_sizes, graph_sizes(o.plan)
    if want == got and (not want or o.engine.padding == o.plan.config.cuda_graph_padding):
        return None
    if want != got:
        cls = difference_class(o, "ladder")
        if cls.endswith("other"):
            return f"ladder: TRT {list(want)} != graphfit {list(got)}"
        return cls
    return "padding flag differs"


def dispatch_mismatches(o: Outcome) -> list[int]:
    """Generation batches TensorRT-LLM can schedule whose replay (or eager run) differs."""
    batches = o.engine.reachable_generation_batches()
    if o.plan is None:
        return list(batches)
    return [b for b in batches if o.engine.dispatch(b) != graphfit_dispatch(o.plan, b)]


# graphfit buffers the reference does not list (the attention metadata's per-request rows)
GRAPHFIT_ONLY = frozenset({"seq_slots", "num_cached_tokens"})


def buffer_mismatches(o: Outcome) -> dict[str, tuple[int, int | None]]:
    """Buffer -> (TensorRT-LLM elements, graphfit elements) where they differ.

    graphfit's `reference_capacity` is its statement of what TensorRT-LLM allocates; every
    buffer of either side is compared. The graph runner's static rows are also checked the
    other way: graphfit's own capacity holds the largest captured batch (its tokens:
    size x q x beams), and graphfit's engine check (`verify_engine`) reports a shortfall
    exactly when TensorRT-LLM's rows are shorter than some graph's capture (`short_graphs`).
    """
    want = o.engine.buffers()
    if o.plan is None:
        return {k: (v, None) for k, v in want.items()}
    got: dict[str, int | None] = {}
    target = o.plan.components["target"]
    for b in target.buffers:
        elems = b.reference_capacity
        for dim in b.shape[:b.axis_dim] + b.shape[b.axis_dim + 1:]:
            elems *= dim
        got[b.name] = elems
    p = o.plan
    sizes = graph_sizes(p)
    out: dict[str, tuple[int, int | None]] = {}
    if o.engine.graphs_enabled:
        for name in want:  # no graph: TensorRT-LLM's static rows are 0 too
            if name.startswith("graph_"):
                got.setdefault(name, 0)
        width = request_tokens(p)
        needed = max((p.pad(s * width, uniform_decode=True).padded for s in sizes), default=0)
        planned = {b.name: b.capacity for b in target.buffers}.get("graph_input_ids", 0)
        if planned != needed:
            out["graph rows planned"] = (needed, planned)
        short = bool(o.engine.short_graphs())
        flagged = bool(sizes) and any(v.buffer == "graph_input_ids"
                                      for v in p.verify_engine().violation_ranges)
        if short != flagged:
            out["short graphs reported"] = (int(short), int(flagged))
    for name in sorted((set(want) | set(got)) - GRAPHFIT_ONLY):
        if want.get(name) != got.get(name):
            out[name] = (want.get(name, 0), got.get(name))
    return out


def buffer_label(o: Outcome, name: str, values: tuple[int, int | None]) -> str:
    if o.plan is None:
        return difference_class(o, name)
    if name == "draft_tokens":
        spec = o.engine.args.spec
        assert spec is not None
        kind = "dynamic tree" if spec.dynamic_tree_max_topK else "eagle_choices"
        return (f"draft_tokens_cuda: TensorRT-LLM max_draft_loop_tokens x max_batch_size "
                f"!= graphfit max_batch_size x max_draft_len ({kind})")
    cls = difference_class(o, name)
    if name in ("graph_input_ids", "graph_position_ids", "graph rows planned",
                "short graphs reported"):
        return f"graph runner static input_ids rows differ; cause: {cls}"
    return f"{name}: {cls}"


# --------------------------------------------------------------------------------------------
# CudaGraphConfig (llm_args.py)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("padding", [False, True])
def test_generated_batch_sizes(padding: bool) -> None:
    """llm_args.py `BaseCudaGraphConfig._generate_cuda_graph_batch_sizes`, padding on and off.

    graphfit: `max_cudagraph_capture_size=N` with a budget large enough not to filter.
    """
    bad = []
    for n in [*range(1, 600), 1023, 1024, 1025, 2047, 2048, 4096, 4097]:
        p = plan(EngineConfig(engine=Engine.TRTLLM, max_num_seqs=n, max_num_batched_tokens=n,
                              max_cudagraph_capture_size=n, cuda_graph_padding=padding))
        want = tuple(ref.generate_cuda_graph_batch_sizes(n, padding))
        if p.capture_sizes != want:
            bad.append((n, want, p.capture_sizes))
    assert not bad, f"{ref.cite('llm_args')} _generate_cuda_graph_batch_sizes: {bad[:3]}"


def test_graph_config_defaults() -> None:
    """llm_args.py `validate_base_cuda_graph_config`: no fields -> max_batch_size 128, padding
    off, the generated list; `TorchLlmArgs.cuda_graph_config` default_factory=CudaGraphConfig.
    """
    default = ref.cuda_graph_config({})
    assert (default.max_batch_size, default.enable_padding) == (128, False)
    p = plan(EngineConfig(engine=Engine.TRTLLM, max_num_seqs=2048))
    assert p.config.cuda_graph_padding is default.enable_padding, ref.cite("llm_args")
    assert p.has_graphs and p.capture_sizes == default.batch_sizes, ref.cite("llm_args")


def test_explicit_batch_sizes_and_max_must_agree() -> None:
    """llm_args.py `validate_base_cuda_graph_config`: batch_sizes with a different non-zero
    max_batch_size is a ValueError in TensorRT-LLM; graphfit must refuse it too."""
    raw = {"max_batch_size": 64, "cuda_graph_config": {"batch_sizes": [1, 2, 4],
                                                       "max_batch_size": 8}}
    with pytest.raises(ref.Rejected):
        ref.llm_args(raw)
    with pytest.raises(ConfigError):
        plan(graphfit_config(raw))


@pytest.mark.parametrize("sizes", [[1, 2, 2, 4], [8, 8, 8], [16, 1, 4, 1, 16]])
def test_duplicate_batch_sizes_kept_by_trtllm_planned_once(sizes: list[int]) -> None:
    """llm_args.py `validate_base_cuda_graph_config` sorts batch_sizes and keeps duplicates
    (#23): the same captured sizes as a set, so the same padding; graphfit plans each size once
    and says how many captures TensorRT-LLM repeats."""
    raw = {"max_batch_size": 64, "cuda_graph_config": {"batch_sizes": sizes}}
    theirs = ref.cuda_graph_config(raw["cuda_graph_config"])
    assert theirs.batch_sizes == tuple(sorted(sizes)), ref.cite("llm_args")
    _, notes = mapping_settings(dict(raw), "llm_api_options")
    repeated = len(sizes) - len(set(sizes))
    assert any(f"keeps the {repeated} duplicate" in n for n in notes), notes
    p = plan(graphfit_config(raw))
    assert graph_sizes(p) == tuple(sorted(set(theirs.batch_sizes)))


# --------------------------------------------------------------------------------------------
# The model engine's filter, padding at replay, buffers (grid + hypothesis)
# --------------------------------------------------------------------------------------------


def test_ladder_after_filter_grid() -> None:
    """engine/cuda_graph.py `filter_cuda_graph_batch_sizes` as model_engine.py
    `PyTorchModelEngine.__init__` calls it (tokens_per_request = spec_config.tokens_per_gen_step,
    i.e. 1 + max_total_draft_tokens), on CudaGraphConfig's list; cuda_graph_config null -> no
    graphs; nothing left -> eager, not an error."""
    rows = grid()
    bad = [(label, show(o.raw)) for o in rows if (label := ladder_mismatch(o)) is not None]
    assert not bad, report(f"{ref.cite('cuda_graph_helpers')} ladders after filtering",
                           len(rows), bad)


def test_padding_of_every_generation_batch_grid() -> None:
    """cuda_graph_runner.py `CUDAGraphRunner._get_padded_batch` / `_round_up_batch_size` /
    `maybe_get_cuda_graph`: every generation batch TensorRT-LLM can schedule (<= max_batch_size
    requests, <= max_num_tokens tokens) pads to the next captured size (padding on), replays
    only exact sizes (padding off) or runs eagerly."""
    rows = grid()
    total = 0
    bad: list[tuple[str, str]] = []
    for o in rows:
        batches = o.engine.reachable_generation_batches()
        total += len(batches)
        wrong = dispatch_mismatches(o)
        if wrong:
            label = difference_class(o, "dispatch")
            bad += [(label, f"{show(o.raw)} batch {wrong[0]}")] * len(wrong)
    assert not bad, report(f"{ref.cite('cuda_graph_runner')} generation batches dispatched",
                           total, bad)


def test_buffer_capacities_grid() -> None:
    """model_engine.py `PyTorchModelEngine.__init__` (input_ids_cuda, position_ids_cuda
    [max_num_tokens]; draft_tokens_cuda [max_draft_loop_tokens * max_batch_size]) and
    cuda_graph_runner.py `CUDAGraphRunner._create_shared_static_tensors` (static input_ids /
    position_ids: min(max graph batch * (1 + max_total_draft_tokens), max_num_tokens))."""
    rows = grid()
    checks = Counter[str]()
    bad: dict[str, list[tuple[str, str]]] = {}
    for o in rows:
        wrong = buffer_mismatches(o)
        for name in o.engine.buffers():
            checks[name] += 1
        for name in ("graph rows planned", "short graphs reported"):
            checks[name] += o.engine.graphs_enabled
        for name, values in wrong.items():
            bad.setdefault(name, []).append(
                (buffer_label(o, name, values), f"{show(o.raw)} -> {values}"))
    messages = [report(f"{ref.cite('model_engine')} {name} capacity", checks[name], bad[name])
                for name in sorted(bad)]
    assert not bad, "\n".join(messages)


def trtllm_args() -> st.SearchStrategy[dict[str, Any]]:
    """Random LLM-API arguments TensorRT-LLM accepts (within the reference's scope)."""

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        raw: dict[str, Any] = {"max_batch_size": draw(st.integers(1, 600)),
                               "max_num_tokens": draw(st.integers(1, 5000))}
        graph = draw(st.sampled_from(("missing", "null", "fields")))
        if graph == "null":
            raw["cuda_graph_config"] = None
        elif graph == "fields":
            cfg: dict[str, Any] = {"enable_padding": draw(st.booleans())}
            if draw(st.booleans()):
                cfg["batch_sizes"] = draw(st.lists(st.integers(1, 700), min_size=0,
                                                   max_size=8))
            elif draw(st.booleans()):
                cfg["max_batch_size"] = draw(st.integers(0, 1100))
            raw["cuda_graph_config"] = cfg
        kind = draw(st.sampled_from(("none", "Eagle", "Eagle3", "MTP", "NGram",
                                     "Draft_Target", "PARD", "DFlash", "SA", "beam")))
        if draw(st.integers(0, 3)) == 0 and kind != "beam":
            raw["multimodal"] = True
        if kind == "beam":
            raw.update(max_beam_width=draw(st.integers(1, 8)),
                       max_seq_len=draw(st.integers(1, 4096)))
        elif kind != "none":
            d = draw(st.integers(1, 6))
            spec: dict[str, Any] = {"decoding_type": kind, "max_draft_len": d}
            if kind in ("Eagle", "Eagle3", "Draft_Target", "PARD", "DFlash"):
                spec["speculative_model"] = "draft"
            if draw(st.integers(0, 4)) == 0:  # draft_len_schedule: thresholds -> lengths
                thresholds = sorted(draw(st.sets(st.integers(1, 300), min_size=1, max_size=3)))
                spec["draft_len_schedule"] = {t: d if i == 0 else draw(st.integers(0, d))
                                              for i, t in enumerate(thresholds)}
            tree = draw(st.sampled_from(("linear", "choices", "dynamic")))
            if kind in ("Eagle", "Eagle3") and tree == "choices":
                paths: list[list[int]] = [[0]]
                for _ in range(draw(st.integers(0, 12))):
                    parent = draw(st.sampled_from([[], *paths]))
                    if len(parent) < 5:
                        paths.append([*parent, draw(st.integers(0, 3))])
                spec["eagle_choices"] = paths
            elif kind in ("Eagle", "Eagle3", "MTP") and tree == "dynamic":
                k = draw(st.integers(1, 4))
                spec.update(use_dynamic_tree=True, dynamic_tree_max_topK=k)
                if draw(st.booleans()):
                    spec["max_total_draft_tokens"] = draw(st.integers(d, k * d))
            raw["speculative_config"] = spec
        return raw

    return build()


@given(trtllm_args())
def test_filter_padding_and_buffers_random(raw: dict[str, Any]) -> None:
    """engine/cuda_graph.py `filter_cuda_graph_batch_sizes`, cuda_graph_runner.py
    `_get_padded_batch`, model_engine.py buffers, on random accepted LLM-API arguments."""
    o = run_both(raw)
    where = f"{ref.cite('model_engine')}: {show(raw)}"
    assert ladder_mismatch(o) is None, f"{where}: {ladder_mismatch(o)}"
    assert not dispatch_mismatches(o), f"{where}: batches {dispatch_mismatches(o)[:5]}"
    assert not buffer_mismatches(o), f"{where}: {buffer_mismatches(o)}"


# --------------------------------------------------------------------------------------------
# LLM args: defaults, warnings vs errors (llm_args.py)
# --------------------------------------------------------------------------------------------


def test_llm_args_defaults() -> None:
    """llm_args.py `BaseLlmArgs`: max_batch_size 2048, max_num_tokens 8192 (and an explicit
    None normalised to them by `normalize_optional_fields_to_defaults`). graphfit's
    EngineConfig must default the same way for engine="trtllm"."""
    want = ref.llm_args({})
    assert (want.max_batch_size, want.max_num_tokens) == (2048, 8192)
    assert ref.llm_args({"max_batch_size": None}).max_batch_size == 2048
    try:
        got = EngineConfig.from_dict({"engine": "trtllm"})
    except (TypeError, ConfigError) as exc:
        pytest.fail(f"{ref.cite('llm_args')} BaseLlmArgs.max_batch_size defaults to 2048; "
                    f"graphfit: {exc}")
    assert (got.max_num_seqs, got.max_num_batched_tokens) == (2048, 8192)


def test_max_num_tokens_below_max_batch_size_only_warns() -> None:
    """llm_args.py `BaseLlmArgs.validate_runtime_args`: max_batch_size > max_num_tokens logs a
    warning; the engine then caps graphs at max_num_tokens // tokens_per_request."""
    raw = {"max_batch_size": 256, "max_num_tokens": 128}
    engine = ref.model_engine(ref.llm_args(raw))
    assert engine.warnings and engine.graph_batch_sizes[-1] == 128
    o = run_both(raw)
    assert o.graphfit_error is None, (
        f"{ref.cite('llm_args')} validate_runtime_args: {o.graphfit_error}")
    assert o.plan is not None and graph_sizes(o.plan) == engine.graph_batch_sizes
    assert o.plan.warnings, "TensorRT-LLM warns here; graphfit should too"


def test_no_graph_fits_runs_eager_without_error() -> None:
    """engine/cuda_graph.py `filter_cuda_graph_batch_sizes` returns [] when
    max_num_tokens // tokens_per_request < 1; model_engine.py keeps going with
    `_max_cuda_graph_batch_size` 0 (every batch eager). Not an error in TensorRT-LLM."""
    raw = {"max_batch_size": 2, "max_num_tokens": 3,
           "speculative_config": {"decoding_type": "Eagle3", "max_draft_len": 3, **M}}
    engine = ref.model_engine(ref.llm_args(raw))
    assert engine.graph_batch_sizes == () and engine.dispatch(1) is None
    o = run_both(raw)
    assert o.graphfit_error is None, (f"{ref.cite('cuda_graph_helpers')} "
                                      f"filter_cuda_graph_batch_sizes -> []: {o.graphfit_error}")
    assert o.plan is not None and graph_sizes(o.plan) == ()


def test_tree_speculation_tokens_per_request() -> None:
    """llm_args.py `EagleDecodingConfig.validate_eagle_config` (max_total_draft_tokens =
    len(eagle_choices), max_draft_len = tree depth) and `DecodingBaseConfig.tokens_per_gen_step`
    (1 + max_total_draft_tokens), which model_engine.py uses as tokens per request."""
    choices = [[0], [1], [2], [0, 0], [0, 1], [1, 0]]
    spec = ref.speculative_config({"decoding_type": "Eagle3", "max_draft_len": 3, **M,
                                   "eagle_choices": choices})
    assert (spec.max_draft_len, spec.max_total_draft_tokens, spec.tokens_per_gen_step) == (2, 6, 7)
    raw = {"max_batch_size": 256, "max_num_tokens": 256,
           "speculative_config": {"decoding_type": "Eagle3", "max_draft_len": 3, **M,
                                  "eagle_choices": choices}}
    o = run_both(raw)
    assert o.plan is not None
    assert o.plan.config.uniform_query_len == 7, (
        f"{ref.cite('llm_args')} validate_eagle_config: a 6-node tree verifies 7 tokens per "
        f"request; graphfit uses {o.plan.config.uniform_query_len}")


# --------------------------------------------------------------------------------------------
# trtllm-serve flags and the --extra_llm_api_options YAML (serve.py, llm_args.py)
# --------------------------------------------------------------------------------------------

SPEC3 = {"decoding_type": "Eagle3", "max_draft_len": 3, "speculative_model": "draft"}


@dataclass(frozen=True)
class ServeCase:
    argv: tuple[str, ...]  # after `trtllm-serve MODEL`; "{yaml}" is the YAML file's path
    yaml: Mapping[str, Any] | None = None


SERVE_CASES: dict[str, ServeCase] = {
    "max_batch_size+max_num_tokens": ServeCase(("--max_batch_size", "64",
                                                "--max_num_tokens", "512")),
    "defaults-only": ServeCase(()),
    "max_seq_len": ServeCase(("--max_batch_size", "8", "--max_seq_len", "4096")),
    "tp_size-ignored": ServeCase(("--max_batch_size", "8", "--tp_size", "2")),
    "opt=value": ServeCase(("--max_batch_size=24", "--max_num_tokens=96")),
    "repeated-flag-last-wins": ServeCase(("--max_batch_size", "8", "--max_batch_size", "16")),
    "extra_llm_api_options-file": ServeCase(
        ("--extra_llm_api_options", "{yaml}"),
        {"max_batch_size": 32, "cuda_graph_config": {"enable_padding": True,
                                                     "max_batch_size": 16}}),
    "config-alias": ServeCase(("--config", "{yaml}"),
                              {"max_batch_size": 32, "cuda_graph_config": {"max_batch_size": 16}}),
    "yaml-overwrites-typed-flag": ServeCase(("--max_batch_size", "64", "--config", "{yaml}"),
                                            {"max_batch_size": 32}),
    "yaml-beats-untyped-default": ServeCase(("--max_batch_size", "16", "--config", "{yaml}"),
                                            {"max_num_tokens": 4096}),
    "batch_sizes-empty-means-default": ServeCase(
        ("--config", "{yaml}"), {"max_batch_size": 256, "cuda_graph_config": {"batch_sizes": []}}),
    "graph-max_batch_size-0-means-128": ServeCase(
        ("--config", "{yaml}"), {"max_batch_size": 512,
                                 "cuda_graph_config": {"max_batch_size": 0}}),
    "cuda_graph_config-null": ServeCase(("--config", "{yaml}"),
                                        {"max_batch_size": 8, "cuda_graph_config": None}),
    "eagle3-linear": ServeCase(("--config", "{yaml}"), {
        "max_batch_size": 256, "max_num_tokens": 256, "speculative_config": SPEC3,
        "cuda_graph_config": {"enable_padding": True}}),
    "eagle3-eagle_choices": ServeCase(("--config", "{yaml}"), {
        "max_batch_size": 256, "max_num_tokens": 256,
        "speculative_config": {**SPEC3, "eagle_choices": [[0], [1], [2], [0, 0], [0, 1], [1, 0]]},
        "cuda_graph_config": {"enable_padding": True}}),
    "eagle3-dynamic-tree": ServeCase(("--config", "{yaml}"), {
        "max_batch_size": 256, "max_num_tokens": 1024,
        "speculative_config": {**SPEC3, "use_dynamic_tree": True, "dynamic_tree_max_topK": 4}}),
    "eagle-becomes-eagle3": ServeCase(("--config", "{yaml}"), {
        "max_batch_size": 64, "speculative_config": {**SPEC3, "decoding_type": "Eagle"}}),
    "mtp-num_nextn_predict_layers": ServeCase(("--config", "{yaml}"), {
        "max_batch_size": 64, "speculative_config": {"decoding_type": "MTP",
                                                     "num_nextn_predict_layers": 2}}),
    "draft_target": ServeCase(("--config", "{yaml}"), {
        "max_batch_size": 64, "speculative_config": {**SPEC3, "decoding_type": "Draft_Target"}}),
    "eagle3_layers_to_capture-accepted": ServeCase(("--config", "{yaml}"), {
        "max_batch_size": 64, "speculative_config": {**SPEC3,
                                                     "eagle3_layers_to_capture": [1, 15, 28]}}),
    "draft_len_schedule-merges-and-pads": ServeCase(("--config", "{yaml}"), {
        "max_batch_size": 128, "speculative_config": {**SPEC3, "draft_len_schedule":
                                                      {4: 3, 48: 2, 100: 1}}}),
    "removed-key-cuda_graph_batch_sizes-rejected": ServeCase(
        ("--config", "{yaml}"), {"max_batch_size": 64, "cuda_graph_batch_sizes": [1, 2, 4]}),
    "max_num_tokens-below-max_batch_size-warns": ServeCase(("--max_batch_size", "256",
                                                            "--max_num_tokens", "128")),
}


def serve_reference(case: ServeCase) -> tuple[ref.EngineRef | None, str | None]:
    try:
        args = ref.trtllm_serve([a.replace("{yaml}", "serve.yaml") for a in case.argv],
                                lambda _path: case.yaml)
    except ref.Rejected as exc:
        return None, str(exc)
    return ref.model_engine(args), None


def graphfit_cli(case: ServeCase, tmp: Path) -> tuple[int, dict[str, Any] | None, str]:
    """`graphfit plan --json -- trtllm-serve MODEL ARGV`: the line pasted as is, read with
    trtllm-serve's own options and precedence (graphfit.inputs.trtllm_cli)."""
    path = tmp / "serve.yaml"
    if case.yaml is not None:
        path.write_text(yaml.safe_dump(dict(case.yaml)))
    argv = [a.replace("{yaml}", str(path)) for a in case.argv]
    code, out, err = run_cli(["plan", "--json", "--", "trtllm-serve", "some/model", *argv])
    doc = json.loads(out) if code == 0 else None
    return code, doc, out + err


def cli_error(output: str) -> str:
    """The one line of a CLI failure that says why (typer's usage box or graphfit's error:)."""
    for line in output.splitlines():
        text = line.strip(" │╭╮╰╯─")
        if text.startswith(("error:", "No such option", "Error:", "Invalid value")):
            return text
    return output.strip().splitlines()[-1] if output.strip() else "(no output)"


def serve_mismatch(case: ServeCase, tmp: Path) -> str | None:
    engine, rejected = serve_reference(case)
    code, doc, output = graphfit_cli(case, tmp)
    if rejected is not None:
        return None if code != 0 else f"TensorRT-LLM rejects ({rejected}); graphfit exits 0"
    assert engine is not None
    if doc is None:
        return f"TensorRT-LLM accepts; graphfit exits {code}: {cli_error(output)}"
    cfg = doc["config"]
    graphs = cfg["cudagraph_mode"] != "NONE"
    got_sizes = tuple(doc["ladder"]["capture_sizes"]) if graphs else ()
    q = cfg["speculative_num_draft_tokens"] or 1 + cfg["num_speculative_tokens"]
    args = engine.args
    diffs = []
    if (cfg["max_num_seqs"], cfg["max_num_batched_tokens"]) != (args.max_batch_size,
                                                                 args.max_num_tokens):
        diffs.append(f"max_batch_size/max_num_tokens TRT {args.max_batch_size}/"
                     f"{args.max_num_tokens} != graphfit {cfg['max_num_seqs']}/"
                     f"{cfg['max_num_batched_tokens']}")
    if args.max_seq_len is not None and cfg["max_model_len"] != args.max_seq_len:
        diffs.append(f"max_seq_len TRT {args.max_seq_len} != graphfit {cfg['max_model_len']}")
    if q != engine.tokens_per_request:
        diffs.append(f"tokens per request TRT {engine.tokens_per_request} != graphfit {q}")
    if got_sizes != engine.graph_batch_sizes:
        diffs.append(f"graphs TRT {list(engine.graph_batch_sizes)} != graphfit {list(got_sizes)}")
    elif graphs and cfg["cuda_graph_padding"] != engine.padding:
        diffs.append(f"enable_padding TRT {engine.padding} != graphfit {cfg['cuda_graph_padding']}")
    if any("max_batch_size [" in w for w in engine.warnings) and not doc["warnings"]:
        diffs.append("TRT warns max_batch_size > max_num_tokens; graphfit reports no warning")
    return "; ".join(diffs) or None


def test_trtllm_serve_arguments(tmp_path: Path) -> None:
    """commands/serve.py `serve` (click options, `--config`/`--extra_llm_api_options`) and
    llm_args.py `update_llm_args_with_extra_dict` (as serve.py calls it: the YAML overwrites
    the flags and the defaults) then `TorchLlmArgs` validation: the line pasted into
    `graphfit plan --` must resolve the same max_batch_size, max_num_tokens, max_seq_len,
    graph batch sizes, padding and tokens per request, and refuse what TensorRT-LLM refuses."""
    bad = []
    for name, case in SERVE_CASES.items():
        case_dir = tmp_path / name
        case_dir.mkdir()
        problem = serve_mismatch(case, case_dir)
        if problem is not None:
            bad.append(f"  {name}: trtllm-serve MODEL {' '.join(case.argv)}"
                       f"{'  # yaml: ' + show(case.yaml) if case.yaml is not None else ''}"
                       f"\n      {problem}")
    head = (f"{ref.cite('serve')} serve + {ref.cite('llm_args')} "
            f"update_llm_args_with_extra_dict: argument reading agrees "
            f"{len(SERVE_CASES) - len(bad)}/{len(SERVE_CASES)}")
    assert not bad, "\n".join([head, *bad])


# --------------------------------------------------------------------------------------------
# Self-checks of the reference against the TensorRT-LLM unit tests' expectations
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("sizes,max_bs,max_tokens,per_request,padding,expected", [
    ([1, 2, 4, 8], 8, 3000, 1500, False, [1, 2]),
    ([1, 2, 4, 8], 8, 1499, 1500, True, []),
    ([1, 2, 4, 8], 6, 10000, 1, True, [1, 2, 4, 6]),
    ([1, 2, 4, 8], 4, 10000, 1, True, [1, 2, 4]),
])
def test_reference_filter_matches_trtllm_unit_test(sizes: list[int], max_bs: int,
                                                   max_tokens: int, per_request: int,
                                                   padding: bool, expected: list[int]) -> None:
    """The cases of TensorRT-LLM's own unit test of engine/cuda_graph.py
    `filter_cuda_graph_batch_sizes` (test_filter_cuda_graph_batch_sizes_respects_batch_and_
    token_budgets, 2026 main) hold for the reference."""
    assert ref.filter_cuda_graph_batch_sizes(sizes, max_bs, max_tokens, per_request,
                                             padding)[0] == expected


def test_reference_rules_spot_checks() -> None:
    """Spot checks of the restated rules (llm_args.py validators)."""
    assert ref.cuda_graph_config({"batch_sizes": [8, 2, 2, 4]}).batch_sizes == (2, 2, 4, 8)
    assert ref.cuda_graph_config({"batch_sizes": []}).batch_sizes == tuple(
        ref.generate_cuda_graph_batch_sizes(128, False))
    dyn = ref.speculative_config({**SPEC3, "use_dynamic_tree": True, "dynamic_tree_max_topK": 4})
    assert (dyn.max_total_draft_tokens, dyn.tokens_per_gen_step, dyn.max_draft_loop_tokens) == (
        12, 13, 12)
    mtp = ref.speculative_config({"decoding_type": "MTP", "num_nextn_predict_layers": 2,
                                  "max_total_draft_tokens": 9})
    assert (mtp.max_draft_len, mtp.max_total_draft_tokens) == (2, 2)
    with pytest.raises(ref.Rejected):
        ref.speculative_config({**SPEC3, "eagle_choices": [[0], [1, 0]]})  # [1] missing
    with pytest.raises(ref.Rejected):
        ref.speculative_config({**SPEC3, "decoding_type": "eagle3"})  # exact spelling
    sched = ref.llm_args({"speculative_config": {**SPEC3, "draft_len_schedule": {4: 3, 48: 2}}})
    assert sched.cuda_graph is not None and sched.cuda_graph.enable_padding
    assert 48 in sched.cuda_graph.batch_sizes and 64 in sched.cuda_graph.batch_sizes
    args = ref.trtllm_serve(["--max_batch_size", "64", "--config", "f"],
                            lambda _p: {"max_batch_size": 32, "max_num_tokens": 100})
    assert (args.max_batch_size, args.max_num_tokens) == (32, 100)  # serve.py: YAML wins
    explicit = ref.trtllm_serve(["--max_batch_size", "64", "--config", "f"],
                                lambda _p: {"max_batch_size": 32}, cli_wins=True)
    assert explicit.max_batch_size == 64
    with pytest.raises(ref.Rejected):
        ref.parse_serve_argv(["--max-batch-size", "8"])




# --------------------------------------------------------------------------------------------
# Beyond one beam and linear drafts (#23): decoding types, beams, attention DP
# --------------------------------------------------------------------------------------------


def test_mtp_dynamic_tree_accepted_at_the_pin() -> None:
    """MTPDecodingConfig at the pinned llm_args.py HAS use_dynamic_tree and
    dynamic_tree_max_topK (`ref.CITES["mtp_dynamic_tree"]`), so TensorRT-LLM accepts them and
    graphfit must too: topK > 0 required, max_total_draft_tokens defaulting to topK x
    max_draft_len and bounded by [max_draft_len, topK x max_draft_len]. (An older stored
    copy whose MTPDecodingConfig lacks the fields would refuse them as extra fields; that
    copy's commit could not be identified, so the pin decides.)"""
    where = ref.cite_fact("mtp_dynamic_tree_rules")
    base = {"decoding_type": "MTP", "max_draft_len": 2, "use_dynamic_tree": True}
    cases: list[tuple[dict[str, Any], int | None]] = [
        ({**base, "dynamic_tree_max_topK": 3}, 7),
        ({**base, "dynamic_tree_max_topK": 3, "max_total_draft_tokens": 2}, 3),
        ({**base, "dynamic_tree_max_topK": 3, "max_total_draft_tokens": 7}, None),
        ({**base, "dynamic_tree_max_topK": 3, "max_total_draft_tokens": 1}, None),
        ({**base, "dynamic_tree_max_topK": 0}, None),
        (dict(base), None),
    ]
    for spec, tokens in cases:
        raw = {"max_batch_size": 64, "speculative_config": spec}
        if tokens is None:
            with pytest.raises(ref.Rejected):
                ref.llm_args(raw)
            with pytest.raises(ConfigError):
                plan(graphfit_config(raw))
            continue
        assert ref.llm_args(raw).spec is not None
        assert ref.speculative_config(spec).tokens_per_gen_step == tokens, where
        assert plan(graphfit_config(raw)).config.uniform_query_len == tokens, f"{where}: {spec}"


@pytest.mark.parametrize("spec", [
    {"decoding_type": "SA", "max_draft_len": 3, "max_matching_ngram_size": 0},
    {"decoding_type": "SA", "max_draft_len": 3, "enable_global_pool": True,
     "max_matching_ngram_size": 65},
    {"decoding_type": "SA", "max_draft_len": 3, "global_pool_size": 8},
    {"decoding_type": "SA", "max_draft_len": 0},
    {"decoding_type": "PARD", "max_draft_len": 0, **M},
    {"decoding_type": "DFlash", "max_draft_len": 0, **M},
])
def test_sa_pard_dflash_refusals_agree(spec: dict[str, Any]) -> None:
    """`SADecodingConfig.validate_sa_config` (`ref.CITES["sa"]`) and the drafters' max_draft_len
    > 0: what TensorRT-LLM refuses, graphfit refuses."""
    raw = {"max_batch_size": 64, "speculative_config": spec}
    with pytest.raises(ref.Rejected):
        ref.llm_args(raw)
    with pytest.raises(ConfigError):
        plan(graphfit_config(raw))


@pytest.mark.parametrize("kind", ["DSpark", "AUTO", "User_Provided", "SaveState"])
def test_unmodelled_decoding_types_are_refused_by_name(kind: str) -> None:
    """Decoding types TensorRT-LLM has (llm_args.py @0004396720) that graphfit does not model:
    one error naming the type, not a wrong plan."""
    raw = {"max_batch_size": 64,
           "speculative_config": {"decoding_type": kind, "max_draft_len": 3, **M}}
    with pytest.raises(ref.NotModelled):
        ref.llm_args(raw)
    with pytest.raises(ConfigError, match=f"decoding_type {kind} is not modelled"):
        graphfit_config(raw)


def test_pard_dflash_sa_tokens_per_request() -> None:
    """`PARDDecodingConfig.tokens_per_gen_step` = 2 x max_draft_len, DFlash's max_draft_len + 1
    (`ref.CITES["pard"]`, `["dflash"]`), SA linear; graphfit's q and its filter agree."""
    for kind, d, q in (("PARD", 3, 6), ("DFlash", 4, 5), ("SA", 5, 6)):
        spec = {"decoding_type": kind, "max_draft_len": d, **(M if kind != "SA" else {})}
        raw = {"max_batch_size": 512, "max_num_tokens": 600, "speculative_config": spec}
        o = run_both(raw)
        assert o.engine.tokens_per_request == q, ref.cite_fact(kind.lower())
        assert o.plan is not None and o.plan.config.uniform_query_len == q, o.graphfit_error
        assert graph_sizes(o.plan) == o.engine.graph_batch_sizes


def test_beam_static_rows_and_short_capture() -> None:
    """`_create_shared_static_tensors` sizes the static rows min(max graph x W x q,
    max_num_tokens) while `filter_cuda_graph_batch_sizes` caps graphs at max_num_tokens // q
    (`ref.CITES["static_tensors"]`, `["filter_tokens"]`, `["capture_tokens"]`): with 4 beams
    and max_num_tokens 128 the 64-request graph is captured with 256 tokens from 128 rows.
    Both sides say so: the reference's short_graphs, graphfit's verify_engine."""
    raw = {"max_batch_size": 64, "max_num_tokens": 128, "max_beam_width": 4,
           "max_seq_len": 1024, "cuda_graph_config": {"max_batch_size": 64}}
    o = run_both(raw)
    assert o.engine.static_rows() == 128 and 64 in o.engine.short_graphs()
    assert o.plan is not None and not buffer_mismatches(o), buffer_mismatches(o)
    assert o.engine.buffers()["cache_indirection"] == 64 * 4 * 1024


@st.composite
def adp_cases(draw: st.DrawFn) -> tuple[dict[str, Any], tuple[int, ...]]:
    raw: dict[str, Any] = {"max_batch_size": draw(st.integers(1, 300)),
                           "max_num_tokens": draw(st.integers(1, 3000)),
                           "enable_attention_dp": True, "tensor_parallel_size": 4}
    cfg: dict[str, Any] = {"enable_padding": draw(st.booleans())}
    if draw(st.booleans()):
        cfg["batch_sizes"] = draw(st.lists(st.integers(1, 300), min_size=1, max_size=6))
    raw["cuda_graph_config"] = cfg
    ranks = draw(st.integers(2, 8))
    batches = tuple(draw(st.lists(st.integers(1, 320), min_size=ranks, max_size=ranks)))
    return raw, batches


@given(adp_cases())
def test_attention_dp_padding_matches_reference(case: tuple[dict[str, Any], tuple[int, ...]]
                                                ) -> None:
    """`CUDAGraphRunner._get_padded_batch` + `maybe_get_cuda_graph` under attention DP
    (`ref.CITES["adp_padding"]`): graphfit's `adp_dispatch` on its own plan's sizes gives
    every rank the graph TensorRT-LLM's reference does (or eager for all)."""
    from graphfit.planner.engines.trtllm import adp_dispatch

    raw, batches = case
    o = run_both(raw)
    assert o.plan is not None, o.graphfit_error
    sizes = graph_sizes(o.plan)
    got = adp_dispatch(sizes, batches, padding=bool(o.plan.config.cuda_graph_padding),
                       max_batch_size=o.plan.config.max_num_seqs)
    assert got == o.engine.adp_dispatch(batches), (ref.cite_fact("adp_padding"), raw, batches)


# --------------------------------------------------------------------------------------------
# Prefill and encoder ladders (graphfit.planner.engines.trtllm_ladders)
# --------------------------------------------------------------------------------------------


@given(st.lists(st.integers(-5, 5000), max_size=12), st.integers(1, 4096),
       st.integers(1, 64), st.integers(1, 200))
def test_piecewise_capture_filter_matches_reference(candidates: list[int], tokens: int,
                                                    batch: int, seq: int) -> None:
    """`_filter_piecewise_capture_num_tokens` (`ref.CITES["piecewise_filter"]`)."""
    from graphfit.planner.engines.trtllm_ladders import piecewise_capture_num_tokens

    kept, unrecordable = piecewise_capture_num_tokens(candidates, tokens, batch, seq)
    want = ref.filter_piecewise_capture_num_tokens(candidates, tokens, batch, seq)
    assert (list(kept), list(unrecordable)) == want, ref.cite_fact("piecewise_filter")


@given(st.integers(1, 20000), st.booleans(), st.integers(1, 20000))
def test_encoder_buckets_match_reference(maximum: int, padding: bool, limit: int) -> None:
    """`EncodeCudaGraphConfig` num_tokens / seq_lens generation
    (`ref.CITES["encode_graph_config"]`) and the engine's bucket filters."""
    from graphfit.planner.engines import trtllm_ladders as lad

    tokens = lad.encoder_num_tokens(maximum, padding)
    seqs = lad.encoder_seq_lens(maximum, padding)
    assert list(tokens) == ref.generate_encoder_num_tokens(maximum, padding)
    assert list(seqs) == ref.generate_encoder_seq_lens(maximum, padding)
    for values in (tokens, seqs):
        assert list(lad.filter_encoder_values(values, limit, padding)) == (
            ref.filter_encoder_buckets(values, limit, padding))


@given(st.lists(st.tuples(st.integers(0, 600), st.integers(0, 64)), max_size=6))
def test_multimodal_encoder_buckets_match_reference(buckets: list[tuple[int, int]]) -> None:
    """`MultimodalEncoderCudaGraphConfig._normalize` (`ref.CITES["mm_encoder_graph_config"]`):
    what TensorRT-LLM refuses, graphfit refuses; the rest sorted and unique on both sides."""
    from graphfit.planner.engines.trtllm_ladders import mm_encoder_buckets

    try:
        want = ref.mm_encoder_buckets(buckets)
    except ref.Rejected:
        with pytest.raises(ConfigError):
            mm_encoder_buckets(buckets)
        return
    assert list(mm_encoder_buckets(buckets)) == want
