"""SGLang 0.5.23's MoE all-to-all backends (`--moe-a2a-backend`) as the decode graphs see them.

An all-to-all backend changes no buffer of its own in the decode graph runner: what it changes
is whether the runner keeps *gathered* buffers and so how the captured batch sizes are aligned.
`require_attn_tp_gather()` (utils/common.py:4133-4156) is true for any backend but "none"
unless attention DP already splits the TP group into one-rank attention groups
(`num_dp_ranks < tp_size`, :4152-4153); `require_gathered_buffer()` (:4159-4160) then makes
`get_cuda_graph_batch_size_alignment` (:4168-4180) multiply by the attention-TP width, so the
ladder holds only multiples of attn_tp_size, and the eager path rounds the batch up the same
way (`get_eager_max_batch_size`, :4188-4195). `require_mlp_tp_gather()` (:4066-4130), which
sizes `global_num_tokens_gpu` by the DP ranks (runner/base_runner.py:167-176), stays what
attention DP alone makes it while `--moe-dense-tp-size` is unset (:4090-4092; set:
graphfit.planner.engines.sglang_mlp_gather, issue 23 s69c).

Which backend is live: `initialize_moe_config()` (layers/moe/utils.py:479-492) seeds it from the
resolved `moe_a2a_backend`, and the scheduler calls it only for a MoE model
(managers/scheduler.py:1001-1008: a config with `num_experts_per_tok` or a sibling); a dense
model keeps MoeA2ABackend.NONE (utils.py:517-521). `ascend_tp` is resolved to "none"
(arg_groups/moe_hook.py:463-470).

A dense model (SglangOptions.dense_model) splits the two: argument resolution runs before the
scheduler and applies the backend's rules whatever the model (its mori / pplx budgets, DeepEP's
normal mode turning graphs off, the prefill backend it leaves on, DeepEP's 8-aligned prefill
buckets, the memory hook's reserve), while every graph runner, the draft's included
(`speculative_moe_a2a_backend_context` then reads an unseeded flag, utils.py:541-548), sees
none: `runtime_backend` answers "none" there, the resolution rules read the config's own
`moe_a2a_backend`.

`--disable-attn-tp-gather` (issue 23, s68l) makes `require_attn_tp_gather()` False before the
backend is read (utils/common.py:4142-4143): for models that gather inside their own attention,
the runners then neither pad the batch to the attention-TP width nor keep gathered buffers for
it (fields/parallel.py:262-272). No start-up hook reads it (its only other reader,
`batches_are_unpadded`, layer_boundary/layout.py:87-97, picks a layer variant, no buffer).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar, cast

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines.sglang_waterfill import resolved_a2a


class _Drafted(Protocol):
    @property
    def moe_a2a_backend(self) -> str: ...
    @property
    def speculative_moe_a2a_backend(self) -> str | None: ...


_T = TypeVar("_T", bound=_Drafted)

# SGLang's --moe-a2a-backend choices (arg_groups/fields/exec_.py:836-868)
BACKENDS = ("none", "deepep", "mooncake", "nixl", "mori", "ascend_fuseep", "flashinfer",
            "megamoe", "deepep_v2", "ascend_tp", "pplx", "flashinfer_megamoe")
# backends whose prefill graphs stay on by default; any other disables them unless a prefill
# backend is given (cuda_graph_hook.py:223-229, resolved before ascend_tp becomes none)
PREFILL_VALIDATED = ("none", "deepep", "megamoe", "flashinfer")
# graphfit's reason for each backend it refuses: SGLang's own checks on them read things
# graphfit does not know (the checkpoint's expert layout). The other backends' start-up rules:
# check_dispatch here (mori, pplx), graphfit.planner.engines.sglang_megamoe,
# sglang_deepep_v2, sglang_flashinfer_a2a, sglang_flashinfer_megamoe
REFUSED: dict[str, str] = {}  # flashinfer_megamoe: sglang_flashinfer_megamoe
# the dispatch-token budgets SGLang asserts for mori and pplx: environment variables
# (SglangOptions.mori_dispatch_tokens_per_rank / pplx_dispatch_tokens_per_rank, read by
# graphfit.inputs.environment); their defaults (environ.py:930, 1453; the checks at
# moe_hook.py:566-573, 614-621)
MORI_DISPATCH_TOKENS = 4096  # SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK
PPLX_DISPATCH_TOKENS = 128  # SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK
PPLX_RUNNERS = ("auto", "deep_gemm")  # moe_hook.py:599-602


class _Parallel(Protocol):
    @property
    def tp_size(self) -> int: ...
    @property
    def attn_dp_size(self) -> int: ...
    @property
    def moe_a2a_backend(self) -> str: ...


class _Dispatch(_Parallel, Protocol):
    @property
    def deepep_mode(self) -> str: ...
    @property
    def chunked_prefill_size(self) -> int | None: ...
    @property
    def disaggregation_mode(self) -> str: ...
    @property
    def max_cudagraph_capture_size(self) -> int | None: ...
    @property
    def moe_runner_backend(self) -> str: ...
    @property
    def mori_dispatch_tokens_per_rank(self) -> int: ...
    @property
    def pplx_dispatch_tokens_per_rank(self) -> int: ...


def check_dispatch(config: _Dispatch, default_chunk: int) -> None:
    """SGLang's start-up checks of the mori and pplx backends (`handle_a2a_moe`,
    arg_groups/moe_hook.py:543-622), as graphfit's errors. Both read the chunked prefill size
    after attention DP divided it (parallel_hook.py:328-333 runs first, pipeline.py:274, 295)
    against a per-rank dispatch budget that is an environment variable (default 4096 for mori,
    128 for pplx; SglangOptions.*_dispatch_tokens_per_rank). pplx also needs attention DP with 2+
    groups, low-latency dispatch (auto resolves to it) and, for the decode graphs, the given
    --cuda-graph-max-bs-decode inside the same budget. `default_chunk`: SGLang's
    chunked_prefill_size when not given (by GPU memory, memory_hook.py:89-180)."""
    name = config.moe_a2a_backend
    if name not in ("mori", "pplx"):
        return
    if name == "pplx":
        if config.deepep_mode == "normal":
            raise ConfigError("pplx only supports low-latency dispatch: SGLang refuses "
                              "--deepep-mode normal (arg_groups/moe_hook.py:576-580)")
        if config.moe_runner_backend not in PPLX_RUNNERS:
            raise ConfigError(f"pplx runs only with --moe-runner-backend deep_gemm or auto, not "
                              f"{config.moe_runner_backend}: SGLang asserts (arg_groups/"
                              f"moe_hook.py:599-602)")
        if config.attn_dp_size < 2:
            raise ConfigError("pplx needs attention DP with at least 2 groups (--attn-dp-size "
                              ">= 2): SGLang asserts (arg_groups/moe_hook.py:591-594)")
    if config.disaggregation_mode == "decode" or (
            config.chunked_prefill_size is not None and config.chunked_prefill_size <= 0):
        return  # moe_hook.py:566, 614: no prefill dispatch to bound (chunked prefill off)
    cps = default_chunk if config.chunked_prefill_size is None else config.chunked_prefill_size
    if config.attn_dp_size > 1:
        cps //= config.attn_dp_size
    need, what = cps, "chunked prefill / attention DP"
    if name == "pplx" and config.max_cudagraph_capture_size is not None and (
            config.max_cudagraph_capture_size > need):
        need, what = config.max_cudagraph_capture_size, "decode graph max_bs"
    budget, env, line = ((config.mori_dispatch_tokens_per_rank,
                          "SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK", "566-573")
                         if name == "mori" else
                         (config.pplx_dispatch_tokens_per_rank,
                          "SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK", "614-621"))
    if need > budget:
        raise ConfigError(f"{name}: {need} dispatch tokens per rank ({what}) > {env}="
                          f"{budget}: SGLang asserts (moe_hook.py:{line})")


def check_backend(backend: str) -> str:
    """The backend name, lower-cased, if SGLang accepts it and graphfit models it."""
    name = backend.strip().lower()
    if name not in BACKENDS:
        raise ConfigError(f"moe_a2a_backend: {backend!r} is not one of {', '.join(BACKENDS)} "
                          f"(arg_groups/fields/exec_.py:836-868)")
    if name in REFUSED:
        raise ConfigError(f"moe_a2a_backend: {name} is not modelled ({REFUSED[name]})")
    return name


DEEPEP_MODES = ("auto", "normal", "low_latency")  # arg_groups/fields/exec_.py:898-901


def check_deepep_mode(mode: object) -> str:
    """`--deepep-mode`, lower-cased, if one of SGLang's choices."""
    if not isinstance(mode, str) or mode.strip().lower() not in DEEPEP_MODES:
        raise ConfigError(f"deepep_mode: {mode!r} is not one of {', '.join(DEEPEP_MODES)} "
                          f"(arg_groups/fields/exec_.py:898-901)")
    return mode.strip().lower()


