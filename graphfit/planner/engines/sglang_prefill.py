"""SGLang 0.5.23's prefill CUDA graphs: whether they are on, their token ladder, dispatch, buffers.

SGLang captures prefill (extend) forwards per aggregate token count, not per batch size: the
phase's `bs` list carries token counts (cuda_graph_config.py:66-70). The backend is
`breakable` by default on CUDA (`default_prefill_backend`, cuda_graph_config.py:120-124),
`full` on request, or `disabled`. Resolution, in SGLang's order:

1. flags (`parse_cuda_graph_config`, arg_groups/cuda_graph_hook.py:32-99): the legacy
   `--disable-cuda-graph` and `--disable-prefill-cuda-graph` disable, then
   `--cuda-graph-backend-prefill`, `--cuda-graph-max-bs-prefill`, `--cuda-graph-bs-prefill`,
   then the JSON `--cuda-graph-config '{"prefill": {...}}'` (highest); each locks its key;
2. compatibility, only when the backend is not locked (cuda_graph_hook.py:138-176, 179-258):
   pipeline parallelism disables breakable; so do a KDA model, a DeepSeek-V4 model (its c4
   indexer scratch would pin the capture pool, :193-202; graphfit refuses prefill CP, the
   exception), attention CP without prefill-CP BCG and two-batch overlap;
3. PD roles (cuda_graph_hook.py:557-576): a decode server disables prefill graphs unless the
   backend is locked;
4. the torch_native / flex_attention attention backends disable both phases
   (attention_hook.py:124-160);
5. sizes (memory_hook.py:233-268): max_bs (tokens) defaults to chunked_prefill_size (itself a
   default by GPU memory, memory_hook.py:89-180; at most 8192 for an MLA model,
   memory_hook.py:233-237), capped at 8192 for a locked breakable
   backend under PP, at max_total_tokens and at 4096 for a "llama-2" model path; bs defaults
   to `generate_prefill_cuda_graph_batch_sizes(max_bs)` (cuda_graph_hook.py:480-497), which,
   unlike the decode list, never appends max_bs;
6. attention DP (parallel_hook.py:328-363): chunked_prefill_size is divided by attn_dp_size,
   and an unlocked max_bs above it is clamped to it (bs regenerated unless locked).

With `--moe-a2a-backend deepep` and breakable graphs, step 2 is followed by DeepEP's 8-aligned
bucket rewrite (`apply_deepep_adjustments`, cuda_graph_hook.py:315-342,
graphfit.planner.engines.sglang_moe_a2a.deepep_prefill_buckets): it declares bs and max_bs
before step 5, so step 5's defaults and caps do not apply; step 6 still clamps (max_bs is not
locked) and regenerates an unlocked list unaligned.

Before the runner is built, `capture_prefill_graph`
(model_runner_components/cuda_graph_setup.py:578-615) keeps the token counts a capture batch
can hold: at most request slots x context length tokens, the slots being the request pool,
or for the full backend min(full_prefill_max_req or max(chunked_prefill_size // 512, 1),
pool); none left means no prefill graphs. The full backend replays only batches of at most
that many requests (prefill_cuda_graph_runner.py:1363-1364).

The runner (model_executor/runner/prefill_cuda_graph_runner.py:364-371) captures
`sorted({ceil_align(n, alignment)})` (`get_prefill_num_tokens_to_capture`, :164-170, with the
decode batch-size alignment, utils/common.py:4184) and replays a batch of n tokens padded to
the smallest captured count >= n (`_pad_to_bucket`, bisect_left), unless n exceeds the largest
or padding would more than double it (`can_replay_locally`, :1413-1421,
_MAX_PREFILL_CUDA_GRAPH_PADDING_FACTOR = 2 at :158): those run eagerly.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.ladder import check_size_count, round_up
from graphfit.planner.engines import sglang_attn_default, sglang_moe_a2a
from graphfit.planner.engines.sglang_mamba_inkling import INKLING_ARCHS
from graphfit.planner.engines.sglang_multimodal import MULTIMODAL_PREFILL_OFF
from graphfit.planner.engines.sglang_prefill_cp_bcg import (
    INPUT_EMBEDS,
    POSITIONS,
    check_capture,
    filter_capture,
    replay_bucket,
)

BREAKABLE = "breakable"
FULL = "full"
DISABLED = "disabled"
BACKENDS = (FULL, BREAKABLE, DISABLED)  # ALLOWED_BACKENDS_PER_PHASE (cuda_graph_config.py:50)
PADDING_FACTOR = 2  # prefill_cuda_graph_runner.py:158
PP_DEFAULT_MAX_TOKENS = 8192  # memory_hook.py:25
LLAMA2_MAX_TOKENS = 4096  # memory_hook.py:259-263
MLA_MAX_TOKENS = 8192  # memory_hook.py:235-237
# chunked_prefill_size by GPU memory (memory_hook.py:89-180): (below GiB, tokens)
CHUNKED_PREFILL_CLASSES = ((20, 2048), (35, 4096), (60, 4096), (90, 8192), (160, 8192))
LARGE_GPU_CHUNKED_PREFILL = 16384
UNKNOWN_GPU_CHUNKED_PREFILL = 4096
# models whose attention SGLang's ModelConfig always resolves to MLA: the list named without
# a condition (configs/model_config.py:1367-1397, kept in sglang_attn_default) plus the ones
# of 1443-1512 (the ones it decides by a config key, e.g. Pixtral or DeepseekVL2 with
# kv_lora_rank, are left out)
MLA_ARCHITECTURES = sglang_attn_default.MLA_ARCHITECTURES | frozenset({
    "KimiVLForConditionalGeneration", "KimiLinearForCausalLM", "KimiK3LinearForCausalLM",
    "KimiK3ForConditionalGeneration", "BailingMoeV2_5ForCausalLM", "BailingMoeV3ForCausalLM",
    "BailingMoeV3VLForConditionalGeneration", "SarvamMLAForCausalLM"})
GRAPHLESS_ATTENTION = frozenset({"torch_native", "flex_attention"})  # attention_hook.py:124-160
DISAGGREGATION_MODES = ("null", "prefill", "decode")
# `is_deepseek_v4` (configs/model_config.py:395-400): breakable prefill graphs off by default
DEEPSEEK_V4 = frozenset({"DeepseekV4ForCausalLM", "DeepseekV4ForCausalLMNextN",
                         "DeepseekV4ForCausalLMDSpark"})
DEEPSEEK_V4_PREFILL_OFF = ("DeepSeek-V4: breakable prefill graphs off (heavy capture-pool "
                           "memory pressure, cuda_graph_hook.py:193-202)")


FAMILY_PREFILL_OFF = ("DeepSeek-family prefill CP: the model hook turns prefill graphs off "
                      "(model_hook.py:304-321, 421-430)")


def family_prefill_off(family: str | None, backend: str | None, cp_bcg: str | None) -> bool:
    """A DeepSeek-family prefill-CP line's prefill graphs turned off (issue 23 s60p). SGLang's
    model hook declares them disabled on a DSA target unless the backend is breakable and
    CP's own graphs are supported (model_hook.py:304-321), on an MLA one always (:421-430);
    `apply_prefill_cp_cuda_graph_default` then turns them back to breakable where CP's graphs
    are supported and no flag gave the backend (cuda_graph_hook.py:104-134). `backend`: the
    one the flags give (None: none); `cp_bcg`: the strategy when CP's graphs are supported."""
    if family is None:
        return False
    if cp_bcg is None:
        return True
    return backend is not None and not (family == "DSA" and backend == BREAKABLE)


