"""`--enable-unified-memory`'s start-up checks on the cache and parallelism switches (issue 23
s41u): SGLang 0.5.23's resolution (`handle_cache_compatibility` and `handle_unified_memory_pool`,
arg_groups/kv_cache_hook.py:351-413, 554-587, 658-688, 719-761; the fa3 fp8_e5m2 fallback,
overrides.py:1262-1270) vs graphfit's refusal, prefill-graph backend and fraction
(graphfit.inputs.sglang_unified_switches, graphfit.planner.engines.sglang_unified_switches) for
the same pasted line."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_unified_backends_oracle as ub  # noqa: E402
from tests.oracle import sglang_unified_memory_oracle as um  # noqa: E402
from tests.oracle import sglang_unified_switches_oracle as us  # noqa: E402

BR = ("--enable-unified-memory", "--cuda-graph-backend-prefill", "breakable",
      "--max-running-requests", "48")
DECODE = ("--disaggregation-mode", "decode", "--disaggregation-transfer-backend", "mooncake")
OFFLOAD = ("--disaggregation-decode-enable-offload-kvcache", "--hicache-storage-backend")
DCP = ("--dcp-size", "2", "--tp-size", "2")
LAZY_ON = ((us.LAZY, "1"),)
GRID: list[us.Case] = [
    ("llama", (*BR, *DECODE), "A100", None, LAZY_ON),  # 0: lazy compaction off (:554)
    ("llama", (*BR, *DECODE), "A100", None, ((us.LAZY, "0"),)),  # 1: served
    ("llama", (*BR, *DECODE, "--enable-hisparse"), "H100", None, ()),  # 2 (:558)
    ("llama", (*BR, *DECODE, *OFFLOAD, "file"), "A100", "1", ()),  # 3: served
    ("llama", (*BR, *DECODE, *OFFLOAD, "mooncake"), "A100", None, ()),  # 4 (:564)
    ("swa_optin", (*BR, *DECODE, *OFFLOAD, "file"), "H100", None, ()),  # 5 (:578)
    ("mla", (*BR, *DECODE, *OFFLOAD, "file"), "H100", None, ()),  # 6 (:569)
    ("llama", (*BR, *DECODE, OFFLOAD[0]), "A100", None, ()),  # 7 (:404)
    ("llama", (*BR, *DECODE, "--disaggregation-decode-retraction-backup", "host_pool"),
     "A100", None, ()),  # 8: served
    ("llama", (*BR, "--disaggregation-decode-retraction-backup", "host_pool"), "A100", None,
     ()),  # 9 (:352)
    ("llama", (*BR, "--enable-lmcache"), "H100", None, ()),  # 10 (:658)
    ("llama", (*BR, "--enable-unified-cache-external-linker"), "H100", None, ()),  # 11 (:663)
    ("llama", (*BR, "--enable-hierarchical-cache"), "H100", "1", ()),  # 12: served
    ("swa_optin", (*BR, *um.spec_argv("swa_optin", "EAGLE"), "--attention-backend", "fa3",
                   "--enable-hierarchical-cache"), "H100", None, ()),  # 13 (:678)
    ("llama", (*BR, *DECODE, "--enable-hierarchical-cache"), "A100", None, ()),  # 14 (:393)
    ("llama", (*BR, *DCP), "H100", None, ()),  # 15 (:727)
    ("mla", (*BR, *DCP), "H100", None, ()),  # 16: Hopper's fa3 (:754)
    ("mla", (*BR, *DCP, "--attention-backend", "flashinfer"), "H100", None, ()),  # 17
    ("mla", (*BR, *DCP, "--attention-backend", "flashinfer", *DECODE), "H100", None,
     ()),  # 18 (:740)
    ("llama", ("--enable-unified-memory", "--cuda-graph-backend-prefill", "full",
               "--max-running-requests", "48", "--attention-backend", "fa3",
               "--kv-cache-dtype", "fp8_e5m2"), "H100", None, ()),  # 19: triton, FULL off
    ("swa_optin", (*BR, *um.spec_argv("swa_optin", "DFLASH"), "--attention-backend",
                   "flashinfer", *DCP), "A100", None, ()),  # 20 (:510-516)
    ("llama", (*BR, *DCP, "--attention-backend", "flashinfer"), "A100", None,
     ()),  # 21: MLA only (:727), the backend allowed
    ("dsv4", ("--enable-unified-memory", "--cuda-graph-backend-prefill", "full",
              "--max-running-requests", "48", "--attention-backend", "fa3"), "H100", None,
     ()),  # 22: the override's dsv4 over a named fa3, off the page-major list (:820-827)
    ("llama", (*BR[1:], "--enable-page-major-kv-layout"), "A100", None, ()),  # 23 (:783)
    ("llama", (*BR, "--enable-page-major-kv-layout"), "A100", None, ()),  # 24: served
]


@pytest.mark.parametrize("case", GRID, ids=[f"{i}-{c[0]}-{c[2]}" for i, c in enumerate(GRID)])
def test_unified_switches_as_sglang(case: us.Case) -> None:
    assert us.compare(case)[2] is None


def test_the_grid_is_not_vacuous() -> None:
    """SGLang serves the control lines and refuses the switched ones; the DCP line it serves
    graphfit plans since s42d (graphfit.planner.engines.sglang_dcp; s41u refused it as not
    modelled), and the fp8_e5m2 line turns FULL graphs off."""
    outcomes = [ub.sglang_side(c[1], c[0], c[2], c[3], c[4]) for c in GRID]
    served = {1, 3, 8, 12, 17, 19, 24}
    assert {i for i, o in enumerate(outcomes) if o is not None} == served
    assert outcomes[19] is not None and outcomes[19][0] == "disabled"
    for i in served:  # planned, not refused as not modelled
        assert not isinstance(us.compare(GRID[i])[1], str)


@pytest.mark.parametrize("seed", [5])
def test_generated_lines(seed: int) -> None:
    differ = [(case, d) for case in us.generate(8, seed) if (d := us.compare(case)[2])]
    assert not differ


def test_refusals_carry_sglangs_reason() -> None:
    """Where SGLang refuses a grid line, graphfit refuses it with SGLang's reason, not "as not
    modelled" (the DCP lines were all "not modelled" before s41u)."""
    for case in GRID:
        theirs, ours, _ = us.compare(case)
        if theirs is None:
            assert isinstance(ours, str) and "not modelled" not in ours, (case, ours)
