"""Decode context parallelism (issue 23 s42d, s44d): SGLang 0.5.23's own resolution and decode
graph runner on `--dcp-size` 2 / 4 / 8 lines of a DeepSeek-V3-shaped MLA model and a
Llama-shaped MHA one vs graphfit's plan for the same pasted line
(tests/oracle/sglang_dcp_oracle.py): acceptance, the capture ladders (drafts included),
padding, the batch-scaled buffers' rows / dtypes and fills, the prefill-graph backend, and the
default mem_fraction_static. graphfit's "not modelled" refusals
(graphfit.planner.engines.sglang_dcp) are checked to be the precise ones, on lines SGLang
serves."""

from __future__ import annotations

import pytest

from tests.oracle.paths import require

require("sglang")

from tests.oracle import sglang_dcp_oracle as dc  # noqa: E402

MRR = ("--max-running-requests", "24")
FI = ("--attention-backend", "flashinfer")
M = "mla"
SERVED: list[dc.Case] = [
    (("--tp-size", "4", "--dcp-size", "2", *MRR, *FI), "H100", M),  # breakable prefill -> off
    (("--tp-size", "8", "--dcp-size", "8", "--max-running-requests", "48",
      "--attention-backend", "triton", "--cuda-graph-max-bs-decode", "16"), "A100", M),
    (("--tp-size", "4", "--dcp-size", "4", *MRR, "--attention-backend", "fa3",
      "--disable-cuda-graph-padding"), "H100", M),
    (("--tp-size", "2", "--dcp-size", "2", "--max-running-requests", "8",
      "--attention-backend", "flashmla", "--cuda-graph-backend-prefill", "full"), "H100", M),
    # a prefill backend given is locked: DCP's rule does not turn it off
    # (cuda_graph_hook.py:143-144)
    (("--tp-size", "4", "--dcp-size", "2", *MRR, *FI, "--cuda-graph-backend-prefill",
      "breakable", "--dcp-comm-backend", "ag_rs"), "A100", M),
    # the memory hook's default max_bs by TP, not TP / DCP (memory_hook.py:89-188)
    (("--tp-size", "4", "--dcp-size", "4", "--max-running-requests", "600", *FI), "H100", M),
    # EAGLE topk 4 and NEXTN: the draft runners read no DCP state (sglang/srt/speculative/)
    (("--tp-size", "4", "--dcp-size", "2", "--max-running-requests", "48", *FI,
      *dc.DRAFTS[1]), "A100", M),
    (("--tp-size", "4", "--dcp-size", "2", "--max-running-requests", "48", "--attention-backend",
      "triton", *dc.DRAFTS[2]), "H100", M),
    # unified memory's DCP path (kv_cache_hook.py:719-761), refused as not modelled by s41u
    (("--tp-size", "2", "--dcp-size", "2", *MRR, *FI, "--enable-unified-memory"), "H100", M),
]
FI_A2A: dc.Case = (("--tp-size", "4", "--dcp-size", "2", *MRR, *FI, "--dcp-comm-backend",
                    "fi_a2a"), "H100", M)
