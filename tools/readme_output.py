"""Paste the README's first command's real output into the README (the block under
`<!-- readme-output: COLUMNS=N ... -->`); tests/test_readme.py checks it stays equal.

    PYTHONPATH=. python tools/readme_output.py
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def main() -> None:
    text = README.read_text()
    first = re.search(r"```bash\n(.*?)\n", text)
    marker = re.search(r"<!-- readme-output: COLUMNS=(\d+)[^>]*-->\n```text\n(.*?)```", text, re.S)
    assert first and marker
    argv = shlex.split(first.group(1).split("&&")[-1])
    env = {**os.environ, "COLUMNS": marker.group(1)}
    env.pop("VLLM_USE_V2_MODEL_RUNNER", None)
    out = subprocess.run([sys.executable, "-m", "graphfit", *argv[1:]], env=env, check=True,
                         capture_output=True, text=True).stdout
    lines = "\n".join(line.rstrip() for line in out.strip().splitlines())
    README.write_text(text[:marker.start(2)] + lines + "\n" + text[marker.end(2):])


if __name__ == "__main__":
    main()
