"""SGLang 0.5.23's MiniMax-M3 sparse KV pool: the bytes one token takes on one rank.

A MiniMax-M3 target (`is_minimax_sparse`, configs/model_config.py:426-431: the two sparse
architectures) gets its own KV pool on CUDA (`_build_minimax_sparse_kv_pool`, mem_cache/
kv_cache_configurator.py:1890-1896, 2552-2600): `MiniMaxSparseKVPool`, or the packed
`MiniMaxM3Nvfp4KVPool` under the NVFP4 native stack. SGLang sizes it from memory by dividing
what the fraction leaves by a per-token price, `PoolConfigurator._compute_cell_size`
(model_executor/pool_configurator.py:408-489), computed on the layers of this pipeline stage
(`layer_info.start_layer .. end_layer`):

    main  = (dense x full_pool_ratio + sparse) x 2 x kv_heads x head_dim x kv bytes
    index = (index-KV layers x 2 + K-only layers) x sparse_index_dim x index bytes
    token = main + index x full_pool_ratio

- dense / sparse layers: `sparse_attention_freq` zero / non-zero, by position in that list
  (`get_minimax_sparse_layer_ids`, model_config.py:460-464); a sparse layer whose
  `sparse_disable_index_value` entry is non-zero keeps index K only (:467-471);
- kv_heads: `get_num_kv_heads(attn_tp)` = max(1, KV heads // attention TP) (:1700-1711);
  head_dim: the config's, else hidden_size // heads (:1341-1350);
- kv bytes: the KV dtype (`configure_kv_cache_dtype`, mem_cache/kv_cache_dtype.py:49-88:
  auto is the model dtype, fp8 / mxfp8 / fp4 kinds one byte, bf16 two); the NVFP4 hook turns
  auto into fp8_e4m3 on Blackwell (arg_groups/model_overrides/minimax_m3.py:112-115); an
  `auto` that stays is stored as fp8 when the target's quantization config class has
  kv_cache_quant_algo "FP8" (kv_cache_dtype.py:49-59; `stored_kv_dtype`, issue 23 s55n);
- index bytes: `get_minimax_sparse_index_dtype` (mem_cache/memory_pool.py:5831-5844): the KV
  dtype under fp8 attention GEMMs (`m3_fp8_attn_gemm_enabled`, server_args.py:592-610: KV
  fp8_e4m3, backend trtllm_mha, SM100, SGLANG_DISABLE_M3_FP8_ATTN_GEMM unset; the SM100 hook
  picks trtllm_mha for fp8_e4m3 KV when no backend is given, minimax_m3.py:147-158) or on
  SM90 with fp8_e4m3 KV; else the model dtype;
- NVFP4 native stack (`uses_minimax_m3_nvfp4_native_stack`, model_config.py:434-443:
  quantization minimax_m3_nvfp4 on Blackwell): each sparse layer stores one main and one
  index row per 128-token page (`msa_v1_page_row_bytes`, mem_cache/minimax_m3_nvfp4_pool.py:
  29-72, components rounded up to 128 bytes), the price their sum x sparse // 128
  (pool_configurator.py:461-474); dense layers are not priced there.

full_pool_ratio is hisparse's host_to_device_ratio under --enable-hisparse (:450-455:
`--hisparse-config`'s `host_to_device_ratio`, default 2, mem_cache/sparsity/factory.py:62-81),
else 1; a ratio graphfit cannot read (bad JSON, not an integer) leaves the line unpriced. The
figure is shown per token and per page (`pool_page`: the hook's 128 where it sets the page).
graphfit sizes the token pool from memory only for DeepSeek-V4 and hybrid mamba models, so
nothing else in the plan changes.

A DFLASH / DSPARK line's draft keeps its own KV pool, which SGLang charges to the same
per-token budget (pool_configurator.py:316-338): the line shows the target's price plus the
draft's (`draft_price`, issue 23 s55d). An EAGLE-family line (EAGLE, EAGLE3, NEXTN,
FROZEN_KV_MTP, STANDALONE) adds the draft's share to each stage's price on the target
(pool_configurator.py:258-313, issue 23 s63m): int(price x draft layers / the stage's layers),
times the hisparse ratio under --enable-hisparse (`eagle_share`).
"""