L = "llama"
MTT = ("--max-total-tokens", "40")  # 20 requests: below --max-running-requests 24
# issue 23 s44d: MHA models, the request pool over per-rank rows, and more drafts
SERVED_S44D: list[dc.Case] = [
    (("--tp-size", "4", "--dcp-size", "2", *MRR, *FI), "H100", L),
    (("--tp-size", "8", "--dcp-size", "4", *MRR, "--attention-backend", "triton", *MTT),
     "A100", L),
    (("--tp-size", "4", "--dcp-size", "4", *MRR, "--attention-backend", "fa3",
      "--cuda-graph-backend-prefill", "breakable"), "H100", L),
    (("--tp-size", "2", "--dcp-size", "2", *MRR, "--attention-backend", "fa3",
      "--dcp-comm-backend", "a2a"), "H100", L),
    (("--tp-size", "4", "--dcp-size", "2", *MRR, *FI, *dc.DRAFTS[3]), "H100", M),
    (("--tp-size", "4", "--dcp-size", "2", *MRR, "--attention-backend", "triton",
      *dc.DRAFTS[4]), "A100", L),
    (("--tp-size", "4", "--dcp-size", "2", *MRR, *FI, *dc.DRAFTS[5]), "H100", M),
    (("--tp-size", "4", "--dcp-size", "2", *MRR, *FI, *dc.model_drafts()[0]), "H100", L),
    (("--tp-size", "4", "--dcp-size", "4", *MRR, "--attention-backend", "fa3",
      *dc.model_drafts()[1]), "H100", L),
    (("--tp-size", "4", "--dcp-size", "2", *MRR, *FI, *MTT, *dc.DRAFTS[0]), "A100", M),
    (("--tp-size", "4", "--dcp-size", "2", *MRR, "--attention-backend", "triton",
      *dc.DRAFTS[6]), "H100", M),
    # TP 1 under --dcp-size 2: SGLang's resolution serves it, and UNO needs TP 1
    (("--tp-size", "1", "--dcp-size", "2", *MRR, "--attention-backend", "fa3",
      *dc.DRAFTS[7]), "H100", L),
    (("--tp-size", "4", "--dcp-size", "2", *MRR, "--attention-backend", "fa3",
      *dc.model_drafts()[2]), "A100", M),
    (("--tp-size", "4", "--dcp-size", "4", *MRR, *FI, *dc.model_drafts()[3]), "H100", L),
    # Blackwell: the default decode backend is trtllm_mla for the MLA model; cutedsl_mla with
    # a draft; an MHA model with a draft and no backend named (trtllm_mla's refusal is MLA's)
    (("--tp-size", "4", "--dcp-size", "2", *MRR, "--dcp-comm-backend", "a2a"), "B200", M),
    (("--tp-size", "4", "--dcp-size", "2", *MRR, "--dcp-comm-backend", "ag_rs",
      "--attention-backend", "cutedsl_mla", *dc.DRAFTS[2]), "B200", M),
    (("--tp-size", "4", "--dcp-size", "2", *MRR, "--dcp-comm-backend", "a2a",
      *dc.DRAFTS[0]), "B200", L),
]


@pytest.mark.parametrize("case", SERVED + SERVED_S44D, ids=range(len(SERVED + SERVED_S44D)))
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


def test_fi_a2a_off_sm100_refused_with_sglangs_reason() -> None:
    """SGLang resolves fi_a2a on a Hopper but its runner refuses to start
    (layers/dcp/comm.py:435-448); graphfit refuses with that reason, not "not modelled"."""
    assert dc.compare(FI_A2A)[0] == "both refuse"
    gf, _ = dc.graphfit_answer(FI_A2A)
    assert gf.rejected is not None and dc.NOT_MODELLED not in gf.rejected
    assert "comm.py:435-448" in gf.rejected


REFUSED: list[dc.Case] = [
    # trtllm_mla (SM100's default for the MLA model) with a draft: its factory refuses
    # (attention_registry.py:99-105), run by the oracle (sglang_dcp_oracle._trtllm_mla_start)
    (("--tp-size", "4", "--dcp-size", "2", *MRR, "--dcp-comm-backend", "a2a", *dc.DRAFTS[0]),
     "B200", M),
    (("--tp-size", "4", "--dcp-size", "2", *MRR, "--attention-backend", "cutedsl_mla"),
     "H100", M),  # overrides.py:1244-1247
    (("--tp-size", "8", "--dcp-size", "4", *MRR, "--attention-backend", "trtllm_mla"),
     "A100", M),  # overrides.py:1208-1213
]


@pytest.mark.parametrize("case", REFUSED, ids=range(len(REFUSED)))
def test_refusals_carry_sglangs_reason(case: dc.Case) -> None:
    outcome, said = dc.compare(case)
    assert outcome == "both refuse" and dc.NOT_MODELLED not in said[0], said


