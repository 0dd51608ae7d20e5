"""SGLang 0.5.23's UNO speculative decoding (`--speculative-algorithm UNO`): its start-up
checks, widths, graph runners and ladders.

UNO drafts with the target model itself plus one internal LoRA adapter (`--uno-lora-path`,
speculative/uno_lora.py:24-58), so there is no draft model and no EAGLE draft runner:

* Linear mode (`--speculative-eagle-topk` 1 or absent): F = `--speculative-num-draft-tokens`,
  steps and topk forced to 1 (speculative_hook.py:565-576). ONE runner, the target's decode
  runner (`UnoDecodeCudaGraphRunner`, model_runner.py:1588-1593) of width F
  (`decode_num_tokens_per_req`, uno_cuda_graph_runner.py:64; spec_info.py:291-301); when
  F > 1 it records two graphs per size (`record_nolora_graph`, :72; variant "lora" for the
  draft phase, "nolora" for verify, :108-120, decode_cuda_graph_runner.py:1330) over ONE
  buffer set.
* Tree mode (topk K > 1): Q = `--speculative-num-draft-tokens` verify nodes, F = steps + 1
  (speculative_hook.py:495-507). The target runner verifies Q tokens a request with a single
  variant (:51-62, :93-96); a SEPARATE tree-draft runner of width F with its own buffer set
  and attention backend (uno_worker_v2.py:147-190, uno_cuda_graph_runner.py:34-49), captured
  only when the target has decode graphs (:151). Both capture the resolved decode list
  filtered for their own width (`get_batch_sizes_to_capture`, decode_cuda_graph_runner.py:
  388-393).

Both runners are `DecodeCudaGraphRunner`s: their persistent inputs are the decode runner's
(runner_utils/buffers.py) at their width, so graphfit's target buffers apply. UNO does not set
max_running_requests to 48 (DFLASH, DSPARK, FROZEN_KV_MTP, the EAGLE family and NGRAM do,
speculative_hook.py:438-443, 852-857, 992-997, 1086-1091, 1294-1299; `_handle_uno`,
:449-611, does not): the pool is sized from the KV cache as without speculation.

The LoRA self-draft's state is planned as fixed buffers (`retained_segments`,
`decode_batch_info`): the segment routing
SGLang retains per captured size (uno_lora.py:64-92 via lora_manager.py:581-612 and
lora/backend/triton_backend.py:699-732) and the decode batch info every runner constructor
allocates (decode_cuda_graph_runner.py:449-456, triton_backend.py:365-412).

The engine-neutral method is SpecMethod.UNO (vLLM and TensorRT-LLM refuse it);
graphfit.planner.engines.sglang calls `resolve_config` and `planned_runners`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from graphfit.planner.core.buffers import KEEP, Axis, BufferSpec
from graphfit.planner.core.enums import SpecMethod
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.batch import BatchRunner

HOOK = "speculative_hook.py"
MAX_TREE_VERIFY = 128  # :512-516
MAX_FRONTIER = 2048  # Q * K, :518-522
TARGET, TREE_DRAFT = "target", "uno_draft"


@dataclass(frozen=True)
class UnoLine:
    """What `_handle_uno` (speculative_hook.py:449-606) reads of a resolved command line."""

    num_draft_tokens: int | None
    topk: int | None = None
    steps: int | None = None
    lora_path: str | None = None
    draft_model_path: str | None = None
    tp_size: int = 1
    pp_size: int = 1
    attn_dp_size: int = 1
    attn_cp_size: int = 1
    two_batch_overlap: bool = False
    pdmux: bool = False
    enable_lora: bool = False
    rejection_sampling: bool = False
    deterministic: bool = False
    strict_thinking: bool = False
    accept_thresholds: tuple[float, float] = (1.0, 1.0)
    attention: tuple[str | None, str | None] = ("fa3", "fa3")  # prefill, decode backends


@dataclass(frozen=True)
class UnoShape:
    """UNO's resolved dimensions: F (draft width), Q (verify width), K (topk), steps."""

    forward_width: int
    verify_width: int
    topk: int
    steps: int

    def __post_init__(self) -> None:
        if min(self.forward_width, self.verify_width, self.topk, self.steps) < 1:
            raise ConfigError("UNO: widths, topk and steps must be >= 1")

    @property
    def tree(self) -> bool:
        return self.topk > 1

    @property
    def target_variants(self) -> tuple[str | None, ...]:
        """Graph variants the target runner records per size (uno_cuda_graph_runner.py:67,
        107-119): "lora" and "nolora" in linear mode with F > 1, else one."""
        return ("lora", "nolora") if not self.tree and self.forward_width > 1 else (None,)


