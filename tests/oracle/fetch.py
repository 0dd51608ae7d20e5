"""Download the pinned engine wheels (no dependencies) and keep only their *.py files.

    python tests/oracle/fetch.py            # every engine in paths.ENGINES
    python tests/oracle/fetch.py vllm       # one

The wheel itself is deleted afterwards: the oracle needs the pure-Python config, ladder,
dispatcher and buffer code, never the compiled kernels.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from paths import ENGINES, source_root


def fetch(name: str) -> Path:
    root = source_root(name)
    marker = root / ".complete"
    if marker.is_file():
        return root
    root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                        "--disable-pip-version-check", "-d", tmp, f"{name}=={ENGINES[name]}"],
                       check=True)
        wheels = list(Path(tmp).glob("*.whl"))
        if len(wheels) != 1:
            raise SystemExit(f"expected one wheel for {name}, got {wheels}")
        with zipfile.ZipFile(wheels[0]) as archive:
            for member in archive.namelist():
                if member.endswith(".py"):
                    archive.extract(member, root)
    marker.write_text(f"{name}=={ENGINES[name]}\n")
    return root


def main(argv: list[str]) -> None:
    for name in argv or list(ENGINES):
        if name not in ENGINES:
            raise SystemExit(f"unknown engine {name!r} (known: {', '.join(ENGINES)})")
        print(f"{name}=={ENGINES[name]}: {fetch(name)}")


if __name__ == "__main__":
    main(sys.argv[1:])
