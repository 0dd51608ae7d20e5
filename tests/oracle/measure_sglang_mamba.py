"""Agreement counts: graphfit's mamba-capped request pool vs SGLang 0.5.23's own code over a
grid of lines on a Qwen3-Next-shaped model. Run: python -m tests.oracle.measure_sglang_mamba"""

from __future__ import annotations

import itertools

from tests.oracle.test_sglang_mamba_pool_oracle import agree, argv_of, sglang_pool


def grid() -> list[dict]:
    lines = []
    for m, s, radix_off, strategy, overlap, page, dp, skip in itertools.product(
            (None, 37, 600), (None, 9, 300), (False, True),
            ("auto", "no_buffer", "extra_buffer", "extra_buffer_lazy"), (True, False),
            (1, 64), (1, 2), (False, True)):
        lines.append({"M": m, "S": s, "radix_off": radix_off, "strategy": strategy,
                      "overlap": overlap, "page": page, "dp": dp, "skip": skip,
                      "capacity": 500_000})
    return lines


def main() -> None:
    counts: dict[bool | None, int] = {True: 0, False: 0, None: 0}
    stub = 0
    for p in grid():
        verdict = agree(p)
        counts[verdict] += 1
        theirs = sglang_pool(p)
        stub += verdict is None and isinstance(theirs, str) and "_StubModule" in theirs
        if verdict is False:
            print("DISAGREE", argv_of(p), p)
    print(f"mamba pool: {counts[True]} agree, {counts[False]} disagree, "
          f"{counts[None]} refused by SGLang only ({stub} of them by the CPU stubs, not SGLang's "
          f"rules), of {sum(counts.values())} lines")


if __name__ == "__main__":
    main()
