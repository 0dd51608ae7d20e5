"""Differential tests: SGLang 0.5.23's own code (tests/oracle/sglang_oracle.py) vs graphfit.

The first group checks the oracle itself against facts read in SGLang's source (so a broken
stub cannot make the comparison vacuous). The second compares graphfit's CLI and public API
with SGLang per aspect, on a fixed edge grid and on hypothesis-generated command lines, and
must show no difference at all; a failure names the aspect and the first differences
(`python tests/oracle/measure_sglang.py N` measures agreement on many more configs,
tests/oracle/SGLANG_AGREEMENT.md).

SGLang is imported and every command line resolved once per process (sglang_compare caches
both), so the grid, the aspects and the hypothesis examples share the work.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_compare as sc  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402

EAGLE = ("--speculative-algorithm", "EAGLE")
ML = "--enable-multi-layer-eagle"
# two-batch overlap needs attention DP on these dense lines (check_server_args,
# validation_hook.py:756-772; graphfit models no a2a backend on a dense target)
DP2 = ("--tp", "2", "--attn-dp-size", "2")


def spec(algo: str, steps: int, topk: int, drafts: int) -> tuple[str, ...]:
    return ("--speculative-algorithm", algo, "--speculative-num-steps", str(steps),
            "--speculative-eagle-topk", str(topk), "--speculative-num-draft-tokens", str(drafts))


def S(n: int) -> tuple[str, ...]:
    return ("--max-running-requests", str(n))


# (argv, GPU memory in GB) -- every one also read by graphfit's CLI
EDGE_GRID: list[tuple[tuple[str, ...], float | None]] = [
    (S(1), 80), (S(7), 80), (S(33), 80), (S(97), 80), (S(256), 80), (S(600), 80),
    (S(1024), 80), (S(1023), 192),
    ((*S(48), "--cuda-graph-max-bs", "32"), 80),  # old flag: ambiguous in 0.5.23
    ((*S(48), "--cuda-graph-bs", "1", "2", "4"), 80),  # old flag: ambiguous in 0.5.23
    ((*S(48), "--cuda-graph-max-bs-decode", "32"), 80),
    ((*S(48), "--cuda-graph-bs-decode", "1", "2", "4", "8"), 80),
    ((*S(33), "--cuda-graph-bs-decode", "4", "2", "64"), 80),
    ((*S(48), "--cuda-graph-config", json.dumps({"decode": {"max_bs": 24}})), 80),
    ((*S(48), "--disable-decode-cuda-graph"), 80),
    ((*S(48), "--disable-cuda-graph"), 80),
    ((*S(48), "--cuda-graph-backend-decode", "breakable"), 80),
    ((*S(20), "--disable-cuda-graph-padding"), 80),
    ((*S(33), "--tp", "4"), 80),
    # two-batch overlap without DP: refused (test_sglang_server_checks_oracle draws more)
    ((*S(33), "--tp-size", "2", "--enable-two-batch-overlap"), 80),
    ((*S(33), *DP2, "--enable-two-batch-overlap"), 80),
    ((*S(33), "--tp", "4", "--attn-dp-size", "2"), 80),
    ((*S(33), "--tp", "4", "--attn-cp-size", "2"), 80),
    ((*S(64), "--chunked-prefill-size", "4096"), 80),
    ((*S(33), *spec("EAGLE", 3, 1, 4)), 80),
    ((*S(33), *spec("EAGLE", 3, 4, 8)), 80),
    ((*S(33), *spec("EAGLE3", 5, 8, 16)), 80),
    ((*S(33), *spec("NEXTN", 2, 1, 3)), 80),
    ((*S(33), *spec("EAGLE", 3, 1, 7)), 80),  # SGLang resets drafts to steps + 1
    ((*S(33), *spec("EAGLE", 1, 1, 2)), 80),  # one step: no draft-decode runner
    ((*S(33), *spec("STANDALONE", 3, 1, 4)), 80),
    ((*S(33), *EAGLE, "--speculative-num-steps", "1"), 80),  # SGLang crashes (TypeError)
    ((*S(33), *spec("EAGLE", 3, 1, 4), *DP2, "--enable-two-batch-overlap"), 80),
    ((*S(7), "--speculative-algorithm", "NGRAM"), 80),
    ((*S(94), "--cuda-graph-bs-decode", "189", *DP2, "--enable-two-batch-overlap"), 80),  # [48]
    ((*S(200), "--cuda-graph-bs-decode", "3", *DP2, "--enable-two-batch-overlap"), 80),  # asserts
    ((*S(33), *EAGLE, "--speculative-num-steps", "3", "--speculative-eagle-topk", "4"),
     80),  # the decode runner crashes on the unset draft-token count
    ((*S(48), "--cuda-graph-max-bs-decode", "32",
      "--cuda-graph-config", json.dumps({"decode": {"max_bs": 24}})), 80),  # JSON wins
    ((*S(48), "--disable-cuda-graph", "--cuda-graph-backend-decode", "full"), 80),
    ((*S(48), "--cuda-graph-config", json.dumps({"decode": {"bs": [8, 2, 4]},
                                                 "prefill": {"backend": "disabled"}})), 80),
    ((*S(64), "--tp", "8", "--attn-dp-size", "2", "--enable-two-batch-overlap"), 141),
    ((*S(33), "--tp", "6", "--attn-dp-size", "2", "--enable-two-batch-overlap"), 80),
    ((*S(1), "--tp", "8", "--attn-dp-size", "4"), 80),  # asserts: alignment 2, pool 1
    ((*S(33), "--tp", "4", "--attn-dp-size", "3"), 80),  # not a TP split: SGLang asserts
    ((*S(33), "--speculative-algorithm", "STANDALONE", "--tp", "2", "--attn-dp-size", "2"),
     80),  # rejected: no DP attention for STANDALONE
    (("--speculative-algorithm", "NGRAM", "--tp", "2", "--attn-cp-size", "2"), None),
    ((*S(33), *spec("EAGLE3", 4, 8, 3), "--tp", "8", "--attn-dp-size", "4"), 80),
    (EAGLE, 80),  # S defaults to 48, (steps, topk, drafts) to (5, 4, 8) for Llama
    # multi-layer EAGLE: no draft-decode runner, the composite draft-extend runner
    ((*S(33), *spec("EAGLE", 3, 1, 4), ML), 80),
    ((*S(33), *spec("EAGLE3", 4, 8, 16), ML), 80),
    ((*S(20), *spec("NEXTN", 2, 1, 3), ML, "--disable-cuda-graph-padding"), 80),
    ((*S(33), *spec("EAGLE", 3, 1, 4), ML, "--tp", "4", "--attn-dp-size", "2"), 80),
    ((*S(33), *spec("STANDALONE", 3, 1, 4), ML), 80),  # ignored: not is_eagle()
    ((*EAGLE, ML), 80),  # the Llama defaults (5, 4, 8)
    # FROZEN_KV_MTP: the frozen draft loop (width topk), no draft-extend runner
    ((*S(33), *spec("FROZEN_KV_MTP", 3, 1, 4)), 80),
    ((*S(33), *spec("FROZEN_KV_MTP", 3, 2, 6)), 80),
    ((*S(33), *spec("FROZEN_KV_MTP", 3, 1, 7)), 80),  # no steps + 1 adjustment
    ((*S(20), *spec("FROZEN_KV_MTP", 2, 4, 8), "--disable-cuda-graph-padding"), 80),
    ((*S(33), *spec("FROZEN_KV_MTP", 3, 1, 4), "--tp", "4", "--attn-dp-size", "2"), 80),
    ((*S(33), *spec("FROZEN_KV_MTP", 3, 1, 4), ML), 80),  # ignored (spec_info.py:343)
    ((*S(33), *spec("FROZEN_KV_MTP", 3, 1, 4), "--disable-cuda-graph"), 80),
    ((*S(33), "--speculative-algorithm", "FROZEN_KV_MTP"), 80),  # no defaults: crashes
    ((), 80),  # S from the KV pool; decode max_bs 256
    ((), 16), ((), 30), (("--tp", "4"), 30), ((), 50), (("--tp", "4"), 50), ((), 141),
    ((), 192), ((), None),
]
IDS = [f"{' '.join(a) or '-'}@{g}GB" for a, g in EDGE_GRID]
ACCEPTED = [(a, g) for a, g in EDGE_GRID if sc.sglang(a, g).rejected is None]
ACCEPTED_IDS = [f"{' '.join(a) or '-'}@{g}GB" for a, g in ACCEPTED]


def _fail(diffs: list[sc.Difference], limit: int = 8) -> None:
    if diffs:
        lines = [str(d) for d in diffs[:limit]]
        if len(diffs) > limit:
            lines.append(f"... {len(diffs) - limit} more")
        pytest.fail("\n".join(lines), pytrace=False)


# ---------------------------------------------------------------------------------------
# The oracle reproduces what SGLang's source says (guards against vacuous stubs)
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(("gb", "tp", "max_bs"), [
    (16, 1, 8), (30, 1, 48), (30, 4, 160), (50, 1, 32), (50, 4, 160), (80, 1, 256),
    (80, 4, 512), (141, 1, 256), (141, 8, 512), (192, 1, 512), (None, 1, 160)])
def test_oracle_memory_default_max_bs(gb: float | None, tp: int, max_bs: int) -> None:
    """memory_hook.py:89-180: decode max_bs by GPU memory and TP."""
    r = so.resolve(("--tp", str(tp)), gpu_mem_gb=gb)
    assert isinstance(r, so.Resolved), r
    assert r.decode_max_bs == max_bs


def test_oracle_clamps_default_max_bs_to_running_requests_only_when_given() -> None:
    """memory_hook.py:182-188 runs before the speculative hook sets S=48."""
    assert so.resolve(S(33)).decode_max_bs == 33
    r = so.resolve(EAGLE)
    assert (r.max_running_requests, r.decode_max_bs) == (48, 256)
    assert so.runners(r)["target"].capture_bs[-1] == 48  # the runner clamps to the pool


def test_oracle_speculative_defaults() -> None:
    """speculative_hook.py:1087-1092 (S=48), :1439-1440 (Llama (5,4,8)), :1310-1321 (NGRAM)."""
    r = so.resolve(EAGLE)
    assert (r.speculative_num_steps, r.speculative_eagle_topk,
            r.speculative_num_draft_tokens) == (5, 4, 8)
    ngram = so.resolve(("--speculative-algorithm", "NGRAM"))
    assert ngram.speculative_num_draft_tokens == 12 and ngram.max_running_requests == 48
    topk1 = so.resolve(spec("EAGLE", 3, 1, 7))
    assert topk1.speculative_num_draft_tokens == 4  # :1258-1266 steps + 1


def test_oracle_rejects_old_flags_as_ambiguous() -> None:
    for flag in ("--cuda-graph-max-bs", "--cuda-graph-bs"):
        r = so.resolve((flag, "8"))
        assert isinstance(r, so.Rejected) and "ambiguous option" in r.text, r


def test_oracle_alignment_and_widths() -> None:
    """base_cuda_graph_runner.py:83-104, utils/common.py:4163-4175."""
    run = so.runners(so.resolve((*S(66), *DP2, "--enable-two-batch-overlap")))
    # a pool of 33 per attention-DP group, ceil-aligned to 34 (:93)
    assert run["target"].alignment == 2 and run["target"].capture_bs[-1] == 34
    run = so.runners(so.resolve((*S(33), "--tp", "4", "--attn-dp-size", "2")))
    assert run["target"].alignment == 2 and run["target"].pool_size == 16
    run = so.runners(so.resolve((*S(33), *spec("EAGLE", 3, 4, 8))))
    assert {n: r.width for n, r in run.items()} == {"target": 8, "draft": 4, "draft_extend": 8}
    assert run["draft"].buffers["out_cache_loc"].shape == (33 * 4 * 3,)
    assert run["draft_extend"].buffers["hidden_states"].shape == (33 * 8, 4096)
    assert "draft" not in so.runners(so.resolve((*S(33), *spec("EAGLE", 1, 1, 2))))
    # the pool is ceil-aligned (:93) and appended: a graph ABOVE max_running_requests
    run = so.runners(so.resolve((*S(94), "--cuda-graph-bs-decode", "189", *DP2,
                                 "--enable-two-batch-overlap")))
    assert run["target"].capture_bs == (48,)
    with pytest.raises(AssertionError, match="capture_bs"):  # :104, nothing survives
        so.runners(so.resolve((*S(200), "--cuda-graph-bs-decode", "3", *DP2,
                               "--enable-two-batch-overlap")))


def test_oracle_target_buffers() -> None:
    """runner_utils/buffers.py:158-174 and the registry's policies (registry.py:630-681)."""
    run = so.runners(so.resolve(S(33)))["target"]
    b = run.buffers
    assert b["seq_lens"].dtype == "int64" and b["seq_lens"].policy == "fill_sentinel"
    assert b["mrope_positions"].shape == (3, 33) and b["input_embeds"].shape == (33, 4096)
    assert b["input_ids"].policy == "foreach_copy" and b["positions"].policy == "zero"
    assert so.pad_to_bucket(13, run.capture_bs) == 16


