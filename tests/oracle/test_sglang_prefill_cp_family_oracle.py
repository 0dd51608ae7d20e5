"""DeepSeek-family prefill-CP lines planned with the widths SGLang settles (issue 23 s60p):
graphfit.inputs.sglang_prefill_cp_family against SGLang 0.5.23's own resolution and decode
runners on the fake GPU (tests/oracle/sglang_prefill_cp_dsa_oracle.compare: ladders, padding,
components, buffers, fills, the prefill backend and mem_fraction_static). Each rule is also
broken on purpose (monkeypatch) to show the comparison catches it. The large generated count
is `measure_sglang_prefill_cp COUNT SEED family`."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_prefill_cp_dsa_oracle as dsa  # noqa: E402

CP = ("--enable-prefill-cp", "--max-running-requests", "24")
ZIG, INTER = ("--cp-strategy", "zigzag"), ("--cp-strategy", "interleave")
# DSA zigzag (deepep, ep = tp, CP = tp); MLA at CP width 1 (attention DP = tp); MLA with the
# line's --dp-size folded into attention DP; DSA interleave with CP == TP on GlmMoeDsa (no CP
# graphs: InterleaveCPBCGInput.supports needs Glm5Next); a V3.2 line with an EAGLE draft
DEEPEP = ((*CP, "--tp-size", "2", *ZIG), dsa.GPU, "dsa")
WIDTH_ONE = ((*CP, "--tp-size", "1", *INTER), dsa.GPU, "mla")
DP_FOLDED = ((*CP, "--tp-size", "4", *INTER, "--attn-cp-size", "1", "--dp-size", "2"),
             dsa.GPU, "mla")
DSA_INTERLEAVE = ((*CP, "--tp-size", "2", *INTER), dsa.GPU, "dsa")
SERVED = [DEEPEP, WIDTH_ONE, DP_FOLDED, DSA_INTERLEAVE,
          ((*CP, "--tp-size", "8", *INTER, "--speculative-algorithm", "EAGLE",
            "--speculative-num-steps", "1", "--speculative-eagle-topk", "1",
            "--speculative-num-draft-tokens", "2"), dsa.GPU, "v32")]


def _id(case: dsa.Case) -> str:
    return f"{case[2]}-{' '.join(case[0][3:])}"


@pytest.mark.parametrize("case", SERVED, ids=_id)
def test_served_line_agrees(case: dsa.Case) -> None:
    outcome, diffs = dsa.compare(case)
    assert outcome == "agree", diffs


def test_generated_lines_agree_or_same_refusal() -> None:
    results = [(case, *dsa.compare(case)) for case in dsa.generate(8, 69)]
    # a Glm5Next line whose CP group is the TP group is planned too since issue 23 s63p (its
    # state split over the whole TP group: test_sglang_prefill_cp_sharing_oracle)
    assert {r[1] for r in results} == {"agree", "same refusal"}, results


def _fresh(case: dsa.Case) -> dsa.Case:
    """The case with a flag SGLang ignores here, so the oracle's caches miss."""
    return ((*case[0], "--log-level", "warning"), case[1], case[2])


