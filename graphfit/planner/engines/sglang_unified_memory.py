"""SGLang 0.5.23's `--enable-unified-memory` start-up checks on the speculative algorithm
(`handle_unified_memory_pool`, arg_groups/kv_cache_hook.py:528-718), run after the speculative
hook (arg_groups/pipeline.py:304-306, 338), so on the final algorithm (NEXTN is EAGLE there,
spec_info.py:102-109) and the resolved --speculative-eagle-topk. Restated where graphfit
knows the inputs: the algorithm (:588-600), the linear draft chain (:601-607), an EAGLE /
EAGLE3 draft's unified target, hybrid-SWA or a mamba hybrid (:608-614: with a config.json
read, `hybrid_swa` known), and two-batch overlap (:653-657).

Issue 23 s39u adds the rest that graphfit's inputs reach, over the target's (prefill, decode)
attention backends (`attention_backends_of`, model_override_base.py:138-152; SglangOptions.
prefill_attention_backend / decode_attention_backend, SGLang's default filled in by
graphfit.inputs.sglang_unified_backends where restated):

* PD disaggregation (:531-553): the whole-envelope KV transfer exists only for mooncake
  (`_unified_memory_pd_transfer_backends`, server_args.py:347-348), has no per-layer entries
  to subset under pipeline parallelism, and mooncake carries no speculative draft;
* the speculative algorithms' audited backends: EAGLE / EAGLE3 verify on the target's pair,
  both known and within the MLA family's audited set on an MLA model, else the MHA set
  (:615-630), and run a fused, MHA-shaped draft on `--speculative-draft-attention-backend`
  or the target's pair, within the MHA set (:631-640); DSPARK's pair within the audited set
  plus fa4, DFLASH's within the MHA set (:641-652, `_assert_spec_verify_backends`,
  :500-525; an unset phase is discarded there; under --dcp-size > 1 without flashinfer,
  :510-516);
* FULL prefill graphs fall back to disabled unless both phases run fa3 / fa4 (:701-716): only
  that family builds the FULL block table (`_init_full_cg_prefill_metadata`). SGLang warns and
  boots. The hook runs after the memory hook (pipeline.py:218 vs :338), so the fraction keeps
  the FULL graphs' reserve (memory_hook.py:380-392); only the captured plan changes. The
  run-time `capped_full_prefill_role` (kv_cache_configurator.py:3011-3020) reads the
  fallen-back backend, but only under post-capture sizing, which unified memory never gives
  a mamba-like model (overrides.py:1826-1831): graphfit's order is moot there (issue 23 s40h,
  tests/oracle/test_sglang_unified_inkling_oracle.py).

Where a phase's backend is unknown (no flag; the GPU or config.json missing for the default)
the speculative checks are skipped (as the hybrid-SWA one), and a FULL prefill line is
refused as not modelled, since its prefill plan depends on it. Issue 23 s41u adds, in
SGLang's order, the lazy-compaction / HiSparse / decode offload / host-pool retraction checks
(:554-587), LMCache, the external linker and EAGLE's cache checks (:658-686) and the DCP gate
(:687-688): graphfit.planner.engines.sglang_unified_switches. (s39u cited the older offsets
:588-598, :599-605, :606-612, :613-641, :642-653, :655-659, :690-712 for the same checks.)"""

from __future__ import annotations

from graphfit.planner.core.enums import SpecMethod
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings

# the algorithms the unified pool is audited for (kv_cache_hook.py:588-594)
UNIFIED_ALGORITHMS = frozenset({"DSPARK", "EAGLE", "EAGLE3", "DFLASH"})
# the verify-audited backends (kv_cache_hook.py:479-488) and the MHA rails (:490)
SPEC_VERIFY_AUDITED = frozenset({"triton", "trtllm_mla", "cutedsl_mla", "flashmla",
                                 "flashinfer", "fa3"})
SPEC_MHA_AUDITED = frozenset({"triton", "flashinfer", "fa3", "trtllm_mha"})
# the backends that build the FULL prefill block table (kv_cache_hook.py:703)
FULL_PREFILL_BACKENDS = frozenset({"fa3", "fa4"})
# the PD transfer backends with a whole-envelope transfer (server_args.py:347-348)
PD_TRANSFER_BACKENDS = frozenset({"mooncake"})
WHERE = "kv_cache_hook.py"