def check_runner(runner: object) -> str:
    """`--moe-runner-backend`, lower-cased (SGLang's choices are extensible by plugins,
    arg_groups/choices.py:136, 265: any name). megamoe is an alias that makes the all-to-all
    backend megamoe and the runner auto (arg_groups/mega_moe_hook.py:259-276; SglangOptions
    applies it)."""
    if not isinstance(runner, str) or not runner.strip():
        raise ConfigError(f"moe_runner_backend: must be a backend name, got {runner!r}")
    return runner.strip().lower()


# --speculative-moe-a2a-backend's choices (arg_groups/fields/spec.py:181-199)
DRAFT_BACKENDS = tuple(b for b in BACKENDS if b != "flashinfer_megamoe")


def check_draft_choice(backend: object) -> str:
    """`--speculative-moe-a2a-backend`, lower-cased, if one of SGLang's choices; deepep_v2 is
    refused as SGLang refuses it as a draft backend (arg_groups/moe_hook.py:624-638)."""
    if not isinstance(backend, str) or backend.strip().lower() not in DRAFT_BACKENDS:
        raise ConfigError(f"speculative_moe_a2a_backend: {backend!r} is not one of "
                          f"{', '.join(DRAFT_BACKENDS)} (arg_groups/fields/spec.py:181-199)")
    name = backend.strip().lower()
    if name == "deepep_v2":
        raise ConfigError("speculative_moe_a2a_backend: DeepEP v2 is not validated as a draft "
                          "backend, SGLang refuses it (arg_groups/moe_hook.py:624-638)")
    return name


