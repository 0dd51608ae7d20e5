"""What SGLang 0.5.23's DeepSeek-V4 / V4.1 KV pools read beside graphfit's other inputs, for
the pools' sizing on a pasted line, an SGLang `--config` file and a live ServerArgs
(graphfit.planner.engines.sglang_dsv4_plan, over graphfit.planner.engines.sglang_dsv4_pool):

- four server arguments, each read with SGLang's own validation:
  `--swa-full-tokens-ratio` (Optional[float], default None, arg_groups/fields/schedule.py:
  150-163; the effective ratio must lie in (0, 1.0], kv_cache_hook.py:423-428, for any model),
  `--swa-prefix-tails` (Optional[int], schedule.py:168-180; negative refused,
  kv_cache_hook.py:429-431), `--disaggregation-decode-extra-slots` (Optional[int],
  fields/disagg.py:113-116; defaulted by pd_disaggregation_hook.py:128-142) and
  `--disaggregation-decode-enable-radix-cache` (bool, False, fields/disagg.py:88-91; its
  refusals are the planner's, which knows the model and the other flags);
- the config.json shape `Dsv4Shape.of` reads (as SGLang's ModelConfig does,
  configs/model_config.py:1418-1429), for a DeepseekV4ForCausalLM model (a V4.1 file already
  flattened and renamed by graphfit.inputs.deepseek_v41 when loaded), with its model_type:
  DeepSeek-V4's override sets the SWA ratio 0.1 unless it is deepseek_v41
  (arg_groups/model_overrides/deepseek_v4.py:43-49);
- the environment the pools read: SGLANG_DSV4_COMPRESS_STATE_DTYPE (EnvStr "float32",
  environ.py:1832, checked by the pool: pool_configurator.py:136-145), and the switches whose
  pools graphfit does not restate (`sglang_dsv4_pool.not_modelled`: online c128, the V4.1 KV
  layouts).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs import model_config
from graphfit.inputs.keys import Handler
from graphfit.inputs.reading import shown_path
from graphfit.inputs.settings import COMMAND_LINE, FILE, Setting
from graphfit.inputs.values import as_bool
from graphfit.planner.core.enums import Engine
from graphfit.planner.core.errors import ConfigError, excerpt

SG = Engine.SGLANG
ARCHITECTURE = "DeepseekV4ForCausalLM"
ENV_STATE_DTYPE = "SGLANG_DSV4_COMPRESS_STATE_DTYPE"  # environ.py:1832
ATTN_BACKENDS = ("auto", "flashmla", "flashmla_mega", "trtllm")  # --dsv4-attn-backend


def _number(origin: str, value: Any, kind: type) -> Any:
    """argparse's `type=float` / `type=int` over a flag's text (a file's YAML value as is)."""
    if isinstance(value, bool) or (kind is int and isinstance(value, float)):
        raise ConfigError(f"{origin}: expected {'an integer' if kind is int else 'a number'}, "
                          f"got {excerpt(value)}")
    try:
        return kind(value.strip() if isinstance(value, str) else value)
    except (TypeError, ValueError):
        raise ConfigError(f"{origin}: expected {'an integer' if kind is int else 'a number'}, "
                          f"got {excerpt(value)}") from None


def _setting(field: str, value: Any, origin: str, layer: int) -> tuple[list[Setting], list[str]]:
    return [Setting(field, value, origin, layer), Setting("engine", SG, origin, layer)], []


def swa_full_tokens_ratio(origin: str, value: Any, layer: int
                          ) -> tuple[list[Setting], list[str]]:
    """`--swa-full-tokens-ratio R`: SGLang refuses an effective ratio outside (0, 1.0] for
    every model (kv_cache_hook.py:423-428)."""
    if value is None:
        return [Setting("engine", SG, origin, layer)], []
    ratio = float(_number(origin, value, float))
    if not 0 < ratio <= 1.0:
        raise ConfigError(f"{origin}: {value!r}: --swa-full-tokens-ratio should be in range "
                          f"(0, 1.0]. (SGLang kv_cache_hook.py:427-428)")
    return _setting("swa_full_tokens_ratio", ratio, origin, layer)


def swa_prefix_tails(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """`--swa-prefix-tails N`: SGLang refuses a negative count (kv_cache_hook.py:429-431)."""
    if value is None:
        return [Setting("engine", SG, origin, layer)], []
    tails = int(_number(origin, value, int))
    if tails < 0:
        raise ConfigError(f"{origin}: {value!r}: --swa-prefix-tails should be a non-negative "
                          f"integer. (SGLang kv_cache_hook.py:429-431)")
    return _setting("swa_prefix_tails", tails, origin, layer)


def decode_extra_slots(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """`--disaggregation-decode-extra-slots N`: the decode server's extra request slots
    (pool_configurator.py:1504-1507, kv_cache_configurator.py:1578). SGLang takes any
    integer, a negative one too (fewer request slots than requests); the planner refuses one
    that leaves the decode request pool no slot (sglang_dsv4_plan.check_slots)."""
    if value is None:
        return [Setting("engine", SG, origin, layer)], []
    return _setting("disaggregation_decode_extra_slots", int(_number(origin, value, int)),
                    origin, layer)


def decode_radix_cache(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """`--disaggregation-decode-enable-radix-cache`: read here; the planner refuses it where
    SGLang does (pd_disaggregation_hook.py:99-109, speculative_hook.py:163-173) and, for a
    model other than DeepSeek-V4, as not modelled (graphfit.planner.engines.
    sglang_dsv4_plan.check)."""
    return _setting("disaggregation_decode_enable_radix_cache", as_bool(origin, value), origin,
                    layer)


def dsv4_attn_backend(origin: str, value: Any, layer: int
                      ) -> tuple[list[Setting], list[str]]:
    """`--dsv4-attn-backend`: auto (DeepSeek-V4's default, flashmla off a V4.1 model on SM100,
    deepseek_v4_hook.py:44-60, 85-90) and flashmla size the V4-layout pools graphfit restates,
    flashmla_mega the V4.1 layouts (SM100 only, :92-99; sglang_dsv4_plan.kv_layout, s47k);
    trtllm (uniform FP8 pools, SM100 only, :101-110, pool_configurator.py:1105-1106) leaves
    them unrestated, said on the plan line."""
    if value is None:
        return [Setting("engine", SG, origin, layer)], []
    name = value.strip() if isinstance(value, str) else value
    if name not in ATTN_BACKENDS:  # argparse's choices (server_args.py's dsv4_attn_backend)
        raise ConfigError(f"{origin}: invalid choice: {excerpt(value)} (choose from "
                          f"{', '.join(ATTN_BACKENDS)})")
    given = Setting("dsv4_attn_backend", name, origin, layer)  # for SGLang's asserts (s45k)
    if name in ("auto", "flashmla", "flashmla_mega"):  # flashmla_mega: SM100's V4.1 layouts
        return [given, Setting("engine", SG, origin, layer)], []  # (s47k, sglang_dsv4_plan)
    return [given, Setting("dsv4_env_unmodelled", f"--dsv4-attn-backend {name}'s pools",
                           origin, layer, priority=1), Setting("engine", SG, origin, layer)], []


def _pools_unrestated(why: str, priority: int) -> Handler:
    """A switch graphfit does not model (ignored, as before, for the plan) that changes
    DeepSeek-V4's pools: when on, their plan line says so instead of sizing them. Each
    reason has its own priority, above the environment's (whose SM100-only
    SGLANG_DSV4_KV_LAYOUT=auto must not hide it): any one of them is enough."""
    def handle(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
        if not as_bool(origin, value):
            return [Setting("engine", SG, origin, layer)], []
        return ([Setting("dsv4_env_unmodelled", why, origin, layer, priority=priority),
                 Setting("engine", SG, origin, layer)],
                [f"not modelled, ignored: {origin} (DeepSeek-V4's KV pools: not restated)"])
    return handle


_HISPARSE_POOLS = _pools_unrestated("HiSparse's c4 host-to-device ratio", 2)


def hisparse(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """`--enable-hisparse` (store-true, False): the setting the planner reads for SGLang's
    refusals of it on any model -- the decode radix cache (pd_disaggregation_hook.py:100-104)
    and DeepSeek-V4.1 (deepseek_v4_hook.py:333-353) -- and, when on, DeepSeek-V4's pools
    said, not sized (HiSparse divides the c4 pool, pool_configurator.py:1150-1158)."""
    settings, notes = _HISPARSE_POOLS(origin, value, layer)
    return [Setting("enable_hisparse", as_bool(origin, value), origin, layer),
            *settings], notes


def encoder_replay(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """`--enable-encoder-swa-bounded-replay` (store-true): the setting the planner reads for
    SGLang's refusals of it (deepseek_v4_hook.py:250-330) and for the SWA pool it re-sizes
    (pool_configurator.py:1200-1247): sized without a draft, said beside a DSPARK draft
    (graphfit.planner.engines.sglang_dsv4_plan; issue 23 s50k)."""
    return [Setting("enable_encoder_swa_bounded_replay", as_bool(origin, value), origin,
                    layer), Setting("engine", SG, origin, layer)], []


def _replay_blocker(field: str, what: str) -> Handler:
    """A store-true flag graphfit reads only for SGLang's refusal of DeepSeek-V4.1's encoder
    SWA replay with it (deepseek_v4_hook.py:323-325; issue 23 s50k): a setting, and, when on,
    the note that the plan does not model it otherwise (as before, when it was ignored)."""
    def handle(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
        if value is None:  # `--enable-lora`'s default (fields/lora.py:34-37)
            return [Setting("engine", SG, origin, layer)], []
        on = as_bool(origin, value)
        notes = [f"not modelled, ignored: {origin} ({what}; read only for DeepSeek-V4.1's "
                 f"encoder-replay refusal)"] if on else []
        return [Setting(field, on, origin, layer), Setting("engine", SG, origin, layer)], notes
    return handle


KEYS: dict[str, Handler] = {
    "swa_full_tokens_ratio": swa_full_tokens_ratio,
    "swa_prefix_tails": swa_prefix_tails,
    "disaggregation_decode_extra_slots": decode_extra_slots,
    "disaggregation_decode_enable_radix_cache": decode_radix_cache,
    "dsv4_attn_backend": dsv4_attn_backend,  # s44k
    # HiSparse divides the c4 pool (pool_configurator.py:1150-1158): read as a setting too,
    # for SGLang's refusals of it (s45k, `hisparse`); the encoder-replay window re-sizes the
    # SWA pool (:1200-1247)
    "enable_hisparse": hisparse,
    "enable_encoder_swa_bounded_replay": encoder_replay,
    # what encoder replay refuses beside (deepseek_v4_hook.py:323-325; issue 23 s50k)
    "enable_mixed_chunk": _replay_blocker("enable_mixed_chunk", "mixed prefill/decode"),
    "enable_lora": _replay_blocker("enable_lora", "LoRA"),
    "enable_session_radix_cache": _replay_blocker("enable_session_radix_cache",
                                                  "radix sessions"),
}


def dp_replicas(values: Mapping[str, Any]) -> list[Setting]:
    """The data-parallel replicas of a line that reads every key at once (a pasted line, a
    live ServerArgs): `--dp-size`, unless `--enable-dp-attention` without `--attn-dp-size`
    makes it the attention-DP width and the replicas 1 (`handle_deprecated_dp_attention`,
    arg_groups/parallel_hook.py:39-62). SGLang's decode extra-slot default divides the
    line's requests by replicas x attention DP (pd_disaggregation_hook.py:133-138,
    `num_dp_ranks_of`, runtime_context.py:202-207)."""
    size = values.get("dp_size")
    if size is None or isinstance(size, bool):
        return []
    replicas = int(_number("--dp-size", size, int))
    if replicas < 1:
        raise ConfigError(f"--dp-size: {size!r}: expected an integer >= 1")
    if values.get("enable_dp_attention") is True and values.get("attn_dp_size") in (None, 1):
        replicas = 1
    if replicas == 1:
        return []
    return [Setting("dp_replicas", replicas, "--dp-size (data-parallel replicas)",
                    COMMAND_LINE)]


def file_dp_size(note: str) -> Handler:
    """A config file's `dp_size`: the replicas (a file cannot spell the deprecated
    `--enable-dp-attention` width, graphfit.inputs.sglang._enable_dp_attention refuses it),
    noted as before and kept for the decode extra-slot default (`dp_replicas`)."""
    def handle(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
        found = dp_replicas({"dp_size": value})
        return ([Setting(s.field, s.value, origin, layer) for s in found]
                + [Setting("engine", SG, origin, layer)], [f"{origin}: {note}"])
    return handle


def shape_of(data: Mapping[str, Any]) -> tuple[tuple[int, ...], tuple[int, ...],
                                               tuple[int, ...]] | None:
    """SglangOptions.dsv4_pool_shape from a (flattened) config.json: ((qk_nope_head_dim,
    qk_rope_head_dim, index_head_dim, window, V4.1 0/1), compress_ratios of the layers,
    kv_source_layer_ids), as `Dsv4Shape.of` reads them; None for another architecture or a
    file without compress_ratios or head_dim. ConfigError where SGLang's pools refuse the
    shape (an unsupported compress ratio, deepseek_v4_memory_pool.py:97-99)."""
    from graphfit.planner.engines.sglang_dsv4_pool import Dsv4Shape

    classes = data.get("architectures")
    if not isinstance(classes, list) or not classes or classes[0] != ARCHITECTURE:
        return None
    if not data.get("compress_ratios") or data.get("head_dim") is None:
        # DeepSeekV4Config's default [] (configs/deepseek_v4.py:105): no compressed layer;
        # no head_dim: SGLang's argument pipeline passes, its ModelConfig fails later at
        # load -- either way nothing graphfit restates (the plan says the shape is missing)
        return None
    shape = Dsv4Shape.of(data, 1)
    v41 = 1 if data.get("model_type") == "deepseek_v41" else 0
    return ((shape.qk_nope_head_dim, shape.qk_rope_head_dim, shape.index_head_dim,
             shape.window_size, v41), shape.compress_ratios, shape.kv_source_layer_ids)


def shape_settings(model: str) -> list[Setting]:
    """The DeepSeek-V4 shape of a local model directory (weak, like the other model facts);
    nothing for another model or a hub id without local files."""
    path = model_config.config_path(model)
    if path is None:
        return []
    try:
        shape = shape_of(model_config.load_config(path))
    except ConfigError as exc:
        raise ConfigError(f"{shown_path(path)}: {exc}") from None
    if shape is None:
        return []
    return [Setting("dsv4_pool_shape", shape, f"{path}: DeepSeek-V4 KV pool shape", FILE,
                    weak=True)]


def environment(environ: Mapping[str, str]) -> list[Setting]:
    """SGLANG_DSV4_COMPRESS_STATE_DTYPE as written (the planner checks it where SGLang does,
    for a DeepSeek-V4 model only), and the reason the environment leaves the pools
    unrestated (`not_modelled`), recorded for any model and read for DeepSeek-V4 only; an
    SGLANG_DSV4_KV_LAYOUT set to v4 is recorded too (`sglang_dsv4_default.V4_LAYOUT`: the V4
    layout, which V4.1's default backend reads as set, deepseek_v4_hook.py:57; s48k)."""
    from graphfit.planner.engines.sglang_dsv4_default import V4_LAYOUT
    from graphfit.planner.engines.sglang_dsv4_pool import AUTO_LAYOUT, not_modelled

    out: list[Setting] = []
    raw = environ.get(ENV_STATE_DTYPE)
    if raw is not None:
        out.append(Setting("dsv4_state_dtype", raw, f"{ENV_STATE_DTYPE}={raw}", COMMAND_LINE))
    why = not_modelled(environ)
    if why is None and environ.get("SGLANG_DSV4_KV_LAYOUT", "").lower() == "auto":
        why = AUTO_LAYOUT  # SM100 only (sglang_dsv4_plan.layout_unmodelled)
    if why is None and environ.get("SGLANG_DSV4_KV_LAYOUT", "").lower() == "v4":
        why = V4_LAYOUT  # set, not the default: V4.1's default backend (s48k)
    if why is not None:
        out.append(Setting("dsv4_env_unmodelled", why, "the environment", COMMAND_LINE))
    return out


__all__ = ["KEYS", "dp_replicas", "encoder_replay", "environment", "file_dp_size", "hisparse",
           "shape_of", "shape_settings"]