def check(algorithm: str | None, topk: int | None, hybrid_swa: bool | None,
          hybrid_mamba: bool, two_batch_overlap: bool) -> None:
    """ConfigError with SGLang's reason where `handle_unified_memory_pool` refuses the line
    (module docstring). `algorithm`: SGLang's final name (None: no speculation);
    `hybrid_swa`: None when no config.json was read (then not checked)."""
    if algorithm is not None and algorithm not in UNIFIED_ALGORITHMS:
        raise ConfigError(f"--enable-unified-memory: SGLang supports only --speculative-"
                          f"algorithm DSPARK, DFLASH, EAGLE and EAGLE3, got {algorithm} "
                          f"(kv_cache_hook.py:588-600)")
    if topk not in (None, 1):
        raise ConfigError(f"--enable-unified-memory: SGLang supports a linear draft chain "
                          f"only (--speculative-eagle-topk 1), got {topk} "
                          f"(kv_cache_hook.py:601-607)")
    if algorithm in ("EAGLE", "EAGLE3") and hybrid_swa is False and not hybrid_mamba:
        raise ConfigError("--enable-unified-memory + EAGLE/EAGLE3: SGLang requires a "
                          "hybrid-SWA or mamba-hybrid target, the draft's KV fused in its "
                          "sub-pools (kv_cache_hook.py:608-614)")
    if two_batch_overlap:
        raise ConfigError("--enable-unified-memory: SGLang does not support "
                          "--enable-two-batch-overlap (kv_cache_hook.py:653-657)")


def pd_check(disaggregation_mode: str, transfer_backend: str, pp_size: int,
             algorithm: str | None) -> None:
    """SGLang's PD-disaggregation refusals under --enable-unified-memory (module docstring)."""
    if disaggregation_mode == "null":
        return
    if transfer_backend not in PD_TRANSFER_BACKENDS:
        raise ConfigError(f"--enable-unified-memory with PD disaggregation: SGLang supports "
                          f"only the mooncake transfer backend (whole-envelope transfer), got "
                          f"{transfer_backend} ({WHERE}:531-541, server_args.py:347-348)")
    if pp_size != 1:
        raise ConfigError(f"--enable-unified-memory with PD disaggregation: SGLang does not "
                          f"support pipeline parallelism (the whole-envelope transfer has no "
                          f"per-layer entries to subset), got pp_size {pp_size} "
                          f"({WHERE}:542-546)")
    if algorithm is not None:
        raise ConfigError(f"--enable-unified-memory with PD disaggregation: SGLang does not "
                          f"support speculative decoding ({algorithm}) with the mooncake "
                          f"transfer backend ({WHERE}:547-553)")


def _names(backends: set[str | None]) -> list[str]:
    return sorted(str(b) for b in backends)


def backend_check(algorithm: str | None, prefill: str | None, decode: str | None,
                  draft: str | None, mla: bool, dcp: bool = False) -> None:
    """SGLang's speculative backend refusals under --enable-unified-memory (module
    docstring); a phase graphfit does not know (None) is not checked. `dcp`: --dcp-size > 1,
    which takes flashinfer off DSPARK's and DFLASH's sets (kv_cache_hook.py:510-516)."""
    pair: set[str | None] = {prefill, decode}
    if algorithm in ("EAGLE", "EAGLE3") and None not in pair:
        allowed = SPEC_VERIFY_AUDITED if mla else SPEC_MHA_AUDITED
        if not pair <= allowed:
            raise ConfigError(f"--enable-unified-memory + EAGLE/EAGLE3: SGLang verifies on "
                              f"the target's audited attention backends {sorted(allowed)}, "
                              f"got {_names(pair)} ({WHERE}:615-630)")
        drafts: set[str | None] = {draft} if draft else pair
        if not drafts <= SPEC_MHA_AUDITED:
            raise ConfigError(f"--enable-unified-memory + EAGLE/EAGLE3: SGLang runs the fused, "
                              f"MHA-shaped draft on {_names(drafts)}, not one of the MHA "
                              f"rails {sorted(SPEC_MHA_AUDITED)}; set --speculative-draft-"
                              f"attention-backend ({WHERE}:631-640)")
    allowed_by = {"DSPARK": SPEC_VERIFY_AUDITED | {"fa4"}, "DFLASH": SPEC_MHA_AUDITED}
    if algorithm in allowed_by:
        named, allowed_now = pair - {None}, allowed_by[algorithm]
        if dcp:
            allowed_now = allowed_now - {"flashinfer"}
        if not named <= allowed_now:
            raise ConfigError(f"--enable-unified-memory + {algorithm}: SGLang needs verify-"
                              f"audited attention backends {sorted(allowed_now)} "
                              f"for prefill and decode, got {_names(named)} "
                              f"({WHERE}:500-525, 641-652)")


