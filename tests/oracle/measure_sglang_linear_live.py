"""Agreement of the live path with a named GPU (issue 23 s45m; tests/oracle/
sglang_linear_sm100_oracle.live_linear_verdict): SGLang's SM100+ linear-attention kernel
checks and Qwen3-Next's SM100 page size on the ServerArgs vs
`from_sglang(server_args, gpu_memory_gb=<GPU name>)`.

    PYTHONPATH=. python -m tests.oracle.measure_sglang_linear_live [count] [seed]
"""

from __future__ import annotations

import sys

from tests.oracle import sglang_linear_sm100_oracle as ls


def main(count: int, seed: int) -> None:
    cases = ls.generate_linear(count, seed)
    differ = [(case, why) for case in cases if (why := ls.live_linear_verdict(case)) is not None]
    print(f"live path, linear-attention SM100+ checks, GPU named: {len(cases)} lines, "
          f"{len(cases) - len(differ)} agree, {len(differ)} differ")
    for case, why in differ[:3]:
        print(f"  {' '.join(case[0])} @{case[1]}: {why}"[:300])
    cases = ls.generate_page(count, seed)
    differ = [(case, why) for case in cases if (why := ls.live_page_verdict(case)) is not None]
    print(f"live path, Qwen3-Next's SM100 page size, GPU named: {len(cases)} lines, "
          f"{len(cases) - len(differ)} agree, {len(differ)} differ")
    for case, why in differ[:3]:
        print(f"  {' '.join(case[0])} @{case[1]}: {why}"[:300])


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 60,
         int(sys.argv[2]) if len(sys.argv) > 2 else 23)
