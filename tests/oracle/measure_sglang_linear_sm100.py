"""Agreement figures for issue 23 s44m (tests/oracle/sglang_linear_sm100_oracle.py): SGLang's
linear-attention SM100+ checks, Qwen3-Next's SM100 default backend under unified memory, and
the no_buffer / trtllm_mha check on the live path (s43m's generator), Qwen3-Next's SM100 page
size.

    PYTHONPATH=. python -m tests.oracle.measure_sglang_linear_sm100 [count] [seed]
"""

from __future__ import annotations

import sys

from tests.oracle import sglang_linear_sm100_oracle as ls
from tests.oracle import sglang_mamba_attention_oracle as ma


def main(count: int, seed: int) -> None:
    for title, cases, verdict in (
            ("linear-attention SM100+ checks", ls.generate_linear(count, seed),
             ls.linear_verdict),
            ("Qwen3-Next SM100 default backend, unified memory",
             ls.generate_default(count, seed), ls.default_verdict),
            ("live check, no_buffer with --attention-backend trtllm_mha (s43m's lines)",
             ma.generate(count, seed), ls.live_verdict),
            ("Qwen3-Next's SM100 page size (outcome, graphs, fraction, page size)",
             ls.generate_page(count, seed), ls.page_verdict)):
        differ = [(case, why) for case in cases if (why := verdict(case)) is not None]
        unknown = sum(why.startswith("left unknown") for _, why in differ)
        print(f"{title}: {len(cases)} lines, {len(cases) - len(differ)} agree, "
              f"{len(differ) - unknown} differ, {unknown} left unknown by graphfit")
        for case, why in differ[:3]:
            print(f"  {' '.join(case[0])} @{case[1]}: {why}"[:300])


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 60,
         int(sys.argv[2]) if len(sys.argv) > 2 else 23)
