"""Helpers for an engine's own CI: hypothesis strategies for engine configs and assertions.

    from hypothesis import given
    from graphfit.testing import assert_plan_safe, engine_plans

    @given(engine_plans(engines=("vllm",), methods=("dflash",)))
    def test_my_drafter_buffers_fit(plan):
        assert_plan_safe(plan, {"drafter.positions": "max(S*q, C)"})

Capacities are rows per "component.buffer", as integers or formulas over S, T, k, q, C, R,
M, H, topk (graphfit.planner.analysis.capexpr), so the formula your engine allocates with can be
property-tested against every reachable batch of every generated config.

Filters narrow the configs to what an engine's CI actually runs: `versions` (the engine
releases graphfit models, e.g. "0.33.0"; vLLM configs are drawn from every modelled release
unless narrowed, each config naming its `engine_version`), `runners` ("v1"/"v2": V1 only on
releases that have it, 0.33.0 and earlier), `ladders`, `modes`,
`attention_support` (the cudagraph support levels your attention backend has: a pinned level
leaves one scenario) and, in `verify` / `assert_plan_safe`, `scenario="assumed"` (only the
scenario the plan follows, not every level vLLM could resolve to):

    @given(engine_plans(engines=("vllm",), versions=("0.33.0",), runners=("v1",),
                        attention_support=("UNIFORM_BATCH",)))
    def test_my_sizing(plan): ...

Every config the strategies yield is one `plan()` accepts.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import cache, lru_cache
from typing import Any, cast

try:
    from hypothesis import strategies as st
except ImportError as exc:  # pragma: no cover - hypothesis is in graphfit[test]
    raise ImportError("graphfit.testing needs hypothesis: pip install 'graphfit[test]'") from exc

from graphfit.planner.analysis.capexpr import capacities_for
from graphfit.planner.analysis.properties import counterexamples
from graphfit.planner.config import EngineConfig
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.options import EngineOptions
from graphfit.planner.core.verify import Verification
from graphfit.planner.engines.sglang_options import SglangOptions
from graphfit.planner.engines.trtllm_options import TrtllmOptions
from graphfit.planner.engines.vllm.options import VllmOptions
from graphfit.planner.plan import Plan
from graphfit.planner.plan import plan as make_plan

VLLM_METHODS = ("eagle", "eagle3", "mtp", "draft_model", "dflash", "ngram", "ngram_gpu",
                "suffix", "dspark", "extract_hidden_states")
VLLM_LEVELS = ("NEVER", "UNIFORM_SINGLE_TOKEN_DECODE", "UNIFORM_BATCH", "ALWAYS")
# backends whose levels never include NEVER (so every mode stays valid), GPU-dependent ones too
VLLM_BACKENDS = ("FLASH_ATTN", "FLASHINFER", "TRITON_ATTN", "FLEX_ATTENTION", "FLASHMLA",
                 "CUTLASS_MLA")
SGLANG_METHODS = ("eagle", "eagle3", "mtp", "draft_model", "ngram", "dflash", "dspark", "uno")
TRTLLM_METHODS = ("eagle", "eagle3", "mtp", "draft_model", "ngram")
# the speculative methods each built-in engine's strategies generate: each engine's `methods`
# part in the plugin table names its tuple (`methods_of` reads the table, plugins included)
METHODS = {"vllm": VLLM_METHODS, "sglang": SGLANG_METHODS, "trtllm": TRTLLM_METHODS}
VLLM_MODES = ("NONE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE")


def methods_of(engine: str) -> tuple[str, ...] | None:
    """The speculative methods `engine`'s strategies generate: its `methods` part in the
    plugin table (graphfit.planner.engines.table); None for an engine without one (a
    described engine, an unknown name)."""
    from graphfit.planner.engines.table import part, plugin

    try:
        if plugin(engine).methods is None:
            return None
        return tuple(cast(Sequence[str], part(engine, "methods")))
    except ConfigError:
        return None


def _method(draw: st.DrawFn, k: int, allowed: Sequence[str],
            methods: Sequence[str] | None) -> str:
    if not k:
        return "none"
    pool = [m for m in allowed if methods is None or m in methods]
    if not pool:
        raise ValueError(f"methods {methods!r} has none of {allowed!r}")
    return draw(st.sampled_from(pool))


def _checked(label: str, given: Sequence[str | None] | None,
             allowed: Sequence[str | None]) -> tuple[str | None, ...] | None:
    """A filter's values, each one of `allowed` (ValueError names the unknown one)."""
    if given is None:
        return None
    if isinstance(given, str):
        given = (given,)
    values = tuple(given)
    for value in values:
        if value not in allowed:
            raise ValueError(f"{label}: {value!r} is not one of {allowed!r}")
    if not values:
        raise ValueError(f"{label}: needs at least one value")
    return values


