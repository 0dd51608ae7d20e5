"""Differential tests: vLLM 0.33.0's own code (tests/oracle/vllm_oracle.py) vs graphfit.

The first group pins the oracle to facts read in vLLM's source, so a broken stub cannot make
the comparison vacuous. The second compares graphfit's public API with vLLM, aspect by aspect
(errors, config ladder, resolved ladder and mode, V1 target / drafter dispatch, V2 target /
drafter dispatch, capacities and engine rows, the real drafters' buffers, block-table width,
and graphfit without the support levels covering vLLM's), for every reachable batch: mode,
padded size and num_reqs. They run on a fixed edge grid and on hypothesis-generated configs,
and must show no difference at all.
"""

from __future__ import annotations

import os
import random

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require, version

require("vllm")  # skip locally / fail in CI when the sources were not fetched
if version("vllm") != "0.33.0":  # its pins are 0.33's; other releases: test_vllm_release_oracle
    pytest.skip("vLLM 0.33.0's own oracle tests (this process imports another release)",
                allow_module_level=True)

from tests.oracle import vllm_compare as vc  # noqa: E402
from tests.oracle import vllm_oracle as vo  # noqa: E402
from tests.oracle.vllm_grid import GRID, GROUPS, case_id  # noqa: E402
from tests.oracle.vllm_oracle import Case  # noqa: E402

FIRST_METHODS = ("eagle", "eagle3", "mtp", "draft_model", "dflash", "ngram")


# -- the oracle itself, against vLLM's source ---------------------------------------------

def test_oracle_config_ladder_matches_vllm_source() -> None:
    # config/vllm.py:2398-2654: S=33, k=3: grid 1,2,4,8..248/8,256 plus the decode size 132
    res = vo.config_ladder(Case(S=33, k=3, method="dflash"))
    assert res.error is None and res.max_size == 256 and len(res.sizes) == 36
    assert 132 in res.sizes and res.num_lookahead_tokens == 4  # DFlash: k + 1 (vllm.py:640)
    # user list: de-duplicated, sorted, > T dropped; none left: no graphs, no error
    assert vo.config_ladder(Case(S=8, T=64, sizes=(32, 4, 2, 2, 100))).sizes == (2, 4, 32)
    empty = vo.config_ladder(Case(S=8, T=64, k=1, method="eagle", sizes=(100,)))
    assert empty.error is None and empty.sizes == () and empty.max_size == 0
    # Blackwell (capability family 100): the ceiling is 1024
    assert vo.config_ladder(Case(S=600, blackwell=True)).max_size == 1024
    assert vo.config_ladder(Case(S=600)).max_size == 512
    assert vo.config_ladder(Case(S=8, enforce_eager=True, sizes=(3, 3))).sizes == ()


def test_oracle_rejections_come_from_vllm() -> None:
    assert "max_num_seqs" in str(vo.config_ladder(Case(S=33, T=20)).error)
    lookahead = vo.config_ladder(Case(S=1, T=3, k=3, method="eagle")).error
    assert lookahead is not None and lookahead.startswith("_set_max_num_scheduled_tokens")
    assert vo.config_ladder(Case(S=1, T=3, k=3, method="ngram")).error is None  # lookahead 0
    mismatch = vo.config_ladder(Case(S=8, sizes=(8, 16), max_size=8)).error
    assert mismatch is not None and mismatch.startswith("_set_cudagraph_sizes")
    never = vo.runner(Case(S=8, mode="FULL", support="NEVER"))
    assert never.error is not None and "resolve_cudagraph_mode_and_sizes" in never.error
    # DFlash caps active sequences at T // q (vllm.py:2378-2396)
    assert vo.config_ladder(Case(S=64, T=256, k=7, method="dflash")).max_num_active_seqs == 32