SHARING_PREFILL_OFF = ("Qwen4-Exp under CP-TP group sharing: the sharing hook turns prefill "
                       "graphs off (cp_tp_group_sharing_hook.py:123-127)")
QWEN4_EXP = "Qwen4ExpForConditionalGeneration"


def sharing_prefill_off(architecture: str | None, sharing: bool) -> bool:
    """A Qwen4-Exp target under CP-TP group sharing (SglangOptions.cp_tp_group_sharing):
    `resolve_cp_tp_group_sharing` declares its prefill phase's backend disabled, since its
    sequence collectives have batch-dependent sizes (cp_tp_group_sharing_hook.py:122-130; the
    declaration wins over the flags, model_override_base.py:76-86); Glm5Next keeps its own
    (issue 23 s63p)."""
    return sharing and architecture == QWEN4_EXP


def deepseek_v4_breakable_off(architecture: str | None) -> bool:
    """A DeepSeek-V4 target, whose breakable prefill graphs SGLang turns off unless the
    backend is given (`disable_breakable_cudagraph_if_incompatible`, cuda_graph_hook.py:
    193-202). The exception, prefill CP with its own graphs (`supports_prefill_cp_bcg`,
    layers/cp/bcg/__init__.py:42-64), needs --enable-prefill-cp, which graphfit refuses."""
    return architecture in DEEPSEEK_V4


