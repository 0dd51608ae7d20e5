"""SGLang 0.5.23's `--enable-unified-memory` start-up checks on the cache and parallelism
switches a line may add (`handle_unified_memory_pool`, arg_groups/kv_cache_hook.py:528-718),
restated in SGLang's order around the algorithm and backend checks of
graphfit.planner.engines.sglang_unified_memory (issue 23 s41u).

Why: each switch below makes SGLang refuse a unified-memory line at start-up, before any graph
is captured; graphfit planned such lines as if the switch were absent.

* PD disaggregation (after the transfer checks, :531-553): lazy compaction must stay on
  (SGLANG_DISABLE_LAZY_COMPACTION unset, :554-557), no `--enable-hisparse` (:558-563); a
  decode KV offload needs `--hicache-storage-backend file` (:564-568), an MHA model (:569-573),
  no mamba hybrid (:574-577), no hybrid-SWA model (:578-581); host-pool decode retraction no
  mamba hybrid (:582-587);
* after the two-batch-overlap check (:653-657): no `--enable-lmcache` (:658-662), no
  `--enable-unified-cache-external-linker` (:663-668), and an EAGLE / EAGLE3 draft with
  neither host-pool retraction (:669-677) nor `--enable-hierarchical-cache` (:678-686);
* `--dcp-size` > 1 (:687-688, `_validate_unified_memory_dcp`, :719-761): an MLA model only
  (:727-732), not hybrid-SWA (:733-738), no PD disaggregation (:739-747), and both phases'
  backends within flashinfer / trtllm_mla / cutedsl_mla, unset ones discarded (:751-761).
  DSPARK / DFLASH verify without flashinfer under DCP (`_assert_spec_verify_backends`,
  :510-516; sglang_unified_memory.backend_check). A line that passes is planned, or refused
  as not modelled, by graphfit.planner.engines.sglang_dcp (issue 23 s42d).

Before all of these, the page-major KV layout --enable-unified-memory implies
(`handle_page_major_kv_layout`, :770-862, run at pipeline.py:336) allows only its listed
attention backends (the asymmetric-K/V list for a model whose K and V rows differ, issue 23
s42u) and linear-attention / mamba kernels (:828-862, s42u): `page_major`.

The switches arrive as SglangOptions.unified_switches (names in SWITCHES, read from the line by
graphfit.inputs.sglang_unified_switches) and SglangOptions.disable_lazy_compaction (the
variable, graphfit.inputs.environment). A fact graphfit does not know (`hybrid_swa` None: no
config.json read) is not checked.
"""

from __future__ import annotations

from graphfit.planner.core.errors import ConfigError

# the switch names SglangOptions.unified_switches may hold, each a flag of SGLang's line
SWITCHES = frozenset({
    "enable_hisparse",  # --enable-hisparse
    "decode_offload_kvcache",  # --disaggregation-decode-enable-offload-kvcache
    "hicache_storage_file",  # --hicache-storage-backend file
    "retraction_host_pool",  # --disaggregation-decode-retraction-backup host_pool
    "enable_lmcache",  # --enable-lmcache
    "external_linker",  # --enable-unified-cache-external-linker
    "hierarchical_cache",  # --enable-hierarchical-cache / --enable-hicache
    "dcp",  # --dcp-size > 1
})
# the page-major layout's allow-lists, which --enable-unified-memory implies
# (`handle_page_major_kv_layout`, kv_cache_hook.py:770-827): MLA models, else MHA / SWA ones
PAGE_MAJOR_MLA = frozenset({"triton", "fa3", "trtllm_mla", "flashinfer", "cutedsl_mla",
                            "flashmla"})
PAGE_MAJOR_MHA = frozenset({"triton", "fa3", "fa4", "flashinfer", "trtllm_mha"})
# MHA / SWA models whose K and V rows differ in width: the backends that carry v_head_dim
# through to the kernel (ASYMMETRIC_KV_BACKENDS, kv_cache_hook.py:764-767, 810-811)
PAGE_MAJOR_ASYMMETRIC = frozenset({"triton", "fa3", "fa4"})
# the linear-attention state kernels it allows (:841-845), and an MLA model's extra ones
LINEAR_DECODE = frozenset({"triton", "flashinfer"})
LINEAR_PREFILL = frozenset({"triton", "flashkda", "flashinfer"})
LINEAR_MLA_EXTRA = frozenset({"cutedsl", "helion"})
# the backends that read the widened DCP ids through the unified pool (kv_cache_hook.py:751)
DCP_BACKENDS = frozenset({"flashinfer", "trtllm_mla", "cutedsl_mla"})
WHERE = "kv_cache_hook.py"
UM = "--enable-unified-memory"