from __future__ import annotations

from dataclasses import dataclass

from graphfit.planner.core.errors import ConfigError, require_int
from graphfit.planner.core.settings import EngineSettings

DENSE, SPARSE, K_ONLY = 0, 1, 2  # a layer's code in MiniMaxSparseKv.layers
MSA_PAGE = 128  # MSA_V1_PAGE_SIZE (minimax_m3_nvfp4_pool.py:29)
SCALE_GROUP = 16  # _SCALE_GROUP_SIZE (:30)
ROW_ALIGN = 128  # _PAGE_ROW_ALIGN (:33)
ONE_BYTE_KV = ("fp8_e4m3", "fp8_e5m2", "mxfp8", "nvfp4", "fp4_mx_block16")  # kv_cache_dtype.py
MODEL_DTYPE_BYTES = {"bfloat16": 2, "float16": 2, "half": 2, "float32": 4, "float": 4}
WHERE = "pool_configurator.py:408-489"
ARCHS_VL = "MiniMaxM3SparseForConditionalGeneration"  # not DiffusionGemma (fa4_page's 1)
HEADER = 9  # MiniMaxSparseKv.of: the fields before the layer codes
# MiniMaxSparseKv.kv_quant: what the target's quantization config class says to `auto` KV
KV_MODEL, KV_FP8, KV_UNREAD = 0, 1, 2
DRAFT_WHERE = "the draft's pool: pool_configurator.py:316-338"
DRAFT = 3  # the code after the layer codes that starts a DFLASH-family draft's KV shape
DRAFT_FIELDS = 7  # DraftKv.fields
AUTO_KV = 3  # DraftKv.kv_bytes for --speculative-draft-kv-cache-dtype auto
EAGLE = 4  # the code after the layer codes that starts an EAGLE-family draft's layer count
EAGLE_WHERE = "the EAGLE draft's share: pool_configurator.py:258-313"
DRAFT_BACKENDS = ("flashinfer", "fa3", "fa4", "triton", "ascend", "trtllm_mha", "intel_xpu")


@dataclass(frozen=True)
class DraftKv:
    """A DFLASH / DSPARK draft's own KV pool shape (issue 23 s55d), as SGLang's
    `resolve_dflash_draft_cell_size` reads the draft's ModelConfig (mem_cache/draft_kv_budget.py:
    14-55): the draft's layer count (`dflash_draft_num_layers`, its num_hidden_layers,
    spec_aux_hidden_state.py:219, 280), its total KV heads, head_dim and v_head_dim
    (model_config.py:1341-1355: v_head_dim defaults to head_dim) and the
    --speculative-draft-kv-cache-dtype (`kv_bytes`: 0 not given, 1 / 2 its bytes, AUTO_KV: auto,
    the draft's model dtype, kv_cache_dtype.py:45-58, not the target's KV dtype); whether
    the line is DFLASH (`dflash`, else DSPARK) and whether the draft keeps a trtllm_mha
    backend under DFLASH (`keeps_trtllm`: every layer sliding, or `is_causal` true,
    speculative_hook.py:942-962)."""

    layers: int
    kv_heads: int
    head_dim: int
    v_head_dim: int
    kv_bytes: int
    dflash: bool = False
    keeps_trtllm: bool = False

    def __post_init__(self) -> None:
        for name in ("layers", "kv_heads", "head_dim", "v_head_dim"):
            require_int(f"minimax_sparse_kv.draft {name}", getattr(self, name), 1)
        if self.kv_bytes not in (0, 1, 2, AUTO_KV):
            raise ConfigError(f"minimax_sparse_kv: the draft's KV code must be 0 (not given), "
                              f"1, 2 (bytes) or {AUTO_KV} (auto)")

    def fields(self) -> tuple[int, ...]:
        return (self.layers, self.kv_heads, self.head_dim, self.v_head_dim, self.kv_bytes,
                int(self.dflash), int(self.keeps_trtllm))