def test_oracle_multi_layer_eagle() -> None:
    """multi_layer_eagle_worker_v2.py:417-452 and multi_layer_eagle_draft_extend_cuda_graph_
    runner.py:655-760, built by SGLang's own constructor; the padded tail as SGLang's own
    prepare kernel leaves it (kernels/ops/speculative/multi_layer_eagle.py:733-796)."""
    run = so.runners(so.resolve((*S(33), *spec("EAGLE", 3, 1, 4), ML)))
    assert set(run) == {"target", "mtp_draft_extend"}
    mtp = run["mtp_draft_extend"]
    assert mtp.width == 4 and mtp.capture_bs == run["target"].capture_bs
    assert len(mtp.live.runners) == 3  # one runner per draft step
    b = mtp.buffers
    assert b["seq_lens"].dtype == "int32" and b["input_ids"].shape == (33 * 4,)
    assert b["next_token_logits_buffer"].shape == (33, 128256)
    assert b["hidden_states"].shape == (33 * 4, 4096)
    fills = so.mtp_padding_fills(4, 1)
    assert fills["num_accept_tokens"] == "sentinel(-1)" and fills["seq_lens"] == "sentinel"
    assert fills["out_cache_loc"] == "keep" and fills["select_index"] == "computed"


def test_oracle_frozen_kv_mtp() -> None:
    """frozen_kv_mtp_worker_v2.py:179-183, 380-399 and frozen_kv_mtp_cuda_graph_runner.py:
    90-188, built by SGLang's own constructor; the padded tail as its own `execute` leaves it
    (:413-447)."""
    run = so.runners(so.resolve((*S(33), *spec("FROZEN_KV_MTP", 3, 2, 6))))
    assert set(run) == {"target", "frozen_drafter"}
    frozen = run["frozen_drafter"]
    assert frozen.width == 2 and run["target"].width == 6
    b = frozen.buffers
    assert b["seq_lens"].shape == (33 * 2,) and b["hidden_states"].shape == (33, 4096)
    assert b["topk_index"].shape == (33, 2) and b["bonus_tokens"].dtype == "int64"
    fills = so.frozen_padding_fills(frozen, 9)  # 9 pads to 10
    assert fills["req_pool_indices"] == "zero" and fills["seq_lens"] == "sentinel"
    assert fills["hidden_states"] == "keep" and fills["mrope_positions"] == "keep"
    assert so.frozen_padding_fills(frozen, 10) == {}  # an exact size: nothing padded


