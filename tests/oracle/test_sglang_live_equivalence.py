"""The live check plans what a pasted line with the same `VAR=value` prefix plans (issue 23).

For a generated DFLASH or DSPARK line (tests/oracle/sglang_dflash_compare.dflash_lines,
sglang_dspark_compare.dspark_lines: local drafts of every head kind SGLang 0.5.23 has --
plain DFlash, LiLiCorr of several widths, DSPARK drafts naming gamma and / or
`sample_from_anchor` -- and the block on the line or in the draft) under a generated
environment over SGLang's variables graphfit models for these drafts (SGLANG_DSPARK_FOLDED_
PROPOSAL, SGLANG_DSPARK_USE_GREEDY_DRAFT, SGLANG_OPT_DSV41_DSPARK_MID_FOLD,
SGLANG_DFLASH_EAGER_DRAFT_SAMPLER, SGLANG_RAGGED_VERIFY_MODE, in SGLang's EnvBool spellings
and ones it cannot parse):

* the live path: SGLang's own `prepare_server_args` builds the ServerArgs under that
  environment (tests/oracle/sglang_block_drafts.sglang), and `check_server_args` plans them
  with the process's `os.environ` set to it -- what the plugin's hook does in the server;
* the pasted line: `graphfit plan -- VAR=value ... python -m sglang.launch_server ...`.

Both must refuse together, or plan the same draft component: every buffer by name, shape
and dtype, and the options the environment and the draft's config give.
"""

from __future__ import annotations

import os
from typing import Any
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.oracle.paths import require

require("sglang")  # skip locally / fail in CI when the sources were not fetched

from graphfit.integrations import sglang as gs  # noqa: E402
from graphfit.planner.core.errors import GraphfitError  # noqa: E402
from graphfit.planner.plan import Plan  # noqa: E402
from tests.oracle import sglang_block_drafts as bd  # noqa: E402
from tests.oracle import sglang_dflash_compare as dc  # noqa: E402
from tests.oracle import sglang_dspark_compare as ds  # noqa: E402
from tests.oracle import sglang_oracle as so  # noqa: E402

VARIABLES = ("SGLANG_DSPARK_FOLDED_PROPOSAL", "SGLANG_DSPARK_USE_GREEDY_DRAFT",
             "SGLANG_OPT_DSV41_DSPARK_MID_FOLD", "SGLANG_DFLASH_EAGER_DRAFT_SAMPLER")
RAGGED = "SGLANG_RAGGED_VERIFY_MODE"
# the options the environment and the draft's config.json set (graphfit.inputs.sglang_live,
# graphfit.inputs.environment)
OPTIONS = ("dspark_proposal", "dspark_mid_fold", "ragged_verify_mode", "dflash_eager_sampler",
           "dflash_domino", "dflash_selector_top_k", "dflash_lilicorr_top_k",
           "dflash_lilicorr_head", "dspark_samples_anchor", "draft_hidden_size",
           "speculative_num_draft_tokens", "hidden_size", "vocab_size")
RUNNERS = ("dflash_draft", "dspark_draft")


@st.composite
def environments(draw: st.DrawFn) -> dict[str, str]:
    """0 to 5 of the variables, each in one of SGLang's EnvBool spellings (environ.py:
    143-150) or a value it cannot parse (it warns and keeps the default, :67-86)."""
    names = draw(st.lists(st.sampled_from(VARIABLES), max_size=4, unique=True))
    env = {name: draw(st.sampled_from(("1", "true", "Y", "0", "no", "FALSE", "on")))
           for name in names}
    if draw(st.integers(0, 4)) == 0:
        env[RAGGED] = draw(st.sampled_from(("static", "compact")))
    return env


@st.composite
def cases(draw: st.DrawFn) -> tuple[dict[str, str], tuple[str, ...], float | None]:
    """(environment, a DFLASH or DSPARK line without its own prefix, GPU GB); lines that
    give --max-running-requests (the live path cannot check a server that leaves S to its
    scheduler, graphfit.integrations.sglang)."""
    argv, gb = draw(st.one_of(dc.dflash_lines(), ds.dspark_lines()).filter(
        lambda case: "--max-running-requests" in case[0]))
    return draw(environments()), bd.split_env(argv)[1], gb


def _live(env: dict[str, str], record: Any, gb: float | None
          ) -> tuple[Plan | None, str | None]:
    """check_server_args on SGLang's own ServerArgs, the process environment being `env`;
    the GPU's memory passed as the pasted line's --gpu-memory-gb gives it (the ServerArgs
    carry none: SGLang's memory-derived decode list is resolved later, in the scheduler)."""
    with mock.patch.dict(os.environ, env):
        for name in (*VARIABLES, RAGGED):
            if name not in env:
                os.environ.pop(name, None)
        try:
            return gs.check_server_args(record, gpu_memory_gb=gb).plan, None
        except GraphfitError as exc:
            return None, str(exc)


def _draft(p: Plan) -> tuple[str | None, set[tuple[str, tuple[int, ...], str]]]:
    name = next((n for n in RUNNERS if n in p.components), None)
    if name is None:
        return None, set()
    return name, {(b.name, b.shape, b.dtype) for b in p.components[name].buffers}


def compare(env: dict[str, str], flags: tuple[str, ...], gb: float | None) -> str:
    """"skip" (SGLang refuses the line), "refused" (both), "planned" (the same draft
    component and options); AssertionError naming the difference."""
    argv = (*(f"{k}={v}" for k, v in env.items()), *flags)
    sg = bd.sglang(argv, gb)
    if not isinstance(sg.resolved, so.Resolved):
        return "skip"
    gf = bd.pasted(argv, gb)
    live, why = _live(env, sg.resolved.record, gb)
    if gf.plan is None or live is None:
        assert gf.plan is None and live is None, (
            f"{' '.join(argv)}: pasted {gf.rejected or 'plans'}, live {why or 'plans'}")
        return "refused"
    ours, theirs = _draft(live), _draft(gf.plan)
    assert ours == theirs, f"{' '.join(argv)}: {ours[0]} vs {theirs[0]}, live ^ pasted " \
                           f"{sorted(ours[1] ^ theirs[1])[:4]}"
    options = {k: (getattr(live.config, k), getattr(gf.plan.config, k)) for k in OPTIONS}
    differ = {k: v for k, v in options.items() if v[0] != v[1]}
    assert not differ, f"{' '.join(argv)}: (live, pasted) {differ}"
    return "planned"


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(cases())
def test_live_path_plans_what_the_pasted_line_plans(
        case: tuple[dict[str, str], tuple[str, ...], float | None]) -> None:
    compare(*case)