def draft_backend(target: str, draft: str | None) -> str:
    """The draft model's backend: the given one, else the target's as resolved (ascend_tp
    already none, moe_hook.py:463-470; flashinfer_megamoe's draft defaults to none),
    layers/moe/utils.py:463-468, 498-502. A given ascend_tp stays a live backend for the
    draft: only the target's is resolved to none."""
    if draft is not None:
        return draft
    return "none" if target == "flashinfer_megamoe" else live_backend(target)


class _DraftView:
    """A config as the draft runners see it: the draft's all-to-all backend in place of the
    target's, every other field the config's own."""

    def __init__(self, config: object, backend: str) -> None:
        self._config = config
        self._backend = backend

    def __getattr__(self, name: str) -> Any:
        return getattr(self._config, name)

    @property
    def moe_a2a_backend(self) -> str:
        return self._backend


def for_drafts(config: _T) -> _T:
    """The config the EAGLE-family and FROZEN_KV_MTP draft runners are planned with. Those
    workers capture their draft graphs inside `speculative_moe_a2a_backend_context`
    (speculative/eagle_worker_v2.py:286-296, frozen_kv_mtp_worker_v2.py:222-230;
    layers/moe/utils.py:957-975), so the runners' `require_attn_tp_gather()` -- their
    alignment, request capacity and gathered buffers -- reads the draft backend
    (`draft_backend`), "none" on a dense model (the flag is never seeded, utils.py:541-548);
    multi-layer EAGLE and DFLASH do not switch and keep the target's.
    `require_mlp_tp_gather` reads the backend too once --moe-dense-tp-size is set
    (utils/common.py:4090-4130; sglang_mlp_gather reads the view it is given)."""
    target = runtime_backend(config)
    draft = ("none" if dense(config)  # the flags never seeded
             else draft_backend(target, config.speculative_moe_a2a_backend))
    if draft == live_backend(target):
        return config
    return cast(_T, _DraftView(config, draft))


