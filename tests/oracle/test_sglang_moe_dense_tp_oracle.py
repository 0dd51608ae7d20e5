"""graphfit == SGLang 0.5.23 on lines with `--moe-dense-tp-size` (issue 23, s69c;
tests.oracle.sglang_moe_dense_tp): SGLang's own resolution and runners against graphfit's
plan of the same pasted line on every aspect the a2a oracle compares, plus the runners'
`global_num_tokens` entries. Before s69c graphfit refused the flag as not modelled."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_moe_a2a_compare as mc  # noqa: E402
from tests.oracle import sglang_moe_dense_tp as dt  # noqa: E402
from tests.oracle.sglang_mamba_memory_oracle import QWEN4_EXP, model_dir  # noqa: E402

LL = ("--moe-a2a-backend", "deepep", "--deepep-mode", "low_latency")
HEAD = ("--tp-size", "4", "--attn-dp-size", "2", "--enable-dp-lm-head")
FIXED = [
    # attention DP, the DP LM head and deepep: 1 turns the MLP gather off (one
    # global_num_tokens row, utils/common.py:4125-4128), the TP size keeps it
    (*LL, *HEAD, dt.FLAG, "1"),
    (*LL, *HEAD, dt.FLAG, "4"),
    # no all-to-all backend, no attention DP: a set value gathers the attention input, so the
    # ladder aligns to the TP size (:4147-4150, 4163-4175)
    ("--tp-size", "4", "--max-running-requests", "40", dt.FLAG, "1"),
    # ... and the prefill runner's: its token list rounds up to multiples of 4
    ("--tp-size", "4", "--max-running-requests", "40", "--cuda-graph-bs-prefill", "6", "10",
     "30", dt.FLAG, "1"),
    # EAGLE's draft runners read the server's value
    ("--tp-size", "2", "--max-running-requests", "24", "--speculative-algorithm", "EAGLE",
     "--speculative-num-steps", "2", "--speculative-eagle-topk", "1",
     "--speculative-num-draft-tokens", "3", "--speculative-draft-model-path", mc.model_dir(),
     dt.FLAG, "2"),
    # Qwen4-Exp's override drops 1 (model_overrides/qwen4_exp.py:50-55): aligned to 1 as
    # without the flag, where the TP size gathers and aligns to 4
    ("--model-path", model_dir(QWEN4_EXP), "--tp-size", "4", "--max-running-requests", "40",
     dt.FLAG, "1"),
    ("--model-path", model_dir(QWEN4_EXP), "--tp-size", "4", "--max-running-requests", "40",
     dt.FLAG, "4"),
]
REFUSED = [  # check_server_args: None, 1 or the TP size (validation_hook.py:207-211)
    ("--tp-size", "4", dt.FLAG, "2"),
    ("--tp-size", "2", dt.FLAG, "3"),
]


def _agree(argv: tuple[str, ...]) -> None:
    said, line = dt.verdict(argv)
    assert said == "agree", line


@pytest.mark.parametrize("argv", FIXED, ids=lambda a: " ".join(w for w in a[-6:] if "/" not in w))
def test_fixed_lines_agree(argv: tuple[str, ...]) -> None:
    """Lines SGLang starts, planned the same on every aspect."""
    assert mc.sglang(argv).rejected is None
    _agree(argv)


@pytest.mark.parametrize("argv", REFUSED, ids=lambda a: " ".join(a))
def test_values_sglang_refuses_are_refused(argv: tuple[str, ...]) -> None:
    """A value other than None, 1 or the TP size: SGLang's assert, graphfit's refusal with
    its sentence and lines."""
    sg, gf = mc.sglang(argv), mc.graphfit_cli(argv)
    assert sg.rejected is not None and "moe_dense_tp_size only supports" in str(sg.rejected)
    assert gf.rejected is not None and "moe_dense_tp_size only supports" in gf.rejected
    assert "validation_hook.py:207-211" in gf.rejected


@settings(max_examples=3, deadline=None)
@given(st.integers(0, 2**16))
def test_generated_lines_agree(seed: int) -> None:
    """The a2a oracle's draw with a value appended (every backend, TP / attention DP, the DP
    LM head, TBO, graph flags, EAGLE drafts)."""
    _agree(dt.draw(random.Random(seed)))


def test_the_flag_changes_what_sglang_captures() -> None:
    """Not vacuous: SGLang's own target runner aligns the plain TP 4 line to 4 with the value
    and to 1 without it, and keeps one `global_num_tokens` row on the DP LM head line with 1
    where it keeps two with the TP size."""
    with_flag, without = mc.sglang(FIXED[2]), mc.sglang(FIXED[2][:-2])
    assert with_flag.runners is not None and without.runners is not None
    assert (with_flag.runners["target"].alignment, without.runners["target"].alignment) == (4, 1)
    rows = []
    for argv in FIXED[:2]:
        runners = mc.sglang(argv).runners
        assert runners is not None
        rows.append(int(runners["target"].buffers["global_num_tokens_gpu"].shape[0]))
    assert rows == [1, 2]


def _no_mlp_rule(m: pytest.MonkeyPatch) -> None:
    from graphfit.planner.engines import sglang, sglang_spec_dp

    for module in (sglang, sglang_spec_dp):
        m.setattr(module, "mlp_tp_gather", lambda config: config.attn_dp_size > 1)


def _no_attn_rule(m: pytest.MonkeyPatch) -> None:
    from graphfit.planner.engines import sglang_moe_a2a

    real = sglang_moe_a2a._gathers
    m.setattr(sglang_moe_a2a, "_gathers", lambda live, tp, dp, disabled=False, dense_tp=None:
              real(live, tp, dp, disabled))


def _no_qwen4_override(m: pytest.MonkeyPatch) -> None:
    from graphfit.planner.engines import sglang

    m.setattr(sglang, "resolved_dense_tp", lambda architecture, value: value)


def _no_values_rule(m: pytest.MonkeyPatch) -> None:
    from graphfit.planner.engines import sglang_server_nodes

    m.setattr(sglang_server_nodes, "dense_problem", lambda config: None)


PLANTS: dict[str, tuple[Callable[[pytest.MonkeyPatch], None], tuple[str, ...]]] = {
    "the MLP gather ignores the value": (_no_mlp_rule, FIXED[0]),
    "the attention gather ignores the value": (_no_attn_rule, FIXED[2]),
    "any value accepted": (_no_values_rule, REFUSED[0]),
    "Qwen4-Exp keeps 1": (_no_qwen4_override, FIXED[5]),
}


@pytest.mark.parametrize("plant", sorted(PLANTS))
def test_a_planted_error_is_caught(plant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each rule broken on purpose: the line it decides differs from SGLang."""
    breaks, argv = PLANTS[plant]
    breaks(monkeypatch)
    mc.graphfit_cli.cache_clear()
    try:
        said, line = dt.verdict(argv)
    finally:
        mc.graphfit_cli.cache_clear()
    assert said == "differ", line