def _require(ok: bool, why: str) -> None:
    if not ok:
        raise ConfigError(f"speculative_algorithm: SGLang refuses UNO: {why}")


def resolve_uno(line: UnoLine) -> UnoShape:
    """`_handle_uno` (speculative_hook.py:449-606), its checks in its order, as graphfit
    errors; the resolved (F, Q, K, steps)."""
    _require(line.draft_model_path is None, f"it reuses the target model, no "
             f"--speculative-draft-model-path ({HOOK}:454-458)")
    _require(line.lora_path is not None, f"it needs --uno-lora-path ({HOOK}:459-460)")
    _require(not line.deterministic, f"no --enable-deterministic-inference ({HOOK}:461-465)")
    _require(not line.strict_thinking, f"no --enable-strict-thinking ({HOOK}:466-470)")
    q = line.num_draft_tokens
    _require(q is not None and q >= 1, f"--speculative-num-draft-tokens must be a positive "
             f"width ({HOOK}:472-477)")
    assert q is not None
    k = 1 if line.topk is None else line.topk
    _require(k >= 1, f"--speculative-eagle-topk must be >= 1, got {k} ({HOOK}:488-492)")
    if k > 1:
        steps = line.steps
        _require(steps is not None, f"tree mode needs --speculative-num-steps "
                 f"({HOOK}:495-500)")
        assert steps is not None
        _require(steps >= 1, f"tree mode needs steps >= 1, got {steps} ({HOOK}:501-505)")
        f = steps + 1
        _require(q >= f, f"tree mode needs Q >= F; got Q={q}, F={f} ({HOOK}:508-511)")
        _require(q <= MAX_TREE_VERIFY, f"tree mode supports at most Q={MAX_TREE_VERIFY}, "
                 f"got {q} ({HOOK}:512-516)")
        _require(q * k <= MAX_FRONTIER, f"tree mode supports Q*K <= {MAX_FRONTIER}, got "
                 f"{q * k} ({HOOK}:518-522)")
        _require(q <= tree_capacity(steps, k, q), f"Q={q} exceeds the tree capacity "
                 f"{tree_capacity(steps, k, q)} for F={f}, K={k} ({HOOK}:525-536)")
        parent = k * max(steps - 1, 0) + 1
        _require(q - 1 <= parent, f"Q-1={q - 1} exceeds K*(F-2)+1={parent} (EAGLE's "
                 f"parent-list ABI, {HOOK}:539-546)")
        _require(not line.pdmux, f"tree mode without PDMux ({HOOK}:548-549)")
        _require(not line.two_batch_overlap, f"tree mode without two-batch overlap "
                 f"({HOOK}:550-551)")
        _require(line.accept_thresholds == (1.0, 1.0), f"tree mode needs both accept "
                 f"thresholds 1.0 ({HOOK}:552-558)")
        shape = UnoShape(f, q, k, steps)
    else:
        shape = UnoShape(q, q, 1, 1)  # steps and topk forced to 1 (:565-576)
    _require((line.tp_size, line.pp_size) == (1, 1), f"TP = PP = 1 ({HOOK}:578-579)")
    _require(line.attn_dp_size == 1 and line.attn_cp_size == 1,
             f"no DP attention or context parallelism ({HOOK}:580-581)")
    _require(not line.enable_lora, f"no multi-LoRA serving ({HOOK}:582-583)")
    _require(not line.rejection_sampling, f"no --speculative-use-rejection-sampling "
             f"({HOOK}:591-595)")
    _require(line.attention == ("fa3", "fa3"), f"FA3 prefill and decode attention, got "
             f"{line.attention[0]} / {line.attention[1]} ({HOOK}:606-611)")
    return shape