# ---------------------------------------------------------------------------------------
# graphfit vs SGLang (expected to fail where graphfit's model is incomplete)
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(("argv", "gb"), EDGE_GRID, ids=IDS)
def test_cli_acceptance(argv: tuple[str, ...], gb: float | None) -> None:
    """graphfit's CLI accepts exactly the command lines SGLang accepts."""
    _fail(sc.compare_cli(argv, gb)["acceptance"])


@pytest.mark.parametrize(("argv", "gb"), EDGE_GRID, ids=IDS)
def test_cli_target_ladder(argv: tuple[str, ...], gb: float | None) -> None:
    """Where both accept the same argv, graphfit's ladder is SGLang's (defaults included)."""
    _fail(sc.compare_cli(argv, gb).get("cli_target_ladder", []))


def _model(argv: tuple[str, ...], gb: float | None, aspect: str) -> None:
    diffs = sc.compare_model(sc.sglang(argv, gb), extra_buffers=True)
    _fail(diffs.get("translated_acceptance", []) + diffs.get(aspect, []))


@pytest.mark.parametrize(("argv", "gb"), ACCEPTED, ids=ACCEPTED_IDS)
def test_target_ladder(argv: tuple[str, ...], gb: float | None) -> None:
    _model(argv, gb, "target_ladder")


