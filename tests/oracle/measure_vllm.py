"""How often graphfit agrees with vLLM 0.33, per aspect, and every class of difference.

    PYTHONPATH=. python -m tests.oracle.measure_vllm [N] [SEED]   # default 4000 configs, seed 7

Generates N configs (plus the test module's edge grid), compares each with
`vllm_compare.compare`, prints the agreement table and, per difference class, the count,
whether graphfit ends up with less capacity than vLLM pads to (unsafe), a minimal reproducer
(the smallest config of the class), both answers and the vLLM file:line that decides it.
About 25 ms per config on one core.
"""

from __future__ import annotations

import dataclasses
import random
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from tests.oracle import vllm_compare as vc
from tests.oracle import vllm_oracle as vo
from tests.oracle.vllm_oracle import Case

GRAPHFIT_METHODS = ("eagle", "eagle3", "mtp", "draft_model", "dflash", "ngram")


def random_case(rng: random.Random, *, expressible: bool) -> Case:
    S = rng.choice([1, 7, 33, 97, 255, 256, 257, 511, 512, 513, 1023, 1024,
                    rng.randint(1, 1100), rng.randint(1, 64)])
    k = rng.randint(0, 15)
    method = rng.choice(GRAPHFIT_METHODS if expressible else vo.METHODS) if k else None
    q = 1 + k
    T = rng.choice([8192, rng.randint(max(1, S - 2), max(S, 2 * S * q) + 16),
                    rng.randint(S, 16384), rng.randint(S, S * q + 8)])
    sizes = None if rng.random() < 0.7 else tuple(
        rng.randint(1, T + 64) for _ in range(rng.randint(1, 8)))
    max_size = None if rng.random() < 0.7 else rng.choice(
        [rng.randint(1, 1100), q, 2 * S * q, T])
    return Case(
        S=S, T=T, k=k, method=method, mode=rng.choice(vo.MODES), sizes=sizes, max_size=max_size,
        performance_mode=rng.choice(("balanced", "balanced", "interactivity", "throughput")),
        blackwell=rng.random() < 0.3, enforce_eager=rng.random() < 0.05,
        support="ALWAYS" if expressible else rng.choice(vo.SUPPORT_LEVELS),
        draft_support=None if expressible else rng.choice([None, *vo.SUPPORT_LEVELS]),
        dspark_fill_in=False if expressible else rng.random() < 0.5,
        max_model_len=rng.choice((8192, 8192, 1000, 4097, rng.randint(1, 8192))))


@dataclass(frozen=True)
class Rule:
    label: str
    where: str  # the vLLM 0.33.0 file:line that decides it
    aspects: tuple[str, ...]
    match: Callable[[Case, vc.Diff], bool]


def _g(d: vc.Diff) -> str:
    return str(d.graphfit)


def _v(d: vc.Diff) -> str:
    return str(d.vllm)


def _mode(x: object) -> str | None:
    return x[0] if isinstance(x, tuple) else None


def _reqs_only(d: vc.Diff) -> bool:
    return (isinstance(d.vllm, tuple) and isinstance(d.graphfit, tuple)
            and d.vllm[:2] == d.graphfit[:2])