def tree_capacity(steps: int, topk: int, verify_width: int) -> int:
    """Nodes a K-ary tree of `steps` levels holds, counted until it reaches Q
    (speculative_hook.py:525-531)."""
    capacity = nodes = 1
    for _ in range(steps):
        nodes *= topk
        capacity += nodes
        if capacity >= verify_width:
            break
    return capacity


@dataclass(frozen=True)
class UnoRunner:
    """One UNO graph runner: its component name, width and per-size graph variants."""

    name: str
    width: int
    variants: tuple[str | None, ...]


def uno_runners(shape: UnoShape) -> tuple[UnoRunner, ...]:
    """The target runner (linear: width F, two variants when F > 1; tree: width Q), plus the
    tree-draft runner of width F in tree mode (module docstring)."""
    target = UnoRunner(TARGET, shape.verify_width, shape.target_variants)
    if not shape.tree:
        return (target,)
    return (target, UnoRunner(TREE_DRAFT, shape.forward_width, (None,)))


def uno_batch_runners(shape: UnoShape, pool: int,
                      sizes_for: Callable[[str, int], tuple[int, ...]],
                      buffers_for: Callable[[str, int, int], tuple[BufferSpec, ...]]
                      ) -> list[BatchRunner]:
    """The runners as graphfit batch runners: `sizes_for(name, width)` filters the decode list
    (`get_batch_sizes_to_capture`), `buffers_for(name, width, max_bs)` gives the decode
    runner's buffer set. A tree draft runner exists only when the target captures."""
    out: list[BatchRunner] = []
    for runner in uno_runners(shape):
        sizes = sizes_for(runner.name, runner.width)
        if runner.name == TREE_DRAFT and not out[0].sizes:
            continue  # uno_worker_v2.py:151: no target graphs, no tree-draft graphs
        out.append(BatchRunner(runner.name, runner.width, pool,
                               buffers_for(runner.name, runner.width,
                                           sizes[-1] if sizes else 0), sizes))
    return out


def graph_count(shape: UnoShape, runners: list[BatchRunner]) -> int:
    """Graphs UNO captures: each runner's sizes times its variants."""
    variants = {r.name: len(r.variants) for r in uno_runners(shape)}
    return sum(len(r.sizes) * variants[r.name] for r in runners)


# --------------------------------------------------------------------------------------------
# A whole SGLang line's checks (a pasted line: graphfit.inputs.sglang_uno; a ServerArgs:
# graphfit.planner.engines.sglang_native): the flags the plan does not carry
# --------------------------------------------------------------------------------------------

UNSET_BACKEND = ("--speculative-algorithm: UNO needs FA3 (speculative_hook.py:606-611); "
                 "graphfit does not restate SGLang's choice by GPU and model when no backend "
                 "is named: name --attention-backend fa3")
LINE_KEYS = ("speculative_num_draft_tokens", "speculative_eagle_topk", "speculative_num_steps",
             "uno_lora_path", "speculative_draft_model_path", "tp_size", "pp_size",
             "enable_two_batch_overlap", "enable_pdmux", "enable_lora", "lora_paths",
             "speculative_use_rejection_sampling", "enable_deterministic_inference",
             "enable_strict_thinking", "speculative_accept_threshold_single",
             "speculative_accept_threshold_acc", "attention_backend",
             "prefill_attention_backend", "decode_attention_backend", "device",
             "kv_cache_dtype")


def _int(values: Mapping[str, Any], key: str, default: int | None = None) -> int | None:
    value = values.get(key)
    if value is None:
        return default
    try:
        return int(value)
    except (TypeError, ValueError):
        raise ConfigError(f"--{key.replace('_', '-')}: expected an integer, got "
                          f"{str(value)[:40]!r}") from None


