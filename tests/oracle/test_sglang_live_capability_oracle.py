"""The live path with the GPU given in GiB plus its compute capability (issue 23 s47l):
`from_sglang(server_args, gpu_memory_gb=<GiB>, gpu_capability=<major*10+minor>)` must run the
GPU-generation rules a named GPU runs -- SGLang's SM100+ linear-attention kernel checks
(arg_groups/attention_hook.py:334-377) and Qwen3-Next's SM100 page override
(model_overrides/qwen3_5.py:46-49) -- as SGLang resolves the same ServerArgs on a device of
that capability (its probes read it, utils/common.py:274-313), and a figure in GiB alone must
still run none of them (the ServerArgs carry no device facts)."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_linear_sm100_oracle as ls  # noqa: E402
from tests.oracle import sglang_unified_page_major_oracle as pm  # noqa: E402

MRR = ls.MRR
FI = "flashinfer"
NB = ("--mamba-radix-cache-strategy", "no_buffer", "--disable-overlap-schedule")


def _given(gpu: str, how: str) -> dict[str, object]:
    gb, (major, minor) = pm.GPUS[gpu]
    if how == "capability":
        return {"gpu_memory_gb": gb, "gpu_capability": major * 10 + minor}
    return {"gpu_memory_gb": gb, "sm100": major == 10}


# (case, how the capability is given, SGLang's verdict on the line: the premise)
LINEAR: list[tuple[ls.Case, str, str]] = [
    (((*MRR, "--linear-attn-backend", FI), "B200"), "capability", "dtype"),
    (((*MRR, "--linear-attn-verify-backend", FI), "B200"), "sm100", "dtype"),
    (((*MRR, "--linear-attn-backend", FI), "H100"), "capability", "serves"),
    (((*MRR, "--mamba-ssm-dtype", "float32"), "B200"), "capability", "serves"),
]


@pytest.mark.parametrize(("case", "how", "sglang"), LINEAR)
def test_live_linear_checks_with_a_capability_match_sglang(case: ls.Case, how: str,
                                                           sglang: str) -> None:
    given = _given(case[1], how)
    theirs, ours = ls.live_linear_case(case, given)
    premise = ("serves" if theirs is None else "dtype" if ls.DTYPE_WORDS in theirs
               else theirs[-160:])
    assert premise == sglang, f"premise: SGLang {premise}"
    assert ls.live_linear_verdict(case, given) is None, ls.live_linear_verdict(case, given)
    assert (ours is not None) == (sglang == "dtype"), ours


def test_live_gib_alone_runs_no_generation_rule() -> None:
    """SGLang refuses the B200 line; with only its GiB, graphfit cannot know the generation
    and plans it (the documented limit): the capability is what tells them apart."""
    case: ls.Case = ((*MRR, "--linear-attn-backend", FI), "B200")
    theirs, ours = ls.live_linear_case(case, {"gpu_memory_gb": pm.GPUS["B200"][0]})
    assert theirs is not None and ls.DTYPE_WORDS in theirs
    assert ours is None


# Qwen3-Next's SM100 page override from a capability (premise: it changes the page size)
PAGE: list[ls.Case] = [
    ((*MRR, "--page-size", "16"), "B200"),  # triton: 1 over 16
    ((*MRR, "--page-size", "64", *NB), "B200"),  # reset to 1: SGLang serves
    ((*MRR, "--page-size", "16"), "H100"),
]


@pytest.mark.parametrize("case", PAGE)
def test_live_page_size_with_a_capability_matches_sglang(case: ls.Case) -> None:
    given = _given(case[1], "capability")
    assert ls.live_page_verdict(case, given) is None, ls.live_page_verdict(case, given)


def test_live_generation_fields_follow_the_capability() -> None:
    """A named GPU and a capability give the pasted line's sm90 / sm100 / gpu_capability
    (SglangOptions), which the MegaMoE and FlashInfer-MegaMoE rules read; the caller's own
    values win."""
    from graphfit.integrations import sglang as gs

    record = {"model_path": None}
    named = gs.live_overrides(record, {"gpu_memory_gb": "B200"}, environ={})
    assert (named["sm100"], named["sm90"], named["gpu_capability"]) == (True, False, 100)
    hopper = gs.live_overrides(record, {"gpu_memory_gb": 80, "gpu_capability": 90}, {})
    assert (hopper["sm100"], hopper["sm90"]) == (False, True)
    mine = gs.live_overrides(record, {"gpu_memory_gb": "B200", "sm100": False}, {})
    assert mine["sm100"] is False
    bare = gs.live_overrides(record, {"gpu_memory_gb": 80}, {})
    assert "sm100" not in bare and "gpu_capability" not in bare
