"""DSPARK lines with no `--speculative-draft-model-path`: SGLang 0.5.23's own argument
pipeline and runners against graphfit's pasted line, on a target directory that bundles the
draft or keeps it in a `dspark/` folder (or neither).

SGLang's `_handle_dspark` fills the draft path in from the target (speculative_hook.py:720-745:
the target itself when its config carries a prefixed dspark_* key, dspark_config.py:162-174,
else its local `dspark/` folder holding a config.json, :625-638), and refuses the line when it
finds neither (:751-755). The lines are the DSPARK oracle's generated ones
(sglang_dspark_compare.dspark_lines) with their draft moved into the target: the draft
directory's config.json becomes the target's `dspark/config.json` ("subfolder"), or the target's
own config.json with a prefixed key added where it has none ("bundled": the draft's config then
IS the target's, as SGLang reads it), or the draft is dropped ("none"). Compared as the DSPARK
oracle compares a line with a draft path (sglang_block_drafts.compare_line): acceptance, the
ladders, components, every buffer, the draft's padding, both runners' widths, then the
model-level aspects with graphfit given SGLang's resolved values.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from unittest import mock

from hypothesis import strategies as st

from tests.helpers import run_cli
from tests.oracle import sglang_block_drafts as bd
from tests.oracle import sglang_compare as sc
from tests.oracle import sglang_dspark_compare as dc
from tests.oracle import sglang_oracle as so

PLACES = ("subfolder", "bundled", "both", "none")
PREFIXED = ("dspark_block_size", "dspark_markov_rank", "dspark_noise_token_id",
            "dspark_target_layer_ids")  # dspark_config.py:166-174
_TARGETS = tempfile.TemporaryDirectory(prefix="graphfit-dspark-fill-")


@functools.cache
def target_dir(draft: str | None, place: str) -> str:
    """A target directory carrying the draft directory `draft`'s config (module docstring):
    "subfolder" as dspark/config.json over the oracle's model config, "bundled" as the
    target's own config.json (a prefixed dspark_noise_token_id added, equal to the draft's
    mask token 0, when it names no prefixed key), "both" the two, "none" the oracle's model
    config alone."""
    digest = hashlib.sha256(f"{draft}|{place}".encode()).hexdigest()[:12]
    root = Path(_TARGETS.name) / f"target-{place}-{digest}"
    if root.exists():
        return str(root)
    root.mkdir(parents=True)
    model = json.loads((so.oracle().model_dir / "config.json").read_text())
    source = None if draft is None else Path(draft) / "config.json"
    if place in ("bundled", "both") and source is not None:
        model = json.loads(source.read_text())
        if not any(model.get(key) is not None for key in PREFIXED):
            model["dspark_noise_token_id"] = model.get("mask_token_id", 0) or 0
    (root / "config.json").write_text(json.dumps(model))
    if place in ("subfolder", "both") and source is not None:
        (root / "dspark").mkdir()
        shutil.copy(source, root / "dspark" / "config.json")
    return str(root)


def moved(argv: tuple[str, ...], place: str) -> tuple[tuple[str, ...], str]:
    """(`argv` without its draft path, the target directory carrying that draft at `place`)."""
    words = list(argv)
    draft = None
    if dc.DRAFT in words:
        i = words.index(dc.DRAFT)
        draft = words[i + 1]
        del words[i:i + 2]
    return tuple(words), target_dir(draft, "none" if draft is None else place)


@functools.lru_cache(maxsize=1024)
def sglang(argv: tuple[str, ...], target: str, gpu_mem_gb: float | None) -> sc.SglangAnswer:
    """SGLang's answer on `--model-path target` (sglang_compare.sglang), under the line's
    VAR=value prefix."""
    env, flags = bd.split_env(argv)
    with mock.patch.dict(os.environ, env):
        resolved = so.resolve(flags, gpu_mem_gb=gpu_mem_gb, model=target)
        if isinstance(resolved, so.Rejected):
            return sc.SglangAnswer(resolved, None)
        try:
            return sc.SglangAnswer(resolved, so.runners(resolved))
        except Exception as exc:  # the server would not start (sglang_compare.sglang)
            return sc.SglangAnswer(resolved, None, f"{type(exc).__name__}: {exc}")


@functools.lru_cache(maxsize=1024)
def pasted(argv: tuple[str, ...], target: str, gpu_mem_gb: float | None
           ) -> sc.GraphfitAnswer:
    """graphfit's reading of the same line pasted, with `--model-path target`
    (sglang_block_drafts.pasted)."""
    env, flags = bd.split_env(argv)
    args = ["plan", "--json"]
    if gpu_mem_gb is not None:
        args += ["--gpu-memory-gb", f"{gpu_mem_gb:g}"]
    code, out, text = run_cli([*args, "--", *(f"{k}={v}" for k, v in env.items()), "python",
                               "-m", "sglang.launch_server", "--model-path", target, *flags])
    if code != 0:
        errors = [ln for ln in text.splitlines() if "error" in ln]
        return sc.GraphfitAnswer(argv, (errors or [f"exit {code}"])[-1])
    config = sc.EngineConfig.from_dict(json.loads(out)["config"])
    return sc.GraphfitAnswer(argv, None, sc.graphfit.plan(config))


def compare_line(argv: tuple[str, ...], target: str, gpu_mem_gb: float | None = 80
                 ) -> tuple[str, list[sc.Difference]]:
    """(outcome, differences) as sglang_block_drafts.compare_line, on `target`."""
    sg, gf = sglang(argv, target, gpu_mem_gb), pasted(argv, target, gpu_mem_gb)
    settled = sc.settled_by_acceptance(sg, gf)
    if settled is not None:
        return settled
    assert sg.runners is not None and gf.plan is not None
    diffs = sc.compare_target_ladder(sg, gf) + sc.compare_components(sg, gf)
    diffs += sc.compare_draft_ladder(sg, gf) + dc.compare_widths(sg, gf)
    if dc.RUNNER in sg.runners and sc._gf_graphs(gf):
        diffs += (sc.compare_buffers(sg, gf) + sc.compare_padding(sg, gf, dc.RUNNER)
                  + bd.compare_sampler_names(sg, gf, dc.RUNNER))
    for found in sc.compare_model(sg, _translated(sg, gf, target)).values():
        diffs += found
    outcome = "runner" if dc.RUNNER in sg.runners else "no_runner"
    return ("differs" if diffs else outcome), diffs


def _translated(sg: sc.SglangAnswer, gf: sc.GraphfitAnswer, target: str) -> sc.GraphfitAnswer:
    """sglang_dspark_compare.translated with `target` as the model graphfit's flags name
    (sglang_compare.outside_inputs names the oracle's model), uncached: a bundled target's
    config is the draft's, whose dtype / vocabulary may differ from the oracle model's."""
    def outside(gpu_mem_gb: float | None) -> tuple[str, ...]:
        gpu = () if gpu_mem_gb is None else ("--gpu-memory-gb", f"{gpu_mem_gb:g}")
        return ("--model-path", target, *gpu)

    with mock.patch.object(sc, "outside_inputs", outside), \
            mock.patch.object(sc, "graphfit_cli", sc.graphfit_cli.__wrapped__):
        return dc.translated(sg, gf)


@st.composite
def filled_lines(draw: st.DrawFn) -> tuple[tuple[str, ...], str, float | None]:
    """(argv with no draft path, the target directory, GPU GiB): a generated DSPARK line
    (sglang_dspark_compare.dspark_lines) whose draft is moved into the target at one of
    PLACES; a MiniMax M3.1 draft only into a dspark/ folder (bundled, it would make the
    target a MiniMax one)."""
    argv, gb = draw(dc.dspark_lines())
    place = draw(st.sampled_from(PLACES))
    if place in ("bundled", "both") and any("/minimax-" in word for word in argv):
        place = "subfolder"
    words, target = moved(argv, place)
    return words, target, gb


__all__ = ["PLACES", "compare_line", "filled_lines", "moved", "pasted", "sglang", "target_dir"]
