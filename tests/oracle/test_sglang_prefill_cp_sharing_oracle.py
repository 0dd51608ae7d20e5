"""CP-TP group sharing planned (issue 23 s63p): Glm5Next / Qwen4-Exp prefill-CP lines against
SGLang 0.5.23's resolution, decode runners and state-cache solve
(tests/oracle/sglang_prefill_cp_sharing_oracle.compare). Each rule is also broken on purpose
(monkeypatch) to show the comparison catches it. The large generated count is
`measure_sglang_prefill_cp_sharing COUNT SEED`."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_prefill_cp_sharing_oracle as sh  # noqa: E402

CP = ("--enable-prefill-cp", "--max-running-requests", "24")
INTER, ZIG = ("--cp-strategy", "interleave"), ("--cp-strategy", "zigzag")
# Glm5Next (MLA: its CP width is TP whatever the line says); its linear_attn_config form;
# Qwen4-Exp sharing with a breakable flag the hook's declaration overrides; Qwen4-Exp at CP
# width 1 (no sharing: planned as without prefill CP)
GLM5 = ((*CP, "--tp-size", "4", *INTER), sh.GPU, "glm5")
GLM5_ATTN = ((*CP, "--tp-size", "2", *INTER, "--attn-cp-size", "2"), sh.GPU, "glm5_attn")
QWEN4 = ((*CP, "--tp-size", "4", *ZIG, "--attn-cp-size", "4", "--cuda-graph-backend-prefill",
          "breakable"), sh.GPU, "qwen4")
QWEN4_WIDTH_ONE = ((*CP, "--tp-size", "2", *ZIG, "--attn-cp-size", "1"), sh.GPU, "qwen4")
SERVED = [GLM5, GLM5_ATTN, QWEN4, QWEN4_WIDTH_ONE]
# the context-parallel hook's width asserts on a Qwen4-Exp line (parallel_hook.py:156-192)
QWEN4_ASSERT = ((*CP, "--tp-size", "4", *ZIG, "--attn-cp-size", "4", "--attn-dp-size", "2"),
                sh.GPU, "qwen4")


def _id(case: sh.Case) -> str:
    return f"{case[2]}-{' '.join(case[0][3:])}"


def _fresh(case: sh.Case) -> sh.Case:
    """The case with a flag SGLang ignores here, so the oracle's caches miss."""
    return ((*case[0], "--log-level", "warning"), case[1], case[2])


@pytest.mark.parametrize("case", SERVED, ids=_id)
def test_served_line_agrees(case: sh.Case) -> None:
    outcome, diffs = sh.compare(case)
    assert outcome == "agree", diffs


def test_qwen4_width_assert_is_sglangs() -> None:
    assert sh.compare(QWEN4_ASSERT)[0] == "same refusal"


def test_generated_lines_agree_or_same_refusal() -> None:
    outcomes = {sh.compare(case)[0] for case in sh.generate(4, 5)}
    assert outcomes <= {"agree", "same refusal"} and "agree" in outcomes, outcomes


def test_sharing_splits_the_state_over_tp() -> None:
    """Not vacuous: SGLang's per-request state under sharing is 1/TP of the same widths'
    without prefill CP, where attention CP 4 leaves an attention-TP width of 1
    (linear_attn_tp_size, runtime_context.py:477-486)."""
    plain = (("--max-running-requests", "24", "--tp-size", "4", "--attn-cp-size", "4"),
             sh.GPU, "glm5")
    shared, alone = sh.sglang_state(GLM5), sh.sglang_state(plain)
    assert shared.per_request * 4 == alone.per_request