def full_prefill_by_default(architecture: str | None) -> bool:
    """An Inkling target, for which SGLang declares `--cuda-graph-backend-prefill full`
    before any cuda-graph resolution unless the line gives that flag or
    `--disable-prefill-cuda-graph` (`apply_inkling_prefill_cuda_graph_default`,
    cuda_graph_hook.py:349-372, run at arg_groups/pipeline.py:185). Declared as the flag, it
    locks the phase's backend (cuda_graph_hook.py:70-71, 101), so none of the default's
    compatibility rules (pipeline parallelism, PD decode, :143, :569) turn it off. The hook's
    other exit, a model path of the `instance://` connector (:360), serves weights graphfit
    does not read (its architecture comes from a config file)."""
    return architecture in INKLING_ARCHS


# `apply_muse_glimmer_prefill_cuda_graph_max_bs_default` (cuda_graph_hook.py:375-389)
MUSE_GLIMMER_ARCHS = frozenset({"MuseGlimmerForCausalLM", "MuseGlimmerForConditionalGeneration"})
MUSE_GLIMMER_MAX_TOKENS = 512


def declared_max_tokens(architecture: str | None, given: int | None) -> int | None:
    """The prefill graphs' max token count as SGLang's flags read it: the one given (the
    flag or the JSON phase, which outranks it), else 512 for a MuseGlimmer target. SGLang
    declares `--cuda-graph-max-bs-prefill 512` for one before any cuda-graph resolution
    unless the flag is given (`apply_muse_glimmer_prefill_cuda_graph_max_bs_default`,
    cuda_graph_hook.py:375-389, run at arg_groups/pipeline.py:186). Declared as the flag, the
    max is locked (cuda_graph_hook.py:74-75): the memory hook's chunked-prefill, PP,
    max-total-tokens and llama-2 caps (memory_hook.py:233-263) and attention DP's re-clamp
    (parallel_hook.py:344-349) leave it, as they leave a given one. It changes prefill
    graphs only: the decode max_bs and ladder are the memory hook's (memory_hook.py:83-188).
    The hook's other exit, an `instance://` model path (:380), is a line SGLang cannot
    resolve (graphfit.inputs.sglang_instance)."""
    if given is None and architecture in MUSE_GLIMMER_ARCHS:
        return MUSE_GLIMMER_MAX_TOKENS
    return given