@dataclass(frozen=True)
class MiniMaxSparseKv:
    """What the target's config.json says about its sparse KV pool: the model's layer count,
    total KV heads, head_dim, sparse_index_dim, one code per `sparse_attention_freq` entry
    (DENSE, SPARSE, K_ONLY), and three line facts read with it: the quantization resolves to
    minimax_m3_nvfp4 (`nvfp4`), SGLANG_DISABLE_M3_FP8_ATTN_GEMM is set (`fp8_gemm_off`),
    --hisparse-config's host_to_device_ratio (`hisparse_ratio`, 0: not readable); then two
    more (issue 23 s55n): `kv_quant`, the `kv_cache_quant_algo` of the quantization config
    class SGLang builds for the target (KV_FP8: "FP8", so `auto` KV is fp8; KV_MODEL: none;
    KV_UNREAD: a class graphfit does not restate), and `page_given`, whether the line gave
    --page-size (the hook's 128 applies only to an unset page, so an explicit 1 stays 1)."""

    num_layers: int
    kv_heads: int
    head_dim: int
    index_dim: int
    nvfp4: bool
    fp8_gemm_off: bool
    hisparse_ratio: int
    kv_quant: int
    page_given: bool
    layers: tuple[int, ...]
    draft: DraftKv | None = None
    eagle_layers: int | None = None  # an EAGLE-family draft's KV layers; 0: not read

    def __post_init__(self) -> None:
        for name in ("num_layers", "kv_heads", "head_dim", "index_dim"):
            require_int(f"minimax_sparse_kv.{name}", getattr(self, name), 1)
        require_int("minimax_sparse_kv.hisparse_ratio", self.hisparse_ratio)
        if self.kv_quant not in (KV_MODEL, KV_FP8, KV_UNREAD):
            raise ConfigError("minimax_sparse_kv: kv_quant must be 0 (model dtype), 1 (FP8) "
                              "or 2 (not read)")
        if any(code not in (DENSE, SPARSE, K_ONLY) for code in self.layers):
            raise ConfigError("minimax_sparse_kv: layer codes must be 0 (dense), 1 (sparse) "
                              "or 2 (sparse, index K only)")

    @classmethod
    def of(cls, values: tuple[int, ...]) -> MiniMaxSparseKv:
        """From the option's flat form (`fields`)."""
        if len(values) < HEADER:
            raise ConfigError(f"minimax_sparse_kv: expected at least {HEADER} integers, got "
                              f"{len(values)}")
        layers, heads, dim, index, nvfp4, off, ratio, kv_quant, page = values[:HEADER]
        codes, draft, eagle = tuple(values[HEADER:]), None, None
        first = next((i for i, code in enumerate(codes) if code in (DRAFT, EAGLE)), None)
        if first is not None and codes[first] == EAGLE:
            if len(codes) - first != 2:
                raise ConfigError(f"minimax_sparse_kv: expected 1 integer after the EAGLE "
                                  f"draft code {EAGLE}, got {len(codes) - first - 1}")
            eagle = require_int("minimax_sparse_kv.eagle_layers", codes[first + 1])
            codes = codes[:first]
        elif first is not None:
            at = first
            if len(codes) - at - 1 != DRAFT_FIELDS:
                raise ConfigError(f"minimax_sparse_kv: expected {DRAFT_FIELDS} integers after "
                                  f"the draft code {DRAFT}, got {len(codes) - at - 1}")
            layers_, heads_, dim_, v_dim, kv_bytes, dflash, keeps = codes[at + 1:]
            codes, draft = codes[:at], DraftKv(layers_, heads_, dim_, v_dim, kv_bytes,
                                                bool(dflash), bool(keeps))
        return cls(layers, heads, dim, index, bool(nvfp4), bool(off), ratio, kv_quant,
                   bool(page), codes, draft, eagle)

    def fields(self) -> tuple[int, ...]:
        """The option's flat form: the header, the layer codes, then for a DFLASH / DSPARK
        line the code DRAFT and the draft's DraftKv.fields; for an EAGLE-family line the
        code EAGLE and the draft's KV layer count (0: not read)."""
        tail = () if self.draft is None else (DRAFT, *self.draft.fields())
        tail += () if self.eagle_layers is None else (EAGLE, self.eagle_layers)
        return (self.num_layers, self.kv_heads, self.head_dim, self.index_dim,
                int(self.nvfp4), int(self.fp8_gemm_off), self.hisparse_ratio, self.kv_quant,
                int(self.page_given), *self.layers, *tail)