def test_plant_widths_not_applied(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant: the line planned with its own widths (no deepep, no ep_size)."""
    from graphfit.inputs import sglang_prefill_cp_family as fam

    monkeypatch.setattr(fam, "settings", lambda values, found, arch=None: [])
    outcome, _ = dsa.compare(_fresh(DEEPEP))
    assert outcome == "differs"


def test_plant_prefill_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant: the model hook's prefill rule left out (breakable prefill graphs kept)."""
    from graphfit.planner.engines import sglang_prefill_plan as plan

    monkeypatch.setattr(plan, "family_prefill_off", lambda *args: False)
    outcome, diffs = dsa.compare(_fresh(WIDTH_ONE))
    assert outcome == "differs" and "prefill graphs" in diffs[0], diffs


def test_plant_fraction_on_resolved_widths(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant: the memory hook's fraction computed on the resolved widths."""
    from graphfit.planner.engines import sglang_reserve

    monkeypatch.setattr(sglang_reserve, "given_view", lambda config: config)
    outcome, diffs = dsa.compare(_fresh(WIDTH_ONE))
    assert outcome == "differs" and "mem_fraction_static" in diffs[0], diffs


def test_plant_interleave_supported_everywhere(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant: `InterleaveCPBCGInput.supports` taken as true on every DSA target."""
    from graphfit.planner.engines import sglang_prefill_cp_bcg as bcg

    monkeypatch.setattr(bcg, "interleave_supports", lambda inp: True)
    outcome, _ = dsa.compare(_fresh(DSA_INTERLEAVE))
    assert outcome in ("differs", "not modelled")


@pytest.mark.parametrize("case", SERVED[:3], ids=_id)
def test_config_file_plans_as_the_line(case: dsa.Case) -> None:
    """The same flags as graphfit's own `--config` file (sglang_prefill_cp.file_family):
    planned as the pasted line is (ladders, components, sizes, buffers, the fraction)."""
    dsa.model_dir(case[2])
    outcome, diffs = dsa.cp.file_compare(case)
    assert outcome == "agree", diffs


# --- issue 23 s68p: the DP LM head under attention DP -----------------------------------------
# the override's forced moe_dense_tp_size 1 with deepep turns `require_mlp_tp_gather` off
# (utils/common.py:4090-4128): one `global_num_tokens` row; the line's --dp-size folded into
# attention DP passes the DP LM head's assert (overrides.py:1421-1427)
LM_HEAD = [((*CP, "--tp-size", "4", *ZIG, "--attn-dp-size", "2", "--enable-dp-lm-head"),
            dsa.GPU, "dsa"),
           ((*CP, "--tp-size", "4", *INTER, "--attn-cp-size", "1", "--dp-size", "2",
             "--enable-dp-lm-head"), dsa.GPU, "mla"),
           ((*CP, "--tp-size", "4", *INTER, "--attn-cp-size", "1", "--dp-size", "2"),
            dsa.GPU, "mla")]


def _global_rows(case: dsa.Case) -> tuple[int, int]:
    from tests.oracle import sglang_prefill_cp_lm_head_oracle as lm

    rows = lm.global_rows(case)
    assert rows is not None
    return rows


@pytest.mark.parametrize("case", LM_HEAD, ids=_id)
def test_dp_lm_head_line_agrees(case: dsa.Case) -> None:
    from tests.oracle import sglang_prefill_cp_lm_head_oracle as lm

    outcome, diffs = lm.compare(case)
    assert outcome == "agree", diffs


def test_plant_mlp_gather_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant: `require_mlp_tp_gather` as attention DP alone makes it (moe_dense_tp_size not
    read): two rows where SGLang keeps one."""
    from graphfit.planner.engines import sglang

    monkeypatch.setattr(sglang, "mlp_tp_gather", lambda config: config.attn_dp_size > 1)
    theirs, ours = _global_rows(_fresh(LM_HEAD[0]))
    assert theirs != ours


def test_plant_dp_lm_head_assert_on_line_widths(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant: the DP LM head's assert on the line's own widths (before the override)."""
    from graphfit.inputs import sglang_prefill_cp_family as fam

    monkeypatch.setattr(fam, "settled", lambda values, found: values)
    assert dsa.compare(_fresh(LM_HEAD[1]))[0] == "differs"


# handle_data_parallelism's DP LM head assert (parallel_hook.py:368) before the CP hook's
# MiMo-V2 strategy refusal (:132-140)
MIMO_LM_HEAD = ((*CP, "--tp-size", "8", "--dp-size", "2", "--enable-dp-lm-head"), dsa.GPU,
                "mimo_mm")


def test_dp_lm_head_assert_before_the_cp_hook() -> None:
    from tests.oracle import sglang_prefill_cp_lm_head_oracle as lm

    assert lm.compare(MIMO_LM_HEAD)[0] == "same refusal"


def test_plant_dp_lm_head_assert_after_the_cp_hook(monkeypatch: pytest.MonkeyPatch) -> None:
    from graphfit.inputs import sglang_prefill_cp_hooks as hooks

    monkeypatch.setattr(hooks, "dp_lm_head", lambda values, found: None)
    assert dsa.compare(_fresh(MIMO_LM_HEAD))[0] != "same refusal"
