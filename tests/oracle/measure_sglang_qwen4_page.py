"""Count agreement of Qwen4-Exp's page size (tests/oracle/sglang_qwen4_page_oracle.py):
`python -m tests.oracle.measure_sglang_qwen4_page COUNT SEED`."""

from __future__ import annotations

import sys

from tests.oracle import sglang_qwen4_page_oracle as qp


def main(count: int, seed: int) -> None:
    differ = [(case, why) for case in qp.generate(count, seed)
              if (why := qp.verdict(case)) is not None]
    print(f"Qwen4-Exp page size ({count} lines, seed {seed}): "
          f"{count - len(differ)} agree, {len(differ)} differ")
    for case, why in differ[:5]:
        print(" ", case, why)


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