@pytest.mark.parametrize("gpu,tp,where", [("80", "4", "cannot name"),
                                           ("B200", "4", "4 TP ranks/node, --dcp-size 8")])
def test_fi_a2a_possible_is_not_modelled(gpu: str, tp: str, where: str) -> None:
    """A GPU given in GiB could be SM100, where SGLang picks fi_a2a by default
    (overrides.py:1373-1396); on a B200 whose TP per node does not divide by --dcp-size an
    NVLink fabric decides (utils/common.py:1038-1064), which the name does not tell: the
    oracle's fabric-less B200 resolves a2a there, and its runner refuses fi_a2a named."""
    for comm in ((), ("--dcp-comm-backend", "fi_a2a")):
        case = (("--tp-size", tp, "--dcp-size", "8", *MRR, *FI, *comm), gpu, M)
        gf, _ = dc.graphfit_answer(case)
        assert gf.rejected is not None and "fi_a2a" in gf.rejected, gf.rejected
        assert dc.NOT_MODELLED in gf.rejected and where in gf.rejected
        if gpu == "B200":
            sg = dc.sglang_answer(case)
            assert (sg.rejected is None) == (not comm), sg.rejected


# issue 23 s47d: fi_a2a on SM100, where SGLang resolves and starts it (TP per node divides)
B = "B200"
SERVED_S47D: list[dc.Case] = [
    (("--tp-size", "4", "--dcp-size", "2", *MRR), B, M),  # default: fi_a2a, trtllm_mla
    (("--tp-size", "8", "--dcp-size", "8", *MRR, "--attention-backend", "flashinfer"), B, L),
    (("--tp-size", "4", "--dcp-size", "4", *MRR, "--dcp-comm-backend", "fi_a2a",
      "--attention-backend", "cutedsl_mla", *dc.DRAFTS[2]), B, M),
    # 8 TP ranks over 2 nodes: 4 per node divide by --dcp-size 4 (utils/common.py:1062)
    (("--tp-size", "8", "--dcp-size", "4", *MRR, "--nnodes", "2", *dc.DRAFTS[0]), B, L),
]
# the same TP over 2 nodes no longer divides by --dcp-size 8: fabric-dependent
NODES: dc.Case = (("--tp-size", "8", "--dcp-size", "8", *MRR, "--nnodes", "2"), B, L)


@pytest.mark.parametrize("case", SERVED_S47D, ids=range(len(SERVED_S47D)))
def test_fi_a2a_lines_agree(case: dc.Case) -> None:
    outcome, diffs = dc.compare(case)
    assert outcome == "agree", diffs


def test_fi_a2a_lines_are_not_vacuous() -> None:
    """SGLang resolves fi_a2a on each of them and the plan shows the workspace; --nnodes
    decides: the same 8 TP ranks over 2 nodes with --dcp-size 8 resolve a2a in SGLang, and
    graphfit refuses that line as not modelled instead of planning fi_a2a."""
    from graphfit.planner.engines.sglang_dcp import comm_backend

    for case in SERVED_S47D:
        sg, (gf, _) = dc.sglang_answer(case), dc.graphfit_answer(case)
        assert dc.comm_backends(sg, gf) == ("fi_a2a", "fi_a2a")
        shown = dict(gf.plan.engine_inputs)["dcp_comm_backend"]
        assert shown.startswith("fi_a2a: FlashInfer MNNVL workspace"), shown
    sg, (gf, _) = dc.sglang_answer(NODES), dc.graphfit_answer(NODES)
    from sglang.srt.arg_groups.overrides import resolving_view

    assert isinstance(sg.resolved, dc.so.Resolved)
    assert resolving_view(sg.resolved.record).dcp_comm_backend == "a2a"
    assert gf.rejected is not None and "4 TP ranks/node" in gf.rejected
    a2a = ((*NODES[0], "--dcp-comm-backend", "a2a"), B, L)
    assert dc.compare(a2a)[0] == "agree"
    assert comm_backend(dc.graphfit_answer(a2a)[0].plan.config) == "a2a"


