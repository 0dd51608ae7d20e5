"""`--enable-unified-memory`'s attention-backend checks, FULL prefill fallback and PD transfer
checks: SGLang 0.5.23's resolution (`handle_unified_memory_pool`, arg_groups/kv_cache_hook.py:
500-553, 613-653, 690-712) vs graphfit's refusal, prefill-graph backend and fraction
(graphfit.planner.engines.sglang_unified_memory, graphfit.inputs.sglang_unified_backends) for
the same pasted line."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_unified_backends_oracle as ub  # noqa: E402
from tests.oracle import sglang_unified_memory_oracle as um  # noqa: E402

FULL = ("--enable-unified-memory", "--cuda-graph-backend-prefill", "full",
        "--max-running-requests", "48")
PD = ("--disaggregation-mode", "prefill", "--disaggregation-transfer-backend")
GRID: list[ub.Case] = [
    ("swa_optin", FULL, "A100", "1"),  # SGLang's default on Ampere: flashinfer
    ("swa_optin", FULL, "H100", None),  # on Hopper: fa3
    ("llama", (*FULL, "--attention-backend", "fa3"), "A100", None),
    ("llama", (*FULL, "--prefill-attention-backend", "fa3",
               "--decode-attention-backend", "triton"), "H100", None),
    ("llama", (*FULL, "--decode-attention-backend", "flashinfer"), "H100", "1"),
    ("llama", (*FULL, *PD, "nixl"), "A100", None),
    ("llama", (*FULL, *PD, "mooncake", "--pp-size", "2"), "A100", None),
    ("swa_optin", (*FULL, *PD, "mooncake", *um.spec_argv("swa_optin", "DFLASH")), "H100",
     None),
    ("swa_optin", (*FULL, *um.spec_argv("swa_optin", "EAGLE"), "--attention-backend",
                   "trtllm_mha"), "H100", "1"),
    ("swa_optin", (*FULL, *um.spec_argv("swa_optin", "EAGLE"), "--attention-backend", "fa3",
                   "--speculative-draft-attention-backend", "fa4"), "H100", "1"),
    ("swa_optin", (*FULL, *um.spec_argv("swa_optin", "DFLASH"),
                   "--decode-attention-backend", "fa4"), "H100", None),
    ("swa_optin", (*FULL, *um.spec_argv("swa_optin", "EAGLE"), "--attention-backend", "fa4",
                   "--speculative-draft-attention-backend", "triton"), "H100", None),
    ("gemma4", FULL, "H100", "1"),  # the Gemma 4 override's triton
]


@pytest.mark.parametrize("case", GRID, ids=[f"{c[0]}-{c[2]}-{' '.join(c[1][5:])}"[:90]
                                            for c in GRID])
def test_unified_memory_backends_as_sglang(case: ub.Case) -> None:
    name, argv, gpu, value = case
    theirs = ub.sglang_side(argv, name, gpu, value)
    assert ub.verdict(theirs, ub.graphfit_side(argv, name, gpu, value)) is None


def test_the_grid_is_not_vacuous() -> None:
    """SGLang turns FULL prefill graphs off on Ampere's default and keeps them on Hopper's,
    with the same fraction either way for the same GPU (its memory hook ran first), and
    refuses a nixl PD transfer."""
    off = ub.sglang_side(*GRID[0][1:2], GRID[0][0], "A100", "1")
    assert off is not None and off[0] == "disabled"
    kept = ub.sglang_side(GRID[1][1], "swa_optin", "H100", None)
    assert kept is not None and kept[0] == "full"
    split = ub.sglang_side(GRID[3][1], "llama", "H100", None)
    fa3 = ub.sglang_side((*FULL, "--attention-backend", "fa3"), "llama", "H100", None)
    assert split is not None and fa3 is not None
    assert (split[0], fa3[0]) == ("disabled", "full") and split[1] == fa3[1]
    assert ub.sglang_side(GRID[5][1], "llama", "A100", None) is None


@pytest.mark.parametrize("seed", [3])
def test_generated_lines(seed: int) -> None:
    differ = [(case, d) for case in ub.generate(8, seed)
              if (d := ub.verdict(ub.sglang_side(case[1], case[0], case[2], case[3]),
                                  ub.graphfit_side(case[1], case[0], case[2], case[3])))]
    assert not differ


def test_defaults_are_restated() -> None:
    """A FULL line naming no backend is planned, not refused as not modelled, where graphfit
    restates SGLang's default (Ampere's flashinfer, Hopper's fa3, Gemma 4's triton)."""
    for name, argv, gpu, value in (GRID[0], GRID[1], GRID[-1]):
        assert not isinstance(ub.graphfit_side(argv, name, gpu, value), str)