def full_prefill_kept(prefill: str | None, decode: str | None) -> bool | None:
    """Whether FULL prefill graphs stay on under --enable-unified-memory (both phases fa3 /
    fa4, kv_cache_hook.py:701-716); None where a phase is unknown and the named ones allow it."""
    named = {prefill, decode} - {None}
    if not named <= FULL_PREFILL_BACKENDS:
        return False
    return None if None in (prefill, decode) else True


def why_prefill_off(config: EngineSettings) -> str:
    """Why a unified-memory config plans no prefill graphs when its backend reads disabled:
    the flags, or SGLang's FULL fallback, which leaves the same disabled value."""
    flags = "disabled by the flags"
    if not config.enable_unified_memory or full_prefill_kept(
            config.prefill_attention_backend, config.decode_attention_backend) is not False:
        return flags
    return (f"{flags} or, for FULL graphs, by --enable-unified-memory off fa3 / fa4 "
            f"(kv_cache_hook.py:701-716)")


def final_algorithm(config: EngineSettings) -> str | None:
    """The algorithm as SGLang's ServerArgs hold it after the speculative hook: NEXTN and
    EAGLE are EAGLE, or FROZEN_KV_MTP for a Gemma4 assistant draft (speculative_hook.py:
    109-116); graphfit's draft model is STANDALONE; None without speculation."""
    from graphfit.planner.engines.sglang_spec_runners import frozen_kv_mtp

    method = config.spec_method
    if method is SpecMethod.NONE:
        return None
    if frozen_kv_mtp(config):
        return "FROZEN_KV_MTP"
    if method in (SpecMethod.EAGLE, SpecMethod.MTP):
        return "EAGLE"
    if method is SpecMethod.DRAFT_MODEL:
        return "STANDALONE"
    return str(method.value).upper()


def check_config(config: EngineSettings, changes: dict[str, object]) -> None:
    """`handle_unified_memory_pool` over a config under --enable-unified-memory, with the
    resolution so far (`changes`: the speculative topk SGLang's hook resolves, and the
    prefill backend, which the FULL fallback sets to disabled there)."""
    if not config.enable_unified_memory:
        return
    from graphfit.planner.engines import sglang_unified_switches as sw
    from graphfit.planner.engines.sglang_mamba_pool import is_hybrid_mamba
    from graphfit.planner.engines.sglang_prefill import MLA_ARCHITECTURES

    algorithm = final_algorithm(config)
    switches = frozenset(config.unified_switches or ())
    if config.dcp_size > 1:  # a config without the line's switches (from_sglang, s44d)
        switches |= {"dcp"}
    mla = config.architecture in MLA_ARCHITECTURES
    mamba = is_hybrid_mamba(config.architecture, config.mamba_state_shape)
    mode = config.disaggregation_mode
    prefill, decode = config.prefill_attention_backend, config.decode_attention_backend
    sw.page_major(prefill, decode, mla=mla, asymmetric_kv=config.asymmetric_kv,
                  linear=config.unified_linear)  # the hook before (pipeline.py:336)
    pd_check(mode, config.disaggregation_transfer_backend, config.pp_size, algorithm)
    sw.pd_switches(mode, config.disable_lazy_compaction, switches, mla=mla, mamba=mamba,
                   hybrid_swa=config.hybrid_swa)
    topk = changes.get("speculative_eagle_topk", config.speculative_eagle_topk)
    check(algorithm, topk if isinstance(topk, int) and algorithm is not None else None,
          config.hybrid_swa, mamba, False)
    backend_check(algorithm, prefill, decode, config.draft_attention_backend, mla,
                  "dcp" in switches)
    check(None, None, None, False, config.two_batch_overlap)  # after the backends (:653)
    sw.cache_switches(algorithm, switches)
    sw.dcp_gate(switches, mla=mla, hybrid_swa=config.hybrid_swa, disaggregation_mode=mode,
                prefill=prefill, decode=decode)
    if changes.get("cuda_graph_backend_prefill", config.cuda_graph_backend_prefill) != "full":
        return
    kept = full_prefill_kept(prefill, decode)
    if kept is None:
        raise ConfigError("--enable-unified-memory with FULL prefill graphs: SGLang keeps "
                          "them only on fa3 / fa4 (kv_cache_hook.py:701-716); backend unknown "
                          "(not modelled): name --attention-backend or the GPU")
    if not kept:
        changes["cuda_graph_backend_prefill"] = "disabled"


__all__ = ["FULL_PREFILL_BACKENDS", "PD_TRANSFER_BACKENDS", "SPEC_MHA_AUDITED",
           "SPEC_VERIFY_AUDITED", "UNIFIED_ALGORITHMS", "backend_check", "check",
           "check_config", "final_algorithm", "full_prefill_kept", "pd_check",
           "why_prefill_off"]
