"""NixlEP / Mooncake token budgets of 0 and below (issue 23, s60k;
graphfit.planner.engines.sglang_first_dispatch) over drawn lines on a Qwen3-MoE target: the
target's --moe-a2a-backend, --deepep-mode, one of the two variables with a drawn value of 0
or below (now and then a positive one), and on a third of the lines an EAGLE draft
(Qwen3-MoE) under a drawn --speculative-moe-a2a-backend.

SGLang, its own code in two steps: the resolution with the oracle's shared build steps (the
target's dispatcher, then the draft model's: tests.oracle.sglang_mooncake_build,
tests.oracle.sglang_draft_build), recording the budget each low-latency dispatcher half read;
then, in low_latency mode, its buffer maker on that budget in build order
(tests.oracle.sglang_first_dispatch_oracle.first_buffer). Its answer is a refusal (build, or
the first dispatch's `!= -1` assert), "the package's" (a budget of 0 or below handed to the
package: graphfit should say not modelled) or served.
graphfit: its CLI on the pasted line with the VAR=value word. A refusal agrees when graphfit
refuses (naming the variable where SGLang's answer is a budget assert), served when it plans.

    python -m tests.oracle.measure_sglang_first_dispatch [COUNT] [SEED] [GRAPHFIT_ROOT]

GRAPHFIT_ROOT (optional): a checkout whose `graphfit` is scored instead (a before figure)."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.oracle.measure_root import count_seed_root, print_counts, tally

VALUES = ("-1", "-1", "0", "-7", "-1024", "64")


def sglang(args: tuple[str, ...], target: Path, name: str, value: str) -> str | None:
    """SGLang's answer (module docstring): its refusal, "package" or None (served)."""
    from tests.oracle import sglang_draft_build
    from tests.oracle import sglang_oracle as so
    from tests.oracle.environ_patch import patched_environ
    from tests.oracle.sglang_first_dispatch_oracle import first_buffer, recording

    with patched_environ({name: value}), recording() as made:
        r = so.resolve(args, model=str(target))
        if isinstance(r, so.Rejected):
            return r.text
        if r.record.moe_a2a_backend in ("mooncake", "nixl"):  # the shared step stopped there
            said = sglang_draft_build.failure(r)
            if said:
                return said
    if r.record.deepep_mode != "low_latency":
        return None
    for backend, tokens in made:
        answer = first_buffer(backend, tokens)
        if answer == "assert":
            return f"AssertionError: {backend} buffer's budget {tokens} (first dispatch)"
        if answer != "package":
            return answer
        if tokens <= 0:
            return "package"
    return None


def main(argv: list[str]) -> int:
    count, seed = count_seed_root(argv, 40)
    from tests.oracle import test_sglang_dispatch_budget_oracle as t
    from tests.oracle.measure_sglang_dispatch_budget import draw, start

    target, draft, rng, counts, lines = start(seed)
    kinds = {"refused": 0, "package": 0, "served": 0}
    for _ in range(count):
        args = draw(rng, draft, ("auto", "normal", "low_latency", "low_latency",
                                 "low_latency"))
        name = rng.choice((t.NIXL, t.MOONCAKE))
        value = rng.choice(VALUES)
        theirs = sglang(tuple(args), target, name, value)
        package = theirs == "package"
        kinds["package" if package else "served" if theirs is None else "refused"] += 1
        code, said = t.graphfit(target, f"{name}={value}", tuple(args))
        shown = " ".join(a for a in args if not a.startswith("/"))
        if package:  # the package decides: counted "not modelled" where graphfit says so
            tally(counts, lines, False, said if code else "", f"{name}={value} {shown}: "
                  f"SGLang hands it to the package; graphfit exit {code} {said[:140]}")
            continue
        first = theirs is not None and "first dispatch" in theirs
        if first:  # the buffer's assert: graphfit must name the variable
            ok = code != 0 and name in said and "_dispatcher/" in said and " ... " not in said
            wrong = None if ok else f"SGLang {theirs}; graphfit exit {code} {said[:160]}"
        else:
            wrong = t._differs(theirs, (code, said), name)
        tally(counts, lines, wrong is None, said, f"{name}={value} {shown}: {wrong}")
    print_counts(count, seed, counts, lines)
    print(f"SGLang: {kinds['refused']} refused, {kinds['package']} handed to the package, "
          f"{kinds['served']} served")
    return 0 if counts["differ"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