def vllm_versions() -> tuple[str, ...]:
    """The vLLM releases graphfit models, oldest first (e.g. 0.32.0, 0.33.0, 0.34.0)."""
    from graphfit.planner.engines.registry import versions

    return versions("vllm")


def vllm_runners(version: str) -> tuple[str, ...]:
    """The model runners a vLLM release has: V1 and V2 up to 0.33, V2 alone from 0.34 (V1
    was removed: platforms/interface.py:1481-1491 in 0.34.0)."""
    from graphfit.planner.engines.registry import engine_model

    changes = getattr(engine_model("vllm", version), "changes", None)
    return ("v1", "v2") if getattr(changes, "v1_runner", True) else ("v2",)


def vllm_configs(*, max_seqs: int = 256, max_tokens: int = 4096, max_k: int = 15,
                 methods: Sequence[str] | None = None, modes: Sequence[str] = VLLM_MODES,
                 ladders: Sequence[str] = ("vllm", "vllm-legacy"),
                 runners: Sequence[str] = ("v1", "v2"),
                 attention_support: Sequence[str | None] | None = None,
                 versions: Sequence[str] | None = None
                 ) -> st.SearchStrategy[EngineConfig]:
    """Valid vLLM configs: release, ladder, mode, runner, ceiling, performance mode, an
    optional max or user list (unsorted, above T: vLLM sorts and drops), attention support
    levels given, from a backend or unknown, every speculative method on the runners that run
    it; only configs `plan()` accepts.

    `versions` restricts the release (default: every modelled release; each config names its
    `engine_version`); `attention_support` the target's level (None in it: left unknown, or
    from a backend); `runners` and `ladders` to these. A runner is drawn only for releases
    that have it (V1: 0.33.0 and earlier)."""
    _checked("modes", modes, VLLM_MODES)
    _checked("runners", runners, ("v1", "v2"))
    levels = _checked("attention_support", attention_support, (*VLLM_LEVELS, None))
    known = vllm_versions()
    chosen = cast(tuple[str, ...], _checked("versions", versions, known) or known)
    usable = tuple(v for v in chosen if set(vllm_runners(v)) & set(runners))
    if not usable:
        raise ValueError(f"runners: none of {tuple(runners)!r} exists in vLLM "
                         f"{', '.join(chosen)} (V1 was removed in 0.34.0)")
    return _vllm_configs(max_seqs=max_seqs, max_tokens=max_tokens, max_k=max_k,
                         methods=methods, modes=tuple(modes), ladders=tuple(ladders),
                         runners=tuple(runners), levels=levels, versions=usable
                         ).filter(_plans)


@st.composite
def _vllm_configs(draw: st.DrawFn, *, max_seqs: int, max_tokens: int, max_k: int,
                  methods: Sequence[str] | None, modes: tuple[str, ...],
                  ladders: tuple[str, ...], runners: tuple[str, ...],
                  levels: tuple[str | None, ...] | None,
                  versions: tuple[str, ...]) -> EngineConfig:
    version = draw(st.sampled_from(versions))
    has = vllm_runners(version)
    method = _method(draw, 1, VLLM_METHODS, methods) if methods is not None or draw(
        st.booleans()) else "none"
    k = 0 if method == "none" else (1 if method == "extract_hidden_states"
                                    else draw(st.integers(1, max_k)))
    q = 1 + k
    S = draw(st.integers(1, max_seqs))
    T = draw(st.integers(max(S, q + 1), max(S, q + 1, max_tokens)))
    # suffix runs on V1 only while a release has V1 (0.34 runs it on V2)
    runs: tuple[str, ...] = {"dspark": ("v2",), "suffix": has[:1]}.get(method, has)
    runs = tuple(r for r in runs if r in runners and r in has)
    if not runs:  # this method runs on none of the runners asked for
        from hypothesis import reject
        reject()
    pool: tuple[str | None, ...] = (None, *VLLM_LEVELS) if levels is None else levels
    # FULL needs a level above NEVER: leave FULL out when only NEVER (or unknown) is asked
    usable_modes = tuple(m for m in modes if m != "FULL" or any(
        lv is not None and lv != "NEVER" for lv in pool)) or modes
    mode = draw(st.sampled_from(usable_modes))
    choices = tuple(lv for lv in pool if mode != "FULL" or (lv is not None and lv != "NEVER"))
    level = draw(st.sampled_from(choices or pool))
    backend = draw(st.sampled_from(VLLM_BACKENDS)) if level is None and draw(
        st.booleans()) else None
    sizes = max_size = None
    split: dict[str, object] = {}
    if _has_split_sizes(version) and draw(st.integers(0, 3)) == 0:
        split = draw(_split_fields(S, T))  # vLLM 0.34's split capture sizes
    elif draw(st.integers(0, 3)) == 0:
        sizes = tuple(draw(st.lists(st.integers(1, T + 64), min_size=1, max_size=8)))
    else:
        max_size = draw(st.none() | st.integers(q, max(q, 600)))
    ladder = draw(st.sampled_from(tuple(ladders)))
    performance_mode = draw(st.sampled_from(("balanced", "interactivity")))
    runner = draw(st.sampled_from(runs))
    ceiling_family = draw(st.sampled_from(("default", "blackwell")))
    hidden_size = draw(st.sampled_from((64, 4096)))
    # the draft's layers count in the runner's minimum too: no NEVER under mode FULL
    drafter = draw(st.none() | st.sampled_from(VLLM_LEVELS[1:] if mode == "FULL"
                                               else VLLM_LEVELS))
    options = VllmOptions.from_dict(dict(  # strings: the options coerce them
        runner=runner, ceiling_family=ceiling_family, performance_mode=performance_mode,
        attention_backend=backend, attention_cudagraph_support=level,
        drafter_attention_cudagraph_support=drafter,
        dspark_sample_from_anchor=method != "dspark" or draw(st.booleans())))
    return EngineConfig.from_dict(dict(
        **split,
        engine_version=version,
        max_num_seqs=S, max_num_batched_tokens=T, num_speculative_tokens=k,
        spec_method=method, cudagraph_mode=mode, cudagraph_capture_sizes=sizes,
        max_cudagraph_capture_size=max_size, ladder=ladder, hidden_size=hidden_size,
        options=options))


