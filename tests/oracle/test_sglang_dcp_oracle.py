"""Decode context parallelism (issue 23 s42d): SGLang 0.5.23's own resolution and decode graph
runner on `--dcp-size` 2 / 4 / 8 lines of a DeepSeek-V3-shaped MLA model vs graphfit's plan
for the same pasted line (tests/oracle/sglang_dcp_oracle.py): acceptance, the capture ladder,
padding, the batch-scaled buffers' rows / dtypes and fills, and the prefill-graph backend.
graphfit's "not modelled" refusals (graphfit.planner.engines.sglang_dcp) are checked to be the
precise ones, on lines SGLang serves."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_dcp_oracle as dc  # noqa: E402

MRR = ("--max-running-requests", "24")
FI = ("--attention-backend", "flashinfer")
SERVED: list[dc.Case] = [
    (("--tp-size", "4", "--dcp-size", "2", *MRR, *FI), "H100"),  # breakable prefill -> off
    (("--tp-size", "8", "--dcp-size", "8", "--max-running-requests", "48",
      "--attention-backend", "triton", "--cuda-graph-max-bs-decode", "16"), "A100"),
    (("--tp-size", "4", "--dcp-size", "4", *MRR, "--attention-backend", "fa3",
      "--disable-cuda-graph-padding"), "H100"),
    (("--tp-size", "2", "--dcp-size", "2", "--max-running-requests", "8",
      "--attention-backend", "flashmla", "--cuda-graph-backend-prefill", "full"), "H100"),
    # a prefill backend given is locked: DCP's rule does not turn it off
    # (cuda_graph_hook.py:143-144)
    (("--tp-size", "4", "--dcp-size", "2", *MRR, *FI, "--cuda-graph-backend-prefill",
      "breakable", "--dcp-comm-backend", "ag_rs"), "A100"),
    # the memory hook's default max_bs by TP, not TP / DCP (memory_hook.py:89-188)
    (("--tp-size", "4", "--dcp-size", "4", "--max-running-requests", "600", *FI), "H100"),
    # EAGLE topk 4 and NEXTN: the draft runners read no DCP state (sglang/srt/speculative/)
    (("--tp-size", "4", "--dcp-size", "2", "--max-running-requests", "48", *FI,
      *dc.DRAFTS[1]), "A100"),
    (("--tp-size", "4", "--dcp-size", "2", "--max-running-requests", "48", "--attention-backend",
      "triton", *dc.DRAFTS[2]), "H100"),
    # unified memory's DCP path (kv_cache_hook.py:719-761), refused as not modelled by s41u
    (("--tp-size", "2", "--dcp-size", "2", *MRR, *FI, "--enable-unified-memory"), "H100"),
]
FI_A2A: dc.Case = (("--tp-size", "4", "--dcp-size", "2", *MRR, *FI, "--dcp-comm-backend",
                    "fi_a2a"), "H100")
NOT_MODELLED: list[tuple[dc.Case, str]] = [
    ((("--tp-size", "2", "--dcp-size", "2", *MRR, *FI, *dc.DRAFTS[3]), "H100"),
     "kv_cache_configurator.py:515-522"),
]


@pytest.mark.parametrize("case", SERVED, ids=range(len(SERVED)))
def test_served_lines_agree(case: dc.Case) -> None:
    outcome, diffs = dc.compare(case)
    assert outcome == "agree", diffs


def test_served_lines_are_served_and_differ_in_prefill() -> None:
    """Non-vacuity: SGLang serves the grid's lines, and DCP's rule turns the default breakable
    prefill graphs off (the first line) where a given backend stays (the fifth)."""
    first, fifth = (dc.sglang_answer(SERVED[i]) for i in (0, 4))
    assert first.rejected is None and fifth.rejected is None
    assert first.runners and "target" in first.runners
    assert (dc._prefill(first), dc._prefill(fifth)) == ("disabled", "breakable")


@pytest.mark.parametrize("case,where", NOT_MODELLED, ids=range(len(NOT_MODELLED)))
def test_not_modelled_refusals_are_precise(case: dc.Case, where: str) -> None:
    """SGLang's resolution serves these lines; graphfit refuses them as not modelled, naming
    the source that decides the part it cannot restate."""
    assert dc.sglang_answer(case).resolved.__class__.__name__ == "Resolved"
    gf, _ = dc.graphfit_answer(case)
    assert gf.rejected is not None and dc.NOT_MODELLED in gf.rejected, gf.rejected
    assert where in gf.rejected


def test_fi_a2a_off_sm100_refused_with_sglangs_reason() -> None:
    """SGLang resolves fi_a2a on a Hopper but its runner refuses to start
    (layers/dcp/comm.py:435-448); graphfit refuses with that reason, not "not modelled"."""
    assert dc.compare(FI_A2A)[0] == "both refuse"
    gf, _ = dc.graphfit_answer(FI_A2A)
    assert gf.rejected is not None and dc.NOT_MODELLED not in gf.rejected
    assert "comm.py:435-448" in gf.rejected


REFUSED: list[dc.Case] = [
    (("--tp-size", "4", "--dcp-size", "2", *MRR, "--attention-backend", "cutedsl_mla"),
     "H100"),  # overrides.py:1244-1247
    (("--tp-size", "8", "--dcp-size", "4", *MRR, "--attention-backend", "trtllm_mla"),
     "A100"),  # overrides.py:1208-1213
]


@pytest.mark.parametrize("case", REFUSED, ids=range(len(REFUSED)))
def test_refusals_carry_sglangs_reason(case: dc.Case) -> None:
    outcome, said = dc.compare(case)
    assert outcome == "both refuse" and dc.NOT_MODELLED not in said[0], said


@pytest.mark.parametrize("gpu,where", [("80", "cannot name"), ("B200", "SM100 GPU")])
def test_fi_a2a_possible_is_not_modelled(gpu: str, where: str) -> None:
    """A GPU given in GiB could be SM100, where SGLang picks fi_a2a by default
    (overrides.py:1373-1396); on a B200 it does, and its workspace is not restated."""
    for comm in ((), ("--dcp-comm-backend", "fi_a2a")):
        gf, _ = dc.graphfit_answer((("--tp-size", "4", "--dcp-size", "2", *MRR, *FI, *comm),
                                    gpu))
        assert gf.rejected is not None and "fi_a2a" in gf.rejected, gf.rejected
        assert dc.NOT_MODELLED in gf.rejected
        if not comm:
            assert where in gf.rejected


@pytest.mark.parametrize("case", dc.generate(6, 23, plain=True), ids=range(6))
def test_generated_lines(case: dc.Case) -> None:
    outcome, diffs = dc.compare(case)
    assert outcome in ("agree", "both refuse"), diffs
