"""What the DFLASH and DSPARK oracles share: both speculate a whole block in one draft forward
whose graph runner is a `DecodeCudaGraphRunner` on the draft model runner with a sampler
folded into it, so one line is compared the same way for both (sglang_dflash_compare,
sglang_dspark_compare) and both measure scripts count the same outcomes.

A line may start with `VAR=value` words: the environment SGLang runs under (set in
os.environ while SGLang's own pipeline and runners are built) and the prefix graphfit reads
on the pasted line (graphfit.inputs.commandline.shell_words).
"""

from __future__ import annotations

import collections
import functools
import hashlib
import json
import os
import re
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import run_cli
from tests.oracle import sglang_compare as sc
from tests.oracle import sglang_oracle as so

_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
Line = tuple[tuple[str, ...], float | None]


def split_env(argv: tuple[str, ...]) -> tuple[dict[str, str], tuple[str, ...]]:
    """(the leading VAR=value words as an environment, the flags after them)."""
    env: dict[str, str] = {}
    i = 0
    while i < len(argv) and _ASSIGNMENT.match(argv[i]):
        name, _, value = argv[i].partition("=")
        env[name] = value
        i += 1
    return env, argv[i:]


@functools.lru_cache(maxsize=2048)
def sglang(argv: tuple[str, ...], gpu_mem_gb: float | None = 80) -> sc.SglangAnswer:
    """SGLang's answer to the line, run under its VAR=value prefix (none: the shared cache)."""
    env, flags = split_env(argv)
    if not env:
        return sc.sglang(flags, gpu_mem_gb)
    with mock.patch.dict(os.environ, env):
        return sc.sglang.__wrapped__(flags, gpu_mem_gb)


def pasted(argv: tuple[str, ...], gpu_mem_gb: float | None) -> sc.GraphfitAnswer:
    """graphfit's reading of the pasted launch_server line (the oracle's model directory as
    --model-path, the fake GPU's memory as --gpu-memory-gb; a VAR=value prefix stays in
    front of the command, as a shell line carries it)."""
    env, flags = split_env(argv)
    args = ["plan", "--json"]
    if gpu_mem_gb is not None:
        args += ["--gpu-memory-gb", f"{gpu_mem_gb:g}"]
    code, out, text = run_cli([*args, "--", *(f"{k}={v}" for k, v in env.items()), "python",
                               "-m", "sglang.launch_server", "--model-path",
                               str(so.oracle().model_dir), *flags])
    if code != 0:
        errors = [ln for ln in text.splitlines() if "error" in ln]
        return sc.GraphfitAnswer(argv, (errors or [f"exit {code}"])[-1])
    config = sc.EngineConfig.from_dict(json.loads(out)["config"])
    return sc.GraphfitAnswer(argv, None, sc.graphfit.plan(config))


def compare_sampler_names(sg: sc.SglangAnswer, gf: sc.GraphfitAnswer, runner: str
                          ) -> list[sc.Difference]:
    """The folded sampler's buffers by name, both ways: compare_buffers looks only at the
    buffers SGLang allocates, so a sampler buffer graphfit plans beyond them shows here."""
    assert sg.runners is not None and gf.plan is not None
    if runner not in sg.runners or runner not in gf.plan.components:
        return []
    ours = {n for n in sg.runners[runner].buffers if n.startswith("sampler_")}
    theirs = {b.name for b in gf.plan.components[runner].buffers
              if b.name.startswith("sampler_")}
    if ours == theirs:
        return []
    return [sc.Difference("sampler", f"{runner}: SGLang allocates {sorted(ours)}, graphfit "
                                     f"plans {sorted(theirs)}", short=bool(ours - theirs))]


def compare_line(argv: tuple[str, ...], gpu_mem_gb: float | None, runner: str,
                 extra: Callable[[sc.SglangAnswer, sc.GraphfitAnswer], list[sc.Difference]],
                 translated: Callable[[sc.SglangAnswer, sc.GraphfitAnswer], sc.GraphfitAnswer]
                 ) -> tuple[str, list[sc.Difference]]:
    """(outcome, differences): outcome "runner" (both plan; SGLang builds the draft runner
    `runner`), "no_runner" (both plan, no draft graphs), "rejected" (both refuse) or
    "differs". Compared: acceptance; the pasted line's ladders, components, the draft's
    padding of every batch, every buffer both ways (sampler included, also with S left to
    SGLang's default; none graphfit plans that SGLang's runner lacks) and `extra`; then
    every model-level aspect with graphfit given SGLang's resolved values (`translated`:
    what those flags cannot carry, taken from the pasted plan)."""
    sg = sglang(argv, gpu_mem_gb)
    gf = pasted(argv, gpu_mem_gb)
    settled = sc.settled_by_acceptance(sg, gf)
    if settled is not None:
        return settled
    assert sg.runners is not None and gf.plan is not None
    diffs = sc.compare_target_ladder(sg, gf) + sc.compare_components(sg, gf)
    diffs += sc.compare_draft_ladder(sg, gf) + extra(sg, gf)
    if runner in sg.runners and sc._gf_graphs(gf):
        diffs += (sc.compare_buffers(sg, gf, extra=True) + sc.compare_padding(sg, gf, runner)
                  + compare_sampler_names(sg, gf, runner))
    for found in sc.compare_model(sg, translated(sg, gf), extra_buffers=True).values():
        diffs += found
    outcome = "runner" if runner in sg.runners else "no_runner"
    return ("differs" if diffs else outcome), diffs


