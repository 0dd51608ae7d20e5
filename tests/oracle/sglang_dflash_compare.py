"""SGLang 0.5.23's DFLASH lines: SGLang's own argument pipeline and runners against graphfit.

SGLang's side is `sglang_compare.sglang` (prepare_server_args + resolve_once, then the target
runner and the DFLASH draft runner built by sglang_oracle._dflash_runner on CPU). graphfit
reads the very same line pasted (`graphfit plan --json -- python -m sglang.launch_server
...`), and the model-level aspects are compared as for every other SGLang line
(sglang_compare.compare_model: graphfit given SGLang's resolved values).
"""

from __future__ import annotations

import functools
import hashlib
import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from tests.helpers import run_cli
from tests.oracle import sglang_compare as sc
from tests.oracle import sglang_oracle as so

DRAFT = "--speculative-draft-model-path"


def pasted(argv: tuple[str, ...], gpu_mem_gb: float | None) -> sc.GraphfitAnswer:
    """graphfit's reading of the pasted launch_server line (the oracle's model directory as
    --model-path, the fake GPU's memory as --gpu-memory-gb)."""
    args = ["plan", "--json"]
    if gpu_mem_gb is not None:
        args += ["--gpu-memory-gb", f"{gpu_mem_gb:g}"]
    code, out, text = run_cli([*args, "--", "python", "-m", "sglang.launch_server",
                               "--model-path", str(so.oracle().model_dir), *argv])
    if code != 0:
        errors = [ln for ln in text.splitlines() if "error" in ln]
        return sc.GraphfitAnswer(argv, (errors or [f"exit {code}"])[-1])
    config = sc.EngineConfig.from_dict(json.loads(out)["config"])
    return sc.GraphfitAnswer(argv, None, sc.graphfit.plan(config))


def compare_line(argv: tuple[str, ...], gpu_mem_gb: float | None = 80
                 ) -> tuple[str, list[sc.Difference]]:
    """(outcome, differences): outcome "runner" (both plan; SGLang builds the DFLASH draft
    runner), "no_runner" (both plan, no draft graphs), "rejected" (both refuse) or
    "differs"."""
    sg = sc.sglang(argv, gpu_mem_gb)
    gf = pasted(argv, gpu_mem_gb)
    diffs = sc.compare_acceptance(sg, gf)
    if diffs:
        return "differs", diffs
    if sg.rejected is not None:
        return "rejected", []
    # the pasted line's plan: ladders and components as SGLang built them
    diffs += sc.compare_target_ladder(sg, gf) + sc.compare_components(sg, gf)
    diffs += sc.compare_draft_ladder(sg, gf) + compare_speculation(sg, gf)
    # every model-level aspect (ladders, padding of every batch, buffers, fills)
    for found in sc.compare_model(sg).values():
        diffs += found
    assert sg.runners is not None
    outcome = "runner" if "dflash_draft" in sg.runners else "no_runner"
    return ("differs" if diffs else outcome), diffs


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
    text = json.dumps({**base, **extra}, sort_keys=True)
    directory = _drafts_root() / hashlib.sha256(text.encode()).hexdigest()[:16]
    if not directory.exists():
        directory.mkdir()
        (directory / "config.json").write_text(text)
    return str(directory)


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


def shared_flags(draw: st.DrawFn) -> list[str]:
    """The flags every generated speculative line draws alike, in one fixed draw order:
    ignored steps / topk, the decode graph list, TP and its attention split, two-batch
    overlap (DFLASH's and DSPARK's generators both append them)."""
    argv: list[str] = []
    if draw(st.integers(0, 3)) == 0:
        argv += ["--speculative-num-steps", str(draw(st.integers(1, 5))),
                 "--speculative-eagle-topk", str(draw(st.sampled_from((1, 2, 4))))]
    graphs = draw(st.sampled_from(("default", "max_bs", "bs", "padding_off", "off", "json")))
    if graphs == "max_bs":
        argv += ["--cuda-graph-max-bs-decode", str(draw(st.integers(1, 400)))]
    elif graphs == "bs":
        sizes = draw(st.lists(st.integers(1, 300), min_size=1, max_size=6, unique=True))
        argv += ["--cuda-graph-bs-decode", *map(str, sizes)]
    elif graphs == "padding_off":
        argv.append("--disable-cuda-graph-padding")
    elif graphs == "off":
        argv.append(draw(st.sampled_from(("--disable-decode-cuda-graph",
                                          "--disable-cuda-graph"))))
    elif graphs == "json":
        argv += ["--cuda-graph-config",
                 json.dumps({"decode": {"max_bs": draw(st.integers(1, 300))}})]
    tp = draw(st.sampled_from((1, 1, 2, 4)))
    if tp > 1:
        argv += ["--tp-size", str(tp)]
        split = draw(st.sampled_from(("none", "none", "dp", "cp")))
        if split == "dp":
            argv += ["--attn-dp-size", "2"]
        elif split == "cp":
            argv += ["--attn-cp-size", "2"]
    if draw(st.integers(0, 3)) == 0:
        argv.append("--enable-two-batch-overlap")
    return argv


@st.composite
def dflash_lines(draw: st.DrawFn) -> tuple[tuple[str, ...], float | None]:
    """Generated DFLASH lines: block size by either flag (or both, equal or not), steps /
    topk SGLang overrides, the decode graph settings, TP / attention DP / CP, two-batch
    overlap, a draft path mostly given; or no block on the line and a draft directory whose
    config.json names it (or not: 16), with the override args and a draft window. Not drawn
    (graphfit refuses, SGLang starts; see docs/engines/sglang-coverage.md): no block size and
    no local draft config, a block of 1."""
    argv: list[str] = []
    if draw(st.integers(0, 4)) > 0:
        argv += ["--max-running-requests", str(draw(st.sampled_from(
            (draw(st.integers(1, 600)), draw(st.integers(1, 64))))))]
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
        if draw(st.integers(0, 4)) == 0:
            argv += ["--json-model-override-args",
                     json.dumps({"block_size": draw(st.integers(2, 16))})]
        argv += [DRAFT, draft_dir(draw(block_fields()))]
    elif draw(st.integers(0, 7)) > 0:
        argv = with_draft(argv)
    # a pasted line with no --gpu-memory-gb is planned for an assumed 80 GB GPU (graphfit
    # says so in a note), so the GPU memory is always given to both here; unknown memory is
    # compared on the flag path by test_sglang_oracle.py
    gb = draw(st.sampled_from((16, 24, 48, 80, 141, 192)))
    return tuple(argv), gb
