"""`PYTHONPATH=. python -m tests.oracle.measure_sglang_vit_remote_keys N SEED [MAIN]`: N generated
Qwen3-VL / subclass configs (tests/oracle/sglang_vit_towers.subclass_case, remote keys and
class-defaulted keys left out at random) compared with SGLang's own constructor and runner
(`subclass_agrees`), then N Qwen3-Omni MoE / Bailing MoE V3 VL configs (`defaulted_case`,
their config classes' defaults: `defaulted_agrees`), once with this tree's read_geometry
(after) and once with MAIN's graphfit/inputs/sglang_vit.py (before, default /work/main), same
configs. A refusal of a config SGLang builds counts as a difference."""

from __future__ import annotations

import importlib.util
import random
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from graphfit.planner.core.errors import ConfigError
from tests.oracle import sglang_vit_oracle as vo
from tests.oracle import sglang_vit_towers as towers
from tests.oracle.before_tree import frozen


@contextmanager
def main_read_geometry(main_dir: str) -> Iterator[None]:
    """Within the block, the towers read geometry with MAIN's graphfit/inputs/sglang_vit.py
    (the before figure); this tree's read_geometry again after it."""
    spec = importlib.util.spec_from_file_location(
        "main_sglang_vit", Path(frozen(main_dir)) / "graphfit/inputs/sglang_vit.py")
    assert spec and spec.loader
    old = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(old)
    mine = towers.read_geometry
    towers.read_geometry = old.read_geometry  # type: ignore[attr-defined]
    try:
        yield
    finally:
        towers.read_geometry = mine  # type: ignore[attr-defined]


def _count(cases: list[towers.SubclassCase]) -> tuple[int, int]:
    agree = 0
    for case in cases:
        agrees = (towers.defaulted_agrees if case.model_class in towers.DEFAULTED_CLASSES
                  else towers.subclass_agrees)
        try:
            with vo.cpu_graphs():
                agrees(case)
            agree += 1
        except (AssertionError, ConfigError):  # ConfigError: refused what SGLang builds
            pass
    return agree, len(cases) - agree


def main(n: int, seed: int, main_dir: str) -> None:
    rng = random.Random(seed)
    cases = [towers.subclass_case(rng) for _ in range(n)]
    others = [towers.defaulted_case(rng) for _ in range(n)]
    after, after_others = _count(cases), _count(others)
    with main_read_geometry(main_dir):
        before, before_others = _count(cases), _count(others)
    print(f"before ({main_dir}): {before[0]} agree, {before[1]} differ of {n}")
    print(f"after: {after[0]} agree, {after[1]} differ of {n}")
    print(f"Qwen3-Omni / Bailing V3 before: {before_others[0]} agree, {before_others[1]} "
          f"differ of {n}; after: {after_others[0]} agree, {after_others[1]} differ of {n}")


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else "/work/main")
