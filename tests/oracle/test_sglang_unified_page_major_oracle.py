"""`--enable-unified-memory`'s leftovers after s41u (issue 23 s42u), SGLang 0.5.23's own
resolution vs graphfit's refusal, prefill-graph backend and fraction for the same pasted line:

* the page-major layout's linear-attention / mamba kernel checks (arg_groups/kv_cache_hook.py:
  828-862), with `handle_linear_attn_backend`'s decode resolution before them (attention_hook.py:
  289-330: the SM100 flashinfer default, an inherited flashkda made triton, an explicit one
  refused);
* the attention list for unequal K / V rows (:810-811; `has_asymmetric_kv`, configs/
  model_config.py:1263-1271): MiMoV2 (192 / 128), a Llama with `v_head_dim`, one with unequal
  sliding-window widths;
* a mamba hybrid (Qwen3-Next) with host-pool retraction / decode offload (:574-587), an MLA
  hybrid-SWA model under `--dcp-size 2` (:733-738);
* `--disaggregation-decode-host-receive-threshold` (pd_disaggregation_hook.py:64-80) and the
  host pool's priority-preemption check (kv_cache_hook.py:366-374).

Each refused grid line names the fragment of SGLang's own message it must carry and the
citation graphfit's must carry, so both refuse for the same reason."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_unified_memory_oracle as um  # noqa: E402
from tests.oracle import sglang_unified_page_major_oracle as pm  # noqa: E402

pm.register()  # before GRID: its EAGLE line names the MiMoV2 directory as its draft
BR = ("--enable-unified-memory", "--cuda-graph-backend-prefill", "breakable",
      "--max-running-requests", "48")
DECODE = ("--disaggregation-mode", "decode", "--disaggregation-transfer-backend", "mooncake")
HOST = ("--disaggregation-decode-retraction-backup", "host_pool")
RECEIVE = "--disaggregation-decode-host-receive-threshold"
LIN = "--linear-attn-backend"
CUTEDSL_SPLIT = (LIN, "cutedsl", "--linear-attn-prefill-backend", "triton")
BF16 = ("--mamba-ssm-dtype", "bfloat16")
PD_HOOK = "pd_disaggregation_hook.py"
# (model, argv, GPU), then None where SGLang serves the line, else (a fragment of SGLang's
# message, the citation graphfit's message carries)
GRID: list[tuple[pm.Case, tuple[str, str] | None]] = [
    (("llama", (*BR, LIN, "cutedsl"), "H100"), ("DECODE backend", "kv_cache_hook.py:846-852")),
    (("mla", (*BR, LIN, "cutedsl"), "H100"), None),  # MLA: cutedsl / helion allowed (:843-845)
    (("mla", (*BR, LIN, "nvidia_kda", "--linear-attn-decode-backend", "helion"), "A100"),
     ("PREFILL backend", "kv_cache_hook.py:853-857")),
    (("llama", (*BR, LIN, "flashkda"), "A100"), None),  # decode inherits triton (:316-330)
    (("llama", (*BR, "--linear-attn-decode-backend", "flashkda"), "A100"),
     ("FlashKDA is prefill-only", "attention_hook.py:318-323")),
    (("llama", (*BR, LIN, "helion", "--linear-attn-prefill-backend", "flashinfer"), "H100"),
     ("DECODE backend", "kv_cache_hook.py:846-852")),
    # SM100 with bf16 SSM state: an unset decode backend is flashinfer (attention_hook.py:
    # 289-307), so only the prefill one is checked
    (("llama", (*BR, *CUTEDSL_SPLIT, *BF16), "B200"), None),
    (("llama", (*BR, *CUTEDSL_SPLIT), "B200"), ("DECODE backend", "kv_cache_hook.py:846-852")),
    (("llama", (*BR, *CUTEDSL_SPLIT, *BF16), "H100"),
     ("DECODE backend", "kv_cache_hook.py:846-852")),
    # unequal K / V rows: triton / fa3 / fa4 only (:810-811)
    (("mimo", (*BR, "--attention-backend", "flashinfer"), "H100"),
     ("['fa3', 'fa4', 'triton']", "kv_cache_hook.py:770-827")),
    (("mimo", (*BR, "--attention-backend", "fa3"), "A100"), None),
    (("mimo", BR, "A100"), ("['fa3', 'fa4', 'triton']", "kv_cache_hook.py:770-827")),
    (("mimo", BR, "B200"), None),  # the override's fa4 on SM100 (mimo_v2.py:27-29)
    (("asym", (*BR, "--attention-backend", "trtllm_mha"), "B200"),
     ("['fa3', 'fa4', 'triton']", "kv_cache_hook.py:770-827")),
    (("swa_asym", (*BR, "--decode-attention-backend", "flashinfer"), "H100"),
     ("['fa3', 'fa4', 'triton']", "kv_cache_hook.py:770-827")),
    (("asym", (*BR, "--attention-backend", "triton"), "A100"), None),
    # a mamba hybrid on a decode server
    (("qnext", (*BR, *DECODE, *HOST), "H100"), ("hybrid-Mamba", "kv_cache_hook.py:582-587")),
    (("qnext", (*BR, *DECODE, "--disaggregation-decode-enable-offload-kvcache",
                "--hicache-storage-backend", "file"), "H100"),
     ("hybrid-Mamba", "kv_cache_hook.py:574-577")),
    (("qnext", (*BR, *DECODE), "H100"), None),
    (("qnext", (*BR, "--mamba-backend", "flashinfer"), "H100"), ("", "")),  # see below
    # an MLA hybrid-SWA model under DCP
    (("mla_swa", (*BR, "--dcp-size", "2", "--tp-size", "2", "--attention-backend",
                  "flashinfer"), "H100"), ("hybrid sliding-window", "kv_cache_hook.py:733-738")),
    # the host-receive threshold
    (("llama", (*BR, *DECODE, RECEIVE, "0.5"), "A100"), None),
    (("qnext", (*BR, *DECODE, RECEIVE, "0"), "A100"),
     ("hybrid-Mamba", "kv_cache_hook.py:582-587")),
    (("llama", (*BR, RECEIVE, "0.5"), "A100"),
     ("only supported on a PD decode server", "kv_cache_hook.py:352-360")),
    (("llama", (*BR, *DECODE, RECEIVE, "0.5", "--disaggregation-decode-retraction-backup",
                "cpu_tensor"), "A100"), ("requires host_pool retraction", f"{PD_HOOK}:74-75")),
    (("llama", (*BR, *DECODE, RECEIVE, "1.5"), "A100"),
     ("must be between 0 and 1", f"{PD_HOOK}:64-67")),
    (("llama", (*BR, *DECODE, RECEIVE, "0", "--enable-pd-role-switch"), "A100"),
     ("role switching", f"{PD_HOOK}:68-72")),
    (("llama", (*BR, *DECODE, *HOST, "--enable-priority-scheduling"), "A100"),
     ("--disable-priority-preemption", "kv_cache_hook.py:366-374")),
    (("llama", (*BR, *DECODE, *HOST, "--enable-priority-scheduling",
                "--disable-priority-preemption"), "A100"), None),
    (("mimo", (*BR, *um.spec_argv("mimo", "EAGLE"), "--attention-backend", "fa3"), "H100"),
     None),  # a hybrid-SWA EAGLE target with its K / V rows unequal on fa3
]
# --mamba-backend flashinfer: SGLang's mamba hook refuses it first where FlashInfer's mamba
# module is missing, as on this CPU (mamba_hook.py:54-72); with it, the page-major check
# (:858-862). graphfit, which cannot tell, refuses it with the latter
NO_REASON = 19


@pytest.mark.parametrize(("case", "expected"), GRID,
                         ids=[f"{i}-{c[0]}-{c[2]}" for i, (c, _) in enumerate(GRID)])
def test_page_major_leftovers_as_sglang(case: pm.Case,
                                        expected: tuple[str, str] | None) -> None:
    name, argv, gpu = case
    theirs, message = pm.sglang_side(argv, name, gpu)
    ours = pm.graphfit_side(argv, name, gpu)
    assert (theirs is None) == (expected is not None), (theirs, message)
    assert pm.compare(case)[2] is None, (theirs, ours)
    if expected is not None and expected[0]:
        assert isinstance(ours, str) and "not modelled" not in ours
        assert expected[0] in message, message
        assert expected[1] in ours, ours


def test_the_grid_is_not_vacuous() -> None:
    """The refusals the grid names really are SGLang's own, and the page-major lines it
    refuses are served once the flag is dropped (so the flag decides them)."""
    assert GRID[NO_REASON][1] == ("", "")
    for index in (0, 9, 16):
        (name, argv, gpu), _ = GRID[index]
        flagless = tuple(a for a in argv if a not in (LIN, "cutedsl", "--attention-backend",
                                                      "flashinfer", *HOST))
        assert pm.sglang_side(flagless, name, gpu)[0] is not None


@pytest.mark.parametrize("seed", [11])
def test_generated_lines(seed: int) -> None:
    differ = [(case, d) for case in pm.generate(12, seed) if (d := pm.compare(case)[2])]
    assert not differ