@dataclass(frozen=True)
class CellPrice:
    """One token's bytes on one rank: the main (K + V) and index parts, and their sum as
    SGLang rounds it (the packed layout floors the whole per-page figure); `eagle`, an
    EAGLE-family draft's share, is in `total` too (`eagle_share`)."""

    main: int
    index: int
    total: int
    eagle: int = 0


def eagle_share(price: CellPrice, draft_layers: int, stage_layers: int,
                loc_scale: int) -> CellPrice:
    """The target's cell size with an EAGLE / STANDALONE draft's share added, as
    `DefaultPoolConfigurator.__init__` adds it on the target (pool_configurator.py:258-313;
    the non-DSA branch, no fused draft placement): int(cell x draft layers / the stage's
    layers) x `loc_scale`, the hisparse host_to_device_ratio under --enable-hisparse (the draft
    pool is indexed by the host-expanded IDs), else 1; nothing on a stage with no layers."""
    if draft_layers <= 0 or stage_layers <= 0:
        return price
    share = int(price.total * draft_layers / stage_layers) * loc_scale
    return CellPrice(price.main, price.index, price.total + share, share)


def page_rows(kv_heads: int, head_dim: int, index_dim: int) -> tuple[int, int]:
    """`msa_v1_page_row_bytes` (minimax_m3_nvfp4_pool.py:35-72): one sparse layer's main row
    (K and V payloads at half a byte a value, their fp8 scales one a 16-value group) and index
    row (K payload and scales), each component rounded up to 128 bytes."""
    def row(parts: tuple[int, ...]) -> int:
        return sum(-(-part // ROW_ALIGN) * ROW_ALIGN for part in parts)

    payload = kv_heads * MSA_PAGE * (head_dim // 2)
    scale = kv_heads * MSA_PAGE * (head_dim // SCALE_GROUP)
    return (row((payload, scale, payload, scale)),
            row((MSA_PAGE * (index_dim // 2), MSA_PAGE * (index_dim // SCALE_GROUP))))


def cell_price(shape: MiniMaxSparseKv, stage: tuple[int, int], attn_tp: int, kv_bytes: int,
               index_bytes: int, packed: bool = False, ratio: int = 1) -> CellPrice:
    """`_compute_cell_size`'s MiniMax branch (module docstring) for the layers in `stage`
    (start, end); `ratio` is full_pool_ratio (the packed branch ignores it, :461-474)."""
    start, end = stage
    local = [code for layer, code in enumerate(shape.layers) if start <= layer < end]
    dense = local.count(DENSE)
    sparse = len(local) - dense
    k_only = local.count(K_ONLY)
    heads = max(1, shape.kv_heads // attn_tp)
    if packed:
        main_row, index_row = page_rows(heads, shape.head_dim, shape.index_dim)
        return CellPrice(sparse * main_row // MSA_PAGE, sparse * index_row // MSA_PAGE,
                         sparse * (main_row + index_row) // MSA_PAGE)
    main = (dense * ratio + sparse) * 2 * heads * shape.head_dim * kv_bytes
    index = ((sparse - k_only) * 2 + k_only) * shape.index_dim * index_bytes * ratio
    return CellPrice(main, index, main + index)


def resolved_kv_dtype(config: EngineSettings, shape: MiniMaxSparseKv) -> str:
    """--kv-cache-dtype after the MiniMax NVFP4 hook: auto becomes fp8_e4m3 under the native
    stack on Blackwell (minimax_m3.py:112-115)."""
    given = config.kv_cache_dtype or "auto"
    if given == "auto" and packed_stack(config, shape):
        return "fp8_e4m3"
    return given


def packed_stack(config: EngineSettings, shape: MiniMaxSparseKv) -> bool:
    """`uses_minimax_m3_nvfp4_native_stack`: minimax_m3_nvfp4 on a Blackwell GPU (capability
    10.x-12.x, utils/common.py:297-303)."""
    cap = config.gpu_capability
    return shape.nvfp4 and cap is not None and 100 <= cap < 130


def _sm(config: EngineSettings, major: int) -> bool:
    cap = config.gpu_capability
    return cap is not None and cap // 10 == major


def fp8_attn_gemm(config: EngineSettings, shape: MiniMaxSparseKv, kv: str) -> bool:
    """`m3_fp8_attn_gemm_enabled` (server_args.py:592-610) on the resolved line: fp8_e4m3 KV,
    the attention backend trtllm_mha (given, or the SM100 hook's pick for fp8_e4m3 KV when no
    backend flag is given, minimax_m3.py:147-158; the NVFP4 stack's pick on Blackwell,
    :120-121), SM100, and the kill switch unset."""
    if kv != "fp8_e4m3" or shape.fp8_gemm_off or not _sm(config, 10):
        return False
    given = config.attention_backend_flag
    unset = (given is None and config.decode_attention_backend is None
             and config.prefill_attention_backend is None)
    return given == "trtllm_mha" or unset


def pool_page(config: EngineSettings, shape: MiniMaxSparseKv) -> int:
    """The page the pool is laid out in: SGLang's resolved page_size.

    - The MiniMax hook: --page-size as given (`page_given`: the hook reads `cfg.page_size is
      None`, minimax_m3.py:162-168, 181-186, so an explicit 1 stays 1 there; issue 23 s55n),
      or 128 when it is not given and the resolved base backend is fa4 / trtllm_mha on SM100
      (:159-168: the hook's own pick when no backend flag is given, :147-158) or fa3 on SM90
      (:176-186); minimax_m3_nvfp4 always 128, on any GPU (:92-97, 115; issue 23 s51n: the
      hook refuses any other page size).
    - Then the backends' post-process passes, as graphfit.planner.engines.
      sglang_backend_checks.resolved_page restates them: trtllm_mha keeps 16 / 32 / 64 / 128
      and makes any other page 64 (overrides.py:1173-1187), fa4 on SM100 makes it 128
      (`_fa4_page_constraint`, :1273-1297), an unset one is 1. So an explicit `--page-size 1`
      is 1 under fa3 / triton, 64 under trtllm_mha and 128 under fa4 (s55n)."""
    from graphfit.planner.engines.sglang_backend_checks import fa4_page, resolved_page

    if shape.nvfp4:
        return MSA_PAGE
    page: int | None = config.page_size if shape.page_given or config.page_size != 1 else None
    given = config.attention_backend_flag
    unset = (given is None and config.decode_attention_backend is None
             and config.prefill_attention_backend is None)
    base = given
    if _sm(config, 10):
        kv = resolved_kv_dtype(config, shape)
        picked = ("trtllm_mha" if kv == "fp8_e4m3" and not shape.fp8_gemm_off else "fa4")
        base = picked if unset else given
        page = MSA_PAGE if page is None and base in ("fa4", "trtllm_mha") else page
    elif _sm(config, 9):
        base = "fa3" if unset else given
        page = MSA_PAGE if page is None and base == "fa3" else page
    fa4 = fa4_page("sm100" if _sm(config, 10) else "other", False,
                   config.speculative_eagle_topk, ARCHS_VL)
    return resolved_page(page, base, config.prefill_attention_backend,
                         config.decode_attention_backend, fa4)


def stages(config: EngineSettings, shape: MiniMaxSparseKv) -> tuple[tuple[int, int], ...]:
    """Each pipeline stage's layers (`get_pp_indices`, graphfit.planner.engines.
    sglang_mamba_memory.pp_stage, SGLANG_PP_LAYER_PARTITION honoured)."""
    from graphfit.planner.engines.sglang_mamba_memory import pp_stage
    from graphfit.planner.engines.sglang_pp_partition import parse_partition

    pp = max(1, config.pp_size)
    partition = parse_partition(config.pp_layer_partition, pp, shape.num_layers)
    return tuple(pp_stage(shape.num_layers, rank, pp, partition) for rank in range(pp))


def prices(config: EngineSettings) -> tuple[CellPrice, ...] | str | None:
    """Each pipeline stage's per-token price (module docstring); a string says why it is not
    sized; None for a model without the pool."""
    raw = config.minimax_sparse_kv
    if raw is None:
        return None
    shape = MiniMaxSparseKv.of(raw)
    ratio = shape.hisparse_ratio if config.enable_hisparse else 1
    if ratio < 1:
        return "--hisparse-config's host_to_device_ratio is not an integer graphfit reads"
    kv = resolved_kv_dtype(config, shape)
    model = MODEL_DTYPE_BYTES.get(str(config.dtype).strip().lower())
    if model is None:
        return f"the model dtype {config.dtype!r} is not one graphfit prices"
    stored = stored_kv_dtype(kv, shape)
    if stored == "auto" and shape.kv_quant == KV_UNREAD and _checkpoint_kv_quant(config):
        return "the checkpoint names a KV quantization (auto may become fp8) "
    kv_bytes = 1 if stored in ONE_BYTE_KV else 2 if stored in ("bf16", "bfloat16") else model
    sm90_fp8 = _sm(config, 9) and stored == "fp8_e4m3"
    index_bytes = kv_bytes if fp8_attn_gemm(config, shape, kv) or sm90_fp8 else model
    attn_tp = max(1, config.tp_size // max(1, config.attn_dp_size) // max(1, config.attn_cp_size))
    packed = packed_stack(config, shape)
    if shape.eagle_layers == 0:
        return ("the EAGLE draft's KV layer count is not read (a hub id, or a draft "
                "architecture graphfit does not restate; spec_aux_hidden_state.py:121-176)")
    return tuple(eagle_share(cell_price(shape, stage, attn_tp, kv_bytes, index_bytes, packed,
                                        ratio), shape.eagle_layers or 0, stage[1] - stage[0],
                             ratio)
                 for stage in stages(config, shape))


def draft_price(config: EngineSettings, shape: MiniMaxSparseKv) -> int | str | None:
    """The bytes a DFLASH / DSPARK draft's own KV pool adds to each token of the target's
    price (issue 23 s55d): `_dflash_draft_cell_size` (pool_configurator.py:108-115) summed
    onto `_compute_cell_size` by `scale_kv_cell_size_per_token_for_dflash`
    (pool_configurator.py:316-338, speculative/dflash_utils.py:137-170):
    `dflash_draft_cell_size_per_token` (dflash_utils.py:121-133) = the draft's
    `get_num_kv_heads(attn TP)` (max(1, heads // TP), model_config.py:1700-1711) x
    (head_dim + v_head_dim) x draft layers x the draft KV dtype's bytes, times attn_dcp_size.
    The draft KV dtype (`resolve_dflash_draft_cell_size`, mem_cache/draft_kv_budget.py:28-49;
    `configure_kv_cache_dtype`, kv_cache_dtype.py:34-100, with no model: no checkpoint KV
    quantization): bf16 where the MiniMax NVFP4 hook writes it for none / auto
    (arg_groups/model_overrides/minimax_m3.py:79-80), else --speculative-draft-kv-cache-dtype
    when given (auto: the model dtype), else the target's resolved KV dtype (auto: the model
    dtype); an fa4 draft backend gets the
    model dtype for any other (kv_cache_dtype.py:90-100). None: no draft; a string: why not
    priced (attention CP, where the draft may run on the full TP group,
    runtime_context.py:489-498, speculative/draft_parallel.py:53-68)."""
    draft = shape.draft
    if draft is None:
        return None
    if config.attn_cp_size > 1:
        return "the draft's attention group under attention CP is not modelled"
    model = MODEL_DTYPE_BYTES.get(str(config.dtype).strip().lower())
    if model is None:
        return f"the model dtype {config.dtype!r} is not one graphfit prices"
    if draft_backend(config, shape, draft) == "fa4":
        kv_bytes = model  # whatever the dtype, the model dtype's bytes
    elif shape.nvfp4 and draft.kv_bytes in (0, AUTO_KV):
        kv_bytes = 2  # the hook's bf16 for none / auto
    elif draft.kv_bytes == AUTO_KV:
        kv_bytes = model  # auto with no model: the model dtype
    elif draft.kv_bytes:
        kv_bytes = draft.kv_bytes
    else:
        kv = resolved_kv_dtype(config, shape)
        kv_bytes = 1 if kv in ONE_BYTE_KV else 2 if kv in ("bf16", "bfloat16") else model
    attn_tp = max(1, config.tp_size // max(1, config.attn_dp_size))
    heads = max(1, draft.kv_heads // attn_tp)
    cell = heads * (draft.head_dim + draft.v_head_dim) * draft.layers * kv_bytes
    return cell * max(1, config.dcp_size)


def draft_backend(config: EngineSettings, shape: MiniMaxSparseKv,
                  draft: DraftKv) -> str | None:
    """The draft attention backend SGLang resolves (what the draft KV dtype rule reads):
    DSPARK, the flag (the NVFP4 hook's trtllm_mha when none, minimax_m3.py:83-86, is not fa4);
    DFLASH, `_resolve_dflash_draft_attention_backend` (speculative_hook.py:886-987): the flag,
    else the target's prefill backend (the flags, else the MiniMax hook's pick: trtllm_mha /
    fa4 on SM100, minimax_m3.py:120-121, 147-158; fa3 on SM90, :176-186), flashinfer for a
    backend not in DRAFT_ATTENTION_BACKEND_CHOICES (arg_groups/choices.py:103-111), and
    trtllm_mha becomes fa4 on SM100 (else flashinfer) unless the draft keeps it. None where
    graphfit does not restate the target's default backend (another GPU, or only a decode
    backend given): never fa4 there for these GPUs' MiniMax lines."""
    given = config.draft_attention_backend
    if not draft.dflash:
        return given
    if given is None:
        base = config.attention_backend_flag
        unset = (base is None and config.decode_attention_backend is None
                 and config.prefill_attention_backend is None)
        if not unset:
            given = config.prefill_attention_backend or base
        elif _sm(config, 10):
            kv = resolved_kv_dtype(config, shape)
            fp8 = kv == "fp8_e4m3" and not shape.fp8_gemm_off
            given = "trtllm_mha" if packed_stack(config, shape) or fp8 else "fa4"
        elif _sm(config, 9):
            given = "fa3"
    if given is None:
        return None
    if given not in DRAFT_BACKENDS:
        return "flashinfer"
    if given == "trtllm_mha" and not draft.keeps_trtllm:
        return "fa4" if _sm(config, 10) else "flashinfer"
    return given


def stored_kv_dtype(kv: str, shape: MiniMaxSparseKv) -> str:
    """The dtype the pool stores for the resolved --kv-cache-dtype `kv`:
    `configure_kv_cache_dtype` (mem_cache/kv_cache_dtype.py:49-59, called at
    model_executor/model_runner.py:735 after the model is loaded at :715) turns `auto` into
    torch.float8_e4m3fn (fp8_dtype on HIP, one byte too) when the model's `quant_config`
    (minimax_m3.py:1992, minimax_m3_vl.py:90) has a string `kv_cache_quant_algo` that is "FP8"
    upper-cased (`kv_quant` KV_FP8). The server argument stays `auto`, so
    `m3_fp8_attn_gemm_enabled` (server_args.py:592-610) stays off (`fp8_attn_gemm` reads
    `kv`); the SM90 index rule reads this stored dtype (memory_pool.py:5838-5841)."""
    return "fp8_e4m3" if kv == "auto" and shape.kv_quant == KV_FP8 else kv


def served_nvfp4(config: EngineSettings) -> bool:
    """Whether the MiniMax-M3 target is served as minimax_m3_nvfp4 (the quantization as the
    hook resolves it, minimax_m3.py:18-34, 46-54; graphfit.inputs.sglang_minimax_kv)."""
    raw = config.minimax_sparse_kv
    return raw is not None and MiniMaxSparseKv.of(raw).nvfp4


def hook_writes_megamoe(config: EngineSettings) -> bool:
    """Whether the MiniMax-M3 NVFP4 hook writes `--moe-a2a-backend megamoe` (issue 23 s54m):
    on Blackwell (`is_blackwell`, utils/common.py:297-303; `packed_stack`) unless the MoE
    runner is flashinfer_trtllm_routed (arg_groups/model_overrides/minimax_m3.py:103-114;
    any a2a backend but none / megamoe is refused there). SGLang's megamoe token budget
    (mega_moe_hook.py:78-91, pipeline.py:320-324) then applies to the line."""
    raw = config.minimax_sparse_kv
    if raw is None:
        return False
    return (packed_stack(config, MiniMaxSparseKv.of(raw))
            and config.moe_runner_backend != "flashinfer_trtllm_routed")


def _checkpoint_kv_quant(config: EngineSettings) -> bool:
    """Whether the checkpoint's quantization config names a KV quantization, for a class
    graphfit does not restate (KV_UNREAD): `kv_cache_quant_algo` (ModelOpt, modelopt_quant.py:
    851-878, 1611-1664) or compressed-tensors' `kv_cache_scheme` (compressed_tensors.py:
    143-151); SGLang's answer then depends on the class, so the line is not priced."""
    text = config.checkpoint_quant_config
    return text is not None and ("kv_cache_quant_algo" in text or "kv_cache_scheme" in text)


def sparse_kv_line(config: EngineSettings) -> tuple[str, str] | None:
    """The plan's line on the sparse KV pool's price; None for other models."""
    priced = prices(config)
    if priced is None:
        return None
    if isinstance(priced, str):
        return ("minimax_sparse_kv", f"MiniMax-M3 sparse KV pool ({WHERE}); not priced: "
                                     f"{priced.strip()}")
    shape = MiniMaxSparseKv.of(config.minimax_sparse_kv or ())
    page = pool_page(config, shape)
    draft = draft_price(config, shape)
    if isinstance(draft, int):
        shown = [f"{p.total + draft} B a token (main {p.main} + index {p.index} + the draft's "
                 f"KV {draft}), {(p.total + draft) * page} B a page of {page}" for p in priced]
    else:
        shown = [f"{p.total} B a token (main {p.main} + index {p.index}"
                 + (f" + the EAGLE draft's KV {p.eagle}" if p.eagle else "")
                 + f"), {p.total * page} B a page of {page}" for p in priced]
        if draft is not None:
            shown[-1] += f"; the draft's KV not priced: {draft}"
    where = f"{WHERE}, {DRAFT_WHERE}" if isinstance(draft, int) else WHERE
    where += f", {EAGLE_WHERE}" if shape.eagle_layers else ""
    if len(shown) == 1:
        return ("minimax_sparse_kv", f"{shown[0]} a rank ({where})")
    stages_shown = "; ".join(f"stage {i}: {text}" for i, text in enumerate(shown))
    return ("minimax_sparse_kv", f"{stages_shown} ({where})")


__all__ = ["CellPrice", "DraftKv", "MiniMaxSparseKv", "cell_price", "draft_backend",
           "draft_price", "eagle_share", "hook_writes_megamoe", "page_rows", "pool_page", "prices",
           "served_nvfp4", "sparse_kv_line", "stored_kv_dtype"]