def test_oracle_v1_resolution_and_dispatch() -> None:
    v1 = vo.runner(Case(S=33, k=3, method="dflash"), "v1")
    assert v1.mode == "FULL_AND_PIECEWISE" and len(v1.sizes) == 34 and v1.sizes[0] == 4
    assert v1.target_mixed(133) == ("PIECEWISE", 136, None)
    assert v1.target_uniform(33) == ("FULL", 132, 33)
    assert v1.drafter_tokens(132) == ("PIECEWISE", 132, None)
    assert v1.target_mixed(257) == ("NONE", 257, None)
    # explicit lists are rounded too (compilation.py:1529-1535)
    assert vo.runner(Case(S=33, k=3, method="eagle", sizes=(8, 133, 140))).sizes == (8, 136, 140)
    # downgrade: no FULL decode with q > 1 below UNIFORM_BATCH, so no rounding (1448-1468)
    down = vo.runner(Case(S=33, k=5, method="eagle", max_size=200,
                          support="UNIFORM_SINGLE_TOKEN_DECODE"))
    assert down.mode == "PIECEWISE" and down.target_mixed(198) == ("PIECEWISE", 200, None)
    kept = vo.runner(Case(S=33, k=5, method="eagle", max_size=200))
    assert kept.max_size == 192 and kept.target_mixed(198) == ("NONE", 198, None)
    # FULL_DECODE_ONLY: the drafter's mixed_mode() is NONE, it runs eager
    fdo = vo.runner(Case(S=33, k=3, method="eagle", mode="FULL_DECODE_ONLY"))
    assert fdo.drafter_mode == "NONE" and fdo.drafter_tokens(5) == ("NONE", 5, None)
    # FULL: uniform batches take the mixed FULL key, num_reqs = min(padded, S)
    assert vo.runner(Case(S=33, k=3, method="eagle", mode="FULL")).target_uniform(1) == (
        "FULL", 4, 4)


def test_oracle_v2_and_buffers() -> None:
    v2 = vo.runner(Case(S=33, k=3, method="dflash"), "v2")
    assert v2.sizes[0] == 1 and v2.max_size == 256  # MRV2 does not round the list
    assert v2.target_uniform(1) == ("FULL", 4, 1) and v2.target_mixed(3) == ("PIECEWISE", 4,
                                                                             None)
    assert v2.drafter_mode == "FULL_DECODE_ONLY" and v2.drafter_query(33) == ("FULL", 132, 33)
    eager = vo.runner(Case(S=33, k=3, method="dflash", draft_support="UNIFORM_SINGLE_TOKEN_DECODE"),
                      "v2")
    assert eager.drafter_mode == "NONE" and eager.drafter_query(2) == ("NONE", 8, None)
    rows = vo.dflash_v1_buffers(Case(S=33, k=3, method="dflash"))
    assert isinstance(rows, dict)
    assert rows["positions"] == rows["slot_mapping_buffer"] == 256  # max(S*q, C)
    assert rows["arange"] == 8192 + 256 + 1 and rows["input_ids"] == 8192
    assert vo.block_table_width(8192, 16) == 512 and vo.block_table_width(1000, 16) == 64


def test_oracle_runner_validation_and_real_drafters() -> None:
    # VllmConfig.__post_init__'s runner checks (config/vllm.py:3053-3151)
    assert "dspark" in str(vo.runner(Case(S=8, k=3, method="dspark"), "v1").error)
    assert "suffix" in str(vo.runner(Case(S=8, k=3, method="suffix"), "v2").error)
    # the drafters are vLLM's own objects: ExtractHiddenStatesProposer asserts k == 1
    assert vo.runner(Case(S=8, k=2, method="extract_hidden_states"), "v1").error is not None
    eagle = vo.runner(Case(S=8, k=3, method="eagle"), "v2")
    assert eagle.drafter_buffers is not None
    assert eagle.drafter_buffers["input_buffers.input_ids"] == (8192,)
    assert "arange" not in eagle.drafter_buffers  # MRV2 speculators have no arange
    dspark = vo.runner(Case(S=8, k=3, method="dspark"), "v2")
    assert dspark.drafter_width == 3  # anchor sampling: k query tokens per request
    fill_in = vo.runner(Case(S=8, k=3, method="dspark", dspark_fill_in=True), "v2")
    assert fill_in.drafter_width == 4


def test_backend_levels_match_vllm() -> None:
    # graphfit's table of AttentionBackendEnum names and their cudagraph support levels
    from graphfit.planner.engines.vllm.attention import BACKEND_LEVELS

    names = {m.name for m in vo.vllm().AttentionBackendEnum}
    # TORCH_SDPA (ViT only), CUSTOM (plugins), and two names whose module or class the 0.33
    # wheel does not ship
    assert names - set(BACKEND_LEVELS) == {"TORCH_SDPA", "CUSTOM", "NO_ATTENTION",
                                           "TRITON_FLASHINFER"}
    assert set(BACKEND_LEVELS) <= names
    checked = 0
    for name, levels in BACKEND_LEVELS.items():
        found = vo.backend_support(name)
        if found is None:  # needs CUDA or an optional package to import
            continue
        level, own = found
        assert level in {x.value for x in levels}, name
        if not own:  # a fixed class-level value: graphfit knows exactly that one
            assert tuple(x.value for x in levels) == (level,), name
        checked += 1
    assert checked >= 30


# -- the edge grid (tests/oracle/vllm_grid.py) -------------------------------------------