def test_comm_backend_without_dcp_refused_with_sglangs_reason() -> None:
    """`--dcp-comm-backend a2a` / `fi_a2a` at --dcp-size 1 (parallel_hook.py:251-257)."""
    for comm in ("a2a", "fi_a2a"):
        outcome, said = dc.compare((("--tp-size", "4", *MRR, "--dcp-comm-backend", comm),
                                    "H100", M))
        assert outcome == "both refuse" and "parallel_hook.py:251-257" in said[0], said


def test_s44d_lines_are_served_and_not_vacuous() -> None:
    """Non-vacuity of SERVED_S44D on SGLang's side: every line is served; the
    --max-total-tokens lines' request pool is the per-rank rows' bound (40 // 2 = 20 < 24,
    kv_cache_configurator.py:3119-3133), not the DCP-widened one (:406-415); the multi-layer
    EAGLE line resolves it on and captures its composite draft-extend runner; EAGLE3 and
    STANDALONE bring their draft runners, DFLASH and DSPARK theirs."""
    from sglang.srt.arg_groups.overrides import resolving_view

    answers = [dc.sglang_answer(case) for case in SERVED_S44D]
    assert all(a.rejected is None and a.runners for a in answers), [a.rejected for a in answers]
    assert [a.runners["target"].pool_size for a in (answers[1], answers[9])] == [20, 20]  # type: ignore[index]
    multi = answers[6]
    assert isinstance(multi.resolved, dc.so.Resolved)
    assert resolving_view(multi.resolved.record).enable_multi_layer_eagle is True
    assert multi.runners is not None and "mtp_draft_extend" in multi.runners
    assert all(a.runners is not None and "draft" in a.runners for a in answers[7:9])
    assert answers[12].runners is not None and "dflash_draft" in answers[12].runners
    assert answers[13].runners is not None and "dspark_draft" in answers[13].runners


FRACTION: list[tuple[dc.Case, str | None]] = [
    (SERVED_S44D[0], "1"),  # default prefill: DCP's rule leaves none for the hook
    (SERVED_S44D[2], "1"),  # breakable given: post-capture declines under DCP (:1807-1808)
    (SERVED_S44D[2], None),
    (SERVED[0], None),  # MLA: the hook's prefill rule alone
    (SERVED[4], "1"),
]


@pytest.mark.parametrize("case,env", FRACTION, ids=range(len(FRACTION)))
def test_default_fraction_agrees(case: dc.Case, env: str | None) -> None:
    theirs, ours, _ = dc.fraction(case, env)
    assert theirs is not None and ours == theirs, (theirs, ours)


def test_fraction_grid_is_not_vacuous() -> None:
    """Without --dcp-size the same MHA line with breakable prefill graphs given is sized after
    capture (SGLang's own answer), and DCP's default line differs from the same line without
    DCP: both rules decide something on the grid."""
    argv, gpu, model = SERVED_S44D[2]
    plain = tuple(a for a in argv if a not in ("--dcp-size",))
    plain = plain[:2] + plain[3:]  # drop --dcp-size's value too
    assert "--dcp-size" not in plain and plain[1] == "4"
    _, _, asked = dc.fraction((plain, gpu, model), "1")
    assert asked is True
    _, _, asked_dcp = dc.fraction(SERVED_S44D[2], "1")
    assert asked_dcp is False
    argv0, gpu0, model0 = SERVED_S44D[0]
    without = argv0[:2] + argv0[4:]
    assert "--dcp-size" not in without
    assert dc.fraction((without, gpu0, model0), "1")[0] != dc.fraction(SERVED_S44D[0], "1")[0]


@pytest.mark.parametrize("case", dc.generate(6, 23, plain=True), ids=range(6))
def test_generated_lines(case: dc.Case) -> None:
    outcome, diffs = dc.compare(case)
    assert outcome in ("agree", "both refuse"), diffs