RULES = (
    Rule("no input for the attention backends' cudagraph support level",
         "config/compilation.py:1391-1468 (resolve_cudagraph_mode_and_sizes)", ("errors",),
         lambda c, d: "'attention_cudagraph_support'" in _g(d)),
    Rule("no input for the DFlash draft attention's own support level (V2)",
         "v1/worker/gpu/spec_decode/dflash/speculator.py:143-160", ("errors",),
         lambda c, d: "'drafter_attention_cudagraph_support'" in _g(d)),
    Rule("no input for DSpark fill-in drafts (sample_from_anchor=False: lookahead k+1)",
         "config/vllm.py:636-645 (num_lookahead_tokens)", ("errors",),
         lambda c, d: "'dspark_fill_in'" in _g(d)),
    Rule("speculative method graphfit does not know (ngram_gpu, suffix, dspark, "
         "extract_hidden_states)", "config/speculative.py:68-82 (SpeculativeMethod)",
         ("errors",), lambda c, d: "spec_method:" in _g(d) and "is not one of" in _g(d)),
    Rule("unsorted / duplicated user capture list: vLLM sorts and de-duplicates, graphfit "
         "rejects", "config/vllm.py:2564-2571", ("errors",),
         lambda c, d: "sorted ascending" in _g(d) or "duplicate capture size" in _g(d)),
    Rule("user list with every size > T: vLLM captures nothing (eager), graphfit rejects",
         "config/vllm.py:2566-2571, 2609-2611", ("errors",),
         lambda c, d: "no size is <=" in _g(d)),
    Rule("mode NONE / enforce_eager: vLLM validates neither the list nor the max, graphfit "
         "rejects an inconsistent max", "config/vllm.py:2447-2451, 2648-2654", ("errors",),
         lambda c, d: "differs from the largest" in _g(d) and _v(d) == "accepted"),
    Rule("T <= num_lookahead_tokens: vLLM rejects, graphfit accepts",
         "config/vllm.py:2369-2377 (lookahead: vllm.py:626-653)", ("errors",),
         lambda c, d: _v(d).startswith("_set_max_num_scheduled_tokens")
         and _g(d) == "accepted"),
    Rule("mode NONE / enforce_eager: vLLM has no capture sizes, graphfit computes a ladder",
         "config/vllm.py:2447-2451, 2648-2654", ("config_ladder", "v1_ladder", "v2_ladder"),
         lambda c, d: d.vllm == () and (c.mode == "NONE" or c.enforce_eager)),
    Rule("mode NONE / enforce_eager: DFlash query buffers are S*q (max capture 0), graphfit "
         "sizes them from its ladder", "v1/spec_decode/dflash.py:40-50", ("dflash_v1_buffers",),
         lambda c, d: c.mode == "NONE" or c.enforce_eager),
    Rule("FULL_DECODE_ONLY: the V1 drafter runs eager (mixed_mode() is NONE), graphfit pads "
         "it PIECEWISE", "v1/spec_decode/llm_base_proposer.py:420-435", ("v1_drafter",),
         lambda c, d: _mode(d.vllm) == "NONE" and _mode(d.graphfit) == "PIECEWISE"),
    Rule("mode FULL: a uniform decode takes the mixed FULL key, num_reqs = min(padded, S); "
         "graphfit gives padded // q", "v1/cudagraph_dispatcher.py:138-157, 290-301 (V1); "
         "v1/worker/gpu/cudagraph_utils.py:368-380 (V2)",
         ("v1_target_uniform", "v2_target_uniform"),
         lambda c, d: c.mode == "FULL" and _reqs_only(d)),
    Rule("V2 target: FULL decode graphs at round_up(s, q) (<= min(S*q, max)) for every size; "
         "graphfit uses the unrounded sizes (FULL only where s % q == 0)",
         "v1/worker/gpu/cudagraph_utils.py:334-359, 409-420", ("v2_target_uniform",),
         lambda c, d: _mode(d.vllm) == "FULL"),
    Rule("V2 DFlash drafter: FULL_DECODE_ONLY graphs on the rounded candidates when the "
         "decode mode is FULL; graphfit pads PIECEWISE",
         "v1/worker/gpu/spec_decode/dflash/speculator.py:143-167", ("v2_dflash_drafter",),
         lambda c, d: _mode(d.vllm) == "FULL"),
    Rule("V2 DFlash drafter: eager when the decode mode is not FULL (never PIECEWISE); "
         "graphfit pads PIECEWISE", "v1/worker/gpu/spec_decode/dflash/speculator.py:155-160",
         ("v2_dflash_drafter",), lambda c, d: _mode(d.vllm) == "NONE"),
    Rule("DFlash query capacity: vLLM caps active sequences at T // q, graphfit sizes for S*q "
         "(larger, not unsafe; also why #53970 does not reproduce in 0.33)",
         "config/vllm.py:2378-2396; v1/core/sched/scheduler.py:134-138",
         ("v1_capacity", "v2_capacity"),
         lambda c, d: d.what.startswith("DFlash query") and not d.unsafe),
    Rule("block-table width: vLLM aligns the columns to 128 tokens, graphfit uses "
         "cdiv(max_model_len, block_size) (narrower)", "v1/worker/block_table.py:29-41, 236-245",
         ("v1_block_table",), lambda c, d: True),
    Rule("draft_model drafter tokens: the scheduler reserves the extra slot inside T, graphfit "
         "sizes T + S (larger, not unsafe; #32591 does not reproduce in 0.33)",
         "v1/core/sched/scheduler.py:721-722, 797, 847, 1003; config/speculative.py:2058-2090",
         ("v1_capacity",), lambda c, d: d.what.startswith("drafter tokens") and not d.unsafe),
)