@pytest.mark.parametrize("group", list(GROUPS))
@pytest.mark.parametrize("case", GRID, ids=case_id)
def test_graphfit_agrees_with_vllm(case: Case, group: str) -> None:
    diffs = vc.failures(case, GROUPS[group])
    assert not diffs, "\n".join(diffs)


# -- generated configs ---------------------------------------------------------------------

_NO_SHRINK = (Phase.explicit, Phase.reuse, Phase.generate)
# under the bounded `ci` profile a failing example is reported as found (shrinking would
# re-run the whole comparison hundreds of times); other profiles shrink as usual
_PHASES = _NO_SHRINK if os.environ.get("HYPOTHESIS_PROFILE", "ci") == "ci" else tuple(Phase)


@st.composite
def cases(draw: st.DrawFn, *, expressible: bool) -> Case:
    """vLLM configs; `expressible`: only the inputs graphfit had before issue 9 (the support
    level ALWAYS, the first six methods)."""
    S = draw(st.one_of(st.sampled_from((1, 7, 33, 97, 255, 256, 257, 511, 512, 513, 1023,
                                        1024)), st.integers(1, 1100)))
    k = draw(st.integers(0, 15))
    methods = FIRST_METHODS if expressible else vo.METHODS
    method = draw(st.sampled_from(methods)) if k else None
    q = 1 + k
    T = draw(st.one_of(st.just(8192), st.integers(max(1, S - 2), max(S, 2 * S * q) + 16),
                       st.integers(S, 16384)))
    mode = draw(st.sampled_from(vo.MODES))
    sizes = draw(st.none() | st.lists(st.integers(1, T + 64), min_size=1, max_size=8)
                 .map(tuple))
    max_size = draw(st.none() | st.integers(1, 1100) | st.sampled_from((q, 2 * S * q, T)))
    return Case(
        S=S, T=T, k=k, method=method, mode=mode, sizes=sizes, max_size=max_size,
        performance_mode=draw(st.sampled_from(("balanced", "interactivity", "throughput"))),
        blackwell=draw(st.booleans()), enforce_eager=draw(st.booleans()) and draw(st.booleans()),
        support="ALWAYS" if expressible else draw(st.sampled_from(vo.SUPPORT_LEVELS)),
        draft_support=None if expressible else draw(st.none() | st.sampled_from(
            vo.SUPPORT_LEVELS)),
        dspark_fill_in=False if expressible else draw(st.booleans()))


def test_generated_configs_batch_agrees() -> None:
    # the measurement's generator (every method, support level, list, max, mode...), compared
    # at every batch where either dispatcher can change: 700 configs in ~25 s on one core;
    # with the grid and the hypothesis examples, over a thousand configs per CI run
    from tests.oracle.measure_vllm import random_case, short

    rng = random.Random(int(os.environ.get("GRAPHFIT_ORACLE_SEED", "9")))
    bad: list[str] = []
    for _ in range(700):
        case = random_case(rng, expressible=rng.random() < 0.3)
        diffs = vc.failures(case, exhaustive=False)
        if diffs:
            bad.append(f"{short(case)}: {diffs[0]}")
    assert not bad, f"{len(bad)} configs differ:\n" + "\n".join(bad[:10])


@settings(max_examples=40, phases=_PHASES)
@given(cases(expressible=True))
def test_generated_expressible_configs_agree(case: Case) -> None:
    diffs = vc.failures(case)
    assert not diffs, f"{case}\n" + "\n".join(diffs)


@settings(max_examples=25, phases=_PHASES)
@given(cases(expressible=False))
def test_generated_configs_agree(case: Case) -> None:
    diffs = vc.failures(case)
    assert not diffs, f"{case}\n" + "\n".join(diffs)


AUX_CASES = [Case(S=9, k=3, method=method, mode=mode, aux_layers=aux)
             for method in ("dflash", "dspark") for aux in (0, 1, 3)
             for mode in ("FULL_AND_PIECEWISE", "PIECEWISE")]


@pytest.mark.parametrize("case", AUX_CASES, ids=case_id)
def test_dflash_aux_staging_follows_the_draft_aux_layers(case: Case) -> None:
    """MRV2's DFlash/DSpark speculator stages aux hidden states only when the draft config
    names aux layers, len(aux_layers) x hidden wide (dflash/speculator.py:96-106): graphfit's
    `draft_aux_layers` gives the same buffer (rows and width) as vLLM's own speculator."""
    diffs = vc.failures(case, exhaustive=False)
    assert not diffs, "\n".join(diffs)
    run = vo.runner(case, "v2")
    staged = "_aux_staging" in (run.drafter_buffers or {})
    assert staged == (case.aux_layers > 0 and case.mode == "FULL_AND_PIECEWISE")