def _float(values: Mapping[str, Any], key: str) -> float:
    value = values.get(key)
    if value is None:
        return 1.0  # SGLang's default for both accept thresholds
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"--{key.replace('_', '-')}: expected a number, got "
                          f"{str(value)[:40]!r}") from None


def _fp8_fallback(values: Mapping[str, Any]) -> bool:
    """Whether a named base fa3 meets an fp8_e5m2 KV cache (overrides.py:1262-1270)."""
    return (str(values.get("attention_backend") or "").strip().lower() == "fa3"
            and str(values.get("kv_cache_dtype") or "").strip().lower() == "fp8_e5m2")


def _backends(values: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """`attention_backends_of` (arg_groups/model_override_base.py:138-152): the split flags
    fall back to --attention-backend. A base fa3 with an fp8_e5m2 KV cache is triton by then,
    named or not (`_attention_backend_fa3_fp8_fallback`, overrides.py:1262-1270, run by the
    attention hook, attention_hook.py:239, before `_handle_uno`); the split flags keep
    theirs."""
    base = "triton" if _fp8_fallback(values) else values.get("attention_backend")
    prefill = values.get("prefill_attention_backend") or base
    decode = values.get("decode_attention_backend") or base
    return (None if prefill is None else str(prefill).strip().lower(),
            None if decode is None else str(decode).strip().lower())


def line_of(values: Mapping[str, Any]) -> UnoLine:
    """The `_handle_uno` inputs of a line (SGLang's argument names -> values; absent: None)."""
    return UnoLine(
        num_draft_tokens=_int(values, "speculative_num_draft_tokens"),
        topk=_int(values, "speculative_eagle_topk"),
        steps=_int(values, "speculative_num_steps"),
        lora_path=None if values.get("uno_lora_path") is None else str(values["uno_lora_path"]),
        draft_model_path=(None if not values.get("speculative_draft_model_path")
                          else str(values["speculative_draft_model_path"])),
        tp_size=_int(values, "tp_size", 1) or 1,
        pp_size=_int(values, "pp_size", 1) or 1,
        two_batch_overlap=bool(values.get("enable_two_batch_overlap")),
        pdmux=bool(values.get("enable_pdmux")),
        enable_lora=bool(values.get("enable_lora") or values.get("lora_paths")),
        rejection_sampling=bool(values.get("speculative_use_rejection_sampling")),
        deterministic=bool(values.get("enable_deterministic_inference")),
        strict_thinking=bool(values.get("enable_strict_thinking")),
        accept_thresholds=(_float(values, "speculative_accept_threshold_single"),
                           _float(values, "speculative_accept_threshold_acc")),
        attention=_backends(values))


ATTENTION_ORDER = ("the attention hook resolves the default (arg_groups/pipeline.py:242) "
                   "before `_handle_uno` (pipeline.py:306, speculative_hook.py:606-611)")


def _cuda_only(values: Mapping[str, Any]) -> None:
    device = values.get("device")
    if device is not None and not str(device).startswith("cuda"):
        raise ConfigError(f"--device: SGLang's UNO runs on CUDA only, got {str(device)[:40]!r}"
                          f" (speculative_hook.py:452-453)")


def unnamed_backend(values: Mapping[str, Any]) -> bool:
    """Whether a line leaves a side (prefill or decode) of its attention backend to SGLang."""
    return None in _backends(values)


def check_line_with_default(values: Mapping[str, Any], default: str | None,
                            missing: str, sides: tuple[str, str] | None = None) -> UnoShape:
    """`check_line` for a line that leaves a side to SGLang's default base backend `default`
    (`_attention_backend_default`, overrides.py:1126-1140; a side not named falls back to it,
    model_override_base.py:138-152), resolved by the attention hook before `_handle_uno`
    reads the pair (ATTENTION_ORDER). `default` None: graphfit cannot restate it, and the
    line is refused naming what is `missing`. `sides`: the whole (prefill, decode) pair SGLang
    resolved, where a model override wrote a split side itself (Moss-VL's prefill, Qwen3-VL's
    decode, Kimi-K3's pair: graphfit.inputs.sglang_uno_default.override_sides)."""
    _cuda_only(values)
    found = line_of(values)
    if sides is not None:
        return resolve_uno(replace(found, attention=sides))
    if default is None:
        resolve_uno(replace(found, attention=("fa3", "fa3")))
        raise ConfigError(f"--speculative-algorithm: UNO needs FA3 (speculative_hook.py:"
                          f"606-611); no backend named and {missing[:85]}: name "
                          f"--attention-backend fa3")
    prefill, decode = found.attention
    return resolve_uno(replace(found, attention=(prefill or default, decode or default)))


def check_line(values: Mapping[str, Any]) -> UnoShape:
    """Every `_handle_uno` check on a whole line (CUDA only, :452-453); a line naming no
    attention backend is refused with UNSET_BACKEND after the checks before the backends."""
    _cuda_only(values)
    found = line_of(values)
    if None in found.attention:
        resolve_uno(replace(found, attention=("fa3", "fa3")))
        raise ConfigError(UNSET_BACKEND)
    try:
        return resolve_uno(found)
    except ConfigError as exc:
        fell_back = [side for key, side in zip(("prefill_attention_backend",
                                                "decode_attention_backend"), found.attention,
                                               strict=True) if not values.get(key)]
        if "FA3 prefill and decode" not in str(exc) or not _fp8_fallback(values) or (
                "triton" not in fell_back):
            raise  # not the fallback's doing: SGLang's own words
        raise ConfigError("--kv-cache-dtype fp8_e5m2: SGLang turns the fa3 backend into "
                          "triton (overrides.py:1262-1270) and UNO needs FA3 for prefill and "
                          "decode (speculative_hook.py:606-611)") from exc


# --------------------------------------------------------------------------------------------
# The engine's hooks (graphfit.planner.engines.sglang)
# --------------------------------------------------------------------------------------------

LORA_SLOTS = 2  # the LoRA pool: base slot + the UNO adapter (uno_lora.py:19-20, 43)
TRITON = "lora/backend/triton_backend.py"


def uno(config: EngineSettings) -> bool:
    return config.spec_method is SpecMethod.UNO


def config_line(config: EngineSettings) -> UnoLine:
    """What the plan carries of a UNO line. The flags only a pasted line has (the adapter
    path, attention backends, deterministic inference, ...) are checked on input
    (graphfit.inputs.sglang_uno); the adapter's rank changes no planned buffer."""
    return UnoLine(config.speculative_num_draft_tokens, topk=config.speculative_eagle_topk,
                   steps=config.num_speculative_tokens or None, lora_path="(adapter)",
                   tp_size=config.tp_size, pp_size=config.pp_size,
                   attn_dp_size=config.attn_dp_size, attn_cp_size=config.attn_cp_size,
                   two_batch_overlap=config.two_batch_overlap)


def shape_of(config: EngineSettings) -> UnoShape:
    return resolve_uno(config_line(config))


def resolve_config(config: EngineSettings) -> dict[str, object]:
    """`_handle_uno`'s resolved steps, topk and draft tokens (linear: 1, 1, F; tree: steps,
    K, Q). max_running_requests keeps SGLang's KV-sized default: UNO does not set 48."""
    shape = shape_of(config)
    return {"num_speculative_tokens": shape.steps, "speculative_eagle_topk": shape.topk,
            "speculative_num_draft_tokens": shape.verify_width}


def _fixed(name: str, dtype: str, count: int, source: str) -> BufferSpec:
    return BufferSpec(name, dtype, Axis.FIXED, (), count, KEEP, source=source)


def retained_segments(forward_width: int, sizes: tuple[int, ...]) -> tuple[BufferSpec, ...]:
    """The token-segment batch info UNO keeps per captured draft size bs (`capture_draft`,
    uno_lora.py:78-88): segments [1, F - 1] per request, so 2 * bs segment lengths and
    adapter indices and 2 * bs + 1 offsets, plus the pool's ranks and scalings
    (lora_manager.py:593-609, triton_backend.py:710-731). Each graph reads its own size's
    copy, never refilled at replay: the buffers hold every size's copy back to back."""
    if not sizes:
        return ()
    where = "uno_lora.py:78-88, triton_backend.py:710-731"
    segments = sum(2 * bs for bs in sizes)
    return (
        _fixed("uno_lora_seg_lens", "int32", segments, f"{where}: [1, F-1] per request, "
               f"F={forward_width}, one copy per captured size"),
        _fixed("uno_lora_seg_indptr", "int32", segments + len(sizes), where),
        _fixed("uno_lora_weight_indices", "int32", segments, where),
        _fixed("uno_lora_ranks", "int64", LORA_SLOTS * len(sizes), where),
        _fixed("uno_lora_scalings", "float32", LORA_SLOTS * len(sizes), where),
    )


def decode_batch_info(width: int, max_bs: int) -> tuple[BufferSpec, ...]:
    """`init_decode_cuda_graph_batch_info(max_bs, width)` (decode_cuda_graph_runner.py:
    449-456, lora_manager.py:152-160, triton_backend.py:380-412): the decode LoRA batch info
    of max_bs segments and the sgemm one of the 2 pool slots over max_bs * width rows
    (:365-377)."""
    if not max_bs:
        return ()
    where = f"{TRITON}:380-412 (max_bs {max_bs}, width {width})"
    sgemm = f"{TRITON}:365-377"
    return (
        _fixed("lora_seg_lens", "int32", max_bs, where),
        _fixed("lora_seg_indptr", "int32", max_bs + 1, where),
        _fixed("lora_weight_indices", "int32", max_bs, where),
        _fixed("lora_ranks", "int32", LORA_SLOTS, where),
        _fixed("lora_scalings", "float32", LORA_SLOTS, where),
        _fixed("lora_sgemm_seg_lens", "int32", LORA_SLOTS, sgemm),
        _fixed("lora_sgemm_seg_indptr", "int32", LORA_SLOTS + 1, sgemm),
        _fixed("lora_sgemm_weight_indices", "int32", LORA_SLOTS, sgemm),
        _fixed("lora_sgemm_ranks", "int32", LORA_SLOTS, sgemm),
        _fixed("lora_sgemm_scalings", "float32", LORA_SLOTS, sgemm),
        _fixed("lora_sgemm_permutation", "int32", max_bs * width, sgemm),
    )


def planned_runners(config: EngineSettings, pool: int,
                    sizes_for: Callable[[str, int], tuple[int, ...]],
                    buffers_for: Callable[[str, int, int], tuple[BufferSpec, ...]]
                    ) -> list[BatchRunner]:
    """UNO's runners with their LoRA state.

    The per-size segment state belongs to the runner that captures the LoRA draft (linear
    F > 1: the target's "lora" variant; tree: the tree-draft runner). The decode batch info
    is the backend's one attribute, replaced by each runner constructor: it is held by the
    runner built last (the tree-draft runner when there is one, uno_worker_v2.py:147-190)."""
    shape = shape_of(config)
    runners = uno_batch_runners(shape, pool, sizes_for, buffers_for)
    drafts = TREE_DRAFT if shape.tree else (TARGET if shape.forward_width > 1 else None)
    out: list[BatchRunner] = []
    for index, runner in enumerate(runners):
        extra: tuple[BufferSpec, ...] = ()
        if runner.sizes and index == len(runners) - 1:
            extra += decode_batch_info(runner.width, runner.sizes[-1])
        if runner.name == drafts:
            extra += retained_segments(shape.forward_width, runner.sizes)
        out.append(BatchRunner(runner.name, runner.width, runner.max_requests,
                               runner.buffers + extra, runner.sizes))
    return out


def target_graphs(config: EngineSettings) -> int:
    """Graphs the target runner captures per size: 2 in linear mode with F > 1 (the "lora"
    draft and "nolora" verify variants over one buffer set, uno_cuda_graph_runner.py:64-72,
    decode_cuda_graph_runner.py:1330-1364), else 1."""
    return len(shape_of(config).target_variants)