# what graphfit answers today when it ignores the attention support level (assumes ALWAYS)
SUPPORT_RULES = (
    Rule("support NEVER with a mixed-FULL mode (FULL): vLLM rejects the config",
         "config/compilation.py:1397-1413", ("errors",),
         lambda c, d: "resolve_cudagraph_mode_and_sizes" in _v(d) and c.support == "NEVER"),
    Rule("support below ALWAYS: vLLM resolves a different mode (FULL -> FULL_AND_PIECEWISE; "
         "FULL decode with q > 1 below UNIFORM_BATCH -> PIECEWISE; NEVER -> PIECEWISE)",
         "config/compilation.py:1391-1468", ("v1_ladder", "v2_ladder"),
         lambda c, d: c.support != "ALWAYS" and d.what == "resolved mode"),
    Rule("support below UNIFORM_BATCH with q > 1: no FULL decode, so the V1 list is not "
         "rounded to multiples of q", "config/compilation.py:1448-1468, 1529-1535",
         ("v1_ladder",), lambda c, d: c.support != "ALWAYS" and d.what == "sizes"),
    Rule("support below ALWAYS: dispatch follows the downgraded mode (PIECEWISE or eager "
         "where graphfit replays FULL, other padding)", "config/compilation.py:1391-1468; "
         "v1/cudagraph_dispatcher.py:164-240", ("v1_target_mixed", "v1_target_uniform",
                                                "v1_drafter", "v2_target_mixed",
                                                "v2_target_uniform", "v2_dflash_drafter",
                                                "v1_capacity", "v2_capacity",
                                                "dflash_v1_buffers"),
         lambda c, d: c.support != "ALWAYS"),
    Rule("support below UNIFORM_BATCH with q > 1: nothing is rounded, so a max below q is "
         "accepted (graphfit rejects it)", "config/compilation.py:1448-1468, 1529-1535",
         ("errors",), lambda c, d: "is below the decode query length" in _g(d)),
    Rule("draft attention below UNIFORM_BATCH: the V2 DFlash drafter runs eager",
         "v1/worker/gpu/spec_decode/dflash/speculator.py:143-160", ("v2_dflash_drafter",),
         lambda c, d: c.draft_support not in (None, "ALWAYS", "UNIFORM_BATCH")
         and _mode(d.vllm) == "NONE"),
)


def classify(case: Case, diff: vc.Diff, rules: tuple[Rule, ...] = RULES) -> tuple[str, str]:
    for rule in rules:
        if diff.aspect in rule.aspects and rule.match(case, diff):
            return rule.label, rule.where
    v = diff.vllm[0] if isinstance(diff.vllm, tuple) and diff.vllm else diff.vllm
    g = diff.graphfit[0] if isinstance(diff.graphfit, tuple) and diff.graphfit else diff.graphfit
    return f"UNCLASSIFIED {diff.aspect}: vLLM {str(v)[:60]} / graphfit {str(g)[:60]}", "?"


def _size(case: Case) -> tuple[int, ...]:
    """Smaller is a simpler reproducer: fewest non-default inputs, then small numbers."""
    base = Case(S=case.S)
    extra = sum(getattr(case, f) != getattr(base, f) for f in (
        "mode", "sizes", "max_size", "performance_mode", "blackwell", "enforce_eager",
        "support", "draft_support", "dspark_fill_in"))
    return (extra + (case.T != 8192), len(case.sizes or ()), case.S + case.k, case.T)


def short(case: Case) -> str:
    parts = [f"S={case.S}", f"T={case.T}"]
    if case.k:
        parts += [f"k={case.k}", f"method={case.method}"]
    base = Case(S=case.S)
    for name in ("mode", "sizes", "max_size", "performance_mode", "blackwell", "enforce_eager",
                 "support", "draft_support", "dspark_fill_in"):
        value = getattr(case, name)
        if value != getattr(base, name):
            parts.append(f"{name}={value}")
    return ", ".join(parts)