# issue 23 s47d: Kimi-K3's own DCP branch (kimi_k3.py:54-120), with FlashInfer 0.6.17's
# signature given to its check (sglang_dcp_oracle.flashinfer_decode)
K = dc.KIMI
KIMI_SERVED: list[dc.Case] = [
    (("--tp-size", "4", "--dcp-size", "2", *MRR), B, K),  # decode cutedsl_mla, prefill trtllm_mla
    (("--tp-size", "8", "--dcp-size", "4", *MRR, "--decode-attention-backend", "cutedsl_mla",
      "--dcp-comm-backend", "a2a"), B, K),
    (("--tp-size", "4", "--dcp-size", "4", *MRR, "--attention-backend", "cutedsl_mla",
      "--prefill-attention-backend", "flashinfer"), B, K),
]
KIMI_REFUSED: list[tuple[dc.Case, str]] = [
    ((("--tp-size", "4", "--dcp-size", "2", *MRR, *FI), B, K), "kimi_k3.py:109-112"),
    ((("--tp-size", "4", "--dcp-size", "2", *MRR, "--decode-attention-backend", "trtllm_mla"),
      B, K), "kimi_k3.py:109-112"),
    # off SM100 its cutedsl_mla decode is refused (overrides.py:1244-1247)
    ((("--tp-size", "4", "--dcp-size", "2", *MRR), "H100", K), "overrides.py:1244-1247"),
]


@pytest.mark.parametrize("case", KIMI_SERVED, ids=range(len(KIMI_SERVED)))
def test_kimi_k3_dcp_lines_agree(case: dc.Case) -> None:
    outcome, diffs = dc.compare(case)
    assert outcome == "agree", diffs


@pytest.mark.parametrize("case,where", KIMI_REFUSED, ids=range(len(KIMI_REFUSED)))
def test_kimi_k3_dcp_refusals_carry_sglangs_reason(case: dc.Case, where: str) -> None:
    outcome, said = dc.compare(case)
    assert outcome == "both refuse" and where in said[0], said


def test_kimi_k3_dcp_is_not_vacuous() -> None:
    """SGLang's override resolves Kimi-K3's DCP backends (prefill trtllm_mla, decode
    cutedsl_mla) on the first served line, and without the FlashInfer stand-in its own check
    refuses: the glue decides nothing but that check."""
    from sglang.srt.arg_groups.model_override_base import attention_backends_of
    from sglang.srt.arg_groups.overrides import resolving_view

    from tests.oracle import sglang_post_capture_oracle as pc

    sg = dc.sglang_answer(KIMI_SERVED[0])
    assert isinstance(sg.resolved, dc.so.Resolved)
    assert attention_backends_of(resolving_view(sg.resolved.record)) == (
        "trtllm_mla", "cutedsl_mla")
    argv, gpu, model = KIMI_SERVED[0]
    gb, capability = dc.GPUS[gpu]
    with pc.environment(None):
        bare = dc.so.resolve(argv, gpu_mem_gb=gb, model=dc.model_path(model),
                             capability=capability)
    assert isinstance(bare, dc.so.Rejected) and "enable_dcp" in bare.text


def test_kimi_k3_dcp_draft_adds_no_difference() -> None:
    """Kimi-K3 under DCP with an EAGLE draft: SGLang serves it (its decode backend is
    cutedsl_mla, so trtllm_mla's DCP + draft refusal does not apply, attention_registry.py:
    99-105) and graphfit plans it; its comparison is the same line's without DCP, so DCP adds
    no difference (the draft-extend runner's mamba_track_indices, once the one difference of
    both, is planned since s48l: tests/oracle/test_sglang_mamba_track_draft_oracle.py)."""
    dcp = (("--tp-size", "4", "--dcp-size", "2", *MRR, "--dcp-comm-backend", "a2a",
            *dc.DRAFTS[0]), B, K)
    plain = (("--tp-size", "4", *MRR, *dc.DRAFTS[0]), B, K)
    assert dc.sglang_answer(dcp).rejected is None
    assert dc.graphfit_answer(dcp)[0].rejected is None
    assert dc.compare(dcp)[1] == dc.compare(plain)[1]
