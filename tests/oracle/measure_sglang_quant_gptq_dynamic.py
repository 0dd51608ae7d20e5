"""Agreement counts on GPTQ Marlin's per-module `dynamic` overrides
(tests.oracle.sglang_quant_gptq_dynamic_compare): every fixed line, and COUNT generated ones
(Llama / Qwen2 / Qwen3, since s63q Qwen3-MoE, s64q Qwen2-MoE, s66q DeepSeek-V2 / V3, built
by SGLang on the meta device; s67q the "@sm100" lines SGLang resolves on a B200, where
DeepSeek-V3 / Qwen3-MoE copy `gptq` into the unset flag); then the same lines with the dict in
the quantize_config.json SGLang's file search finds under `--quantization gptq_marlin`
(the "found file" families, issue 23 s57q); s69g: all of it again with the line's flags
in graphfit's own config file (`graphfit plan --config FILE`, the "config file" families).

Run: python -m tests.oracle.measure_sglang_quant_gptq_dynamic [COUNT] [SEED] [BEFORE_ROOT]
BEFORE_ROOT: another checkout whose `graphfit` scores the same lines first, in a child
process, its family lines printed under "before" (s67q: before and after in one run)."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import tempfile
import types
from pathlib import Path

from tests.oracle.before_tree import frozen
from tests.oracle.measure_root import print_fixed_and_generated

VERDICTS = ("layer", "built", "other", "shared", "copy",  # s66q: "shared"; s67q: "copy"
            "runner")  # s68r


def _before(count: int, seed: int, root: str) -> None:
    """BEFORE_ROOT's family lines on the same draw: this script in a child whose `graphfit`
    is `root`'s and whose `tests` is this tree's."""
    here = Path(__file__).resolve().parents[2]
    with tempfile.TemporaryDirectory(prefix="graphfit-before-") as shim:
        # s70i: the before tree's committed graphfit (tests.oracle.before_tree.frozen)
        os.symlink(Path(frozen(root)) / "graphfit", Path(shim) / "graphfit")
        os.symlink(here / "tests", Path(shim) / "tests")
        done = subprocess.run([sys.executable, "-m", __spec__.name, str(count), str(seed)],
                              env={**os.environ, "PYTHONPATH": shim}, capture_output=True,
                              text=True, check=False, cwd=shim)
    print(f"before ({root}):")
    print("\n".join(f"  {line}" for line in done.stdout.splitlines()
                    if line and not line.startswith(" ")) or done.stderr[-500:])


def main(argv: list[str]) -> int:
    count = int(argv[0]) if argv else 60
    seed = int(argv[1]) if len(argv) > 1 else 23
    if len(argv) > 2:
        _before(count, seed, argv[2])
        print("after (this tree):")
    from tests.oracle import sglang_quant_gptq_dynamic_compare as dc

    inline = print_fixed_and_generated(dc, count, seed, VERDICTS)
    found = types.SimpleNamespace(FIXED=dc.FIXED, generated_lines=dc.generated_lines,
                                  compare=functools.partial(dc.compare, found=True))
    status = max(inline, print_fixed_and_generated(found, count, seed, VERDICTS,
                                                   fixed="found file, fixed"))
    for found_file in (False, True):  # s69g: the same lines from graphfit's config file
        via_file = types.SimpleNamespace(
            FIXED=dc.FIXED, generated_lines=dc.generated_lines,
            compare=functools.partial(dc.compare, found=found_file, via_file=True))
        status = max(status, print_fixed_and_generated(
            via_file, count, seed, VERDICTS,
            fixed=f"config file{', found file' if found_file else ''}, fixed"))
    return status


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