def normal_mode_off(backend: str, deepep_mode: str) -> bool:
    """DeepEP's normal mode turns decode and prefill graphs off (`handle_a2a_moe`,
    arg_groups/moe_hook.py:383-398), whatever the graph flags. That hook runs after
    `handle_gpu_memory_settings` (arg_groups/pipeline.py:218, 295), so SGLang's default
    mem_fraction_static is computed with the graphs the flags asked for, DeepEP's 2 GiB (and
    1 GiB for breakable prefill graphs) included: graphfit's model turns the graphs off after
    it computes that default (SglangModel.resolve)."""
    return backend == "deepep" and deepep_mode == "normal"


def dense(config: object) -> bool:
    """SglangOptions.dense_model: the scheduler never seeds the MoE flags, so no layer or
    runner reads the all-to-all backend (module docstring). Read with a default: the rules'
    callers also hand over partial configs (the oracle's namespaces)."""
    return bool(getattr(config, "dense_model", False))


def runtime_backend(config: _Parallel | _Drafted) -> str:
    """The target's backend once resolved, as the graph runners see it: `--enable-waterfill`
    makes any backend but deepep / megamoe deepep (overrides.py:1595-1607, in `handle_a2a_moe`
    at pipeline.py:295; graphfit.planner.engines.sglang_waterfill), so a waterfill line's
    runners gather as DeepEP's do even where the line gives none. On a dense model
    (SglangOptions.dense_model) "none": the scheduler never seeds the flag the runners read
    (managers/scheduler.py:991-1008, layers/moe/utils.py:517-521)."""
    if dense(config):
        return "none"
    waterfill = bool(getattr(config, "enable_waterfill", False))
    return resolved_a2a(config.moe_a2a_backend, waterfill)


def live_backend(backend: str) -> str:
    """The backend the graph runners see: `ascend_tp` resolves to none
    (arg_groups/moe_hook.py:463-470)."""
    return "none" if backend == "ascend_tp" else backend


def gathers_attention(backend: str, tp_size: int, attn_dp_size: int,
                      disabled: bool = False, dense_tp: int | None = None) -> bool:
    """`require_attn_tp_gather()` (utils/common.py:4133-4156): `--disable-attn-tp-gather`
    (`disabled`) turns it off first (:4142-4143); else a live backend, or a set
    `--moe-dense-tp-size` (`dense_tp`, issue 23 s69c: :4147-4150), gathers the attention
    input unless every attention group is one rank."""
    return _gathers(live_backend(backend), tp_size, attn_dp_size, disabled, dense_tp)


def _gathers(live: str, tp_size: int, attn_dp_size: int, disabled: bool = False,
             dense_tp: int | None = None) -> bool:
    # utils/common.py:4142-4143, then :4147-4156 (a set dense TP size reads as a live backend)
    if disabled or (live == "none" and dense_tp is None):
        return False
    if attn_dp_size > 1:  # attn_dp_enabled
        return attn_dp_size < tp_size
    return True


