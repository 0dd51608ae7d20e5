"""How often graphfit agrees with a vLLM release's own code, per aspect, and every difference
found.

    PYTHONPATH=. python -m tests.oracle.measure_vllm [N] [SEED]   # default 4000 configs, seed 7
    GRAPHFIT_ORACLE_VLLM=0.34.0 PYTHONPATH=. python -m tests.oracle.measure_vllm 300

The release is the one this process imports (`GRAPHFIT_ORACLE_VLLM`, default 0.33.0);
graphfit's model is the same release's unless `GRAPHFIT_ORACLE_MODEL` names another
(tests/oracle/add_vllm_release.py measures a new release with its predecessor's model).
tests/oracle/measure_releases.py runs this once per release and prints one table.

Generates N configs (plus the test module's edge grid), compares each with
`vllm_compare.compare`, prints the agreement table and, per (aspect, input) class of
difference, the count, whether graphfit ends up with fewer rows than vLLM pads to or writes
(unsafe) and a minimal reproducer (the smallest config of the class) with both answers.
The generator is the one the first measurement used (same seed, same configs), so runs
before and after a change compare the same configs.
"""

from __future__ import annotations

import random
import sys
import time
from collections import Counter, defaultdict

from tests.oracle import vllm_compare as vc
from tests.oracle import vllm_oracle as vo
from tests.oracle.vllm_oracle import Case

# what the first measurement called "expressible" (graphfit's methods then); kept so the same
# seed still draws the same configs
FIRST_METHODS = ("eagle", "eagle3", "mtp", "draft_model", "dflash", "ngram")


def random_case(rng: random.Random, *, expressible: bool) -> Case:
    S = rng.choice([1, 7, 33, 97, 255, 256, 257, 511, 512, 513, 1023, 1024,
                    rng.randint(1, 1100), rng.randint(1, 64)])
    k = rng.randint(0, 15)
    method = rng.choice(FIRST_METHODS if expressible else vo.METHODS) if k else None
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
                 "support", "draft_support", "dspark_fill_in", "max_model_len"):
        value = getattr(case, name)
        if value != getattr(base, name):
            parts.append(f"{name}={value}")
    return ", ".join(parts)


def main(n: int = 4000, seed: int = 7) -> None:
    from tests.oracle.vllm_grid import GRID

    rng = random.Random(seed)
    cases = list(GRID) + [random_case(rng, expressible=rng.random() < 0.6) for _ in range(n)]
    vo.vllm()
    start = time.time()
    applicable: Counter[str] = Counter()
    agree: Counter[str] = Counter()
    classes: dict[str, tuple[Case, vc.Diff]] = {}
    per_class: defaultdict[str, set[Case]] = defaultdict(set)
    unsafe: set[Case] = set()
    for i, case in enumerate(cases):
        for aspect, diffs in vc.compare(case).items():
            if diffs is None:
                continue
            applicable[aspect] += 1
            agree[aspect] += not diffs
            for d in diffs:
                label = f"{aspect}: {d.what.split('=')[0]}"
                per_class[label].add(case)
                if d.unsafe:
                    unsafe.add(case)
                best = classes.get(label)
                if best is None or _size(case) < _size(best[0]):
                    classes[label] = (case, d)
        if i % 200 == 199:  # bound the caches' memory
            for fn in (vo.config_ladder, vo.runner, vc.graphfit_plan):
                fn.cache_clear()
    elapsed = time.time() - start
    print(f"vLLM {vo.VERSION}'s own code vs graphfit's vLLM {vc.MODEL_RELEASE} model: "
          f"{len(cases)} configs ({len(GRID)} edge grid + {n} generated, seed {seed}) in "
          f"{elapsed:.0f} s\n")
    print("| aspect | configs compared | graphfit agrees | % |")
    print("| --- | ---: | ---: | ---: |")
    for aspect in vc.ASPECTS:
        if applicable[aspect]:
            pct = 100 * agree[aspect] / applicable[aspect]
            print(f"| {aspect} | {applicable[aspect]} | {agree[aspect]} | {pct:.1f} |")
    print(f"\nconfigs with an UNSAFE difference: {len(unsafe)}")
    print(f"difference classes: {len(classes)}\n")
    for label in sorted(classes, key=lambda lb: -len(per_class[lb])):
        case, d = classes[label]
        print(f"- **{label}** ({len(per_class[label])} configs{', UNSAFE' if d.unsafe else ''})")
        print(f"  - reproducer: {short(case)}; at {d.what}")
        print(f"  - vLLM: {str(d.vllm)[:200]}")
        print(f"  - graphfit: {str(d.graphfit)[:200]}")


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:3]]
    main(*args)
