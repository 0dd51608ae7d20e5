"""SGLang 0.5.23's DSPARK lines: SGLang's own argument pipeline and runners against graphfit.

SGLang's side is `sglang_compare.sglang` (prepare_server_args + resolve_once with
`_handle_dspark`, then the target runner and the DSPARK draft runner + folded sampler built by
sglang_dspark_oracle.dspark_runner on CPU). graphfit reads the very same line pasted
(`graphfit plan --json -- python -m sglang.launch_server ...`), and the model-level aspects
are compared as for every other SGLang line (sglang_compare.compare_model: graphfit given
SGLang's resolved values).
"""

from __future__ import annotations

import functools
import json
import tempfile
from pathlib import Path

from hypothesis import strategies as st

from tests.oracle import sglang_block_drafts as bd
from tests.oracle import sglang_compare as sc
from tests.oracle import sglang_oracle as so
from tests.oracle.sglang_block_drafts import pasted, shared_flags
from tests.oracle.sglang_dflash_compare import DRAFT, with_draft

__all__ = ["DRAFT", "compare_line", "draft_dir", "dspark", "dspark_lines", "pasted",
           "translated"]

RUNNER = "dspark_draft"
# the DSPARK modes SGLang reads from its environment (graphfit.inputs.sglang_dspark_env)
DEFAULTS: dict[str, object] = {"dspark_proposal": "sampling", "dspark_mid_fold": False,
                                "ragged_verify_mode": "static",
                                # read from the local draft (compact's strided hidden)
                                "dspark_target_layers": None}
ENV_OPTIONS = tuple(DEFAULTS)
# SGLang's spellings of each variable's values (EnvBool, environ.py:143-150; an unparseable
# one keeps the default, environ.py:67-86)
ENV_VALUES: dict[str, tuple[str, ...]] = {
    "SGLANG_DSPARK_USE_GREEDY_DRAFT": ("1", "true", "Yes", "0", "n", "maybe"),
    "SGLANG_DSPARK_FOLDED_PROPOSAL": ("0", "false", "NO", "1", "y", "off"),
    "SGLANG_OPT_DSV41_DSPARK_MID_FOLD": ("1", "TRUE", "y", "0", "no", "2"),
    # compact and cap-accept planned (their buffers compared by compare_buffers / the
    # compact oracle, sglang_dspark_compact); a value SGLang does not know fails both
    "SGLANG_RAGGED_VERIFY_MODE": ("static", "Static", "ragged", "compact", "cap-accept"),
}


def environment(draw: st.DrawFn) -> list[str]:
    """A VAR=value prefix of 0 to 3 of SGLang's DSPARK variables (none on 1 line in 2)."""
    if draw(st.booleans()):
        return []
    names = draw(st.lists(st.sampled_from(sorted(ENV_VALUES)), min_size=1, max_size=3,
                          unique=True))
    return [f"{name}={draw(st.sampled_from(ENV_VALUES[name]))}" for name in names]


def compare_line(argv: tuple[str, ...], gpu_mem_gb: float | None = 80
                 ) -> tuple[str, list[sc.Difference]]:
    """(outcome, differences), as sglang_block_drafts.compare_line for the DSPARK draft
    runner, plus both runners' widths on the pasted line."""
    return bd.compare_line(argv, gpu_mem_gb, RUNNER, compare_widths, translated)


def compare_widths(sg: sc.SglangAnswer, gf: sc.GraphfitAnswer) -> list[sc.Difference]:
    """The pasted line's target and draft widths (gamma + 1 and gamma or gamma + 1)."""
    assert sg.runners is not None and gf.plan is not None
    diffs: list[sc.Difference] = []
    if RUNNER in sg.runners and sc._gf_graphs(gf):
        for name in ("target", RUNNER):
            ours = sg.runners[name].width
            theirs = gf.plan.components[name].tables.uniform_query_len
            if ours != theirs:
                diffs.append(sc.Difference(f"{name}_width", f"SGLang {ours}, graphfit "
                                                            f"{theirs}"))
    return diffs


_DRAFTS = tempfile.TemporaryDirectory(prefix="graphfit-dspark-drafts-")


