"""SGLang 0.5.23's request pool of hybrid mamba / linear-attention models (Qwen3-Next,
Qwen3.5, Nemotron-H, Falcon-H1, Kimi-Linear, ...): the state cache caps it.

`KVCacheConfigurator.resolve_max_num_reqs` (mem_cache/kv_cache_configurator.py:3119-3150)
takes the KV-bound pool (graphfit.planner.engines.sglang_pool) and, when the model has a
mamba-ish config, caps it at max_mamba_cache_size // ratio, where ratio is the state slots
one request holds (`_calculate_mamba_ratio`, :3062-3088). The state cache size per
attention-DP group is

* `--max-mamba-cache-size M` given: M // attn_dp (:3302-3308);
* else with `--disable-radix-cache` and `--max-running-requests S`: max(1, S // attn_dp)
  (:3325-3335), with ratio 1, so it never binds below S // attn_dp;
* else a share of the GPU memory left after the weights (:3344-3384,
  `--mamba-full-memory-ratio`, state bytes from `--mamba-ssm-dtype`): restated by
  graphfit.planner.engines.sglang_mamba_memory when graphfit is given the weights' size and
  the GPU's memory (`memory_slots`), else left out (as the profiled KV capacity is).

The ratio: 1 without the radix cache; else 3 (MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO,
:227), minus 1 under SGLANG_OPT_MAMBA_SKIP_DECODE_LOCK (:228, :3066-3069), plus the
extra-buffer strategy's tracking slots (2 with the overlap schedule, 1 without or lazy,
mem_cache/allocation_sizing.py:11-19), or plus 1 under the skip lock without an extra
buffer (:229, :3082-3086). The strategy "auto" resolves to extra_buffer when the overlap
schedule or pages > 1 are wanted and the architecture supports it on the triton
linear-attention backend, else to no_buffer with the overlap schedule turned off
(arg_groups/overrides.py:453-486, 401-450).
"""

from __future__ import annotations

from dataclasses import dataclass

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.sglang_mamba_inkling import INKLING_ARCHS

# the architectures whose server arguments route through the hybrid-mamba radix cache
# (arg_groups/overrides.py:369-399); GraniteMoeHybrid only with a "mamba" layer (:461-466)
MAMBA_RADIX_CACHE_ARCHS = frozenset({
    "KimiLinearForCausalLM", "KimiK3ForConditionalGeneration", "BailingMoeV2_5ForCausalLM",
    "BailingMoeV3ForCausalLM", "BailingMoeV3VLForConditionalGeneration",
    "Qwen3NextForCausalLM", "Qwen3_5MoeForConditionalGeneration",
    "InternS2PreviewForConditionalGeneration", "InternS2MobiusForConditionalGeneration",
    "Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForCausalLM", "Qwen3_5ForCausalLM",
    "Qwen4ExpForConditionalGeneration", "MiniCPMV4_6ForConditionalGeneration",
    "MiniCPMV4_7ForConditionalGeneration", "NemotronHForCausalLM",
    "NemotronHPuzzleForCausalLM", "NemotronH_Omni_Reasoning_V3", "FalconH1ForCausalLM",
    "JetNemotronForCausalLM", "JetVLMForConditionalGeneration", "Lfm2ForCausalLM",
    "Lfm2MoeForCausalLM", "ZayaForCausalLM", "Glm5NextForConditionalGeneration",
})
# the architectures that support the extra_buffer strategy (arg_groups/overrides.py:401-435)
MAMBA_EXTRA_BUFFER_ARCHS = frozenset({
    "KimiLinearForCausalLM", "Qwen3_5ForConditionalGeneration",
    "Qwen3_5MoeForConditionalGeneration", "Qwen3_5MoeForCausalLM", "Qwen3_5ForCausalLM",
    "Qwen3NextForCausalLM", "Qwen4ExpForConditionalGeneration",
    "InternS2PreviewForConditionalGeneration", "MiniCPMV4_6ForConditionalGeneration",
    "MiniCPMV4_7ForConditionalGeneration", "BailingMoeV2_5ForCausalLM",
    "BailingMoeV3ForCausalLM", "BailingMoeV3VLForConditionalGeneration", "FalconH1ForCausalLM",
    "GraniteMoeHybridForCausalLM", "Glm5NextForConditionalGeneration", "NemotronHForCausalLM",
    "NemotronHPuzzleForCausalLM", "NemotronH_Omni_Reasoning_V3",
    "KimiK3ForConditionalGeneration", "InklingForConditionalGeneration",
    "InklingForConditionalGenerationMTP",
})
# the architectures a linear-attention registry spec names with uses_mamba_radix_cache
# (configs/linear_attn_model_registry.py:28-41, get_linear_attn_spec :74-80, read at
# overrides.py:469-471): GigaChat3.5 (configs/gigachat35.py:241-252, no extra buffer)
REGISTRY_MAMBA_ARCHS = frozenset({"GigaChat35ForCausalLM", "GigaChat35ForCausalLMNextN"})
# the architectures whose config is mamba-ish (configs/hybrid_arch.py:78-90: their state
# cache is sized and caps the pool, kv_cache_configurator.py:3134-3137) but which are not
# routed through the hybrid-mamba radix cache (overrides.py:369-399, 456-471): "auto" stays
# unresolved (no extra buffer, the overlap schedule kept), an explicit extra buffer is refused
# (model_hook.py:1059-1066). LFM2-VL (configs/lfm2_vl.py:62-103), the pure state-space models
# (configs/mamba.py, mamba2.py; hybrid_arch.py:78-90), MiniCPM-SALA (hybrid_arch.py:46-51;
# its radix cache is off anyway, `radix_off`) and Nemotron-H Nano VL V2 / Nano Omni V3
# (:96-97, a subclass: configs/nano_nemotron_vl.py:180-186), each with
# its state read.
MAMBAISH_ONLY_ARCHS = frozenset({
    "Lfm2VlForConditionalGeneration", "MambaForCausalLM", "FalconMambaForCausalLM",
    "Mamba2ForCausalLM", "MiniCPMSALAForCausalLM", "NemotronH_Nano_VL_V2",
    "NemotronH_Nano_Omni_Reasoning_V3"})
