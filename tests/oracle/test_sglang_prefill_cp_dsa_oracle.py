"""Prefill context parallelism on DeepSeek-family, CP-TP sharing and MiMo-V2 targets (issue 23
s54c): SGLang 0.5.23's own resolution vs graphfit's reading of the same pasted line
(tests/oracle/sglang_prefill_cp_dsa_oracle.py): each refusal restated in
graphfit.inputs.sglang_prefill_cp_dsa / sglang_prefill_cp_hooks is met with SGLang's sentence,
and a line SGLang serves is planned with the widths SGLang settles (issue 23 s60p; the
live check and graphfit's config file keep it "not modelled"). The large generated count is
`measure_sglang_prefill_cp COUNT SEED family`."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_prefill_cp_dsa_oracle as dsa  # noqa: E402

CP = ("--enable-prefill-cp", "--max-running-requests", "24")
ZIG, INTER = ("--cp-strategy", "zigzag"), ("--cp-strategy", "interleave")
NO_KV = ("--prefill-only-disable-kv-cache",)
REFUSED: list[dsa.Case] = [
    ((*CP, "--tp-size", "16", *INTER), dsa.GPU, "dsa"),  # deepseek_v2.py:123-125
    ((*CP, "--tp-size", "4", *INTER, "--attn-dp-size", "2", "--dp-size", "2"), dsa.GPU,
     "mla"),  # model_override_base.py:235-239
    ((*CP, "--tp-size", "4", *ZIG, "--attn-dp-size", "2", "--dp-size", "2"), dsa.GPU,
     "mimo_mm"),  # parallel_hook.py:287-292, before MiMo's own check
    ((*CP, "--tp-size", "8", *INTER, "--attn-cp-size", "4", "--moe-dp-size", "2"), dsa.GPU,
     "dsa"),  # parallel_hook.py:189-192
    ((*CP, "--tp-size", "8", *ZIG, "--moe-dp-size", "2"), dsa.GPU, "dsa"),  # :175-177
    ((*CP, "--tp-size", "4", *INTER, "--enable-aiter-allreduce-fusion"), dsa.GPU,
     "mla"),  # :166-168, on the resolved width 4
    ((*CP, "--tp-size", "2", *ZIG), dsa.GPU, "mimo_mm"),  # parallel_hook.py:141-146
    ((*CP, "--tp-size", "4", *INTER, "--attn-dp-size", "2"), dsa.GPU,
     "glm5"),  # cp_tp_group_sharing_hook.py:36-40
    ((*CP, "--tp-size", "2", *ZIG), dsa.GPU, "glm5"),  # :41-47
    ((*CP, "--tp-size", "2", *INTER, "--enable-mixed-chunk"), dsa.GPU, "glm5"),  # :67-99
    ((*CP, "--tp-size", "2", *ZIG, *NO_KV, "--is-embedding", "--disable-radix-cache"),
     dsa.GPU, "llama"),  # kv_cache_hook.py:903-909
    ((*CP, "--tp-size", "2", *ZIG, *NO_KV, "--kv-cache-dtype", "mxfp8"), dsa.GPU,
     "mla"),  # kv_cache_hook.py:878-883
]
SERVED: list[dsa.Case] = [
    ((*CP, "--tp-size", "4", *ZIG), dsa.GPU, "dsa"),  # DSA zigzag: deepep, ep 4, CP 4
    ((*CP, "--tp-size", "4", *INTER, "--attn-dp-size", "4"), dsa.GPU, "mla"),  # CP width 1
]


# on the H100 the attention hook's refusal (pipeline.py:242) comes before the CP hook's and
# the CP-TP sharing hook's: trtllm_mha prefill with the family's CP width above 1 off SM100
# (attention_hook.py:228-237), trtllm_mla off Blackwell (overrides.py:1208-1213); graphfit
# gives it only reading the line with the GPU flag (issue 23 s66p)
TRT = ("--prefill-attention-backend", "trtllm_mha")
HOOK_FIRST: list[dsa.Case] = [
    ((*CP, "--tp-size", "8", *INTER, "--attn-cp-size", "4", "--moe-dp-size", "2", *TRT),
     dsa.GPU, "dsa"),  # not parallel_hook.py:189-192
    ((*CP, "--tp-size", "4", *INTER, "--enable-aiter-allreduce-fusion", *TRT), dsa.GPU,
     "mla"),  # not :166-168
    ((*CP, "--tp-size", "4", *INTER, "--attn-dp-size", "2", *TRT), dsa.GPU,
     "glm5"),  # not cp_tp_group_sharing_hook.py:36-40
    ((*CP, "--tp-size", "4", *INTER, "--enable-aiter-allreduce-fusion", "--attention-backend",
      "trtllm_mla"), dsa.GPU, "mla"),
]


def _id(case: dsa.Case) -> str:
    return f"{case[2]}-{' '.join(case[0][3:])}"


@pytest.mark.parametrize("case", REFUSED, ids=_id)
def test_refused_with_sglang_sentence(case: dsa.Case) -> None:
    outcome, diffs = dsa.compare(case)
    assert outcome == "same refusal", diffs


@pytest.mark.parametrize("case", HOOK_FIRST, ids=_id)
def test_attention_hook_before_the_cp_hook(case: dsa.Case) -> None:
    outcome, diffs = dsa.compare(case)
    assert outcome == "same refusal", diffs


def test_gpu_flag_read() -> None:
    """Without the GPU flag (the reading before s66p) the CP hook's refusal comes first."""
    dsa.model_dir("dsa")
    assert dsa.cp.compare(HOOK_FIRST[0])[0] == "differs"


@pytest.mark.parametrize("case", SERVED, ids=_id)
def test_served_lines_agree(case: dsa.Case) -> None:
    """Planned with the widths SGLang settles since issue 23 s60p (was "not modelled")."""
    outcome, diffs = dsa.compare(case)
    assert outcome == "agree", diffs


def test_generated_lines_never_differ() -> None:
    results = [(case, *dsa.compare(case)) for case in dsa.generate(12, 54)]
    assert not [r for r in results if r[1] == "differs"], results


@pytest.mark.parametrize("case", REFUSED, ids=_id)
def test_config_file_refused_with_sglang_sentence(case: dsa.Case) -> None:
    """The same flags as graphfit's own `--config` file (sglang_prefill_cp.file reads the
    keys these refusals need)."""
    dsa.model_dir(case[2])
    outcome, diffs = dsa.cp.file_compare(case)
    assert outcome == "same refusal", diffs


@pytest.mark.parametrize("case", SERVED, ids=_id)
def test_live_check_agrees(case: dsa.Case) -> None:
    """SGLang's resolved record (widths already settled) through the live check, which plans
    these lines with the widths SGLang's override settles since issue 23 s62p."""
    dsa.model_dir(case[2])
    outcome, diffs = dsa.cp.live_compare(case)
    assert outcome == "agree", diffs