@functools.cache
def draft_dir(key: str | None, gamma: int | None, anchor: bool | None) -> str:
    """A DSPARK draft checkpoint directory: the oracle's Llama config.json plus `key`
    (dspark_block_size, block_size, or dflash_config.block_size) = gamma and
    `sample_from_anchor` when given (SGLang reads both, dspark_config.py:29-31, 214-297)."""
    path = Path(_DRAFTS.name) / f"draft-{key}-{gamma}-{anchor}"
    config = json.loads((so.oracle().model_dir / "config.json").read_text())
    if key == "dflash_config":
        config["dflash_config"] = {"block_size": gamma}
    elif key is not None:
        config[key] = gamma
    if anchor is not None:
        config["sample_from_anchor"] = anchor
    path.mkdir(parents=True, exist_ok=True)
    (path / "config.json").write_text(json.dumps(config))
    return str(path)


def translated(sg: sc.SglangAnswer, gf: sc.GraphfitAnswer | None = None
               ) -> sc.GraphfitAnswer:
    """graphfit given SGLang's resolved values (sglang_compare.graphfit_translated), the
    draft's `sample_from_anchor` as SGLang read it (graphfit's flags carry no draft
    checkpoint) and the environment's DSPARK modes as the pasted line read them."""
    options: dict[str, object] = {}
    if sg.runners and RUNNER in sg.runners and not _samples_anchor(sg.runners[RUNNER]):
        options["dspark_samples_anchor"] = False
    if gf is not None and gf.plan is not None:
        config = gf.plan.config
        options.update({k: getattr(config, k) for k in ENV_OPTIONS
                        if getattr(config, k) != DEFAULTS[k]})
    return bd.translated_with(sg, options)


def _samples_anchor(run: so.Runner) -> bool:
    """The draft's `sample_from_anchor` as SGLang reads it: its own sampler's when one is
    folded, else SGLang's own `get_dspark_sample_from_anchor` on the draft model runner's
    hf_config (no sampler under SGLANG_DSPARK_FOLDED_PROPOSAL=0; the width still depends
    on it, model_runner.py:880-895)."""
    if run.live.sampler is not None:
        return bool(run.live.sampler.sample_from_anchor)
    from sglang.srt.speculative.dspark_components.dspark_config import (
        get_dspark_sample_from_anchor,
    )

    return bool(get_dspark_sample_from_anchor(run.live.model_runner.model_config.hf_config))


def dspark(*extra: str, draft: bool = True) -> tuple[str, ...]:
    argv = ["--speculative-algorithm", "DSPARK", *extra]
    return tuple(with_draft(argv) if draft else argv)


@st.composite
def dspark_lines(draw: st.DrawFn) -> tuple[tuple[str, ...], float | None]:
    """Generated DSPARK lines: gamma by --speculative-dspark-block-size or the verify window
    by --speculative-num-draft-tokens (or both, equal or clashing, or out of range), steps /
    topk SGLang overrides, the decode graph settings, TP / attention DP / CP, two-batch
    overlap; the draft: the oracle's model, a local draft naming its gamma (any of SGLang's three
    keys) and / or sample_from_anchor, or none (refused by both); a VAR=value prefix of SGLang's
    DSPARK environment variables on half the lines; S left to SGLang on 1 line in 5."""
    argv = [*environment(draw), *bd.running_requests(draw)]
    argv += ["--speculative-algorithm", draw(st.sampled_from(("DSPARK", "dspark")))]
    gamma = draw(st.integers(1, 15))
    how = draw(st.sampled_from(("drafts", "drafts", "block", "block", "both", "both",
                                "clash", "low", "none", "none")))
    if how in ("drafts", "both"):
        argv += ["--speculative-num-draft-tokens", str(gamma + 1)]
    if how in ("block", "both"):
        argv += ["--speculative-dspark-block-size", str(gamma)]
    if how == "clash":  # speculative_hook.py:826-835
        argv += ["--speculative-num-draft-tokens", str(gamma),
                 "--speculative-dspark-block-size", str(gamma)]
    if how == "low":  # a window below 2 or a block below 1 (:807-812, :846-850)
        argv += draw(st.sampled_from((["--speculative-num-draft-tokens", "1"],
                                      ["--speculative-dspark-block-size", "0"])))
    argv += shared_flags(draw)
    kind = draw(st.sampled_from(("oracle", "oracle", "local", "local", "local", "missing")))
    if kind == "oracle":  # the oracle's model: no gamma, samples from the anchor
        argv = with_draft(argv)
    elif kind == "local":  # a draft naming its gamma and / or sample_from_anchor
        key = draw(st.sampled_from((None, "dspark_block_size", "block_size", "dflash_config")))
        argv += [DRAFT, draft_dir(key, None if key is None else draw(st.integers(1, 12)),
                                  draw(st.sampled_from((None, True, False))))]
    gb = draw(st.sampled_from((16, 24, 48, 80, 141, 192)))
    return tuple(argv), gb
