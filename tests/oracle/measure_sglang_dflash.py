"""Agreement of graphfit with SGLang 0.5.23 over N generated DFLASH lines (not a test).

    python -m tests.oracle.measure_sglang_dflash 300

Prints how many lines both plan with the DFLASH draft runner, both plan without draft graphs,
both reject, and how many differ (with the first differences); how many lines took their
block from the draft's config.json, how many left S to SGLang's default, how many had a LiLiCorr
draft and how many an environment prefix (SGLANG_DFLASH_EAGER_DRAFT_SAMPLER)
(tests/oracle/sglang_block_drafts.measure).
"""

from __future__ import annotations

from tests.oracle import sglang_block_drafts as bd
from tests.oracle import sglang_dflash_compare as dc

COUNTERS = {
    "block from the draft's config.json": lambda case: not {
        "--speculative-num-draft-tokens", "--speculative-dflash-block-size"} & set(case[0]),
    "S defaulted": lambda case: "--max-running-requests" not in case[0],
    "a LiLiCorr draft": lambda case: _lilicorr(case[0]),
    "an environment prefix": lambda case: bool(bd.split_env(case[0])[0]),
    # override args replacing a LiLiCorr draft's dflash_config (dc.head_override)
    "a lilicorr_* override": lambda case: any("lilicorr_" in word for word in case[0]),
}


def _lilicorr(argv: tuple[str, ...]) -> bool:
    """Whether the line's draft directory holds a LiLiCorr config."""
    import json
    from pathlib import Path

    if dc.DRAFT not in argv:
        return False
    config = Path(argv[argv.index(dc.DRAFT) + 1]) / "config.json"
    return config.is_file() and "LiLiCorrDraftModel" in json.loads(config.read_text()).get(
        "architectures", [])

if __name__ == "__main__":
    bd.main("DFLASH", dc.dflash_lines(), dc.compare_line, COUNTERS)