def _with_options(cls: type[EngineOptions]
                  ) -> Callable[[dict[str, object]], dict[str, object]]:
    """The fields of a drawn config in the new form: the engine's own ones gathered into its
    options object (`EngineConfig(options=...)`), the rest as they are."""
    def gather(fields: dict[str, object]) -> dict[str, object]:
        own = {name: fields[name] for name in cls.names() if name in fields}
        rest = {name: value for name, value in fields.items() if name not in own}
        return {**rest, "options": cls.from_dict(own)}

    return gather


def _has_split_sizes(version: str) -> bool:
    """Whether a vLLM release splits capture sizes into prefill tokens and decode requests."""
    from graphfit.planner.engines.registry import engine_model

    changes = getattr(engine_model("vllm", version), "changes", None)
    return bool(getattr(changes, "split_sizes", False))


@st.composite
def _split_fields(draw: st.DrawFn, S: int, T: int) -> dict[str, object]:
    """Some of vLLM 0.34's split capture-size keys: lists with sizes outside [1, limit] too
    (vLLM drops them), caps down to 0, a decode token budget."""
    out: dict[str, object] = {}
    if draw(st.booleans()):
        out["prefill_cudagraph_capture_token_sizes"] = tuple(draw(st.lists(
            st.integers(0, T + 64), max_size=8)))
    elif draw(st.booleans()):
        out["max_prefill_cudagraph_capture_tokens"] = draw(st.integers(0, T + 64))
    if draw(st.booleans()):
        out["decode_cudagraph_capture_request_sizes"] = tuple(draw(st.lists(
            st.integers(0, S + 8), max_size=8)))
    elif draw(st.booleans()) or not out:
        out["max_decode_cudagraph_capture_requests"] = draw(st.integers(0, S + 8))
    if draw(st.integers(0, 3)) == 0:
        out["max_decode_cudagraph_capture_tokens"] = draw(st.integers(1, 2 * T))
    return out


def _plans(config: EngineConfig) -> bool:
    """Whether the engine builds graphs for `config` (SGLang asserts on an empty list)."""
    return _plan_or_none(config) is not None


GPU_MEMORY_GB = (None, 16.0, 24.0, 40.0, 79.6, 140.4, 180.0)
# the a2a backend a two-batch-overlap line without attention DP carries: DeepEP plans on any
# TP width and model class in auto mode (Mooncake / NIXL refuse a known class's normal mode)
TBO_A2A = "deepep"


