"""`graphfit plan`'s SGLang prefill component (and the PD roles' decode graphs) vs SGLang
0.5.23's own pipeline and prefill runner, per pasted line (tests/oracle/sglang_plan_prefill.py).

Every line SGLang accepts is planned by graphfit from the same words and must agree on every
aspect (backend, ladder, dispatch, buffers, the plan's proof, decode graphs under a PD role),
or be refused with a ConfigError saying what graphfit does not model.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from tests.oracle import sglang_plan_prefill as spp  # noqa: E402
from tests.oracle.test_sglang_prefill_oracle import GRID as MODULE_GRID  # noqa: E402
from tests.oracle.test_sglang_prefill_oracle import lines  # noqa: E402

S48 = ("--max-running-requests", "48")
# graphfit assumes 80 GB for a pasted line without --gpu-memory-gb; SGLang without S sizes its
# request pool from a KV capacity graphfit cannot know: both kinds are left out here
GRID = [(a, g) for a, g in MODULE_GRID if g is not None and "--max-running-requests" in a]
GRID += [
    ((*S48, "--max-total-tokens", "50"), 80),  # the KV pool binds: 25 request slots
    (("--max-total-tokens", "300000"), 80),  # no S: SGLang's estimate from the KV capacity
    (("--max-total-tokens", "300000", "--tp", "4", "--attn-dp-size", "2"), 80),
    ((*S48, "--pp-size", "2", "--cuda-graph-backend-prefill", "breakable"), 192),
    ((*S48, "--pp-size", "2", "--cuda-graph-backend-prefill", "breakable",
      "--cuda-graph-max-bs-prefill", "12000"), 192),
    ((*S48, "--disaggregation-mode", "prefill", "--cuda-graph-backend-decode", "full"), 80),
    ((*S48, "--disaggregation-mode", "prefill", "--cuda-graph-config",
      json.dumps({"decode": {"backend": "breakable"}})), 80),
    ((*S48, "--disaggregation-mode", "decode", "--cuda-graph-max-bs-prefill", "512"), 80),
    ((*S48, "--cuda-graph-backend-prefill", "full", "--max-total-tokens", "40"), 80),
    ((*S48, "--attention-backend", "flex_attention"), 80),
]


@pytest.mark.parametrize(("argv", "gb"), GRID, ids=[f"{' '.join(a)}@{g}" for a, g in GRID])
def test_plan_prefill_equals_sglang(argv: tuple[str, ...], gb: float) -> None:
    out = spp.compare(argv, gb)
    assert out.diffs == {}, out.diffs


def test_grid_reaches_every_case() -> None:
    """The grid is not vacuous: graphs on (breakable and full), off, and no refusal."""
    outs = [spp.compare(a, g) for a, g in GRID]
    assert sum(o.prefill_on for o in outs) >= 20
    assert sum(o.compared and not o.prefill_on for o in outs) >= 8
    assert not any(o.graphfit_refuses for o in outs)


@given(lines().filter(lambda case: case[1] is not None))
def test_generated_lines_plan_as_sglang(case: tuple[tuple[str, ...], float]) -> None:
    argv, gb = case
    out = spp.compare(argv, gb)
    assert out.diffs == {}, out.diffs


MLA_LINES = [((*S48,), 192), ((*S48,), 141), ((*S48, "--chunked-prefill-size", "12000"), 192),
             ((*S48, "--cuda-graph-max-bs-prefill", "12000"), 192),
             ((*S48, "--cuda-graph-backend-prefill", "full"), 192)]


@pytest.mark.parametrize(("argv", "gb"), MLA_LINES,
                         ids=[f"{' '.join(a)}@{g}" for a, g in MLA_LINES])
def test_mla_model_caps_prefill_at_8192_tokens(tmp_path_factory: pytest.TempPathFactory,
                                               argv: tuple[str, ...], gb: float) -> None:
    """memory_hook.py:233-237: an MLA model's default prefill max is min(8192, chunk)."""
    from tests.oracle import sglang_stubs

    model = str(sglang_stubs.write_mla_model_dir(tmp_path_factory.mktemp("mla") / "dsv3"))
    out = spp.compare(argv, gb, model)
    assert out.compared and out.prefill_on and out.diffs == {}, (out.graphfit_refuses,
                                                                 out.diffs)


@pytest.mark.parametrize("argv", [S48, (*S48, "--tp", "2", "--attn-dp-size", "2",
                                        "--enable-two-batch-overlap",
                                        "--cuda-graph-backend-prefill", "breakable")])
def test_two_batch_overlap_split_buffer(argv: tuple[str, ...]) -> None:
    """The split plugin's (2,) int32 buffer, as SGLang's own constructor allocates it, in the
    target and prefill runners (both built on BaseRunner.__init__, base_runner.py:245), and
    in neither EAGLE draft runner (they skip that __init__)."""
    from tests.oracle import sglang_oracle as so

    shape, dtype = so.tbo_plugin_buffer()
    p = spp.graphfit_plan(argv, 80)
    for component in ("target", "prefill"):
        buf = p.buffer(f"{component}.tbo_children_num_token_non_padded")
        assert (buf.shape, buf.dtype) == (shape, dtype)
    eagle = spp.graphfit_plan((*S48, "--speculative-algorithm", "EAGLE",
                               "--speculative-num-steps", "3", "--speculative-eagle-topk", "1",
                               "--speculative-num-draft-tokens", "4"), 80)
    for component in ("drafter", "draft_extend"):
        names = {b.name for b in eagle.components[component].buffers}
        assert "tbo_children_num_token_non_padded" not in names