def page_major(prefill: str | None, decode: str | None, *, mla: bool,
               asymmetric_kv: bool | None = None,
               linear: tuple[str | None, str, str] | None = None) -> None:
    """The page-major layout's checks, run before the unified hook (pipeline.py:336 vs 338),
    in `handle_page_major_kv_layout`'s order: the attention allow-list (kv_cache_hook.py:
    800-827; unknown phases discarded there too), MLA first, then a model with asymmetric K /
    V rows (`has_asymmetric_kv`, configs/model_config.py:1263-1271: triton / fa3 / fa4 only,
    :810-811; None, no config.json read: the MHA list), then the linear-attention decode and
    prefill kernels and the mamba kernel (`linear`: SGLang's resolved decode backend or None
    where the GPU decides it, the prefill backend, --mamba-backend; :828-862)."""
    if mla:
        allowed = PAGE_MAJOR_MLA
    elif asymmetric_kv:
        allowed = PAGE_MAJOR_ASYMMETRIC
    else:
        allowed = PAGE_MAJOR_MHA
    named = {prefill, decode} - {None}
    if not named <= allowed:
        rows = " (K / V rows of unequal width)" if allowed is PAGE_MAJOR_ASYMMETRIC else ""
        raise ConfigError(f"--enable-unified-memory implies --enable-page-major-kv-layout, "
                          f"whose resolved attention backends {sorted(str(b) for b in named)} "
                          f"must be in {sorted(allowed)}{rows} (SGLang refuses, "
                          f"{WHERE}:770-827)")
    if linear is not None:
        page_major_linear(*linear, mla=mla)


def page_major_linear(decode: str | None, prefill: str, mamba_backend: str, *,
                      mla: bool) -> None:
    """The linear-attention / mamba state kernels the page-major layout allows, whatever the
    model (kv_cache_hook.py:828-862): decode triton / flashinfer, prefill triton / flashkda /
    flashinfer, plus cutedsl and helion on an MLA model (the KDA hybrids); mamba triton.
    `decode` None: SGLang's choice depends on the GPU (attention_hook.py:289-307), unchecked."""
    extra = LINEAR_MLA_EXTRA if mla else frozenset()
    pm = "--enable-unified-memory implies --enable-page-major-kv-layout"
    if decode is not None and decode not in LINEAR_DECODE | extra:
        raise ConfigError(f"{pm}: the linear-attention decode backend must be one of "
                          f"{sorted(LINEAR_DECODE | extra)} for the strided conv/SSM state, "
                          f"got {decode} (SGLang refuses, {WHERE}:846-852)")
    if prefill not in LINEAR_PREFILL | extra:
        raise ConfigError(f"{pm}: the linear-attention prefill backend must be one of "
                          f"{sorted(LINEAR_PREFILL | extra)} for the strided conv/SSM state, "
                          f"got {prefill} (SGLang refuses, {WHERE}:853-857)")
    if mamba_backend != "triton":
        raise ConfigError(f"{pm}: it requires the Triton Mamba kernels for the strided "
                          f"conv/SSM state, got --mamba-backend {mamba_backend} (SGLang "
                          f"refuses, {WHERE}:858-862)")