@st.composite
def _sglang_fields(draw: st.DrawFn, *, max_seqs: int, max_k: int,
                   methods: Sequence[str] | None) -> dict[str, object]:
    speculative = draw(st.booleans()) if methods is None else True
    method = _method(draw, 1 if speculative else 0, SGLANG_METHODS, methods)
    fields: dict[str, object] = {"engine": "sglang", "spec_method": method}
    if method == "ngram":
        fields["speculative_num_draft_tokens"] = draw(st.none() | st.integers(2, 32))
    elif method in ("dflash", "dspark"):  # the block / gamma + 1; steps, topk forced to 1
        fields["speculative_num_draft_tokens"] = draw(st.integers(2, 16))
        if method == "dspark":  # the draft config's sample_from_anchor
            fields["dspark_samples_anchor"] = draw(st.booleans())
            # SGLang's environment modes (graphfit.planner.engines.sglang_dspark_modes)
            fields["dspark_proposal"] = draw(st.sampled_from(("sampling", "sampling",
                                                              "greedy", "eager")))
            fields["dspark_mid_fold"] = draw(st.integers(0, 3)) == 0
        else:
            head = draw(st.sampled_from(("dflash", "dflash", "domino", "selector",
                                         "lilicorr")))
            if head == "domino":  # the draft's own sampler buffers
                fields["dflash_domino"] = True
            elif head == "selector":
                fields["dflash_selector_top_k"] = draw(st.integers(1, 16))
            elif head == "lilicorr":  # a power of two <= 16 (lilicorr_utils.py:73-83)
                fields["dflash_lilicorr_top_k"] = draw(st.sampled_from((1, 2, 4, 8, 16)))
                # its head geometry (graphfit.planner.engines.sglang_lilicorr_weights), small
                # widths so the CPU runtime's weight-sized buffers stay small
                fields["dflash_lilicorr_head"] = draw(st.sampled_from((None, (16, 2, 8),
                                                                       (32, 4, 8))))
    elif method == "uno":  # linear F, or a tree within SGLang's limits (sglang_uno)
        if draw(st.booleans()):
            fields["speculative_num_draft_tokens"] = draw(st.integers(1, 16))
        else:
            topk, steps = draw(st.integers(2, 4)), draw(st.integers(2, 5))
            fields.update(speculative_eagle_topk=topk, num_speculative_tokens=steps,
                          speculative_num_draft_tokens=draw(st.integers(
                              steps + 1, topk * (steps - 1) + 2)))
    elif method != "none":
        if draw(st.integers(0, 3)) == 0:  # SGLang's defaults (by model class)
            fields["architecture"] = draw(st.sampled_from(("LlamaForCausalLM",
                                                           "Qwen2ForCausalLM")))
        else:
            k = draw(st.integers(1, max_k))
            topk = draw(st.sampled_from((1, 1, 2, 4, 8)))
            fields.update(num_speculative_tokens=k, speculative_eagle_topk=topk,
                          speculative_num_draft_tokens=(
                              k + 1 if topk == 1 else draw(st.integers(2, topk * k + 1))))
    if draw(st.integers(0, 4)):
        fields["max_num_seqs"] = draw(st.integers(1, max_seqs))
    graphs = draw(st.sampled_from(("default", "max_bs", "bs", "off")))
    if graphs == "max_bs":
        fields["max_cudagraph_capture_size"] = draw(st.integers(1, 640))
    elif graphs == "bs":
        fields["cudagraph_capture_sizes"] = sorted(draw(st.sets(
            st.integers(1, 2 * max_seqs), min_size=1, max_size=12)))
    elif graphs == "off":
        fields["cudagraph_mode"] = "NONE"
    tp = 1 if method == "uno" else draw(st.sampled_from((1, 1, 2, 4, 8)))  # UNO: TP = 1
    fields["tp_size"] = tp
    no_dp = ("ngram", "draft_model")  # SGLang refuses DP there
    if tp > 1 and method not in no_dp and draw(st.booleans()):
        fields["attn_dp_size"] = draw(st.sampled_from([d for d in (2, 4, 8) if tp % d == 0]))
        if method in ("dflash", "dspark"):  # SGLang requires it (sglang_spec_dp)
            fields["enable_dp_lm_head"] = True
    elif tp > 1 and draw(st.integers(0, 3)) == 0:
        fields["attn_cp_size"] = 2
    tree_uno = method == "uno" and "speculative_eagle_topk" in fields  # no TBO there
    fields.update(
        two_batch_overlap=draw(st.booleans()) and not tree_uno,
        gpu_memory_gb=draw(st.sampled_from(GPU_MEMORY_GB)),
        cuda_graph_padding=draw(st.booleans()), hidden_size=draw(st.sampled_from((64, 4096))),
        vocab_size=draw(st.sampled_from((1000, 128256))))
    if fields["two_batch_overlap"] and "attn_dp_size" not in fields:
        # without attention DP SGLang refuses two-batch overlap unless an a2a backend is
        # resolved (validation_hook.py:756-772; graphfit.planner.engines.sglang_server_checks)
        fields["moe_a2a_backend"] = TBO_A2A
    if method == "dspark":  # SGLANG_RAGGED_VERIFY_MODE (sglang_dspark_epilogue); SGLang
        # refuses compact with two-batch overlap or without padding
        refused = fields["two_batch_overlap"] or not fields["cuda_graph_padding"]
        fields["ragged_verify_mode"] = draw(st.sampled_from(
            ("static", "static", "cap-accept", *(() if refused else ("compact",)))))
        # attention DP keeps every mode: no all-to-all backend or coordination is drawn
        # (those need static, speculative_hook.py:683-696; sglang_spec_dp)
        fields["dspark_target_layers"] = draw(st.integers(1, 4))
        # SGLANG_OPT_DSV41_POST_FORWARD_CUDA_GRAPH: the epilogue's block_accept_lens
        fields["dspark_post_forward_graph"] = draw(st.integers(0, 3)) == 0
    # prefill graphs (token counts): a small chunk keeps the prefill family short
    if draw(st.integers(0, 4)):
        fields["chunked_prefill_size"] = draw(st.integers(8, 1200))
    prefill = draw(st.sampled_from(("default", "max_bs", "bs", "full", "off")))
    if prefill == "max_bs":
        fields["cuda_graph_max_bs_prefill"] = draw(st.integers(1, 1500))
    elif prefill == "bs":
        fields["cuda_graph_bs_prefill"] = sorted(draw(st.sets(st.integers(1, 1500),
                                                              min_size=1, max_size=8)))
    elif prefill == "full":
        fields["cuda_graph_backend_prefill"] = "full"
        if draw(st.booleans()):
            fields["full_prefill_max_req"] = draw(st.integers(1, 16))
    elif prefill == "off":
        fields["cuda_graph_backend_prefill"] = "disabled"
    if draw(st.integers(0, 5)) == 0:
        fields["disaggregation_mode"] = draw(st.sampled_from(("prefill", "decode")))
    if method != "none" and draw(st.integers(0, 3)) == 0:
        # multi-layer EAGLE (STANDALONE and NGRAM ignore the switch, as SGLang does)
        fields["multi_layer_eagle"] = True
    if method == "mtp" and "architecture" not in fields and draw(st.integers(0, 3)) == 0:
        fields["frozen_kv_mtp"] = True  # SGLang's FROZEN_KV_MTP
        if draw(st.booleans()):  # the draft's backbone_hidden_size, not the target's
            fields["draft_hidden_size"] = draw(st.sampled_from((1536, 2560, 3840)))
    return fields


