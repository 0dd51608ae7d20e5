"""SGLang 0.5.23's DeepSeek-V4 KV pools sized from a byte budget: the bytes one token costs
and the token counts of the full, SWA, compressed (c4 / c128) and compress-state pools.

A DeepSeek-V4 model with SWA layers is sized by `DSV4PoolConfigurator`
(model_executor/pool_configurator.py:1067-1712, picked by `create_memory_pool_configurator`,
:1715-1719), not by the per-layer cell size other models use. Its model is

    available = full_tokens x bytes_per_full_token + fixed bytes + reserved pages

* **Per SWA slot** (`_get_bytes_per_swa_token`, :1372-1388): one paged latent per layer of
  the stage (the V4 FlashMLA layout: 584 bytes a token, pages padded to 576-byte rows,
  `kv_layout.py:103-105`, via `_get_paged_kv_bytes_per_token`, :1353-1370), plus the c4
  compress state (2 x 2 x head_dim core and 2 x 2 x index_head_dim indexer values in
  SGLANG_DSV4_COMPRESS_STATE_DTYPE, float32 by default, environ.py:1832) ring / page_size
  times per ratio-4 layer.
* **Per full token** (`_get_bytes_per_full_token`, :1437-1446): the SWA ratio (0 in cap mode)
  x the SWA slot, plus per compressed layer (`_compressed_bytes_per_full_token`, :1390-1404)
  ratio 4: (latent + fp8 indexer) / 4; ratio 128: latent / 128; ratios 1 / 2 (V4.1's
  kv_source layers): (latent + fp4 indexer) / ratio. Speculation inflates both by
  (layers + 1) / layers (:1262-1268).
* **Fixed** (`calculate_pool_sizes`, :1638-1701): the c128 compress-state rows (requests + 1)
  x ring + ring + 1, padded to 128 (:1509-1528), the ratio-2 pair state (:1530-1543) and, in
  cap mode, the SWA pool itself (`_get_swa_fixed_bytes`, :1448-1455). Cap mode
  (`_resolve_swa_cap_tokens`, :1328-1351) is on when `--max-running-requests` is known
  (DeepSeek-V4's default is 256, deepseek_v4_hook.py:138-144) and `--swa-full-tokens-ratio`
  is not set -- DeepSeek-V4's override sets it, so only V4.1 gets there
  (`operator_swa_ratio`): the SWA pool is `compute_swa_request_cap` (:924-968) plus 4 x requests
  cached prefix tails of window + page (:1309-1326), page aligned.
* **Encoder replay** (V4.1's `--enable-encoder-swa-bounded-replay`; issue 23 s50k, s51k):
  the target's SWA lives in a per-request window (`request_window_bytes`, :1211-1239), a
  fixed cost; the paged SWA pool, its c4 state and the SWA slot's price are 0 (:1240-1247,
  :1375-1378) and speculation's inflation is off (:1250). Beside a DSPARK draft (s51k) the
  window and its scratch take the draft tokens, and on CUDA every draft layer is an SWA ring
  layer in the window (`uses_draft_swa_ring`, deepseek_v4_memory_pool.py:135-147), so no
  draft layer is paged (the HIP path that pages them is not planned).
* **Reserved pages** (`_get_low_ratio_kv_padding_bytes`, :1406-1435): ratio 1 / 2 layers
  reserve one logical page of latents and the indexer's own 64-slot pages
  (`DSV41_INDEX_PAGE_SIZE`, deepseek_v4_memory_pool.py:532-542, 64 off Blackwell); the
  full-token count is lowered a page at a time until they fit (:1673-1680).

The request count the fixed pools are sized for is `--max-running-requests` / attention DP,
else SGLang's estimate from the budget (`_resolve_max_running_requests_per_worker`,
:1565-1574). Refusals are SGLang's: an SWA pool that cannot hold one request (:198-216), a
cap that leaves nothing (:1681-1687), draft tokens past the compress-state ring
(:1291-1307), an unsupported ratio (deepseek_v4_memory_pool.py:97-99), an empty pool
(:94-100).

Modelled: the V4 layout (SGLANG_DSV4_KV_LAYOUT's default v4 anywhere, auto before SM100,
deepseek_v4_memory_pool.py:198-234; a V4 model on SM100 keeps it), the V4.1 layouts of SM100
(`LAYOUT_BYTES`, picked by graphfit.planner.engines.sglang_dsv4_plan.kv_layout), the paged
(non-unified) pools, one pipeline stage (graphfit.planner.engines.sglang_dsv4_stages slices
the layers of each).
The unified-KV pools are HIP's only (`is_unified_kv_triton`,
layers/attention/dsv4/unified_kv_gate.py:13-15). Not modelled (`not_modelled` says which):
HiSparse, online c128,
`--dsv4-attn-backend trtllm`, the V4.1 layouts SGLANG_DSV4_KV_LAYOUT=v41 / v41_new force,
speculation with the overlap scheduler off in cap mode.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines.sglang_kv_requests import kv_request_pool

V4_TOKEN_BYTES = 576 + 8  # KVLayout.V4: 576 data + 8 scale bytes (kv_layout.py:49-70)
V4_PAGE_ALIGN = 576  # KVLayout.V4.page_align (kv_layout.py:90-98)
INDEX_PAGE = 64  # DSV41_INDEX_PAGE_SIZE off Blackwell (deep_gemm_wrapper/configurer.py:64-78)
DEFAULT_SWA_RATIO = 0.1  # DSV4_DEFAULT_SWA_FULL_TOKENS_RATIO (pool_configurator.py:1046)
STATE_DTYPE_BYTES = {"float32": 4, "fp32": 4, "bfloat16": 2, "bf16": 2}  # :136-145
EVICTION_INTERVAL = 128  # SGLANG_SWA_EVICTION_INTERVAL (environ.py:730)
RATIOS = (0, 1, 2, 4, 128)  # deepseek_v4_memory_pool.py:97-99
PAGE_SIZE = 256  # DeepSeek-V4's page on CUDA (arg_groups/model_overrides/deepseek_v4.py:51)
DEFAULT_MAX_RUNNING_REQUESTS = 256  # apply_deepseek_v4_defaults (deepseek_v4_hook.py:138-144)


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


# a layout's (bytes a token, the page stride's unit): `KVLayout.bytes_per_token` (data +
# scale bytes) and `page_align` (kernels/ops/attention/dsv4/kv_layout.py:49-98); "v41" is the
# block-split V4.1 fp8 layout SM100 runs (issue 23, s47k), "v41_fp4" its ratio-1 / 2 cache
LAYOUT_BYTES = {"v4": (V4_TOKEN_BYTES, V4_PAGE_ALIGN), "v41": (512 + 16, 512),
                "v41_fp4": (256 + 32, 256)}
LAYOUTS = ("v4", "v41")  # the main-cache layouts graphfit sizes
INDEX_PAGES = (64, 128)  # DSV41_INDEX_PAGE_SIZE's two values (deepseek_v4_memory_pool.py:532-542)


def compressed_layout(main: str, ratio: int) -> str:
    """`resolve_compressed_kv_layout` (deepseek_v4_memory_pool.py:174-195) with
    SGLANG_DSV4_COMPRESSED_KV_LAYOUT's default auto: a V4 main cache keeps V4 everywhere;
    next to V4.1, the ratio-1 / 2 caches are fp4 and the others V4.1 fp8."""
    if main == "v4" or not ratio:
        return main
    return "v41_fp4" if ratio in (1, 2) else "v41"


def paged_bytes_per_token(page_size: int, ratio: int = 0, layout: str = "v4") -> float:
    """One latent slot's bytes in a page of the ratio's pool (:1353-1370): the layout's
    `page_bytes` (the raw bytes rounded up to its page stride's unit) over the page's slots;
    `layout`: the main cache's."""
    token, align = LAYOUT_BYTES[compressed_layout(layout, ratio)]
    page = page_size // ratio if ratio else page_size
    return _ceil_div(page * token, align) * align / page


def indexer_bytes(index_head_dim: int, fp4: bool) -> int:
    """`get_dsv4_indexer_bytes_per_token` (deepseek_v4_memory_pool.py:53-57)."""
    if fp4:
        return index_head_dim // 2 + index_head_dim // 32
    return index_head_dim + index_head_dim // 128 * 4


def ring_size(ratio: int, draft_tokens: int) -> int:
    """`get_compress_state_ring_size` (deepseek_v4_memory_pool.py:60-79), online c128 off."""
    if ratio == 2:
        return 2 if not draft_tokens else 1 << (draft_tokens + 1).bit_length()
    if draft_tokens:
        return 16 if ratio == 4 else 256
    return 8 if ratio == 4 else 128


def write_pad(ratio: int, ring: int) -> int:
    """`get_compress_state_write_pad` (deepseek_v4_memory_pool.py:118-122)."""
    window = ratio * (2 if ratio == 4 else 1)
    return ring - window + 2 if ring > window else 0


@dataclass(frozen=True)
class Dsv4Shape:
    """What the configurator reads of the model (`DeepSeekV4Config`): the latent's nope /
    rope widths, the indexer's width, each layer's compress ratio, the layers owning ratio
    1 / 2 storage, the sliding window and the context length."""

    qk_nope_head_dim: int
    qk_rope_head_dim: int
    index_head_dim: int
    compress_ratios: tuple[int, ...]
    kv_source_layer_ids: tuple[int, ...]
    window_size: int
    context_len: int

    def __post_init__(self) -> None:
        for name in ("qk_nope_head_dim", "qk_rope_head_dim", "index_head_dim",
                     "window_size", "context_len"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"DeepSeek-V4 {name}: must be an integer >= 1, got "
                                  f"{value!r}")
        if not self.compress_ratios:
            raise ConfigError("DeepSeek-V4 compress_ratios: empty")
        for ratio in self.compress_ratios:
            if ratio not in RATIOS:  # SGLang's ValueError
                raise ConfigError(f"Unsupported compression ratio: {ratio} "
                                  f"(deepseek_v4_memory_pool.py:97-99)")

    @classmethod
    def of(cls, config: Mapping[str, object], context_len: int) -> Dsv4Shape:
        """The shape from a (flattened) config.json as SGLang's `ModelConfig` reads it
        (configs/model_config.py:1418-1429): the nope width is `head_dim` -
        `qk_rope_head_dim` (not the file's qk_nope_head_dim), the window is the first of
        sliding_window_size / sliding_window / window_size (`_get_sliding_window_size`,
        :1961-1966), and the configurator takes the compress ratios of the stage's layers only
        (`compress_ratios[0:num_hidden_layers]`, pool_configurator.py:1116-1118). Defaults are
        `DeepSeekV4Config`'s (configs/deepseek_v4.py: index_head_dim 128, qk_rope_head_dim 64,
        window_size 128, 43 layers); a missing `head_dim` fails SGLang's load."""
        def one(key: str, default: int | None) -> int:
            value = config.get(key, default)
            if value is None:
                value = default
            if isinstance(value, bool) or not isinstance(value, int):
                raise ConfigError(f"DeepSeek-V4 {key}: an integer, got {value!r}")
            return value

        def ints(key: str) -> tuple[int, ...]:
            value = config.get(key) or []
            if not isinstance(value, list) or not all(
                    isinstance(v, int) and not isinstance(v, bool) for v in value):
                raise ConfigError(f"DeepSeek-V4 {key}: a list of integers, got {value!r}")
            return tuple(value)

        rope = one("qk_rope_head_dim", 64)
        window = next((config[k] for k in ("sliding_window_size", "sliding_window")
                       if config.get(k) is not None), config.get("window_size"))
        layers = one("num_hidden_layers", 43)
        return cls(one("head_dim", None) - rope, rope, one("index_head_dim", 128),
                   ints("compress_ratios")[:layers], ints("kv_source_layer_ids"),
                   window if isinstance(window, int) and not isinstance(window, bool)
                   else one("window_size", 128), context_len)

    @property
    def head_dim(self) -> int:
        return self.qk_nope_head_dim + self.qk_rope_head_dim

    def owners(self) -> dict[int, int]:
        """Layers owning each ratio's compressed storage (`collect_sources_by_ratio`,
        deepseek_v4_memory_pool.py:94-115): every ratio-4 / 128 layer, the kv_source layers
        of ratio 1 / 2."""
        out: dict[int, int] = {}
        layers = range(len(self.compress_ratios))
        for ratio in (4, 128, 1, 2):
            if ratio in (1, 2):
                count = sum(1 for i in self.kv_source_layer_ids
                            if i in layers and self.compress_ratios[i] == ratio)
            else:
                count = sum(1 for r in self.compress_ratios if r == ratio)
            if count:
                out[ratio] = count
        return out


@dataclass(frozen=True)
class Dsv4PoolInputs:
    """The server line's part: page size, speculation (draft tokens and steps, None when
    off; DeepSeek-V4 runs EAGLE with topk 1 or DSPARK), `--max-running-requests` (the whole
    line's), attention DP, the PD role and its extra decode slots, `--swa-full-tokens-ratio`
    when given, `--swa-prefix-tails`, `--disable-radix-cache`, the prefill chunk and the
    compress-state dtype. The values are the resolved ones (`resolved_inputs` resolves a
    line's)."""

    page_size: int
    max_running_requests: int | None = None
    draft_tokens: int | None = None
    spec_steps: int | None = None
    attn_dp_size: int = 1
    disaggregation_mode: str = "null"
    decode_extra_slots: int = 0  # resolved: `decode_extra_slots`
    swa_full_tokens_ratio: float | None = None  # resolved: `operator_swa_ratio`
    swa_prefix_tails: int | None = None
    disable_radix_cache: bool = False
    chunked_prefill_size: int | None = 8192
    state_dtype: str = "float32"
    kv_layout: str = "v4"  # the main cache's layout (sglang_dsv4_plan.kv_layout)
    index_page: int = INDEX_PAGE  # the low-ratio indexer page (sglang_dsv4_plan.kv_layout)
    encoder_replay: bool = False  # --enable-encoder-swa-bounded-replay (s50k)
    # a DSPARK draft's layers under encoder replay: its SWA ring layers on CUDA (s51k)
    draft_ring_layers: int = 0

    def __post_init__(self) -> None:
        if self.kv_layout not in LAYOUTS:
            raise ConfigError(f"DeepSeek-V4 KV layout: one of {LAYOUTS}, got "
                              f"{self.kv_layout!r}")
        if self.index_page not in INDEX_PAGES:
            raise ConfigError(f"DeepSeek-V4 indexer page: one of {INDEX_PAGES}, got "
                              f"{self.index_page!r}")
        if self.page_size < 1 or self.page_size % 128:
            raise ConfigError("page_size must be multiple of 128 for compressed attention "
                              "(pool_configurator.py:1641-1643)")
        if self.state_dtype not in STATE_DTYPE_BYTES:
            raise ConfigError(f"Unsupported SGLANG_DSV4_COMPRESS_STATE_DTYPE="
                              f"{self.state_dtype!r}. Expected one of: float32, fp32, "
                              f"bfloat16, bf16.")
        if self.disaggregation_mode not in ("null", "prefill", "decode"):
            raise ConfigError(f"disaggregation_mode: {self.disaggregation_mode!r}")
        if self.draft_ring_layers < 0 or (self.draft_ring_layers
                                          and not (self.encoder_replay and self.speculative)):
            raise ConfigError("DeepSeek-V4 draft SWA ring layers: a count >= 0, only for a "
                              "DSPARK draft under encoder replay")
        if self.encoder_replay and (self.speculative != bool(self.draft_ring_layers)
                                    or self.max_running_requests is None
                                    or not self.chunked_prefill_size):
            raise ConfigError("DeepSeek-V4 encoder replay's window: restated with the request "
                              "count and the prefill chunk known, and a draft's layers with "
                              "its draft tokens")

    @property
    def speculative(self) -> bool:
        return self.draft_tokens is not None

    @property
    def requests_per_worker(self) -> int | None:
        if self.max_running_requests is None:
            return None
        return max(1, self.max_running_requests // self.attn_dp_size)

    def slots(self, requests: int) -> int:
        """`_get_num_req_slots` (:1504-1507)."""
        extra = self.decode_extra_slots if self.disaggregation_mode == "decode" else 0
        return requests + extra + 1


def operator_swa_ratio(given: float | None, model_type: str | None) -> float | None:
    """The `--swa-full-tokens-ratio` the configurator sees as the operator's
    (`_operator_swa_full_tokens_ratio`, :1049-1055): DeepSeek-V4's override sets 0.1 when
    the line gives none and the config.json's model_type is not deepseek_v41
    (arg_groups/model_overrides/deepseek_v4.py:43-49), and `_handle_cache_compatibility`
    then records it as given (arg_groups/kv_cache_hook.py:415-420). So only DeepSeek-V4.1
    leaves it unset, which lets cap mode size the SWA pool."""
    if given is not None:
        return given
    return None if model_type == "deepseek_v41" else DEFAULT_SWA_RATIO


def decode_extra_slots(given: int | None, max_running_requests: int | None,
                       dp_size: int) -> int:
    """`--disaggregation-decode-extra-slots` on a decode server (pd_disaggregation_hook.py:
    133-142): 2 x the per-DP-rank requests when the LINE's `--max-running-requests` gives at
    most 32 per rank (the hook runs before DeepSeek-V4's default of 256 is set,
    arg_groups/pipeline.py:147, 225), else 0."""
    if given is not None:
        return given
    if max_running_requests is None:
        return 0
    per_worker = max(1, max_running_requests // dp_size)
    return 2 * per_worker if per_worker <= 32 else 0


def resolved_inputs(*, page_size: int = PAGE_SIZE, max_running_requests: int | None,
                    draft_tokens: int | None = None, spec_steps: int | None = None,
                    attn_dp_size: int = 1, dp_size: int = 1,
                    disaggregation_mode: str = "null",
                    disaggregation_decode_extra_slots: int | None = None,
                    swa_full_tokens_ratio: float | None = None,
                    swa_prefix_tails: int | None = None, disable_radix_cache: bool = False,
                    decode_radix_cache: bool = False, chunked_prefill_size: int | None = 8192,
                    state_dtype: str = "float32", model_type: str | None = None,
                    kv_layout: str = "v4", index_page: int = INDEX_PAGE,
                    encoder_replay: bool = False, draft_ring_layers: int = 0
                    ) -> Dsv4PoolInputs:
    """A line's values as the configurator reads them after SGLang's hooks: DeepSeek-V4's
    default of 256 running requests (deepseek_v4_hook.py:138-144), the override's SWA ratio
    (`operator_swa_ratio`), the decode server's extra slots and its radix cache off unless
    --disaggregation-decode-enable-radix-cache (pd_disaggregation_hook.py:120-127), and the
    prefill chunk (as resolved before the split) divided by attention DP
    (`_handle_data_parallelism`, parallel_hook.py:326-332)."""
    decode = disaggregation_mode == "decode"
    return Dsv4PoolInputs(
        page_size=page_size,
        max_running_requests=(DEFAULT_MAX_RUNNING_REQUESTS if max_running_requests is None
                              else max_running_requests),
        draft_tokens=draft_tokens, spec_steps=spec_steps, attn_dp_size=attn_dp_size,
        disaggregation_mode=disaggregation_mode,
        decode_extra_slots=decode_extra_slots(disaggregation_decode_extra_slots,
                                              max_running_requests, dp_size) if decode else 0,
        swa_full_tokens_ratio=operator_swa_ratio(swa_full_tokens_ratio, model_type),
        swa_prefix_tails=swa_prefix_tails,
        disable_radix_cache=disable_radix_cache or (decode and not decode_radix_cache),
        chunked_prefill_size=(chunked_prefill_size // attn_dp_size
                              if chunked_prefill_size is not None and attn_dp_size > 1
                              else chunked_prefill_size),
        state_dtype=state_dtype, kv_layout=kv_layout, index_page=index_page,
        encoder_replay=encoder_replay, draft_ring_layers=draft_ring_layers)


@dataclass(frozen=True)
class Dsv4Pools:
    """The pool sizes SGLang's configurator returns, finalized with the request count."""

    full_tokens: int
    swa_tokens: int
    c4_tokens: int
    c128_tokens: int
    c4_state: int
    c128_state: int
    sized_for: int  # the request count the fixed pools were sized for
    request_pool: int  # resolve_max_num_reqs over full_tokens (sglang_pool.kv_request_pool)
    bytes_per_full_token: float
    bytes_per_swa_token: float
    fixed_bytes: float


@dataclass(frozen=True)
class Dsv4Pool:
    """The configurator's per-token bytes and fixed pools for one shape and line."""

    shape: Dsv4Shape
    line: Dsv4PoolInputs

    def __post_init__(self) -> None:
        if self.line.speculative:  # _assert_ring_serves_draft_tokens (:1291-1307)
            drafts = self.line.draft_tokens or 0
            for ratio in (4, 128):
                if ratio not in self.owners:
                    continue
                ring = self.rings[ratio]
                limit = write_pad(ratio, ring)
                if drafts > limit:
                    raise ConfigError(
                        f"speculative_num_draft_tokens={drafts} exceeds what the c{ratio} "
                        f"compress state ring can keep resident (ring_size={ring} serves at "
                        f"most {limit} draft tokens) (pool_configurator.py:1291-1307)")

    @property
    def owners(self) -> dict[int, int]:
        return self.shape.owners()

    @property
    def rings(self) -> dict[int, int]:
        drafts = self.line.draft_tokens or 0
        return {ratio: ring_size(ratio, drafts) for ratio in self.owners if ratio != 1}

    @property
    def layers(self) -> int:
        return len(self.shape.compress_ratios)

    @property
    def inflation(self) -> float:
        """(layers + 1) / layers under speculation without encoder replay (:1250-1257)."""
        if not self.line.speculative or self.line.encoder_replay:
            return 1.0
        return (self.layers + 1) / self.layers

    @property
    def kv_bytes(self) -> int:
        """One FlashMLA-layout latent slot, unpadded (`kv_bytes`, :1103-1108): nope +
        2 x rope + 8 scale bytes (trtllm's and HIP's unified pools are not restated)."""
        return self.shape.qk_nope_head_dim + 2 * self.shape.qk_rope_head_dim + 8

    def request_window_bytes(self) -> int:
        """The encoder-replay SWA request window (:1211-1239): per request slot (the line's
        requests per attention-DP rank + 1) a window of the sliding window plus the draft
        tokens (`online_c128_mtp_max_draft_tokens`, 0 without a draft), page-aligned, on
        every layer of the stage, plus a page, at kv_bytes + 16 a slot; four scratch rows
        of max(chunk, slots x max(128, draft tokens)) + slots x 128 + page; 3 x 16 x
        head_dim x 8 bytes a slot; and a DSPARK draft's SWA ring (issue 23 s51k): on CUDA
        every draft layer is a ring layer under replay (`uses_draft_swa_ring`,
        deepseek_v4_memory_pool.py:135-139), slots x `get_draft_swa_ring_size` (:142-147,
        the same aligned window) + a page per layer, at kv_bytes a slot. 0 without replay."""
        line = self.line
        if not line.encoder_replay:
            return 0
        assert line.requests_per_worker is not None and line.chunked_prefill_size
        slots = line.requests_per_worker + 1
        page, kv = line.page_size, self.kv_bytes + 16
        drafts = line.draft_tokens or 0
        capacity = _ceil_div(self.shape.window_size + drafts, page) * page
        scratch = (max(line.chunked_prefill_size, slots * max(128, drafts)) + slots * 128
                   + page)
        ring = (slots * capacity + page) * line.draft_ring_layers * self.kv_bytes
        return ((slots * capacity + page) * self.layers * kv + 4 * scratch * kv
                + slots * 3 * 16 * self.shape.head_dim * 8 + ring)

    def prefix_tails(self) -> int:
        """`_resolve_swa_prefix_tails` (:1309-1326)."""
        if self.line.swa_prefix_tails is not None:
            return self.line.swa_prefix_tails
        requests = self.line.requests_per_worker
        if self.line.disable_radix_cache or requests is None:
            return 0
        return 4 * requests

    def swa_cap_tokens(self) -> int | None:
        """`_resolve_swa_cap_tokens` (:1328-1351) with `compute_swa_request_cap`
        (:924-968); None: ratio sizing."""
        line = self.line
        if line.encoder_replay:  # the target's SWA lives in the request window (:1243-1247)
            return 0
        requests = line.requests_per_worker
        if line.swa_full_tokens_ratio is not None or requests is None:
            return None
        chunk = line.chunked_prefill_size
        if line.disaggregation_mode != "decode" and (chunk is None or chunk <= 0):
            return None
        page, window = line.page_size, self.shape.window_size
        drafts = line.draft_tokens or 1
        per_request = window + EVICTION_INTERVAL * drafts + page
        if not line.speculative:
            per_request += page
        else:  # the overlap allocator: 2 x get_alloc_len_per_decode (topk 1)
            per_request += 2 * max(line.spec_steps or 1, drafts)
        if line.disaggregation_mode == "decode":
            cap = per_request * requests + (window + page) * line.decode_extra_slots
        else:
            cap = per_request * requests + 2 * (chunk or 0) + page
        headroom = self.prefix_tails() * (window + page)
        return _ceil_div(cap + headroom, page) * page

    def swa_tokens(self, full: int, context: str = "") -> int:
        """The SWA pool beside a full pool of `full` tokens: the cap where one is set, else
        the ratio's share page aligned, refused when it cannot hold one request's window
        (pool_configurator.py:198-216). `context` ends the refusal (e.g. the token cap)."""
        cap = self.swa_cap_tokens()
        if cap is not None:
            return cap
        page = self.line.page_size
        swa = int(full * self.swa_ratio()) // page * page
        if self.shape.window_size + page >= swa:
            raise ConfigError(f"SWA pool ({swa} tokens) cannot hold even one request "
                              f"(pool_configurator.py:198-216){context}")
        return swa

    def swa_ratio(self) -> float:
        ratio = self.line.swa_full_tokens_ratio
        return DEFAULT_SWA_RATIO if ratio is None else ratio

    def bytes_per_swa_token(self) -> float:
        if self.line.encoder_replay:  # only a draft's layers own paged SWA (:1375-1378)
            return 0.0
        state = STATE_DTYPE_BYTES[self.line.state_dtype]
        c4_state = 2 * 2 * self.shape.head_dim * state + 2 * 2 * self.shape.index_head_dim * state
        per = paged_bytes_per_token(self.line.page_size, 0, self.line.kv_layout) * self.layers + (
            self.rings.get(4, 0) / self.line.page_size * c4_state * self.owners.get(4, 0))
        return per * self.inflation

    def compressed_bytes(self, ratio: int) -> float:
        """`_compressed_bytes_per_full_token` (:1390-1404), HiSparse off."""
        page = self.line.page_size
        latent = paged_bytes_per_token(page, ratio, self.line.kv_layout)
        if ratio in (1, 2):
            return (latent + indexer_bytes(self.shape.index_head_dim, fp4=True)) / ratio
        if ratio == 4:
            return 1 / 4 * latent + 1 / 4 * indexer_bytes(self.shape.index_head_dim, fp4=False)
        return 1 / 128 * latent

    def bytes_per_full_token(self) -> float:
        ratio = 0.0 if self.swa_cap_tokens() is not None else self.swa_ratio()
        per = ratio * self.bytes_per_swa_token() / self.inflation + sum(
            self.compressed_bytes(r) * n for r, n in self.owners.items())
        return per * self.inflation

    def padding_bytes(self, full_tokens: int) -> float:
        """`_get_low_ratio_kv_padding_bytes` (:1406-1435)."""
        page = self.line.page_size
        low = indexer_bytes(self.shape.index_head_dim, fp4=True)
        out = 0.0
        for ratio in (1, 2):
            layers = self.owners.get(ratio, 0)
            if not layers:
                continue
            main = page * paged_bytes_per_token(page, ratio, self.line.kv_layout)
            index_size = (full_tokens + page) // ratio
            index_page = self.line.index_page
            slots = _ceil_div(index_size + index_page, index_page) * index_page
            out += (main + (slots - full_tokens // ratio) * low) * layers
        return out

    def requests(self, available_bytes: int) -> int:
        """`_resolve_max_running_requests_per_worker` (:1565-1574)."""
        given = self.line.requests_per_worker
        if given is not None:
            return given
        full = int(available_bytes / self.bytes_per_full_token())
        estimate = max(min(int(full / self.shape.context_len * 512), 4096), 2048)
        return min(estimate, full // 2)

    def fixed_bytes(self, requests: int) -> float:
        """c128 state (:1509-1528), ratio-2 pair state (:1530-1543), cap-mode SWA pool."""
        out: float = 0
        slots = self.line.slots(requests)
        state = STATE_DTYPE_BYTES[self.line.state_dtype]
        if 128 in self.owners:
            ring = self.rings[128]
            rows = _ceil_div(slots * ring + ring + 1, 128) * 128
            out += rows * 2 * self.shape.head_dim * state * self.owners[128]
        if 2 in self.owners:
            ring = self.rings[2]
            rows = _ceil_div(slots * ring + ring + 1, 2) * 2
            out += rows * 2 * self.shape.head_dim * 4 * self.owners[2]
        cap = self.swa_cap_tokens()
        if cap is not None:
            out += cap * self.bytes_per_swa_token()
        return out + self.request_window_bytes()  # `_get_swa_fixed_bytes` (:1448-1455)

    def pools(self, available_bytes: int) -> Dsv4Pools:
        """`calculate_pool_sizes` (:1638-1701), then the request pool SGLang resolves over
        the full tokens (`resolve_max_num_reqs`, kv_cache_configurator.py:3119-3133, called
        at :3183-3185) and `finalize_with_max_running_requests` (:1622-1636) with it."""
        page = self.line.page_size
        requests = self.requests(available_bytes)
        fixed = self.fixed_bytes(requests)
        room = max(available_bytes - fixed, 0)
        per_full = self.bytes_per_full_token()
        if per_full <= 0:  # no compressed storage and the SWA pool capped: SGLang divides by 0
            raise ConfigError("no byte scales with the full pool (no compressed layer, the "
                              "SWA pool capped): SGLang's ZeroDivisionError "
                              "(pool_configurator.py:1668)")
        full = int(room / per_full) // page * page
        while full > 0 and full * per_full + self.padding_bytes(full) > room:
            full -= page
        cap = self.swa_cap_tokens()
        if full <= 0 and cap is not None:
            raise ConfigError(f"The DSV4 SWA pool cap ({cap} tokens) leaves no room for the "
                              f"full KV pool (pool_configurator.py:1681-1687)")
        swa = self.swa_tokens(full)
        if full <= 0:
            raise ConfigError("Not enough memory. Please try to increase "
                              "--mem-fraction-static (pool_configurator.py:94-100)")
        pool = kv_request_pool(full, self.shape.context_len, self.line.max_running_requests,
                               self.line.attn_dp_size)
        return Dsv4Pools(
            full_tokens=full, swa_tokens=swa, c4_tokens=full // 4,
            c128_tokens=full // 128, c4_state=swa // page * self.rings.get(4, 0),
            c128_state=self.line.slots(pool) * self.rings.get(128, 0), sized_for=requests,
            request_pool=pool,
            bytes_per_full_token=per_full, bytes_per_swa_token=self.bytes_per_swa_token(),
            fixed_bytes=fixed)


def budget_bytes(weights_gb: float, fraction: float, preload_gb: float) -> int:
    """The byte budget `_profile_available_bytes` hands the configurator
    (kv_cache_configurator.py:2990-3060) for a model without mamba state or multimodal
    reservation: the free memory after the weights (preload - weights, GiB) less the slack
    preload x (1 - mem_fraction_static), in bytes. graphfit is given the weights' size and the
    free memory before loading (the GPU's whole memory when not given, as
    graphfit.planner.engines.sglang_mamba_memory assumes); nothing left is SGLang's
    ValueError (:3043-3058)."""
    rest = (preload_gb - weights_gb) - preload_gb * (1 - fraction)
    if rest <= 0:
        raise ConfigError(f"Loaded weights leave no GPU memory for the KV cache under "
                          f"--mem-fraction-static={fraction} (kv_cache_configurator.py:"
                          f"3043-3058)")
    return int(rest * (1 << 30))


# SGLANG_DSV4_KV_LAYOUT=auto: the V4 layout before SM100, the V4.1 layouts on SM100
# (select_dsv4_kv_layout, deepseek_v4_memory_pool.py:198-234); read only on SM100
AUTO_LAYOUT = "SGLANG_DSV4_KV_LAYOUT=auto (the V4.1 layouts on SM100)"


def not_modelled(environ: Mapping[str, str], *, dsv4_attn_backend: str | None = None,
                 pp_size: int = 1, hisparse: bool = False, encoder_replay: bool = False,
                 capability: tuple[int, int] | None = None) -> str | None:
    """Why graphfit does not restate this line's pools, or None."""
    if environ.get("SGLANG_OPT_USE_ONLINE_COMPRESS", "").strip().lower() in (
            "1", "true", "yes", "on"):
        return "online c128 (SGLANG_OPT_USE_ONLINE_COMPRESS)"
    if environ.get("SGLANG_DSV4_KV_LAYOUT", "v4").lower() not in ("v4", "auto"):
        return "the V4.1 KV layouts (SGLANG_DSV4_KV_LAYOUT)"
    if capability is not None and capability[0] >= 10:
        return "SM100's layouts and indexer pages"
    if dsv4_attn_backend == "trtllm":
        return "--dsv4-attn-backend trtllm's uniform-FP8 pools"
    if pp_size > 1:
        return "pipeline stages' layer slices"
    if hisparse:
        return "HiSparse's c4 host-to-device ratio"
    if encoder_replay:
        return "the encoder-replay SWA request window"
    return None