def main(n: int = 4000, seed: int = 7) -> None:
    from tests.oracle.test_vllm_oracle import GRID

    rng = random.Random(seed)
    cases = list(GRID) + [random_case(rng, expressible=rng.random() < 0.6) for _ in range(n)]
    vo.vllm()
    start = time.time()
    applicable: Counter[str] = Counter()
    agree: Counter[str] = Counter()
    classes: dict[str, dict] = {}
    per_class_cases: defaultdict[str, set[Case]] = defaultdict(set)
    unsafe_cases: set[Case] = set()
    unsafe_ignored: set[Case] = set()
    work = [(case, None, "") for case in cases]
    # what graphfit answers today when it ignores the support level (assumes ALWAYS)
    work += [(case, dataclasses.replace(case, support="ALWAYS", draft_support=None),
              "[support level ignored] ") for case in cases
             if case.support != "ALWAYS" or case.draft_support not in (None, case.support)]
    for i, (case, g_case, prefix) in enumerate(work):
        result = vc.compare(case, g_case)
        if prefix:  # tallied separately below
            for diffs in result.values():
                for d in diffs or []:
                    label, where = classify(case, d, RULES + SUPPORT_RULES)
                    if not any(label == r.label for r in SUPPORT_RULES) and "UNCLASS" not in label:
                        continue  # a class the main pass already counts
                    label = prefix + label
                    per_class_cases[label].add(case)
                    best = classes.get(label)
                    if best is None or _size(case) < _size(best["case"]):
                        classes[label] = {"case": case, "diff": d, "where": where,
                                          "unsafe": d.unsafe or (best or {}).get("unsafe",
                                                                                 False)}
                    elif d.unsafe:
                        best["unsafe"] = True
                    if d.unsafe:
                        unsafe_ignored.add(case)
            continue
        for aspect, diffs in result.items():
            if diffs is None:
                continue
            applicable[aspect] += 1
            agree[aspect] += not diffs
            for d in diffs:
                label, where = classify(case, d)
                per_class_cases[label].add(case)
                if d.unsafe:
                    unsafe_cases.add(case)
                best = classes.get(label)
                if best is None or _size(case) < _size(best["case"]):
                    classes[label] = {"case": case, "diff": d, "where": where,
                                      "unsafe": d.unsafe or (best or {}).get("unsafe", False)}
                elif d.unsafe:
                    best["unsafe"] = True
        if i % 200 == 199:  # bound the caches' memory
            for fn in (vo.config_ladder, vo.runner, vo.dflash_v1_buffers, vc.graphfit_plan):
                fn.cache_clear()
    elapsed = time.time() - start
    print(f"{len(cases)} configs ({len(GRID)} edge grid + {n} generated, seed {seed}) in "
          f"{elapsed:.0f} s\n")
    print("| aspect | configs compared | graphfit agrees | % |")
    print("| --- | ---: | ---: | ---: |")
    for aspect in vc.ASPECTS:
        if applicable[aspect]:
            pct = 100 * agree[aspect] / applicable[aspect]
            print(f"| {aspect} | {applicable[aspect]} | {agree[aspect]} | {pct:.1f} |")
    print(f"\nconfigs with an UNSAFE difference: {len(unsafe_cases)}; with the support "
          f"level ignored by graphfit ({len(work) - len(cases)} configs): "
          f"{len(unsafe_ignored)}\n")
    order = sorted(classes, key=lambda lb: -len(per_class_cases[lb]))
    for label in order:
        info = classes[label]
        d = info["diff"]
        print(f"- **{label}** ({len(per_class_cases[label])} configs"
              f"{', UNSAFE' if info['unsafe'] else ''}; {d.aspect})")
        print(f"  - reproducer: {short(info['case'])}; at {d.what}")
        print(f"  - vLLM: {str(d.vllm)[:200]}")
        print(f"  - graphfit: {str(d.graphfit)[:200]}")
        print(f"  - decided at vllm/{info['where']}")


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:3]]
    main(*args)