def sglang_configs(*, max_seqs: int = 256, max_k: int = 8,
                   methods: Sequence[str] | None = None) -> st.SearchStrategy[EngineConfig]:
    """SGLang 0.5.23 configs it starts with: decode or speculative (EAGLE trees, NGRAM, the
    model-class defaults), max_running_requests given or not, decode max_bs from a GPU's
    memory or given, explicit lists, TP / attention DP / CP, two-batch overlap, padding on or
    off, graphs off (configs whose graph runner would assert are left out), prefill graphs
    (breakable or full, token lists, PD roles)."""
    return (_sglang_fields(max_seqs=max_seqs, max_k=max_k, methods=methods)
            .map(_with_options(SglangOptions)).map(EngineConfig.from_dict).filter(_plans))


TREE_METHODS = ("eagle", "eagle3", "mtp")


@st.composite
def _trtllm_fields(draw: st.DrawFn, *, max_seqs: int, max_tokens: int, max_k: int,
                   methods: Sequence[str] | None) -> dict[str, object]:
    k = draw(st.integers(0 if methods is None else 1, max_k))
    method = _method(draw, k, TRTLLM_METHODS, methods)
    fields: dict[str, object] = {"engine": "trtllm", "spec_method": method,
                                 "num_speculative_tokens": k}
    if k and method in TREE_METHODS:
        tree = draw(st.sampled_from(("linear", "total", "dynamic")))
        if tree == "total":  # a static tree (eagle_choices) of more nodes than its depth
            fields["speculative_num_draft_tokens"] = 1 + draw(st.integers(k, 4 * k))
        elif tree == "dynamic":
            topk = draw(st.integers(1, 4))
            fields["speculative_eagle_topk"] = topk
            if draw(st.booleans()):
                fields["speculative_num_draft_tokens"] = 1 + draw(st.integers(k, topk * k))
    if k and draw(st.integers(0, 4)) == 0:
        fields["draft_len_schedule"] = sorted(draw(st.sets(st.integers(1, 300), min_size=1,
                                                           max_size=3)))
    if draw(st.integers(0, 5)):
        fields["max_num_seqs"] = draw(st.integers(1, max_seqs))
    fields["max_num_batched_tokens"] = draw(st.integers(1, max_tokens))
    graphs = draw(st.sampled_from(("default", "max_bs", "bs", "off")))
    if graphs == "max_bs":
        fields["max_cudagraph_capture_size"] = draw(st.integers(1, 1024))
    elif graphs == "bs":
        fields["cudagraph_capture_sizes"] = sorted(draw(st.sets(st.integers(1, 700),
                                                                min_size=1, max_size=8)))
    elif graphs == "off":
        fields["cudagraph_mode"] = "NONE"
    fields["cuda_graph_padding"] = draw(st.booleans())
    # prefill graphs (token counts): the default list, or a list around max_num_tokens
    prefill = draw(st.sampled_from(("off", "off", "piecewise", "breakable")))
    if prefill != "off":
        fields["prefill_cuda_graph_backend"] = prefill
        if draw(st.booleans()):
            fields["prefill_capture_num_tokens"] = draw(st.lists(
                st.integers(-2, max_tokens + 64), max_size=8))
        if draw(st.booleans()):
            fields["max_model_len"] = draw(st.integers(1, 4096))
    return fields