# MiniCPM-SALA with lightning (or sparse) layers: its override turns the radix cache off
# (arg_groups/model_overrides/minicpm.py:19-26); graphfit knows the lightning layers (the
# state shape is read then)
MINICPM_SALA = "MiniCPMSALAForCausalLM"
STRATEGIES = ("auto", "no_buffer", "extra_buffer", "extra_buffer_lazy")  # exec_.py:512-519
BASE_RATIO = 3  # kv_cache_configurator.py:227
SKIP_LOCK_DROP = 1  # :228
SKIP_LOCK_NO_BUFFER_ADD = 1  # :229


GRANITE = "GraniteMoeHybridForCausalLM"
# Inkling (INKLING_ARCHS): always mamba-ish (its cache params are never None, configs/
# hybrid_arch.py:91-95, configs/inkling.py:217-256), its override turns the mamba radix cache
# on unless the radix cache is off and pins the extra buffer for "auto"
# (model_overrides/inkling.py:45-60)


def is_hybrid_mamba(architecture: str | None,
                    mamba_state_shape: tuple[int, ...] | None = None) -> bool:
    """Whether SGLang resolves the hybrid-mamba radix cache settings for this architecture
    (overrides.py:461-471): the models whose pool the state cache caps. GraniteMoeHybrid
    only with a mamba layer (overrides.py:461-466, configs/hybrid_arch.py:99-105), which
    graphfit knows from the model directory's `layer_types` (its state shape is read then,
    graphfit.inputs.mamba_state)."""
    if architecture == GRANITE or architecture in MAMBAISH_ONLY_ARCHS:
        return mamba_state_shape is not None
    return (architecture in MAMBA_RADIX_CACHE_ARCHS or architecture in REGISTRY_MAMBA_ARCHS
            or architecture in INKLING_ARCHS)


