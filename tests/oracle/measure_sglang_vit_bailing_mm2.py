"""`PYTHONPATH=. python -m tests.oracle.measure_sglang_vit_bailing_mm2 N SEED [MAIN]`: N
generated Bailing MM config.json files of model_type bailingmm_moe_v2_lite (SGLang's
BailingMM2Config: tests/oracle/sglang_vit_towers.mm2_case, vision keys, the whole
vision_config or the tower's name left out at random, now and then an audio_config) compared
with SGLang's own config class, Bailing constructor and runner (`mm2_agrees`), once with this
tree's read_geometry (after) and once with MAIN's graphfit/inputs/sglang_vit.py (before,
default /work/main), same files. A refusal of a config SGLang builds, or a plan of one it
refuses, counts as a difference; "both refuse" counts as agreeing."""

from __future__ import annotations

import random
import sys

from graphfit.planner.core.errors import ConfigError
from tests.oracle import sglang_vit_oracle as vo
from tests.oracle import sglang_vit_towers as towers
from tests.oracle.measure_sglang_vit_remote_keys import main_read_geometry


def _count(cases: list[towers.BailingCase]) -> tuple[int, int, int]:
    """(agree, of which both refuse, differ)."""
    agree = refused = 0
    for case in cases:
        try:
            with vo.cpu_graphs():
                keys = towers.mm2_agrees(case)
            agree += 1
            refused += keys == 0
        except (AssertionError, ConfigError):  # ConfigError: refused what SGLang builds
            pass
    return agree, refused, len(cases) - agree


def main(n: int, seed: int, main_dir: str) -> None:
    rng = random.Random(seed)
    cases = [towers.mm2_case(rng) for _ in range(n)]
    after = _count(cases)
    with main_read_geometry(main_dir):
        before = _count(cases)
    for label, (agree, refused, differ) in ((f"before ({main_dir})", before),
                                            ("after", after)):
        print(f"{label}: {agree} agree ({refused} refused by both), {differ} differ of {n}")


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else "/work/main")
