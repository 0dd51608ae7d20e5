"""Differential tests for a vLLM release other than the main process's (`paths.PRIMARY`):
that release's own code (tests/oracle/vllm_oracle.py, run from its wheel) vs graphfit's model
of the same release (`engine_version`).

tests/oracle/test_vllm_versions.py starts this module once per release in its own process
(`GRAPHFIT_ORACLE_VLLM=<release>`); run it by hand the same way:

    GRAPHFIT_ORACLE_VLLM=0.34.0 python -m pytest tests/oracle/test_vllm_release_oracle.py -q

First the oracle is pinned to facts read in that release's source (so a broken stub cannot
make the comparison vacuous), then every aspect is compared on the edge grid and on
hypothesis-generated configs: errors, config ladder, resolved ladder and mode, target and
drafter dispatch, capacities, the real drafters' buffers, and graphfit without the support
levels covering vLLM's.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.oracle import paths

if paths.version("vllm") == paths.PRIMARY["vllm"]:
    pytest.skip("the primary release's oracle tests are test_vllm_oracle.py",
                allow_module_level=True)
paths.require("vllm")

import graphfit  # noqa: E402
from tests.oracle import vllm_compare as vc  # noqa: E402
from tests.oracle import vllm_oracle as vo  # noqa: E402
from tests.oracle.measure_vllm import random_case  # noqa: E402
from tests.oracle.vllm_grid import GRID, case_id  # noqa: E402
from tests.oracle.vllm_oracle import Case  # noqa: E402

RELEASE = vo.VERSION


def _pins_0_34() -> None:
    """vLLM 0.34.0, file:line in its wheel."""
    v = vo.vllm()
    assert not vo.has_v1()  # v1/cudagraph_dispatcher.py and v1/spec_decode/* deleted
    # VLLM_USE_V2_MODEL_RUNNER=0 is an error (platforms/interface.py:1481-1491)
    assert "Model Runner V1 has been removed" in vo.v1_removed()
    assert "removed" in str(vo.runner(Case(S=8), "v1").error)
    # grids (config/compilation.py:87-124): 64 decode counts at 1024, 54 prefill sizes at 8192
    from vllm.config.compilation import (
        decode_cudagraph_capture_grid,
        prefill_cudagraph_capture_grid,
    )

    assert len(decode_cudagraph_capture_grid(1024)) == 64
    assert len(prefill_cudagraph_capture_grid(8192)) == 54
    # split sizes (config/vllm.py:2558-2737): S=33, k=3, EAGLE: decode request counts up to
    # S=33 (132 tokens), and the draft-decode grid's one-token counts (3, 5, 6 ...) recorded
    eagle = vo.config_ladder(Case(S=33, k=3, method="eagle"))
    assert eagle.decode_requests is not None and eagle.decode_requests[-1] == 33
    assert {3, 5, 6, 132} <= set(eagle.sizes) and eagle.max_size == 256
    # k >= 2 EAGLE: draft-decode graphs up to S (vllm.py:708-733): S=1024, k=3 records 1024
    assert vo.config_ladder(Case(S=1024, k=3, method="eagle")).max_size == 1024
    # Blackwell's wide defaults: prefill graphs up to 8192 tokens (vllm.py:2606-2646)
    wide = vo.config_ladder(Case(S=1024, k=3, method="eagle", blackwell=True))
    assert wide.prefill_sizes is not None and wide.prefill_sizes[-1] == 8192
    # FULL_DECODE_ONLY records the decode sizes only (vllm.py:2699-2704)
    fdo = vo.config_ladder(Case(S=33, mode="FULL_DECODE_ONLY"))
    assert fdo.sizes == (1, 2, 4, 8, 16, 24, 32, 33) and fdo.max_size == 33
    # no size left -> mode NONE (vllm.py:2722-2728)
    assert vo.config_ladder(Case(S=8, T=64, sizes=(100,))).mode == "NONE"
    # decode graphs keyed by requests: 7 requests x 4 tokens pad to 8 requests, FULL
    run = vo.runner(Case(S=33, k=3, method="eagle"), "v2")
    assert run.target_uniform(7) == ("FULL", 32, 8) and run.target_uniform(33) == ("FULL", 132, 33)
    assert run.target_mixed(133) == ("PIECEWISE", 136, None)
    # suffix decoding runs on V2 (v1/worker/gpu/spec_decode/suffix/speculator.py:499-510)
    suffix = vo.runner(Case(S=8, k=3, method="suffix"), "v2")
    assert suffix.error is None and (suffix.drafter_buffers or {}).get("drafts") == (8, 3)
    assert v.CUDAGraphMode.FULL_DECODE_ONLY.name == "FULL_DECODE_ONLY"


def _pins_0_32() -> None:
    """vLLM 0.32.0, file:line in its wheel."""
    assert vo.has_v1()
    # the config ladder and the V1 rounding are 0.33's (config/vllm.py:2292-,
    # config/compilation.py): S=33, k=3: 36 sizes, max 256; V1 rounds to 34 from 4
    res = vo.config_ladder(Case(S=33, k=3, method="dflash"))
    assert res.error is None and res.max_size == 256 and len(res.sizes) == 36
    v1 = vo.runner(Case(S=33, k=3, method="dflash"), "v1")
    assert len(v1.sizes) == 34 and v1.sizes[0] == 4
    # T is refused only at or below the NEW drafting slots (config/vllm.py:2285-2290,
    # config/speculative.py:1888-1926): EAGLE none, DFlash k, draft_model 1
    assert vo.config_ladder(Case(S=1, T=3, k=3, method="eagle")).error is None
    assert vo.config_ladder(Case(S=1, T=3, k=3, method="dflash")).error is not None
    assert vo.config_ladder(Case(S=1, T=2, k=3, method="draft_model")).error is None
    assert vo.config_ladder(Case(S=1, T=1, k=3, method="draft_model")).error is not None
    # MRV2 DFlash stages no aux hidden states (dflash/speculator.py has no _aux_staging)
    v2 = vo.runner(Case(S=33, k=3, method="dflash"), "v2")
    assert v2.error is None and "_aux_staging" not in (v2.drafter_buffers or {})


PINS: dict[str, Callable[[], None]] = {"0.32.0": _pins_0_32, "0.34.0": _pins_0_34}


def test_oracle_pinned_to_the_release_source() -> None:
    assert RELEASE in PINS, f"no source pins for vLLM {RELEASE}: add them to PINS"
    PINS[RELEASE]()


def test_graphfit_models_this_release() -> None:
    config = graphfit.EngineConfig(max_num_seqs=8, engine_version=RELEASE)
    assert config.engine_version == RELEASE and config.model.release == RELEASE


# every aspect, on the edge grid: dispatch compared at every size where either side can
# change (equivalent to every batch: both are step functions)
@pytest.mark.parametrize("case", GRID, ids=case_id)
def test_graphfit_agrees_with_vllm_release(case: Case) -> None:
    diffs = vc.failures(case, exhaustive=False)
    assert not diffs, "\n".join(diffs)


_PHASES = (Phase.explicit, Phase.reuse, Phase.generate)  # a failing config is reported as is


@settings(max_examples=60, deadline=None, derandomize=True, phases=_PHASES,
          suppress_health_check=list(HealthCheck))
@given(st.integers(0, 2**32 - 1))
def test_generated_configs_agree(seed: int) -> None:
    rng = random.Random(seed)
    case = random_case(rng, expressible=rng.random() < 0.6)
    diffs = vc.failures(case, exhaustive=False)
    assert not diffs, "\n".join(diffs)


def split_case(rng: random.Random) -> Case:
    """A generated config with vLLM 0.34's split capture-size keys (lists holding sizes
    outside [1, limit] too, which vLLM drops; caps at 0; with or without the deprecated
    shared sizes, which vLLM refuses beside them unless they are its own)."""
    from dataclasses import replace

    base = random_case(rng, expressible=True)
    if rng.random() < 0.8:
        base = replace(base, sizes=None, max_size=None)
    S, T = base.S, base.T
    split: list[tuple[str, object]] = []
    if rng.random() < 0.5:
        split.append(("prefill_cudagraph_capture_token_sizes",
                      tuple(rng.randint(-1, T + 64) for _ in range(rng.randint(0, 8)))))
    if rng.random() < 0.4:
        split.append(("max_prefill_cudagraph_capture_tokens",
                      rng.choice([0, 256, rng.randint(1, T + 100)])))
    if rng.random() < 0.5:
        split.append(("decode_cudagraph_capture_request_sizes",
                      tuple(rng.randint(0, S + 8) for _ in range(rng.randint(0, 8)))))
    if rng.random() < 0.4 or not split:
        split.append(("max_decode_cudagraph_capture_requests",
                      rng.choice([0, rng.randint(1, S + 10)])))
    if rng.random() < 0.3:
        split.append(("max_decode_cudagraph_capture_tokens", rng.randint(1, 2 * T)))
    return replace(base, split=tuple(split))


# 0.34's split keys: on 0.34 every aspect agrees with its own `_split_cudagraph_capture_sizes`
# and CudaGraphManager; an earlier release's CompilationConfig refuses them, as graphfit does
@settings(max_examples=40, deadline=None, derandomize=True, phases=_PHASES,
          suppress_health_check=list(HealthCheck))
@given(st.integers(0, 2**32 - 1))
def test_split_capture_sizes_agree(seed: int) -> None:
    case = split_case(random.Random(seed))
    diffs = vc.failures(case, exhaustive=False)
    assert not diffs, "\n".join(diffs)
    split = graphfit.EngineConfig(max_num_seqs=8, engine_version=RELEASE).model.changes
    if not split.split_sizes:  # both refuse (not a vacuous agreement on nothing)
        assert vo.config_ladder(case).error is not None
        assert isinstance(vc.graphfit_plan(case, "v2"), str)


@settings(max_examples=25, deadline=None, derandomize=True, phases=_PHASES,
          suppress_health_check=list(HealthCheck))
@given(st.integers(0, 2**32 - 1))
def test_from_vllm_reads_the_resolved_split_sizes(seed: int) -> None:
    """`EngineConfig.from_vllm` on the VllmConfig this release's own code resolved: from 0.34
    the split fields are read back with the recorded token list (as vLLM resolves a resolved
    config again), and graphfit derives exactly the sizes vLLM recorded."""
    split = graphfit.EngineConfig(max_num_seqs=8, engine_version=RELEASE).model.changes
    fields = getattr(vo.vllm().CompilationConfig, "__dataclass_fields__", {})
    assert ("decode_cudagraph_capture_request_sizes" in fields) == split.split_sizes
    if not split.split_sizes:  # nothing to read back: its configs have no split fields
        return
    case = split_case(random.Random(seed))
    built, result = vo._configure(case)
    if built is None or result.mode == "NONE":
        return  # rejected (compared by test_split_capture_sizes_agree) or no graphs
    config = graphfit.EngineConfig.from_vllm(
        built.config, engine_version=RELEASE, hidden_size=8,
        ceiling_family="blackwell" if case.blackwell else "default",
        attention_cudagraph_support=case.support)
    assert config.decode_cudagraph_capture_request_sizes == result.decode_requests
    assert graphfit.plan(config).config_capture_sizes == result.sizes


AUX_CASES = [Case(S=9, k=3, method=method, mode=mode, aux_layers=aux)
             for method in ("dflash", "dspark") for aux in (0, 3)
             for mode in ("FULL_AND_PIECEWISE", "PIECEWISE")]


@pytest.mark.parametrize("case", AUX_CASES, ids=case_id)
def test_dflash_aux_staging_follows_the_draft_aux_layers(case: Case) -> None:
    """The draft's aux layer count on this release: graphfit's `draft_aux_layers` gives the
    staging buffer its speculator allocates (rows and width), or none (0.32 stages none)."""
    diffs = vc.failures(case, exhaustive=False)
    assert not diffs, "\n".join(diffs)
    run = vo.runner(case, "v2")
    staged = "_aux_staging" in (run.drafter_buffers or {})
    staging = graphfit.EngineConfig(max_num_seqs=8, engine_version=RELEASE).model.changes
    assert staged == (staging.dflash_aux_staging and case.aux_layers > 0
                      and case.mode == "FULL_AND_PIECEWISE")


def test_flag_table_is_this_release_parser() -> None:
    """The committed graphfit/inputs/flags/vllm-<release>.json is a fresh snapshot of this
    release's own `vllm serve` parser (rewrite: `GRAPHFIT_ORACLE_VLLM=<release> python -m
    tests.oracle.flag_tables`), and the release's model names that file."""
    from graphfit.planner.engines.registry import engine_model
    from graphfit.planner.engines.vllm import VllmModel
    from tests.oracle import flag_tables

    path = flag_tables.vllm_file(RELEASE)
    assert path.read_text() == flag_tables.dump(flag_tables.vllm_snapshot())
    model = engine_model("vllm", RELEASE)
    assert isinstance(model, VllmModel) and model.changes.flag_table == path.name