def trtllm_configs(*, max_seqs: int = 256, max_tokens: int = 4096, max_k: int = 7,
                   methods: Sequence[str] | None = None) -> st.SearchStrategy[EngineConfig]:
    """TensorRT-LLM configs: default or given max_batch_size, any max_num_tokens (below it
    too: TensorRT-LLM only warns, and may capture no graph), CudaGraphConfig max batch size
    or list, padding, draft length with linear, static-tree and dynamic-tree speculation,
    draft_len_schedule, prefill graphs (piecewise or breakable, default or drawn token
    counts)."""
    return (_trtllm_fields(max_seqs=max_seqs, max_tokens=max_tokens, max_k=max_k,
                           methods=methods)
            .map(_with_options(TrtllmOptions)).map(EngineConfig.from_dict).filter(_plans))


def _described(engine: str) -> bool:
    from graphfit.planner.engines.registry import engine_model

    try:
        return hasattr(engine_model(engine), "description")
    except ConfigError:
        return False


def described_configs(engine: str, *, max_seqs: int = 64, max_tokens: int = 1024,
                      max_k: int = 7, speculative: bool = False
                      ) -> st.SearchStrategy[EngineConfig]:
    """Configs of a described engine (registered from its description or --engine-file):
    the request pool, the token budget and the speculative tokens (k >= 1 when
    `speculative`), the inputs every description's formulas read."""
    from graphfit.planner.core.enums import EngineName

    def build(s: int, t: int, k: int) -> EngineConfig:
        return EngineConfig(engine=EngineName(engine), max_num_seqs=s,
                            max_num_batched_tokens=max(s, t), num_speculative_tokens=k)

    return st.builds(build, st.integers(1, max_seqs), st.integers(1, max_tokens),
                     st.integers(1 if speculative else 0, max_k)).filter(_plans)


def engine_configs(*, engines: Sequence[str] = ("vllm", "sglang", "trtllm"),
                   max_seqs: int = 256, methods: Sequence[str] | None = None,
                   runners: Sequence[str] | None = None, ladders: Sequence[str] | None = None,
                   attention_support: Sequence[str | None] | None = None,
                   modes: Sequence[str] | None = None, versions: Sequence[str] | None = None
                   ) -> st.SearchStrategy[EngineConfig]:
    """Valid configs of the given engines (`methods`: only speculative configs of those;
    a described engine's drafter counts as draft_model).

    `runners`, `ladders`, `attention_support` and `modes` are vLLM's (see `vllm_configs`);
    given, they leave the other engines out. `versions` narrows vLLM's releases (those of
    them graphfit models) and keeps another engine only when its modelled release is one."""
    if versions is not None:
        if isinstance(versions, str):
            versions = (versions,)
        modelled = modelled_versions(tuple(e for e in engines if e in METHODS))
        vllm_asked = tuple(v for v in versions if v in vllm_versions())
        engines = tuple(e for e in engines if (vllm_asked if e == "vllm"
                                               else modelled.get(e) in versions))
        if not engines:
            raise ValueError(f"versions: graphfit models {modelled} (vLLM: "
                             f"{', '.join(vllm_versions())}), none of {tuple(versions)!r}")
    if any(f is not None for f in (runners, ladders, attention_support, modes)):
        engines = tuple(e for e in engines if e == "vllm")
        if not engines:
            raise ValueError("runners / ladders / attention_support / modes filter vLLM "
                             "configs: include 'vllm' in engines")
    vllm_filters: dict[str, Any] = {
        k: v for k, v in (("runners", runners), ("ladders", ladders), ("modes", modes),
                          ("attention_support", attention_support)) if v is not None}
    if versions is not None and "vllm" in engines:
        vllm_filters["versions"] = tuple(v for v in versions if v in vllm_versions())
    from graphfit.planner.engines.table import part

    choices: list[st.SearchStrategy[EngineConfig]] = []
    for engine in engines:
        allowed = methods_of(engine)
        if allowed is None and _described(engine):
            if methods is None or "draft_model" in methods:
                choices.append(described_configs(engine, max_seqs=max_seqs,
                                                 speculative=methods is not None))
            continue
        if allowed is None:
            raise ValueError(f"engine {engine!r} is not one of {', '.join(METHODS)} or a "
                             "registered described engine")
        if methods is not None and not set(methods) & set(allowed):
            continue
        # the engine's strategies, as its entry in the plugin table names them
        factory = cast(Any, part(engine, "strategies"))
        extra = vllm_filters if engine == "vllm" else {}
        choices.append(factory(max_seqs=max_seqs, methods=methods, **extra))
    if not choices:
        raise ValueError(f"no engine of {engines!r} supports methods {methods!r}")
    return st.one_of(choices)