# Kimi-K3's text config is a KimiLinearConfig (configs/kimi_k3.py:92-97), which
# `uses_kda_attention` reads through get_text_config (model_config.py:231-244)
# Glm5Next's text config carries both KDA forms (configs/glm5_next.py:186-225), but the one
# rule that reads `uses_kda` here exempts it (breakable prefill graphs stay on for it,
# arg_groups/cuda_graph_hook.py:183-191), so it is left out
KDA_ARCHITECTURES = frozenset({"KimiLinearForCausalLM", "KimiK3ForConditionalGeneration"})


def uses_kda(architecture: str | None, mamba_state_shape: tuple[int, ...] | None) -> bool:
    """SGLang's `uses_kda_attention` (configs/model_config.py:230-252): a config whose
    `linear_attn_config.kda_layers` is not empty. graphfit knows it for Kimi-Linear and
    Kimi-K3 from the model directory (its state shape is read only then,
    graphfit.inputs.mamba_state.kimi_linear_shape). Read only by the breakable-prefill rule
    (cuda_graph_hook.py:183-191), which exempts Glm5Next, the model with the `layer_types` +
    `linear_num_heads` form (:245-251; graphfit.inputs.mamba_state.glm5_next_shape), so it
    answers False there; the other KDA architectures (Bailing hybrids with `use_kda`) are not
    read."""
    return architecture in KDA_ARCHITECTURES and mamba_state_shape is not None