def prefill_token_ladder(max_tokens: int) -> list[int]:
    """`generate_prefill_cuda_graph_batch_sizes` (cuda_graph_hook.py:480-497): 4..32/4,
    48..256/16, 288..512/32, 576..1024/64, 1280..4096/256, then every 512, cut at max_tokens
    (max_tokens itself is not appended)."""
    check_size_count(max_tokens // 512, "cuda_graph_max_bs_prefill")
    runs = (range(4, 33, 4), range(48, 257, 16), range(288, 513, 32), range(576, 1025, 64),
            range(1280, 4097, 256), range(4608, max_tokens + 1, 512))
    return [s for run in runs for s in run if s <= max_tokens]


def default_chunked_prefill_size(gpu_memory_gb: float | None) -> int:
    """`--chunked-prefill-size` when not given (memory_hook.py:89-180)."""
    if gpu_memory_gb is None:
        return UNKNOWN_GPU_CHUNKED_PREFILL
    for below, tokens in CHUNKED_PREFILL_CLASSES:
        if gpu_memory_gb < below:
            return tokens
    return LARGE_GPU_CHUNKED_PREFILL


def given_chunk(chunked_prefill_size: int | None, gpu_memory_gb: float | None) -> int:
    """`chunked_prefill_size` as the hooks read it before attention DP divides it: the line's
    value of any sign (<= 0: chunking off, which SGLang keeps, memory_hook.py:93-177 fill only
    None), else the memory hook's default. Why not `or`: a given 0 is chunking off, not the
    default (issue 23 s68b)."""
    if chunked_prefill_size is None:
        return default_chunked_prefill_size(gpu_memory_gb)
    return chunked_prefill_size


def chunk_or(chunked_prefill_size: int | None, default: int) -> int:
    """given_chunk with the default already computed (`default`)."""
    return default if chunked_prefill_size is None else chunked_prefill_size


def chunking_off(chunked_prefill_size: int | None) -> bool:
    """A given `--chunked-prefill-size` <= 0: SGLang's checks and the scheduler read chunking
    as off (validation_hook.py:243, scheduler.py:1362-1373)."""
    return chunked_prefill_size is not None and chunked_prefill_size <= 0


@dataclass(frozen=True)
class PrefillInputs:
    """What SGLang's prefill-graph resolution reads, as given (None: not given).

    `backend` is the explicit prefill backend after the flags' precedence (a disable flag
    gives "disabled"); given, it is locked and no compatibility rule changes it.
    """

    backend: str | None = None
    max_tokens: int | None = None
    tokens: tuple[int, ...] | None = None
    chunked_prefill_size: int | None = None
    max_total_tokens: int | None = None
    gpu_memory_gb: float | None = None
    tp_size: int = 1
    attn_dp_size: int = 1
    attn_cp_size: int = 1
    pp_size: int = 1
    two_batch_overlap: bool = False
    disaggregation_mode: str = "null"
    attention_backend: str | None = None
    llama2_path: bool = False  # "llama-2" in the model path (memory_hook.py:259-263)
    mla: bool = False  # an MLA model (use_mla_backend): max tokens capped at 8192
    # a multimodal model off SGLang's breakable allowlist (graphfit.planner.engines.
    # sglang_multimodal): breakable prefill graphs off unless the backend is given
    multimodal_breakable_off: bool = False
    # a KDA hybrid linear-attention model (sglang_mamba_pool.uses_kda): breakable prefill
    # graphs off unless the backend is given (cuda_graph_hook.py:183-191)
    kda_breakable_off: bool = False
    # a DeepSeek-V4 model (deepseek_v4_breakable_off): breakable prefill graphs off unless the
    # backend is given (cuda_graph_hook.py:193-202)
    deepseek_v4_breakable_off: bool = False
    # an Inkling model (full_prefill_by_default): with no backend given, the full backend,
    # as if given (cuda_graph_hook.py:349-372)
    full_by_default: bool = False
    # the capture batch's bounds (cuda_graph_setup.py:578-603); None: not binding
    request_pool: int | None = None  # req_to_token_pool.size (one attention-DP group's)
    context_length: int | None = None  # the model's context length
    full_max_requests: int | None = None  # cuda_graph_config.prefill.full_prefill_max_req
    moe_a2a_backend: str = "none"  # --moe-a2a-backend (graphfit.planner.engines.sglang_moe_a2a)
    # --dcp-size > 1: breakable prefill graphs off unless the backend is given
    # (cuda_graph_hook.py:212-216; graphfit.planner.engines.sglang_dcp)
    dcp: bool = False
    # the backend the prefill runner gathers with once `handle_a2a_moe` resolved it (Waterfill's
    # forced deepep, overrides.py:1595-1607); None: moe_a2a_backend, which the cuda-graph
    # hook's checks read as given (pipeline.py:191 runs before :295)
    runtime_a2a_backend: str | None = None
    # the prefill-CP strategy when SGLang captures CP's own breakable prefill graphs
    # (graphfit.planner.engines.sglang_prefill_cp_bcg.supported; issue 23 s54g); None: not
    cp_bcg: str | None = None
    # a DeepSeek-family prefill-CP line (SglangOptions.prefill_cp_family, issue 23 s60p): the
    # model hook turns prefill graphs off, flags or not, unless CP's own graphs are captured
    # (family_prefill_off)
    family_prefill_off: bool = False
    # Qwen4-Exp under CP-TP group sharing: the sharing hook declares the prefill graphs
    # disabled, flags or not (sharing_prefill_off; issue 23 s63p)
    sharing_prefill_off: bool = False
    # --disable-attn-tp-gather: no attention-TP gather, so no alignment to its width
    # (utils/common.py:4142-4143; issue 23 s68l)
    disable_attn_tp_gather: bool = False
    # --moe-dense-tp-size (None: unset): set, it gathers the attention input as a live
    # all-to-all backend does (utils/common.py:4147-4150; issue 23 s69c)
    moe_dense_tp_size: int | None = None

    def __post_init__(self) -> None:
        if self.backend is not None and self.backend not in BACKENDS:
            raise ConfigError(f"cuda_graph_backend_prefill: {self.backend!r} is not one of "
                              f"{', '.join(BACKENDS)} (cuda_graph_hook.py:410-420)")
        if self.disaggregation_mode not in DISAGGREGATION_MODES:
            raise ConfigError(f"disaggregation_mode: {self.disaggregation_mode!r} is not one "
                              f"of {', '.join(DISAGGREGATION_MODES)}")
        for name in ("tp_size", "attn_dp_size", "attn_cp_size", "pp_size"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name}: must be a positive integer, got {value!r}")
        if self.max_tokens is not None and (not isinstance(self.max_tokens, int)
                                            or self.max_tokens < 1):
            raise ConfigError(f"cuda_graph_max_bs_prefill: must be a positive integer, got "
                              f"{self.max_tokens!r}")
        if self.tokens is not None and any(isinstance(t, bool) or not isinstance(t, int)
                                           or t < 1 for t in self.tokens):
            raise ConfigError("cuda_graph_bs_prefill: token counts must be positive integers")
        for name in ("request_pool", "context_length", "full_max_requests",
                     "moe_dense_tp_size"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                      or value < 1):
                raise ConfigError(f"{name}: must be a positive integer, got {value!r}")
        cps = self.chunked_prefill_size  # any sign: <= 0 is chunking off (given_chunk)
        if cps is not None and (isinstance(cps, bool) or not isinstance(cps, int)):
            raise ConfigError(f"chunked_prefill_size: must be an integer, got {cps!r}")


@dataclass(frozen=True)
class PrefillGraphs:
    """The resolved prefill graphs: backend, the resolved token list, what the runner
    captures (aligned), and why they are off when they are."""

    backend: str
    tokens: tuple[int, ...]  # cuda_graph_config.prefill.bs as resolved
    captured: tuple[int, ...]  # the runner's capture_num_tokens; () when disabled
    alignment: int
    chunked_prefill_size: int
    why_off: str = ""
    request_slots: int | None = None  # full backend: requests one graph holds
    # cuda_graph_config.prefill.backend as resolution leaves it, where the runner setup then
    # builds no runner (an empty or unfitting list, cuda_graph_setup.py:563-615); the memory
    # hook reads this one (memory_hook.py:380-397)
    resolved_backend: str | None = None
    # CP's own breakable graphs (issue 23 s60r): the strategy (None: not captured), the
    # attention CP width and the context length their capture batches are split by
    cp_bcg: str | None = None
    cp_size: int = 1
    context_length: int | None = None

    @property
    def phase_backend(self) -> str:
        """The resolved phase's backend (what SGLang's memory hook sees)."""
        return self.resolved_backend or self.backend

    def replays(self, num_tokens: int, num_requests: int = 1) -> int | None:
        """`pad` for a batch of `num_requests` requests: the full backend runs batches of
        more requests than its slots eagerly (prefill_cuda_graph_runner.py:1363-1364)."""
        if self.backend == FULL and self.request_slots is not None and (
                num_requests > self.request_slots):
            return None
        return self.pad(num_tokens)

    def replays_cp(self, extend_seq_lens: tuple[int, ...]) -> int | None:
        """The captured count an extend batch of these request lengths replays, or None
        (eager): under CP's own graphs SGLang's bucket choice (graphfit.planner.engines.
        sglang_prefill_cp_bcg.replay_bucket, bcg/bcg.py:137-176), else `replays`."""
        if any(isinstance(n, bool) or not isinstance(n, int) or n < 1
               for n in extend_seq_lens) or not extend_seq_lens:
            raise ConfigError(f"extend_seq_lens: positive request lengths, got "
                              f"{extend_seq_lens!r}")
        if self.cp_bcg is None:
            return self.replays(sum(extend_seq_lens), len(extend_seq_lens))
        return replay_bucket(self.captured, self.cp_size, self.context_length,
                             tuple(extend_seq_lens), PADDING_FACTOR)

    @property
    def on(self) -> bool:
        return self.backend != DISABLED

    @property
    def max_tokens(self) -> int:
        return self.captured[-1] if self.captured else 0

    def pad(self, num_tokens: int) -> int | None:
        """The captured token count a prefill of `num_tokens` replays, or None (eager):
        `can_replay_locally`'s token checks (prefill_cuda_graph_runner.py:1413-1421) and
        `_pad_to_bucket` (base_cuda_graph_runner.py:166)."""
        if num_tokens < 1:
            raise ConfigError(f"num_tokens: must be >= 1, got {num_tokens}")
        if not self.captured or num_tokens > self.captured[-1]:
            return None
        padded = self.captured[bisect_left(self.captured, num_tokens)]
        return None if padded > num_tokens * PADDING_FACTOR else padded


def _alignment(inputs: PrefillInputs) -> int:
    """`get_cuda_graph_batch_size_alignment` (utils/common.py:4163-4175) for a dense model
    without MoE all-to-all."""
    align = 2 if inputs.two_batch_overlap else 1
    if inputs.attn_dp_size > 1 or sglang_moe_a2a.gathers_attention(  # require_gathered_buffer
            inputs.runtime_a2a_backend or inputs.moe_a2a_backend, inputs.tp_size,
            inputs.attn_dp_size, inputs.disable_attn_tp_gather, inputs.moe_dense_tp_size):
        align *= inputs.tp_size // inputs.attn_dp_size // inputs.attn_cp_size
    if align % inputs.attn_cp_size:
        align *= inputs.attn_cp_size
    return align


def _backend(inputs: PrefillInputs) -> tuple[str, str]:
    """The resolved backend and, when disabled, why (steps 1-4 of the module docstring)."""
    if inputs.attention_backend in GRAPHLESS_ATTENTION:
        return DISABLED, (f"attention backend {inputs.attention_backend} disables CUDA graphs "
                          f"(attention_hook.py:124-160)")
    if inputs.family_prefill_off:
        return DISABLED, FAMILY_PREFILL_OFF
    if inputs.sharing_prefill_off:
        return DISABLED, SHARING_PREFILL_OFF
    if inputs.backend is not None:
        return inputs.backend, ("disabled by the flags" if inputs.backend == DISABLED else "")
    if inputs.full_by_default:  # Inkling: declared as the flag, locked (cuda_graph_hook.py:
        return FULL, ""  # 349-372)
    if inputs.pp_size > 1:
        return DISABLED, "pipeline parallelism: breakable prefill graphs are opt-in " \
                         "(cuda_graph_hook.py:144-157)"
    if inputs.kda_breakable_off:
        return DISABLED, "KDA hybrid linear attention: breakable prefill graphs off " \
                         "(cuda_graph_hook.py:183-191)"
    if inputs.deepseek_v4_breakable_off:
        return DISABLED, DEEPSEEK_V4_PREFILL_OFF
    if inputs.attn_cp_size > 1 and inputs.cp_bcg is None:  # else breakable (cuda_graph_hook.
        # py:104-134, the rules above and below applied again)
        return DISABLED, "attention CP without prefill-CP breakable graphs " \
                         "(cuda_graph_hook.py:212-218)"
    if inputs.dcp:
        return DISABLED, "decode context parallel (cuda_graph_hook.py:212-216)"
    if inputs.two_batch_overlap:
        return DISABLED, "two-batch overlap (cuda_graph_hook.py:217-221)"
    if inputs.moe_a2a_backend not in sglang_moe_a2a.PREFILL_VALIDATED:
        return DISABLED, (f"all-to-all backend {inputs.moe_a2a_backend} is not validated for "
                          f"prefill graphs (cuda_graph_hook.py:223-229)")
    if inputs.multimodal_breakable_off:
        return DISABLED, MULTIMODAL_PREFILL_OFF
    if inputs.disaggregation_mode == "decode":
        return DISABLED, "a PD decode server drops prefill graphs (cuda_graph_hook.py:568-576)"
    return BREAKABLE, ""


def resolved_backend(inputs: PrefillInputs) -> str:
    """The prefill backend as SGLang's resolution leaves it (`cuda_graph_config.prefill.
    backend`, what its later start-up checks read, e.g. moe_hook.py:741-744), before the
    runner setup may build no runner: it reads neither the request pool nor the context
    length."""
    return _backend(inputs)[0]


def resolve_prefill(inputs: PrefillInputs) -> PrefillGraphs:
    """SGLang's prefill graphs for `inputs` (the module docstring's steps 1-6)."""
    backend, why = _backend(inputs)
    # chunking off (<= 0): max_bs -1 (or 0) leaves no default capture size (memory_hook.py:
    # 233-237, cuda_graph_hook.py:480-497), the attention-DP clamp does not fire (-1 // n is
    # -1) and the full backend's request slots are max(cps // 512, 1) = 1
    cps = given_chunk(inputs.chunked_prefill_size, inputs.gpu_memory_gb)
    max_tokens = inputs.max_tokens
    tokens = list(inputs.tokens) if inputs.tokens is not None else None
    deepep = sglang_moe_a2a.deepep_prefill_buckets(  # before the memory hook's sizes
        inputs.moe_a2a_backend, backend, inputs.max_tokens, inputs.tokens, prefill_token_ladder)
    if deepep is not None:
        tokens, max_tokens = list(deepep[0]), deepep[1]
    if max_tokens is None:
        max_tokens = min(cps, MLA_MAX_TOKENS) if inputs.mla else cps
        if (inputs.pp_size > 1 and backend == BREAKABLE and inputs.tokens is None
                and max_tokens > PP_DEFAULT_MAX_TOKENS):
            max_tokens = PP_DEFAULT_MAX_TOKENS
        if inputs.max_total_tokens is not None:
            max_tokens = min(max_tokens, inputs.max_total_tokens)
        if inputs.llama2_path:
            max_tokens = min(max_tokens, LLAMA2_MAX_TOKENS)
    if inputs.attn_dp_size > 1:
        cps //= inputs.attn_dp_size
        if backend != DISABLED and max_tokens > cps and inputs.max_tokens is None:
            max_tokens = cps
            if inputs.tokens is None:
                tokens = prefill_token_ladder(max_tokens)
    if tokens is None:
        tokens = prefill_token_ladder(max_tokens)
    align = _alignment(inputs)
    captured: tuple[int, ...] = ()
    slots = None
    if backend != DISABLED:
        if inputs.request_pool is not None:
            slots = inputs.request_pool
            if backend == FULL:
                slots = min(inputs.full_max_requests or max(cps // 512, 1), slots)
        if not tokens:  # cuda_graph_setup.py:563-565: no prefill graphs, no error
            return PrefillGraphs(DISABLED, (), (), align, cps,
                                 f"max {max_tokens} tokens leave no capture size (the "
                                 f"smallest is 4)", slots, backend)
        fits = list(tokens)
        if slots is not None and inputs.context_length is not None:
            fits = [t for t in tokens if t <= slots * inputs.context_length]
            if not fits:  # cuda_graph_setup.py:604-615: eager prefill, no error
                return PrefillGraphs(DISABLED, tuple(tokens), (), align, cps,
                                     f"no capture size fits {slots} request slots x context "
                                     f"length {inputs.context_length}", slots, backend)
        captured = tuple(sorted({round_up(t, align) for t in fits}))
        if inputs.cp_bcg is not None:  # the runner's CP filter (prefill_cuda_graph_runner.py:
            # 609-618): the largest bucket, max_num_tokens (:371), is never dropped
            captured = filter_capture(captured, inputs.cp_bcg, inputs.attn_cp_size)
            # the capture itself (issue 23 s62p): a request under 2 x cp fails SGLang's assert
            check_capture(captured, inputs.cp_bcg, inputs.attn_cp_size, inputs.context_length)
    return PrefillGraphs(backend, tuple(tokens), captured, align, cps, why, slots,
                         cp_bcg=inputs.cp_bcg if captured else None,
                         cp_size=inputs.attn_cp_size, context_length=inputs.context_length)


# Static prefill inputs of the captured-body backends (breakable and full): one int64 row per
# request slot each (prefill_cuda_graph_runner.py:276-286, allocated at :601-606)
STATIC_REQUEST_FIELDS = ("seq_lens", "extend_seq_lens", "extend_prefix_lens",
                         "extend_start_loc", "req_pool_indices", "orig_seq_lens")
MROPE_SECTIONS = 3


@dataclass(frozen=True)
class PrefillBuffer:
    """One persistent input of the prefill graph runner: name, shape, dtype."""

    name: str
    shape: tuple[int, ...]
    dtype: str

    @property
    def numel(self) -> int:
        out = 1
        for d in self.shape:
            out *= d
        return out


# The prefill runner's mamba tracking inputs, one row per request slot each
# (`PrefillInputBuffers.create`, runner_utils/buffers.py:309-321)
MAMBA_TRACK_BUFFERS = (("mamba_track_indices", "int64"), ("mamba_track_mask", "bool"),
                       ("mamba_track_seqlens", "int32"))


def prefill_buffers(graphs: PrefillGraphs, request_pool: int, *, hidden_size: int,
                    dtype: str, multimodal: bool = False, mamba_track: bool = False,
                    cp_bcg: bool = False) -> tuple[PrefillBuffer, ...]:
    """The prefill runner's buffers for a dense model on CUDA, first pipeline rank:
    `PrefillInputBuffers.create` (runner_utils/buffers.py:286-372) with max_num_tokens the
    largest captured token count and max_bs the request pool (req_to_token_pool.size,
    prefill_cuda_graph_runner.py:371-372), plus the static per-request fields. No buffers when
    prefill graphs are off (the runner is not built). `mamba_track`: the runner's
    `_is_mamba_track_enabled` (prefill_cuda_graph_runner.py:705-708, the hybrid-mamba extra
    buffer with the radix cache on; no speculation test, unlike the decode runner), which
    adds the three tracking inputs (buffers.py:309-321)."""
    if not graphs.on:
        return ()
    if request_pool < 1:
        raise ConfigError(f"request_pool: must be >= 1, got {request_pool}")
    tokens = graphs.max_tokens
    out = [PrefillBuffer("input_ids", (tokens,), "int64"),
           PrefillBuffer("out_cache_loc", (tokens,), "int64"),  # int32 only on NPU (:710)
           PrefillBuffer("num_token_non_padded", (1,), "int32"),
           PrefillBuffer("positions", (tokens,), "int64")]
    if multimodal:
        out += [PrefillBuffer("input_embeds", (tokens, hidden_size), dtype),
                PrefillBuffer("mrope_positions", (MROPE_SECTIONS, tokens), "int64")]
    if mamba_track:
        out += [PrefillBuffer(name, (request_pool,), dt) for name, dt in MAMBA_TRACK_BUFFERS]
    out += [PrefillBuffer(name, (request_pool,), "int64") for name in STATIC_REQUEST_FIELDS]
    if cp_bcg:  # PrefillCPBCGInput.create (layers/cp/bcg/bcg.py:90-109), at
        # prefill_cuda_graph_runner.py:620: max_num_tokens rows each
        out += [PrefillBuffer(INPUT_EMBEDS, (tokens, hidden_size), dtype),
                PrefillBuffer(POSITIONS, (tokens,), "int64")]
    if graphs.backend == FULL:  # host seq_lens of the fixed request slots (:550-554)
        slots = graphs.request_slots or request_pool
        out.append(PrefillBuffer("full_cg_seq_lens_cpu", (slots,), "int64"))
    return tuple(out)