def test_plant_state_on_attention_tp(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant: the state split over the attention-TP width (1) under sharing."""
    from graphfit.planner.engines import sglang_mamba_memory as mem

    monkeypatch.setattr(mem, "state_tp", lambda config: max(
        1, config.tp_size // config.attn_dp_size // config.attn_cp_size))
    outcome, diffs = sh.compare(_fresh(GLM5_ATTN))
    assert outcome == "differs" and "state slots" in diffs[0], diffs


def test_plant_sharing_not_declared(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant: the inputs never declare the sharing on Glm5Next."""
    from graphfit.inputs import sglang_prefill_cp_family as fam

    monkeypatch.setattr(fam, "CP_TP_SHARING", frozenset())
    assert sh.compare(_fresh(GLM5))[0] == "differs"


def test_plant_qwen4_prefill_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant: the sharing hook's prefill-off declaration on Qwen4-Exp left out."""
    from graphfit.planner.engines import sglang_prefill_plan as plan

    monkeypatch.setattr(plan, "sharing_prefill_off", lambda *args: False)
    outcome, diffs = sh.compare(_fresh(QWEN4))
    assert outcome == "differs" and "prefill graphs" in diffs[0], diffs


def test_plant_qwen4_asserts_left_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant: the width asserts not run on a Qwen4-Exp line."""
    from graphfit.inputs import sglang_prefill_cp_dsa

    monkeypatch.setattr(sglang_prefill_cp_dsa, "hook_asserts", lambda values, found: None)
    assert sh.compare(_fresh(QWEN4_ASSERT))[0] != "same refusal"


# --- `--enable-dp-attention` on a DeepSeek-family prefill-CP line (issue 23 s63p) -------------
# SGLang's first hook moves --dp-size to --attn-dp-size (parallel_hook.py:39-62) before the
# family override reads the widths: attention DP 2 and CP 2 at TP 4
DP_ATTENTION = ((*CP, "--tp-size", "4", *INTER, "--enable-dp-attention", "--dp-size", "2"),
                sh.GPU, "mla")


def test_deprecated_dp_attention_line_agrees() -> None:
    outcome, diffs = sh.dsa.compare(DP_ATTENTION)
    assert outcome == "agree", diffs


def test_plant_deprecated_dp_attention_read_as_given(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant: the deprecated spelling left as given (--dp-size read as replicas)."""
    from graphfit.inputs import sglang_prefill_cp

    monkeypatch.setattr(sglang_prefill_cp, "undeprecated", lambda values: values)
    assert sh.dsa.compare(_fresh(DP_ATTENTION))[0] != "agree"


# --- the attention hook's trtllm_mha refusal before the CP hook's (issue 23 s63p) -------------
# attention_hook.py:228-237 runs at pipeline.py:242, before the CP hook's V3.2 strategy check
# (parallel_hook.py:123-130, at :278): on an H100 SGLang gives the trtllm_mha sentence; on a
# B200 the V3.2 one; a MiMo-V2 line at CP width 1 never meets the trtllm_mha check
TRTLLM = ("--attention-backend", "trtllm_mha")
ORDER = [((*CP, "--tp-size", "2", *ZIG, *TRTLLM), "H100", "v32"),
         ((*CP, "--tp-size", "4", *ZIG, *TRTLLM), "B200", "v32"),
         ((*CP, "--tp-size", "2", *INTER, *TRTLLM), "H100", "mimo_mm")]


def _same_refusal(case: sh.Case) -> bool:
    """SGLang's refusal (its fake GPU of that name) in graphfit's as the CLI reads the line
    (`read_pasted` with the GPU flag)."""
    from tests.oracle import sglang_dcp_oracle as dc
    from tests.oracle import sglang_prefill_cp_oracle as cp
    from tests.oracle import sglang_prefill_cp_platform_oracle as platform

    sh.dsa.model_dir(case[2])
    theirs, ours = dc.sglang_answer(case).rejected, platform.graphfit_answer(case).rejected
    return theirs is not None and ours is not None and cp.sglang_reason(theirs) in ours


@pytest.mark.parametrize("case", ORDER, ids=_id)
def test_trtllm_mha_refusal_in_sglangs_order(case: sh.Case) -> None:
    assert _same_refusal(case)


def test_plant_trtllm_mha_after_the_cp_hook(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant: the CP hook's refusal kept where the attention hook's comes first."""
    from graphfit.inputs import gpus

    monkeypatch.setattr(gpus, "gpu_sm100", lambda value: None)
    assert not _same_refusal(_fresh(ORDER[0]))