@dataclass(frozen=True)
class MambaCache:
    """The mamba-cache server arguments that size the state cache and its slots per request.

    strategy: `--mamba-radix-cache-strategy` (auto by default); overlap: the overlap schedule
    wanted (not `--disable-overlap-schedule`); page_size: `--page-size`; linear_attn_backend:
    `--linear-attn-backend` (triton by default, exec_.py:542-548); skip_decode_lock: the
    SGLANG_OPT_MAMBA_SKIP_DECODE_LOCK environment switch (environ.py:1637); track_interval:
    `--mamba-track-interval` (256, fields/exec_.py:530-533); draft_tokens: the speculative
    draft tokens per request (None without speculation); chunk_size: the model's
    `mamba_chunk_size`, else FLA's CHUNK_SIZE 64 (overrides.py:1907-1917); pipeline:
    pipeline parallelism, which turns the overlap schedule off in a post-process
    (overrides.py:1623-1628), after "auto" has chosen the strategy on the overlap wanted, so
    the tracking slots count without it.
    """

    architecture: str
    max_mamba_cache_size: int | None = None
    disable_radix_cache: bool = False
    strategy: str = "auto"
    overlap: bool = True
    page_size: int = 1
    linear_attn_backend: str = "triton"
    skip_decode_lock: bool = False
    memory_slots: int | None = None  # the size SGLang computes from memory, when restated
    track_interval: int = 256
    draft_tokens: int | None = None
    chunk_size: int = 64
    pipeline: bool = False  # pp_size > 1: the overlap schedule is turned off afterwards
    disaggregation_mode: str = "null"  # --disaggregation-mode (mamba_hook.py:123-128)
    attention_backend: str | None = None  # --attention-backend as given (mamba_hook.py:161)
    radix_routed: bool = True  # False: MAMBAISH_ONLY_ARCHS (no strategy resolution)

    def __post_init__(self) -> None:
        m = self.max_mamba_cache_size
        if m is not None and (isinstance(m, bool) or not isinstance(m, int) or m < 1):
            raise ConfigError(f"max_mamba_cache_size: must be a positive integer, got {m!r}")
        if self.strategy not in STRATEGIES:
            raise ConfigError(f"mamba_radix_cache_strategy: {self.strategy!r} is not one of "
                              f"{', '.join(STRATEGIES)}")
        if isinstance(self.page_size, bool) or not isinstance(self.page_size, int) \
                or self.page_size < 1:
            raise ConfigError(f"page_size: must be a positive integer, got {self.page_size!r}")
        if not self.disable_radix_cache and not self.radix_routed:
            if self.strategy in ("extra_buffer", "extra_buffer_lazy"):
                raise ConfigError(f"--mamba-radix-cache-strategy {self.strategy} needs the "
                                  f"hybrid-mamba radix cache, which SGLang does not use for "
                                  f"{self.architecture} (model_hook.py:1062-1066)")
        elif not self.disable_radix_cache:
            if self.strategy == "no_buffer" and self.overlap:
                # arg_groups/mamba_hook.py:157-160
                raise ConfigError("--mamba-radix-cache-strategy no_buffer needs "
                                  "--disable-overlap-schedule (SGLang mamba_hook.py:157)")
            if self.resolved()[0] == "no_buffer" and self.page_size > 1:
                raise ConfigError("--mamba-radix-cache-strategy no_buffer needs --page-size 1 "
                                  "(SGLang mamba_hook.py:156-157)")
            if self.strategy == "extra_buffer_lazy" and not (self.overlap
                                                              and not self.pipeline):
                raise ConfigError("--mamba-radix-cache-strategy extra_buffer_lazy needs the "
                                  "overlap schedule (SGLang kv_cache_configurator.py:3073)")
            if self.resolved()[0] in ("extra_buffer", "extra_buffer_lazy"):
                self._check_extra_buffer()
            if self.resolved()[0] == "no_buffer" and self.attention_backend == "trtllm_mha":
                raise ConfigError("--mamba-radix-cache-strategy no_buffer does not support "
                                  "--attention-backend trtllm_mha (SGLang mamba_hook.py:161)")

    def _check_extra_buffer(self) -> None:
        """`validate_mamba_extra_buffer`'s checks graphfit can see (arg_groups/mamba_hook.py:
        115-140, overrides.py:1918-1921), SGLang's AssertionErrors as ConfigErrors."""
        for name in ("track_interval", "chunk_size"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"mamba {name}: must be a positive integer, got {value!r}")
        if not self.supports_extra_buffer():
            raise ConfigError(
                f"--mamba-radix-cache-strategy {self.strategy}: {self.architecture} with "
                f"--linear-attn-backend {self.linear_attn_backend} has no extra buffer (SGLang "
                f"mamba_hook.py:117, overrides.py:438-450); use no_buffer")
        if self.strategy == "extra_buffer_lazy" and self.disaggregation_mode != "null":
            # the PD decode pool has no lazy slots (a decode server only gets here with its
            # radix cache on, which graphfit's reader refuses as not modelled: radix_off)
            raise ConfigError("--mamba-radix-cache-strategy extra_buffer_lazy is not supported "
                              "under PD disaggregation; use extra_buffer (SGLang "
                              "mamba_hook.py:125)")
        if self.draft_tokens is not None and self.track_interval < self.draft_tokens:
            raise ConfigError(f"--mamba-track-interval {self.track_interval} is below the "
                              f"{self.draft_tokens} draft tokens (SGLang mamba_hook.py:133)")
        if self.track_interval % self.page_size:
            raise ConfigError(f"--mamba-track-interval {self.track_interval} is not a multiple "
                              f"of --page-size {self.page_size} (SGLang mamba_hook.py:135)")
        low, high = sorted((self.chunk_size, self.page_size))
        if high % low:
            raise ConfigError(f"--page-size {self.page_size} and the mamba chunk size "
                              f"{self.chunk_size} do not divide (SGLang overrides.py:1919)")

    def resolved(self) -> tuple[str, bool]:
        """(strategy, overlap) after SGLang's `_mamba_radix_cache_resolution`
        (overrides.py:453-486): "auto" becomes extra_buffer when the overlap schedule or
        paging is wanted and the architecture supports it on triton, else no_buffer, which
        turns the overlap schedule off. Without the radix cache nothing is resolved."""
        if self.architecture in INKLING_ARCHS and self.strategy == "auto":
            # its override pins the extra buffer (model_overrides/inkling.py:55-56)
            return "extra_buffer", self.overlap
        if self.disable_radix_cache or self.strategy != "auto" or not self.radix_routed:
            return self.strategy, self.overlap
        if (self.overlap or self.page_size > 1) and self.supports_extra_buffer():
            return "extra_buffer", self.overlap
        return "no_buffer", False

    def supports_extra_buffer(self) -> bool:
        """overrides.py:438-450 (registry-spec models are not modelled)."""
        return (self.architecture in MAMBA_EXTRA_BUFFER_ARCHS
                and self.linear_attn_backend == "triton")

    def slots_per_request(self) -> int:
        """`_calculate_mamba_ratio` (kv_cache_configurator.py:3062-3088)."""
        if self.disable_radix_cache:
            return 1
        strategy, overlap = self.resolved()
        overlap = overlap and not self.pipeline  # overrides.py:1623-1628
        base = BASE_RATIO - (SKIP_LOCK_DROP if self.skip_decode_lock else 0)
        if strategy in ("extra_buffer", "extra_buffer_lazy"):  # model_override_base.py:260
            # get_mamba_tracking_slots (allocation_sizing.py:11-19)
            return base + (1 if strategy == "extra_buffer_lazy" else 2 if overlap else 1)
        return base + (SKIP_LOCK_NO_BUFFER_ADD if self.skip_decode_lock else 0)

    def state_slots(self, attn_dp_size: int, max_running_requests: int | None) -> int | None:
        """The state cache's slots per attention-DP group when the server arguments fix it
        (kv_cache_configurator.py:3302-3335), else `memory_slots` (None: not known)."""
        if self.max_mamba_cache_size is not None:
            return self.max_mamba_cache_size // attn_dp_size
        if self.memory_slots is not None:  # set only where SGLang takes the memory branch
            return self.memory_slots  # per rank already (kv_cache_configurator.py:3387-3394)
        if self.disable_radix_cache and max_running_requests is not None:
            return max(1, max_running_requests // attn_dp_size)
        return None

    def request_cap(self, attn_dp_size: int, max_running_requests: int | None) -> int | None:
        """max_mamba_cache_size // ratio (:3135-3137), None when not known. A cap below one
        request is SGLang's RuntimeError (:3151-3159): graphfit's ConfigError."""
        slots = self.state_slots(attn_dp_size, max_running_requests)
        if slots is None:
            return None
        ratio = self.slots_per_request()
        cap = slots // ratio
        if cap < 1:
            raise ConfigError(
                f"max_mamba_cache_size {self.max_mamba_cache_size} holds no request: "
                f"{slots} state slots per DP group, {ratio} per request "
                f"(SGLang kv_cache_configurator.py:3151)")
        return cap


def mamba_request_pool(kv_pool: int, cache: MambaCache, attn_dp_size: int,
                       max_running_requests: int | None) -> int:
    """The pool `resolve_max_num_reqs` returns: the KV-bound pool capped by the state cache
    (kv_cache_configurator.py:3134-3150)."""
    cap = cache.request_cap(attn_dp_size, max_running_requests)
    return kv_pool if cap is None else min(kv_pool, cap)


def radix_off(config: EngineSettings) -> bool:
    """The radix cache off: `--disable-radix-cache`, or a disaggregated decode server, whose
    radix cache SGLang turns off unless --disaggregation-decode-enable-radix-cache
    (pd_disaggregation_hook.py:98-127; that experimental flag graphfit's reader refuses as
    not modelled), or MiniCPM-SALA with lightning layers (MINICPM_SALA)."""
    return (config.disable_radix_cache or config.disaggregation_mode == "decode"
            or (config.architecture == MINICPM_SALA and config.mamba_state_shape is not None))


def cache_of(config: EngineSettings) -> MambaCache:
    """The config's mamba-cache flags (SglangOptions) for a hybrid mamba architecture."""
    assert config.architecture is not None
    return MambaCache(config.architecture, max_mamba_cache_size=config.max_mamba_cache_size,
                      disable_radix_cache=radix_off(config),
                      disaggregation_mode=config.disaggregation_mode,
                      attention_backend=config.attention_backend_flag,
                      radix_routed=config.architecture not in MAMBAISH_ONLY_ARCHS,
                      strategy=config.mamba_radix_cache_strategy,
                      overlap=not config.disable_overlap_schedule,
                      page_size=config.page_size,
                      linear_attn_backend=config.linear_attn_backend,
                      track_interval=config.mamba_track_interval,
                      chunk_size=config.mamba_chunk_size or 64,  # FLA's CHUNK_SIZE
                      draft_tokens=(config.speculative_num_draft_tokens
                                    if config.has_drafter else None),
                      memory_slots=config.mamba_memory_slots,
                      pipeline=config.pp_size > 1)