@lru_cache(maxsize=64)  # the strategies' filter plans a config, then engine_plans maps it
def _plan_or_none(config: EngineConfig) -> Plan | None:
    try:
        return make_plan(config)
    except ConfigError:  # the engine itself rejects it (e.g. vLLM: max capture below q)
        return None


def modelled_versions(engines: Sequence[str] = ("vllm", "sglang", "trtllm")) -> dict[str, str]:
    """engine -> the version graphfit's engine model follows (e.g. "0.33.0")."""
    from graphfit.planner.core.enums import Engine
    from graphfit.planner.engines.registry import engine_model

    out = {}
    for engine in engines:
        label = str(engine_model(Engine(engine)).version)  # e.g. "vLLM 0.33.0"
        found = re.search(r"\d+(?:\.\d+)+", label)
        out[engine] = found.group(0) if found else ""
    return out


def method_configs(size: Mapping[str, object]) -> list[tuple[str, EngineConfig]]:
    """(label, config) for every speculative method (and none) each built-in engine models,
    on each vLLM runner (V1 on 0.33.0, the newest release that has it), at one size: the
    fixed set the buffer catalogue and the GPU rehearsal walk. Methods the engine refuses on
    a runner are left out; `size` gives the shared fields (max_num_seqs, k, ...)."""
    out: list[tuple[str, EngineConfig]] = []
    for engine, methods, runners in (("vllm", VLLM_METHODS, ("v1", "v2")),
                                     ("sglang", SGLANG_METHODS, (None,)),
                                     ("trtllm", TRTLLM_METHODS, (None,))):
        for method in ("none", *methods):
            for runner in runners:
                fields: dict[str, object] = dict(size, engine=engine, spec_method=method)
                if method == "none":
                    fields["num_speculative_tokens"] = 0
                if method == "extract_hidden_states":
                    fields["num_speculative_tokens"] = 1
                if method == "uno":  # SGLang's linear UNO: F = k + 1 tokens a request
                    fields["speculative_num_draft_tokens"] = int(str(
                        size.get("num_speculative_tokens", 1))) + 1
                if runner is not None:
                    fields["runner"] = runner
                if runner == "v1":  # V1 exists up to vLLM 0.33 (0.34, the default, removed it)
                    fields["engine_version"] = "0.33.0"
                try:
                    config = EngineConfig.from_dict(fields)
                    make_plan(config)
                except ConfigError:
                    continue  # the engine refuses this method on this runner (or size)
                out.append((f"{engine} {method}" + (f" ({runner})" if runner else ""), config))
    return out


def engine_plans(*, engines: Sequence[str] = ("vllm", "sglang", "trtllm"),
                 max_seqs: int = 256, methods: Sequence[str] | None = None,
                 versions: Sequence[str] | None = None, runners: Sequence[str] | None = None,
                 ladders: Sequence[str] | None = None,
                 attention_support: Sequence[str | None] | None = None,
                 modes: Sequence[str] | None = None) -> st.SearchStrategy[Plan]:
    """Plans of `engine_configs` (same filters), leaving out configs the engine itself would
    reject. `versions` keeps vLLM's releases among them and the other engines whose modelled
    version is one of them: a version graphfit does not model is a ValueError, not a test
    that checks nothing."""
    configs = engine_configs(engines=engines, max_seqs=max_seqs, methods=methods,
                             runners=runners, ladders=ladders,
                             attention_support=attention_support, modes=modes,
                             versions=versions)
    return configs.map(_plan_or_none).filter(lambda p: p is not None)  # type: ignore[return-value]


def pinned(plan: Plan, scenario: str = "assumed") -> Plan:
    """The plan with its unknown inputs pinned to one scenario (default: the assumed one, the
    levels the plan follows), so it covers no other: what an engine whose attention backend's
    level is known actually runs. `scenario` may also be a covered scenario's label."""
    if plan.assumed is None:
        return plan
    if scenario == "assumed":
        chosen = plan.assumed
    else:
        found = [s for s in (plan.assumed, *plan.covered) if s.label == scenario]
        if not found:
            labels = [s.label for s in (plan.assumed, *plan.covered)]
            raise ConfigError(f"scenario: {scenario!r} is not one of {labels}")
        chosen = found[0]
    return make_plan(plan.config.replace(**dict(chosen.settings)))