@pytest.mark.parametrize(("argv", "gb"), ACCEPTED, ids=ACCEPTED_IDS)
def test_decode_padding(argv: tuple[str, ...], gb: float | None) -> None:
    """Every decode batch 1..S pads to the same size (or runs eagerly) in both."""
    _model(argv, gb, "target_padding")


@pytest.mark.parametrize(("argv", "gb"), ACCEPTED, ids=ACCEPTED_IDS)
def test_draft_ladders(argv: tuple[str, ...], gb: float | None) -> None:
    """The EAGLE draft and draft-extend runners filter with width 1: their own ladders."""
    _model(argv, gb, "draft_ladder")


@pytest.mark.parametrize(("argv", "gb"), ACCEPTED, ids=ACCEPTED_IDS)
def test_draft_padding(argv: tuple[str, ...], gb: float | None) -> None:
    _model(argv, gb, "draft_padding")


@pytest.mark.parametrize(("argv", "gb"), ACCEPTED, ids=ACCEPTED_IDS)
def test_components(argv: tuple[str, ...], gb: float | None) -> None:
    """graphfit plans one component per SGLang graph runner (draft-extend included)."""
    _model(argv, gb, "components")


@pytest.mark.parametrize(("argv", "gb"), ACCEPTED, ids=ACCEPTED_IDS)
def test_buffer_shapes_and_dtypes(argv: tuple[str, ...], gb: float | None) -> None:
    _model(argv, gb, "buffers")