def shared_flags(draw: st.DrawFn) -> list[str]:
    """The flags every generated block-draft line draws alike, in one fixed draw order:
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
        argv += so.tbo(argv)
    return argv


def running_requests(draw: st.DrawFn) -> list[str]:
    """--max-running-requests on 4 lines in 5 (any, or a small one); the fifth leaves S to
    SGLang's speculative default of 48 (speculative_hook.py:438-443, 852-856)."""
    if draw(st.integers(0, 4)) == 0:
        return []
    return ["--max-running-requests", str(draw(st.sampled_from(
        (draw(st.integers(1, 600)), draw(st.integers(1, 64))))))]


def measure(name: str, lines: st.SearchStrategy[Line],
            compare: Callable[..., tuple[str, list[sc.Difference]]], n: int,
            counters: dict[str, Callable[[Line], bool]] | None = None) -> int:
    """Compare n generated lines; print the agree / differ counts (and each named counter:
    how many lines it held for), the first differences; exit status 1 when any differs."""
    counts: collections.Counter[str] = collections.Counter()
    shown: list[str] = []
    start = time.perf_counter()
    counters = counters or {}

    @settings(max_examples=n, derandomize=False, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(lines)
    def draw(case: Line) -> None:
        outcome, diffs = compare(*case)
        counts[outcome] += 1
        for label, holds in counters.items():
            counts[label] += holds(case)
        if diffs and len(shown) < 10:
            shown.append(f"{' '.join(case[0])} ({case[1]} GB): {diffs[0]}")

    draw()
    total = sum(counts[k] for k in ("runner", "no_runner", "rejected", "differs",
                                    "not_modelled"))
    agree = total - counts["differs"] - counts["not_modelled"]
    extra = "".join(f"; {label} on {counts[label]} lines" for label in counters)
    # lines SGLang starts and graphfit refuses as not modelled (a compare's own outcome)
    apart = (f", {counts['not_modelled']} refused by graphfit as not modelled"
             if counts["not_modelled"] else "")
    summary = (f"{total} generated {name} lines in {time.perf_counter() - start:.0f} s: "
               f"{agree}/{total} agree (runner {counts['runner']}, no draft graphs "
               f"{counts['no_runner']}, rejected by both {counts['rejected']}), "
               f"{counts['differs']} differ{apart}{extra}")
    return sc.report(summary, shown, counts)


def main(name: str, lines: st.SearchStrategy[Line],
         compare: Callable[..., tuple[str, list[sc.Difference]]],
         counters: dict[str, Callable[[Line], bool]] | None = None) -> None:
    """A measure script's entry point: N from argv (200 by default)."""
    sys.exit(measure(name, lines, compare, int(sys.argv[1]) if len(sys.argv) > 1 else 200,
                     counters))


def no_extra(sg: sc.SglangAnswer, gf: sc.GraphfitAnswer) -> list[sc.Difference]:
    return []


def translated_plain(sg: sc.SglangAnswer, gf: sc.GraphfitAnswer) -> sc.GraphfitAnswer:
    return sc.graphfit_translated(sg)


def translated_with(sg: sc.SglangAnswer, options: dict[str, Any]) -> sc.GraphfitAnswer:
    """graphfit given SGLang's resolved values (sglang_compare.translated_argv) plus `options`
    (what those flags cannot carry: a draft checkpoint's or the environment's settings),
    handed over in a --config file so the plan is made with them from the start (a width that
    depends on them may decide whether the flags alone are accepted)."""
    if not options:
        return sc.graphfit_translated(sg)
    text = json.dumps(options, sort_keys=True)  # JSON is YAML
    path = _config_dir() / f"{hashlib.sha256(text.encode()).hexdigest()[:16]}.yaml"
    if not path.exists():
        path.write_text(text)
    return sc.graphfit_cli((*sc.translated_argv(sg), "--config", str(path)), None)


@functools.cache
def _config_dir() -> Path:
    return Path(tempfile.mkdtemp(prefix="graphfit-translated-options-"))
