"""SGLang 0.5.23's DFLASH lines: SGLang's own argument pipeline and runners against graphfit.

SGLang's side is `sglang_compare.sglang` (prepare_server_args + resolve_once, then the target
runner and the DFLASH draft runner built by sglang_oracle._dflash_runner on CPU). graphfit
reads the very same line pasted (`graphfit plan --json -- python -m sglang.launch_server
...`), and the model-level aspects are compared as for every other SGLang line
(sglang_compare.compare_model: graphfit given SGLang's resolved values).
"""

from __future__ import annotations

import functools
import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from tests.oracle import sglang_block_drafts as bd
from tests.oracle import sglang_compare as sc
from tests.oracle import sglang_oracle as so
from tests.oracle.config_dirs import content_dir
from tests.oracle.sglang_block_drafts import pasted, shared_flags

__all__ = ["DRAFT", "compare_line", "dflash_lines", "draft_dir", "pasted", "shared_flags",
           "with_draft"]

DRAFT = "--speculative-draft-model-path"
RUNNER = "dflash_draft"
# the draft-config options the translated flags cannot carry (graphfit.inputs.sglang_draft)
SAMPLER_OPTIONS = ("dflash_domino", "dflash_selector_top_k", "dflash_lilicorr_top_k",
                   "dflash_lilicorr_head",
                   "dflash_eager_sampler",  # from the line's environment
                   # the draft's own vocabulary and dtype (graphfit.inputs.sglang_draft_shape)
                   "draft_vocab_size", "draft_dtype")


def compare_line(argv: tuple[str, ...], gpu_mem_gb: float | None = 80
                 ) -> tuple[str, list[sc.Difference]]:
    """(outcome, differences), as sglang_block_drafts.compare_line for the DFLASH draft
    runner, plus the resolved speculation of the pasted line."""
    return bd.compare_line(argv, gpu_mem_gb, RUNNER, compare_speculation, translated)


def translated(sg: sc.SglangAnswer, gf: sc.GraphfitAnswer) -> sc.GraphfitAnswer:
    """graphfit given SGLang's resolved values, with the draft config's sampler kind (read
    from the same draft by the pasted line: the flags carry no draft checkpoint)."""
    assert gf.plan is not None and isinstance(sg.resolved, so.Resolved)
    config = gf.plan.config
    options = {k: getattr(config, k) for k in SAMPLER_OPTIONS if getattr(config, k)}
    # SGLang's target dtype (its ModelConfig's, sglang_oracle._target_dtype), which the
    # translated flags do not carry either; the oracle model's bfloat16 is graphfit's default
    dtype = str(so._target_dtype(sg.resolved)).removeprefix("torch.")
    if dtype != "bfloat16":
        options["dtype"] = dtype
    return bd.translated_with(sg, options)


def compare_speculation(sg: sc.SglangAnswer, gf: sc.GraphfitAnswer) -> list[sc.Difference]:
    """The pasted line's resolved speculation (block = verify and draft width, steps, topk)
    against SGLang's resolved record: the block may come from the draft's config.json."""
    r = sg.resolved
    assert isinstance(r, so.Resolved) and gf.plan is not None
    config = gf.plan.config
    ours = (r.speculative_num_draft_tokens, r.speculative_num_steps, r.speculative_eagle_topk)
    theirs = (config.speculative_num_draft_tokens, config.num_speculative_tokens,
              config.speculative_eagle_topk)
    if ours == theirs:
        return []
    return [sc.Difference("speculation", f"SGLang (draft tokens, steps, topk) {ours} vs "
                                         f"graphfit {theirs}")]


def with_draft(argv: list[str]) -> list[str]:
    return [*argv, DRAFT, str(so.oracle().model_dir)]


@functools.cache
def _drafts_root() -> Path:
    return Path(tempfile.mkdtemp(prefix="graphfit-sglang-drafts-"))


def draft_dir(extra: dict[str, Any]) -> str:
    """A draft model directory: the oracle's Llama config.json (same widths as the target, so
    the oracle's draft model runner stub holds) plus `extra` keys (block_size, dflash_config,
    architectures...). Named by its content, so a line names the same directory each time
    (SGLang's answers are cached per line)."""
    base = json.loads((so.oracle().model_dir / "config.json").read_text())
    return content_dir(_drafts_root(), json.dumps({**base, **extra}, sort_keys=True), digits=16)


def block_fields() -> st.SearchStrategy[dict[str, Any]]:
    """Where a draft config names its block: top-level, in dflash_config (which wins, even
    as null: dflash_utils.py:608-611), both, neither; as an int or a numeric string."""
    size = st.integers(2, 16)
    value = st.one_of(size, size.map(str))
    return st.one_of(
        st.just({}),
        value.map(lambda b: {"block_size": b}),
        value.map(lambda b: {"dflash_config": {"block_size": b}}),
        st.tuples(value, value).map(lambda t: {"block_size": t[0],
                                               "dflash_config": {"block_size": t[1]}}),
        value.map(lambda b: {"block_size": b, "dflash_config": {"block_size": None}}),
        st.just({"dflash_config": {"target_layer_ids": [1, 2, 3]}}))


LILICORR = {"lilicorr_hidden_size": 0, "lilicorr_num_layers": 2, "lilicorr_num_heads": 4,
            "lilicorr_mlp_ratio": 2.0, "lilicorr_factor_dim": 16, "lilicorr_vector_eps": 1e-6,
            "lilicorr_logit_scale": 1.0}