@pytest.mark.parametrize(("argv", "gb"), ACCEPTED, ids=ACCEPTED_IDS)
def test_padding_fills(argv: tuple[str, ...], gb: float | None) -> None:
    _model(argv, gb, "fills")


ALGOS = ("EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "NGRAM", "FROZEN_KV_MTP")


@st.composite
def command_lines(draw: st.DrawFn) -> tuple[tuple[str, ...], float | None]:
    argv: list[str] = []
    if draw(st.integers(0, 4)) > 0:  # mostly given; omitted: SGLang derives it
        argv += S(draw(st.sampled_from((draw(st.integers(1, 1024)), draw(st.integers(1, 64))))))
    algo = draw(st.sampled_from((None, *ALGOS)))
    if algo is not None:
        argv += ["--speculative-algorithm", algo]
        # FROZEN_KV_MTP has no defaults: without them SGLang starts only with every graph
        # off (no runner reads them), a line graphfit refuses (docs/engines/sglang-coverage.md)
        if algo != "NGRAM" and (algo == "FROZEN_KV_MTP" or draw(st.booleans())):
            steps = draw(st.integers(1, 8))
            topk = draw(st.sampled_from((1, 1, 2, 4, 8)))
            drafts = steps + 1 if topk == 1 else draw(st.integers(2, 32))
            argv += ["--speculative-num-steps", str(steps), "--speculative-eagle-topk",
                     str(topk), "--speculative-num-draft-tokens", str(drafts)]
    graphs = draw(st.sampled_from(("default", "max_bs", "bs", "padding_off", "off", "json",
                                   "backend", "old")))
    if graphs == "max_bs":
        argv += ["--cuda-graph-max-bs-decode", str(draw(st.integers(1, 600)))]
    elif graphs == "bs":
        sizes = draw(st.lists(st.integers(1, 300), min_size=1, max_size=6, unique=True))
        argv += ["--cuda-graph-bs-decode", *map(str, sizes)]
    elif graphs == "padding_off":
        argv.append("--disable-cuda-graph-padding")
    elif graphs == "off":
        argv.append(draw(st.sampled_from(("--disable-decode-cuda-graph",
                                          "--disable-cuda-graph"))))
    elif graphs == "json":
        key = draw(st.sampled_from(("max_bs", "bs")))
        value = (draw(st.integers(1, 300)) if key == "max_bs"
                 else draw(st.lists(st.integers(1, 300), min_size=1, max_size=4)))
        argv += ["--cuda-graph-config", json.dumps({"decode": {key: value}})]
    elif graphs == "backend":
        argv += ["--cuda-graph-backend-decode", draw(st.sampled_from(("full", "breakable",
                                                                      "disabled")))]
    elif graphs == "old":
        argv += [draw(st.sampled_from(("--cuda-graph-max-bs", "--cuda-graph-bs"))), "8"]
    if algo == "FROZEN_KV_MTP" and graphs in ("off", "backend") and (
            argv[-1] in ("--disable-decode-cuda-graph", "disabled")):
        # decode graphs off, prefill graphs on: SGLang still captures the frozen draft loop,
        # which graphfit refuses (not modelled); both off instead
        argv[-2 if argv[-1] == "disabled" else -1:] = ["--disable-cuda-graph"]
    if algo is not None and draw(st.integers(0, 3)) == 0:
        argv.append(ML)  # multi-layer EAGLE (NGRAM / STANDALONE ignore it)
    tp = draw(st.sampled_from((1, 1, 2, 4, 8)))
    if tp > 1:
        argv += [draw(st.sampled_from(("--tp", "--tp-size"))), str(tp)]
        split = draw(st.sampled_from(("none", "dp", "dp", "cp")))
        if split == "dp":
            argv += ["--attn-dp-size", str(draw(st.sampled_from([d for d in (2, 4, 8)
                                                                 if tp % d == 0])))]
        elif split == "cp":
            argv += ["--attn-cp-size", "2"]
    if draw(st.booleans()):
        argv += so.tbo(argv)  # with attention DP where TP allows (validation_hook.py:756-772)
    gb = draw(st.sampled_from((16, 24, 48, 80, 141, 192, None)))
    return tuple(argv), gb


@given(command_lines())
def test_generated_command_lines(case: tuple[tuple[str, ...], float | None]) -> None:
    """Acceptance and the ladder read off the command line, then (if SGLang starts) every
    model-level aspect: ladders and padding of every runner, components, buffers, fills."""
    argv, gb = case
    cli = sc.compare_cli(argv, gb)
    diffs = cli["acceptance"] + cli.get("cli_target_ladder", [])
    sg = sc.sglang(argv, gb)
    if sg.rejected is None:
        model = sc.compare_model(sg, extra_buffers=True)  # both directions of buffers
        for aspect in ("translated_acceptance", *sc.ASPECTS):
            diffs += model.get(aspect, [])
    _fail(diffs)


# ---------------------------------------------------------------------------------------
# Adaptive speculation: the static line where SGLang turns it off, one set per step where on
# ---------------------------------------------------------------------------------------

AD = "--speculative-adaptive"
ADAPTIVE_LINES: list[tuple[str, ...]] = [
    (*S(33), *EAGLE, "--speculative-num-steps", "3", AD),  # stays on: one set per step
    (*S(33), *EAGLE, AD),  # stays on (SGLang fills steps 3, topk 1)
    (*S(33), *spec("EAGLE3", 3, 1, 4), AD),  # stays on
    (*S(33), *spec("NEXTN", 3, 1, 4), AD),  # NEXTN is EAGLE by then: stays on
    (*S(33), *spec("EAGLE", 2, 1, 3), AD),  # stays on, steps not a candidate: SGLang refuses
    (*S(33), *spec("EAGLE", 3, 4, 8), AD),  # topk 4: off
    (*S(33), *spec("EAGLE", 3, 1, 4), AD, "--enable-two-batch-overlap"),  # refused (TBO, no DP)
    (*S(33), *spec("EAGLE", 3, 1, 4), AD, "--tp", "4", "--attn-dp-size", "2"),  # off
    (*S(33), *spec("EAGLE", 3, 1, 4), AD, ML),  # multi-layer: off
    (*S(33), *spec("STANDALONE", 3, 1, 4), AD),  # off
    (*S(33), *spec("FROZEN_KV_MTP", 3, 1, 4), AD),  # off
    (*S(7), "--speculative-algorithm", "NGRAM", AD),  # off
    (*S(16), AD),  # no speculation: off
]


@pytest.mark.parametrize("argv", ADAPTIVE_LINES, ids=[" ".join(a[2:]) for a in ADAPTIVE_LINES])
def test_adaptive_fallback_follows_sglang(argv: tuple[str, ...]) -> None:
    """`_maybe_disable_adaptive` (speculative_hook.py:1374-1389) run by SGLang decides: where
    adaptive stays on graphfit plans every runtime state as SGLang builds it, where SGLang
    falls back to the static parameters graphfit plans the line and its decode ladder is
    SGLang's."""
    from sglang.srt.arg_groups.overrides import resolving_view

    from tests.helpers import run_cli

    sg = sc.sglang(argv, 80)
    code, out, text = run_cli(["plan", "--json", "--gpu-memory-gb", "80", "--", "python",
                               "-m", "sglang.launch_server", "--model-path",
                               str(so.oracle().model_dir), *argv])
    if sg.rejected is not None:
        assert code != 0, f"SGLang rejects ({sg.rejected[:120]}); graphfit plans"
        return
    assert isinstance(sg.resolved, so.Resolved)
    if resolving_view(sg.resolved.record).speculative_adaptive:
        # kept on: every runtime state against SGLang's (tests/oracle/
        # test_sglang_adaptive_oracle.py)
        from tests.oracle import sglang_adaptive_oracle as sa

        assert code == 0, text[-300:]
        found = [str(d) for v in sa.compare(argv).values() for d in v]
        assert not found, "\n".join(found[:8])
        return
    assert code == 0, text[-300:]
    plan = sc.graphfit.plan(sc.EngineConfig.from_dict(json.loads(out)["config"]))
    gf = sc.GraphfitAnswer(argv, None, plan)
    _fail(sc.compare_target_ladder(sg, gf) + sc.compare_components(sg, gf))