def seen_backend(config: _Parallel) -> str:
    """The backend `get_moe_a2a_backend()` returns to a runner built for `config`: the
    target's, resolved and live; for the draft runners' view (`for_drafts`) the draft backend
    as given, which `speculative_moe_a2a_backend_context` publishes unresolved (layers/moe/
    utils.py:957-975: a draft ascend_tp is live). Both gathers read it (`attn_tp_gather`,
    sglang_mlp_gather; issue 23 s69p: the MLP gather read the target's resolution before)."""
    if isinstance(config, _DraftView):
        return config.moe_a2a_backend
    return live_backend(runtime_backend(config))


_S = TypeVar("_S")


def target_of(config: _S) -> _S:
    """The target's config behind a draft runners' view (`for_drafts`), else `config`: what
    the target's own hooks resolved (sglang_mori_ep reads the target's backend, s70j)."""
    return cast(_S, config._config) if isinstance(config, _DraftView) else config


def attn_tp_gather(config: _Parallel) -> bool:
    """`gathers_attention` for a config; for the draft runners' view (`for_drafts`) the draft
    backend as given (a draft ascend_tp is live). `--disable-attn-tp-gather` and
    `--moe-dense-tp-size` are the server's, so the draft runners read them too
    (`require_attn_tp_gather` reads no draft flag)."""
    return _gathers(seen_backend(config), config.tp_size, config.attn_dp_size,
                    bool(getattr(config, "disable_attn_tp_gather", False)),
                    getattr(config, "moe_dense_tp_size", None))  # issue 23 s69c


DEEPEP_PREFILL_BUCKET = 8  # cuda_graph_hook.py:330
DEEPEP_DEFAULT_PREFILL_MAX = 2048  # cuda_graph_hook.py:326-327 ("documented prefill default")


def deepep_prefill_buckets(backend: str, prefill_backend: str, max_tokens: int | None,
                           tokens: tuple[int, ...] | None,
                           ladder: Callable[[int], list[int]]
                           ) -> tuple[tuple[int, ...], int] | None:
    """`apply_deepep_adjustments` (arg_groups/cuda_graph_hook.py:315-342): with DeepEP and
    breakable prefill graphs the prefill token buckets are rounded up to multiples of 8
    (non-multiples can hang DeepEP's capture). The list rounded is the given
    `--cuda-graph-bs-prefill`, else the default ladder of the given max, else of **2048**
    tokens: the hook runs inside `handle_cuda_graph_config`, before the memory hook derives
    the max from chunked_prefill_size (arg_groups/pipeline.py:191, 218). When the rounded
    list differs it is declared as the phase's `bs` with `max_bs` its largest entry
    (:336-342), so the memory hook, which fills only an unset max_bs / bs
    (memory_hook.py:233-268), keeps it: no chunked-prefill, max-total-tokens or llama-2 cap
    applies. Returns (bs, max_bs) so declared, or None (unchanged:
    another backend, another prefill backend, or a list already aligned, e.g. the empty
    ladder of a max below 4)."""
    if live_backend(backend) != "deepep" or prefill_backend != "breakable":
        return None
    bs = list(tokens) if tokens is not None else ladder(max_tokens or DEEPEP_DEFAULT_PREFILL_MAX)
    aligned = sorted({-(-b // DEEPEP_PREFILL_BUCKET) * DEEPEP_PREFILL_BUCKET for b in bs})
    if aligned == sorted(bs):
        return None
    return tuple(aligned), aligned[-1]


__all__ = ["MORI_DISPATCH_TOKENS", "PPLX_DISPATCH_TOKENS", "PPLX_RUNNERS", "check_dispatch",
           "BACKENDS", "DEEPEP_DEFAULT_PREFILL_MAX", "DEEPEP_PREFILL_BUCKET", "PREFILL_VALIDATED",
           "REFUSED", "attn_tp_gather", "check_backend", "check_deepep_mode", "check_runner",
           "DEEPEP_MODES", "DRAFT_BACKENDS", "check_draft_choice", "draft_backend", "for_drafts",
           "deepep_prefill_buckets", "gathers_attention", "live_backend", "normal_mode_off",
           "runtime_backend", "dense", "seen_backend", "target_of"]