def pd_switches(disaggregation_mode: str, lazy_disabled: bool, switches: frozenset[str],
                *, mla: bool, mamba: bool, hybrid_swa: bool | None) -> None:
    """The PD-disaggregation refusals after the transfer checks (module docstring)."""
    if disaggregation_mode == "null":
        return
    pd = f"{UM} with PD disaggregation"
    if lazy_disabled:
        raise ConfigError(f"{pd} requires lazy compaction; unset SGLANG_DISABLE_LAZY_"
                          f"COMPACTION (SGLang refuses, {WHERE}:554-557)")
    if "enable_hisparse" in switches:
        raise ConfigError(f"{pd} is not compatible with --enable-hisparse: its decode-side "
                          f"prealloc bypasses the unified pool's virtual->physical "
                          f"translation (SGLang refuses, {WHERE}:558-563)")
    if "decode_offload_kvcache" in switches:
        offload = f"{UM} decode KV offload"
        if "hicache_storage_file" not in switches:
            raise ConfigError(f"{offload} supports --hicache-storage-backend file only "
                              f"(SGLang refuses, {WHERE}:564-568)")
        if mla:
            raise ConfigError(f"{offload} does not support MLA models yet (SGLang refuses, "
                              f"{WHERE}:569-573)")
        if mamba:
            raise ConfigError(f"{offload} does not support hybrid-Mamba models (SGLang "
                              f"refuses, {WHERE}:574-577)")
        if hybrid_swa:
            raise ConfigError(f"{offload} does not support hybrid-SWA H2D/D2H transfers yet "
                              f"(SGLang refuses, {WHERE}:578-581)")
    if "retraction_host_pool" in switches and mamba:
        raise ConfigError(f"{UM} host-pool decode retraction does not support hybrid-Mamba "
                          f"models (SGLang refuses, {WHERE}:582-587)")


def cache_switches(algorithm: str | None, switches: frozenset[str]) -> None:
    """The cache refusals after the two-batch-overlap check (module docstring)."""
    if "enable_lmcache" in switches:
        raise ConfigError(f"{UM} is not yet compatible with --enable-lmcache: LMCache indexes "
                          f"the device buffers with the unified pool's virtual ids (SGLang "
                          f"refuses, {WHERE}:658-662)")
    if "external_linker" in switches:
        raise ConfigError(f"{UM} does not support --enable-unified-cache-external-linker: "
                          f"direct L3 transfers do not keep unified page envelopes; use "
                          f"--enable-hierarchical-cache (SGLang refuses, {WHERE}:663-668)")
    if algorithm not in ("EAGLE", "EAGLE3"):
        return
    if "retraction_host_pool" in switches:
        raise ConfigError(f"{UM} + EAGLE/EAGLE3 does not support --disaggregation-decode-"
                          f"retraction-backup host_pool: a fused draft has no device pool of "
                          f"its own to back up (SGLang refuses, {WHERE}:669-677)")
    if "hierarchical_cache" in switches:
        raise ConfigError(f"{UM} + EAGLE/EAGLE3 does not support --enable-hierarchical-cache: "
                          f"HiCache keeps the draft on a private pool (SGLang refuses, "
                          f"{WHERE}:678-686)")


def dcp_gate(switches: frozenset[str], *, mla: bool, hybrid_swa: bool | None,
             disaggregation_mode: str, prefill: str | None, decode: str | None) -> None:
    """`_validate_unified_memory_dcp` for a line with --dcp-size > 1 (module docstring); a
    line that passes is planned or refused by graphfit.planner.engines.sglang_dcp."""
    if "dcp" not in switches:
        return
    dcp = f"{UM} with decode context parallelism (--dcp-size > 1)"
    if not mla:
        raise ConfigError(f"{dcp} supports MLA models only: the MHA unified pool has no "
                          f"DCP-aware masked write path (SGLang refuses, {WHERE}:727-732)")
    if hybrid_swa:
        raise ConfigError(f"{dcp} does not support hybrid sliding-window models (SGLang "
                          f"refuses, {WHERE}:733-738)")
    if disaggregation_mode != "null":
        raise ConfigError(f"{dcp} does not support PD disaggregation: a page envelope holds "
                          f"only this rank's shard (SGLang refuses, {WHERE}:739-747)")
    named = {prefill, decode} - {None}
    if not named <= DCP_BACKENDS:
        raise ConfigError(f"{dcp} requires {sorted(DCP_BACKENDS)} for the full-attention "
                          f"layers, got {sorted(str(b) for b in named)} (SGLang refuses, "
                          f"{WHERE}:748-761)")


__all__ = ["DCP_BACKENDS", "LINEAR_DECODE", "LINEAR_MLA_EXTRA", "LINEAR_PREFILL",
           "PAGE_MAJOR_ASYMMETRIC", "PAGE_MAJOR_MHA", "PAGE_MAJOR_MLA", "SWITCHES",
           "cache_switches", "dcp_gate", "page_major", "page_major_linear", "pd_switches"]