def _variants() -> Iterator[Plan]:
    """Small plans of every engine, release (vLLM's), method, runner and multimodal setting
    (the buffers any engine config can have)."""
    from graphfit.planner.core.enums import Engine

    kinds = [(engine, version) for engine in Engine
             for version in (vllm_versions() if engine is Engine.VLLM else (None,))]
    for engine, version in kinds:
        release = {} if version is None else {"engine_version": version}
        for method in ("none", *(methods_of(engine.value) or ())):
            for runner in (vllm_runners(version) if version is not None else ("v1",)):
                for multimodal in (False, True):
                    for topk in ((None, 2) if engine is Engine.SGLANG else (None,)):
                        k = 0 if method == "none" else 2
                        extra: dict[str, Any] = ({"speculative_eagle_topk": topk,
                                  "speculative_num_draft_tokens": 4}
                                 if topk is not None and k else {})
                        try:
                            yield make_plan(EngineConfig.from_dict(dict(
                                engine=engine.value, max_num_seqs=4,
                                max_num_batched_tokens=64, spec_method=method,
                                num_speculative_tokens=k, runner=runner,
                                multimodal=multimodal, **release, **extra)))
                        except ConfigError:
                            continue


@cache
def known_buffers() -> frozenset[str]:
    """Every "component.buffer" some engine config has (computed once per process)."""
    return frozenset(b.key for p in _variants() for comp in p.components.values()
                     for b in comp.buffers)


def _present(plan: Plan, names: Mapping[str, object], require_all: bool) -> dict[str, object]:
    """The entries of `names` this plan has. A name no engine config has is an error (a typo
    must not make a test check nothing); a name other configs have (a drafter buffer of a
    non-speculative config) is skipped, unless `require_all`."""
    have = {b.key for comp in plan.components.values() for b in comp.buffers}
    out: dict[str, object] = {}
    for key, value in names.items():
        if key in have:
            out[key] = value
        elif require_all or key not in known_buffers():
            close = difflib.get_close_matches(str(key), sorted(known_buffers() | have), n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            where = ("this plan has no buffer" if key in known_buffers()
                     else "no engine config has a buffer")
            raise ConfigError(f"buffer: {where} {key!r}{hint}")
    return out


def verify(plan: Plan, capacities: Mapping[str, int | str] | None = None,
           fills: Mapping[str, str] | None = None, *,
           require_all: bool = False, scenario: str = "all") -> Verification:
    """The plan's exhaustive verification against capacities (ints or formulas) and fills.

    Buffer names no engine config has are an error (a misspelt name would otherwise check
    nothing). Buffers only other configs have (a drafter buffer of a non-speculative config)
    are skipped, so one sizing dict fits every generated config; `require_all=True` makes
    them an error too. `scenario="all"` checks every scenario the plan covers;
    "assumed" (or a scenario's label) only that one (`pinned`).
    """
    if scenario != "all":
        plan = pinned(plan, scenario)
    formulas = cast(dict[str, "int | str"], _present(plan, capacities or {}, require_all))
    kinds = {k: str(v) for k, v in _present(plan, fills or {}, require_all).items()}
    if capacities is None:  # graphfit's own capacities, for graphfit's runtime
        return plan.verify(None, kinds)
    # an audit: the given rows against every batch the engine's own code runs
    return plan.verify(capacities_for(plan, formulas), kinds)


def assert_plan_safe(plan: Plan, capacities: Mapping[str, int | str] | None = None,
                     fills: Mapping[str, str] | None = None, *, limit: int = 5,
                     require_all: bool = False, scenario: str = "all") -> None:
    """Fail with counterexamples when any reachable batch goes short (or pads unsafely).

    A buffer name no engine config has raises ConfigError (see `verify`)."""
    result = verify(plan, capacities, fills, require_all=require_all, scenario=scenario)
    if result.ok:
        return
    c = plan.config
    lines = [f"unsafe plan for {c.engine.value} S={c.max_num_seqs} "
             f"T={c.max_num_batched_tokens} k={c.num_speculative_tokens} "
             f"({c.spec_method.value}, ladder {c.ladder.value}):"]
    lines += [f"  {r.describe()}" for r in result.ranges()[:limit]]
    lines += [f"  {v.describe()}" for v in result.fill_ranges[:limit]]
    raise AssertionError("\n".join(lines))


def assert_property(plan: Plan, name: str, stage: str = "runtime") -> None:
    """Fail when a ladder property (graphfit.planner.analysis.properties) has counterexamples."""
    found = counterexamples(plan, name, stage)
    if found:
        raise AssertionError(f"property {name} fails on {stage} ladder {plan.capture_sizes}: "
                             f"counterexamples {found[:10]}")