def heads() -> st.SearchStrategy[dict[str, Any]]:
    """The draft's head: a plain DFlash one (3 in 4) or a LiLiCorr one with a candidate
    top-k SGLang accepts (1..16, a power of two) or rejects (3, 32: the draft would not load;
    lilicorr_utils.py:73-83), its width the draft's (0, 4096), narrower (256: a token table,
    models/lilicorr.py:171-180, 448-456) or one its 4 heads cannot split (30: refused,
    models/lilicorr.py:78-82)."""
    return st.one_of(st.just({}), st.just({}), st.just({}), st.tuples(
        st.sampled_from((1, 2, 4, 8, 16, 3, 32)), st.sampled_from((0, 0, 256, 4096, 30))).map(
        lambda t: {**LILICORR, "lilicorr_candidate_topk": t[0], "lilicorr_hidden_size": t[1]}))


# a LiLiCorr head field and a value `--json-model-override-args` gives it: shapes the saved
# weights lack (refused at load, models/lilicorr.py:459-483) or none (loads)
HEAD_OVERRIDES: tuple[tuple[str, object], ...] = (
    ("lilicorr_num_layers", 1), ("lilicorr_num_layers", 3), ("lilicorr_num_heads", 8),
    ("lilicorr_mlp_ratio", 3.0), ("lilicorr_factor_dim", 32), ("lilicorr_candidate_topk", 2),
    ("lilicorr_hidden_size", 4096), ("lilicorr_vector_eps", 1e-3))


def head_override(draw: st.DrawFn, draft: dict[str, Any]) -> list[str]:
    """On 1 LiLiCorr draft in 2, `--json-model-override-args` replacing its dflash_config
    with one of HEAD_OVERRIDES' fields moved (SGLang builds the head from it, the weights
    were saved at the config as written); nothing otherwise."""
    if "architectures" not in draft or not draw(st.booleans()):
        return []
    field, value = draw(st.sampled_from(HEAD_OVERRIDES))
    return ["--json-model-override-args",
            json.dumps({"dflash_config": {**draft["dflash_config"], field: value}})]


def with_head(draft: dict[str, Any], head: dict[str, Any]) -> dict[str, Any]:
    """A draft config with the head's fields merged into its dflash_config."""
    if not head:
        return draft
    nested = draft.get("dflash_config")
    return {**draft, "architectures": ["LiLiCorrDraftModel"],
            "dflash_config": {**(nested if isinstance(nested, dict) else {}), **head}}


@st.composite
def dflash_lines(draw: st.DrawFn) -> tuple[tuple[str, ...], float | None]:
    """Generated DFLASH lines: block size by either flag (or both, equal or not), steps /
    topk SGLang overrides, the decode graph settings, TP / attention DP / CP, two-batch
    overlap, a draft path mostly given (a LiLiCorr draft on some lines); or no block on the
    line and a draft directory whose config.json names it (or not: 16), with the override args
    and a draft window, its head a plain DFlash or a LiLiCorr one; S left to SGLang on 1 line
    in 5. Not drawn
    (graphfit refuses, SGLang starts; see docs/engines/sglang-coverage.md): no block size and
    no local draft config, a block of 1."""
    argv = bd.running_requests(draw)
    if draw(st.integers(0, 5)) == 0:  # SGLang's EnvBool spellings (environ.py:143-150)
        argv = [f"SGLANG_DFLASH_EAGER_DRAFT_SAMPLER="
                f"{draw(st.sampled_from(('1', 'true', 'Y', '0', 'no', 'on')))}", *argv]
    argv += ["--speculative-algorithm", draw(st.sampled_from(("DFLASH", "dflash")))]
    block = draw(st.integers(2, 16))
    how = draw(st.sampled_from(("drafts", "drafts", "block", "block", "both", "both",
                                "clash", "config", "config", "config")))
    if how in ("drafts", "both"):
        argv += ["--speculative-num-draft-tokens", str(block)]
    if how in ("block", "both"):
        argv += ["--speculative-dflash-block-size", str(block)]
    if how == "clash":
        argv += ["--speculative-num-draft-tokens", str(block),
                 "--speculative-dflash-block-size", str(block + 1)]
    argv += shared_flags(draw)
    if how == "config":  # no block on the line: the draft's config.json gives it
        if draw(st.integers(0, 3)) == 0:
            argv += ["--speculative-draft-window-size", str(draw(st.integers(2, 20)))]
        override = draw(st.integers(0, 4)) == 0
        if override:
            argv += ["--json-model-override-args",
                     json.dumps({"block_size": draw(st.integers(2, 16))})]
        draft = with_head(draw(block_fields()), draw(heads()))
        if not override:
            argv += head_override(draw, draft)
        argv += [DRAFT, draft_dir(draft)]
    elif draw(st.integers(0, 5)) == 0:  # a LiLiCorr draft with the block on the line
        draft = with_head({}, draw(heads().filter(bool)))
        argv += [*head_override(draw, draft), DRAFT, draft_dir(draft)]
    elif draw(st.integers(0, 7)) > 0:
        argv = with_draft(argv)
    # a pasted line with no --gpu-memory-gb is planned for an assumed 80 GB GPU (graphfit
    # says so in a note), so the GPU memory is always given to both here; unknown memory is
    # compared on the flag path by test_sglang_oracle.py
    gb = draw(st.sampled_from((16, 24, 48, 80, 141, 192)))
    return tuple(argv), gb
