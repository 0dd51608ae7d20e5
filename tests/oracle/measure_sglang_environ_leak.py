"""What SGLang's hooks write to `os.environ` while the MoE all-to-all oracle resolves a line
(issue 23, s65x; not a test).

`python -m tests.oracle.measure_sglang_environ_leak [N] [SEED] [BEFORE_ROOT]`: N lines
(default 60) drawn from the MoE all-to-all space (`sglang_moe_a2a_compare.draw`, plain,
quantized and FlashInfer) and LayerNorm SP's (`measure_sglang_layernorm_sp.draw`, NVFP4
FlashInfer lines on B200), compared one after another in one process
(`sglang_moe_a2a_compare.compare`) with this checkout's helper, then with BEFORE_ROOT's
(default /work/main) in a child process on the same lines. Printed per checkout: lines after
which an `SGLANG_` / `USE_ROCM_` variable was left changed ("leaky lines", the names), and
the answers (SGLang's refusal, graphfit's, the differing aspects); then how many lines'
answers differ between the two checkouts.
"""

from __future__ import annotations

import collections
import logging
import os
import random
import sys
from typing import Any

from tests.oracle.measure_before import emit_before

PREFIXES = ("SGLANG_", "USE_ROCM_")


def draw(count: int, seed: int) -> list[list[str]]:
    from tests.oracle import measure_sglang_layernorm_sp as sp
    from tests.oracle import sglang_moe_a2a_compare as mc

    rng = random.Random(seed)
    out = []
    for _ in range(count):
        kind = rng.choice(("plain", "quant", "flashinfer", "sp", "sp"))
        line = (sp.draw(rng) if kind == "sp" else
                mc.draw(rng, None if kind == "plain" else kind))
        out.append(list(line))
    return out


def _written() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k.startswith(PREFIXES)}


def emit(lines: list[list[str]]) -> list[list[Any]]:
    """Per line, in order: [names left changed after it, SGLang's refusal, graphfit's,
    the differing aspects' details] (the refusals cut to 160 characters)."""
    from tests.oracle import sglang_moe_a2a_compare as mc

    logging.disable(logging.WARNING)
    out: list[list[Any]] = []
    for words in lines:
        line = tuple(words)
        before = _written()
        try:
            found = sorted(f"{aspect}: {d.detail[:160]}"
                           for aspect, ds in mc.compare(line).items() for d in ds)
            sg, gf = mc.sglang(line), mc.graphfit_cli(line)
            answer = [None if sg.rejected is None else str(sg.rejected)[:160],
                      None if gf.rejected is None else gf.rejected[:160], found]
        except Exception as exc:  # an oracle crash is an answer too
            answer = [f"oracle raised {type(exc).__name__}", None, []]
        after = _written()
        changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
        out.append([changed, *answer])
    return out


def show(title: str, answers: list[list[Any]]) -> None:
    names: collections.Counter[str] = collections.Counter(n for a in answers for n in a[0])
    leaky = sum(1 for a in answers if a[0])
    starts = sum(1 for a in answers if a[1] is None)
    agree = sum(1 for a in answers if not a[3])
    print(f"{title}: {len(answers)} lines, leaky lines {leaky} {dict(names)}, "
          f"SGLang starts {starts}, agree {agree}, differ {len(answers) - agree}")


def main(argv: list[str]) -> int:
    count = int(argv[0]) if argv else 60
    seed = int(argv[1]) if len(argv) > 1 else 23
    root = argv[2] if len(argv) > 2 else "/work/main"
    lines = draw(count, seed)
    after = emit(lines)
    show("after (this checkout)", after)
    before = emit_before(__file__, ["--before", root], lines)
    assert before is not None
    show(f"before ({root})", before)
    for i in [i for i, b in enumerate(before) if b[0]][:4]:  # a few leaky lines
        print(f"  leaky before: {' '.join(lines[i])[:150]} -> {', '.join(before[i][0])[:150]}")
    changed = [i for i, (a, b) in enumerate(zip(after, before, strict=True)) if a[1:] != b[1:]]
    print(f"lines whose answers differ between the two: {len(changed)}")
    for i in changed:
        print(f"  {' '.join(lines[i])}\n    after:  {after[i][1:]}\n    before: {before[i][1:]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
