"""Run every benchmark and write the tables to benchmarks/RESULTS.md (and stdout).

    python benchmarks/run_all.py
"""

from __future__ import annotations

import platform
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPTS = ("bench_optimize.py", "bench_plan.py", "bench_pad.py", "bench_buffers.py",
           "bench_runtime.py")


def main() -> int:
    parts = [f"# Benchmark results\n\nMachine: {platform.processor() or platform.machine()}, "
             f"Python {platform.python_version()}, {platform.system()}. "
             "Regenerate with `python benchmarks/run_all.py`.\n"]
    for script in SCRIPTS:
        done = subprocess.run([sys.executable, str(HERE / script)], capture_output=True,
                              text=True, check=False)
        if done.returncode:
            print(done.stderr, file=sys.stderr)
            return done.returncode
        print(done.stdout)
        parts.append(f"## {script}\n\n{done.stdout}")
    (HERE / "RESULTS.md").write_text("\n".join(parts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
